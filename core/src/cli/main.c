/* The `workbench` command: run scripts, list and inspect plugins, check
 * models. */
#include "cli/check_model.h"
#include "cli/sweep_command.h"
#include "host/descriptor.h"
#include "host/host.h"
#include "lua/lua_api.h"
#include "run/integrator_instance.h"
#include "run/output.h"
#include "host/plugins.h"
#include "host/tableau.h"

#include <errno.h>
#include <lualib.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const char workbench_lua_source[];
extern const unsigned long workbench_lua_source_size;

static const char usage[] =
    "usage: workbench [options] SCRIPT.lua [ARGS...]\n"
    "       workbench [options] COMMAND ...\n"
    "\n"
    "Runs Lua experiment scripts against integrator and model plugins.\n"
    "\n"
    "commands:\n"
    "  SCRIPT.lua [ARGS...]     run a script (the module is the global `wb`);\n"
    "                           its arguments are in `arg` and wb.args\n"
    "  list                     every plugin, method, option, parameter and\n"
    "                           claimed property; the search path; refused files\n"
    "  info NAME [OPTION=VALUE...]\n"
    "                           one model, family or method: options with the\n"
    "                           properties each changes, parameters, dimensions;\n"
    "                           a method's claims at the options given\n"
    "  check-model NAME|SCRIPT.lua [NAME] [PARAM=VALUE...] [--tol T]\n"
    "                           a model's derivatives against finite differences\n"
    "                           and its structure (check-model --help)\n"
    "  check-method NAME [OPTION=VALUE...] [--quick] [--model M]...\n"
    "                           every claim of a method measured on every model\n"
    "                           it applies to (check-method --help)\n"
    "  sweep [flags] SCRIPT.lua [ARGS...]\n"
    "                           a script's wb.sweep here, for GNU parallel or as\n"
    "                           a Slurm job array (sweep --help)\n"
    "  help [lua]               this text; `help lua` prints the Lua API\n"
    "                           reference (docs/lua-api.md)\n"
    "\n"
    "options (before the command):\n"
    "  --plugin-path DIR   search DIR for plugins first (repeatable); a .so file:\n"
    "                      load that one file (e.g. one build of a compiled model)\n"
    "  --output-dir DIR    write relative output paths under DIR\n"
    "                      (default: $WORKBENCH_OUTPUT_DIR or the current folder)\n"
    "  -v, --verbose       log plugin loading and solver details\n"
    "  -h, --help          this text\n"
    "  --version           the version and the plugin ABI\n"
    "\n"
    "script arguments the workbench reads:\n"
    "  --quick             wb.quick = true: reproduction scripts run their short\n"
    "                      version (the test suite's mode)\n"
    "\n"
    "environment: WORKBENCH_PLUGIN_PATH (colon-separated plugin folders),\n"
    "             WORKBENCH_OUTPUT_DIR, WORKBENCH_NO_PROGRESS (no progress lines),\n"
    "             WORKBENCH_CACHE_DIR (wb.compile_model's plugins, plugin verdicts), CC,\n"
    "             WORKBENCH_PROBE_TIMEOUT (seconds a first plugin load may take),\n"
    "             WORKBENCH_COMPILE_TIMEOUT (seconds wb.compile_model's compiler may\n"
    "             take, default 300)\n"
    "\n"
    "A script's exit status is non-zero when it raises an error or when one of\n"
    "its checks (wb.check, wb.expect_near, ...) fails.\n";

extern const char workbench_lua_api_doc[];
extern const unsigned long workbench_lua_api_doc_size;

static int command_help(int argc, char **argv)
{
    if (argc < 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(argv[0], "lua") == 0) {
        fwrite(workbench_lua_api_doc, 1, workbench_lua_api_doc_size, stdout);
        return 0;
    }
    fprintf(stderr, "workbench: help: no topic '%s' (topics: lua; or a command's --help: "
                    "check-model, check-method, sweep)\n", argv[0]);
    return 2;
}

/* ---- running scripts ------------------------------------------------------------ */

static lua_State *running_state;

static void interrupt_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted");
}

