/* The user's cache folder: where it is, and whether it can be trusted. */
#include "host/cache_dir.h"
#include "host/host.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *absolute_env(const char *name)
{
    const char *value = getenv(name);
    return value && value[0] == '/' ? value : NULL;
}

int cache_dir_location(char *out, size_t size)
{
    const char *env = getenv("WORKBENCH_CACHE_DIR");
    int n;
    if (env && *env)
        n = snprintf(out, size, "%s", env);
    else if ((env = absolute_env("XDG_CACHE_HOME")))
        n = snprintf(out, size, "%s/workbench", env);
    else if ((env = absolute_env("HOME")))
        n = snprintf(out, size, "%s/.cache/workbench", env);
    else {
        env = absolute_env("TMPDIR");
        n = snprintf(out, size, "%s/workbench-cache-%ld", env ? env : "/tmp", (long)geteuid());
    }
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static const char *writers(mode_t mode)
{
    if ((mode & S_IWGRP) && (mode & S_IWOTH))
        return "its group and all users";
    return mode & S_IWGRP ? "its group" : "all users";
}

/* The user's, writable by no one else: 0, or -1 with the reason. */
static int owned(const char *path, const struct stat *st, const char *what, const char *fix)
{
    if (st->st_uid != geteuid()) {
        host_error("the %s '%s' belongs to user %ld, not to you (user %ld): what another user "
                   "puts there would run as your code; %s", what, path, (long)st->st_uid,
                   (long)geteuid(), fix);
        return -1;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        host_error("the %s '%s' is writable by %s (mode %04o): what they put there would run "
                   "as your code; %s", what, path, writers(st->st_mode),
                   (unsigned)(st->st_mode & 07777), fix);
        return -1;
    }
    return 0;
}

static const char folder_fix[] = "remove it or `chmod go-w` it, or set WORKBENCH_CACHE_DIR "
                                 "to a folder of your own";

int cache_dir_check_folder(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 1;
        host_error("cannot use the cache folder '%s': %s", path, strerror(errno));
        return -1;
    }
    /* a link counts as much as the folder it leads to: both the user's */
    if (S_ISLNK(st.st_mode)) {
        if (owned(path, &st, "link to the cache folder", folder_fix) != 0)
            return -1;
        if (stat(path, &st) != 0) {
            host_error("cannot use the cache folder '%s': %s", path, strerror(errno));
            return -1;
        }
    }
    if (!S_ISDIR(st.st_mode)) {
        host_error("the cache folder '%s' is not a folder; set WORKBENCH_CACHE_DIR to a "
                   "folder of your own", path);
        return -1;
    }
    return owned(path, &st, "cache folder", folder_fix);
}

/* mkdir -p, each missing folder 0700 */
static int make_folders(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        host_error("the cache folder '%s' has too long a name", path);
        return -1;
    }
    for (char *p = buf + 1;; p++)
        if (*p == '/' || !*p) {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
                host_error("cannot create the cache folder '%s': %s (set WORKBENCH_CACHE_DIR "
                           "to a writable folder)", buf, strerror(errno));
                return -1;
            }
            if (!c)
                return 0;
            *p = c;
        }
}

int cache_dir_open(const char *sub, char *out, size_t size)
{
    char base[PATH_MAX];
    if (cache_dir_location(base, sizeof base) != 0) {
        host_error("the cache folder's name is too long (WORKBENCH_CACHE_DIR, XDG_CACHE_HOME "
                   "or HOME)");
        return -1;
    }
    int n = sub ? snprintf(out, size, "%s/%s", base, sub) : snprintf(out, size, "%s", base);
    if (n < 0 || (size_t)n >= size) {
        host_error("the cache folder's name '%s' is too long", base);
        return -1;
    }
    if (make_folders(out) != 0)
        return -1;
    if (cache_dir_check_folder(base) != 0 || (sub && cache_dir_check_folder(out) != 0))
        return -1;
    return 0;
}

int cache_dir_check_stat(const char *path, const struct stat *st, const char *what)
{
    if (!S_ISREG(st->st_mode)) {
        host_error("the %s '%s' is not a regular file; remove it", what, path);
        return -1;
    }
    return owned(path, st, what, "remove it (it is rebuilt when needed)");
}

int cache_dir_check_file(const char *path, const char *what)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 1;
        host_error("cannot use the %s '%s': %s", what, path, strerror(errno));
        return -1;
    }
    return cache_dir_check_stat(path, &st, what);
}
