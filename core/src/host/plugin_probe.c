/* First loads in a child process, and the cache of their verdicts. */
#define _GNU_SOURCE /* pipe2 */
#include "host/plugin_probe.h"
#include "host/cache_dir.h"
#include "host/host.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAX_ENTRIES 4096
#define CACHE_MAX_BYTES (4u << 20)
#define REASON_MAX 1024

typedef struct verdict {
    char *path;
    unsigned long long device, inode, size;
    long long mtime_ns;
    int ok;
    char *reason;
} verdict;

static verdict *verdicts;
static int verdict_count, verdict_capacity, cache_loaded, cache_dirty;

/* ---- the cache file --------------------------------------------------------- */

/* The verdicts decide what is loaded without a test process: they are read
 * and written only in a cache folder, and from a file, that no one but
 * the user can write (host/cache_dir.h); otherwise they are not cached,
 * and a warning (once) says why. */
static int cache_refused;

static void refuse_cache(void)
{
    if (!cache_refused)
        host_warn("plugin verdicts are not cached: %s", host_last_error());
    cache_refused = 1;
}

static int cache_file(char *out, size_t size)
{
    char dir[PATH_MAX];
    if (cache_refused || cache_dir_location(dir, sizeof dir) != 0)
        return -1;
    int n = snprintf(out, size, "%s/plugin-verdicts", dir);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* An existing cache folder that may be trusted (no folder: none to read). */
static int cache_folder_trusted(void)
{
    char dir[PATH_MAX];
    if (cache_refused || cache_dir_location(dir, sizeof dir) != 0)
        return 0;
    int status = cache_dir_check_folder(dir);
    if (status < 0)
        refuse_cache();
    return status == 0;
}

/* The host executable the verdicts hold for: a rebuilt host (whose checks
 * may differ) starts afresh. */
static const char *host_identity(void)
{
    static char id[96];
    if (!id[0]) {
        struct stat st;
        if (stat("/proc/self/exe", &st) == 0)
            snprintf(id, sizeof id, "%llu:%llu:%lld.%09ld", (unsigned long long)st.st_ino,
                     (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec);
        else
            snprintf(id, sizeof id, "unknown");
    }
    return id;
}

static verdict *verdict_add(void)
{
    if (verdict_count == verdict_capacity) {
        int cap = verdict_capacity ? 2 * verdict_capacity : 32;
        verdict *bigger = realloc(verdicts, (size_t)cap * sizeof *bigger);
        if (!bigger)
            return NULL;
        verdicts = bigger, verdict_capacity = cap;
    }
    verdict *v = &verdicts[verdict_count++];
    memset(v, 0, sizeof *v);
    return v;
}

static void verdict_free(verdict *v)
{
    free(v->path);
    free(v->reason);
}

/* One line: device inode size mtime ok path reason, tab-separated. */
static void parse_line(char *line)
{
    char *field[7];
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(line, "\t", &save); tok && n < 7;
         tok = strtok_r(NULL, n == 6 ? "" : "\t", &save))
        field[n++] = tok;
    if (n < 6 || verdict_count >= CACHE_MAX_ENTRIES)
        return;
    char *end;
    unsigned long long number[4];
    for (int i = 0; i < 4; i++) {
        errno = 0;
        number[i] = strtoull(field[i], &end, 10);
        if (errno || *end || end == field[i])
            return;
    }
    if (strcmp(field[4], "0") != 0 && strcmp(field[4], "1") != 0)
        return;
    verdict *v = verdict_add();
    if (!v)
        return;
    v->device = number[0], v->inode = number[1], v->size = number[2];
    v->mtime_ns = (long long)number[3];
    v->ok = field[4][0] == '1';
    v->path = strdup(field[5]);
    v->reason = strdup(n > 6 ? field[6] : "");
    if (!v->path || !v->reason) {
        verdict_free(v);
        verdict_count--;
    }
}

static void load_cache(void)
{
    if (cache_loaded)
        return;
    cache_loaded = 1;
    char path[PATH_MAX];
    if (!cache_folder_trusted() || cache_file(path, sizeof path) != 0)
        return;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0) {
        if (errno != ENOENT) {
            host_error("cannot read the verdicts file '%s': %s", path, strerror(errno));
            refuse_cache();
        }
        return;
    }
    if (fstat(fd, &st) != 0 || cache_dir_check_stat(path, &st, "verdicts file") != 0) {
        refuse_cache();
        close(fd);
        return;
    }
    if (st.st_size > (off_t)CACHE_MAX_BYTES) {
        close(fd);
        return;
    }
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    if (got < 0) {
        free(text);
        return;
    }
    text[got] = '\0';
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    char header[160];
    snprintf(header, sizeof header, "workbench plugin verdicts 1 %s", host_identity());
    if (line && strcmp(line, header) == 0)
        while ((line = strtok_r(NULL, "\n", &save)))
            parse_line(line);
    free(text);
}

