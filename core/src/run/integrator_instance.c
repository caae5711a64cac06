/* Option validation and integrator instances. */
#include "run/integrator_instance.h"
#include "host/descriptor.h"
#include "host/host.h"
#include "host/tableau.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const method_property method_properties[] = {
    {WB_PROP_SYMPLECTIC, "symplectic", "symplectic"},
    {WB_PROP_SYMMETRIC, "symmetric", "symmetric"},
    {WB_PROP_ENERGY_CONSERVING, "energy_conserving", "energy-conserving"},
    {WB_PROP_MOMENTUM_CONSERVING, "momentum_conserving", "momentum-conserving"},
    {WB_PROP_POSITION_CONSTRAINT, "position_constraint", "g=0 at nodes"},
    {WB_PROP_VELOCITY_CONSTRAINT, "velocity_constraint", "G M^-1 p=0 at nodes"},
    {WB_PROP_NONHOLONOMIC_CONSTRAINT, "nonholonomic_constraint", "Phi=0 at nodes"},
    {WB_PROP_EXPLICIT, "explicit", "explicit"},
    {WB_PROP_LIE_GROUP, "lie_group", "stays on the group"},
    {WB_PROP_CONSERVING_IF_POLYNOMIAL, "conserving_if_polynomial",
     "H and g conserved when polynomial"},
    {0, NULL, NULL},
};

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void method_config_name(const method_config *cfg, char *out, size_t size)
{
    snprintf(out, size, "%s.%s", cfg->family->entry->name, cfg->method->name);
}

static const wb_option_spec *option_spec(const method_config *cfg, int i)
{
    return descriptor_option(cfg->method, (uint32_t)i);
}

static int set_default(method_config *cfg, int i)
{
    const wb_option_spec *o = option_spec(cfg, i);
    switch (o->type) {
    case WB_OPT_NUMBER:
    case WB_OPT_INTEGER:
    case WB_OPT_BOOLEAN:
        cfg->values[i].number = o->default_number;
        return 0;
    case WB_OPT_CHOICE:
    case WB_OPT_STRING:
        return method_config_set_string(cfg, i, o->default_string);
    case WB_OPT_TABLEAU: {
        const wb_tableau *t = tableau_named(o->default_string);
        if (!t)
            return -1;
        return method_config_set_tableau(cfg, i, t);
    }
    }
    return -1;
}

