/* wb.model(name, params) and the model object's methods. */
#include "lua/lua_api.h"
#include "host/descriptor.h"
#include "host/host.h"
#include "host/plugins.h"
#include "run/projection.h"

#include <stdlib.h>
#include <string.h>

lua_model *lua_check_model(lua_State *L, int idx)
{
    lua_model *lm = luaL_checkudata(L, idx, LUA_MODEL_TYPE);
    if (!lm->instance) /* used from a finalizer after its own __gc ran */
        luaL_error(L, "this model has already been finalized");
    return lm;
}

static const wb_model *view_of(lua_State *L, int idx)
{
    return model_instance_view(lua_check_model(L, idx)->instance);
}

/* Work memory for one call, released by Lua's GC. */
static double *scratch(lua_State *L, size_t count)
{
    return lua_newuserdatauv(L, (count ? count : 1) * sizeof(double), 0);
}

static void read_params(lua_State *L, int idx, const wb_model_class *cls, double *values)
{
    for (uint32_t i = 0; i < cls->n_params; i++)
        values[i] = descriptor_param(cls, i)->default_value;
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "model '%s': parameter names must be strings", cls->name);
        const char *key = lua_tostring(L, -2);
        uint32_t i = 0;
        while (i < cls->n_params && strcmp(descriptor_param(cls, i)->name, key) != 0)
            i++;
        if (i == cls->n_params) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (uint32_t j = 0; j < cls->n_params; j++) {
                if (j)
                    luaL_addstring(&b, ", ");
                luaL_addstring(&b, descriptor_param(cls, j)->name);
            }
            luaL_pushresult(&b);
            luaL_error(L, "model '%s' has no parameter '%s' (parameters: %s)", cls->name,
                       key, cls->n_params ? lua_tostring(L, -1) : "none");
        }
        if (!lua_isnumber(L, -1))
            luaL_error(L, "model '%s': parameter '%s' must be a number, got %s", cls->name,
                       key, luaL_typename(L, -1));
        values[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

static int model_new(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 2); /* params (or nil) at 2, work memory above */
    const plugin *p = plugins_find_model(name);
    if (!p)
        return lua_host_error(L);
    double *values = scratch(L, p->model->n_params);
    read_params(L, 2, p->model, values);
    lua_model *lm = lua_newuserdatauv(L, sizeof *lm, 0);
    lm->instance = NULL;
    luaL_setmetatable(L, LUA_MODEL_TYPE);
    lm->instance = model_instance_create(p, values);
    if (!lm->instance)
        return lua_host_error(L);
    return 1;
}

static int model_gc(lua_State *L)
{
    lua_model *lm = luaL_checkudata(L, 1, LUA_MODEL_TYPE);
    model_instance_destroy(lm->instance);
    lm->instance = NULL;
    return 0;
}

static int model_initial(lua_State *L)
{
    const wb_model *m = view_of(L, 1);
    if (!(m->capabilities & WB_CAP_INITIAL_STATE))
        return luaL_error(L, "model '%s' has no default initial state (%s); pass q0 and p0",
                          m->name, WB_EXT_INITIAL_STATE);
    double *q = scratch(L, (size_t)m->nq + m->nv), *p = q + m->nq;
    wb_initial(m, q, p);
    lua_push_state_vector(L, m->nq, q);
    lua_push_state_vector(L, m->nv, p);
    return 2;
}

static int model_energy(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    double *q = scratch(L, (size_t)m->nq + m->nv), *p = q + m->nq;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nv, p, "p");
    if (!m->energy.fn)
        return luaL_error(L, "model '%s' has no energy", m->name);
    lua_pushnumber(L, wb_energy(m, q, p));
    return 1;
}

static void need(lua_State *L, const wb_model *m, unsigned cap, const char *what)
{
    if (!(m->capabilities & cap))
        luaL_error(L, "model '%s' has no %s", m->name, what);
}

static int model_potential(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_MECHANICAL, "potential (wb.mechanical)");
    double *q = scratch(L, (size_t)m->nq);
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_pushnumber(L, wb_potential(m, q));
    return 1;
}

static int model_gradient(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_MECHANICAL, "potential (wb.mechanical)");
    double *q = scratch(L, 2 * (size_t)m->nq);
    lua_read_vector(L, 2, m->nq, q, "q");
    wb_potential_gradient(m, q, q + m->nq);
    lua_push_vector(L, m->nq, q + m->nq);
    return 1;
}