static int path_storable(const char *s)
{
    return !strpbrk(s, "\t\n\r");
}

void plugin_probe_save(void)
{
    if (!cache_dirty)
        return;
    cache_dirty = 0;
    char path[PATH_MAX], temp[PATH_MAX + 64], dir[PATH_MAX];
    if (cache_refused)
        return;
    if (cache_dir_open(NULL, dir, sizeof dir) != 0) {
        refuse_cache();
        return;
    }
    if (cache_file(path, sizeof path) != 0)
        return;
    if (snprintf(temp, sizeof temp, "%s.%ld.tmp", path, (long)getpid()) >= (int)sizeof temp)
        return;
    int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp) {
        if (fd >= 0)
            close(fd);
        return;
    }
    fprintf(fp, "workbench plugin verdicts 1 %s\n", host_identity());
    int written = 0;
    for (int i = verdict_count - 1; i >= 0 && written < CACHE_MAX_ENTRIES; i--) {
        const verdict *v = &verdicts[i];
        struct stat st;
        if (!path_storable(v->path) || stat(v->path, &st) != 0)
            continue; /* gone: forget it */
        int shadowed = 0;
        for (int j = i + 1; j < verdict_count && !shadowed; j++)
            shadowed = strcmp(verdicts[j].path, v->path) == 0;
        if (shadowed)
            continue;
        char reason[REASON_MAX];
        snprintf(reason, sizeof reason, "%s", v->reason);
        for (char *c = reason; *c; c++)
            if (*c == '\t' || *c == '\n' || *c == '\r')
                *c = ' ';
        fprintf(fp, "%llu\t%llu\t%llu\t%lld\t%d\t%s\t%s\n", v->device, v->inode, v->size,
                v->mtime_ns, v->ok, v->path, reason);
        written++;
    }
    /* a failed write (a full disk, a file-size limit) keeps the old cache */
    int failed = fflush(fp) != 0 || ferror(fp);
    if (fclose(fp) != 0 || failed || rename(temp, path) != 0)
        unlink(temp);
}

void plugin_probe_forget(void)
{
    for (int i = 0; i < verdict_count; i++)
        verdict_free(&verdicts[i]);
    free(verdicts);
    verdicts = NULL;
    verdict_count = verdict_capacity = cache_loaded = cache_dirty = cache_refused = 0;
}

static const verdict *find(const char *path, const plugin_file_info *info)
{
    for (int i = verdict_count - 1; i >= 0; i--) {
        const verdict *v = &verdicts[i];
        if (strcmp(v->path, path) == 0)
            return v->device == (unsigned long long)info->device &&
                           v->inode == (unsigned long long)info->inode &&
                           v->size == (unsigned long long)info->size &&
                           v->mtime_ns == info->mtime_ns
                       ? v
                       : NULL;
    }
    return NULL;
}

static void remember(const char *path, const plugin_file_info *info, int ok,
                     const char *reason)
{
    verdict *v = verdict_add();
    if (!v)
        return;
    v->path = strdup(path);
    v->reason = strdup(reason);
    if (!v->path || !v->reason) {
        verdict_free(v);
        verdict_count--;
        return;
    }
    v->device = (unsigned long long)info->device, v->inode = (unsigned long long)info->inode;
    v->size = (unsigned long long)info->size, v->mtime_ns = info->mtime_ns;
    v->ok = ok;
    cache_dirty = 1;
}

/* ---- the child ---------------------------------------------------------------- */

/* The child's pipe to the parent, -1 outside a probe's child.  Before its
 * verdict the child writes what it is doing as records "S<text>\n" (an
 * empty text: nothing in particular); the parent names the last one when
 * the child dies or hangs.  (Not shared memory: a mapping made for the
 * probe would move where the child maps the plugin, and a crash that
 * depends on the layout would pass in the child and strike the host.) */
static int stage_out = -1;
#define STAGE_MAX 512

static void write_all(int fd, const char *p, size_t length)
{
    while (length > 0) {
        ssize_t n = write(fd, p, length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        p += n, length -= (size_t)n;
    }
}

void plugin_probe_stage(const char *format, ...)
{
    if (stage_out < 0)
        return;
    char record[STAGE_MAX + 2] = "S";
    if (format) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(record + 1, STAGE_MAX, format, ap);
        va_end(ap);
        for (char *c = record + 1; *c; c++)
            if (*c == '\n')
                *c = ' ';
    }
    strcat(record, "\n");
    write_all(stage_out, record, strlen(record));
}

