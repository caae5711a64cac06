/* Variational RKMK (Bogfjellmo-Marthinsen eq. 16) and its r = 0 form with
 * the multipliers eliminated (eq. 12).  Unknowns per stage: X_i, M_i and,
 * for VRKMK, lambda_i; for the iterate,
 *
 *   Q_i = exp(X_i) q0,  (xi_i, n_i) = f(Q_i, M_i),  D_i = dexpinv_(r),X_i xi_i,
 *   Y   = h sum_i b_i D_i,
 *   S   = mu0 + h sum_i b_i Ad*_{exp(X_i)} n_i,   Lam = dexp*_{-Y} S,
 *   W_i = b_i Lam + sum_j a_ji lambda_j                (the transposed a_ji),
 *   lambda_i <- -h b_i dexp*_{X_i} n_i + h P*_(r)(X_i, xi_i) W_i,
 *   M_i      <- (dexpinv_(r),X_i)* W_i / b_i,
 *   X_i      <- h sum_j a_ij D_j,
 * and the step q1 = exp(Y) q0, mu1 = Ad*_{exp(-Y)} S.  Eq. 12 (cmo) is the
 * case r = 0, where P* = 0 and lambda_i = -h b_i dexp*_{X_i} n_i is
 * explicit: it is computed from the current n_i instead of iterated. */
#include "algebra.h"
#include "liegroup.h"

#include "wb_vec.h"

enum { X_BLOCK, M_BLOCK, LAMBDA_BLOCK };

/* The stage values at z: Q_i, xi_i, n_i, D_i, and Y, S, Lam. */
static void stages(liegroup *lg, const double *z)
{
    const wb_model *m = lg->model;
    const int nv = lg->nv, nq = lg->nq, r = lg->cutoff;
    const double h = lg->h;
    for (int i = 0; i < nv; i++)
        lg->Y[i] = 0.0;
    vec_copy(nv, lg->p0, lg->S);
    for (int i = 0; i < lg->s; i++) {
        const double *X = liegroup_cblock(lg, z, X_BLOCK, i);
        const double *M = liegroup_cblock(lg, z, M_BLOCK, i);
        double *E = lg->E + (size_t)i * nq, *Q = lg->Q + (size_t)i * nq;
        double *xi = lg->xi + (size_t)i * nv, *n = lg->f2 + (size_t)i * nv;
        double *D = lg->D + (size_t)i * nv;
        wb_lie_exp(m, X, E);
        wb_lie_compose(m, E, lg->q0, Q);
        liegroup_field(lg, Q, M, xi, n);
        liegroup_dexpinv_truncated(m, r, X, xi, D, lg->algebra);
        vec_axpy(nv, h * lg->b[i], D, lg->Y);
        wb_lie_Ad_star(m, E, n, lg->t1);
        vec_axpy(nv, h * lg->b[i], lg->t1, lg->S);
    }
    for (int i = 0; i < nv; i++)
        lg->t1[i] = -lg->Y[i];
    wb_lie_dexp_star(m, lg->t1, lg->S, lg->Lam);
}

/* lambda_j as the eq. 12 form has it: -h b_j dexp*_{X_j} n_j, into F */
static void explicit_multipliers(liegroup *lg, const double *z)
{
    const int nv = lg->nv;
    for (int j = 0; j < lg->s; j++) {
        double *lambda = lg->F + (size_t)j * nv;
        wb_lie_dexp_star(lg->model, liegroup_cblock(lg, z, X_BLOCK, j),
                         lg->f2 + (size_t)j * nv, lambda);
        for (int k = 0; k < nv; k++)
            lambda[k] *= -lg->h * lg->b[j];
    }
}

static int update(liegroup *lg, const double *z, double *z_next, int eliminated)
{
    const wb_model *m = lg->model;
    const int nv = lg->nv, s = lg->s, r = lg->cutoff;
    const double h = lg->h;
    stages(lg, z);
    if (eliminated)
        explicit_multipliers(lg, z);
    for (int i = 0; i < s; i++) {
        double *W = lg->W + (size_t)i * nv;
        for (int k = 0; k < nv; k++)
            W[k] = lg->b[i] * lg->Lam[k];
        for (int j = 0; j < s; j++) {
            const double a_ji = lg->a[j * s + i];
            if (a_ji != 0.0)
                vec_axpy(nv, a_ji,
                         eliminated ? lg->F + (size_t)j * nv
                                    : liegroup_cblock(lg, z, LAMBDA_BLOCK, j),
                         W);
        }
    }
    for (int i = 0; i < s; i++) {
        const double *X = liegroup_cblock(lg, z, X_BLOCK, i);
        const double *W = lg->W + (size_t)i * nv;
        double *X_next = liegroup_block(lg, z_next, X_BLOCK, i);
        double *M_next = liegroup_block(lg, z_next, M_BLOCK, i);
        for (int k = 0; k < nv; k++)
            X_next[k] = 0.0;
        for (int j = 0; j < s; j++)
            if (lg->a[i * s + j] != 0.0)
                vec_axpy(nv, h * lg->a[i * s + j], lg->D + (size_t)j * nv, X_next);
        liegroup_dexpinv_truncated_star(m, r, X, W, M_next, lg->algebra);
        for (int k = 0; k < nv; k++)
            M_next[k] /= lg->b[i];
        if (eliminated)
            continue;
        double *lambda_next = liegroup_block(lg, z_next, LAMBDA_BLOCK, i);
        wb_lie_dexp_star(m, X, lg->f2 + (size_t)i * nv, lambda_next);
        for (int k = 0; k < nv; k++)
            lambda_next[k] *= -h * lg->b[i];
        if (r > 0) {
            liegroup_pstar(m, r, X, lg->xi + (size_t)i * nv, W, lg->t2, lg->algebra);
            vec_axpy(nv, h, lg->t2, lambda_next);
        }
    }
    return WB_OK;
}

static int vrkmk_map(liegroup *lg, const double *z, double *z_next)
{
    return update(lg, z, z_next, 0);
}

static int cmo_map(liegroup *lg, const double *z, double *z_next)
{
    return update(lg, z, z_next, 1);
}

/* q1 = exp(Y) q0, mu1 = Ad*_{exp(-Y)} S */
static void finish(liegroup *lg, double *q1, double *p1)
{
    const wb_model *m = lg->model;
    wb_lie_exp(m, lg->Y, lg->g1);
    wb_lie_compose(m, lg->g1, lg->q0, q1);
    for (int k = 0; k < lg->nv; k++)
        lg->t1[k] = -lg->Y[k];
    wb_lie_exp(m, lg->t1, lg->g1);
    wb_lie_Ad_star(m, lg->g1, lg->S, p1);
}

static const int vrkmk_blocks[] = {BLOCK_ALGEBRA, BLOCK_MOMENTUM, BLOCK_MULTIPLIER};
static const int cmo_blocks[] = {BLOCK_ALGEBRA, BLOCK_MOMENTUM};

const liegroup_scheme liegroup_vrkmk_scheme = {
    .name = "vrkmk",
    .n_blocks = 3,
    .blocks = vrkmk_blocks,
    .map = vrkmk_map,
    .finish = finish,
};

const liegroup_scheme liegroup_cmo_scheme = {
    .name = "cmo",
    .n_blocks = 2,
    .blocks = cmo_blocks,
    .map = cmo_map,
    .finish = finish,
};
