/* The C half of wb.compile_model (the Lua half: model_compiler.lua): the
 * cache folder, the system C compiler, and loading what it built.
 *
 *   wb._cache_dir([sub]) -> path | nil, why   the cache folder (created,
 *                                              checked: host/cache_dir.h)
 *   wb._compile_flags()                  the flags the compiler gets
 *   wb._compile_inputs()                 what else the plugin depends on:
 *                                        the machine, the headers' folder
 *                                        and a hash of every header in it
 *   wb._compile_plugin(source, c_path, so_path, compiler, name) -> true | nil, why
 *   wb._model_origin(name)               the path a model of that name
 *                                        comes from, or nil
 *
 * A plugin found at so_path is loaded as it is (the file name holds the
 * hash of its source, compiler, flags and the inputs above) once it has
 * passed the cache's checks: the user's own file, writable by no one
 * else; a file that is not a plugin for this machine (a shared home's
 * other architecture, a damaged file) is built again.  Otherwise the
 * source is written (atomically), compiled to a temporary name and
 * renamed, so that two processes compiling the same model (sweep workers)
 * never load half a file. */
#define _GNU_SOURCE /* setenv, sigaction, nanosleep, kill in C11 mode */
#include "lua/lua_api.h"
#include "host/cache_dir.h"
#include "host/host.h"
#include "host/plugin_file.h"
#include "host/plugins.h"
#include "run/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* -ffp-contract=off: the model's copy of RATTLE's iteration
 * (holonomic_projection.h) rounds as the method's own does; -std=gnu11,
 * not c11: no trigraphs ("??/" is a backslash in ISO C) */
static const char *const compile_flags[] = {"-std=gnu11", "-O2", "-shared", "-fPIC",
                                            "-fvisibility=hidden", "-ffp-contract=off", NULL};

static int compile_flags_text(lua_State *L)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; compile_flags[i]; i++) {
        if (i)
            luaL_addchar(&b, ' ');
        luaL_addstring(&b, compile_flags[i]);
    }
    luaL_pushresult(&b);
    return 1;
}

static int cache_dir(lua_State *L)
{
    char path[PATH_MAX];
    if (cache_dir_open(luaL_optstring(L, 1, NULL), path, sizeof path) != 0) {
        lua_pushnil(L);
        lua_pushstring(L, host_last_error());
        return 2;
    }
    lua_pushstring(L, path);
    return 1;
}

/* The folder holding workbench/workbench.h: the installed headers next to
 * an installed host, else the source tree's for a build tree. */
static const char *include_dir(void)
{
    static char found[PATH_MAX];
    char exe[PATH_MAX], candidate[PATH_MAX + 64], header[PATH_MAX + 96];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(candidate, sizeof candidate, "%s/%s", exe, WB_INCLUDE_FROM_BIN);
        snprintf(header, sizeof header, "%s/workbench/workbench.h", candidate);
        if (access(header, R_OK) == 0 && realpath(candidate, found))
            return found;
    }
    snprintf(header, sizeof header, "%s/workbench/workbench.h", WB_SOURCE_INCLUDE_DIR);
    if (access(header, R_OK) == 0)
        return WB_SOURCE_INCLUDE_DIR;
    return NULL;
}

/* ---- what the generated code includes: part of the cache key ---------------- */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static uint64_t hash_file(uint64_t h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fnv1a(h, "?", 1);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        h = fnv1a(h, buf, n);
    fclose(f);
    return h;
}

/* Every file under `dir`, in name order: its name and its bytes. */
static uint64_t hash_tree(uint64_t h, const char *dir, int depth)
{
    DIR *d = depth < 8 ? opendir(dir) : NULL;
    if (!d)
        return h;
    char **names = NULL;
    size_t count = 0, capacity = 0;
    struct dirent *ent;
    while ((ent = readdir(d)))
        if (ent->d_name[0] != '.') {
            if (count == capacity) {
                capacity = capacity ? 2 * capacity : 32;
                char **bigger = realloc(names, capacity * sizeof *names);
                if (!bigger)
                    break;
                names = bigger;
            }
            if ((names[count] = strdup(ent->d_name)))
                count++;
        }
    closedir(d);
    qsort(names, count, sizeof *names, compare_strings);
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        h = fnv1a(h, names[i], strlen(names[i]) + 1);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            h = hash_tree(h, path, depth + 1);
        else if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            h = hash_file(h, path);
        free(names[i]);
    }
    free(names);
    return h;
}