static int model_hessian(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_MECHANICAL, "potential (wb.mechanical)");
    double *q = scratch(L, (size_t)m->nq * (m->nq + 1));
    lua_read_vector(L, 2, m->nq, q, "q");
    wb_potential_hessian(m, q, q + m->nq);
    lua_push_matrix(L, m->nq, m->nq, q + m->nq);
    return 1;
}

static int model_mass(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_MECHANICAL, "mass matrix (wb.mechanical)");
    double *q = scratch(L, (size_t)m->nq * (m->nq + 1));
    lua_read_vector(L, 2, m->nq, q, "q");
    wb_mass(m, q, q + m->nq);
    lua_push_matrix(L, m->nq, m->nq, q + m->nq);
    return 1;
}

/* m:velocity(q, p): M^-1 p, or xi(q, mu) on a group. */
static int model_velocity(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_VELOCITY, "velocity (wb.mechanical or Lie dynamics)");
    double *q = scratch(L, (size_t)m->nq + 2 * (size_t)m->nv), *p = q + m->nq, *v = p + m->nv;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nv, p, "p");
    wb_velocity(m, q, p, v);
    lua_push_vector(L, m->nv, v);
    return 1;
}

static int model_constraints(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_HOLONOMIC, "holonomic constraints");
    double *q = scratch(L, (size_t)m->nq + m->n_holonomic);
    lua_read_vector(L, 2, m->nq, q, "q");
    wb_constraints(m, q, q + m->nq);
    lua_push_vector(L, m->n_holonomic, q + m->nq);
    return 1;
}

static int model_constraint_jacobian(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_HOLONOMIC, "holonomic constraints");
    double *q = scratch(L, (size_t)m->nq * (1 + m->n_holonomic));
    lua_read_vector(L, 2, m->nq, q, "q");
    wb_constraint_jacobian(m, q, q + m->nq);
    lua_push_matrix(L, m->n_holonomic, m->nq, q + m->nq);
    return 1;
}

/* The derivatives no method of the model object returns, for
 * wb.compile_model's comparison of a compiled model with its definition:
 * m:_kinetic_gradient(q, p), m:_hessian_contract(q, mu) (n x n, row-major),
 * m:_hessian_vector(q, w) (m x n), m:_third_contract(q, mu, w) (n x n). */
static int model_kinetic_gradient(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_MECHANICAL, "mass matrix (wb.mechanical)");
    double *q = scratch(L, 3 * (size_t)m->nq), *p = q + m->nq, *g = p + m->nq;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nq, p, "p");
    wb_kinetic_gradient(m, q, p, g);
    lua_push_vector(L, m->nq, g);
    return 1;
}

static int model_hessian_contract(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_HOLONOMIC, "holonomic constraints");
    const size_t n = (size_t)m->nq;
    double *q = scratch(L, n + m->n_holonomic + n * n), *mu = q + n, *T = mu + m->n_holonomic;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->n_holonomic, mu, "mu");
    wb_constraint_hessian_contract(m, q, mu, T);
    lua_push_vector(L, (int)(n * n), T);
    return 1;
}

static int model_hessian_vector(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_HOLONOMIC, "holonomic constraints");
    const size_t n = (size_t)m->nq;
    double *q = scratch(L, 2 * n + n * m->n_holonomic), *w = q + n, *B = w + n;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nq, w, "w");
    wb_constraint_hessian_vector(m, q, w, B);
    lua_push_vector(L, (int)(n * m->n_holonomic), B);
    return 1;
}

static int model_third_contract(lua_State *L)
{
    lua_settop(L, 4); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_HOLONOMIC, "holonomic constraints");
    const size_t n = (size_t)m->nq;
    double *q = scratch(L, 2 * n + m->n_holonomic + n * n), *mu = q + n;
    double *w = mu + m->n_holonomic, *D = w + n;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->n_holonomic, mu, "mu");
    lua_read_vector(L, 4, m->nq, w, "w");
    wb_constraint_third_contract(m, q, mu, w, D);
    lua_push_vector(L, (int)(n * n), D);
    return 1;
}

