/* The C half of wb.sweep: a pool of worker processes, one fork per case,
 * and the append that writes each finished case's row whole.  The Lua half
 * (core/src/lua/sweep.lua, embedded) builds cases, rows and files.
 *
 * wb._sweep_pool{count = n, jobs = j, timeout = s, progress = bool,
 *                work = function(i) -> string,     -- runs in the worker
 *                collect = function(i, status, text, seconds)}
 * forks a worker for each case i in 1..n, at most j at a time.  A worker
 * calls work(i) in its own copy of the Lua state and sends the string it
 * returns through a pipe; collect then runs in the parent with status
 * "ok" and that string, "error" and the message work raised, "crashed"
 * and the signal, or "timeout".  A worker never returns into the caller:
 * it _exits, so nothing of the parent's (files being written, temporary
 * files) is finalised twice.
 *
 * Each worker leads its own process group, and whatever its case started
 * (os.execute) is in it: a timeout, an interruption or the end of the
 * worker ends the whole group, and so does the parent's death, whatever
 * killed it (the worker's parent-death signal). */
#define _GNU_SOURCE /* kill, sigaction, waitid in C11 mode */
#include "lua/lua_api.h"
#include "run/atomic_file.h"
#include "run/driver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define POOL_TYPE "workbench.sweep_pool"
#define MAX_JOBS 1024

typedef struct worker {
    pid_t pid;          /* 0: free slot              */
    int fd;             /* read end of its pipe      */
    int index;          /* its case, 1-based         */
    double started;
    int timed_out;
    char *text;         /* what it sent so far       */
    size_t length, capacity;
} worker;

typedef struct pool {
    int jobs;
    worker *workers;
} pool;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the pool's lifetime: a Lua object, so an error anywhere still reaps
 * the workers and closes their pipes ------------------------------------------- */

static void worker_release(worker *w)
{
    if (w->fd >= 0)
        close(w->fd);
    free(w->text);
    memset(w, 0, sizeof *w);
    w->fd = -1;
}

static void pause_ms(int ms)
{
    struct timespec pause = {0, (long)ms * 1000 * 1000};
    nanosleep(&pause, NULL);
}

/* 1 once the worker has ended, still unreaped (its pid, and so its
 * group's id, cannot be reused before the group is ended). */
static int has_ended(pid_t pid, int block)
{
    siginfo_t info;
    memset(&info, 0, sizeof info);
    int flags = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
    while (waitid(P_PID, (id_t)pid, &info, flags) != 0)
        if (errno != EINTR)
            return 1; /* not our child any more: nothing to wait for */
    return info.si_pid == pid;
}

/* Once the worker has ended: end what it left running in its group, then
 * reap it; its wait status. */
