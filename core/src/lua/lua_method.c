/* wb.method(name, options) and the method object. */
#include "lua/lua_api.h"
#include "host/descriptor.h"
#include "host/host.h"

#include <math.h>
#include <string.h>

lua_method *lua_check_method(lua_State *L, int idx)
{
    lua_method *lm = luaL_checkudata(L, idx, LUA_METHOD_TYPE);
    if (!lm->config) /* used from a finalizer after its own __gc ran */
        luaL_error(L, "this method has already been finalized");
    return lm;
}

static void set_option(lua_State *L, method_config *cfg, int value_idx, const char *key)
{
    int index = method_config_find(cfg, key);
    if (index < 0)
        lua_host_error(L);
    int status;
    lua_tableau *lt;
    switch (lua_type(L, value_idx)) {
    case LUA_TNUMBER:
        status = method_config_set_number(cfg, index, lua_tonumber(L, value_idx));
        break;
    case LUA_TBOOLEAN:
        status = method_config_set_boolean(cfg, index, lua_toboolean(L, value_idx));
        break;
    case LUA_TSTRING:
        status = method_config_set_string(cfg, index, lua_tostring(L, value_idx));
        break;
    default:
        if ((lt = lua_test_tableau(L, value_idx))) {
            status = method_config_set_tableau(cfg, index, lt->tableau);
            break;
        }
        {
            char name[256], got[64];
            method_config_name(cfg, name, sizeof name);
            snprintf(got, sizeof got, "a %s", luaL_typename(L, value_idx));
            host_error("method '%s': option '%s' cannot be %s", name, key, got);
            status = -1;
        }
    }
    if (status != 0)
        lua_host_error(L);
}

/* The userdata comes first, empty: if Lua cannot allocate it, no C object
 * is stranded; once it exists, its __gc frees whatever it holds. */
static lua_method *push_method(lua_State *L, const plugin *family, const wb_method *method)
{
    lua_method *lm = lua_newuserdatauv(L, sizeof *lm, 0);
    lm->config = NULL;
    luaL_setmetatable(L, LUA_METHOD_TYPE);
    lm->config = method_config_create(family, method);
    if (!lm->config)
        lua_host_error(L);
    return lm;
}

static void apply_options(lua_State *L, int idx, method_config *cfg)
{
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            char name[256];
            method_config_name(cfg, name, sizeof name);
            luaL_error(L, "method '%s': option names must be strings", name);
        }
        set_option(L, cfg, lua_gettop(L), lua_tostring(L, -2));
        lua_pop(L, 1);
    }
}

static int method_new(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 2);
    const plugin *family;
    const wb_method *m = plugins_find_method(name, &family);
    if (!m)
        return lua_host_error(L);
    method_config *cfg = push_method(L, family, m)->config;
    apply_options(L, 2, cfg);
    if (method_config_validate(cfg) != 0)
        return lua_host_error(L);
    return 1;
}

/* m:with{options}: a copy with some options changed. */
static int method_with(lua_State *L)
{
    lua_method *src = lua_check_method(L, 1);
    lua_settop(L, 2);
    method_config *cfg = push_method(L, src->config->family, src->config->method)->config;
    const wb_method *m = cfg->method;
    for (uint32_t i = 0; i < m->n_options; i++) {
        const wb_option_value *v = &src->config->values[i];
        switch (descriptor_option(m, i)->type) {
        case WB_OPT_CHOICE:
        case WB_OPT_STRING:
            method_config_set_string(cfg, (int)i, v->string);
            break;
        case WB_OPT_TABLEAU:
            method_config_set_tableau(cfg, (int)i, v->tableau);
            break;
        default:
            cfg->values[i].number = v->number;
        }
        cfg->given[i] = src->config->given[i]; /* what the original was given stays given */
    }
    apply_options(L, 2, cfg);
    if (method_config_validate(cfg) != 0)
        return lua_host_error(L);
    return 1;
}

/* m:applies_to(model) -> true, or false and the reason. */
static int method_applies_to(lua_State *L)
{
    lua_method *lm = lua_check_method(L, 1);
    lua_model *model = lua_check_model(L, 2);
    if (integrator_check_compatible(lm->config, model->instance) == 0) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_pushstring(L, host_last_error());
    return 2;
}

static void push_properties(lua_State *L, uint32_t flags);

/* m:describe_for(model) -> {order =, multiplier_order =, properties =}: the
 * claims at these options on this model (they differ from m.order and
 * m.properties where the method says they depend on the model). */
