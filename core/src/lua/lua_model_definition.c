/* The C half of wb.define_model (the Lua half: model_definition.lua): a
 * model written in a script becomes a model plugin of this process.  Its
 * class is built from the script's declaration and registered with the
 * loader; every function of its extensions calls the script's evaluator
 * (exact derivatives by forward-mode automatic differentiation, wb.ad).
 *
 * A model class's create() and get_extension() receive no class pointer
 * (the ABI is for shared objects, one class each), so the classes live in
 * a fixed number of slots, each with its own pair of entry points.
 *
 * The evaluator runs on a Lua thread of its own, so that a model function
 * can be called from anywhere in the host (the driver, Newton, check-model)
 * while the script is inside wb.integrate.  A Lua error in a model function
 * cannot unwind through the C time loop: the function's outputs become NaN
 * (so the step fails), the first message is kept, and the Lua layer raises
 * it where the script called in (lua_model_definition_raise_pending). */
#include "lua/lua_api.h"
#include "host/host.h"
#include "host/plugins.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFINITION_TYPE "workbench.model_definition"
#define SLOT_COUNT 64

/* The evaluator's functions, by index (model_definition.lua). */
enum {
    EVAL_POTENTIAL = 1, EVAL_GRADIENT, EVAL_HESSIAN, EVAL_MASS, EVAL_KINETIC_GRADIENT,
    EVAL_CONSTRAINTS, EVAL_JACOBIAN, EVAL_HESSIAN_CONTRACT, EVAL_HESSIAN_VECTOR,
    EVAL_THIRD_CONTRACT, EVAL_INVARIANTS, EVAL_GENERATOR, EVAL_INITIAL
};

static const char *const evaluator_names[] = {
    "", "potential", "potential gradient", "potential Hessian", "mass", "kinetic gradient",
    "constraints", "constraint Jacobian", "constraint Hessian contraction",
    "constraint Hessian-vector product", "constraint third-derivative contraction",
    "invariants", "invariant generator", "initial"};

typedef struct definition {
    int slot;
    wb_model_class cls;
    wb_plugin_entry entry;
    wb_param_spec *params;
    char *name, *doc, *description, *origin;
    char **invariant_names;
    int nq, n_constraints, n_invariants, mass_constant, has_initial, quadratic;
    wb_mechanical_ext mechanical;
    wb_holonomic_ext holonomic;
    wb_invariants_ext invariants;
    wb_initial_state_ext initial;
    lua_State *thread;    /* where the evaluator runs                     */
    int thread_ref;       /* keeps the thread alive (registry)            */
    int factory_ref;      /* declaration.instance (registry)              */
    const plugin *registered;
    int instances;        /* live instances: the class outlives them      */
    int finalized;        /* the defining Lua state let go of it          */
} definition;

typedef struct instance {
    definition *def;
    int evaluator_ref;
} instance;

static definition *slots[SLOT_COUNT];

/* The first failure since the last take, for the Lua layer to raise. */
static char pending_message[1024];
static int pending;

static void record_failure(const definition *d, int which, const char *message)
{
    if (pending)
        return;
    pending = 1;
    snprintf(pending_message, sizeof pending_message, "model '%s' (defined at %s): %s: %s",
             d->name, d->origin, evaluator_names[which], message);
}

const char *lua_model_definition_take_error(void)
{
    if (!pending)
        return NULL;
    pending = 0;
    return pending_message;
}

void lua_model_definition_clear_error(void)
{
    pending = 0;
}

/* ---- calling the evaluator --------------------------------------------------- */

static void push_vector(lua_State *T, int n, const double *x)
{
    lua_createtable(T, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(T, x[i]);
        lua_rawseti(T, -2, i + 1);
    }
}

/* Push evaluator function `which`; returns the stack level to restore. */
static int begin(const instance *s, int which)
{
    lua_State *T = s->def->thread;
    int top = lua_gettop(T);
    lua_rawgeti(T, LUA_REGISTRYINDEX, s->evaluator_ref);
    lua_rawgeti(T, -1, which);
    lua_remove(T, -2);
    return top;
}

static void fill_nan(int n, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = NAN;
}

/* Call with nargs pushed; read `count` numbers (a table, or one number
 * when count is 0 or 1 and the result is a number) into out.  0, or -1
 * after recording the failure and filling out with NaN. */
