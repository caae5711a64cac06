/* A family as a later minor version (1.2) might write it: every array
 * element carries a member the host does not know, so the arrays' element
 * sizes exceed the host's structs.  The host must step through them with
 * the plugin's sizes, hand the option values over in the plugin's element
 * size with the unknown member zero, and run the method.  The step is
 * symplectic Euler; its aux "seen" reports the option value "gain" the
 * plugin read, and create() refuses a nonzero unknown member. */
#include <workbench/workbench.h>

#include <stdlib.h>
#include <string.h>

typedef struct future_option_spec {
    wb_option_spec known;
    double appended;        /* a 1.2 member */
} future_option_spec;

typedef struct future_option_value {
    wb_option_value known;
    double appended;        /* the host leaves it 0 */
} future_option_value;

typedef struct future_aux_spec {
    wb_aux_spec known;
    const char *appended;
} future_aux_spec;

enum { OPT_TOL, OPT_GAIN, OPT_KIND };
static const future_option_spec options[] = {
    {{"tol", WB_OPT_NUMBER, 1e-9, 0, 1, NULL, NULL, "unused"}, 42.0},
    {{"gain", WB_OPT_NUMBER, 1.0, 0, 100, NULL, NULL, "reported as the aux 'seen'"}, 43.0},
    {{"kind", WB_OPT_CHOICE, 0, 0, 0, "plain", "plain|fancy", "unused"}, 44.0},
};

static const future_aux_spec aux[] = {
    {{.name = "v", .size_kind = WB_AUX_VELOCITY, .time = WB_AUX_ON_INTERVAL,
      .doc = "drift velocity"}, "x"},
    {{.name = "seen", .size_kind = WB_AUX_FIXED, .size = 1, .time = WB_AUX_AT_NODE,
      .doc = "the gain the plugin read"}, "y"},
};

static const char *const requires[] = {WB_EXT_MECHANICAL, NULL};

typedef struct euler {
    const wb_model *model;
    int n;
    double gain;
    double *v, *g;
} euler;

static int create(const wb_host *host, const wb_model *model, const wb_option_value *values,
                  void **inst)
{
    const future_option_value *opts = (const future_option_value *)(const void *)values;
    for (int i = 0; i < 3; i++)
        if (opts[i].appended != 0.0) {
            host->error(host, "future: the host wrote into option %d's unknown member", i);
            return WB_ERR_INVALID;
        }
    if (strcmp(opts[OPT_KIND].known.string, "plain") != 0 &&
        strcmp(opts[OPT_KIND].known.string, "fancy") != 0) {
        host->error(host, "future: option 'kind' read at the wrong place");
        return WB_ERR_INVALID;
    }
    euler *e = calloc(1, sizeof *e);
    double *block = calloc(2 * (size_t)model->nq, sizeof(double));
    if (!e || !block) {
        free(e);
        free(block);
        host->error(host, "future: out of memory");
        return WB_ERR_NOMEM;
    }
    e->model = model, e->n = model->nq, e->gain = opts[OPT_GAIN].known.number;
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

static int start(void *inst, double t, double h, const double *q, const double *p,
                 const double *carried)
{
    euler *e = inst;
    (void)t, (void)h;
    if (carried)
        memcpy(e->v, carried, (size_t)e->n * sizeof(double));
    else
        wb_mass_solve(e->model, q, p, e->v);
    return WB_OK;
}

static int step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
                double *p1, wb_step_stats *stats)
{
    euler *e = inst;
    (void)t, (void)stats;
    wb_potential_gradient(e->model, q0, e->g);
    for (int i = 0; i < e->n; i++)
        p1[i] = p0[i] - h * e->g[i];
    wb_mass_solve(e->model, q0, p1, e->v);
    for (int i = 0; i < e->n; i++)
        q1[i] = q0[i] + h * e->v[i];
    return WB_OK;
}

static void aux_values(const void *inst, double *out)
{
    const euler *e = inst;
    memcpy(out, e->v, (size_t)e->n * sizeof(double));
    out[e->n] = e->gain;
}

static const wb_method method = {
    .struct_size = sizeof(wb_method),
    .name = "euler",
    .doc = "symplectic Euler from a later minor version",
    .options = &options[0].known,
    .n_options = 3,
    .requires = requires,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "1",
    .aux = &aux[0].known,
    .n_aux = 2,
    .create = create,
    .destroy = destroy,
    .start = start,
    .step = step,
    .aux_values = aux_values,
    .option_spec_size = sizeof(future_option_spec),
    .option_value_size = sizeof(future_option_value),
    .aux_spec_size = sizeof(future_aux_spec),
};

/* ---- damped: an extension id the host does not know -------------------------------
 * The model (future_model.c) answers "test.damping/1"; the method fetches
 * it through the view and applies p1 *= 1 - h c.  Its aux "c" reports the
 * coefficient it read. */
typedef struct damping_ext {
    uint32_t struct_size;
    double (*coefficient)(void *self);
} damping_ext;

static const char *const damped_requires[] = {WB_EXT_MECHANICAL, "test.damping/1", NULL};

static const wb_aux_spec damped_aux[] = {
    {.name = "c", .size_kind = WB_AUX_FIXED, .size = 1, .time = WB_AUX_AT_NODE,
     .doc = "the damping coefficient read through the view"},
};

typedef struct damped {
    euler base;
    double c;
} damped;

