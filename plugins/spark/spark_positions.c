/* stage_form = positions: the second-order (Nystrom) form for the constant
 * mass.  The stage momenta are eliminated, P_j = p0 - h sum_k ah_jk F_k, so
 *   Q_i = q0 + h c_i v0 - h^2 sum_k W_ik M^-1 F_k,   W = a ah,  c_i = sum_j a_ij;
 * W's first row vanishes (Q_1 = q0) and so does its last column (IIIB's
 * last column: F_s enters no stage).  Unknowns: the increments
 * Z_i = Q_i - q0, i = 2..s (increments, not Q_i: their digits are not
 * spent on q0), then the s multipliers; rows, in momentum units as the
 * momenta form's,
 *   M Z_i / h - c_i p0 + h sum_k W_ik F_k,   i = 2..s,
 * then g(Q_i) / h and G(q1) M^-1 p1 as in every form.  Jacobian:
 *   d/dZ_k = delta_ik M / h + h W_ik K_k,   d/dL_k = h W_ik G_k^T;
 *   g(Q_i) / h:  d/dZ_i = G(Q_i) / h;
 *   hidden:      d/dZ_s = B(q1; v1),  d/dZ_k -= h b_k G(q1) M^-1 K_k,
 *                d/dL_k = -h b_k G(q1) M^-1 G_k^T.
 * (s - 1) n + s m unknowns against the momenta form's s (n + m). */
#include "spark_internal.h"

#include <string.h>

static int blocks(int s) { return s - 1; }

/* Z_i, i = 2..s (1-based; stage i - 1 here, 0-based) */
static double *stage_Z(const spark *k, double *x, int i) { return x + (size_t)(i - 1) * k->n; }

static void positions(spark *k, const double *x)
{
    const int n = k->n;
    vec_copy(n, k->q0, k->Q);
    for (int i = 1; i < k->s; i++) {
        double *Qi = k->Q + (size_t)i * n;
        const double *Zi = stage_Z(k, (double *)x, i);
        for (int c = 0; c < n; c++)
            Qi[c] = k->q0[c] + Zi[c];
    }
}

/* M Z_i / h - c_i p0 + h sum_k W_ik F_k */
static void rows(spark *k, const double *x, double *r)
{
    const int n = k->n, s = k->s;
    const double h = k->h;
    for (int i = 1; i < s; i++) {
        double *ri = r + (size_t)(i - 1) * n;
        const double *Zi = stage_Z(k, (double *)x, i);
        if (k->sp.ext)
            for (int c = 0; c < n; c++)
                ri[c] = k->sp.mass[c] * Zi[c];
        else
            mat_vec(n, n, k->M, Zi, ri);
        for (int c = 0; c < n; c++)
            ri[c] = ri[c] / h - k->c[i] * k->p0[c];
        for (int j = 0; j < s; j++)
            if (k->W[i * s + j] != 0.0)
                vec_axpy(n, h * k->W[i * s + j], k->F + (size_t)j * n, ri);
    }
}

/* K_j = Hess V(Q_j) + T(Q_j; L_j), j >= 2 (Q_1 = q0 is no unknown's). */
static void stage_hessians(spark *k, const double *x)
{
    const int n = k->n;
    for (int j = 1; j < k->s; j++) {
        const double *Qj = k->Q + (size_t)j * n;
        double *Kj = k->KM + (size_t)j * n * n;
        wb_potential_hessian(k->model, Qj, Kj);
        wb_constraint_hessian_contract(k->model, Qj, spark_stage_L(k, (double *)x, j), k->T);
        for (int e = 0; e < n * n; e++)
            Kj[e] += k->T[e];
    }
}

static void dense_jacobian(spark *k, const double *x, double *J)
{
    const int n = k->n, m = k->m, s = k->s, N = k->size;
    const int g_rows = (s - 1) * n, hidden = g_rows + (s - 1) * m, L_cols = (s - 1) * n;
    const double h = k->h;
    stage_hessians(k, x);
    memset(J, 0, (size_t)N * N * sizeof(double));
    for (int i = 1; i < s; i++) {
        const int row = (i - 1) * n;
        mat_block_add(J, N, row, (i - 1) * n, n, n, k->M, 1.0 / h);
        for (int kk = 0; kk < s; kk++) {
            const double w = h * k->W[i * s + kk];
            if (w == 0.0)
                continue;
            if (kk > 0)
                mat_block_add(J, N, row, (kk - 1) * n, n, n, k->KM + (size_t)kk * n * n, w);
            mat_block_add_t(J, N, row, L_cols + kk * m, n, m, k->G + (size_t)kk * m * n, w);
        }
        mat_block_add(J, N, g_rows + (i - 1) * m, (i - 1) * n, m, n, k->G + (size_t)i * m * n,
                      1.0 / h);
    }
    mat_vec(n, n, k->Minv, k->p1, k->v);
    wb_constraint_hessian_vector(k->model, k->Q + (size_t)(s - 1) * n, k->v, k->B);
    mat_block_add(J, N, hidden, (s - 2) * n, m, n, k->B, 1.0);
    mat_mul(m, n, n, k->G + (size_t)(s - 1) * m * n, k->Minv, k->GM);
    for (int kk = 0; kk < s; kk++) {
        if (k->b[kk] == 0.0)
            continue;
        if (kk > 0) {
            mat_mul(m, n, n, k->GM, k->KM + (size_t)kk * n * n, k->GMKM);
            mat_block_add(J, N, hidden, (kk - 1) * n, m, n, k->GMKM, -h * k->b[kk]);
        }
        mat_mul_bt(m, n, m, k->GM, k->G + (size_t)kk * m * n, k->GG);
        mat_block_add(J, N, hidden, L_cols + kk * m, m, m, k->GG, -h * k->b[kk]);
    }
}