method_config *method_config_create(const plugin *family, const wb_method *method)
{
    method_config *cfg = calloc(1, sizeof *cfg);
    uint32_t n = method->n_options;
    if (!cfg || !(cfg->values = calloc(n + 1, sizeof *cfg->values)) ||
        !(cfg->owned_strings = calloc(n + 1, sizeof *cfg->owned_strings)) ||
        !(cfg->given = calloc(n + 1, 1))) {
        if (cfg) {
            free(cfg->values);
            free(cfg->owned_strings);
        }
        free(cfg);
        host_error("out of memory");
        return NULL;
    }
    cfg->family = family;
    cfg->method = method;
    uint32_t stride = descriptor_option_value_size(method);
    if (stride != sizeof(wb_option_value) &&
        !(cfg->plugin_values = calloc((size_t)n + 1, stride))) {
        method_config_destroy(cfg);
        host_error("out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        if (set_default(cfg, (int)i) != 0) {
            char name[256];
            method_config_name(cfg, name, sizeof name);
            host_error_prefix("method '%s': default of option '%s': ", name,
                              descriptor_option(method, i)->name);
            method_config_destroy(cfg);
            return NULL;
        }
    memset(cfg->given, 0, n + 1); /* defaults are not given (the setters mark them) */
    return cfg;
}

void method_config_destroy(method_config *cfg)
{
    if (!cfg)
        return;
    for (uint32_t i = 0; i < cfg->method->n_options; i++) {
        free(cfg->owned_strings[i]);
        if (descriptor_option(cfg->method, i)->type == WB_OPT_TABLEAU)
            tableau_release(cfg->values[i].tableau);
    }
    free(cfg->owned_strings);
    free(cfg->values);
    free(cfg->plugin_values);
    free(cfg->given);
    free(cfg);
}

/* The host's values copied into the plugin's element size: the members
 * both layouts hold, zeros for any the host does not know. */
const wb_option_value *method_config_plugin_values(const method_config *cfg)
{
    if (!cfg->plugin_values)
        return cfg->values;
    size_t stride = descriptor_option_value_size(cfg->method);
    size_t common = stride < sizeof(wb_option_value) ? stride : sizeof(wb_option_value);
    for (uint32_t i = 0; i < cfg->method->n_options; i++) {
        unsigned char *element = cfg->plugin_values + i * stride;
        memset(element, 0, stride);
        memcpy(element, &cfg->values[i], common);
    }
    return (const wb_option_value *)(const void *)cfg->plugin_values;
}

/* Index of option `name`, or -1 (no error set). */
static int option_index(const method_config *cfg, const char *name)
{
    const wb_method *m = cfg->method;
    for (uint32_t i = 0; i < m->n_options; i++)
        if (strcmp(descriptor_option(m, i)->name, name) == 0)
            return (int)i;
    return -1;
}

/* The value of numeric option `name`, or NAN when the method has none. */
double method_config_number(const method_config *cfg, const char *name)
{
    int i = option_index(cfg, name);
    if (i < 0)
        return NAN;
    int type = descriptor_option(cfg->method, (uint32_t)i)->type;
    return type == WB_OPT_NUMBER || type == WB_OPT_INTEGER ? cfg->values[i].number : NAN;
}

int method_config_find(const method_config *cfg, const char *name)
{
    const wb_method *m = cfg->method;
    int found = option_index(cfg, name);
    if (found >= 0)
        return found;
    char list[1024] = "", full[256];
    size_t used = 0;
    for (uint32_t i = 0; i < m->n_options && used < sizeof list - 64; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 used ? ", " : "", descriptor_option(m, i)->name);
    method_config_name(cfg, full, sizeof full);
    host_error("method '%s' has no option '%s' (valid options: %s)", full, name,
               used ? list : "none");
    return -1;
}

static const char *type_name(int type)
{
    switch (type) {
    case WB_OPT_NUMBER: return "a number";
    case WB_OPT_INTEGER: return "an integer";
    case WB_OPT_BOOLEAN: return "a boolean (true or false)";
    case WB_OPT_CHOICE: return "one of its choices (a string)";
    case WB_OPT_TABLEAU: return "a tableau (object or name)";
    case WB_OPT_STRING: return "a string";
    }
    return "?";
}

static int wrong_type(const method_config *cfg, int index, const char *got)
{
    char full[256];
    const wb_option_spec *o = option_spec(cfg, index);
    method_config_name(cfg, full, sizeof full);
    host_error("method '%s': option '%s' expects %s, got %s", full, o->name,
               type_name(o->type), got);
    return -1;
}

static int store_number(method_config *cfg, int index, double value)
{
    const wb_option_spec *o = option_spec(cfg, index);
    char full[256];
    method_config_name(cfg, full, sizeof full);
    if (o->type != WB_OPT_NUMBER && o->type != WB_OPT_INTEGER)
        return wrong_type(cfg, index, "a number");
    if (!isfinite(value)) {
        host_error("method '%s': option '%s' must be finite", full, o->name);
        return -1;
    }
    if (o->type == WB_OPT_INTEGER && value != floor(value)) {
        host_error("method '%s': option '%s' expects an integer, got %g", full, o->name,
                   value);
        return -1;
    }
    if (value < o->min || value > o->max) {
        host_error("method '%s': option '%s' = %s is outside [%s, %s] (%s)", full, o->name,
                   host_number(value).text, host_number(o->min).text, host_number(o->max).text,
                   o->doc ? o->doc : "");
        return -1;
    }
    cfg->values[index].number = value;
    return 0;
}

int method_config_set_number(method_config *cfg, int index, double value)
{
    if (store_number(cfg, index, value) != 0)
        return -1;
    cfg->given[index] = 1;
    return 0;
}

int method_config_set_boolean(method_config *cfg, int index, int value)
{
    if (option_spec(cfg, index)->type != WB_OPT_BOOLEAN)
        return wrong_type(cfg, index, "a boolean");
    cfg->values[index].number = value ? 1.0 : 0.0;
    cfg->given[index] = 1;
    return 0;
}

static int choice_allowed(const char *choices, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = choices; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && strncmp(p, word, n) == 0)
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

int method_config_set_string(method_config *cfg, int index, const char *value)
{
    const wb_option_spec *o = option_spec(cfg, index);
    if (o->type == WB_OPT_TABLEAU) {
        const wb_tableau *t = tableau_named(value);
        if (!t) {
            char full[256];
            method_config_name(cfg, full, sizeof full);
            host_error_prefix("method '%s': option '%s': ", full, o->name);
            return -1;
        }
        return method_config_set_tableau(cfg, index, t);
    }
    if (o->type != WB_OPT_CHOICE && o->type != WB_OPT_STRING)
        return wrong_type(cfg, index, "a string");
    if (o->type == WB_OPT_CHOICE && !choice_allowed(o->choices, value)) {
        char full[256];
        method_config_name(cfg, full, sizeof full);
        host_error("method '%s': option '%s' = '%s' is not one of %s", full, o->name, value,
                   o->choices);
        return -1;
    }
    char *copy = copy_string(value);
    if (!copy) {
        host_error("out of memory");
        return -1;
    }
    free(cfg->owned_strings[index]);
    cfg->owned_strings[index] = copy;
    cfg->values[index].string = copy;
    cfg->given[index] = 1;
    return 0;
}

int method_config_set_tableau(method_config *cfg, int index, const wb_tableau *t)
{
    if (option_spec(cfg, index)->type != WB_OPT_TABLEAU)
        return wrong_type(cfg, index, "a tableau");
    /* the configuration holds the tableau as long as it names it */
    tableau_retain(t);
    tableau_release(cfg->values[index].tableau);
    cfg->values[index].tableau = t;
    cfg->values[index].string = t->name;
    cfg->given[index] = 1;
    return 0;
}

int method_config_set_text(method_config *cfg, int index, const char *text)
{
    const wb_option_spec *o = option_spec(cfg, index);
    char got[160];
    snprintf(got, sizeof got, "'%s'", text);
    if (o->type == WB_OPT_NUMBER || o->type == WB_OPT_INTEGER) {
        double number;
        if (host_parse_number(text, &number) != 0)
            return wrong_type(cfg, index, got);
        return method_config_set_number(cfg, index, number);
    }
    if (o->type == WB_OPT_BOOLEAN) {
        int truth = strcmp(text, "true") == 0 || strcmp(text, "1") == 0;
        if (!truth && strcmp(text, "false") != 0 && strcmp(text, "0") != 0)
            return wrong_type(cfg, index, got);
        return method_config_set_boolean(cfg, index, truth);
    }
    return method_config_set_string(cfg, index, text);
}

/* wb_method.complete_options on a copy of the values in the plugin's
 * layout; what it changed of the options the user did not give is taken
 * back (numbers through the range checks).  -1: the plugin refused (its
 * message), -2: a completed value is out of range (the host's message). */
static int complete_options(method_config *cfg)
{
    const wb_method *m = cfg->method;
    descriptor_complete_fn complete = descriptor_complete_options(m);
    if (!complete)
        return 0;
    const size_t stride = descriptor_option_value_size(m), n = m->n_options;
    unsigned char *copy = malloc((n + 1) * stride);
    if (!copy) {
        host_error("out of memory");
        return -2;
    }
    memcpy(copy, method_config_plugin_values(cfg), n * stride);
    host_clear_error();
    int status = complete(host_services(), (wb_option_value *)(void *)copy, cfg->given) == WB_OK
                     ? 0 : -1;
    for (uint32_t i = 0; status == 0 && i < n; i++) {
        const wb_option_value *v = (const wb_option_value *)(const void *)(copy + i * stride);
        const wb_option_spec *o = option_spec(cfg, (int)i);
        if (cfg->given[i])
            continue;
        switch (o->type) {
        case WB_OPT_NUMBER:
        case WB_OPT_INTEGER:
            if (store_number(cfg, (int)i, v->number) != 0)
                status = -2;
            break;
        case WB_OPT_BOOLEAN:
            cfg->values[i].number = v->number != 0 ? 1.0 : 0.0;
            break;
        case WB_OPT_TABLEAU:
            if (v->tableau && v->tableau != cfg->values[i].tableau) {
                tableau_retain(v->tableau);
                tableau_release(cfg->values[i].tableau);
                cfg->values[i].tableau = v->tableau;
                cfg->values[i].string = v->tableau->name;
            }
            break;
        default:
            break;
        }
    }
    free(copy);
    return status;
}

int method_config_validate(method_config *cfg)
{
    const wb_method *m = cfg->method;
    int completed = complete_options(cfg);
    if (completed == -2)
        return -1;
    if (completed != 0) {
        char name[256];
        method_config_name(cfg, name, sizeof name);
        host_error_prefix("method '%s': ", name);
        return -1;
    }
    if (!m->validate)
        return 0;
    host_clear_error();
    if (m->validate(host_services(), method_config_plugin_values(cfg)) == WB_OK)
        return 0;
    char name[256];
    method_config_name(cfg, name, sizeof name);
    host_error_prefix("method '%s': ", name);
    return -1;
}

wb_method_props method_config_props(const method_config *cfg)
{
    wb_method_props props = {sizeof props, 0, 0, cfg->method->property_flags};
    if (cfg->method->describe &&
        cfg->method->describe(method_config_plugin_values(cfg), &props) != WB_OK) {
        props.order = 0;
        props.flags = cfg->method->property_flags;
    }
    return props;
}

wb_method_props method_config_props_for(const method_config *cfg, const model_instance *mi)
{
    descriptor_describe_model_fn describe_model = descriptor_describe_model(cfg->method);
    if (!describe_model)
        return method_config_props(cfg);
    wb_method_props props = {sizeof props, 0, 0, cfg->method->property_flags};
    if (describe_model(method_config_plugin_values(cfg), model_instance_view(mi), &props) != WB_OK)
        return method_config_props(cfg);
    return props;
}

/* ---- instances ---------------------------------------------------------------- */

/* The method's own refusal of the model's structure (1.6, optional). */
static int plugin_check_model(const method_config *cfg, const wb_model *view, const char *full)
{
    descriptor_check_model_fn check_model = descriptor_check_model(cfg->method);
    if (!check_model)
        return 0;
    host_clear_error();
    if (check_model(host_services(), method_config_plugin_values(cfg), view) == WB_OK)
        return 0;
    if (!*host_last_error())
        host_error("the method gave no reason");
    host_error_prefix("method '%s' cannot integrate model '%s': ", full, view->name);
    return -1;
}

int integrator_check_compatible(const method_config *cfg, const model_instance *mi)
{
    const wb_method *m = cfg->method;
    const wb_model *view = model_instance_view(mi);
    const wb_model_class *cls = model_instance_plugin(mi)->model;
    char full[256];
    method_config_name(cfg, full, sizeof full);
    for (const char *const *r = m->requires; r && *r; r++)
        if (!descriptor_requirement_met(*r, cls->get_extension)) {
            char needed[512];
            descriptor_requirement_text(*r, needed, sizeof needed);
            host_error("method '%s' needs the model extension %s, which model '%s' does "
                       "not provide", full, needed, view->name);
            return -1;
        }
    struct {
        int present;
        unsigned bit;
        const char *what;
        int count;
    } kinds[] = {
        {view->n_holonomic > 0, WB_HANDLES_HOLONOMIC, "holonomic constraint(s)", view->n_holonomic},
        {view->n_nonholonomic > 0, WB_HANDLES_NONHOLONOMIC, "nonholonomic constraint(s)",
         view->n_nonholonomic},
        {(view->capabilities & WB_CAP_LIE_GROUP) != 0, WB_HANDLES_LIE_GROUP,
         "a Lie-group configuration space", 0},
    };
    int constrained = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (!kinds[i].present)
            continue;
        constrained |= i < 2;
        if (!(m->handles & kinds[i].bit)) {
            if (kinds[i].count)
                host_error("method '%s' cannot integrate model '%s': the model has %d %s, "
                           "which the method does not handle", full, view->name,
                           kinds[i].count, kinds[i].what);
            else
                host_error("method '%s' cannot integrate model '%s': the model has %s, "
                           "which the method does not handle", full, view->name,
                           kinds[i].what);
            return -1;
        }
    }
    if (!constrained && !(m->handles & WB_HANDLES_UNCONSTRAINED) &&
        !(view->capabilities & WB_CAP_LIE_GROUP)) {
        host_error("method '%s' needs a constrained model; model '%s' has no constraints",
                   full, view->name);
        return -1;
    }
    return plugin_check_model(cfg, view, full);
}

