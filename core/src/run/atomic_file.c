/* Write to a temporary name, rename on commit. */
#include "run/atomic_file.h"
#include "host/host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_OPEN 64
static atomic_file *open_files[MAX_OPEN];

static void track(atomic_file *f)
{
    for (int i = 0; i < MAX_OPEN; i++)
        if (!open_files[i]) {
            open_files[i] = f;
            return;
        }
}

static void untrack(atomic_file *f)
{
    for (int i = 0; i < MAX_OPEN; i++)
        if (open_files[i] == f)
            open_files[i] = NULL;
}

int make_parent_dirs(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            host_error("cannot create folder '%s': %s", copy, strerror(errno));
            free(copy);
            return -1;
        }
        *p = '/';
    }
    free(copy);
    return 0;
}

char *atomic_temp_name(const char *path)
{
    size_t n = strlen(path) + 64;
    char *temp = malloc(n);
    if (!temp)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    snprintf(temp, n, "%.*s.%s.tmp%ld", dir_len, path, base, (long)getpid());
    return temp;
}

int atomic_open(atomic_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    if (make_parent_dirs(path) != 0)
        return -1;
    f->final_path = strdup(path);
    f->temp_path = atomic_temp_name(path);
    if (!f->final_path || !f->temp_path) {
        free(f->final_path);
        free(f->temp_path);
        host_error("out of memory");
        return -1;
    }
    f->fp = fopen(f->temp_path, "w");
    if (!f->fp) {
        host_error("cannot write '%s': %s", f->temp_path, strerror(errno));
        free(f->final_path);
        free(f->temp_path);
        return -1;
    }
    track(f);
    return 0;
}

static void release(atomic_file *f)
{
    untrack(f);
    free(f->final_path);
    free(f->temp_path);
    f->final_path = f->temp_path = NULL;
    f->fp = NULL;
}

int atomic_commit(atomic_file *f)
{
    int failed = ferror(f->fp) != 0;
    failed |= fclose(f->fp) != 0;
    if (failed) {
        host_error("writing '%s' failed: %s", f->final_path, strerror(errno));
        remove(f->temp_path);
        release(f);
        return -1;
    }
    if (rename(f->temp_path, f->final_path) != 0) {
        host_error("cannot rename '%s' to '%s': %s", f->temp_path, f->final_path,
                   strerror(errno));
        remove(f->temp_path);
        release(f);
        return -1;
    }
    release(f);
    return 0;
}

void atomic_abort(atomic_file *f)
{
    if (!f->fp)
        return;
    fclose(f->fp);
    remove(f->temp_path);
    release(f);
}

void atomic_abort_all(void)
{
    for (int i = 0; i < MAX_OPEN; i++)
        if (open_files[i])
            atomic_abort(open_files[i]);
}