int plugin_probe_readable(const void *p, size_t n)
{
    int fds[2];
    if (n == 0)
        return 1;
    if (n > 65536 || pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return 0;
    ssize_t written = write(fds[1], p, n);
    close(fds[0]);
    close(fds[1]);
    return written == (ssize_t)n;
}

/* What the child's callers own: every stack frame above its own, the
 * arguments, the environment and the auxiliary vector, up to the top of
 * the main thread's stack.  Nothing the child does may change a byte of
 * it; a plugin whose loading does (a damaged DT_INIT that jumps into a
 * function called with (argc, argv, envp), say) would do the same in the
 * host without crashing it, leaving it to fail later at an unrelated
 * place.  This is a tripwire, not a sandbox: memory the loader itself
 * legitimately writes (its own and libc's data, the heap) is not
 * compared, and the heap is only exercised. */
typedef struct caller_memory {
    const unsigned char *start;
    size_t length;
    unsigned char *copy;
} caller_memory;

/* The callers' frames hold AddressSanitizer's redzones, which a checked
 * read reports (and memcpy/memcmp are checked even when called from
 * unchecked code): under -DWB_SANITIZE=ON every probe's child died on it.
 * So the stack is read byte by byte, unchecked; volatile keeps the
 * compiler from turning the loops back into memcpy/memcmp calls. */
#if defined(__SANITIZE_ADDRESS__)
#define NO_ADDRESS_CHECKS __attribute__((no_sanitize_address))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ADDRESS_CHECKS __attribute__((no_sanitize_address))
#endif
#endif
#ifndef NO_ADDRESS_CHECKS
#define NO_ADDRESS_CHECKS
#endif

NO_ADDRESS_CHECKS static void copy_unchecked(unsigned char *to, const unsigned char *from,
                                             size_t length)
{
    const volatile unsigned char *source = from;
    for (size_t i = 0; i < length; i++)
        to[i] = source[i];
}

NO_ADDRESS_CHECKS static int differs_unchecked(const unsigned char *copy,
                                               const unsigned char *live, size_t length)
{
    const volatile unsigned char *current = live;
    for (size_t i = 0; i < length; i++)
        if (copy[i] != current[i])
            return 1;
    return 0;
}

static int stack_top(uintptr_t *top)
{
    FILE *maps = fopen("/proc/self/maps", "re");
    if (!maps)
        return -1;
    char line[512];
    int found = -1;
    while (fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
            *top = (uintptr_t)hi;
            found = 0;
            break;
        }
    }
    fclose(maps);
    return found;
}

static caller_memory caller_memory_snapshot(const void *frame)
{
    caller_memory m = {NULL, 0, NULL};
    uintptr_t top, from = (uintptr_t)frame;
    if (stack_top(&top) != 0 || from >= top || top - from > ((size_t)64 << 20))
        return m;
    m.copy = malloc(top - from);
    if (!m.copy)
        return m;
    m.start = (const unsigned char *)from;
    m.length = top - from;
    copy_unchecked(m.copy, m.start, m.length);
    return m;
}

static int caller_memory_changed(const caller_memory *m)
{
    return m->copy && differs_unchecked(m->copy, m->start, m->length);
}

/* A heap the plugin damaged aborts here (glibc's checks), in the child. */
static void exercise_heap(void)
{
    void *blocks[16];
    for (int i = 0; i < 16; i++)
        blocks[i] = malloc((size_t)16 << i);
    for (int i = 15; i >= 0; i--)
        free(blocks[i]);
}