static int finish(const instance *s, int which, int top, int nargs, int count, double *out)
{
    lua_State *T = s->def->thread;
    int status = lua_pcall(T, nargs, 1, 0);
    const char *problem = NULL;
    char message[512];
    if (status != LUA_OK) {
        problem = lua_tostring(T, -1);
        if (!problem)
            problem = "(error object is not a string)";
    } else if (count <= 1 && lua_type(T, -1) == LUA_TNUMBER) {
        out[0] = lua_tonumber(T, -1);
    } else if (lua_type(T, -1) != LUA_TTABLE || (int)lua_rawlen(T, -1) != count) {
        snprintf(message, sizeof message, "returned %s where %d numbers were expected",
                 luaL_typename(T, -1), count);
        problem = message;
    } else {
        for (int i = 0; i < count; i++) {
            lua_rawgeti(T, -1, i + 1);
            int is_num = 0;
            out[i] = lua_tonumberx(T, -1, &is_num);
            lua_pop(T, 1);
            if (!is_num) {
                snprintf(message, sizeof message, "entry %d is not a number", i + 1);
                problem = message;
                break;
            }
        }
    }
    if (problem) {
        record_failure(s->def, which, problem);
        fill_nan(count > 0 ? count : 1, out);
    }
    lua_settop(T, top);
    return problem ? -1 : 0;
}

static lua_State *thread_of(const instance *s) { return s->def->thread; }

static double cb_potential(void *self, const double *q)
{
    const instance *s = self;
    double V;
    int top = begin(s, EVAL_POTENTIAL);
    push_vector(thread_of(s), s->def->nq, q);
    finish(s, EVAL_POTENTIAL, top, 1, 1, &V);
    return V;
}

/* f(q) -> count numbers */
static void call_q(const instance *s, int which, const double *q, int count, double *out)
{
    int top = begin(s, which);
    push_vector(thread_of(s), s->def->nq, q);
    finish(s, which, top, 1, count, out);
}

/* f(q, x) with x of nx numbers -> count numbers */
static void call_qx(const instance *s, int which, const double *q, int nx, const double *x,
                    int count, double *out)
{
    int top = begin(s, which);
    push_vector(thread_of(s), s->def->nq, q);
    push_vector(thread_of(s), nx, x);
    finish(s, which, top, 2, count, out);
}

static void cb_gradient(void *self, const double *q, double *g)
{
    const instance *s = self;
    call_q(s, EVAL_GRADIENT, q, s->def->nq, g);
}

static void cb_hessian(void *self, const double *q, double *H)
{
    const instance *s = self;
    call_q(s, EVAL_HESSIAN, q, s->def->nq * s->def->nq, H);
}

static void cb_mass(void *self, const double *q, double *M)
{
    const instance *s = self;
    call_q(s, EVAL_MASS, q, s->def->nq * s->def->nq, M);
}

static void cb_kinetic_gradient(void *self, const double *q, const double *p, double *g)
{
    const instance *s = self;
    call_qx(s, EVAL_KINETIC_GRADIENT, q, s->def->nq, p, s->def->nq, g);
}

static void cb_constraints(void *self, const double *q, double *g)
{
    const instance *s = self;
    call_q(s, EVAL_CONSTRAINTS, q, s->def->n_constraints, g);
}

static void cb_jacobian(void *self, const double *q, double *G)
{
    const instance *s = self;
    call_q(s, EVAL_JACOBIAN, q, s->def->n_constraints * s->def->nq, G);
}

static void cb_hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    const instance *s = self;
    call_qx(s, EVAL_HESSIAN_CONTRACT, q, s->def->n_constraints, mu, s->def->nq * s->def->nq, T);
}

static void cb_hessian_vector(void *self, const double *q, const double *w, double *B)
{
    const instance *s = self;
    call_qx(s, EVAL_HESSIAN_VECTOR, q, s->def->nq, w, s->def->n_constraints * s->def->nq, B);
}

