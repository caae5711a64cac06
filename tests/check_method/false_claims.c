/* A family whose method claims what it does not have: explicit Euler
 * (q1 = q0 + h M^-1 p0, p1 = p0 - h grad V(q0)), order 1, neither
 * symplectic nor symmetric nor conserving, declared as order 2,
 * symplectic, symmetric, energy- and momentum-conserving and explicit.
 * `workbench check-method` must find every false claim (and pass the one
 * true claim, explicit).  And `drift`, on Lie-group models, which claims to
 * stay on the group and moves the group coordinates off it by 1e-6 of
 * their size a step (q1 = (1 + 1e-6) q0, mu unchanged): the driver must
 * refuse its first checked step (tests/lua/claims.lua). */
#include <workbench/workbench.h>

#include <stdlib.h>
#include <string.h>

static const char *const requires_list[] = {WB_EXT_MECHANICAL, NULL};

typedef struct euler {
    const wb_model *model;
    double *force, *v;
} euler;

static int euler_create(const wb_host *host, const wb_model *model,
                        const wb_option_value *opts, void **inst)
{
    (void)opts;
    euler *e = calloc(1, sizeof *e);
    double *block = calloc(2 * (size_t)model->nq, sizeof(double));
    if (!e || !block) {
        free(e), free(block);
        host->error(host, "false_claims.euler: out of memory");
        return WB_ERR_NOMEM;
    }
    e->model = model, e->force = block, e->v = block + model->nq;
    *inst = e;
    return WB_OK;
}

static void euler_destroy(void *inst)
{
    euler *e = inst;
    if (e)
        free(e->force);
    free(e);
}

static int euler_start(void *inst, double t, double h, const double *q, const double *p,
                       const double *aux)
{
    (void)inst, (void)t, (void)h, (void)q, (void)p, (void)aux;
    return WB_OK;
}

static int euler_step(void *inst, double t, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    euler *e = inst;
    (void)t;
    wb_potential_gradient(e->model, q0, e->force);
    wb_mass_solve(e->model, q0, p0, e->v);
    for (int i = 0; i < e->model->nq; i++) {
        q1[i] = q0[i] + h * e->v[i];
        p1[i] = p0[i] - h * e->force[i];
    }
    stats->function_evals++;
    return WB_OK;
}

static int euler_describe(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 2;
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_ENERGY_CONSERVING |
                 WB_PROP_MOMENTUM_CONSERVING | WB_PROP_EXPLICIT;
    return WB_OK;
}

static const wb_method euler_method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "euler",
    .doc = "explicit Euler, claiming what it does not have",
    .requires = requires_list,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "2 (false: 1)",
    .describe = euler_describe,
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_ENERGY_CONSERVING |
                      WB_PROP_MOMENTUM_CONSERVING | WB_PROP_EXPLICIT,
    .create = euler_create,
    .destroy = euler_destroy,
    .start = euler_start,
    .step = euler_step,
};

static const char *const group_requires[] = {
    WB_EXT_LIE_GROUP, WB_EXT_LIE_HAMILTONIAN "|" WB_EXT_LIE_LAGRANGIAN, NULL};

static int drift_create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                        void **inst)
{
    (void)host, (void)opts;
    *inst = (void *)model;
    return WB_OK;
}

static void drift_destroy(void *inst) { (void)inst; }

static int drift_step(void *inst, double t, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    const wb_model *model = inst;
    (void)t, (void)h, (void)stats;
    for (int i = 0; i < model->nq; i++)
        q1[i] = (1.0 + 1e-6) * q0[i];
    memcpy(p1, p0, (size_t)model->nv * sizeof(double));
    return WB_OK;
}

static const wb_method drift_method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "drift",
    .doc = "moves off the group, claiming to stay on it",
    .requires = group_requires,
    .handles = WB_HANDLES_LIE_GROUP,
    .order_doc = "0",
    .property_flags = WB_PROP_LIE_GROUP | WB_PROP_EXPLICIT,
    .create = drift_create,
    .destroy = drift_destroy,
    .start = euler_start,
    .step = drift_step,
};

static const wb_method *const methods[] = {&euler_method, &drift_method};

static const wb_family family = {
    .struct_size = sizeof(wb_family),
    .name = "false_claims",
    .doc = "a method with false claims, for check-method",
    .methods = methods,
    .n_methods = 2,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_INTEGRATOR,
    .name = "false_claims",
    .version = "1.0",
    .description = "test: false claims",
    .descriptor = &family,
};