static int reap(pid_t pid)
{
    int status = 0;
    has_ended(pid, 1);
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

/* SIGTERM to the group first, so that the worker removes its temporary
 * files (run/atomic_file.h); SIGKILL when it is still there a second
 * later. */
static void stop_worker(pid_t pid)
{
    kill(-pid, SIGTERM);
    for (int waited = 0; waited < 100 && !has_ended(pid, 0); waited++)
        pause_ms(10);
    kill(-pid, SIGKILL);
    reap(pid);
}

static void pool_kill_all(pool *p)
{
    for (int i = 0; p->workers && i < p->jobs; i++) {
        worker *w = &p->workers[i];
        if (w->pid > 0)
            stop_worker(w->pid);
        worker_release(w);
    }
}

static int pool_gc(lua_State *L)
{
    pool *p = luaL_checkudata(L, 1, POOL_TYPE);
    pool_kill_all(p);
    free(p->workers);
    p->workers = NULL;
    return 0;
}

static pool *pool_new(lua_State *L, int jobs)
{
    pool *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->jobs = 0;
    p->workers = NULL;
    if (luaL_newmetatable(L, POOL_TYPE)) {
        lua_pushcfunction(L, pool_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, pool_gc);
        lua_setfield(L, -2, "__close");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    p->workers = calloc((size_t)jobs, sizeof *p->workers);
    if (!p->workers)
        luaL_error(L, "wb.sweep: out of memory for %d workers", jobs);
    p->jobs = jobs;
    for (int i = 0; i < jobs; i++)
        p->workers[i].fd = -1;
    return p;
}

/* ---- the worker side ------------------------------------------------------------- */

static void write_all(int fd, const char *data, size_t length)
{
    while (length > 0) {
        ssize_t n = write(fd, data, length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n, length -= (size_t)n;
    }
}

/* In the child: work(i), its result or its error, a status byte first. */
static void run_worker(lua_State *L, int work_index, int index, int fd)
{
    lua_pushvalue(L, work_index);
    lua_pushinteger(L, index);
    int status = lua_pcall(L, 1, 1, 0);
    size_t length = 0;
    const char *text = lua_tolstring(L, -1, &length);
    if (status == LUA_OK && !lua_isstring(L, -1)) {
        status = LUA_ERRRUN;
        text = "the sweep's work function returned no string";
        length = strlen(text);
    } else if (!text) {
        text = "(an error object that is not a string)";
        length = strlen(text);
    }
    write_all(fd, status == LUA_OK ? "O" : "E", 1);
    write_all(fd, text, length);
    close(fd);
    _exit(0);
}

/* In a worker whose parent died: its temporary files, then its group
 * (only its own: never a group it failed to leave, its parent's shell's). */
static void on_parent_death(int sig)
{
    (void)sig;
    atomic_remove_temporaries_now();
    kill(getpgrp() == getpid() ? 0 : getpid(), SIGKILL);
}

/* In the child, before its case: a group of its own, ended with it. */
static void become_worker(pid_t parent)
{
    setpgid(0, 0);
#ifdef __linux__
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_parent_death;
    sigemptyset(&action.sa_mask);
    sigaction(SIGHUP, &action, NULL);
    prctl(PR_SET_PDEATHSIG, SIGHUP);
    if (getppid() != parent) /* it died before the line above */
        on_parent_death(SIGHUP);
#else
    (void)parent;
#endif
}

/* ---- the parent side ------------------------------------------------------------- */

static int spawn(lua_State *L, pool *p, worker *w, int work_index, int index)
{
    int fds[2];
    if (pipe(fds) != 0)
        return luaL_error(L, "wb.sweep: cannot create a pipe: %s", strerror(errno));
    /* the write end: the worker's alone, never a program's it starts, so
     * that its end is the end of the pipe */
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return luaL_error(L, "wb.sweep: cannot fork a worker: %s", strerror(errno));
    }
    if (pid == 0) {
        become_worker(parent);
        close(fds[0]);
        for (int i = 0; i < p->jobs; i++) /* the other workers' pipes */
            if (p->workers[i].fd >= 0)
                close(p->workers[i].fd);
        run_worker(L, work_index, index, fds[1]);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    close(fds[1]);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK); /* timeouts hold */
    w->pid = pid, w->fd = fds[0], w->index = index, w->started = now_seconds();
    w->timed_out = 0, w->text = NULL, w->length = w->capacity = 0;
    return 0;
}

/* Read what is there; 1 at end of file. */
static int drain(lua_State *L, worker *w)
{
    char chunk[4096];
    for (;;) {
        ssize_t n = read(w->fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return 1;
        if (w->length + (size_t)n > w->capacity) {
            size_t capacity = w->capacity ? 2 * w->capacity : 8192;
            while (capacity < w->length + (size_t)n)
                capacity *= 2;
            char *bigger = realloc(w->text, capacity);
            if (!bigger)
                return luaL_error(L, "wb.sweep: out of memory for a worker's result");
            w->text = bigger, w->capacity = capacity;
        }
        memcpy(w->text + w->length, chunk, (size_t)n);
        w->length += (size_t)n;
        if ((size_t)n < sizeof chunk)
            return 0;
    }
}

/* The verdict on a finished worker: status and text on the stack. */
static void push_verdict(lua_State *L, const worker *w, int wait_status, double timeout)
{
    if (w->timed_out) {
        lua_pushstring(L, "timeout");
        lua_pushfstring(L, "timed out after %d s", (int)timeout);
    } else if (WIFSIGNALED(wait_status)) {
        int sig = WTERMSIG(wait_status);
        lua_pushstring(L, "crashed");
        lua_pushfstring(L, "the worker died of signal %d (%s)", sig, strsignal(sig));
    } else if (w->length == 0 || (w->text[0] != 'O' && w->text[0] != 'E')) {
        lua_pushstring(L, "crashed");
        lua_pushfstring(L, "the worker exited (status %d) without a result",
                        WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1);
    } else {
        lua_pushstring(L, w->text[0] == 'O' ? "ok" : "error");
        lua_pushlstring(L, w->text + 1, w->length - 1);
    }
}

typedef struct tally {
    int count, done, failed, running;
    double start;
    int progress;
} tally;

static void show_progress(const tally *t, int final)
{
    if (!t->progress)
        return;
    double elapsed = now_seconds() - t->start;
    double eta = t->done > 0 ? elapsed * (t->count - t->done) / t->done : 0.0;
    fprintf(stderr, "\r  sweep: %d/%d done, %d failed, %d running, ETA %.0f s   ", t->done,
            t->count, t->failed, t->running, eta);
    if (final)
        fprintf(stderr, "\r%70s\r", "");
    fflush(stderr);
}

/* collect(i, status, text, seconds) in protected mode: an error there
 * (including an interrupt) first reaps the workers, then propagates. */
static void collect(lua_State *L, pool *p, int collect_index, worker *w, int wait_status,
                    double timeout, tally *t)
{
    lua_pushvalue(L, collect_index);
    lua_pushinteger(L, w->index);
    push_verdict(L, w, wait_status, timeout);
    int ok = strcmp(lua_tostring(L, -2), "ok") == 0;
    lua_pushnumber(L, now_seconds() - w->started);
    worker_release(w);
    t->done++, t->running--, t->failed += !ok;
    if (lua_pcall(L, 4, 0, 0) != LUA_OK) {
        pool_kill_all(p);
        lua_error(L);
    }
}

static double number_field(lua_State *L, const char *name, double fallback)
{
    lua_getfield(L, 1, name);
    double x = lua_isnil(L, -1) ? fallback : luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return x;
}

static int sweep_pool(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    const double count = number_field(L, "count", 0), jobs = number_field(L, "jobs", 1);
    const double timeout = number_field(L, "timeout", 0);
    if (!(count >= 0 && count <= 1e9 && count == (double)(long long)count))
        return luaL_error(L, "wb.sweep: count must be a whole number of cases");
    if (!(jobs >= 1 && jobs <= MAX_JOBS && jobs == (double)(int)jobs))
        return luaL_error(L, "wb.sweep: jobs must be a whole number in 1..%d", MAX_JOBS);
    if (!(timeout >= 0 && timeout <= 1e9))
        return luaL_error(L, "wb.sweep: timeout must be a number of seconds >= 0");
    lua_getfield(L, 1, "work");
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_getfield(L, 1, "collect");
    luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_getfield(L, 1, "progress");
    tally t = {(int)count, 0, 0, 0, now_seconds(), lua_toboolean(L, 4) && isatty(2)};
    pool *p = pool_new(L, (int)jobs); /* at 5 */
    int next = 1;
    while (next <= t.count || t.running > 0) {
        if (driver_interrupt_requested()) {
            pool_kill_all(p);
            return luaL_error(L, "wb.sweep: interrupted");
        }
        for (int i = 0; i < p->jobs && next <= t.count; i++)
            if (p->workers[i].pid == 0) {
                spawn(L, p, &p->workers[i], 2, next++);
                t.running++;
            }
        struct pollfd fds[MAX_JOBS];
        int map[MAX_JOBS], n = 0;
        for (int i = 0; i < p->jobs; i++)
            if (p->workers[i].pid > 0) {
                fds[n] = (struct pollfd){p->workers[i].fd, POLLIN, 0};
                map[n++] = i;
            }
        poll(fds, (nfds_t)n, 200);
        for (int k = 0; k < n; k++) {
            worker *w = &p->workers[map[k]];
            /* SIGTERM lets it remove its temporary files; SIGKILL if that
             * has not ended it a second later; to its group, so that a
             * program its case started ends too */
            if (timeout > 0 && !w->timed_out && now_seconds() - w->started > timeout) {
                kill(-w->pid, SIGTERM);
                w->timed_out = 1;
            } else if (w->timed_out && now_seconds() - w->started > timeout + 1.0) {
                kill(-w->pid, SIGKILL);
            }
            /* asked before reading: once it has ended, all it sent is in
             * the pipe, even if something that left its group holds the
             * pipe open */
            int ended = has_ended(w->pid, 0);
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)) && !ended)
                continue;
            if (!drain(L, w) && !ended)
                continue;
            int wait_status = reap(w->pid);
            w->pid = 0;
            collect(L, p, 3, w, wait_status, timeout, &t);
        }
        show_progress(&t, 0);
    }
    show_progress(&t, 1);
    return 0;
}