static void on_second_interrupt(int sig)
{
    atomic_remove_temporaries_now();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_interrupt(int sig)
{
    signal(sig, on_second_interrupt); /* a second Ctrl-C kills outright */
    driver_request_interrupt();
    if (running_state)
        lua_sethook(running_state, interrupt_hook,
                    LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static int traceback(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg)
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int lua_workbench_prelude(lua_State *L)
{
    if (luaL_loadbuffer(L, workbench_lua_source, workbench_lua_source_size, "=workbench.lua") != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
    return 0;
}

static int open_module(lua_State *L)
{
    luaopen_workbench(L);
    lua_workbench_prelude(L);
    return 1;
}

static lua_State *new_state(void)
{
    lua_State *L = luaL_newstate();
    if (!L)
        return NULL;
    lua_set_model_checker(check_model);
    luaL_openlibs(L);
    luaL_requiref(L, "workbench", open_module, 1);
    lua_pop(L, 1);
    return L;
}

static void set_arguments(lua_State *L, const char *script, int argc, char **argv)
{
    lua_createtable(L, argc, 1);
    lua_pushstring(L, script);
    lua_rawseti(L, -2, 0);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");
    lua_getglobal(L, "wb");
    lua_getfield(L, -1, "_set_args");
    lua_createtable(L, argc, 0);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_call(L, 1, 0);
    lua_pop(L, 1);
}

static int summary(lua_State *L)
{
    lua_getglobal(L, "wb");
    lua_getfield(L, -1, "_summary");
    if (lua_pcall(L, 0, 1, 0) != LUA_OK)
        return 1;
    int failed = (int)lua_tointeger(L, -1);
    lua_pop(L, 2);
    return failed;
}

/* sweep: NULL, or how the script's wb.sweep runs (`workbench sweep`). */
static int run_script(const char *script, int argc, char **argv, const lua_sweep_mode *sweep)
{
    lua_State *L = new_state();
    if (!L) {
        fprintf(stderr, "workbench: cannot create a Lua state\n");
        return 1;
    }
    set_arguments(L, script, argc, argv);
    if (sweep)
        lua_sweep_set_mode(L, sweep);
    running_state = L;
    signal(SIGINT, on_interrupt);
    lua_pushcfunction(L, traceback);
    int status = luaL_loadfile(L, script);
    if (status == LUA_OK)
        status = lua_pcall(L, 0, 0, 1);
    running_state = NULL;
    signal(SIGINT, SIG_DFL);
    int failed = summary(L);
    if (status != LUA_OK) {
        fprintf(stderr, "workbench: %s\n", lua_tostring(L, -1));
        atomic_abort_all();
    }
    lua_close(L);
    return status != LUA_OK || failed > 0 ? 1 : 0;
}

/* ---- list / info ------------------------------------------------------------------- */

static const char *option_type_name(int type)
{
    static const char *const names[] = {"?", "number", "integer", "boolean", "choice",
                                        "tableau", "string"};
    return type >= 1 && type <= 6 ? names[type] : "?";
}

static void print_option(const wb_option_spec *o)
{
    printf("      %-12s %-8s ", o->name, option_type_name(o->type));
    switch (o->type) {
    case WB_OPT_NUMBER:
    case WB_OPT_INTEGER:
        printf("default %-10s range [%s, %s]", host_number(o->default_number).text,
               host_number(o->min).text, host_number(o->max).text);
        break;
    case WB_OPT_BOOLEAN:
        printf("default %s", o->default_number != 0 ? "true" : "false");
        break;
    case WB_OPT_CHOICE:
        printf("default %-10s one of %s", o->default_string, o->choices);
        break;
    default:
        printf("default %s", o->default_string);
    }
    printf("\n        %s\n", o->doc ? o->doc : "");
}

static void print_flags(uint32_t flags)
{
    int first = 1;
    for (const method_property *p = method_properties; p->bit; p++)
        if (flags & p->bit) {
            printf("%s%s", first ? "" : ", ", p->label);
            first = 0;
        }
    if (first)
        printf("none claimed");
}

static const char *aux_time_name(int time)
{
    switch (time) {
    case WB_AUX_AT_NODE: return "at nodes";
    case WB_AUX_ON_INTERVAL: return "per interval";
    case WB_AUX_AT_OFFSET: return "at a fraction of the step";
    }
    return "?";
}

static void print_aux(const wb_method *m, uint32_t i)
{
    const wb_aux_spec *a = descriptor_aux(m, i);
    int unrecorded = (descriptor_aux_flags(m, i) & WB_AUX_UNRECORDED) != 0;
    printf("      carries %-8s (%s%s) %s\n", a->name, aux_time_name(a->time),
           unrecorded ? ", state only" : "", a->doc ? a->doc : "");
}

/* One option's value as text, for messages. */
static void option_text(const wb_option_spec *o, const wb_option_value *v, char *out, size_t n)
{
    switch (o->type) {
    case WB_OPT_NUMBER:
    case WB_OPT_INTEGER:
        snprintf(out, n, "%g", v->number);
        break;
    case WB_OPT_BOOLEAN:
        snprintf(out, n, "%s", v->number != 0 ? "true" : "false");
        break;
    case WB_OPT_TABLEAU:
        snprintf(out, n, "%s", v->tableau ? v->tableau->name : "?");
        break;
    default:
        snprintf(out, n, "%s", v->string ? v->string : "");
    }
}

/* A configuration with option i set to a candidate value (by index into
 * the candidates of its type); NULL when there is no such candidate or the
 * method refuses it. */
static method_config *variant(const plugin *fam, const wb_method *m, uint32_t i, int k)
{
    static const char *const tableaux[] = {"gauss1", "gauss3", "radau_iia2", "lobatto_iiia3",
                                           "lobatto_iiia_iiib3", "rk4", "euler", NULL};
    const wb_option_spec *o = descriptor_option(m, i);
    method_config *cfg = method_config_create(fam, m);
    if (!cfg)
        return NULL;
    int status = -1;
    if (o->type == WB_OPT_BOOLEAN && k == 0) {
        status = method_config_set_boolean(cfg, (int)i, o->default_number == 0);
    } else if (o->type == WB_OPT_CHOICE) {
        const char *p = o->choices;
        for (int j = 0; p && j < k; j++)
            p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
        if (p && *p) {
            char word[64];
            size_t len = strcspn(p, "|");
            snprintf(word, sizeof word, "%.*s", (int)len, p);
            if (strcmp(word, o->default_string) != 0)
                status = method_config_set_string(cfg, (int)i, word);
        }
    } else if ((o->type == WB_OPT_INTEGER || o->type == WB_OPT_NUMBER) && k < 6) {
        double d = o->default_number;
        double top = o->max < 1e6 ? o->max : d + 8;
        double integers[6] = {d + 1, d + 2, d + 4, d - 1, o->min, top};
        double numbers[6] = {o->min, top, 0.5 * (o->min + d), 0.5 * (d + top), 2 * d, 0.5 * d};
        double x = o->type == WB_OPT_INTEGER ? integers[k] : numbers[k];
        if (x >= o->min && x <= o->max && x != d && isfinite(x))
            status = method_config_set_number(cfg, (int)i, x);
    } else if (o->type == WB_OPT_TABLEAU && k < 7) {
        const wb_tableau *t = tableau_named(tableaux[k]);
        if (t && strcmp(t->name, o->default_string) != 0)
            status = method_config_set_tableau(cfg, (int)i, t);
    }
    host_clear_error();
    if (status != 0 || method_config_validate(cfg) != 0) {
        host_clear_error();
        method_config_destroy(cfg);
        return NULL;
    }
    return cfg;
}

/* Which options change the order or the claimed properties, with examples:
 * the properties `list` prints hold at the defaults only. */
static void print_option_effects(const plugin *fam, const wb_method *m)
{
    method_config *base = method_config_create(fam, m);
    if (!base)
        return;
    wb_method_props p0 = method_config_props(base);
    for (uint32_t i = 0; i < m->n_options; i++) {
        const wb_option_spec *o = descriptor_option(m, i);
        int shown = 0;
        char seen[3][128] = {"", "", ""};
        /* examples that change the properties first, then the order alone */
        for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < 12 && shown < 3; k++) {
            method_config *cfg = variant(fam, m, i, k);
            if (!cfg)
                continue;
            wb_method_props p = method_config_props(cfg);
            if (pass == 0 ? p.flags != p0.flags : (p.order != p0.order && p.flags == p0.flags)) {
                char value[128];
                option_text(o, &cfg->values[i], value, sizeof value);
                int repeated = 0;
                for (int j = 0; j < shown; j++)
                    repeated |= strcmp(seen[j], value) == 0;
                if (!repeated) {
                    printf(shown ? "; %s = %s: order %d, " : "      with %s = %s: order %d, ",
                           o->name, value, p.order);
                    print_flags(p.flags);
                    snprintf(seen[shown], sizeof seen[shown], "%s", value);
                    shown++;
                }
            }
            method_config_destroy(cfg);
        }
        if (shown)
            printf("%s\n", shown == 3 ? "; ..." : "");
    }
    method_config_destroy(base);
}

static void print_method(const wb_family *f, const wb_method *m)
{
    printf("    %s.%s  order %s  -- %s\n", f->name, m->name, m->order_doc ? m->order_doc : "?",
           m->doc ? m->doc : "");
    printf("      properties (at the default options%s): ",
           descriptor_describe_model(m) ? "; the order depends on the model too" : "");
    print_flags(m->property_flags);
    printf("\n      handles:");
    if (m->handles & WB_HANDLES_UNCONSTRAINED) printf(" unconstrained");
    if (m->handles & WB_HANDLES_HOLONOMIC) printf(" holonomic");
    if (m->handles & WB_HANDLES_NONHOLONOMIC) printf(" nonholonomic");
    if (m->handles & WB_HANDLES_LIE_GROUP) printf(" lie-group");
    printf("\n      requires:");
    for (const char *const *r = m->requires; r && *r; r++) {
        char text[512];
        descriptor_requirement_text(*r, text, sizeof text);
        printf(r == m->requires ? " %s" : ", %s", text);
    }
    if (!m->requires || !*m->requires)
        printf(" -");
    printf("\n");
    for (uint32_t i = 0; i < m->n_aux; i++)
        print_aux(m, i);
    for (uint32_t i = 0; i < m->n_options; i++)
        print_option(descriptor_option(m, i));
}

static void print_extensions(const wb_model_class *c)
{
    printf("    extensions:");
    for (const char *const *id = plugins_known_extensions(); *id; id++)
        if (c->get_extension(*id))
            printf(" %s", *id);
    printf("\n");
}

static void print_model(const wb_model_class *c)
{
    print_extensions(c);
    for (uint32_t i = 0; i < c->n_params; i++) {
        const wb_param_spec *p = descriptor_param(c, i);
        printf("      %-10s default %-10s range [%s, %s]  %s\n", p->name,
               host_number(p->default_value).text, host_number(p->min).text,
               host_number(p->max).text, p->doc ? p->doc : "");
    }
}

static void print_plugin_header(const plugin *p)
{
    printf("%-10s %-22s ABI %u.%u  %s\n", p->model ? "model" : "integrator", p->entry->name,
           p->entry->abi_major, p->entry->abi_minor, p->path);
    if (p->entry->description)
        printf("    %s\n", p->entry->description);
}

static int command_list(void)
{
    plugins_discover();
    for (int kind = WB_KIND_INTEGRATOR; kind >= WB_KIND_MODEL; kind--)
        for (int i = 0; i < plugins_count(); i++) {
            const plugin *p = plugins_at(i);
            if ((int)p->entry->kind != kind)
                continue;
            print_plugin_header(p);
            if (p->model)
                print_model(p->model);
            else
                for (uint32_t j = 0; j < p->family->n_methods; j++)
                    print_method(p->family, p->family->methods[j]);
            printf("\n");
        }
    printf("search path:\n");
    for (int i = 0; i < plugins_search_dir_count(); i++)
        printf("  %s\n", plugins_search_dir_at(i));
    if (plugins_rejection_count()) {
        printf("refused:\n");
        for (int i = 0; i < plugins_rejection_count(); i++)
            printf("  %s\n", plugins_rejection_at(i)->reason);
    }
    return 0;
}

/* One OPTION=VALUE of a command line (info, check-method), read by the
 * option's type: the option's index, or -1 with the message. */
static int set_option_argument(method_config *cfg, const char *text)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text) {
        host_error("'%s' is not OPTION=VALUE", text);
        return -1;
    }
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(eq - text), text);
    int index = method_config_find(cfg, key);
    if (index < 0 || method_config_set_text(cfg, index, eq + 1) != 0)
        return -1;
    return index;
}

