/* An integrator family with one explicit Euler method, compiled several
 * times with one defect each (see CMakeLists.txt):
 *
 *   (none)                     well_formed: the control, must load
 *   MALFORMED_OPTION_DEFAULT   option default outside its [min, max]
 *   MALFORMED_MISSING_STEP     the method has no step()
 *   MALFORMED_NAME_MISMATCH    family name differs from the entry name
 *
 * PLUGIN_NAME is the entry name.  The control proves that a refusal comes
 * from the defect, not from how these test plugins are built. */
#include <workbench/workbench.h>

#include <stdlib.h>

#ifndef PLUGIN_NAME
#error "define PLUGIN_NAME"
#endif

typedef struct euler {
    const wb_model *model;
    double *grad;
} euler;

static int euler_create(const wb_host *host, const wb_model *model,
                        const wb_option_value *opts, void **inst)
{
    (void)host, (void)opts;
    euler *e = calloc(1, sizeof *e);
    double *grad = calloc((size_t)model->nq, sizeof(double));
    if (!e || !grad) {
        free(e);
        free(grad);
        return WB_ERR_NOMEM;
    }
    e->model = model;
    e->grad = grad;
    *inst = e;
    return WB_OK;
}

static void euler_destroy(void *inst)
{
    euler *e = inst;
    if (e)
        free(e->grad);
    free(e);
}

static int euler_reset(void *inst, double t, const double *q, const double *p)
{
    (void)inst, (void)t, (void)q, (void)p;
    return WB_OK;
}

/* Symplectic Euler: p1 = p0 - h grad V(q0), q1 = q0 + h M^-1 p1.
 * (Unused in the MALFORMED_MISSING_STEP variant.) */
__attribute__((unused)) static int euler_step(void *inst, double t, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    euler *e = inst;
    const int n = e->model->nq;
    (void)t;
    wb_potential_gradient(e->model, q0, e->grad);
    for (int i = 0; i < n; i++)
        p1[i] = p0[i] - h * e->grad[i];
    wb_mass_solve(e->model, q0, p1, q1);
    for (int i = 0; i < n; i++)
        q1[i] = q0[i] + h * q1[i];
    stats->function_evals++;
    return WB_OK;
}

#ifdef MALFORMED_OPTION_DEFAULT
#define TOL_DEFAULT 1.0 /* outside [1e-16, 1e-2] */
#else
#define TOL_DEFAULT 1e-8
#endif

static const wb_option_spec options[] = {
    {.name = "tol", .type = WB_OPT_NUMBER, .default_number = TOL_DEFAULT, .min = 1e-16,
     .max = 1e-2, .doc = "an option that exists to be validated"},
};

static const char *const requires_mechanical[] = {WB_EXT_MECHANICAL, NULL};

static const wb_method method_euler = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "euler",
    .doc = "symplectic Euler (test plugin)",
    .options = options,
    .n_options = 1,
    .requires = requires_mechanical,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "1",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_EXPLICIT,
    .create = euler_create,
    .destroy = euler_destroy,
    .reset = euler_reset,
#ifndef MALFORMED_MISSING_STEP
    .step = euler_step,
#endif
};

static const wb_method *const methods[] = {&method_euler};

static const wb_family family = {
    .struct_size = sizeof(wb_family),
#ifdef MALFORMED_NAME_MISMATCH
    .name = "not_the_entry_name",
#else
    .name = PLUGIN_NAME,
#endif
    .doc = "test family",
    .methods = methods,
    .n_methods = 1,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_INTEGRATOR,
    .name = PLUGIN_NAME,
    .version = "test",
    .description = "test family (see malformed_family.c)",
    .descriptor = &family,
};