static int damped_create(const wb_host *host, const wb_model *model,
                         const wb_option_value *opts, void **inst)
{
    (void)opts;
    const damping_ext *d = wb_extension(model, "test.damping/1");
    if (!d) {
        host->error(host, "damped: the view did not pass test.damping/1 through");
        return WB_ERR_INVALID;
    }
    damped *e = calloc(1, sizeof *e);
    double *block = calloc(2 * (size_t)model->nq, sizeof(double));
    if (!e || !block) {
        free(e);
        free(block);
        host->error(host, "damped: out of memory");
        return WB_ERR_NOMEM;
    }
    e->base.model = model, e->base.n = model->nq;
    e->base.v = block, e->base.g = block + model->nq;
    e->c = d->coefficient(model->model_self);
    *inst = e;
    return WB_OK;
}

static int damped_start(void *inst, double t, double h, const double *q, const double *p,
                        const double *carried)
{
    (void)carried;
    return start(inst, t, h, q, p, NULL);
}

static int damped_step(void *inst, double t, double h, const double *q0, const double *p0,
                       double *q1, double *p1, wb_step_stats *stats)
{
    damped *e = inst;
    int status = step(inst, t, h, q0, p0, q1, p1, stats);
    for (int i = 0; i < e->base.n; i++)
        p1[i] *= 1.0 - h * e->c;
    return status;
}

static void damped_aux_values(const void *inst, double *out)
{
    out[0] = ((const damped *)inst)->c;
}

static const wb_method damped_method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "damped",
    .doc = "symplectic Euler with a damping the model gives by an id unknown to the host",
    .requires = damped_requires,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "1",
    .aux = damped_aux,
    .n_aux = 1,
    .create = damped_create,
    .destroy = destroy,
    .start = damped_start,
    .step = damped_step,
    .aux_values = damped_aux_values,
};

/* ---- staggered: an aux unknown at a fraction of the step, and h at start --------------
 * Symplectic Euler that also carries qbar = q + alpha h v, the point its
 * drift reaches at t + alpha h (a variational layer's staggered point, in
 * miniature): declared WB_AUX_AT_OFFSET with theta = alpha, an option, and
 * computed at start() from the h it is given. */
static const wb_option_spec staggered_options[] = {
    {"alpha", WB_OPT_NUMBER, 0.5, -1.0, 1.0, NULL, NULL, "the fraction of the step"},
};

static const wb_aux_spec staggered_aux[] = {
    {.name = "qbar", .size_kind = WB_AUX_CONFIGURATION, .time = WB_AUX_AT_OFFSET,
     .doc = "q + alpha h v, at t + alpha h"},
};

typedef struct staggered {
    euler base;
    double alpha, h;
    double *qbar;
} staggered;

static double staggered_offset(const wb_option_value *opts, uint32_t group)
{
    (void)group;
    return opts[0].number;
}

static void staggered_point(staggered *e, const double *q)
{
    for (int i = 0; i < e->base.n; i++)
        e->qbar[i] = q[i] + e->alpha * e->h * e->base.v[i];
}

static int staggered_create(const wb_host *host, const wb_model *model,
                            const wb_option_value *opts, void **inst)
{
    staggered *e = calloc(1, sizeof *e);
    double *block = calloc(3 * (size_t)model->nq, sizeof(double));
    if (!e || !block) {
        free(e);
        free(block);
        host->error(host, "staggered: out of memory");
        return WB_ERR_NOMEM;
    }
    e->base.model = model, e->base.n = model->nq;
    e->base.v = block, e->base.g = block + model->nq, e->qbar = block + 2 * model->nq;
    e->alpha = opts[0].number;
    *inst = e;
    return WB_OK;
}

static int staggered_start(void *inst, double t, double h, const double *q, const double *p,
                           const double *carried)
{
    staggered *e = inst;
    (void)t;
    e->h = h;
    wb_mass_solve(e->base.model, q, p, e->base.v);
    if (carried)
        memcpy(e->qbar, carried, (size_t)e->base.n * sizeof(double));
    else
        staggered_point(e, q);
    return WB_OK;
}

static int staggered_step(void *inst, double t, double h, const double *q0, const double *p0,
                          double *q1, double *p1, wb_step_stats *stats)
{
    staggered *e = inst;
    int status = step(inst, t, h, q0, p0, q1, p1, stats);
    staggered_point(e, q1);
    return status;
}

static void staggered_aux_values(const void *inst, double *out)
{
    const staggered *e = inst;
    memcpy(out, e->qbar, (size_t)e->base.n * sizeof(double));
}

static const wb_method staggered_method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "staggered",
    .doc = "symplectic Euler carrying a point at t + alpha h",
    .options = staggered_options,
    .n_options = 1,
    .requires = requires,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "1",
    .aux = staggered_aux,
    .n_aux = 1,
    .create = staggered_create,
    .destroy = destroy,
    .start = staggered_start,
    .step = staggered_step,
    .aux_values = staggered_aux_values,
    .aux_time_offset = staggered_offset,
};

static const wb_method *const methods[] = {&method, &damped_method, &staggered_method};
static const wb_family family = {sizeof(wb_family), "future", "test: ABI 1.2 arrays", methods,
                                 3};

WB_PLUGIN_ENTRY = {WB_ABI_MAJOR, 2, sizeof(wb_plugin_entry), WB_KIND_INTEGRATOR, "future",
                   "1.2", "test: a family with larger array elements", &family};