static void cb_third_contract(void *self, const double *q, const double *mu, const double *w,
                              double *D)
{
    const instance *s = self;
    int top = begin(s, EVAL_THIRD_CONTRACT);
    push_vector(thread_of(s), s->def->nq, q);
    push_vector(thread_of(s), s->def->n_constraints, mu);
    push_vector(thread_of(s), s->def->nq, w);
    finish(s, EVAL_THIRD_CONTRACT, top, 3, s->def->nq * s->def->nq, D);
}

static void cb_invariants(void *self, const double *q, const double *p, double *out)
{
    const instance *s = self;
    call_qx(s, EVAL_INVARIANTS, q, s->def->nq, p, s->def->n_invariants, out);
}

static int cb_generator(void *self, int index, const double *q, double *xi)
{
    const instance *s = self;
    lua_State *T = thread_of(s);
    int top = begin(s, EVAL_GENERATOR);
    lua_pushinteger(T, index + 1);
    push_vector(T, s->def->nq, q);
    if (lua_pcall(T, 2, 1, 0) == LUA_OK && lua_isnil(T, -1)) {
        lua_settop(T, top);
        return -1; /* not a momentum map */
    }
    /* a value (or an error): read it the ordinary way */
    lua_settop(T, top);
    top = begin(s, EVAL_GENERATOR);
    lua_pushinteger(T, index + 1);
    push_vector(T, s->def->nq, q);
    return finish(s, EVAL_GENERATOR, top, 2, s->def->nq, xi) == 0 ? 0 : -1;
}

static void cb_initial(void *self, double *q, double *p)
{
    const instance *s = self;
    double *both = malloc(2 * (size_t)s->def->nq * sizeof(double));
    if (!both) {
        fill_nan(s->def->nq, q), fill_nan(s->def->nq, p);
        return;
    }
    int top = begin(s, EVAL_INITIAL);
    finish(s, EVAL_INITIAL, top, 0, 2 * s->def->nq, both);
    memcpy(q, both, (size_t)s->def->nq * sizeof(double));
    memcpy(p, both + s->def->nq, (size_t)s->def->nq * sizeof(double));
    free(both);
}

/* ---- instances ----------------------------------------------------------------- */

static void release_definition(definition *d);

static int create_in(definition *d, const wb_host *host, const double *params, void **self,
                     wb_model_info *info)
{
    if (!d || d->finalized) {
        host->error(host, "this Lua-defined model's script has ended");
        return WB_ERR_INVALID;
    }
    instance *s = calloc(1, sizeof *s);
    if (!s) {
        host->error(host, "model '%s': out of memory", d->name);
        return WB_ERR_NOMEM;
    }
    lua_State *T = d->thread;
    int top = lua_gettop(T);
    lua_rawgeti(T, LUA_REGISTRYINDEX, d->factory_ref);
    push_vector(T, (int)d->cls.n_params, params);
    if (lua_pcall(T, 1, 1, 0) != LUA_OK || !lua_istable(T, -1)) {
        host->error(host, "model '%s': %s", d->name,
                    lua_isstring(T, -1) ? lua_tostring(T, -1) : "no evaluator");
        lua_settop(T, top);
        free(s);
        return WB_ERR_INVALID;
    }
    s->evaluator_ref = luaL_ref(T, LUA_REGISTRYINDEX);
    lua_settop(T, top);
    s->def = d;
    d->instances++;
    info->nq = info->nv = d->nq;
    info->n_holonomic = d->n_constraints;
    info->mass_constant = d->mass_constant;
    info->n_invariants = d->n_invariants;
    info->invariant_names = (const char *const *)d->invariant_names;
    *self = s;
    return WB_OK;
}

static void destroy_instance(void *self)
{
    instance *s = self;
    definition *d = s->def;
    if (!d->finalized)
        luaL_unref(d->thread, LUA_REGISTRYINDEX, s->evaluator_ref);
    free(s);
    if (--d->instances == 0 && d->finalized)
        release_definition(d);
}

static const void *extension_in(const definition *d, const char *id)
{
    if (!d)
        return NULL;
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &d->mechanical;
    if (strcmp(id, WB_EXT_HOLONOMIC) == 0)
        return d->n_constraints > 0 ? &d->holonomic : NULL;
    if (strcmp(id, WB_EXT_INVARIANTS) == 0)
        return d->n_invariants > 0 ? &d->invariants : NULL;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return d->has_initial ? &d->initial : NULL;
    return NULL;
}