/* The order and properties the method claims at the given options (its
 * defaults when none), and every option's value once completed. */
static int print_claims(const plugin *fam, const wb_method *m, int n_options,
                        char **options)
{
    method_config *cfg = method_config_create(fam, m);
    if (!cfg) {
        fprintf(stderr, "workbench: %s\n", host_last_error());
        return 1;
    }
    int status = 0;
    for (int i = 0; i < n_options && status == 0; i++)
        status = set_option_argument(cfg, options[i]) < 0 ? -1 : 0;
    if (status == 0)
        status = method_config_validate(cfg);
    if (status != 0) {
        fprintf(stderr, "workbench: %s\n", host_last_error());
        method_config_destroy(cfg);
        return 1;
    }
    wb_method_props props = method_config_props(cfg);
    printf("      claimed %s: order %d", n_options ? "at these options" : "at the defaults",
           props.order);
    if (props.multiplier_order)
        printf(" (multipliers %d)", props.multiplier_order);
    printf("; ");
    print_flags(props.flags);
    printf("\n      options:");
    for (uint32_t i = 0; i < m->n_options; i++) {
        const wb_option_spec *o = descriptor_option(m, i);
        const wb_option_value *v = &cfg->values[i];
        printf(i ? ", %s = " : " %s = ", o->name);
        switch (o->type) {
        case WB_OPT_NUMBER:
        case WB_OPT_INTEGER:
            printf("%g", v->number);
            break;
        case WB_OPT_BOOLEAN:
            printf("%s", v->number != 0 ? "true" : "false");
            break;
        default:
            printf("%s", v->string ? v->string : "");
        }
    }
    printf("\n");
    method_config_destroy(cfg);
    return 0;
}

