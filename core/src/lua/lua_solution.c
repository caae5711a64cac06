/* The solution object returned by wb.integrate. */
#include "lua/lua_api.h"
#include "host/host.h"
#include "run/output.h"
#include "host/descriptor.h"
#include "host/plugins.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static lua_solution *check_solution(lua_State *L, int idx)
{
    lua_solution *ls = luaL_checkudata(L, idx, LUA_SOLUTION_TYPE);
    if (!ls->sol) /* used from a finalizer after its own __gc ran */
        luaL_error(L, "this solution has already been finalized");
    return ls;
}

static solution *stored(lua_State *L, int idx)
{
    solution *s = check_solution(L, idx)->sol;
    if (s->streaming)
        luaL_error(L, "this solution was streamed to '%s': read its rows with "
                      "wb.read_table('%s'); in memory there are only sol:final(), "
                      "sol:max(name) and sol.stats", s->stream_path, s->stream_path);
    return s;
}

static int column_index(lua_State *L, solution *s, int arg)
{
    int c = solution_column(s, luaL_checkstring(L, arg));
    if (c < 0)
        lua_host_error(L);
    return c;
}

/* sol:column(name) -> table of the column's recorded values. */
static int solution_column_values(lua_State *L)
{
    solution *s = stored(L, 1);
    int c = column_index(L, s, 2);
    lua_createtable(L, (int)s->n_rows, 0);
    for (long long r = 0; r < s->n_rows; r++) {
        lua_pushnumber(L, solution_value(s, c, r));
        lua_rawseti(L, -2, r + 1);
    }
    return 1;
}

/* sol:times(name [, "end"|"start"|"mid"]): the time each value of a column
 * belongs to.  A value recorded for an interval [t_n, t_{n+1}] (aux
 * unknowns declared WB_AUX_ON_INTERVAL) is stored in the row of t_{n+1};
 * "start" and "mid" give t_n and t_n + h/2 for it.  One declared
 * WB_AUX_AT_OFFSET belongs to t_{n+1} + theta h.  Other columns belong to
 * their row's time whatever the attribution. */
static int solution_times(lua_State *L)
{
    solution *s = stored(L, 1);
    int c = column_index(L, s, 2);
    const char *how = luaL_optstring(L, 3, "end");
    double shift = 0;
    if (strcmp(how, "start") == 0)
        shift = -s->h;
    else if (strcmp(how, "mid") == 0)
        shift = -0.5 * s->h;
    else if (strcmp(how, "end") != 0)
        return luaL_error(L, "sol:times: attribution must be 'end', 'start' or 'mid', got '%s'",
                          how);
    if (s->columns[c].aux_time == WB_AUX_AT_OFFSET)
        shift = s->columns[c].theta * s->h;
    else if (s->columns[c].aux_time != WB_AUX_ON_INTERVAL)
        shift = 0;
    lua_createtable(L, (int)s->n_rows, 0);
    for (long long r = 0; r < s->n_rows; r++) {
        lua_pushnumber(L, s->rows[(size_t)r * s->width] + shift);
        lua_rawseti(L, -2, r + 1);
    }
    return 1;
}

/* sol:final() -> q, p, aux after the last accepted step; aux holds every
 * carried unknown by name (recorded or not), a table of numbers each:
 * wb.integrate{..., q0 = q, p0 = p, aux0 = aux} continues the run exactly.
 * aux is nil after a step the driver refused for a broken claim: the
 * method's unknowns had moved on to the refused state. */
static int solution_final(lua_State *L)
{
    solution *s = check_solution(L, 1)->sol;
    lua_push_state_vector(L, s->nq, s->final_state);
    lua_push_state_vector(L, s->nv, s->final_state + s->nq);
    if (s->final_aux_lost) {
        lua_pushnil(L);
        return 3;
    }
    const double *aux = s->final_state + s->nq + s->nv;
    lua_createtable(L, 0, s->n_aux_groups);
    for (int g = 0; g < s->n_aux_groups; g++) {
        lua_push_vector(L, s->aux_groups[g].size, aux + s->aux_groups[g].offset);
        lua_setfield(L, -2, s->aux_groups[g].name);
    }
    return 3;
}

