/* A candidate plugin file, checked before anything of it is mapped or run.
 *
 * dlopen() maps a file as its ELF headers describe it: a truncated file
 * (a half-copied install, a build still writing) makes the loader touch
 * pages beyond the end of the file and the process dies of SIGBUS before
 * any message; a FIFO blocks it forever.  So a candidate is first read
 * with pread() alone: a regular file, an ELF shared object of this host's
 * class, byte order and machine, every header, segment and section inside
 * the file, and the entry symbol's first members (ABI version, struct
 * size, kind) read from the file's bytes, so that a plugin built for
 * another ABI is refused without its constructors ever running. */
#ifndef HOST_PLUGIN_FILE_H
#define HOST_PLUGIN_FILE_H

#include <stdint.h>
#include <sys/types.h>

typedef struct plugin_file_info {
    dev_t device;
    ino_t inode;
    off_t size;
    int64_t mtime_ns;
    int entry_read;            /* 1: the four members below are the file's */
    uint32_t abi_major, abi_minor, struct_size, kind;
} plugin_file_info;

/* 0 when `path` may be handed to dlopen; -1 with the reason in
 * host_last_error ("plugin file '...' could not be loaded: ..." or, for
 * a missing entry symbol, "... does not export the symbol ..."). */
int plugin_file_check(const char *path, plugin_file_info *info);

#endif