__attribute__((noinline)) static void child(const char *path, plugin_probe_validate validate,
                                             int out)
{
    caller_memory callers = caller_memory_snapshot(__builtin_frame_address(0));
    int quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (quiet >= 0) {
        dup2(quiet, 1);
        dup2(quiet, 2);
    }
    /* a fault is the verdict, not something to report or clean up */
    static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        signal(faults[i], SIG_DFL);
    char message[REASON_MAX + 2];
    stage_out = out;
    host_clear_error();
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        snprintf(message, sizeof message, "Eplugin file '%s' could not be loaded: %s", path,
                 dlerror());
    else if (validate(path, handle) != 0)
        snprintf(message, sizeof message, "E%s", host_last_error());
    else if (dlclose(handle) != 0) /* its destructors run at the host's exit too */
        snprintf(message, sizeof message, "Eplugin file '%s' could not be unloaded: %s", path,
                 dlerror());
    else {
        exercise_heap();
        if (caller_memory_changed(&callers))
            snprintf(message, sizeof message, "Eplugin file '%s' could not be loaded: loading "
                     "and unloading it in a test process changed memory the process owns "
                     "(its stack, arguments or environment): a damaged file, or a constructor "
                     "or destructor that writes where it must not", path);
        else
            snprintf(message, sizeof message, "O");
    }
    write_all(out, message, strlen(message));
    _exit(0);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double probe_timeout(void)
{
    const char *text = getenv("WORKBENCH_PROBE_TIMEOUT");
    char *end;
    double t = text ? strtod(text, &end) : 0;
    return text && *text && !*end && t > 0 && t <= 3600 ? t : 20.0;
}

/* The verdict on a child that died of a signal or did not finish. */
static void crash_reason(const char *path, const char *stage, int timed_out, int sig,
                         double timeout, char *reason, size_t size)
{
    if (stage[0] && timed_out)
        snprintf(reason, size, "plugin file '%s' could not be loaded: %s did not return "
                 "within %g s in a test process", path, stage, timeout);
    else if (stage[0])
        snprintf(reason, size, "plugin file '%s' could not be loaded: %s killed a test "
                 "process (signal %d, %s)", path, stage, sig, strsignal(sig));
    else if (timed_out)
        snprintf(reason, size, "plugin file '%s' could not be loaded: loading and unloading "
                 "it did not finish within %g s in a test process (a constructor or destructor "
                 "that never returns?)",
                 path, timeout);
    else
        snprintf(reason, size, "plugin file '%s' could not be loaded: loading or unloading it "
                 "killed a test process (signal %d, %s): a damaged file, or a constructor or "
                 "destructor that crashes",
                 path, sig, strsignal(sig));
}

/* The child's stage records, at the start of text: the last one's text
 * into stage (empty: none); returns where the verdict begins. */
static char *read_stages(char *text, char *stage, size_t size)
{
    stage[0] = '\0';
    char *end;
    while (text[0] == 'S' && (end = strchr(text, '\n'))) {
        *end = '\0';
        snprintf(stage, size, "%s", text + 1);
        text = end + 1;
    }
    return text;
}

/* 1 accepted, 0 refused (reason written), -1 no child could be run. */
static int run_child(const char *path, plugin_probe_validate validate, char *reason,
                     size_t size, int *cacheable)
{
    int fds[2];
    *cacheable = 0;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child(path, validate, fds[1]);
    }
    close(fds[1]);
    char text[16384], stage[STAGE_MAX]; /* the stage records, then the verdict */
    size_t length = 0;
    double timeout = probe_timeout(), deadline = now_seconds() + timeout;
    int timed_out = 0;
    for (;;) {
        double left = deadline - now_seconds();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pfd = {fds[0], POLLIN, 0};
        int ready = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        ssize_t n = read(fds[0], text + length, sizeof text - 1 - length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        length += (size_t)n;
        if (length == sizeof text - 1)
            break;
    }
    close(fds[0]);
    text[length] = '\0';
    if (timed_out)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    const char *verdict = read_stages(text, stage, sizeof stage);
    if (timed_out || WIFSIGNALED(status)) {
        crash_reason(path, stage, timed_out, timed_out ? 0 : WTERMSIG(status), timeout, reason,
                     size);
        *cacheable = 1;
        return 0;
    }
    if (verdict[0] == 'O' && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        *cacheable = 1;
        return 1;
    }
    if (verdict[0] == 'E') {
        snprintf(reason, size, "%s", verdict + 1);
        return 0;
    }
    snprintf(reason, size, "plugin file '%s' could not be loaded: the test process that "
             "loaded it exited (status %d) without a verdict (a constructor that exits?)",
             path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    *cacheable = 1;
    return 0;
}

int plugin_probe(const char *path, const plugin_file_info *info,
                 plugin_probe_validate validate)
{
    load_cache();
    const verdict *v = find(path, info);
    if (v) {
        if (v->ok)
            return 0;
        host_error("%s", v->reason);
        return -1;
    }
    char reason[REASON_MAX + 2] = "";
    int cacheable = 0;
    int accepted = run_child(path, validate, reason, sizeof reason, &cacheable);
    if (accepted < 0) {
        /* no child to be had (fork failed): load it here as before */
        host_services()->log(host_services(), WB_LOG_DEBUG,
                             "plugin file '%s': no test process (%s); loading it directly",
                             path, strerror(errno));
        return 0;
    }
    if (cacheable)
        remember(path, info, accepted, reason);
    if (accepted)
        return 0;
    host_error("%s", reason);
    return -1;
}
