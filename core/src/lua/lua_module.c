/* The `workbench` module: wb.integrate, introspection, output helpers, and
 * the embedded Lua part (core/lua/workbench.lua). */
#include "lua/lua_api.h"
#include "host/host.h"
#include "run/gnuplot.h"
#include "run/output.h"
#include "run/projection.h"
#include "host/tableau.h"

#include <errno.h>
#include <stdio.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- shared helpers -------------------------------------------------------------- */

int lua_host_error(lua_State *L)
{
    return luaL_error(L, "%s", host_last_error());
}

int lua_raise_error(lua_State *L, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return luaL_error(L, "%s", message);
}

void lua_read_vector(lua_State *L, int idx, int n, double *out, const char *what)
{
    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx))
        luaL_error(L, "%s: expected a table of %d numbers, got %s", what, n,
                   luaL_typename(L, idx));
    int len = (int)lua_rawlen(L, idx);
    if (len != n)
        luaL_error(L, "%s: expected %d numbers, got a table of %d", what, n, len);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, idx, i + 1);
        if (!lua_isnumber(L, -1))
            luaL_error(L, "%s: entry %d must be a number, got %s", what, i + 1,
                       luaL_typename(L, -1));
        out[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

/* States the workbench hands out (sol:final(), sol:state(i), m:initial(),
 * m:project()) are remembered with their values, weakly: wb.integrate takes
 * such a state as it is (a method that keeps g but not G M^-1 p ends off the
 * hidden constraint, and that is a state to continue from), unless it was
 * changed since. */
#define HANDED_OUT_STATES "workbench.handed_out_states"

void lua_push_state_vector(lua_State *L, int n, const double *x)
{
    lua_push_vector(L, n, x);
    if (lua_getfield(L, LUA_REGISTRYINDEX, HANDED_OUT_STATES) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, HANDED_OUT_STATES);
    }
    lua_pushvalue(L, -2);
    lua_pushlstring(L, (const char *)x, sizeof(double) * (size_t)n);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/* The table at idx is a state the workbench handed out, with its values
 * unchanged, read into x (n values). */
static int handed_out_state(lua_State *L, int idx, int n, const double *x)
{
    idx = lua_absindex(L, idx);
    int found = 0;
    if (lua_getfield(L, LUA_REGISTRYINDEX, HANDED_OUT_STATES) == LUA_TTABLE) {
        lua_pushvalue(L, idx);
        size_t len = 0;
        const char *kept = lua_rawget(L, -2) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        found = kept && len == sizeof(double) * (size_t)n &&
                memcmp(kept, x, sizeof(double) * (size_t)n) == 0;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return found;
}

void lua_push_vector(lua_State *L, int n, const double *x)
{
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, x[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

void lua_push_matrix(lua_State *L, int rows, int cols, const double *A)
{
    lua_createtable(L, rows, 0);
    for (int i = 0; i < rows; i++) {
        lua_push_vector(L, cols, A + (size_t)i * cols);
        lua_rawseti(L, -2, i + 1);
    }
}

/* ---- wb.integrate ------------------------------------------------------------------ */

static const char *const integrate_fields[] = {
    "model", "method", "h", "t_end", "steps", "t0", "q0", "p0", "aux0", "every", "stream",
    "progress", "on_failure", "consistency_tol", "check_claims", NULL};

static void check_fields(lua_State *L, int idx)
{
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int known = 0;
        for (int i = 0; key && integrate_fields[i]; i++)
            known |= strcmp(key, integrate_fields[i]) == 0;
        if (!known)
            luaL_error(L, "integrate: unknown field '%s' (fields: model, method, h, t_end, "
                          "steps, t0, q0, p0, aux0, every, stream, progress, on_failure, "
                          "consistency_tol, check_claims)",
                       key ? key : luaL_typename(L, -1));
    }
}

static double number_field(lua_State *L, int idx, const char *field, int required,
                           double fallback)
{
    int type = lua_getfield(L, idx, field);
    if (type == LUA_TNIL) {
        lua_pop(L, 1);
        if (required)
            luaL_error(L, "integrate: field '%s' is required (a number)", field);
        return fallback;
    }
    if (type != LUA_TNUMBER)
        luaL_error(L, "integrate: field '%s' must be a number, got %s", field,
                   luaL_typename(L, -1));
    double x = lua_tonumber(L, -1);
    lua_pop(L, 1);
    if (!isfinite(x))
        luaL_error(L, "integrate: field '%s' must be finite", field);
    return x;
}

/* Step counts are whole numbers up to 2^53, where doubles still count
 * every step (t0 + n h) and the cast to an integer is defined. */
#define MAX_STEPS 9007199254740992.0

static long long step_count(lua_State *L, int idx, double t0, double h)
{
    if (lua_getfield(L, idx, "steps") != LUA_TNIL) {
        lua_pop(L, 1);
        double steps = number_field(L, idx, "steps", 1, 0);
        if (steps < 0 || steps != floor(steps))
            lua_raise_error(L, "integrate: field 'steps' must be a whole number >= 0, got %g", steps);
        if (steps > MAX_STEPS)
            lua_raise_error(L, "integrate: field 'steps' = %g exceeds 2^53 steps", steps);
        return (long long)steps;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "t_end") == LUA_TNIL)
        luaL_error(L, "integrate: give either t_end or steps");
    lua_pop(L, 1);
    double t_end = number_field(L, idx, "t_end", 1, 0);
    double n = (t_end - t0) / h;
    double rounded = nearbyint(n);
    if (!(fabs(n) <= MAX_STEPS))
        lua_raise_error(L, "integrate: (t_end - t0) / h = (%g - %g) / %g is %g steps, more "
                        "than 2^53", t_end, t0, h, n);
    if (n < -1e-9 || fabs(n - rounded) > 1e-9 * fmax(1.0, fabs(n)))
        lua_raise_error(L, "integrate: t_end - t0 = %g is not a whole number of steps of h = %g "
                      "(%.6g steps); choose h and t_end accordingly or pass steps = N",
                   t_end - t0, h, n);
    return (long long)rounded;
}

/* Model and method userdata go to stack slots 2 and 3, where the returned
 * solution's references to them are taken from. */
static void fetch_model_and_method(lua_State *L)
{
    if (lua_getfield(L, 1, "model") == LUA_TNIL)
        luaL_error(L, "integrate: field 'model' is required (a wb.model)");
    if (!luaL_testudata(L, -1, LUA_MODEL_TYPE))
        luaL_error(L, "integrate: field 'model' must be a wb.model, got %s",
                   luaL_typename(L, -1));
    int type = lua_getfield(L, 1, "method");
    if (type == LUA_TSTRING) {
        lua_getfield(L, lua_upvalueindex(1), "method");
        lua_insert(L, -2);
        lua_call(L, 1, 1);
    } else if (type == LUA_TNIL) {
        luaL_error(L, "integrate: field 'method' is required (a wb.method or a method name)");
    } else if (!luaL_testudata(L, -1, LUA_METHOD_TYPE)) {
        luaL_error(L, "integrate: field 'method' must be a wb.method or a name, got %s",
                   luaL_typename(L, -1));
    }
}

/* How far (q, p) is from the model's constraints, each relative to its own
 * scale: the distance to g = 0 (max_k |g_k| / |grad g_k|) over |q|, the
 * hidden constraint max_k |G_k v| / (|G_k| |v|), and the group residual.
 * (Velocity constraints Phi are left to the methods that keep them, which
 * refuse a state off them with their own message.) */
typedef struct state_residuals {
    double position, velocity, group;
} state_residuals;

static double row_norm(int n, const double *row)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += row[i] * row[i];
    return sqrt(s);
}

static state_residuals residuals_of(lua_State *L, const wb_model *m, const double *q,
                                    const double *p)
{
    state_residuals r = {0, 0, 0};
    const int n = m->nq, k = m->n_holonomic + m->n_nonholonomic;
    double *w = lua_newuserdatauv(L, sizeof(double) * ((size_t)n * (k + 4) + k + 1), 0);
    double *v = w, *g = v + n, *G = g + k + 1;
    double qn = row_norm(n, q), vn = 0;
    if (m->capabilities & WB_CAP_VELOCITY) {
        wb_velocity(m, q, p, v);
        vn = row_norm(m->nv, v);
    }
    if (m->n_holonomic > 0) {
        wb_constraints(m, q, g);
        wb_constraint_jacobian(m, q, G);
        for (int i = 0; i < m->n_holonomic; i++) {
            const double *row = G + (size_t)i * n;
            double gn = row_norm(n, row);
            double distance = gn > 0 ? fabs(g[i]) / gn : fabs(g[i]);
            r.position = fmax(r.position, distance / (qn > 0 ? qn : 1.0));
            if (vn > 0) {
                double gv = 0;
                for (int j = 0; j < n; j++)
                    gv += row[j] * v[j];
                r.velocity = fmax(r.velocity, gn > 0 ? fabs(gv) / (gn * vn) : fabs(gv));
            }
        }
    }
    if (m->capabilities & WB_CAP_GROUP_RESIDUAL)
        r.group = wb_lie_group_residual(m, q);
    lua_pop(L, 1);
    return r;
}

/* Refuse a state off the constraints beyond tol, with its residuals and
 * what to do. */
static void refuse_inconsistent(lua_State *L, const wb_model *m, const double *q,
                                const double *p, double tol, int q_only)
{
    state_residuals r = residuals_of(L, m, q, p);
    double vtol = tol;
    if (isnan(r.position) || isnan(r.velocity) || isnan(r.group))
        luaL_error(L, "integrate: the initial state of model '%s' gives NaN constraint residuals",
                   m->name);
    if (r.position <= tol && r.velocity <= vtol && r.group <= tol)
        return;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    char line[256];
    snprintf(line, sizeof line, "integrate: the initial state is not consistent with model "
             "'%s' (relative residuals above consistency_tol = %.1e):", m->name, tol);
    luaL_addstring(&b, line);
    const struct {
        double value, tol;
        const char *what;
    } rows[] = {
        {r.position, tol, "distance from g(q) = 0, over |q|"},
        {r.velocity, vtol, "|G M^-1 p| / (|G| |v|), the hidden constraint"},
        {r.group, tol, "distance of q from the group"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].value > rows[i].tol) {
            snprintf(line, sizeof line, " %s %.3g;", rows[i].what, rows[i].value);
            luaL_addstring(&b, line);
        }
    luaL_addstring(&b, q_only ? " q0 must lie on the constraints (m:project(q0, p) gives the "
                                "nearest consistent state)"
                              : " use q0, p0 = m:project(q0, p0) for the nearest consistent "
                                "state, or consistency_tol = false to integrate it as it is");
    luaL_pushresult(&b);
    lua_error(L);
}

static void initial_state(lua_State *L, model_instance *mi, double *q, double *p,
                          int continuing)
{
    const wb_model *m = model_instance_view(mi);
    int has_q = lua_getfield(L, 1, "q0") != LUA_TNIL;
    int has_p = lua_getfield(L, 1, "p0") != LUA_TNIL;
    if (!has_q || !has_p) {
        if (!(m->capabilities & WB_CAP_INITIAL_STATE))
            luaL_error(L, "integrate: model '%s' has no default initial state; pass q0 and p0",
                       m->name);
        wb_initial(m, q, p);
    }
    if (has_q)
        lua_read_vector(L, -2, m->nq, q, "integrate: field 'q0'");
    if (has_p)
        lua_read_vector(L, -1, m->nv, p, "integrate: field 'p0'");
    int handed_out = (!has_q || handed_out_state(L, -2, m->nq, q)) &&
                     (!has_p || handed_out_state(L, -1, m->nv, p));
    lua_pop(L, 2);
    /* consistency_tol: a relative tolerance, or false to take any state */
    double tol = 1e-6;
    int type = lua_getfield(L, 1, "consistency_tol");
    if (type == LUA_TBOOLEAN && !lua_toboolean(L, -1))
        tol = INFINITY;
    else if (type == LUA_TNUMBER && lua_tonumber(L, -1) >= 0)
        tol = lua_tonumber(L, -1);
    else if (type != LUA_TNIL)
        luaL_error(L, "integrate: field 'consistency_tol' must be a number >= 0 or false");
    lua_pop(L, 1);
    if (continuing || handed_out || isinf(tol) ||
        !(m->n_holonomic > 0 || (m->capabilities & WB_CAP_GROUP_RESIDUAL)))
        return;
    if (has_q && !has_p) {
        /* q0 alone: q0 must be consistent; the default p0 is projected
         * onto the velocity constraints at q0 */
        state_residuals r = residuals_of(L, m, q, p);
        if (r.position > tol || r.group > tol)
            refuse_inconsistent(L, m, q, p, tol, 1);
        double *w = lua_newuserdatauv(L, sizeof(double) * (size_t)(m->nq + m->nv), 0);
        if (model_project(mi, q, p, w, w + m->nq) != WB_OK)
            lua_host_error(L);
        memcpy(p, w + m->nq, sizeof(double) * (size_t)m->nv);
        lua_pop(L, 1);
    }
    refuse_inconsistent(L, m, q, p, tol, 0);
}

/* The names of the method's aux groups, for messages. */
static void push_aux_names(lua_State *L, const method_config *cfg, const model_instance *mi)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (uint32_t g = 0; g < integrator_aux_count(cfg); g++) {
        aux_column group;
        if (integrator_aux_group(cfg, mi, g, &group) != 0)
            continue;
        if (g)
            luaL_addstring(&b, ", ");
        luaL_addstring(&b, group.name);
    }
    luaL_pushresult(&b);
}