/* sol:state(i) -> q, p of recorded row i (1-based). */
static int solution_state(lua_State *L)
{
    solution *s = stored(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || i > s->n_rows)
        return luaL_error(L, "sol:state: row %d out of range 1..%d", (int)i, (int)s->n_rows);
    const double *row = s->rows + (size_t)(i - 1) * s->width;
    lua_push_state_vector(L, s->nq, row + 1);
    lua_push_state_vector(L, s->nv, row + 1 + s->nq);
    return 2;
}

/* sol:max(name): max |value| over the recorded rows (works when streamed). */
static int solution_max(lua_State *L)
{
    solution *s = check_solution(L, 1)->sol;
    int c = column_index(L, s, 2);
    if (s->columns[c].offset >= 0) {
        lua_pushnumber(L, s->max_abs[s->columns[c].offset]);
        return 1;
    }
    if (s->streaming)
        return luaL_error(L, "sol:max('%s'): derived columns are not kept for a streamed "
                             "solution", s->columns[c].name);
    double m = 0;
    for (long long r = 0; r < s->n_rows; r++) {
        double v = fabs(solution_value(s, c, r));
        if (isnan(v) || v > m)
            m = v;
    }
    lua_pushnumber(L, m);
    return 1;
}

/* ---- metadata: the JSON file next to a data file -------------------------------- */

/* The length of the well-formed UTF-8 sequence at s (1 to 4), or 0: a
 * stray or cut byte, an overlong form, a surrogate, beyond U+10FFFF. */
static int utf8_length(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    int n = 0;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* A JSON string of text, valid UTF-8 whatever the bytes: a byte that is
 * no part of a UTF-8 character (a Latin-1 file name, a name cut in the
 * middle of a character) becomes U+FFFD, as strict readers require. */
static void json_string(luaL_Buffer *b, const char *text)
{
    luaL_addchar(b, '"');
    for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c;) {
        char esc[8];
        int n = utf8_length(c);
        if (n == 0) {
            luaL_addstring(b, "\\ufffd");
            n = 1;
        } else if (*c == '"' || *c == '\\') {
            luaL_addchar(b, '\\');
            luaL_addchar(b, (char)*c);
        } else if (*c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *c);
            luaL_addstring(b, esc);
        } else {
            luaL_addlstring(b, (const char *)c, (size_t)n);
        }
        c += n;
    }
    luaL_addchar(b, '"');
}

static void json_number(luaL_Buffer *b, double x)
{
    char text[40];
    if (!isfinite(x)) {
        luaL_addstring(b, "null");
        return;
    }
    /* the shortest of %.15g, %.16g, %.17g that reads back as x */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, x);
        if (strtod(text, NULL) == x)
            break;
    }
    luaL_addstring(b, text);
}

static void json_key(luaL_Buffer *b, const char *key, int *first)
{
    luaL_addstring(b, *first ? "\n  " : ",\n  ");
    *first = 0;
    json_string(b, key);
    luaL_addstring(b, ": ");
}

static void json_option(luaL_Buffer *b, const wb_option_spec *o, const wb_option_value *v)
{
    char text[40];
    switch (o->type) {
    case WB_OPT_NUMBER:
        json_number(b, v->number);
        break;
    case WB_OPT_INTEGER:
        snprintf(text, sizeof text, "%.0f", v->number);
        luaL_addstring(b, text);
        break;
    case WB_OPT_BOOLEAN:
        luaL_addstring(b, v->number != 0 ? "true" : "false");
        break;
    case WB_OPT_TABLEAU:
        json_string(b, v->tableau ? v->tableau->name : "");
        break;
    default:
        json_string(b, v->string);
    }
}

/* Writes data_path.json: the run's model and parameters, method and
 * options, step size and counts, columns, versions and date. */
