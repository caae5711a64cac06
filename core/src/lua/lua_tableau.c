/* wb.tableau: tableaux from Lua tables, generators, named methods,
 * composition, and the checks (order, symplecticity, symmetry,
 * stability function, simplifying assumptions). */
#include "lua/lua_api.h"
#include "host/host.h"
#include "host/tableau.h"
#include "host/tableau_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* NULL for a value of another type; a finalized tableau is an error, not
 * "not a tableau": its caller would otherwise read the NULL it holds. */
lua_tableau *lua_test_tableau(lua_State *L, int idx)
{
    lua_tableau *lt = luaL_testudata(L, idx, LUA_TABLEAU_TYPE);
    if (lt && !lt->tableau)
        luaL_error(L, "this tableau has already been finalized");
    return lt;
}

static const wb_tableau *check_tableau(lua_State *L, int idx)
{
    lua_tableau *lt = luaL_checkudata(L, idx, LUA_TABLEAU_TYPE);
    if (!lt->tableau)
        luaL_error(L, "this tableau has already been finalized");
    return lt->tableau;
}

/* An empty tableau object, pushed: it exists (with its __gc) before the
 * tableau it will hold, so that no Lua error can strand a reference. */
static lua_tableau *new_object(lua_State *L)
{
    lua_tableau *lt = lua_newuserdatauv(L, sizeof *lt, 0);
    lt->tableau = NULL;
    luaL_setmetatable(L, LUA_TABLEAU_TYPE);
    return lt;
}

void lua_push_tableau(lua_State *L, const wb_tableau *t)
{
    lua_tableau *lt = new_object(L);
    tableau_retain(t);
    lt->tableau = t;
}

/* The object at `object` takes over the new reference t (the result of a
 * tableau_* call), and goes to the top; or the host's error is raised. */
static int adopt_or_raise(lua_State *L, int object, const wb_tableau *t)
{
    if (!t)
        return lua_host_error(L);
    ((lua_tableau *)lua_touserdata(L, object))->tableau = t;
    lua_pushvalue(L, object);
    return 1;
}

/* A built-in tableau: borrowed, nothing to adopt. */
static int push_or_raise(lua_State *L, const wb_tableau *t)
{
    if (!t)
        return lua_host_error(L);
    lua_push_tableau(L, t);
    return 1;
}

static int tableau_gc(lua_State *L)
{
    lua_tableau *lt = luaL_checkudata(L, 1, LUA_TABLEAU_TYPE);
    tableau_release(lt->tableau);
    lt->tableau = NULL;
    return 0;
}

/* ---- construction from Lua tables ----------------------------------------------- */

static int field_length(lua_State *L, int idx, const char *field)
{
    lua_getfield(L, idx, field);
    int n = lua_istable(L, -1) ? (int)lua_rawlen(L, -1) : -1;
    lua_pop(L, 1);
    return n;
}

static void read_numbers(lua_State *L, int table, int n, double *out, const char *name,
                         const char *what)
{
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, table, i + 1);
        if (!lua_isnumber(L, -1))
            luaL_error(L, "tableau '%s': %s entry %d must be a number, got %s", name, what,
                       i + 1, luaL_typename(L, -1));
        out[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
}