static int model_hidden_constraints(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_HOLONOMIC, "holonomic constraints");
    double *q = scratch(L, 2 * (size_t)m->nq + m->n_holonomic), *p = q + m->nq;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nq, p, "p");
    wb_hidden_constraints(m, q, p, p + m->nq);
    lua_push_vector(L, m->n_holonomic, p + m->nq);
    return 1;
}

static int model_multiplier(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_HOLONOMIC, "holonomic constraints");
    double *q = scratch(L, 2 * (size_t)m->nq + m->n_holonomic), *p = q + m->nq;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nq, p, "p");
    if (wb_index1_multiplier(m, q, p, p + m->nq) != WB_OK)
        return lua_host_error(L);
    lua_push_vector(L, m->n_holonomic, p + m->nq);
    return 1;
}

static int model_nonholonomic(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_NONHOLONOMIC, "nonholonomic constraints");
    double *q = scratch(L, (size_t)m->nq + m->nv + m->n_nonholonomic), *v = q + m->nq;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nv, v, "v");
    wb_nh_constraints(m, q, v, v + m->nv);
    lua_push_vector(L, m->n_nonholonomic, v + m->nv);
    return 1;
}

/* m:nonholonomic_multiplier(q, p): the consistent nu (p' = ... - A^T nu). */
static int model_nonholonomic_multiplier(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_NONHOLONOMIC, "nonholonomic constraints");
    double *q = scratch(L, (size_t)m->nq + m->nv + m->n_nonholonomic), *p = q + m->nq;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nv, p, "p");
    if (wb_nh_multiplier(m, q, p, p + m->nv) != WB_OK)
        return lua_host_error(L);
    lua_push_vector(L, m->n_nonholonomic, p + m->nv);
    return 1;
}

/* m:project(q, p) -> q, p: the nearest consistent state. */
static int model_nearest_consistent(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    lua_model *lm = lua_check_model(L, 1);
    const wb_model *m = model_instance_view(lm->instance);
    double *q0 = scratch(L, 2 * ((size_t)m->nq + m->nv)), *p0 = q0 + m->nq;
    double *q = p0 + m->nv, *p = q + m->nq;
    lua_read_vector(L, 2, m->nq, q0, "q");
    lua_read_vector(L, 3, m->nv, p0, "p");
    if (model_project(lm->instance, q0, p0, q, p) != WB_OK)
        return lua_host_error(L);
    lua_push_state_vector(L, m->nq, q);
    lua_push_state_vector(L, m->nv, p);
    return 2;
}

/* m:generator(i, q): xi with J_i = p . xi (a momentum map), or nil. */
static int model_generator(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_INVARIANTS, "invariants (wb.invariants)");
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || i > m->n_invariants)
        return luaL_error(L, "m:generator: invariant %d out of range 1..%d", (int)i,
                          m->n_invariants);
    double *q = scratch(L, (size_t)m->nq + m->nq), *xi = q + m->nq;
    lua_read_vector(L, 3, m->nq, q, "q");
    if (WB_CALL(m, invariant_generator, (int)i - 1, q, xi) != 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_push_vector(L, (m->capabilities & WB_CAP_LIE_GROUP) ? m->nv : m->nq, xi);
    return 1;
}

/* ---- Lie groups ----------------------------------------------------------------------- */

static const wb_model *group_of(lua_State *L)
{
    const wb_model *m = view_of(L, 1);
    need(L, m, WB_CAP_LIE_GROUP, "Lie group (wb.lie_group)");
    return m;
}

static int model_exp(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = group_of(L);
    double *xi = scratch(L, (size_t)m->nv + m->nq), *g = xi + m->nv;
    lua_read_vector(L, 2, m->nv, xi, "xi");
    wb_lie_exp(m, xi, g);
    lua_push_vector(L, m->nq, g);
    return 1;
}

static int model_log(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = group_of(L);
    need(L, m, WB_CAP_LIE_LOG, "logarithm (wb.lie_group's log)");
    double *g = scratch(L, (size_t)m->nq + m->nv), *xi = g + m->nq;
    lua_read_vector(L, 2, m->nq, g, "g");
    wb_lie_log(m, g, xi);
    lua_push_vector(L, m->nv, xi);
    return 1;
}