static int aux_size(const method_config *cfg, uint32_t group, const wb_aux_spec *a,
                    const wb_model *view)
{
    switch (a->size_kind) {
    case WB_AUX_CONFIGURATION_BLOCKS:
        return view->nq *
               (int)descriptor_aux_blocks(cfg->method)(method_config_plugin_values(cfg), group);
    case WB_AUX_VELOCITY_BLOCKS:
        return view->nv *
               (int)descriptor_aux_blocks(cfg->method)(method_config_plugin_values(cfg), group);
    case WB_AUX_HOLONOMIC: return view->n_holonomic;
    case WB_AUX_NONHOLONOMIC: return view->n_nonholonomic;
    case WB_AUX_VELOCITY: return view->nv;
    case WB_AUX_CONFIGURATION: return view->nq;
    }
    return a->size;
}

uint32_t integrator_aux_count(const method_config *cfg)
{
    return cfg->method->n_aux;
}

int integrator_aux_group(const method_config *cfg, const model_instance *mi, uint32_t i,
                         aux_column *out)
{
    const wb_method *m = cfg->method;
    const wb_aux_spec *a = descriptor_aux(m, i);
    double theta = 0.0;
    if (a->time == WB_AUX_AT_OFFSET) {
        theta = descriptor_aux_time_offset(m)(method_config_plugin_values(cfg), i);
        if (!isfinite(theta)) {
            char full[256];
            method_config_name(cfg, full, sizeof full);
            host_error("method '%s': aux unknown '%s' belongs to a non-finite fraction of "
                       "the step", full, a->name);
            return -1;
        }
    }
    *out = (aux_column){a->name, aux_size(cfg, i, a, model_instance_view(mi)), a->time, 0,
                        descriptor_aux_flags(m, i), theta};
    return 0;
}

