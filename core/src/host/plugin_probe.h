/* Loading a plugin for the first time in a child process.
 *
 * What the static checks (host/plugin_file.h) cannot see -- a damaged
 * file that is still well-formed ELF, a constructor or destructor that
 * crashes or never returns -- must not take the host down.  So a plugin
 * file the host has not seen before is first loaded, validated and
 * unloaded in a forked child; the
 * host loads it itself only when the child came back with a clean
 * verdict.  Verdicts are cached by path, device, inode, size and mtime in
 * the folder wb.compile_model uses (host/cache_dir.h: only when it and the
 * file are the user's own), file plugin-verdicts, for this host
 * executable; any change of the file or of the host probes it again. */
#ifndef HOST_PLUGIN_PROBE_H
#define HOST_PLUGIN_PROBE_H

#include "host/plugin_file.h"

/* Called in the child after dlopen: 0 when the plugin is acceptable, else
 * -1 with the reason in host_last_error. */
typedef int (*plugin_probe_validate)(const char *path, void *handle);

/* 0: the child loaded and accepted the file (or the cache says it did);
 * -1: refused, the reason in host_last_error.  Seconds before a child is
 * given up: $WORKBENCH_PROBE_TIMEOUT, default 20. */
int plugin_probe(const char *path, const plugin_file_info *info,
                 plugin_probe_validate validate);

/* In the child, from validate: what it is doing now (printf-style; NULL:
 * nothing in particular), named by the verdict when the child dies or
 * hangs there: "calling get_extension(...) of model 'x' killed a test
 * process (signal 11, ...)".  No effect outside a probe's child. */
void plugin_probe_stage(const char *format, ...)
    __attribute__((format(printf, 1, 2)));
/* Whether the n bytes at p are readable memory, found without reading
 * them (a write to a pipe fails with EFAULT): a wild pointer a plugin
 * returned is refused with a message instead of crashing. */
int plugin_probe_readable(const void *p, size_t n);

/* Write the verdicts of this process's probes to the cache (once, after
 * discovery) and forget them. */
void plugin_probe_save(void);
void plugin_probe_forget(void);

#endif
