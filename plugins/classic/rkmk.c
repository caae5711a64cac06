/* rkmk4: the classical RK4 tableau as a Runge-Kutta-Munthe-Kaas method on
 * T*G ~ G x g* (right trivialisation), for Lie-group models:
 *
 *   g' = xi g,   mu' = f2 - ad*_xi mu - A^T nu,   (xi, f2) = f(g, mu),
 *
 * with nu the host's consistent nonholonomic multiplier when the model has
 * velocity constraints.  The group part is integrated in the algebra,
 * u' = dexpinv_u(xi(exp(u) g0, mu)), u(0) = 0, and the momenta as a vector
 * space, both by RK4:
 *
 *   U_i = h sum_j a_ij K_j,  G_i = exp(U_i) g0,  M_i = mu0 + h sum_j a_ij L_j,
 *   K_i = dexpinv_{U_i} xi(G_i, M_i),  L_i = mu'(G_i, M_i),
 *   g1 = exp(h sum_j b_j K_j) g0,  mu1 = mu0 + h sum_j b_j L_j.
 *
 * Explicit, order 4, exactly on the group (only exp and compose touch g),
 * neither symplectic nor conserving: the reference and contrast method for
 * the Lie-group families. */
#include "classic.h"
#include "wb_vec.h"

#include <stdlib.h>

typedef struct rkmk {
    const wb_model *model;
    int nq, nv, k_nh;
    double *K, *L;          /* 4 stages of the algebra and momentum slopes, 4 nv each */
    double *U, *G, *E;      /* algebra increment (nv), stage element (nq), exp(U) (nq) */
    double *M, *xi, *f2;    /* stage momentum, velocity, force (nv each)              */
    double *A, *nu;         /* nonholonomic Jacobian (k x nv) and multiplier (k)       */
} rkmk;

static const char *const rkmk_requires[] = {
    WB_EXT_LIE_GROUP, WB_EXT_LIE_HAMILTONIAN "|" WB_EXT_LIE_LAGRANGIAN, NULL};

static void rkmk_destroy(void *inst)
{
    rkmk *r = inst;
    if (r)
        free(r->K);
    free(r);
}

static int rkmk_create(const wb_host *host, const wb_model *model,
                       const wb_option_value *opts, void **inst)
{
    (void)opts;
    if (!WB_HAS_FIELD(model, wb_model, lie_vector_field)) {
        host->error(host, "rkmk4 needs a workbench host of ABI 1.1 or later");
        return WB_ERR_INVALID;
    }
    rkmk *r = calloc(1, sizeof *r);
    const int nq = model->nq, nv = model->nv, k = model->n_nonholonomic;
    double *block = calloc((size_t)(8 * nv + nv + 2 * nq + 3 * nv + k * nv + k + 1),
                           sizeof(double));
    if (!r || !block) {
        free(r);
        free(block);
        host->error(host, "classic: out of memory");
        return WB_ERR_NOMEM;
    }
    r->model = model, r->nq = nq, r->nv = nv, r->k_nh = k;
    r->K = block, r->L = r->K + 4 * nv;
    r->U = r->L + 4 * nv, r->G = r->U + nv, r->E = r->G + nq;
    r->M = r->E + nq, r->xi = r->M + nv, r->f2 = r->xi + nv;
    r->A = r->f2 + nv, r->nu = r->A + (size_t)k * nv;
    *inst = r;
    return WB_OK;
}

static int rkmk_reset(void *inst, double t, const double *q, const double *p)
{
    (void)inst, (void)t, (void)q, (void)p;
    return WB_OK;
}

/* xi and mu' at (G, M); mu' lands in slope. */
static int rkmk_field(rkmk *r, const double *g, const double *mu, double *slope,
                      wb_step_stats *stats)
{
    const wb_model *m = r->model;
    wb_lie_vector_field(m, g, mu, r->xi, r->f2);
    wb_lie_ad_star(m, r->xi, mu, slope);
    for (int i = 0; i < r->nv; i++)
        slope[i] = r->f2[i] - slope[i];
    stats->function_evals++;
    if (r->k_nh > 0) {
        int status = wb_nh_multiplier(m, g, mu, r->nu);
        if (status != WB_OK)
            return status;
        wb_nh_jacobian_v(m, g, r->xi, r->A);
        for (int a = 0; a < r->k_nh; a++)
            vec_axpy(r->nv, -r->nu[a], r->A + (size_t)a * r->nv, slope);
        stats->linear_solves++;
    }
    return WB_OK;
}

static int rkmk_step(void *inst, double t, double h, const double *q0, const double *p0,
                     double *q1, double *p1, wb_step_stats *stats)
{
    static const double stage_c[4] = {0.0, 0.5, 0.5, 1.0};
    static const double weight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    rkmk *r = inst;
    const wb_model *m = r->model;
    const int nv = r->nv;
    (void)t;
    for (int s = 0; s < 4; s++) {
        double *Ks = r->K + (size_t)s * nv, *Ls = r->L + (size_t)s * nv;
        vec_copy(nv, p0, r->M);
        for (int i = 0; i < nv; i++)
            r->U[i] = 0.0;
        if (s > 0) { /* RK4's a_{s,s-1} = c_s, every other a_ij = 0 */
            vec_axpy(nv, stage_c[s] * h, r->K + (size_t)(s - 1) * nv, r->U);
            vec_axpy(nv, stage_c[s] * h, r->L + (size_t)(s - 1) * nv, r->M);
        }
        wb_lie_exp(m, r->U, r->E);
        wb_lie_compose(m, r->E, q0, r->G);
        int status = rkmk_field(r, r->G, r->M, Ls, stats);
        if (status != WB_OK)
            return status;
        wb_lie_dexpinv(m, r->U, r->xi, Ks);
    }
    for (int i = 0; i < nv; i++)
        r->U[i] = 0.0;
    vec_copy(nv, p0, p1);
    for (int s = 0; s < 4; s++) {
        vec_axpy(nv, weight[s] * h, r->K + (size_t)s * nv, r->U);
        vec_axpy(nv, weight[s] * h, r->L + (size_t)s * nv, p1);
    }
    wb_lie_exp(m, r->U, r->E);
    wb_lie_compose(m, r->E, q0, q1);
    return WB_OK;
}

static int rkmk_describe(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 4;
    out->flags = WB_PROP_EXPLICIT | WB_PROP_LIE_GROUP;
    return WB_OK;
}

const wb_method classic_rkmk4 = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "rkmk4",
    .doc = "RK4 as a Runge-Kutta-Munthe-Kaas method on T*G (index-1 form with velocity "
           "constraints): explicit, order 4, on the group to round-off",
    .requires = rkmk_requires,
    .handles = WB_HANDLES_LIE_GROUP | WB_HANDLES_NONHOLONOMIC,
    .order_doc = "4",
    .property_flags = WB_PROP_EXPLICIT | WB_PROP_LIE_GROUP,
    .describe = rkmk_describe,
    .create = rkmk_create,
    .destroy = rkmk_destroy,
    .reset = rkmk_reset,
    .step = rkmk_step,
};
