/* Runge-Kutta-Munthe-Kaas on T*G, the non-symplectic contrast: the group
 * part in the algebra with the truncated dexpinv, the momentum as a vector
 * space (its true derivative mu' = f2 - ad*_xi mu):
 *
 *   G_i = exp(U_i) q0,  (xi_i, n_i) = f(G_i, M_i),
 *   K_i = dexpinv_(r),U_i xi_i,  L_i = n_i - ad*_{xi_i} M_i,
 *   U_i <- h sum_j a_ij K_j,  M_i <- mu0 + h sum_j a_ij L_j,
 *   q1 = exp(h sum_i b_i K_i) q0,  mu1 = mu0 + h sum_i b_i L_i.
 *
 * An explicit tableau is evaluated stage by stage (no iteration); Euler's
 * is the Lie-Euler method q1 = exp(h xi0) q0, mu1 = mu0 + h (n0 - ad*_xi0 mu0). */
#include "algebra.h"
#include "liegroup.h"

#include "wb_vec.h"

enum { U_BLOCK, M_BLOCK };

/* K_i and L_i (in D and F) at stage values U, M */
static void slopes(liegroup *lg, int i, const double *U, const double *M)
{
    const wb_model *m = lg->model;
    const int nv = lg->nv, nq = lg->nq;
    double *G = lg->Q + (size_t)i * nq, *xi = lg->xi + (size_t)i * nv;
    double *n = lg->f2 + (size_t)i * nv, *L = lg->F + (size_t)i * nv;
    wb_lie_exp(m, U, lg->g1);
    wb_lie_compose(m, lg->g1, lg->q0, G);
    liegroup_field(lg, G, M, xi, n);
    liegroup_dexpinv_truncated(m, lg->cutoff, U, xi, lg->D + (size_t)i * nv, lg->algebra);
    wb_lie_ad_star(m, xi, M, L);
    for (int k = 0; k < nv; k++)
        L[k] = n[k] - L[k];
}

/* row i of the tableau applied to the slopes: U = h sum a_ij K_j, M = mu0 + h sum a_ij L_j */
static void combine(liegroup *lg, const double *row, double *U, double *M)
{
    const int nv = lg->nv;
    for (int k = 0; k < nv; k++)
        U[k] = 0.0;
    vec_copy(nv, lg->p0, M);
    for (int j = 0; j < lg->s; j++)
        if (row[j] != 0.0) {
            vec_axpy(nv, lg->h * row[j], lg->D + (size_t)j * nv, U);
            vec_axpy(nv, lg->h * row[j], lg->F + (size_t)j * nv, M);
        }
}

static int rkmk_map(liegroup *lg, const double *z, double *z_next)
{
    const int s = lg->s;
    if (lg->sequential) { /* explicit: each stage from the ones before */
        for (int i = 0; i < s; i++) {
            combine(lg, lg->a + (size_t)i * s, lg->t1, lg->t2);
            slopes(lg, i, lg->t1, lg->t2);
        }
        return WB_OK;
    }
    for (int i = 0; i < s; i++)
        slopes(lg, i, liegroup_cblock(lg, z, U_BLOCK, i), liegroup_cblock(lg, z, M_BLOCK, i));
    for (int i = 0; i < s; i++)
        combine(lg, lg->a + (size_t)i * s, liegroup_block(lg, z_next, U_BLOCK, i),
                liegroup_block(lg, z_next, M_BLOCK, i));
    return WB_OK;
}

static void rkmk_finish(liegroup *lg, double *q1, double *p1)
{
    combine(lg, lg->b, lg->Y, p1);
    wb_lie_exp(lg->model, lg->Y, lg->g1);
    wb_lie_compose(lg->model, lg->g1, lg->q0, q1);
}

static const int rkmk_blocks[] = {BLOCK_ALGEBRA, BLOCK_MOMENTUM};

const liegroup_scheme liegroup_rkmk_scheme = {
    .name = "rkmk",
    .n_blocks = 2,
    .blocks = rkmk_blocks,
    .map = rkmk_map,
    .finish = rkmk_finish,
};
