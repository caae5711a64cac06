/* stage_form = momenta: the s stage momenta P_i as unknowns, with
 * Q_i = q0 + h sum_j a_ij M^-1 P_j, and the rows
 * P_i - p0 + h sum_j ah_ij F_j (see spark.c's header). */
#include "spark_internal.h"

#include <string.h>

static int blocks(int s) { return s; }

static double *stage_P(const spark *k, double *x, int i) { return x + (size_t)i * k->n; }

static void positions(spark *k, const double *x)
{
    const int n = k->n, s = k->s;
    for (int j = 0; j < s; j++)
        spark_inverse_mass_times(k, stage_P(k, (double *)x, j), k->V + (size_t)j * n);
    for (int i = 0; i < s; i++) {
        double *Qi = k->Q + (size_t)i * n;
        vec_copy(n, k->q0, Qi);
        for (int j = 0; j < s; j++) {
            const double a = k->h * k->a[i * s + j];
            if (a != 0.0)
                vec_axpy(n, a, k->V + (size_t)j * n, Qi);
        }
    }
}

/* P_i - p0 + h sum_j ah_ij F_j */
static void rows(spark *k, const double *x, double *r)
{
    const int n = k->n, s = k->s;
    for (int i = 0; i < s; i++) {
        double *ri = r + (size_t)i * n;
        const double *Pi = stage_P(k, (double *)x, i);
        for (int c = 0; c < n; c++)
            ri[c] = Pi[c] - k->p0[c];
        for (int j = 0; j < s; j++)
            vec_axpy(n, k->h * k->ah[i * s + j], k->F + (size_t)j * n, ri);
    }
}

/* KM_j = K_j M^-1 with K_j = Hess V(Q_j) + T(Q_j; L_j), the derivative of
 * F_j in Q_j: dQ_j/dP_k = h a_jk M^-1 puts M^-1 after every K_j. */
static void stage_hessians(spark *k, const double *x)
{
    const int n = k->n;
    for (int j = 0; j < k->s; j++) {
        const double *Qj = k->Q + (size_t)j * n;
        wb_potential_hessian(k->model, Qj, k->hess);
        wb_constraint_hessian_contract(k->model, Qj, spark_stage_L(k, (double *)x, j), k->T);
        for (int e = 0; e < n * n; e++)
            k->hess[e] += k->T[e];
        mat_mul(n, n, n, k->hess, k->Minv, k->KM + (size_t)j * n * n);
    }
}

/* Momentum rows P_i - p0 + h sum_j ah_ij F_j:
 *   d/dP_k = delta_ik I + h^2 sum_j ah_ij a_jk K_j M^-1,   d/dL_k = h ah_ik G_k^T */
static void momentum_rows(spark *k, double *J)
{
    const int n = k->n, m = k->m, s = k->s, N = k->size;
    const double h = k->h;
    for (int i = 0; i < s; i++)
        for (int kk = 0; kk < s; kk++) {
            if (i == kk)
                mat_block_add_identity(J, N, i * n, kk * n, n, 1.0);
            for (int j = 0; j < s; j++) {
                const double w = h * h * k->ah[i * s + j] * k->a[j * s + kk];
                if (w != 0.0)
                    mat_block_add(J, N, i * n, kk * n, n, n, k->KM + (size_t)j * n * n, w);
            }
            mat_block_add_t(J, N, i * n, s * n + kk * m, n, m, k->G + (size_t)kk * m * n,
                            h * k->ah[i * s + kk]);
        }
}

/* Position constraint rows g(Q_i)/h, i >= 1: d/dP_k = a_ik G(Q_i) M^-1. */
static void position_rows(spark *k, double *J)
{
    const int n = k->n, m = k->m, s = k->s, N = k->size;
    double *GiM = k->GMKM; /* scratch: the hidden rows come after */
    for (int i = 1; i < s; i++) {
        mat_mul(m, n, n, k->G + (size_t)i * m * n, k->Minv, GiM);
        for (int kk = 0; kk < s; kk++)
            mat_block_add(J, N, s * n + (i - 1) * m, kk * n, m, n, GiM, k->a[i * s + kk]);
    }
}

