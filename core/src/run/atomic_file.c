/* Write to a temporary name, rename on commit; temporary files removed on
 * every way out of the process that can be caught, and stale ones of dead
 * processes removed by the next run. */
#define _GNU_SOURCE /* gethostname, kill, sigaction in C11 mode, fopencookie */
#include "run/atomic_file.h"
#include "host/host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the files this process has open, for atomic_abort_all ---------------- */

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

/* ---- temporary paths, readable from a signal handler ----------------------
 * Fixed slots (no allocation in the handler); a slot belongs to the process
 * that filled it, so a forked worker's crash never removes its parent's
 * files. */

#define MAX_TEMPORARIES 64
static char temp_slots[MAX_TEMPORARIES][PATH_MAX];
static volatile sig_atomic_t temp_owner[MAX_TEMPORARIES]; /* pid, 0: free */

void atomic_track_path(const char *temp_path)
{
    size_t n = strlen(temp_path);
    if (n >= PATH_MAX)
        return; /* no file of that name can exist */
    for (int i = 0; i < MAX_TEMPORARIES; i++)
        if (temp_owner[i] == 0) {
            memcpy(temp_slots[i], temp_path, n + 1);
            temp_owner[i] = (sig_atomic_t)getpid();
            return;
        }
}

void atomic_untrack_path(const char *temp_path)
{
    sig_atomic_t self = (sig_atomic_t)getpid();
    for (int i = 0; i < MAX_TEMPORARIES; i++)
        if (temp_owner[i] == self && strcmp(temp_slots[i], temp_path) == 0) {
            temp_owner[i] = 0;
            return;
        }
}

void atomic_remove_temporaries_now(void)
{
    sig_atomic_t self = (sig_atomic_t)getpid();
    for (int i = 0; i < MAX_TEMPORARIES; i++)
        if (temp_owner[i] == self) {
            unlink(temp_slots[i]);
            temp_owner[i] = 0;
        }
}

/* Not SIGXFSZ: it is ignored (atomic_install_signal_cleanup). */
static const int fatal_signals[] = {SIGHUP,  SIGTERM, SIGQUIT, SIGPIPE, SIGALRM,
                                    SIGUSR1, SIGUSR2, SIGXCPU, SIGSEGV, SIGBUS,
                                    SIGFPE,  SIGILL,  SIGABRT, SIGSYS,  SIGTRAP};
static struct sigaction previous_action[NSIG];

static int is_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
           sig == SIGTRAP || sig == SIGSYS;
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    atomic_remove_temporaries_now();
    sigaction(sig, &previous_action[sig], NULL);
    /* a fault sent by the kernel recurs when the faulting instruction runs
     * again, now under the previous handler (a sanitizer's report, or the
     * default core dump); anything else is raised again */
    if (!(is_fault(sig) && info && info->si_code > 0))
        raise(sig);
}

void atomic_install_signal_cleanup(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        int sig = fatal_signals[i];
        struct sigaction now;
        if (sigaction(sig, NULL, &now) != 0 || now.sa_handler == SIG_IGN)
            continue; /* e.g. nohup's SIGHUP: stays ignored */
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = on_fatal_signal;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(sig, &action, &previous_action[sig]) != 0)
            continue;
    }
    /* its default kills the process mid-write; ignored, the write fails
     * with EFBIG, which is reported ("File too large") like a full disk,
     * and what is complete is kept */
    signal(SIGXFSZ, SIG_IGN);
}

/* ---- names ------------------------------------------------------------------ */

/* This host's name as it appears in temporary names: [A-Za-z0-9_-]. */
static const char *host_tag(void)
{
    static char tag[72];
    if (tag[0])
        return tag;
    char name[65] = "";
    if (gethostname(name, sizeof name - 1) != 0 || !name[0])
        strcpy(name, "host");
    name[sizeof name - 1] = '\0';
    size_t i = 0;
    for (; name[i] && i < sizeof tag - 1; i++) {
        char c = name[i];
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '-' || c == '_';
        tag[i] = keep ? c : '_';
    }
    tag[i] = '\0';
    return tag;
}