/* aux0 = {name = {values}, ...}: every carried unknown of the method (as
 * sol:final() returns them), into a Lua-owned buffer in the aux layout.
 * NULL when the field is absent. */
static const double *read_carried_unknowns(lua_State *L, const method_config *cfg,
                                           const model_instance *mi)
{
    if (lua_getfield(L, 1, "aux0") == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    int table = lua_gettop(L);
    char name[256];
    method_config_name(cfg, name, sizeof name);
    if (!lua_istable(L, table))
        luaL_error(L, "integrate: field 'aux0' must be a table of the carried unknowns by "
                      "name (as sol:final() returns them), got %s", luaL_typename(L, table));
    uint32_t count = integrator_aux_count(cfg);
    int total = 0;
    for (uint32_t g = 0; g < count; g++) {
        aux_column group;
        if (integrator_aux_group(cfg, mi, g, &group) != 0)
            lua_host_error(L);
        total += group.size;
    }
    double *aux = lua_newuserdatauv(L, sizeof(double) * (size_t)(total + 1), 0);
    int offset = 0;
    for (uint32_t g = 0; g < count; g++) {
        aux_column group;
        integrator_aux_group(cfg, mi, g, &group);
        if (lua_getfield(L, table, group.name) == LUA_TNIL) {
            push_aux_names(L, cfg, mi);
            luaL_error(L, "integrate: aux0 lacks '%s': method '%s' carries %s", group.name,
                       name, lua_tostring(L, -1));
        }
        char what[320];
        snprintf(what, sizeof what, "integrate: aux0.%s", group.name);
        lua_read_vector(L, -1, group.size, aux + offset, what);
        lua_pop(L, 1);
        offset += group.size;
    }
    lua_pushnil(L);
    while (lua_next(L, table)) {
        lua_pop(L, 1);
        int known = 0;
        for (uint32_t g = 0; g < count && lua_type(L, -1) == LUA_TSTRING; g++) {
            aux_column group;
            integrator_aux_group(cfg, mi, g, &group);
            known |= strcmp(group.name, lua_tostring(L, -1)) == 0;
        }
        if (!known) {
            const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                             : luaL_typename(L, -1);
            push_aux_names(L, cfg, mi);
            luaL_error(L, "integrate: aux0 has '%s', which method '%s' does not carry "
                          "(it carries: %s)", key, name,
                       count ? lua_tostring(L, -1) : "nothing");
        }
    }
    lua_remove(L, table); /* the buffer stays on the stack, alive */
    return aux;
}

static void read_run_options(lua_State *L, run_options *opt)
{
    opt->t0 = number_field(L, 1, "t0", 0, 0.0);
    int has_h = lua_getfield(L, 1, "h") != LUA_TNIL;
    int has_steps = lua_getfield(L, 1, "steps") != LUA_TNIL;
    int has_end = lua_getfield(L, 1, "t_end") != LUA_TNIL;
    lua_pop(L, 3);
    if (!has_h && has_steps && has_end) {
        /* steps = N over [t0, t_end]: h = (t_end - t0) / N */
        double t_end = number_field(L, 1, "t_end", 1, 0.0);
        double steps = number_field(L, 1, "steps", 1, 0.0);
        if (!(steps >= 1) || steps != floor(steps) || steps > MAX_STEPS)
            lua_raise_error(L, "integrate: field 'steps' must be a whole number >= 1, got %g",
                            steps);
        opt->h = (t_end - opt->t0) / steps;
        opt->steps = (long long)steps;
        if (opt->h == 0)
            luaL_error(L, "integrate: t_end equals t0: nothing to integrate");
    } else {
        if (!has_h)
            luaL_error(L, "integrate: field 'h' is required (a number), or give steps with "
                          "t_end");
        opt->h = number_field(L, 1, "h", 1, 0.0);
        if (opt->h == 0)
            luaL_error(L, "integrate: field 'h' must be nonzero");
        if (has_steps && has_end)
            luaL_error(L, "integrate: give two of h, steps and t_end, not all three");
        opt->steps = step_count(L, 1, opt->t0, opt->h);
    }
    double every = number_field(L, 1, "every", 0, 1.0);
    if (every < 1 || every != floor(every))
        lua_raise_error(L, "integrate: field 'every' must be a whole number >= 1, got %g", every);
    /* recording every 2^53 steps or more records the first and the last row */
    opt->every = every >= MAX_STEPS ? (long long)MAX_STEPS : (long long)every;
    int type = lua_getfield(L, 1, "progress");
    opt->progress = type == LUA_TNIL ? -1 : lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (opt->progress < 0)
        opt->progress = isatty(2) && !getenv("WORKBENCH_NO_PROGRESS");
    type = lua_getfield(L, 1, "on_failure");
    const char *mode = type == LUA_TNIL ? "error" : lua_tostring(L, -1);
    if (type != LUA_TNIL && type != LUA_TSTRING)
        luaL_error(L, "integrate: field 'on_failure' must be 'error' or 'stop'");
    if (strcmp(mode, "error") != 0 && strcmp(mode, "stop") != 0)
        luaL_error(L, "integrate: field 'on_failure' must be 'error' or 'stop', got '%s'", mode);
    opt->stop_on_failure = mode[0] == 's';
    lua_pop(L, 1);
    type = lua_getfield(L, 1, "check_claims");
    if (type != LUA_TNIL && type != LUA_TBOOLEAN)
        luaL_error(L, "integrate: field 'check_claims' must be true or false, got a %s",
                   lua_typename(L, type));
    opt->ignore_claims = type == LUA_TBOOLEAN && !lua_toboolean(L, -1);
    lua_pop(L, 1);
}

static int integrate(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    check_fields(L, 1);
    fetch_model_and_method(L); /* slots 2 and 3 */
    model_instance *mi = lua_check_model(L, 2)->instance;
    method_config *cfg = lua_check_method(L, 3)->config;
    const wb_model *m = model_instance_view(mi);
    run_options opt = {0};
    read_run_options(L, &opt);
    if (lua_getfield(L, 1, "stream") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "integrate: field 'stream' must be a file name");
        lua_pushstring(L, lua_check_output_path(L, -1, "integrate: field 'stream'"));
        opt.stream_path = lua_tostring(L, -1); /* kept alive on the stack */
    }
    double *state = lua_newuserdatauv(L, sizeof(double) * (size_t)(m->nq + m->nv), 0);
    opt.aux0 = read_carried_unknowns(L, cfg, mi);
    /* a run continued from carried unknowns takes the state as it is */
    initial_state(L, mi, state, state + m->nq, opt.aux0 != NULL);
    /* allocated by Lua before the run, so that no Lua error can strand it */
    lua_solution *result = lua_push_solution(L, 2, 3);
    integrator *it = integrator_create(cfg, mi);
    if (!it)
        return lua_host_error(L);
    lua_model_definition_clear_error();
    result->sol = driver_run(it, &opt, state, state + m->nq);
    integrator_destroy(it);
    const char *model_error = lua_model_definition_take_error();
    if (!result->sol) {
        if (model_error)
            return luaL_error(L, "%s (%s)", model_error, host_last_error());
        return lua_host_error(L);
    }
    if (model_error && result->sol->failure) {
        /* on_failure = "stop": the model's own error is the reason */
        char *why = malloc(strlen(model_error) + strlen(result->sol->failure) + 4);
        if (why) {
            sprintf(why, "%s (%s)", model_error, result->sol->failure);
            free(result->sol->failure);
            result->sol->failure = why;
        }
    }
    const int stream_failed = result->sol->stream_failed;
    /* a stream that stopped at a failed write keeps its complete rows, and
     * its metadata says so (ok false, the failure, the rows kept) */
    if (opt.stream_path && stream_failed != 2 &&
        lua_solution_write_metadata(L, -1, opt.stream_path) != 0) {
        if (stream_failed)
            return luaL_error(L, "%s; and its metadata: %s", result->sol->failure,
                              host_last_error());
        return lua_host_error(L);
    }
    if (stream_failed && !opt.stop_on_failure)
        return luaL_error(L, "%s", result->sol->failure);
    return 1;
}