static int command_info(const char *name, int n_options, char **options)
{
    plugins_discover();
    if (n_options > 0) { /* OPTION=VALUE: NAME is a method, even where a family shares it */
        const plugin *fam;
        const wb_method *m = plugins_find_method(name, &fam);
        if (!m) {
            fprintf(stderr, "workbench: info %s %s: OPTION=VALUE arguments belong to a method "
                            "(e.g. workbench info vi layer=kutta3 alpha_minus=0): %s\n", name,
                    options[0], host_last_error());
            return 2;
        }
        print_method(fam->family, m);
        return print_claims(fam, m, n_options, options);
    }
    const plugin *p = plugins_find_model(name);
    if (p) {
        print_plugin_header(p);
        printf("    %s\n", p->model->doc ? p->model->doc : "");
        print_model(p->model);
        model_instance *mi = model_instance_create(p, NULL);
        if (!mi) {
            fprintf(stderr, "workbench: %s\n", host_last_error());
            return 1;
        }
        const wb_model *m = model_instance_view(mi);
        printf("    with defaults: nq %d, nv %d, holonomic %d, nonholonomic %d, mass %s\n",
               m->nq, m->nv, m->n_holonomic, m->n_nonholonomic,
               m->mass_constant ? "constant" : "configuration-dependent");
        if (m->n_invariants) {
            printf("    invariants:");
            for (int i = 0; i < m->n_invariants; i++)
                printf(" %s", m->invariant_names[i]);
            printf("\n");
        }
        model_instance_destroy(mi);
        return 0;
    }
    const plugin *f = plugins_find_family(name);
    if (f) {
        print_plugin_header(f);
        for (uint32_t j = 0; j < f->family->n_methods; j++) {
            print_method(f->family, f->family->methods[j]);
            print_option_effects(f, f->family->methods[j]);
        }
        return 0;
    }
    const plugin *fam;
    const wb_method *m = plugins_find_method(name, &fam);
    if (m) {
        print_method(fam->family, m);
        print_option_effects(fam, m);
        return print_claims(fam, m, n_options, options);
    }
    fprintf(stderr, "workbench: '%s' is neither a model, a family nor a method: %s\n", name,
            host_last_error());
    return 1;
}