/* The hidden constraint row G(q1) M^-1 p1, q1 = Q_s, p1 = p0 - h sum_j b_j F_j:
 *   d/dP_k = h a_sk B(q1; M^-1 p1) M^-1 - h^2 sum_j b_j a_jk G(q1) M^-1 K_j M^-1
 *   d/dL_k = -h b_k G(q1) M^-1 G_k^T */
static void hidden_constraint_rows(spark *k, double *J)
{
    const int n = k->n, m = k->m, s = k->s, N = k->size;
    const double h = k->h;
    const int row = s * n + (s - 1) * m;
    mat_vec(n, n, k->Minv, k->p1, k->v);
    wb_constraint_hessian_vector(k->model, k->Q + (size_t)(s - 1) * n, k->v, k->B);
    mat_mul(m, n, n, k->B, k->Minv, k->BM);
    mat_mul(m, n, n, k->G + (size_t)(s - 1) * m * n, k->Minv, k->GM);
    for (int kk = 0; kk < s; kk++)
        mat_block_add(J, N, row, kk * n, m, n, k->BM, h * k->a[(s - 1) * s + kk]);
    for (int j = 0; j < s; j++) {
        mat_mul(m, n, n, k->GM, k->KM + (size_t)j * n * n, k->GMKM);
        for (int kk = 0; kk < s; kk++) {
            const double w = h * h * k->b[j] * k->a[j * s + kk];
            if (w != 0.0)
                mat_block_add(J, N, row, kk * n, m, n, k->GMKM, -w);
        }
    }
    for (int kk = 0; kk < s; kk++) {
        mat_mul_bt(m, n, m, k->GM, k->G + (size_t)kk * m * n, k->GG);
        mat_block_add(J, N, row, s * n + kk * m, m, m, k->GG, -h * k->b[kk]);
    }
}

static void dense_jacobian(spark *k, const double *x, double *J)
{
    stage_hessians(k, x);
    memset(J, 0, (size_t)k->size * k->size * sizeof(double));
    momentum_rows(k, J);
    position_rows(k, J);
    hidden_constraint_rows(k, J);
}

/* The same matrix in its nonzeros (linear_solver = sparse), block by block
 * as momentum_rows, position_rows and hidden_constraint_rows above. */
static void sparse_jacobian(spark *k, const double *x, double *J)
{
    spark_sparse *sp = &k->sp;
    const int n = k->n, s = k->s, nnz_K = sp->K.csr.pattern.nnz;
    const double h = k->h, *Minv = sp->inverse_mass;
    const double *G1 = spark_stage_G(k, s - 1);
    memset(J, 0, (size_t)sp->J.csr.pattern.nnz * sizeof(double));
    spark_sparse_stage_K(k, x, 0, Minv); /* K_j M^-1 */
    for (int i = 0; i < s; i++) {
        wb_block_add(&sp->J, sp->identity[i], 1.0, NULL, NULL, J);
        for (int kk = 0; kk < s; kk++) {
            for (int j = 0; j < s && sp->stage_K[i][kk] >= 0; j++) {
                const double w = h * h * k->ah[i * s + j] * k->a[j * s + kk];
                if (w != 0.0)
                    wb_block_add(&sp->J, sp->stage_K[i][kk], w, sp->KM + (size_t)j * nnz_K,
                                 NULL, J);
            }
            if (sp->stage_Gt[i][kk] >= 0)
                wb_block_add(&sp->J, sp->stage_Gt[i][kk], h * k->ah[i * s + kk],
                             spark_stage_G(k, kk), NULL, J);
            if (i > 0 && sp->position_G[i][kk] >= 0)
                wb_block_add(&sp->J, sp->position_G[i][kk], k->a[i * s + kk],
                             spark_stage_G(k, i), Minv, J);
        }
    }
    spark_inverse_mass_times(k, k->p1, k->v);
    sp->ext->hessian_vector_values(sp->self, k->Q + (size_t)(s - 1) * n, k->v, sp->Bv);
    for (int j = 0; j < s; j++) {
        memset(sp->GKv, 0, (size_t)sp->GK.pattern.nnz * sizeof(double));
        wb_csr_product_add(sp->G, G1, Minv, &sp->K.csr.pattern, sp->KM + (size_t)j * nnz_K,
                           &sp->GK.pattern, 1.0, sp->mark, sp->GKv);
        for (int kk = 0; kk < s; kk++) {
            const double w = h * h * k->b[j] * k->a[j * s + kk];
            if (w != 0.0 && sp->hidden_GK[kk] >= 0)
                wb_block_add(&sp->J, sp->hidden_GK[kk], -w, sp->GKv, NULL, J);
        }
    }
    for (int kk = 0; kk < s; kk++) {
        if (sp->hidden_B[kk] >= 0)
            wb_block_add(&sp->J, sp->hidden_B[kk], h * k->a[(s - 1) * s + kk], sp->Bv, Minv, J);
        if (sp->hidden_GG[kk] < 0)
            continue;
        spark_sparse_GMGt(k, kk);
        wb_block_add(&sp->J, sp->hidden_GG[kk], -h * k->b[kk], sp->GGv, NULL, J);
    }
}