/* ---- introspection ------------------------------------------------------------------ */

static int list_models(lua_State *L)
{
    plugins_discover();
    lua_newtable(L);
    int n = 0;
    for (int i = 0; i < plugins_count(); i++)
        if (plugins_at(i)->model) {
            lua_pushstring(L, plugins_at(i)->entry->name);
            lua_rawseti(L, -2, ++n);
        }
    return 1;
}

static int list_methods(lua_State *L)
{
    plugins_discover();
    lua_newtable(L);
    int n = 0;
    for (int i = 0; i < plugins_count(); i++) {
        const wb_family *f = plugins_at(i)->family;
        for (uint32_t j = 0; f && j < f->n_methods; j++) {
            lua_pushfstring(L, "%s.%s", f->name, f->methods[j]->name);
            lua_rawseti(L, -2, ++n);
        }
    }
    return 1;
}

/* ---- output helpers ------------------------------------------------------------------- */

const char *lua_check_file_name(lua_State *L, int arg, const char *what)
{
    size_t len;
    const char *path = luaL_checklstring(L, arg, &len);
    if (len == 0)
        luaL_error(L, "%s: the file name is empty", what);
    if (strlen(path) != len)
        luaL_error(L, "%s: the file name holds a NUL byte", what);
    return path;
}