/* Each slot's own create() and get_extension(), named by two digits
 * 10..17, 20..27, ..., 80..87 (slot index (k / 10 - 1) * 8 + k % 10). */
#define SLOT_INDEX(k) (((k) / 10 - 1) * 8 + (k) % 10)
#define SLOT_FUNCTIONS(k)                                                                  \
    static int create_##k(const wb_host *host, const double *params, void **self,         \
                          wb_model_info *info)                                            \
    {                                                                                     \
        return create_in(slots[SLOT_INDEX(k)], host, params, self, info);                 \
    }                                                                                     \
    static const void *extension_##k(const char *id)                                      \
    {                                                                                     \
        return extension_in(slots[SLOT_INDEX(k)], id);                                    \
    }
#define SLOT_FUNCTIONS8(k)                                                                 \
    SLOT_FUNCTIONS(k##0) SLOT_FUNCTIONS(k##1) SLOT_FUNCTIONS(k##2) SLOT_FUNCTIONS(k##3)   \
    SLOT_FUNCTIONS(k##4) SLOT_FUNCTIONS(k##5) SLOT_FUNCTIONS(k##6) SLOT_FUNCTIONS(k##7)
SLOT_FUNCTIONS8(1) SLOT_FUNCTIONS8(2) SLOT_FUNCTIONS8(3) SLOT_FUNCTIONS8(4)
SLOT_FUNCTIONS8(5) SLOT_FUNCTIONS8(6) SLOT_FUNCTIONS8(7) SLOT_FUNCTIONS8(8)

typedef int (*create_fn)(const wb_host *, const double *, void **, wb_model_info *);
typedef const void *(*extension_fn)(const char *);
#define SLOT_ENTRY(k) {create_##k, extension_##k}
#define SLOT_ENTRIES8(k)                                                                   \
    SLOT_ENTRY(k##0), SLOT_ENTRY(k##1), SLOT_ENTRY(k##2), SLOT_ENTRY(k##3),               \
    SLOT_ENTRY(k##4), SLOT_ENTRY(k##5), SLOT_ENTRY(k##6), SLOT_ENTRY(k##7)
static const struct {
    create_fn create;
    extension_fn extension;
} slot_functions[SLOT_COUNT] = {
    SLOT_ENTRIES8(1), SLOT_ENTRIES8(2), SLOT_ENTRIES8(3), SLOT_ENTRIES8(4),
    SLOT_ENTRIES8(5), SLOT_ENTRIES8(6), SLOT_ENTRIES8(7), SLOT_ENTRIES8(8),
};

/* ---- definitions ------------------------------------------------------------------ */

static void free_definition(definition *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->n_invariants && d->invariant_names; i++)
        free(d->invariant_names[i]);
    free(d->invariant_names);
    for (uint32_t i = 0; i < d->cls.n_params && d->params; i++)
        free((char *)d->params[i].name), free((char *)d->params[i].doc);
    free(d->params);
    free(d->name), free(d->doc), free(d->description), free(d->origin);
    free(d);
}

/* Unregister and free, once the script let go and no instance is left. */
static void release_definition(definition *d)
{
    if (d->registered)
        plugins_unregister(d->registered);
    if (d->slot >= 0 && slots[d->slot] == d)
        slots[d->slot] = NULL;
    free_definition(d);
}

/* The userdata that owns a definition: finalized when the script's Lua
 * state closes (the module keeps every one until then). */
typedef struct definition_box {
    definition *def;
} definition_box;

static int definition_gc(lua_State *L)
{
    definition_box *box = luaL_checkudata(L, 1, DEFINITION_TYPE);
    definition *d = box->def;
    box->def = NULL;
    if (!d)
        return 0;
    d->finalized = 1;
    luaL_unref(L, LUA_REGISTRYINDEX, d->factory_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, d->thread_ref);
    if (d->instances == 0)
        release_definition(d);
    return 0;
}

static char *field_string(lua_State *L, int idx, const char *field)
{
    lua_getfield(L, idx, field);
    const char *s = lua_tostring(L, -1);
    char *copy = strdup(s ? s : "");
    lua_pop(L, 1);
    return copy;
}

static int field_int(lua_State *L, int idx, const char *field)
{
    lua_getfield(L, idx, field);
    int v = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return v;
}

static double number_at(lua_State *L, int idx, const char *field, double fallback)
{
    lua_getfield(L, idx, field);
    double v = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : fallback;
    lua_pop(L, 1);
    return v;
}

static int read_params(lua_State *L, int idx, definition *d)
{
    lua_getfield(L, idx, "params");
    int list = lua_gettop(L);
    int n = (int)lua_rawlen(L, list);
    d->params = calloc((size_t)n + 1, sizeof *d->params);
    if (!d->params)
        return -1;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, list, i + 1);
        int p = lua_gettop(L);
        wb_param_spec *spec = &d->params[i];
        spec->name = field_string(L, p, "name");
        spec->doc = field_string(L, p, "doc");
        spec->default_value = number_at(L, p, "default", 0);
        spec->min = number_at(L, p, "min", -INFINITY);
        spec->max = number_at(L, p, "max", INFINITY);
        d->cls.n_params = (uint32_t)i + 1;
        lua_pop(L, 1);
        if (!spec->name || !spec->doc)
            return -1;
    }
    lua_pop(L, 1);
    return 0;
}

static int read_invariant_names(lua_State *L, int idx, definition *d)
{
    lua_getfield(L, idx, "invariant_names");
    int list = lua_gettop(L);
    int n = (int)lua_rawlen(L, list);
    d->invariant_names = calloc((size_t)n + 1, sizeof *d->invariant_names);
    if (!d->invariant_names)
        return -1;
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, list, i + 1);
        d->invariant_names[i] = strdup(lua_tostring(L, -1));
        d->n_invariants = i + 1;
        lua_pop(L, 1);
        if (!d->invariant_names[i])
            return -1;
    }
    lua_pop(L, 1);
    return 0;
}