static int resolve_aux(integrator *it)
{
    uint32_t count = integrator_aux_count(it->cfg);
    it->aux = calloc(count + 1, sizeof *it->aux);
    if (!it->aux) {
        host_error("out of memory");
        return -1;
    }
    it->n_aux_groups = (int)count;
    for (uint32_t i = 0; i < count; i++) {
        if (integrator_aux_group(it->cfg, it->model, i, &it->aux[i]) != 0)
            return -1;
        it->aux[i].offset = it->aux_total;
        it->aux_total += it->aux[i].size;
    }
    return 0;
}

integrator *integrator_create(const method_config *cfg, model_instance *mi)
{
    if (integrator_check_compatible(cfg, mi) != 0)
        return NULL;
    integrator *it = calloc(1, sizeof *it);
    if (!it) {
        host_error("out of memory");
        return NULL;
    }
    it->cfg = cfg;
    it->model = mi;
    if (resolve_aux(it) != 0) {
        integrator_destroy(it);
        return NULL;
    }
    host_clear_error();
    int status = cfg->method->create(host_services(), model_instance_view(mi),
                                     method_config_plugin_values(cfg), &it->inst);
    if (status != WB_OK) {
        char full[256];
        method_config_name(cfg, full, sizeof full);
        host_error_prefix("method '%s' could not be set up for model '%s': ", full,
                          model_instance_view(mi)->name);
        it->inst = NULL;
        integrator_destroy(it);
        return NULL;
    }
    return it;
}