/* The machine, the headers' folder and a hash of the headers: a changed
 * header (holonomic_projection.h is inlined code) or another architecture
 * sharing the home folder builds its own plugin. */
static int compile_inputs(lua_State *L)
{
    struct utsname u;
    const char *include = include_dir();
    char headers[PATH_MAX + 16];
    uint64_t h = 0xcbf29ce484222325ull;
    if (include) {
        snprintf(headers, sizeof headers, "%s/workbench", include);
        h = hash_tree(h, headers, 0);
    }
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    lua_pushfstring(L, "machine %s, headers %s %s", uname(&u) == 0 ? u.machine : "?",
                    include ? include : "(not found)", hex);
    return 1;
}

static char *read_text(const char *path, size_t limit)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = calloc(limit + 1, 1);
    if (text)
        text[fread(text, 1, limit, f)] = '\0';
    fclose(f);
    return text;
}

/* ---- running the compiler ------------------------------------------------------ */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* $WORKBENCH_COMPILE_TIMEOUT seconds, default 300 */
static double compile_timeout(void)
{
    const char *text = getenv("WORKBENCH_COMPILE_TIMEOUT");
    char *end;
    double t = text ? strtod(text, &end) : 0;
    return text && *text && !*end && t > 0 && t <= 1e6 ? t : 300.0;
}

/* What the user sees of a long compile: on a terminal a line from 2 s on,
 * counting the seconds; in a log (stderr not a terminal) one line at 10 s;
 * nothing with WORKBENCH_NO_PROGRESS or for a quick compile. */
typedef struct compile_job {
    const char *name;
    int lines, terminal, quiet, shown;
    double start, timeout;
} compile_job;

static void show_progress(compile_job *job, double elapsed, int done)
{
    if (job->quiet)
        return;
    if (job->terminal) {
        if (elapsed < 2 && !job->shown)
            return;
        if (done || (int)elapsed != job->shown) {
            fprintf(stderr, "\rwb.compile_model: compiling '%s' (%d lines of C) ... %d s%s",
                    job->name, job->lines, (int)elapsed, done ? "\n" : "");
            job->shown = (int)elapsed;
        }
    } else if (elapsed >= 10 && !job->shown && !done) {
        fprintf(stderr, "wb.compile_model: compiling '%s' (%d lines of C) takes long: %d s so "
                        "far (stopped after %g s, WORKBENCH_COMPILE_TIMEOUT)\n",
                job->name, job->lines, (int)elapsed, job->timeout);
        job->shown = 1;
    }
    fflush(stderr);
}

/* While the compiler runs, a signal that ends or interrupts the host
 * (Ctrl-C reaches only the host's process group) stops the compiler's
 * group first; the caller raises it again once its files are gone. */
static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define N_STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

static void catch_stop_signals(struct sigaction *previous)
{
    stop_signal = 0;
    for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
        struct sigaction action;
        sigaction(stop_signals[i], NULL, &previous[i]);
        if (previous[i].sa_handler == SIG_IGN)
            continue; /* nohup's SIGHUP stays ignored */
        memset(&action, 0, sizeof action);
        action.sa_handler = on_stop_signal;
        sigemptyset(&action.sa_mask);
        sigaction(stop_signals[i], &action, NULL);
    }
}

static void restore_stop_signals(const struct sigaction *previous)
{
    for (size_t i = 0; i < N_STOP_SIGNALS; i++)
        sigaction(stop_signals[i], &previous[i], NULL);
}

/* the compiler's private TMPDIR: its files go with it, even when it is
 * killed before it can remove them */
static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *ent;
        while ((ent = readdir(d))) {
            char path[PATH_MAX];
            if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0 &&
                snprintf(path, sizeof path, "%s/%s", dir, ent->d_name) < (int)sizeof path)
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The compiler in a process group of its own (so that the whole of it,
 * cc1, as, ld, can be stopped), stdin from /dev/null, output to the log. */