static void build_class(definition *d)
{
    d->mechanical = (wb_mechanical_ext){
        .struct_size = sizeof(wb_mechanical_ext),
        .mass = cb_mass,
        .potential = cb_potential,
        .potential_gradient = cb_gradient,
        .potential_hessian = cb_hessian,
        .kinetic_gradient = d->mass_constant ? NULL : cb_kinetic_gradient,
    };
    d->holonomic = (wb_holonomic_ext){
        .struct_size = sizeof(wb_holonomic_ext),
        .flags = d->quadratic ? WB_HOLONOMIC_QUADRATIC : 0u,
        .constraints = cb_constraints,
        .jacobian = cb_jacobian,
        .hessian_contract = cb_hessian_contract,
        .hessian_vector = cb_hessian_vector,
        /* quadratic: the host's zero is exact and free */
        .third_contract = d->quadratic ? NULL : cb_third_contract,
    };
    d->invariants = (wb_invariants_ext){
        .struct_size = sizeof(wb_invariants_ext),
        .evaluate = cb_invariants,
        .generator = cb_generator,
    };
    d->initial = (wb_initial_state_ext){
        .struct_size = sizeof(wb_initial_state_ext),
        .initial = cb_initial,
    };
    d->cls = (wb_model_class){
        .struct_size = sizeof(wb_model_class),
        .name = d->name,
        .doc = d->doc,
        .params = d->params,
        .n_params = d->cls.n_params,
        .create = slot_functions[d->slot].create,
        .destroy = destroy_instance,
        .get_extension = slot_functions[d->slot].extension,
        .param_spec_size = sizeof(wb_param_spec),
    };
    d->entry = (wb_plugin_entry){
        .abi_major = WB_ABI_MAJOR,
        .abi_minor = WB_ABI_MINOR,
        .struct_size = sizeof(wb_plugin_entry),
        .kind = WB_KIND_MODEL,
        .name = d->name,
        .version = WORKBENCH_VERSION,
        .description = d->description,
        .descriptor = &d->cls,
    };
}

