/* The C half of wb.compile_model (the Lua half: model_compiler.lua): the
 * cache folder, the system C compiler, and loading what it built.
 *
 *   wb._cache_dir([sub]) -> path | nil, why   the cache folder (created,
 *                                              checked: host/cache_dir.h)
 *   wb._compile_flags()                  the flags the compiler gets
 *   wb._compile_inputs()                 what else the plugin depends on:
 *                                        the machine, the headers' folder
 *                                        and a hash of every header in it
 *   wb._compile_plugin(source, c_path, so_path, compiler) -> true | nil, why
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
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
    int cached = cached_build(L, so_path);
    if (cached < 0)
        return fail(L, lua_tostring(L, -1));
    if (cached)
        return load(L, so_path);
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
    int built = run_compiler(L, compiler, c_path, temp, log) == 0;
    if (built) {
        remove(log);
        if (rename(temp, so_path) != 0) {
            lua_pushfstring(L, "cannot rename %s to %s: %s", temp, so_path, strerror(errno));
            built = 0;
        }
    }
    remove(temp);
    atomic_untrack_path(temp);
    free(temp);
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