static const char check_model_usage[] =
    "usage: workbench check-model NAME [PARAM=VALUE...] [--tol T]\n"
    "       workbench check-model SCRIPT.lua [NAME] [PARAM=VALUE...] [--tol T]\n"
    "\n"
    "Compares every derivative model NAME provides (gradient and Hessian of V,\n"
    "constraint Jacobian and contractions, nonholonomic and Lie-group\n"
    "derivatives) against central finite differences at its initial state and\n"
    "two perturbations, and checks its structure: mass matrix symmetric positive\n"
    "definite, a consistent initial state, first integrals conserved by the\n"
    "flow, momentum-map generators, group identities.  Each row is a relative\n"
    "error; a row above the tolerance (--tol, default 1e-6) fails, and so does\n"
    "the command (exit status 1).\n"
    "\n"
    "With SCRIPT.lua, the script runs first and the models it defines with\n"
    "wb.define_model are checked (all of them, or NAME).  PARAM=VALUE sets a\n"
    "parameter (`workbench info NAME` lists them).  From a script:\n"
    "wb.check_model(m [, tol]) returns the number of failed checks.\n";

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* check one model with PARAM=VALUE arguments; 0 passed, 1 failed, 2 usage */
static int check_one_model(const plugin *p, int argc, char **argv, double tol)
{
    const wb_model_class *c = p->model;
    double *params = calloc(c->n_params + 1, sizeof(double));
    if (!params)
        return 1;
    for (uint32_t i = 0; i < c->n_params; i++)
        params[i] = descriptor_param(c, i)->default_value;
    for (int a = 0; a < argc; a++) {
        char *eq = strchr(argv[a], '=');
        uint32_t i = 0;
        size_t len = eq ? (size_t)(eq - argv[a]) : 0;
        if (eq)
            while (i < c->n_params && !(strncmp(descriptor_param(c, i)->name, argv[a], len) == 0 &&
                                        descriptor_param(c, i)->name[len] == '\0'))
                i++;
        if (!eq || i == c->n_params) {
            fprintf(stderr, "workbench: check-model: '%s' is not PARAM=VALUE for a parameter "
                            "of '%s'\n", argv[a], c->name);
            free(params);
            return 2;
        }
        if (host_parse_number(eq + 1, &params[i]) != 0) {
            fprintf(stderr, "workbench: check-model: parameter '%s' needs a number, got "
                            "'%s'\n", descriptor_param(c, i)->name, eq + 1);
            free(params);
            return 2;
        }
    }
    model_instance *mi = model_instance_create(p, params);
    free(params);
    if (!mi) {
        fprintf(stderr, "workbench: %s\n", host_last_error());
        return 1;
    }
    int failures = check_model(mi, stdout, tol);
    const char *lua_failure = lua_model_definition_take_error();
    if (lua_failure)
        fprintf(stderr, "workbench: %s\n", lua_failure);
    model_instance_destroy(mi);
    return failures || lua_failure ? 1 : 0;
}

