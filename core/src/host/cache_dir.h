/* The user's cache folder: wb.compile_model's plugins (models/) and the
 * loader's verdicts (plugin-verdicts).
 *
 * Where: $WORKBENCH_CACHE_DIR, else $XDG_CACHE_HOME/workbench, else
 * $HOME/.cache/workbench (XDG_CACHE_HOME and HOME count only when
 * absolute), else workbench-cache-<uid> in $TMPDIR (when absolute) or /tmp.
 *
 * What is found there is loaded into the process as code (a plugin) or
 * trusted as a verdict about code, so it must be the user's own: the
 * folder (and a symbolic link to it) owned by the effective user and
 * writable by no one else (neither group nor others); created 0700 when
 * missing.  A file in it is used only when it is a regular file of the
 * user's, writable by no one else.  Another user could otherwise create
 * the shared temporary folder's workbench-cache-<uid> first and put a
 * plugin in it under a name the user's next run computes. */
#ifndef HOST_CACHE_DIR_H
#define HOST_CACHE_DIR_H

#include <stddef.h>
#include <sys/stat.h>

/* The cache folder's path (nothing created or checked): 0, or -1 when it
 * does not fit. */
int cache_dir_location(char *out, size_t size);

/* The cache folder, or its subfolder `sub` (NULL: the folder itself),
 * created 0700 where missing and checked: 0 with the path in out, or -1
 * with the reason in host_last_error. */
int cache_dir_open(const char *sub, char *out, size_t size);

/* An existing folder checked as above: 0, 1 when it does not exist, -1
 * with the reason in host_last_error. */
int cache_dir_check_folder(const char *path);

/* A file of the cache: 0 when it may be used, 1 when it does not exist,
 * -1 with the reason in host_last_error (`what` names it: "cached
 * plugin").  cache_dir_check_stat checks what fstat said of an open one. */
int cache_dir_check_file(const char *path, const char *what);
int cache_dir_check_stat(const char *path, const struct stat *st, const char *what);

#endif