const char *lua_check_output_path(lua_State *L, int arg, const char *what)
{
    return output_path(lua_check_file_name(L, arg, what));
}

static int lua_output_path(lua_State *L)
{
    lua_pushstring(L, lua_check_output_path(L, 1, "wb.output_path"));
    return 1;
}

/* wb.write_file(path, text): whole or not at all, missing folders created;
 * a relative path is taken under the output root. */
static int write_file(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);
    const char *path = lua_check_output_path(L, 1, "wb.write_file");
    atomic_file f;
    if (atomic_open(&f, path) != 0)
        return lua_host_error(L);
    fwrite(text, 1, len, f.fp);
    if (atomic_commit(&f) != 0)
        return lua_host_error(L);
    return 0;
}

/* wb._run_gnuplot(script, figure) -> true | false, reason ("missing" or text).
 * gnuplot writes the figure under a temporary name (variable outfile), which
 * is renamed only when gnuplot succeeded. */
static int run_gnuplot(lua_State *L)
{
    const char *script = luaL_checkstring(L, 1);
    const char *figure = lua_check_file_name(L, 2, "wb.plot: figure");
    int status = gnuplot_run(script, figure);
    if (status == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_pushstring(L, status == 1 ? "missing" : host_last_error());
    return 2;
}

/* wb._gnuplot_literal(s [, "path"]): s as a gnuplot string literal that
 * gnuplot can only read as text (run/gnuplot.h). */
static int lua_gnuplot_literal(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const char *kind = luaL_optstring(L, 2, "text");
    char *literal = gnuplot_literal(s, len, strcmp(kind, "path") == 0 ? GNUPLOT_PATH
                                                                      : GNUPLOT_TEXT);
    if (!literal)
        return lua_host_error(L);
    lua_pushstring(L, literal);
    free(literal);
    return 1;
}

extern const char workbench_lua_api_doc[];
extern const unsigned long workbench_lua_api_doc_size;

/* wb._api_reference(): docs/lua-api.md as the binary carries it */
static int api_reference(lua_State *L)
{
    lua_pushlstring(L, workbench_lua_api_doc, workbench_lua_api_doc_size);
    return 1;
}

/* wb._progress_enabled(): progress lines go to stderr when it is a terminal
 * and WORKBENCH_NO_PROGRESS is unset */
static int progress_enabled(lua_State *L)
{
    lua_pushboolean(L, isatty(2) && !getenv("WORKBENCH_NO_PROGRESS"));
    return 1;
}

static int wall_clock(lua_State *L)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lua_pushnumber(L, (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec);
    return 1;
}

/* ---- the module ------------------------------------------------------------------------ */

/* The Lua halves beside workbench.lua and sweep.lua, in the order they
 * build on each other; each runs once with the module table. */
#define EMBEDDED(name)                                   \
    extern const char workbench_##name##_source[];       \
    extern const unsigned long workbench_##name##_source_size;
EMBEDDED(autodiff)
EMBEDDED(model_definition)
EMBEDDED(model_compiler)
EMBEDDED(check_method)
#undef EMBEDDED

static void run_embedded_halves(lua_State *L)
{
    static const struct {
        const char *source;
        const unsigned long *size;
        const char *name;
    } halves[] = {
        {workbench_autodiff_source, &workbench_autodiff_source_size, "=autodiff.lua"},
        {workbench_model_definition_source, &workbench_model_definition_source_size,
         "=model_definition.lua"},
        {workbench_model_compiler_source, &workbench_model_compiler_source_size,
         "=model_compiler.lua"},
        {workbench_check_method_source, &workbench_check_method_source_size,
         "=check_method.lua"},
    };
    for (size_t i = 0; i < sizeof halves / sizeof halves[0]; i++) {
        if (luaL_loadbuffer(L, halves[i].source, *halves[i].size, halves[i].name) != LUA_OK)
            lua_error(L);
        lua_pushvalue(L, -2);
        lua_call(L, 1, 0);
    }
}

int luaopen_workbench(lua_State *L)
{
    static const luaL_Reg functions[] = {
        {"list_models", list_models},
        {"list_methods", list_methods},
        {"output_path", lua_output_path},
        {"clock", wall_clock},
        {"_progress_enabled", progress_enabled},
        {"_api_reference", api_reference},
        {"write_file", write_file},
        {"_run_gnuplot", run_gnuplot},
        {"_gnuplot_literal", lua_gnuplot_literal},
        {NULL, NULL},
    };
    luaL_newlib(L, functions);
    lua_model_register(L);
    lua_method_register(L);
    lua_solution_register(L);
    lua_tableau_register(L);
    lua_sweep_register(L);
    lua_model_definition_register(L);
    lua_compile_register(L);
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, integrate, 1);
    lua_setfield(L, -2, "integrate");
    lua_pushstring(L, WORKBENCH_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushfstring(L, "%d.%d", WB_ABI_MAJOR, WB_ABI_MINOR);
    lua_setfield(L, -2, "abi");
    run_embedded_halves(L);
    lua_pushvalue(L, -1);
    lua_setglobal(L, "wb");
    return 1;
}