/* The Newton matrix's blocks where the tableau puts nonzero coefficients
 * (rows: momenta, g(Q_i) for i >= 1, the hidden constraint; columns: P_k,
 * L_k); 0 or -1 (out of memory). */
static int place_blocks(spark *k)
{
    spark_sparse *sp = &k->sp;
    const int n = k->n, m = k->m, s = k->s, hidden = s * n + (s - 1) * m;
    const wb_sparse_pattern *K = &sp->K.csr.pattern;
    wb_block_matrix *J = &sp->J;
    wb_block_matrix_init(J, k->size, k->size);
    int ok = 1;
    for (int i = 0; i < s; i++) {
        ok &= spark_place(J, &sp->identity[i], i * n, i * n, NULL, 0, n, 1);
        for (int kk = 0; kk < s; kk++) {
            int coupled = 0;
            for (int j = 0; j < s; j++)
                coupled |= k->ah[i * s + j] * k->a[j * s + kk] != 0.0;
            ok &= spark_place(J, &sp->stage_K[i][kk], i * n, kk * n, K, 0, 0, coupled);
            ok &= spark_place(J, &sp->stage_Gt[i][kk], i * n, s * n + kk * m, sp->G, 1, 0,
                              k->ah[i * s + kk] != 0.0);
            ok &= spark_place(J, &sp->position_G[i][kk], s * n + (i - 1) * m, kk * n, sp->G, 0,
                              0, i > 0 && k->a[i * s + kk] != 0.0);
        }
    }
    for (int kk = 0; kk < s; kk++) {
        int coupled = 0;
        for (int j = 0; j < s; j++)
            coupled |= k->b[j] * k->a[j * s + kk] != 0.0;
        ok &= spark_place(J, &sp->hidden_B[kk], hidden, kk * n, sp->G, 0, 0,
                          k->a[(s - 1) * s + kk] != 0.0);
        ok &= spark_place(J, &sp->hidden_GK[kk], hidden, kk * n, &sp->GK.pattern, 0, 0, coupled);
        ok &= spark_place(J, &sp->hidden_GG[kk], hidden, s * n + kk * m, &sp->GG.pattern, 0, 0,
                          k->b[kk] != 0.0);
    }
    return ok && wb_block_matrix_build(J) == 0 ? 0 : -1;
}

static void from_momenta(spark *k, const double *P, double *x)
{
    vec_copy(k->s * k->n, P, x);
}

const spark_form spark_momenta = {
    .blocks = blocks,
    .positions = positions,
    .rows = rows,
    .dense_jacobian = dense_jacobian,
    .sparse_jacobian = sparse_jacobian,
    .place_blocks = place_blocks,
    .from_momenta = from_momenta,
};