int lua_solution_write_metadata(lua_State *L, int sol_idx, const char *data_path)
{
    sol_idx = lua_absindex(L, sol_idx);
    solution *s = check_solution(L, sol_idx)->sol;
    lua_getiuservalue(L, sol_idx, 1);
    lua_model *lm = lua_check_model(L, -1);
    lua_getiuservalue(L, sol_idx, 2);
    lua_method *lmeth = lua_check_method(L, -1);
    const plugin *mp = model_instance_plugin(lm->instance);
    const wb_model_class *cls = mp->model;
    const double *params = model_instance_params(lm->instance);
    const method_config *cfg = lmeth->config;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int first = 1, inner;
    char text[256];
    luaL_addchar(&b, '{');
    json_key(&b, "data", &first);
    const char *slash = strrchr(data_path, '/');
    json_string(&b, slash ? slash + 1 : data_path);
    json_key(&b, "model", &first);
    json_string(&b, cls->name);
    json_key(&b, "model_plugin", &first);
    luaL_addstring(&b, "{\"path\": ");
    json_string(&b, mp->path);
    luaL_addstring(&b, ", \"version\": ");
    json_string(&b, mp->entry->version);
    luaL_addchar(&b, '}');
    json_key(&b, "params", &first);
    luaL_addchar(&b, '{');
    inner = 1;
    for (uint32_t i = 0; i < cls->n_params; i++) {
        luaL_addstring(&b, inner ? "" : ", ");
        inner = 0;
        json_string(&b, descriptor_param(cls, i)->name);
        luaL_addstring(&b, ": ");
        json_number(&b, params[i]);
    }
    luaL_addchar(&b, '}');
    method_config_name(cfg, text, sizeof text);
    json_key(&b, "method", &first);
    json_string(&b, text);
    json_key(&b, "method_plugin", &first);
    luaL_addstring(&b, "{\"path\": ");
    json_string(&b, cfg->family->path);
    luaL_addstring(&b, ", \"version\": ");
    json_string(&b, cfg->family->entry->version);
    luaL_addchar(&b, '}');
    json_key(&b, "options", &first);
    luaL_addchar(&b, '{');
    inner = 1;
    for (uint32_t i = 0; i < cfg->method->n_options; i++) {
        const wb_option_spec *o = descriptor_option(cfg->method, i);
        luaL_addstring(&b, inner ? "" : ", ");
        inner = 0;
        json_string(&b, o->name);
        luaL_addstring(&b, ": ");
        json_option(&b, o, &cfg->values[i]);
    }
    luaL_addchar(&b, '}');
    json_key(&b, "t0", &first);
    json_number(&b, s->t0);
    json_key(&b, "h", &first);
    json_number(&b, s->h);
    json_key(&b, "steps", &first);
    snprintf(text, sizeof text, "%lld", s->steps_done);
    luaL_addstring(&b, text);
    json_key(&b, "rows", &first);
    snprintf(text, sizeof text, "%lld", s->streaming ? s->streamed_rows : s->n_rows);
    luaL_addstring(&b, text);
    json_key(&b, "t_final", &first);
    json_number(&b, s->final_time);
    json_key(&b, "energy0", &first);
    json_number(&b, s->energy0);
    json_key(&b, "ok", &first);
    luaL_addstring(&b, s->ok ? "true" : "false");
    if (s->failure) {
        json_key(&b, "failure", &first);
        json_string(&b, s->failure);
    }
    json_key(&b, "columns", &first);
    luaL_addchar(&b, '[');
    inner = 1;
    for (int c = 0; c < s->n_columns; c++)
        if (s->columns[c].offset >= 0) {
            luaL_addstring(&b, inner ? "" : ", ");
            inner = 0;
            json_string(&b, s->columns[c].name);
        }
    luaL_addchar(&b, ']');
    json_key(&b, "workbench", &first);
    json_string(&b, WORKBENCH_VERSION);
    json_key(&b, "abi", &first);
    snprintf(text, sizeof text, "%d.%d", WB_ABI_MAJOR, WB_ABI_MINOR);
    json_string(&b, text);
    json_key(&b, "date", &first);
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    json_string(&b, text);
    luaL_addstring(&b, "\n}\n");
    luaL_pushresult(&b);
    size_t length;
    const char *json = lua_tolstring(L, -1, &length);
    char *meta = malloc(strlen(data_path) + 6);
    if (!meta)
        return luaL_error(L, "out of memory");
    sprintf(meta, "%s.json", data_path);
    atomic_file f;
    int status = atomic_open(&f, meta);
    if (status == 0) {
        fwrite(json, 1, length, f.fp);
        status = atomic_commit(&f);
    }
    /* an earlier run's metadata would describe another data file */
    struct stat st;
    if (status != 0 && lstat(meta, &st) == 0 && S_ISREG(st.st_mode))
        unlink(meta);
    free(meta);
    if (status != 0)
        return -1;
    lua_pop(L, 3);
    return 0;
}