char *atomic_temp_name(const char *path)
{
    size_t n = strlen(path) + 128;
    char *temp = malloc(n);
    if (!temp)
        return NULL;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    snprintf(temp, n, "%.*s.%s.%s.tmp%ld", dir_len, path, base, host_tag(), (long)getpid());
    return temp;
}

/* The pid of a temporary file this host's workbench left in a folder, or
 * 0 when `name` is not one. */
static long temporary_owner(const char *name)
{
    size_t n = strlen(name), digits = 0;
    while (digits < n && name[n - 1 - digits] >= '0' && name[n - 1 - digits] <= '9')
        digits++;
    const char *tag = host_tag();
    size_t t = strlen(tag);
    if (name[0] != '.' || digits == 0 || digits > 9 || n < digits + t + 7)
        return 0;
    const char *tmp = name + n - digits - 4;
    if (strncmp(tmp, ".tmp", 4) != 0 || strncmp(tmp - t, tag, t) != 0 || tmp[-(long)t - 1] != '.')
        return 0;
    return strtol(name + n - digits, NULL, 10);
}

/* Stale temporary files of dead processes of this host in `dir`; each
 * folder is looked at once per process. */
static void remove_stale_temporaries(const char *dir)
{
    static char *seen[256];
    static int seen_count;
    for (int i = 0; i < seen_count; i++)
        if (strcmp(seen[i], dir) == 0)
            return;
    if (seen_count < (int)(sizeof seen / sizeof seen[0])) {
        char *copy = strdup(dir);
        if (copy)
            seen[seen_count++] = copy;
    }
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        long pid = temporary_owner(ent->d_name);
        if (pid <= 0 || pid == (long)getpid() || pid > INT_MAX)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive (or not ours to ask about) */
        char full[PATH_MAX];
        struct stat st;
        if (snprintf(full, sizeof full, "%s%s%s", dir, dir[0] ? "/" : "", ent->d_name) <
                (int)sizeof full &&
            lstat(full, &st) == 0 && S_ISREG(st.st_mode))
            unlink(full);
    }
    closedir(d);
}

static void remove_stale_next_to(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        remove_stale_temporaries("");
        return;
    }
    size_t n = (size_t)(slash - path);
    char dir[PATH_MAX];
    if (n >= sizeof dir)
        return;
    memcpy(dir, path, n);
    dir[n] = '\0';
    remove_stale_temporaries(n ? dir : "/");
}

/* ---- folders and files ------------------------------------------------------ */

int make_parent_dirs(const char *path)
{
    if (!path[0])
        return 0;
    char *copy = strdup(path);
    if (!copy) {
        host_error("out of memory");
        return -1;
    }
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

/* A path that names a file: not empty, not a folder by its spelling, and
 * not an existing folder or special file (renaming onto one fails, or
 * replaces a device). */
static int check_target(const char *path)
{
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (n == 0) {
        host_error("output file name is empty");
        return -1;
    }
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        host_error("output file name '%s' names a folder, not a file", path);
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            host_error("cannot write '%s': it is a folder", path);
            return -1;
        }
        if (!S_ISREG(st.st_mode)) {
            host_error("cannot write '%s': it exists and is not a regular file (a device, "
                       "a FIFO or a socket)", path);
            return -1;
        }
    }
    return 0;
}

/* ---- writing through to the file ------------------------------------------- */

/* Count the complete lines among the n bytes just written. */
static void count_lines(atomic_file *f, const char *buf, size_t n)
{
    const char *end = buf + n;
    for (const char *p = buf; (p = memchr(p, '\n', (size_t)(end - p))); p++) {
        f->lines++;
        f->line_end = f->written + (p - buf) + 1;
    }
    f->written += (long long)n;
}

/* fp's writes.  Nothing is written after the first failure: glibc drops a
 * buffer it could not write, and a later write that succeeded (space freed
 * meanwhile) would leave a gap in the file. */