/* The same matrix in its nonzeros, block by block as dense_jacobian. */
static void sparse_jacobian(spark *k, const double *x, double *J)
{
    spark_sparse *sp = &k->sp;
    const int n = k->n, s = k->s, nnz_K = sp->K.csr.pattern.nnz;
    const double h = k->h;
    memset(J, 0, (size_t)sp->J.csr.pattern.nnz * sizeof(double));
    spark_sparse_stage_K(k, x, 1, NULL);
    for (int i = 1; i < s; i++) {
        wb_block_add(&sp->J, sp->identity[i], 1.0 / h, NULL, sp->mass, J);
        for (int kk = 0; kk < s; kk++) {
            const double w = h * k->W[i * s + kk];
            if (kk > 0 && sp->stage_K[i][kk] >= 0)
                wb_block_add(&sp->J, sp->stage_K[i][kk], w, sp->KM + (size_t)kk * nnz_K, NULL,
                             J);
            if (sp->stage_Gt[i][kk] >= 0)
                wb_block_add(&sp->J, sp->stage_Gt[i][kk], w, spark_stage_G(k, kk), NULL, J);
        }
        wb_block_add(&sp->J, sp->position_G[i][i], 1.0 / h, spark_stage_G(k, i), NULL, J);
    }
    spark_inverse_mass_times(k, k->p1, k->v);
    sp->ext->hessian_vector_values(sp->self, k->Q + (size_t)(s - 1) * n, k->v, sp->Bv);
    wb_block_add(&sp->J, sp->hidden_B[s - 1], 1.0, sp->Bv, NULL, J);
    for (int kk = 0; kk < s; kk++) {
        if (kk > 0 && sp->hidden_GK[kk] >= 0) {
            memset(sp->GKv, 0, (size_t)sp->GK.pattern.nnz * sizeof(double));
            wb_csr_product_add(sp->G, spark_stage_G(k, s - 1), sp->inverse_mass,
                               &sp->K.csr.pattern, sp->KM + (size_t)kk * nnz_K, &sp->GK.pattern,
                               1.0, sp->mark, sp->GKv);
            wb_block_add(&sp->J, sp->hidden_GK[kk], -h * k->b[kk], sp->GKv, NULL, J);
        }
        if (sp->hidden_GG[kk] >= 0) {
            spark_sparse_GMGt(k, kk);
            wb_block_add(&sp->J, sp->hidden_GG[kk], -h * k->b[kk], sp->GGv, NULL, J);
        }
    }
}

/* Rows: M Z_i / h - ..., g(Q_i) / h, the hidden constraint; columns: Z_k,
 * L_k.  0, or -1 when out of memory. */
static int place_blocks(spark *k)
{
    spark_sparse *sp = &k->sp;
    const int n = k->n, m = k->m, s = k->s;
    const int g_rows = (s - 1) * n, hidden = g_rows + (s - 1) * m, L_cols = (s - 1) * n;
    const wb_sparse_pattern *K = &sp->K.csr.pattern;
    wb_block_matrix *J = &sp->J;
    wb_block_matrix_init(J, k->size, k->size);
    int ok = 1;
    for (int i = 1; i < s; i++) {
        const int row = (i - 1) * n;
        ok &= spark_place(J, &sp->identity[i], row, row, NULL, 0, n, 1);
        for (int kk = 0; kk < s; kk++) {
            const int coupled = k->W[i * s + kk] != 0.0;
            ok &= spark_place(J, &sp->stage_K[i][kk], row, (kk - 1) * n, K, 0, 0,
                              kk > 0 && coupled);
            ok &= spark_place(J, &sp->stage_Gt[i][kk], row, L_cols + kk * m, sp->G, 1, 0,
                              coupled);
        }
        ok &= spark_place(J, &sp->position_G[i][i], g_rows + (i - 1) * m, row, sp->G, 0, 0, 1);
    }
    ok &= spark_place(J, &sp->hidden_B[s - 1], hidden, (s - 2) * n, sp->G, 0, 0, 1);
    for (int kk = 0; kk < s; kk++) {
        ok &= spark_place(J, &sp->hidden_GK[kk], hidden, (kk - 1) * n, &sp->GK.pattern, 0, 0,
                          kk > 0 && k->b[kk] != 0.0);
        ok &= spark_place(J, &sp->hidden_GG[kk], hidden, L_cols + kk * m, &sp->GG.pattern, 0, 0,
                          k->b[kk] != 0.0);
    }
    return ok && wb_block_matrix_build(J) == 0 ? 0 : -1;
}

/* Z_i = h sum_j a_ij M^-1 P_j: the positions the momenta guess puts the
 * stages at. */
static void from_momenta(spark *k, const double *P, double *x)
{
    const int n = k->n, s = k->s;
    for (int j = 0; j < s; j++)
        spark_inverse_mass_times(k, P + (size_t)j * n, k->V + (size_t)j * n);
    for (int i = 1; i < s; i++) {
        double *Zi = stage_Z(k, x, i);
        for (int c = 0; c < n; c++)
            Zi[c] = 0.0;
        for (int j = 0; j < s; j++)
            if (k->a[i * s + j] != 0.0)
                vec_axpy(n, k->h * k->a[i * s + j], k->V + (size_t)j * n, Zi);
    }
}

const spark_form spark_positions = {
    .blocks = blocks,
    .positions = positions,
    .rows = rows,
    .dense_jacobian = dense_jacobian,
    .sparse_jacobian = sparse_jacobian,
    .place_blocks = place_blocks,
    .from_momenta = from_momenta,
};