static int model_compose(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = group_of(L);
    double *a = scratch(L, 3 * (size_t)m->nq), *b = a + m->nq, *ab = b + m->nq;
    lua_read_vector(L, 2, m->nq, a, "a");
    lua_read_vector(L, 3, m->nq, b, "b");
    wb_lie_compose(m, a, b, ab);
    lua_push_vector(L, m->nq, ab);
    return 1;
}

static int model_inverse(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = group_of(L);
    double *a = scratch(L, 2 * (size_t)m->nq), *inverse = a + m->nq;
    lua_read_vector(L, 2, m->nq, a, "a");
    wb_lie_inverse(m, a, inverse);
    lua_push_vector(L, m->nq, inverse);
    return 1;
}

static int model_identity(lua_State *L)
{
    lua_settop(L, 1); /* arguments below, work memory above */
    const wb_model *m = group_of(L);
    double *e = scratch(L, (size_t)m->nq);
    wb_lie_identity(m, e);
    lua_push_vector(L, m->nq, e);
    return 1;
}

static int model_group_residual(lua_State *L)
{
    lua_settop(L, 2); /* arguments below, work memory above */
    const wb_model *m = group_of(L);
    need(L, m, WB_CAP_GROUP_RESIDUAL, "group residual (wb.lie_group's group_residual)");
    double *q = scratch(L, (size_t)m->nq);
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_pushnumber(L, wb_lie_group_residual(m, q));
    return 1;
}

/* m:vector_field(q, mu) -> f1, f2 of the dynamics on T*G. */
static int model_vector_field(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = group_of(L);
    need(L, m, WB_CAP_LIE_DYNAMICS, "dynamics on the group (wb.lie_hamiltonian or "
                                    "wb.lie_lagrangian)");
    double *q = scratch(L, (size_t)m->nq + 3 * (size_t)m->nv), *mu = q + m->nq;
    double *f1 = mu + m->nv, *f2 = f1 + m->nv;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nv, mu, "mu");
    wb_lie_vector_field(m, q, mu, f1, f2);
    lua_push_vector(L, m->nv, f1);
    lua_push_vector(L, m->nv, f2);
    return 2;
}

static int model_invariants(lua_State *L)
{
    lua_settop(L, 3); /* arguments below, work memory above */
    const wb_model *m = view_of(L, 1);
    double *q = scratch(L, (size_t)m->nq + m->nv + m->n_invariants + 1), *p = q + m->nq;
    lua_read_vector(L, 2, m->nq, q, "q");
    lua_read_vector(L, 3, m->nv, p, "p");
    lua_createtable(L, 0, m->n_invariants);
    if (m->n_invariants > 0) {
        double *out = p + m->nv;
        wb_invariants(m, q, p, out);
        for (int i = 0; i < m->n_invariants; i++) {
            lua_pushnumber(L, out[i]);
            lua_setfield(L, -2, m->invariant_names[i]);
        }
    }
    return 1;
}

/* name to {default =, min =, max =, doc =}: what the plugin declares */
static void push_param_info(lua_State *L, const wb_model_class *cls)
{
    lua_createtable(L, 0, (int)cls->n_params);
    for (uint32_t i = 0; i < cls->n_params; i++) {
        const wb_param_spec *p = descriptor_param(cls, i);
        lua_createtable(L, 0, 4);
        lua_pushnumber(L, p->default_value);
        lua_setfield(L, -2, "default");
        lua_pushnumber(L, p->min);
        lua_setfield(L, -2, "min");
        lua_pushnumber(L, p->max);
        lua_setfield(L, -2, "max");
        lua_pushstring(L, p->doc ? p->doc : "");
        lua_setfield(L, -2, "doc");
        lua_setfield(L, -2, p->name);
    }
}

/* Fields: name, nq, nv, n_constraints, n_nonholonomic, lie_group,
 * extensions, mass_constant, invariant_names, params, param_info, doc,
 * description; otherwise the methods. */