/* wb._register_model(declaration) -> true | nil, reason */
static int register_model(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    int slot = 0;
    while (slot < SLOT_COUNT && slots[slot])
        slot++;
    if (slot == SLOT_COUNT) {
        lua_pushnil(L);
        lua_pushfstring(L, "at most %d models can be defined in one script", SLOT_COUNT);
        return 2;
    }
    definition_box *box = lua_newuserdatauv(L, sizeof *box, 0); /* slot 2 */
    box->def = NULL;
    luaL_setmetatable(L, DEFINITION_TYPE);
    definition *d = calloc(1, sizeof *d);
    if (!d)
        return luaL_error(L, "out of memory");
    box->def = d; /* from here on the box's finalizer frees it */
    d->slot = -1;
    d->factory_ref = d->thread_ref = LUA_NOREF;
    d->name = field_string(L, 1, "name");
    d->doc = field_string(L, 1, "doc");
    d->origin = field_string(L, 1, "origin");
    d->nq = field_int(L, 1, "nq");
    d->n_constraints = field_int(L, 1, "n_constraints");
    lua_getfield(L, 1, "mass_constant");
    d->mass_constant = lua_toboolean(L, -1);
    lua_getfield(L, 1, "has_initial");
    d->has_initial = lua_toboolean(L, -1);
    lua_getfield(L, 1, "constraints_quadratic");
    d->quadratic = lua_toboolean(L, -1);
    lua_pop(L, 3);
    if (!d->name || !d->doc || !d->origin || read_params(L, 1, d) != 0 ||
        read_invariant_names(L, 1, d) != 0)
        return luaL_error(L, "out of memory");
    char description[512];
    snprintf(description, sizeof description, "defined in Lua at %s", d->origin);
    if (!(d->description = strdup(description)))
        return luaL_error(L, "out of memory");
    d->thread = lua_newthread(L);
    d->thread_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getfield(L, 1, "instance");
    d->factory_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    d->slot = slot;
    build_class(d);
    slots[slot] = d;
    char origin[600];
    snprintf(origin, sizeof origin, "%s (Lua)", d->origin);
    host_clear_error();
    d->registered = plugins_register(&d->entry, origin);
    if (!d->registered) {
        lua_pushnil(L);
        lua_pushstring(L, host_last_error());
        return 2; /* the box's finalizer frees the definition and its slot */
    }
    /* kept until the state closes: the module's list of definitions */
    lua_getfield(L, LUA_REGISTRYINDEX, DEFINITION_TYPE ".all");
    lua_pushvalue(L, 2);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    lua_pushboolean(L, 1);
    return 1;
}

/* ---- raising a model function's error where the script called in -------------------- */

void lua_model_definition_raise_pending(lua_State *L)
{
    const char *message = lua_model_definition_take_error();
    if (message)
        luaL_error(L, "%s", message);
}

/* Every method of the model object (m:potential(q), ...) raises the error
 * of a Lua-defined model function it called. */
static int guarded_method(lua_State *L)
{
    lua_model_definition_clear_error();
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    lua_model_definition_raise_pending(L);
    return lua_gettop(L);
}

static void guard_model_methods(lua_State *L)
{
    luaL_getmetatable(L, LUA_MODEL_TYPE);
    lua_getfield(L, -1, "methods");
    int methods = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, methods)) {
        if (lua_iscfunction(L, -1)) {
            lua_pushcclosure(L, guarded_method, 1);
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, methods);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 2);
}

/* ---- wb.check_model: the command line's checker, handed in by the host ------------- */

static lua_model_checker model_checker;

void lua_set_model_checker(lua_model_checker checker) { model_checker = checker; }

/* wb.check_model(m [, tol]) -> number of failed checks (the table printed) */
static int check_model_from_lua(lua_State *L)
{
    lua_model *lm = lua_check_model(L, 1);
    double tol = luaL_optnumber(L, 2, 1e-6);
    if (!model_checker)
        return luaL_error(L, "wb.check_model: not available in this host");
    fflush(stdout);
    lua_model_definition_clear_error();
    int failures = model_checker(lm->instance, stdout, tol);
    fflush(stdout);
    lua_model_definition_raise_pending(L);
    lua_pushinteger(L, failures);
    return 1;
}

void lua_model_definition_register(lua_State *L)
{
    luaL_newmetatable(L, DEFINITION_TYPE);
    lua_pushcfunction(L, definition_gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, DEFINITION_TYPE ".all");
    guard_model_methods(L);
    lua_pushcfunction(L, register_model);
    lua_setfield(L, -2, "_register_model");
    lua_pushcfunction(L, check_model_from_lua);
    lua_setfield(L, -2, "check_model");
}