/* wb._append_line(path, text) -> true, or nil and why: one write() on an
 * O_APPEND descriptor, so a row is in the file whole or not at all,
 * whatever else appends; a write cut short (a full disk, a file-size
 * limit) is taken back, so that the next row starts a line. */
static int append_line(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    size_t length;
    const char *text = luaL_checklstring(L, 2, &length);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    struct stat before;
    if (fd < 0 || fstat(fd, &before) != 0) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        luaL_pushfail(L);
        lua_pushfstring(L, "cannot append to '%s': %s", path, strerror(saved));
        return 2;
    }
    ssize_t n;
    do
        n = write(fd, text, length);
    while (n < 0 && errno == EINTR);
    int saved = errno;
    int taken_back = n > 0 && n < (ssize_t)length && ftruncate(fd, before.st_size) == 0;
    close(fd);
    if (n == (ssize_t)length) {
        lua_pushboolean(L, 1);
        return 1;
    }
    luaL_pushfail(L);
    if (n < 0)
        lua_pushfstring(L, "cannot append to '%s': %s", path, strerror(saved));
    else
        lua_pushfstring(L, "cannot append to '%s': only %d of a row's %d bytes could be written "
                        "(a full disk or a file-size limit?); %s", path, (int)n, (int)length,
                        taken_back ? "they were taken back" : "the row is cut short");
    return 2;
}