static pid_t spawn_compiler(const char *const *argv, const char *log_path, const char *tmpdir,
                            const struct sigaction *host_actions)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0) {
        if (pid > 0)
            setpgid(pid, pid); /* also here: no race with a kill of the group */
        return pid;
    }
    setpgid(0, 0);
    restore_stop_signals(host_actions); /* exec resets the caught ones */
    int in = open("/dev/null", O_RDONLY);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in >= 0)
        dup2(in, 0);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
    }
    setenv("TMPDIR", tmpdir, 1);
    execvp(argv[0], (char *const *)argv);
    fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
}

enum { COMPILE_DONE, COMPILE_TIMEOUT, COMPILE_STOPPED };

/* Wait for the compiler, showing progress; past the timeout or on a stop
 * signal its process group is killed. */
static int wait_compiler(pid_t pid, compile_job *job, int *status)
{
    int outcome = COMPILE_DONE;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            break;
        double elapsed = now_seconds() - job->start;
        if (stop_signal || elapsed > job->timeout) {
            outcome = stop_signal ? COMPILE_STOPPED : COMPILE_TIMEOUT;
            kill(-pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        show_progress(job, elapsed, 0);
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    if (job->shown)
        show_progress(job, now_seconds() - job->start, 1);
    return outcome;
}

/* Run the compiler; 0, or -1 with the reason pushed (and in *signal a
 * stop signal the caller raises again after removing its files). */
static int run_compiler(lua_State *L, const char *compiler, const char *c_path,
                        const char *out_path, const char *log_path, compile_job *job,
                        int *signal_out)
{
    const char *include = include_dir();
    *signal_out = 0;
    if (!include) {
        lua_pushstring(L, "the workbench headers (workbench/workbench.h) were not found "
                          "next to the host nor in its source tree");
        return -1;
    }
    const char *argv[32];
    int argc = 0;
    argv[argc++] = compiler;
    for (int i = 0; compile_flags[i]; i++)
        argv[argc++] = compile_flags[i];
    argv[argc++] = "-I";
    argv[argc++] = include;
    argv[argc++] = c_path;
    argv[argc++] = "-o";
    argv[argc++] = out_path;
    argv[argc++] = "-lm";
    argv[argc] = NULL;
    char tmpdir[PATH_MAX];
    snprintf(tmpdir, sizeof tmpdir, "%s.d", out_path);
    if (mkdir(tmpdir, 0700) != 0) {
        lua_pushfstring(L, "cannot create the compiler's temporary folder %s: %s", tmpdir,
                        strerror(errno));
        return -1;
    }
    int status = 0;
    job->start = now_seconds();
    job->timeout = compile_timeout();
    struct sigaction host_actions[N_STOP_SIGNALS];
    catch_stop_signals(host_actions);
    pid_t pid = spawn_compiler(argv, log_path, tmpdir, host_actions);
    int outcome = pid > 0 ? wait_compiler(pid, job, &status) : COMPILE_DONE;
    restore_stop_signals(host_actions);
    remove_folder(tmpdir);
    if (pid < 0) {
        lua_pushfstring(L, "cannot start the C compiler '%s': %s", compiler, strerror(errno));
        return -1;
    }
    if (outcome == COMPILE_TIMEOUT) {
        char seconds[32];
        remove(log_path);
        snprintf(seconds, sizeof seconds, "%g", job->timeout);
        lua_pushfstring(L, "the C compiler '%s' did not finish within %s s on %s (%d lines of "
                           "C) and was stopped (its whole process group); set "
                           "WORKBENCH_COMPILE_TIMEOUT to more seconds (default 300)",
                        compiler, seconds, c_path, job->lines);
        return -1;
    }
    if (outcome == COMPILE_STOPPED) {
        remove(log_path);
        *signal_out = stop_signal;
        lua_pushfstring(L, "interrupted while compiling %s (signal %d): the C compiler was "
                           "stopped", c_path, (int)stop_signal);
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char *log = read_text(log_path, 4000);
    lua_pushfstring(L, "the C compiler '%s' failed on %s (log %s):\n%s", compiler, c_path,
                    log_path, log ? log : "");
    free(log);
    return -1;
}

static int load(lua_State *L, const char *so_path)
{
    host_clear_error();
    const plugin *p = plugins_load_file(so_path);
    if (!p) {
        lua_pushnil(L);
        lua_pushstring(L, host_last_error());
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* 1: a plugin at so_path to load; 0: none to load (build it); -1: one
 * that must not be loaded, the reason pushed. */
static int cached_build(lua_State *L, const char *so_path)
{
    int found = cache_dir_check_file(so_path, "cached plugin");
    if (found < 0) {
        lua_pushstring(L, host_last_error());
        return -1;
    }
    if (found == 1)
        return 0;
    /* another machine's build (a shared home), a damaged file: built again */
    plugin_file_info info;
    return plugin_file_check(so_path, &info) == 0 ? 1 : 0;
}

static int fail(lua_State *L, const char *why)
{
    lua_pushnil(L);
    lua_pushstring(L, why);
    return 2;
}

static int compile_plugin(lua_State *L)
{
    size_t length;
    const char *source = luaL_checklstring(L, 1, &length);
    const char *c_path = luaL_checkstring(L, 2);
    const char *so_path = luaL_checkstring(L, 3);
    const char *compiler = luaL_checkstring(L, 4);
    compile_job job = {luaL_optstring(L, 5, "?"), 0, isatty(2),
                       getenv("WORKBENCH_NO_PROGRESS") != NULL, 0, 0, 0};
    for (size_t i = 0; i < length; i++)
        job.lines += source[i] == '\n';
    int cached = cached_build(L, so_path);
    if (cached < 0)
        return fail(L, lua_tostring(L, -1));
    if (cached) {
        /* the build in use is the newest of its name: --plugin-path on the
         * cache folder loads that one (an edit undone reuses an older
         * build, which its mtime would otherwise leave behind the edit's) */
        utimensat(AT_FDCWD, so_path, NULL, 0);
        return load(L, so_path);
    }
    atomic_file f;
    if (atomic_open(&f, c_path) != 0)
        return fail(L, host_last_error());
    fwrite(source, 1, length, f.fp);
    if (atomic_commit(&f) != 0)
        return fail(L, host_last_error());
    char *temp = atomic_temp_name(so_path);
    char log[PATH_MAX];
    if (!temp)
        return fail(L, "out of memory");
    snprintf(log, sizeof log, "%s.log", c_path);
    atomic_track_path(temp);
    int stopped_by = 0;
    int built = run_compiler(L, compiler, c_path, temp, log, &job, &stopped_by) == 0;
    if (built) {
        remove(log);
        /* the compiler's mode follows the umask (0775 under umask 002):
         * a cached plugin must be writable by no one else to be loaded */
        if (chmod(temp, 0755) != 0 || rename(temp, so_path) != 0) {
            lua_pushfstring(L, "cannot make %s the cached plugin %s: %s", temp, so_path,
                            strerror(errno));
            built = 0;
        }
    }
    remove(temp);
    atomic_untrack_path(temp);
    free(temp);
    if (stopped_by)
        raise(stopped_by); /* the host's own handling: Ctrl-C stops the script */
    if (!built)
        return fail(L, lua_tostring(L, -1));
    return load(L, so_path);
}

/* wb._model_origin(name): where the model `name` comes from (a plugin
 * file, a script's definition) once every plugin has been found, or nil */
static int model_origin(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    plugins_discover();
    for (int i = 0; i < plugins_count(); i++) {
        const plugin *p = plugins_at(i);
        if (p->model && strcmp(p->entry->name, name) == 0) {
            lua_pushstring(L, p->path);
            return 1;
        }
    }
    lua_pushnil(L);
    return 1;
}

void lua_compile_register(lua_State *L)
{
    static const luaL_Reg functions[] = {
        {"_cache_dir", cache_dir},
        {"_compile_flags", compile_flags_text},
        {"_compile_inputs", compile_inputs},
        {"_compile_plugin", compile_plugin},
        {"_model_origin", model_origin},
        {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
}