static lua_State *new_state(void);

static int command_check_model(int argc, char **argv)
{
    if (argc < 1) {
        fprintf(stderr, "workbench: check-model needs a model name\n\n%s", check_model_usage);
        return 2;
    }
    if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        fputs(check_model_usage, stdout);
        return 0;
    }
    /* --tol T anywhere; the rest are the name(s) and PARAM=VALUE */
    double tol = 1e-6;
    int n = 0;
    for (int a = 0; a < argc; a++) {
        if (strcmp(argv[a], "--tol") == 0) {
            if (a + 1 >= argc || host_parse_number(argv[a + 1], &tol) != 0 || !(tol > 0)) {
                fprintf(stderr, "workbench: check-model: --tol needs a positive number, got "
                                "'%s'\n", a + 1 < argc ? argv[a + 1] : "");
                return 2;
            }
            a++;
            continue;
        }
        argv[n++] = argv[a];
    }
    argc = n;
    if (!has_suffix(argv[0], ".lua")) {
        const plugin *p = plugins_find_model(argv[0]);
        if (!p) {
            fprintf(stderr, "workbench: %s\n", host_last_error());
            return 1;
        }
        return check_one_model(p, argc - 1, argv + 1, tol);
    }
    /* a script that defines models: run it, then check what it defined */
    lua_State *L = new_state();
    if (!L)
        return 1;
    lua_set_model_checker(check_model);
    lua_pushcfunction(L, traceback);
    int status = luaL_loadfile(L, argv[0]);
    if (status == LUA_OK)
        status = lua_pcall(L, 0, 0, 1);
    if (status != LUA_OK) {
        fprintf(stderr, "workbench: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    int named = argc > 1 && !strchr(argv[1], '=');
    int result = 0, checked = 0;
    lua_getglobal(L, "wb");
    lua_getfield(L, -1, "_script_models");
    int defined = lua_gettop(L);
    if (named) {
        const plugin *p = plugins_find_model(argv[1]);
        if (!p) {
            fprintf(stderr, "workbench: %s\n", host_last_error());
            result = 1;
        } else {
            result = check_one_model(p, argc - 2, argv + 2, tol);
            checked = 1;
        }
    } else {
        int count = lua_istable(L, defined) ? (int)lua_rawlen(L, defined) : 0;
        if (count > 1 && argc > 1) {
            fprintf(stderr, "workbench: check-model: %s defines several models: name the one "
                            "PARAM=VALUE is for\n", argv[0]);
            count = 0;
            result = 2;
        }
        for (int i = 1; i <= count; i++) {
            lua_rawgeti(L, defined, i);
            const plugin *p = plugins_find_model(lua_tostring(L, -1));
            lua_pop(L, 1);
            int r = p ? check_one_model(p, argc - 1, argv + 1, tol) : 1;
            result = result > r ? result : r;
            checked++;
        }
    }
    if (!named && !checked && result == 0) {
        fprintf(stderr, "workbench: check-model: %s defines no model (wb.define_model, wb.compile_model)\n",
                argv[0]);
        result = 1;
    }
    lua_close(L);
    return result;
}

static const char check_method_usage[] =
    "usage: workbench check-method NAME [OPTION=VALUE...] [--quick] [--model MODEL]...\n"
    "                              [--tol T] [--symplectic-tol T]\n"
    "\n"
    "Checks every claim method NAME makes at the given options (`workbench info\n"
    "NAME` lists them) on every installed model it applies to (or each --model),\n"
    "from the model's default state and from a perturbed consistent one: the\n"
    "fitted order of a ladder of step sizes against a reference of higher order,\n"
    "symplecticity of the step map on the constraint manifold, symmetry (h then\n"
    "-h), energy and momentum conservation, bounded energy error without drift,\n"
    "the constraint levels at the nodes, staying on the group, no Newton\n"
    "iteration for an explicit method, and continuation from sol:final() bit for\n"
    "bit.  Prints one row per claim and model; exits 1 when a claim fails.\n"
    "\n"
    "  OPTION=VALUE       a method option (a number, true/false, or a word)\n"
    "  --quick            shorter runs and ladders (the test suite's mode)\n"
    "  --model MODEL      check on MODEL only (repeatable)\n"
    "  --tol T            conservation and constraint tolerance (default 1e-8)\n"
    "  --symplectic-tol T tolerance of the symplecticity defect (default 1e-5)\n"
    "\n"
    "From a script: wb.check_method{method = NAME, options = {...}, models = {...},\n"
    "quick = true} returns {failures =, checked =, rows = {...}}.\n";

static int parse_positive(const char *flag, const char *text, double *out)
{
    double x;
    if (!text || host_parse_number(text, &x) != 0 || !(x > 0)) {
        if (text)
            host_error("%s needs a positive number, got '%s'", flag, text);
        else
            host_error("%s needs a positive number after it", flag);
        return -1;
    }
    *out = x;
    return 0;
}

/* OPTION=VALUE into the options table at `options`, as the option's type
 * reads it: the number, the boolean or the text. */
static int push_option_argument(lua_State *L, method_config *cfg, int options,
                                const char *text)
{
    int index = set_option_argument(cfg, text);
    if (index < 0)
        return -1;
    const char *eq = strchr(text, '=');
    lua_pushlstring(L, text, (size_t)(eq - text));
    switch (descriptor_option(cfg->method, (uint32_t)index)->type) {
    case WB_OPT_NUMBER:
    case WB_OPT_INTEGER:
        lua_pushnumber(L, cfg->values[index].number);
        break;
    case WB_OPT_BOOLEAN:
        lua_pushboolean(L, cfg->values[index].number != 0);
        break;
    default:
        lua_pushstring(L, eq + 1);
    }
    lua_settable(L, options);
    return 0;
}

/* check-method's arguments as the spec of wb.check_method, pushed on L.
 * The method, every option and every model are read and looked up here,
 * so that a refusal of them is one line with its reason: 0, 2 after the
 * usage, or -1 with the message in host_last_error(). */
static int push_check_method_spec(lua_State *L, int argc, char **argv)
{
    const plugin *family;
    const wb_method *m = plugins_find_method(argv[0], &family);
    method_config *cfg = m ? method_config_create(family, m) : NULL;
    if (!cfg)
        return -1;
    lua_newtable(L); /* the spec */
    int spec = lua_gettop(L);
    lua_newtable(L);
    int options = lua_gettop(L);
    lua_newtable(L);
    int models = lua_gettop(L);
    int n_models = 0, status = 0;
    lua_pushstring(L, argv[0]);
    lua_setfield(L, spec, "method");
    for (int a = 1; a < argc && status == 0; a++) {
        double x = 0;
        if (strcmp(argv[a], "--quick") == 0) {
            lua_pushboolean(L, 1);
            lua_setfield(L, spec, "quick");
        } else if (strcmp(argv[a], "--model") == 0 && a + 1 < argc) {
            if (!plugins_find_model(argv[++a]))
                status = -1;
            lua_pushstring(L, argv[a]);
            lua_rawseti(L, models, ++n_models);
        } else if (strcmp(argv[a], "--tol") == 0 || strcmp(argv[a], "--symplectic-tol") == 0) {
            const char *flag = argv[a];
            status = parse_positive(flag, a + 1 < argc ? argv[++a] : NULL, &x);
            lua_pushnumber(L, x);
            lua_setfield(L, spec, flag[2] == 't' ? "tol" : "symplectic_tol");
        } else if (argv[a][0] != '-' && strchr(argv[a], '=')) {
            status = push_option_argument(L, cfg, options, argv[a]);
        } else {
            fprintf(stderr, "workbench: check-method: unknown argument '%s'\n\n%s", argv[a],
                    check_method_usage);
            status = 2;
        }
    }
    if (status == 0 && method_config_validate(cfg) != 0)
        status = -1;
    method_config_destroy(cfg);
    if (n_models > 0) {
        lua_pushvalue(L, models);
        lua_setfield(L, spec, "models");
    }
    lua_pushvalue(L, options);
    lua_setfield(L, spec, "options");
    lua_settop(L, spec);
    return status;
}

/* An error of wb.check_method as it is: the CLI calls no user code, and
 * the input was refused before the call, so what reaches here is the
 * checker's own error with the line it was raised at. */
static int plain_message(lua_State *L)
{
    if (!lua_tostring(L, 1))
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    return 1;
}

static int command_check_method(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        fputs(check_method_usage, argc < 1 ? stderr : stdout);
        return argc < 1 ? 2 : 0;
    }
    lua_State *L = new_state();
    if (!L)
        return 1;
    lua_pushcfunction(L, plain_message);
    lua_getglobal(L, "wb");
    lua_getfield(L, -1, "_check_method");
    lua_remove(L, -2);
    host_clear_error();
    int status = push_check_method_spec(L, argc, argv);
    if (status != 0) {
        if (status < 0)
            fprintf(stderr, "workbench: check-method: %s\n", host_last_error());
        lua_close(L);
        return 2;
    }
    status = lua_pcall(L, 1, 1, 1);
    int result = 0;
    if (status != LUA_OK) {
        fprintf(stderr, "workbench: check-method: %s\n", lua_tostring(L, -1));
        result = 1;
    } else {
        lua_getfield(L, -1, "failures");
        result = lua_tointeger(L, -1) > 0 ? 1 : 0;
    }
    lua_close(L);
    return result;
}