/* sol:write(path): the stored columns as a tab-separated file (a header
 * line of names), and its metadata as path.json. */
static int solution_write(lua_State *L)
{
    solution *s = stored(L, 1);
    const char *path = lua_check_output_path(L, 2, "sol:write");
    lua_pushstring(L, path); /* kept: output paths are valid until the next call */
    path = lua_tostring(L, -1);
    atomic_file f;
    if (atomic_open(&f, path) != 0)
        return lua_host_error(L);
    solution_write_header(s, f.fp);
    for (long long r = 0; r < s->n_rows; r++) {
        const double *row = s->rows + (size_t)r * s->width;
        for (int i = 0; i < s->width; i++)
            fprintf(f.fp, i ? "\t%.17g" : "%.17g", row[i]);
        fputc('\n', f.fp);
    }
    if (atomic_commit(&f) != 0)
        return lua_host_error(L);
    if (lua_solution_write_metadata(L, 1, path) != 0)
        return lua_host_error(L);
    return 0;
}

/* The start that began most of the steps a method began from the last
 * step's solution (rk's start = "auto" changes step by step: the counts
 * give the split), or "none" when it reports no such step (a plain start,
 * an explicit method, a method that does not count its starts). */
static const char *start_name(const wb_step_stats *stats)
{
    const uint64_t extrapolated = stats->extrapolated_starts, corrected = stats->corrected_starts;
    return corrected > extrapolated ? "corrected" : extrapolated ? "extrapolate" : "none";
}

static void push_stats(lua_State *L, const solution *s)
{
    lua_createtable(L, 0, 16);
    const struct {
        const char *name;
        uint64_t value;
    } fields[] = {
        {"steps", s->stats.steps},
        {"newton_iterations", s->stats.newton_iterations},
        {"residual_evals", s->stats.residual_evals},
        {"jacobian_evals", s->stats.jacobian_evals},
        {"linear_solves", s->stats.linear_solves},
        {"function_evals", s->stats.function_evals},
        {"fixed_point_steps", s->stats.fixed_point_steps},
        {"newton_steps", s->stats.newton_steps},
        {"jacobian_refreshes", s->stats.jacobian_refreshes},
        {"extrapolated_starts", s->stats.extrapolated_starts},
        {"corrected_starts", s->stats.corrected_starts},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        lua_pushinteger(L, (lua_Integer)fields[i].value);
        lua_setfield(L, -2, fields[i].name);
    }
    lua_pushnumber(L, s->seconds);
    lua_setfield(L, -2, "seconds");
    lua_pushnumber(L, s->stats.steps ? (double)s->stats.newton_iterations / (double)s->stats.steps
                                     : 0.0);
    lua_setfield(L, -2, "mean_newton_iterations");
    lua_pushnumber(L, s->stats.steps ? (double)s->stats.function_evals / (double)s->stats.steps
                                     : 0.0);
    lua_setfield(L, -2, "mean_function_evals");
    /* how implicit stages were solved: a method with a choice of iteration
     * counts each step under one of them */
    const uint64_t fixed = s->stats.fixed_point_steps, newton = s->stats.newton_steps;
    lua_pushstring(L, fixed && newton ? "mixed" : fixed ? "fixed_point" : newton ? "newton" : "none");
    lua_setfield(L, -2, "iteration");
    lua_pushstring(L, start_name(&s->stats));
    lua_setfield(L, -2, "start");
}

