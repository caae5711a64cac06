/* An integrator family written against the ABI 1.0 headers: symplectic
 * Euler (kick then drift) for constant-mass unconstrained models, with an
 * option of each kind it can check and an aux unknown, reset() and no
 * start().  A 1.1 host must list, configure and run it unchanged, record
 * its aux column, and refuse aux0 for it with a message. */
#include <workbench/workbench.h>

#include <stdlib.h>
#include <string.h>

#if WB_ABI_MAJOR != 1 || WB_ABI_MINOR != 0
#error "this plugin must be built against the ABI 1.0 headers"
#endif

typedef struct euler {
    const wb_model *model;
    int n;
    double scale;
    double *v, *g;
} euler;

enum { OPT_SCALE, OPT_ORDER, OPT_LABEL };
static const wb_option_spec options[] = {
    {"scale", WB_OPT_NUMBER, 1.0, 0.0, 10.0, NULL, NULL, "multiplies the step (1: plain)"},
    {"order", WB_OPT_CHOICE, 0, 0, 0, "kick_drift", "kick_drift|drift_kick", "update order"},
    {"label", WB_OPT_STRING, 0, 0, 0, "none", NULL, "free text, unused"},
};

static const wb_aux_spec aux[] = {
    {"drift_v", WB_AUX_VELOCITY, 0, WB_AUX_ON_INTERVAL, "the velocity the drift used"},
};

static const char *const requires[] = {WB_EXT_MECHANICAL, NULL};

static int create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                  void **inst)
{
    euler *e = calloc(1, sizeof *e);
    double *block = calloc(2 * (size_t)model->nq, sizeof(double));
    if (!e || !block || !model->mass_constant) {
        free(e);
        free(block);
        host->error(host, "v1_0_euler: out of memory or a configuration-dependent mass");
        return WB_ERR_INVALID;
    }
    e->model = model, e->n = model->nq, e->scale = opts[OPT_SCALE].number;
    e->v = block, e->g = block + e->n;
    *inst = e;
    return WB_OK;
}

static void destroy(void *inst)
{
    euler *e = inst;
    if (e)
        free(e->v);
    free(e);
}

static int reset(void *inst, double t, const double *q, const double *p)
{
    euler *e = inst;
    (void)t;
    wb_mass_solve(e->model, q, p, e->v);
    return WB_OK;
}

static int step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
                double *p1, wb_step_stats *stats)
{
    euler *e = inst;
    (void)t;
    h *= e->scale;
    wb_potential_gradient(e->model, q0, e->g);
    for (int i = 0; i < e->n; i++)
        p1[i] = p0[i] - h * e->g[i];
    wb_mass_solve(e->model, q0, p1, e->v);
    for (int i = 0; i < e->n; i++)
        q1[i] = q0[i] + h * e->v[i];
    stats->function_evals++;
    return WB_OK;
}

static void aux_values(const void *inst, double *out)
{
    const euler *e = inst;
    memcpy(out, e->v, (size_t)e->n * sizeof(double));
}

static int describe(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 1;
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_EXPLICIT;
    return WB_OK;
}

static int validate(const wb_host *host, const wb_option_value *opts)
{
    if (opts[OPT_SCALE].number == 0.0) {
        host->error(host, "scale 0 makes no step");
        return WB_ERR_INVALID;
    }
    return WB_OK;
}

static const wb_method method = {
    sizeof(wb_method), "euler", "symplectic Euler, ABI 1.0", options, 3, requires,
    WB_HANDLES_UNCONSTRAINED, "1", WB_PROP_SYMPLECTIC | WB_PROP_EXPLICIT, aux, 1,
    describe, create, destroy, reset, step, aux_values, validate,
};

static const wb_method *const methods[] = {&method};
static const wb_family family = {sizeof(wb_family), "v1_0_family", "test: ABI 1.0", methods, 1};

WB_PLUGIN_ENTRY = {WB_ABI_MAJOR, WB_ABI_MINOR, sizeof(wb_plugin_entry), WB_KIND_INTEGRATOR,
                   "v1_0_family", "1.0", "test: an ABI 1.0 family", &family};
