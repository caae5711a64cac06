/* Explicit methods of the `classic` family.
 *
 * verlet: Stormer-Verlet (kick-drift-kick) for unconstrained models with a
 *   constant mass matrix; symplectic, symmetric, order 2.
 * rk4: the classical Runge-Kutta method on Hamilton's equations
 *   q' = M^-1 p, p' = -grad V - dT/dq.  On a model with holonomic or
 *   nonholonomic constraints it integrates the index-1 formulation (the
 *   multipliers from the host's consistent ones, index1_multiplier and
 *   nh_multiplier) without projection: the classical,
 *   non-structure-preserving baseline whose constraints drift. */
#include "classic.h"
#include "wb_mass.h"
#include "wb_vec.h"

#include <stdlib.h>

/* ---- Stormer-Verlet ------------------------------------------------------------ */

typedef struct verlet {
    const wb_model *model;
    int n;
    double *grad, *cached_q, *half, *v;
    int cache_valid;
} verlet;

static int verlet_create(const wb_host *host, const wb_model *model,
                         const wb_option_value *opts, void **inst)
{
    (void)opts;
    /* with M(q), dT/dq enters the half kick, which becomes implicit */
    int status = wb_require_constant_mass(host, model, "Stormer-Verlet");
    if (status != WB_OK)
        return status;
    verlet *v = calloc(1, sizeof *v);
    double *block = calloc(4 * (size_t)model->nq, sizeof(double));
    if (!v || !block) {
        free(v);
        free(block);
        host->error(host, "classic: out of memory");
        return WB_ERR_NOMEM;
    }
    v->model = model, v->n = model->nq;
    v->grad = block, v->cached_q = block + v->n, v->half = block + 2 * v->n;
    v->v = block + 3 * v->n;
    *inst = v;
    return WB_OK;
}

static void verlet_destroy(void *inst)
{
    verlet *v = inst;
    if (v)
        free(v->grad);
    free(v);
}

static int verlet_reset(void *inst, double t, const double *q, const double *p)
{
    (void)t, (void)q, (void)p;
    ((verlet *)inst)->cache_valid = 0;
    return WB_OK;
}

static int verlet_step(void *inst, double t, double h, const double *q0, const double *p0,
                       double *q1, double *p1, wb_step_stats *stats)
{
    verlet *v = inst;
    const int n = v->n;
    (void)t;
    if (!v->cache_valid || !vec_equal(n, q0, v->cached_q)) {
        wb_potential_gradient(v->model, q0, v->grad);
        stats->function_evals++;
    }
    for (int i = 0; i < n; i++)
        v->half[i] = p0[i] - 0.5 * h * v->grad[i];
    wb_mass_solve(v->model, q0, v->half, v->v);
    for (int i = 0; i < n; i++)
        q1[i] = q0[i] + h * v->v[i];
    wb_potential_gradient(v->model, q1, v->grad);
    stats->function_evals++;
    for (int i = 0; i < n; i++)
        p1[i] = v->half[i] - 0.5 * h * v->grad[i];
    vec_copy(n, q1, v->cached_q);
    v->cache_valid = 1;
    return WB_OK;
}

static int verlet_describe(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 2;
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING |
                 WB_PROP_EXPLICIT;
    return WB_OK;
}

static const char *const mechanical_only[] = {WB_EXT_MECHANICAL, NULL};

const wb_method classic_verlet = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "verlet",
    .doc = "Stormer-Verlet (kick-drift-kick) for unconstrained systems",
    .requires = mechanical_only,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "2",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING |
                      WB_PROP_EXPLICIT,
    .describe = verlet_describe,
    .create = verlet_create,
    .destroy = verlet_destroy,
    .reset = verlet_reset,
    .step = verlet_step,
};

/* ---- classical RK4 ------------------------------------------------------------- */

typedef struct rk4 {
    const wb_model *model;
    int n, m, k_nh;
    double *k, *y, *tmp, *lambda, *G;
} rk4;

static int rk4_create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                      void **inst)
{
    (void)host, (void)opts;
    rk4 *r = calloc(1, sizeof *r);
    const int n = model->nq, m = model->n_holonomic, k_nh = model->n_nonholonomic;
    const int c = m > k_nh ? m : k_nh; /* lambda and G hold either kind's */
    double *block = calloc((size_t)(8 * n + 2 * n + n + c + c * n + 1), sizeof(double));
    if (!r || !block) {
        free(r);
        free(block);
        host->error(host, "classic: out of memory");
        return WB_ERR_NOMEM;
    }
    r->model = model, r->n = n, r->m = m, r->k_nh = k_nh;
    r->k = block;                  /* 4 stages of (dq, dp): 8n */
    r->y = block + 8 * n;          /* stage state (q, p): 2n */
    r->tmp = r->y + 2 * n;         /* n */
    r->lambda = r->tmp + n;        /* max(m, k) */
    r->G = r->lambda + c;          /* max(m, k) x n */
    *inst = r;
    return WB_OK;
}