static int solution_index(lua_State *L)
{
    lua_solution *ls = check_solution(L, 1);
    solution *s = ls->sol;
    const char *key = luaL_checkstring(L, 2);
    if (strcmp(key, "t") == 0) {
        stored(L, 1);
        /* built once and kept: scripts read sol.t inside loops */
        if (lua_getiuservalue(L, 1, 3) == LUA_TTABLE)
            return 1;
        lua_pop(L, 1);
        lua_createtable(L, (int)s->n_rows, 0);
        for (long long r = 0; r < s->n_rows; r++) {
            lua_pushnumber(L, s->rows[(size_t)r * s->width]);
            lua_rawseti(L, -2, r + 1);
        }
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, 3);
    } else if (strcmp(key, "stats") == 0) {
        push_stats(L, s);
    } else if (strcmp(key, "n") == 0) {
        lua_pushinteger(L, s->streaming ? s->streamed_rows : s->n_rows);
    } else if (strcmp(key, "columns") == 0) {
        lua_createtable(L, s->n_columns, 0);
        for (int c = 0; c < s->n_columns; c++) {
            lua_pushstring(L, s->columns[c].name);
            lua_rawseti(L, -2, c + 1);
        }
    } else if (strcmp(key, "ok") == 0) {
        lua_pushboolean(L, s->ok);
    } else if (strcmp(key, "failure") == 0) {
        if (s->failure)
            lua_pushstring(L, s->failure);
        else
            lua_pushnil(L);
    } else if (strcmp(key, "failure_time") == 0) {
        if (s->failure)
            lua_pushnumber(L, s->failure_time);
        else
            lua_pushnil(L);
    } else if (strcmp(key, "h") == 0) {
        lua_pushnumber(L, s->h);
    } else if (strcmp(key, "t0") == 0) {
        lua_pushnumber(L, s->t0);
    } else if (strcmp(key, "t_final") == 0) {
        lua_pushnumber(L, s->final_time);
    } else if (strcmp(key, "energy0") == 0) {
        lua_pushnumber(L, s->energy0);
    } else if (strcmp(key, "energy_scale") == 0) {
        lua_pushnumber(L, s->energy_scale);
    } else if (strcmp(key, "model") == 0 || strcmp(key, "method") == 0) {
        lua_getiuservalue(L, 1, key[1] == 'o' ? 1 : 2);
    } else if (strcmp(key, "stream") == 0) {
        lua_pushstring(L, s->streaming ? s->stream_path : NULL);
    } else {
        luaL_getmetafield(L, 1, "methods");
        lua_getfield(L, -1, key);
    }
    return 1;
}

static int solution_gc(lua_State *L)
{
    lua_solution *ls = luaL_checkudata(L, 1, LUA_SOLUTION_TYPE);
    solution_destroy(ls->sol);
    ls->sol = NULL;
    return 0;
}

static int solution_len(lua_State *L)
{
    solution *s = check_solution(L, 1)->sol;
    lua_pushinteger(L, s->streaming ? s->streamed_rows : s->n_rows);
    return 1;
}

lua_solution *lua_push_solution(lua_State *L, int model_idx, int method_idx)
{
    lua_solution *ls = lua_newuserdatauv(L, sizeof *ls, 3); /* model, method, sol.t */
    ls->sol = NULL;
    luaL_setmetatable(L, LUA_SOLUTION_TYPE);
    lua_pushvalue(L, model_idx); /* the solution borrows the model instance */
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, method_idx);
    lua_setiuservalue(L, -2, 2);
    return ls;
}

void lua_solution_register(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"column", solution_column_values},
        {"times", solution_times},
        {"final", solution_final},
        {"state", solution_state},
        {"max", solution_max},
        {"write", solution_write},
        {NULL, NULL},
    };
    luaL_newmetatable(L, LUA_SOLUTION_TYPE);
    lua_pushboolean(L, 0); /* getmetatable(x) is false: no script reaches __gc */
    lua_setfield(L, -2, "__metatable");
    lua_pushcfunction(L, solution_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, solution_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, solution_len);
    lua_setfield(L, -2, "__len");
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
}