/* ---- main ---------------------------------------------------------------------------- */

static void cleanup(void)
{
    plugins_unload_all();
    tableau_release_all();
}

/* Registered first, so run last.  With SIGXFSZ ignored a print past the
 * file-size limit (or on a full disk) fails instead of killing the
 * process: say so and fail, rather than exit 0 with a cut-off output. */
static void check_stdout(void)
{
    errno = 0;
    int flushed = fflush(stdout) == 0;
    if (flushed && !ferror(stdout))
        return;
    fprintf(stderr, "workbench: writing the standard output failed: %s\n",
            !flushed && errno ? strerror(errno) : "a write failed (a full disk or a file-size "
                                                  "limit?)");
    _exit(1);
}

int main(int argc, char **argv)
{
    atexit(check_stdout);
    plugins_set_executable(argv[0]);
    atomic_install_signal_cleanup();
    const char *env_output = getenv("WORKBENCH_OUTPUT_DIR");
    if (env_output)
        output_set_root(env_output);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("workbench %s (plugin ABI %d.%d)\n", WORKBENCH_VERSION, WB_ABI_MAJOR,
                   WB_ABI_MINOR);
            return 0;
        } else if (strcmp(argv[i], "--plugin-path") == 0 && i + 1 < argc) {
            plugins_add_search_dir(argv[++i]);
        } else if (strcmp(argv[i], "--output-dir") == 0 && i + 1 < argc) {
            output_set_root(argv[++i]);
        } else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) {
            host_set_log_level(WB_LOG_DEBUG);
        } else {
            fprintf(stderr, "workbench: unknown option '%s'\n\n%s", argv[i], usage);
            return 2;
        }
    }
    if (i >= argc) {
        fputs(usage, stderr);
        return 2;
    }
    atexit(cleanup);
    const char *command = argv[i];
    if (strcmp(command, "list") == 0)
        return command_list();
    if (strcmp(command, "info") == 0) {
        if (i + 1 >= argc) {
            fprintf(stderr, "workbench: info needs a name\n");
            return 2;
        }
        return command_info(argv[i + 1], argc - i - 2, argv + i + 2);
    }
    if (strcmp(command, "check-model") == 0)
        return command_check_model(argc - i - 1, argv + i + 1);
    if (strcmp(command, "check-method") == 0)
        return command_check_method(argc - i - 1, argv + i + 1);
    if (strcmp(command, "help") == 0)
        return command_help(argc - i - 1, argv + i + 1);
    if (strcmp(command, "sweep") == 0) {
        lua_sweep_mode mode;
        int status = sweep_parse(argc - i - 1, argv + i + 1, argv + 1, i - 1, &mode);
        if (status != 0)
            return status == 1 ? 0 : status;
        return run_script(mode.script, mode.n_args, (char **)mode.args, &mode);
    }
    return run_script(command, argc - i - 1, argv + i + 1, NULL);
}