static int model_index(lua_State *L)
{
    lua_model *lm = lua_check_model(L, 1);
    const wb_model *m = model_instance_view(lm->instance);
    const char *key = luaL_checkstring(L, 2);
    if (strcmp(key, "name") == 0) {
        lua_pushstring(L, m->name);
    } else if (strcmp(key, "nq") == 0) {
        lua_pushinteger(L, m->nq);
    } else if (strcmp(key, "nv") == 0) {
        lua_pushinteger(L, m->nv);
    } else if (strcmp(key, "n_constraints") == 0) {
        lua_pushinteger(L, m->n_holonomic);
    } else if (strcmp(key, "n_nonholonomic") == 0) {
        lua_pushinteger(L, m->n_nonholonomic);
    } else if (strcmp(key, "lie_group") == 0) {
        lua_pushboolean(L, (m->capabilities & WB_CAP_LIE_GROUP) != 0);
    } else if (strcmp(key, "extensions") == 0) {
        const wb_model_class *cls = model_instance_plugin(lm->instance)->model;
        int n = 0;
        lua_newtable(L);
        for (const char *const *id = plugins_known_extensions(); *id; id++)
            if (cls->get_extension(*id)) {
                lua_pushstring(L, *id);
                lua_rawseti(L, -2, ++n);
            }
    } else if (strcmp(key, "constraints_quadratic") == 0) {
        lua_pushboolean(L, m->n_holonomic > 0 && (m->holonomic_flags & WB_HOLONOMIC_QUADRATIC));
    } else if (strcmp(key, "mass_constant") == 0) {
        lua_pushboolean(L, m->mass_constant);
    } else if (strcmp(key, "invariant_names") == 0) {
        lua_createtable(L, m->n_invariants, 0);
        for (int i = 0; i < m->n_invariants; i++) {
            lua_pushstring(L, m->invariant_names[i]);
            lua_rawseti(L, -2, i + 1);
        }
    } else if (strcmp(key, "doc") == 0 || strcmp(key, "description") == 0) {
        const plugin *pl = model_instance_plugin(lm->instance);
        const char *text = strcmp(key, "doc") == 0 ? pl->model->doc : pl->entry->description;
        lua_pushstring(L, text ? text : "");
    } else if (strcmp(key, "param_info") == 0) {
        push_param_info(L, model_instance_plugin(lm->instance)->model);
    } else if (strcmp(key, "params") == 0) {
        const wb_model_class *cls = model_instance_plugin(lm->instance)->model;
        const double *values = model_instance_params(lm->instance);
        lua_createtable(L, 0, (int)cls->n_params);
        for (uint32_t i = 0; i < cls->n_params; i++) {
            lua_pushnumber(L, values[i]);
            lua_setfield(L, -2, descriptor_param(cls, i)->name);
        }
    } else {
        luaL_getmetafield(L, 1, "methods");
        lua_getfield(L, -1, key);
    }
    return 1;
}

static int model_tostring(lua_State *L)
{
    const wb_model *m = view_of(L, 1);
    lua_pushfstring(L, "model %s (nq %d, constraints %d)", m->name, m->nq, m->n_holonomic);
    return 1;
}

void lua_model_register(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"initial", model_initial},
        {"energy", model_energy},
        {"potential", model_potential},
        {"gradient", model_gradient},
        {"hessian", model_hessian},
        {"mass", model_mass},
        {"velocity", model_velocity},
        {"constraints", model_constraints},
        {"constraint_jacobian", model_constraint_jacobian},
        {"hidden_constraints", model_hidden_constraints},
        {"_kinetic_gradient", model_kinetic_gradient},
        {"_hessian_contract", model_hessian_contract},
        {"_hessian_vector", model_hessian_vector},
        {"_third_contract", model_third_contract},
        {"multiplier", model_multiplier},
        {"nonholonomic_constraints", model_nonholonomic},
        {"nonholonomic_multiplier", model_nonholonomic_multiplier},
        {"invariants", model_invariants},
        {"generator", model_generator},
        {"project", model_nearest_consistent},
        {"exp", model_exp},
        {"log", model_log},
        {"compose", model_compose},
        {"inverse", model_inverse},
        {"identity", model_identity},
        {"group_residual", model_group_residual},
        {"vector_field", model_vector_field},
        {NULL, NULL},
    };
    luaL_newmetatable(L, LUA_MODEL_TYPE);
    lua_pushboolean(L, 0); /* getmetatable(x) is false: no script reaches __gc */
    lua_setfield(L, -2, "__metatable");
    lua_pushcfunction(L, model_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, model_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, model_tostring);
    lua_setfield(L, -2, "__tostring");
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
    lua_pushcfunction(L, model_new);
    lua_setfield(L, -2, "model");
}