static ssize_t write_through(void *cookie, const char *buf, size_t size)
{
    atomic_file *f = cookie;
    size_t done = 0;
    while (done < size && !f->failed_errno) {
        ssize_t n = write(f->fd, buf + done, size - done);
        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else
            f->failed_errno = n < 0 ? errno : EIO;
    }
    count_lines(f, buf, done);
    if (done == size)
        return (ssize_t)size;
    errno = f->failed_errno;
    return done > 0 ? (ssize_t)done : -1;
}

static int close_through(void *cookie)
{
    atomic_file *f = cookie;
    int status = close(f->fd);
    f->fd = -1;
    return status;
}

static FILE *open_through(atomic_file *f)
{
    f->fd = open(f->temp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (f->fd < 0)
        return NULL;
    cookie_io_functions_t io = {.write = write_through, .close = close_through};
    FILE *fp = fopencookie(f, "w", io);
    if (!fp) {
        int saved = errno;
        close(f->fd);
        unlink(f->temp_path);
        errno = saved;
    }
    return fp;
}

int atomic_open(atomic_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    if (check_target(path) != 0 || make_parent_dirs(path) != 0)
        return -1;
    remove_stale_next_to(path);
    f->final_path = strdup(path);
    f->temp_path = atomic_temp_name(path);
    if (!f->final_path || !f->temp_path) {
        free(f->final_path);
        free(f->temp_path);
        host_error("out of memory");
        return -1;
    }
    atomic_track_path(f->temp_path);
    f->fp = open_through(f);
    if (!f->fp) {
        host_error("cannot write '%s': %s", f->temp_path, strerror(errno));
        atomic_untrack_path(f->temp_path);
        free(f->final_path);
        free(f->temp_path);
        return -1;
    }
    track(f);
    return 0;
}

int atomic_check(atomic_file *f)
{
    if (!f->fp)
        return -1;
    if (!ferror(f->fp))
        return 0;
    if (!f->failed_errno)
        f->failed_errno = errno ? errno : EIO;
    host_error("writing '%s' failed: %s", f->final_path, strerror(f->failed_errno));
    return -1;
}

static void release(atomic_file *f)
{
    untrack(f);
    atomic_untrack_path(f->temp_path);
    free(f->final_path);
    free(f->temp_path);
    f->final_path = f->temp_path = NULL;
    f->fp = NULL;
}

int atomic_commit(atomic_file *f)
{
    int failed = fflush(f->fp) != 0 || ferror(f->fp) != 0;
    int saved = failed ? (f->failed_errno ? f->failed_errno : errno) : 0;
    if (fclose(f->fp) != 0 && !failed) {
        failed = 1;
        saved = errno;
    }
    if (failed) {
        host_error("writing '%s' failed: %s", f->final_path, strerror(saved ? saved : EIO));
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

/* The complete lines of a file whose write failed, renamed into place:
 * 0, or -1 with nothing kept (no complete line, or a failed truncation or
 * rename). */
static int keep_complete_lines(atomic_file *f)
{
    int status = -1;
    if (f->lines > 0 && ftruncate(f->fd, (off_t)f->line_end) == 0) {
        fclose(f->fp);
        f->fp = NULL;
        status = rename(f->temp_path, f->final_path);
    }
    if (f->fp)
        fclose(f->fp);
    if (status != 0)
        remove(f->temp_path);
    return status;
}

int atomic_commit_lines(atomic_file *f, long long *lines)
{
    *lines = 0;
    if (fflush(f->fp) == 0 && !ferror(f->fp) && !f->failed_errno) {
        long long complete = f->lines;
        if (atomic_commit(f) != 0)
            return -1;
        *lines = complete;
        return 0;
    }
    int saved = f->failed_errno ? f->failed_errno : EIO;
    if (keep_complete_lines(f) == 0)
        *lines = f->lines;
    host_error("writing '%s' failed: %s", f->final_path, strerror(saved));
    release(f);
    return -1;
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
