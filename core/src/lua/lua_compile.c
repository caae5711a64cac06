/* The C half of wb.compile_model (the Lua half: model_compiler.lua): the
 * cache folder, the system C compiler, and loading what it built.
 *
 *   wb._cache_dir()                      the cache folder (created)
 *   wb._compile_flags()                  the flags the compiler gets
 *   wb._compile_plugin(source, c_path, so_path, compiler) -> true | nil, why
 *
 * A plugin found at so_path is loaded as it is: the file name holds the
 * hash of its source, compiler and flags.  Otherwise the source is written
 * (atomically), compiled to a temporary name and renamed, so that two
 * processes compiling the same model (sweep workers) never load half a
 * file. */
#include "lua/lua_api.h"
#include "host/host.h"
#include "host/plugins.h"
#include "run/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

static int make_dirs(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* WORKBENCH_CACHE_DIR, else $XDG_CACHE_HOME/workbench, else
 * ~/.cache/workbench, else a folder under /tmp */
static int cache_dir(lua_State *L)
{
    const char *env = getenv("WORKBENCH_CACHE_DIR");
    char path[PATH_MAX];
    if (env && *env)
        snprintf(path, sizeof path, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(path, sizeof path, "%s/workbench", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(path, sizeof path, "%s/.cache/workbench", env);
    else
        snprintf(path, sizeof path, "/tmp/workbench-cache-%ld", (long)getuid());
    if (make_dirs(path) != 0)
        return luaL_error(L, "cannot create the cache folder '%s': %s (set "
                             "WORKBENCH_CACHE_DIR to a writable folder)", path, strerror(errno));
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

/* Run the compiler; 0, or -1 with the reason pushed. */
static int run_compiler(lua_State *L, const char *compiler, const char *c_path,
                        const char *out_path, const char *log_path)
{
    const char *include = include_dir();
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
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execvp(compiler, (char *const *)argv);
        fprintf(stderr, "cannot run '%s': %s\n", compiler, strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        lua_pushfstring(L, "cannot start the C compiler '%s'", compiler);
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

static int compile_plugin(lua_State *L)
{
    size_t length;
    const char *source = luaL_checklstring(L, 1, &length);
    const char *c_path = luaL_checkstring(L, 2);
    const char *so_path = luaL_checkstring(L, 3);
    const char *compiler = luaL_checkstring(L, 4);
    if (access(so_path, R_OK) == 0)
        return load(L, so_path);
    atomic_file f;
    if (atomic_open(&f, c_path) != 0) {
        lua_pushnil(L);
        lua_pushstring(L, host_last_error());
        return 2;
    }
    fwrite(source, 1, length, f.fp);
    if (atomic_commit(&f) != 0) {
        lua_pushnil(L);
        lua_pushstring(L, host_last_error());
        return 2;
    }
    char temp[PATH_MAX], log[PATH_MAX];
    snprintf(temp, sizeof temp, "%s.%ld.tmp", so_path, (long)getpid());
    snprintf(log, sizeof log, "%s.log", c_path);
    if (run_compiler(L, compiler, c_path, temp, log) != 0) {
        remove(temp);
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    remove(log);
    if (rename(temp, so_path) != 0) {
        remove(temp);
        lua_pushnil(L);
        lua_pushfstring(L, "cannot rename %s to %s: %s", temp, so_path, strerror(errno));
        return 2;
    }
    return load(L, so_path);
}

void lua_compile_register(lua_State *L)
{
    static const luaL_Reg functions[] = {
        {"_cache_dir", cache_dir},
        {"_compile_flags", compile_flags_text},
        {"_compile_plugin", compile_plugin},
        {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
}