/* ---- one sweep at a time on a results file --------------------------------------- */

#define LOCK_TYPE "workbench.sweep_lock"

typedef struct sweep_lock {
    int fd;
    pid_t owner; /* a forked worker never removes its parent's lock */
    char *path;
} sweep_lock;

static int lock_release(lua_State *L)
{
    sweep_lock *k = luaL_checkudata(L, 1, LOCK_TYPE);
    if (k->fd >= 0 && k->owner == getpid()) {
        atomic_untrack_path(k->path);
        unlink(k->path); /* before the lock goes: the next sweep locks a new file */
        close(k->fd);
    }
    k->fd = -1;
    free(k->path);
    k->path = NULL;
    return 0;
}

/* Who holds the lock, as its file says. */
static void read_holder(int fd, char *pid, size_t size)
{
    ssize_t n = pread(fd, pid, size - 1, 0);
    pid[n > 0 ? n : 0] = '\0';
    pid[strcspn(pid, "\n")] = '\0';
    if (!pid[0])
        snprintf(pid, size, "?");
}

/* 1 when fd is still the file at path (its last holder may have removed
 * it between our open and our lock). */
static int is_file_at(int fd, const char *path)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* wb._sweep_lock(out) -> a lock (closed: released), or nil and why:
 * an flock on OUT.lock, which holds the holder's pid and is removed on
 * release (and by a fatal signal, as temporary files are). */
static int sweep_lock_take(lua_State *L)
{
    const char *out = luaL_checkstring(L, 1);
    sweep_lock *k = lua_newuserdatauv(L, sizeof *k, 0);
    k->fd = -1, k->owner = getpid(), k->path = NULL;
    if (luaL_newmetatable(L, LOCK_TYPE)) {
        lua_pushcfunction(L, lock_release);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, lock_release);
        lua_setfield(L, -2, "__close");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    const char *path = lua_pushfstring(L, "%s.lock", out);
    k->path = strdup(path);
    if (!k->path)
        return luaL_error(L, "wb.sweep: out of memory");
    make_parent_dirs(path);
    for (int attempt = 0; attempt < 100; attempt++) {
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            luaL_pushfail(L);
            lua_pushfstring(L, "cannot create the lock file '%s': %s", path, strerror(errno));
            return 2;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int saved = errno;
            char pid[32];
            read_holder(fd, pid, sizeof pid);
            close(fd);
            luaL_pushfail(L);
            if (saved == EWOULDBLOCK)
                lua_pushfstring(L, "'%s' is being written by another sweep (process %s holds "
                                "'%s'); wait for it to finish, or give this one another out",
                                out, pid, path);
            else
                lua_pushfstring(L, "cannot lock '%s': %s", path, strerror(saved));
            return 2;
        }
        if (is_file_at(fd, path)) {
            char pid[32];
            int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
                /* the pid is for the message only */
            }
            k->fd = fd;
            atomic_track_path(k->path);
            lua_pop(L, 1); /* the path */
            return 1;
        }
        close(fd);
    }
    luaL_pushfail(L);
    lua_pushfstring(L, "cannot lock '%s': it keeps being replaced", path);
    return 2;
}