static void rk4_destroy(void *inst)
{
    rk4 *r = inst;
    if (r)
        free(r->k);
    free(r);
}

static int rk4_reset(void *inst, double t, const double *q, const double *p)
{
    (void)inst, (void)t, (void)q, (void)p;
    return WB_OK;
}

/* dp -= C^T lambda for c constraints with Jacobian C (c x n). */
static void constraint_force(int n, int c, const double *C, const double *lambda, double *dp)
{
    for (int k = 0; k < c; k++)
        vec_axpy(n, -lambda[k], C + (size_t)k * n, dp);
}

/* (dq, dp) = f(q, p), with the consistent multipliers on a constrained
 * model (one joint system when it has both kinds). */
static int rk4_field(rk4 *r, const double *q, const double *p, double *dq, double *dp,
                     wb_step_stats *stats)
{
    const int n = r->n;
    wb_mass_solve(r->model, q, p, dq);
    wb_potential_gradient(r->model, q, dp);
    wb_kinetic_gradient(r->model, q, p, r->tmp);
    for (int i = 0; i < n; i++)
        dp[i] = -dp[i] - r->tmp[i];
    stats->function_evals++;
    /* the host's consistent multipliers evaluate grad V once more each
     * (model_view.h): counted, function_evals being what the model was asked */
    if (r->m > 0) {
        int status = wb_index1_multiplier(r->model, q, p, r->lambda);
        stats->function_evals++;
        if (status != WB_OK)
            return status;
        wb_constraint_jacobian(r->model, q, r->G);
        constraint_force(n, r->m, r->G, r->lambda, dp);
        stats->linear_solves++;
    }
    if (r->k_nh > 0) {
        int status = wb_nh_multiplier(r->model, q, p, r->lambda);
        stats->function_evals++;
        if (status != WB_OK)
            return status;
        wb_nh_jacobian_v(r->model, q, dq, r->G);
        constraint_force(n, r->k_nh, r->G, r->lambda, dp);
        stats->linear_solves++;
    }
    return WB_OK;
}

static int rk4_step(void *inst, double t, double h, const double *q0, const double *p0,
                    double *q1, double *p1, wb_step_stats *stats)
{
    static const double stage_c[4] = {0.0, 0.5, 0.5, 1.0};
    static const double weight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    rk4 *r = inst;
    const int n = r->n;
    (void)t;
    for (int s = 0; s < 4; s++) {
        double *yq = r->y, *yp = r->y + n;
        vec_copy(n, q0, yq);
        vec_copy(n, p0, yp);
        if (s > 0) {
            const double *prev = r->k + (size_t)(s - 1) * 2 * n;
            vec_axpy(n, stage_c[s] * h, prev, yq);
            vec_axpy(n, stage_c[s] * h, prev + n, yp);
        }
        double *ks = r->k + (size_t)s * 2 * n;
        int status = rk4_field(r, yq, yp, ks, ks + n, stats);
        if (status != WB_OK)
            return status;
    }
    vec_copy(n, q0, q1);
    vec_copy(n, p0, p1);
    for (int s = 0; s < 4; s++) {
        const double *ks = r->k + (size_t)s * 2 * n;
        vec_axpy(n, weight[s] * h, ks, q1);
        vec_axpy(n, weight[s] * h, ks + n, p1);
    }
    return WB_OK;
}

static int rk4_describe(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 4;
    out->flags = WB_PROP_EXPLICIT;
    return WB_OK;
}

const wb_method classic_rk4 = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "rk4",
    .doc = "classical explicit RK4 on Hamilton's equations (index-1 form if constrained)",
    .requires = mechanical_only,
    .handles = WB_HANDLES_UNCONSTRAINED | WB_HANDLES_HOLONOMIC | WB_HANDLES_NONHOLONOMIC,
    .order_doc = "4",
    .property_flags = WB_PROP_EXPLICIT,
    .describe = rk4_describe,
    .create = rk4_create,
    .destroy = rk4_destroy,
    .reset = rk4_reset,
    .step = rk4_step,
};
