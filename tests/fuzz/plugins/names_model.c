/* A 1-D oscillator whose invariant (and whose family's carried unknown)
 * is named by the build: names that would shift or shadow a solution's
 * columns must be refused when the model is created (or the family
 * loaded), one named like a model's invariant when a run would record
 * both.  One source, built as
 *   MODEL + INVARIANT_A [, INVARIANT_B]     a model names_<variant>
 *   FAMILY + AUX_NAME                       a family aux_<variant> */
#include <workbench/workbench.h>

#include <stdlib.h>
#include <string.h>

#ifndef PLUGIN_NAME
#error "define PLUGIN_NAME"
#endif

#ifdef MODEL
static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)host, (void)values;
#ifdef INVARIANT_B
    static const char *const names[] = {INVARIANT_A, INVARIANT_B};
#else
    static const char *const names[] = {INVARIANT_A};
#endif
    *self = NULL;
    info->nq = info->nv = 1;
    info->mass_constant = 1;
    info->n_invariants = (int)(sizeof names / sizeof names[0]);
    info->invariant_names = names;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    M[0] = 1.0;
}

static double potential(void *self, const double *q)
{
    (void)self;
    return 0.5 * q[0] * q[0];
}

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    out[0] = 0.5 * (p[0] * p[0] + q[0] * q[0]);
#ifdef INVARIANT_B
    out[1] = out[0];
#endif
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    q[0] = 1.0, p[0] = 0.0;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext), .mass = mass, .potential = potential};
static const wb_invariants_ext invariants = {
    .struct_size = sizeof(wb_invariants_ext), .evaluate = evaluate};
static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext), .initial = initial};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_INVARIANTS) == 0)
        return &invariants;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = PLUGIN_NAME,
    .doc = "test: an oscillator with a named invariant",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};
#define DESCRIPTOR model_class
#define KIND WB_KIND_MODEL
#endif

#ifdef FAMILY
/* Symplectic Euler carrying one number: the last step's force. */
typedef struct euler {
    const wb_model *model;
    double force;
} euler;

static int euler_create(const wb_host *host, const wb_model *model,
                        const wb_option_value *opts, void **inst)
{
    (void)host, (void)opts;
    euler *e = calloc(1, sizeof *e);
    if (!e || model->nq != 1) {
        free(e);
        return WB_ERR_INVALID;
    }
    e->model = model;
    *inst = e;
    return WB_OK;
}

static void euler_destroy(void *inst) { free(inst); }

static int euler_reset(void *inst, double t, const double *q, const double *p)
{
    (void)t, (void)q, (void)p;
    ((euler *)inst)->force = 0.0;
    return WB_OK;
}

static int euler_step(void *inst, double t, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    euler *e = inst;
    double g;
    (void)t, (void)stats;
    wb_potential_gradient(e->model, q0, &g);
    e->force = -g;
    p1[0] = p0[0] - h * g;
    wb_mass_solve(e->model, q0, p1, q1);
    q1[0] = q0[0] + h * q1[0];
    return WB_OK;
}

static void aux_values(const void *inst, double *out) { out[0] = ((const euler *)inst)->force; }

static const wb_aux_spec aux[] = {
    {.name = AUX_NAME, .size_kind = WB_AUX_FIXED, .size = 1, .time = WB_AUX_ON_INTERVAL,
     .doc = "the force of the step"}};
static const char *const requires_mechanical[] = {WB_EXT_MECHANICAL, NULL};

static const wb_method method_euler = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "euler",
    .doc = "symplectic Euler carrying its force (test plugin)",
    .requires = requires_mechanical,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "1",
    .aux = aux,
    .n_aux = 1,
    .create = euler_create,
    .destroy = euler_destroy,
    .reset = euler_reset,
    .step = euler_step,
    .aux_values = aux_values,
};

static const wb_method *const methods[] = {&method_euler};
static const wb_family family = {
    .struct_size = sizeof(wb_family),
    .name = PLUGIN_NAME,
    .doc = "test family with a named carried unknown",
    .methods = methods,
    .n_methods = 1,
};
#define DESCRIPTOR family
#define KIND WB_KIND_INTEGRATOR
#endif

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = KIND,
    .name = PLUGIN_NAME,
    .version = "test",
    .description = "test: declared names",
    .descriptor = &DESCRIPTOR,
};