/* wb._cwd(): the current folder. */
static int current_folder(lua_State *L)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return luaL_error(L, "wb.sweep: cannot find the current folder: %s", strerror(errno));
    lua_pushstring(L, cwd);
    return 1;
}

/* wb._executable(): this program's absolute path, for Slurm tasks. */
static int executable(lua_State *L)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return luaL_error(L, "wb.sweep: cannot find this program's path");
    path[n] = '\0';
    lua_pushstring(L, path);
    return 1;
}

static void set_string(lua_State *L, const char *key, const char *value)
{
    if (!value)
        return;
    lua_pushstring(L, value);
    lua_setfield(L, -2, key);
}

static void set_list(lua_State *L, const char *key, char *const *items, int count)
{
    lua_createtable(L, count, 0);
    for (int i = 0; i < count; i++) {
        lua_pushstring(L, items[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, key);
}

static uint64_t fnv1a(uint64_t h, const char *text, size_t length)
{
    for (size_t i = 0; i < length; i++)
        h = (h ^ (unsigned char)text[i]) * 1099511628211u;
    return h;
}

/* math.random seeded from the script's file name and arguments: every
 * process of one sweep (--list, --case, the Slurm tasks) draws the same
 * cases, and another sweep other ones. */
static void seed_random(lua_State *L, const lua_sweep_mode *mode)
{
    const char *name = mode->script ? mode->script : "";
    const char *slash = strrchr(name, '/');
    name = slash ? slash + 1 : name;
    uint64_t h = fnv1a(14695981039346656037u, name, strlen(name) + 1);
    for (int i = 0; i < mode->n_args; i++)
        h = fnv1a(h, mode->args[i], strlen(mode->args[i]) + 1);
    lua_getglobal(L, "math");
    lua_getfield(L, -1, "randomseed");
    lua_pushinteger(L, (lua_Integer)(h >> 1));
    lua_call(L, 1, 0);
    lua_pop(L, 1);
}

void lua_sweep_set_mode(lua_State *L, const lua_sweep_mode *mode)
{
    seed_random(L, mode);
    static const char *const kinds[] = {"local", "list", "case", "slurm", "merge"};
    lua_getglobal(L, "wb");
    lua_newtable(L);
    set_string(L, "mode", kinds[mode->kind]);
    if (mode->kind == LUA_SWEEP_CASE) {
        lua_pushinteger(L, (lua_Integer)mode->case_index);
        lua_setfield(L, -2, "case");
    }
    if (mode->jobs > 0) {
        lua_pushinteger(L, mode->jobs);
        lua_setfield(L, -2, "jobs");
    }
    lua_pushboolean(L, mode->fresh);
    lua_setfield(L, -2, "fresh");
    lua_pushboolean(L, mode->resubmit);
    lua_setfield(L, -2, "resubmit");
    set_string(L, "default_out", mode->out);
    set_string(L, "script", mode->script);
    set_list(L, "options", mode->options, mode->n_options);
    set_list(L, "args", mode->args, mode->n_args);
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd))
        set_string(L, "cwd", cwd);
    lua_newtable(L); /* slurm */
    set_string(L, "partition", mode->partition);
    set_string(L, "time", mode->time);
    set_string(L, "mem", mode->mem);
    lua_pushinteger(L, mode->chunk > 0 ? mode->chunk : 1);
    lua_setfield(L, -2, "chunk");
    lua_pushboolean(L, mode->submit);
    lua_setfield(L, -2, "submit");
    lua_setfield(L, -2, "slurm");
    lua_setfield(L, -2, "_sweep_mode");
    lua_pop(L, 1);
}

/* wb._processors(): the number of online processors, the default jobs. */
static int processors(lua_State *L)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    lua_pushinteger(L, n > 0 ? n : 1);
    return 1;
}

extern const char workbench_sweep_source[];
extern const unsigned long workbench_sweep_source_size;

void lua_sweep_register(lua_State *L)
{
    static const luaL_Reg functions[] = {
        {"_sweep_pool", sweep_pool},
        {"_append_line", append_line},
        {"_sweep_lock", sweep_lock_take},
        {"_cwd", current_folder},
        {"_processors", processors},
        {"_executable", executable},
        {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
    /* the Lua half: wb.sweep and its table object */
    if (luaL_loadbuffer(L, workbench_sweep_source, workbench_sweep_source_size,
                        "=sweep.lua") != LUA_OK)
        lua_error(L);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
}