/* Square matrix field `field` of size s x s (rows as tables). */
static void read_matrix(lua_State *L, int idx, const char *field, int s, double *out,
                        const char *name)
{
    lua_getfield(L, idx, field);
    int table = lua_gettop(L);
    for (int i = 0; i < s; i++) {
        lua_rawgeti(L, table, i + 1);
        if (!lua_istable(L, -1))
            luaL_error(L, "tableau '%s': %s row %d must be a table of %d numbers", name, field,
                       i + 1, s);
        int len = (int)lua_rawlen(L, -1);
        if (len != s)
            luaL_error(L, "tableau '%s': %s must be square: row %d has %d entries, expected %d",
                       name, field, i + 1, len, s);
        char what[32];
        snprintf(what, sizeof what, "%s row %d", field, i + 1);
        read_numbers(L, lua_gettop(L), s, out + (size_t)i * s, name, what);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

static void read_vector_field(lua_State *L, int idx, const char *field, int s, double *out,
                              const char *name)
{
    int n = field_length(L, idx, field);
    if (n != s)
        luaL_error(L, "tableau '%s': %s has %d entries, but a is %dx%d", name, field,
                   n < 0 ? 0 : n, s, s);
    lua_getfield(L, idx, field);
    read_numbers(L, lua_gettop(L), s, out, name, field);
    lua_pop(L, 1);
}

/* wb.tableau{a=, b=, c=, a2=, b2=, c2=, name=} -> T [, warning] */
static int tableau_new(lua_State *L)
{
    int idx = 2; /* called as wb.tableau{...}: argument 1 is the wb.tableau table */
    luaL_checktype(L, idx, LUA_TTABLE);
    char name[64]; /* a copy: the string on the stack may be collected */
    lua_getfield(L, idx, "name");
    tableau_copy_name(name, sizeof name, luaL_optstring(L, -1, "user"));
    lua_pop(L, 1);
    int s = field_length(L, idx, "a");
    if (s < 1)
        return luaL_error(L, "tableau '%s': field a must be a non-empty table of rows", name);
    if (s > TABLEAU_MAX_STAGES)
        return luaL_error(L, "tableau '%s': %d stages exceed the limit of %d", name, s,
                          TABLEAU_MAX_STAGES);
    int pair = field_length(L, idx, "a2") >= 0;
    new_object(L);
    int object = lua_gettop(L);
    double *mem = lua_newuserdatauv(L, sizeof(double) * (size_t)(2 * s * s + 4 * s), 0);
    double *a = mem, *b = a + s * s, *c = b + s, *a2 = c + s, *b2 = a2 + s * s, *c2 = b2 + s;
    read_matrix(L, idx, "a", s, a, name);
    read_vector_field(L, idx, "b", s, b, name);
    int has_c = field_length(L, idx, "c") >= 0, has_c2 = 0;
    if (has_c)
        read_vector_field(L, idx, "c", s, c, name);
    if (pair) {
        if (field_length(L, idx, "a2") != s)
            return luaL_error(L, "tableau '%s': the pair's a2 has %d rows, a has %d", name,
                              field_length(L, idx, "a2"), s);
        read_matrix(L, idx, "a2", s, a2, name);
        if (field_length(L, idx, "b2") >= 0)
            read_vector_field(L, idx, "b2", s, b2, name);
        else
            memcpy(b2, b, (size_t)s * sizeof(double));
        has_c2 = field_length(L, idx, "c2") >= 0;
        if (has_c2)
            read_vector_field(L, idx, "c2", s, c2, name);
    }
    char warning[512];
    const wb_tableau *t = tableau_create(name, s, a, b, has_c ? c : NULL, pair ? a2 : NULL,
                                         pair ? b2 : NULL, has_c2 ? c2 : NULL, warning,
                                         sizeof warning);
    adopt_or_raise(L, object, t);
    if (!warning[0])
        return 1;
    host_warn("%s", warning); /* shown, and returned so that scripts can test it */
    lua_pushstring(L, warning);
    return 2;
}

/* wb.tableau.load(path) -> T [, warning]: a tableau file, parsed by the
 * arithmetic grammar of host/tableau_file.h. */
static int tableau_load(lua_State *L)
{
    const char *path = lua_check_file_name(L, 1, "wb.tableau.load");
    lua_settop(L, 1);
    new_object(L);
    char warning[512];
    const wb_tableau *t = tableau_load_file(path, warning, sizeof warning);
    adopt_or_raise(L, 2, t);
    if (!warning[0])
        return 1;
    host_warn("%s", warning);
    lua_pushstring(L, warning);
    return 2;
}

/* ---- generators ------------------------------------------------------------------- */

/* A stage count or an order: an integer of the argument, not its low bits. */
static int small_integer(lua_State *L, int arg)
{
    lua_Integer k = luaL_checkinteger(L, arg);
    luaL_argcheck(L, k >= -1000 && k <= 1000, arg, "out of range");
    return (int)k;
}

static int tableau_generated(lua_State *L)
{
    const char *family = lua_tostring(L, lua_upvalueindex(1));
    int s = small_integer(L, 1);
    return push_or_raise(L, tableau_family(family, s));
}

static int tableau_family_call(lua_State *L)
{
    return push_or_raise(L, tableau_family(luaL_checkstring(L, 1), small_integer(L, 2)));
}

static int tableau_by_name(lua_State *L)
{
    return push_or_raise(L, tableau_named(luaL_checkstring(L, 1)));
}

/* wb.tableau.compose(base, {gamma...} [, name]) */
static int tableau_compose_call(lua_State *L)
{
    const wb_tableau *base = check_tableau(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_optstring(L, 3, "");
    lua_settop(L, 3); /* arguments below, work memory above */
    int n = (int)lua_rawlen(L, 2);
    if (n < 1)
        return luaL_error(L, "tableau.compose: need at least one sub-step weight");
    double *gamma = lua_newuserdatauv(L, sizeof(double) * (size_t)n, 0);
    read_numbers(L, 2, n, gamma, base->name, "gamma");
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += gamma[i];
    if (fabs(sum - 1.0) > 1e-12)
        return lua_raise_error(L, "tableau.compose: the sub-step weights sum to %.17g, not 1",
                               sum);
    char name[128];
    snprintf(name, sizeof name, "%s", luaL_optstring(L, 3, ""));
    if (!name[0])
        snprintf(name, sizeof name, "%s_x%d", base->name, n);
    new_object(L);
    return adopt_or_raise(L, lua_gettop(L), tableau_compose(base, n, gamma, name));
}

/* Yoshida's triple jump (3 sub-steps) or Suzuki's fractal (5) on a symmetric
 * base method of even order p: raises the order to p + 2. */
static int compose_symmetric(lua_State *L, int substeps)
{
    const wb_tableau *base = check_tableau(L, 1);
    if (tableau_symmetry_defect(base) > 1e-12)
        return luaL_error(L, "tableau '%s' is not symmetric: a symmetric composition raises "
                             "the order only for a symmetric base method", base->name);
    int p = base->order; /* beyond the tree conditions' 8, from B, C, D */
    if (p % 2)
        return luaL_error(L, "tableau '%s' has odd order %d; a symmetric method has even order",
                          base->name, p);
    double root = pow(substeps - 1.0, 1.0 / (p + 1.0));
    double outer = 1.0 / (substeps - 1.0 - root), gamma[5];
    for (int i = 0; i < substeps; i++)
        gamma[i] = outer;
    gamma[substeps / 2] = 1.0 - (substeps - 1) * outer;
    char name[128];
    snprintf(name, sizeof name, "%s_%s", base->name, substeps == 3 ? "triple_jump" : "suzuki");
    new_object(L);
    return adopt_or_raise(L, lua_gettop(L), tableau_compose(base, substeps, gamma, name));
}

static int tableau_triple_jump(lua_State *L) { return compose_symmetric(L, 3); }
static int tableau_suzuki(lua_State *L) { return compose_symmetric(L, 5); }

/* ---- the tableau object ---------------------------------------------------------- */

/* T:order(): the tree conditions up to 8 (6 for a pair) and, at that cap,
 * Butcher's bound from B, C, D; T:order(tol) the tree conditions alone at
 * tolerance tol. */
static int tableau_order_method(lua_State *L)
{
    const wb_tableau *t = check_tableau(L, 1);
    if (lua_isnoneornil(L, 2)) {
        lua_pushinteger(L, t->order);
        return 1;
    }
    double tol = luaL_checknumber(L, 2);
    lua_pushinteger(L, t->a2 ? tableau_pair_order(t, tol) : tableau_order(t, tol));
    return 1;
}

static int tableau_is_symplectic(lua_State *L)
{
    const wb_tableau *t = check_tableau(L, 1);
    double defect = tableau_symplecticity_defect(t);
    lua_pushboolean(L, defect <= luaL_optnumber(L, 2, 1e-12));
    lua_pushnumber(L, defect);
    return 2;
}

static int tableau_is_symmetric(lua_State *L)
{
    const wb_tableau *t = check_tableau(L, 1);
    double defect = tableau_symmetry_defect(t);
    lua_pushboolean(L, defect <= luaL_optnumber(L, 2, 1e-12));
    lua_pushnumber(L, defect);
    return 2;
}

/* T:stability(re [, im]) -> re, im of R(z). */
static int tableau_stability_method(lua_State *L)
{
    const wb_tableau *t = check_tableau(L, 1);
    double re = luaL_checknumber(L, 2), im = luaL_optnumber(L, 3, 0), out_re, out_im;
    tableau_stability(t, re, im, &out_re, &out_im);
    lua_pushnumber(L, out_re);
    lua_pushnumber(L, out_im);
    return 2;
}

static int tableau_defect(lua_State *L)
{
    const wb_tableau *t = check_tableau(L, 1);
    int k = small_integer(L, 2);
    const char *which = lua_tostring(L, lua_upvalueindex(1));
    double d = which[0] == 'B' ? tableau_defect_B(t, k)
               : which[0] == 'C' ? tableau_defect_C(t, k)
                                 : tableau_defect_D(t, k);
    lua_pushnumber(L, d);
    return 1;
}

static int tableau_index(lua_State *L)
{
    const wb_tableau *t = check_tableau(L, 1);
    const char *key = luaL_checkstring(L, 2);
    if (strcmp(key, "s") == 0)
        lua_pushinteger(L, t->s);
    else if (strcmp(key, "name") == 0)
        lua_pushstring(L, t->name);
    else if (strcmp(key, "a") == 0)
        lua_push_matrix(L, t->s, t->s, t->a);
    else if (strcmp(key, "b") == 0)
        lua_push_vector(L, t->s, t->b);
    else if (strcmp(key, "c") == 0)
        lua_push_vector(L, t->s, t->c);
    else if (strcmp(key, "a2") == 0 && t->a2)
        lua_push_matrix(L, t->s, t->s, t->a2);
    else if (strcmp(key, "b2") == 0 && t->a2)
        lua_push_vector(L, t->s, t->b2);
    else if (strcmp(key, "c2") == 0 && t->a2)
        lua_push_vector(L, t->s, t->c2);
    else if (strcmp(key, "is_pair") == 0)
        lua_pushboolean(L, t->a2 != NULL);
    else {
        luaL_getmetafield(L, 1, "methods");
        lua_getfield(L, -1, key);
    }
    return 1;
}

/* wb.tableau._live(): user tableaux alive now (a test of their lifetimes) */
static int tableau_live(lua_State *L)
{
    lua_pushinteger(L, tableau_user_count());
    return 1;
}

static int tableau_tostring(lua_State *L)
{
    const wb_tableau *t = check_tableau(L, 1);
    lua_pushfstring(L, "tableau %s (%d stages%s)", t->name, t->s, t->a2 ? ", pair" : "");
    return 1;
}

static int tableau_eq(lua_State *L)
{
    lua_pushboolean(L, check_tableau(L, 1) == check_tableau(L, 2));
    return 1;
}

void lua_tableau_register(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"order", tableau_order_method},
        {"is_symplectic", tableau_is_symplectic},
        {"is_symmetric", tableau_is_symmetric},
        {"stability", tableau_stability_method},
        {NULL, NULL},
    };
    luaL_newmetatable(L, LUA_TABLEAU_TYPE);
    lua_pushcfunction(L, tableau_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0); /* getmetatable(T) is false: no script reaches __gc */
    lua_setfield(L, -2, "__metatable");
    lua_pushcfunction(L, tableau_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, tableau_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, tableau_eq);
    lua_setfield(L, -2, "__eq");
    luaL_newlib(L, methods);
    static const char *const defects[] = {"B", "C", "D"};
    for (int i = 0; i < 3; i++) {
        char name[16];
        lua_pushstring(L, defects[i]);
        lua_pushcclosure(L, tableau_defect, 1);
        snprintf(name, sizeof name, "defect_%s", defects[i]);
        lua_setfield(L, -2, name);
    }
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);

    /* the wb.tableau table: callable, with generators */
    lua_newtable(L);
    for (const char *const *f = tableau_family_names(); *f; f++) {
        lua_pushstring(L, *f);
        lua_pushcclosure(L, tableau_generated, 1);
        lua_setfield(L, -2, *f);
    }
    static const luaL_Reg functions[] = {
        /* wb.tableau.order(T) and friends: the methods as functions */
        {"order", tableau_order_method},
        {"is_symplectic", tableau_is_symplectic},
        {"is_symmetric", tableau_is_symmetric},
        {"stability", tableau_stability_method},
        {"family", tableau_family_call},
        {"named", tableau_by_name},
        {"compose", tableau_compose_call},
        {"load", tableau_load},
        {"_live", tableau_live},
        {"triple_jump", tableau_triple_jump},
        {"suzuki", tableau_suzuki},
        {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, tableau_new);
    lua_setfield(L, -2, "__call");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, "tableau");
}