void integrator_destroy(integrator *it)
{
    if (!it)
        return;
    if (it->inst)
        it->cfg->method->destroy(it->inst);
    free(it->aux);
    free(it);
}

/* A user whose step failed to converge needs to know which knob to turn:
 * the step size always, and the iteration options this method has, with
 * their current values. */
void method_config_convergence_hint(const method_config *cfg, double h, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "reduce h (now %g)", h);
    int i = option_index(cfg, "max_iter");
    if (i >= 0 && used < size)
        used += (size_t)snprintf(out + used, size - used, ", raise max_iter (now %g%s)",
                                 cfg->values[i].number,
                                 cfg->values[i].number == 0 ? ": the method's default" : "");
    i = option_index(cfg, "tol");
    if (i >= 0 && used < size)
        used += (size_t)snprintf(out + used, size - used, ", loosen tol (now %g%s)",
                                 cfg->values[i].number,
                                 cfg->values[i].number == 0 ? ": round-off" : "");
    i = option_index(cfg, "iteration");
    if (i >= 0 && used < size) {
        const wb_option_spec *o = option_spec(cfg, i);
        const char *now = cfg->values[i].string ? cfg->values[i].string : "";
        if (o->choices && strstr(o->choices, "newton") && strcmp(now, "newton") != 0)
            snprintf(out + used, size - used, " or set iteration = \"newton\" (now \"%s\")",
                     now);
    }
}