static int method_describe_for(lua_State *L)
{
    lua_method *lm = lua_check_method(L, 1);
    lua_model *model = lua_check_model(L, 2);
    wb_method_props props = method_config_props_for(lm->config, model->instance);
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, props.order);
    lua_setfield(L, -2, "order");
    lua_pushinteger(L, props.multiplier_order);
    lua_setfield(L, -2, "multiplier_order");
    push_properties(L, props.flags);
    lua_setfield(L, -2, "properties");
    return 1;
}

static int method_gc(lua_State *L)
{
    lua_method *lm = luaL_checkudata(L, 1, LUA_METHOD_TYPE);
    method_config_destroy(lm->config);
    lm->config = NULL;
    return 0;
}

static void push_option_value(lua_State *L, const wb_option_spec *o, const wb_option_value *v)
{
    switch (o->type) {
    case WB_OPT_NUMBER:
        lua_pushnumber(L, v->number);
        break;
    case WB_OPT_INTEGER:
        if (fabs(v->number) < 9007199254740992.0) /* exact, and the cast is defined */
            lua_pushinteger(L, (lua_Integer)v->number);
        else
            lua_pushnumber(L, v->number);
        break;
    case WB_OPT_BOOLEAN:
        lua_pushboolean(L, v->number != 0);
        break;
    case WB_OPT_TABLEAU:
        lua_push_tableau(L, v->tableau);
        break;
    default:
        lua_pushstring(L, v->string ? v->string : "");
    }
}

static void push_properties(lua_State *L, uint32_t flags)
{
    lua_newtable(L);
    for (const method_property *p = method_properties; p->bit; p++) {
        lua_pushboolean(L, (flags & p->bit) != 0);
        lua_setfield(L, -2, p->key);
    }
}

/* Fields: name ("family.method"), family, method, doc, options, order,
 * multiplier_order, properties, order_doc; otherwise the methods. */
static int method_index(lua_State *L)
{
    lua_method *lm = lua_check_method(L, 1);
    const method_config *cfg = lm->config;
    const wb_method *m = cfg->method;
    const char *key = luaL_checkstring(L, 2);
    if (strcmp(key, "name") == 0) {
        char name[256];
        method_config_name(cfg, name, sizeof name);
        lua_pushstring(L, name);
    } else if (strcmp(key, "family") == 0) {
        lua_pushstring(L, cfg->family->entry->name);
    } else if (strcmp(key, "method") == 0) {
        lua_pushstring(L, m->name);
    } else if (strcmp(key, "doc") == 0) {
        lua_pushstring(L, m->doc ? m->doc : "");
    } else if (strcmp(key, "order_doc") == 0) {
        lua_pushstring(L, m->order_doc ? m->order_doc : "");
    } else if (strcmp(key, "options") == 0) {
        lua_createtable(L, 0, (int)m->n_options);
        for (uint32_t i = 0; i < m->n_options; i++) {
            push_option_value(L, descriptor_option(m, i), &cfg->values[i]);
            lua_setfield(L, -2, descriptor_option(m, i)->name);
        }
    } else if (strcmp(key, "order") == 0 || strcmp(key, "multiplier_order") == 0) {
        wb_method_props props = method_config_props(cfg);
        lua_pushinteger(L, key[0] == 'o' ? props.order : props.multiplier_order);
    } else if (strcmp(key, "properties") == 0) {
        push_properties(L, method_config_props(cfg).flags);
    } else {
        luaL_getmetafield(L, 1, "methods");
        lua_getfield(L, -1, key);
    }
    return 1;
}

static int method_tostring(lua_State *L)
{
    char name[256];
    method_config_name(lua_check_method(L, 1)->config, name, sizeof name);
    lua_pushfstring(L, "method %s", name);
    return 1;
}

void lua_method_register(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"with", method_with},
        {"applies_to", method_applies_to},
        {"describe_for", method_describe_for},
        {NULL, NULL},
    };
    luaL_newmetatable(L, LUA_METHOD_TYPE);
    lua_pushboolean(L, 0); /* getmetatable(x) is false: no script reaches __gc */
    lua_setfield(L, -2, "__metatable");
    lua_pushcfunction(L, method_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, method_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, method_tostring);
    lua_setfield(L, -2, "__tostring");
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);
    lua_pushcfunction(L, method_new);
    lua_setfield(L, -2, "method");
}
