/* The vector field of the augmented system q' = v, v' = A(q, v), S' = L(q, v)
 * for L = 1/2 v^T M v - V(q), M constant, with holonomic constraints
 * (paper (1.2)-(1.4), (4.2)-(4.3)).  A and the multiplier solve
 *
 *     [ M   -G^T ] [ A      ]   [ -grad V          ]
 *     [ -G   0   ] [ lambda ] = [ (v^T D^2 g_a v)_a ]
 *
 * and their derivatives solve the same matrix (digest 2.6, with the
 * corrected signs; no Christoffel or gyroscopic terms for a constant M and
 * a Lagrangian without a(q)):
 *
 *     q-columns: [ -Hess V + sum_a lambda_a D^2 g_a ; B(q; A) + D^3 g(v, v, .) ]
 *     v-columns: [ 0 ; 2 B(q; v) ],     B(q; w) row a = (D^2 g_a w)^T.
 *
 * The system is solved at any (q, v), on TQ or not: the stages of the
 * standard layer leave it (pitfall 5). */
#include "variationalize.h"
#include "wb_mass.h"
#include "wb_vec.h"

#include <stdlib.h>
#include <string.h>

int vz_field_init(vz_field *f, const wb_host *host, const wb_model *model)
{
    memset(f, 0, sizeof *f);
    f->host = host, f->model = model;
    const size_t n = (size_t)model->nq, m = (size_t)model->n_holonomic, k = n + m;
    f->n = (int)n, f->m = (int)m;
    const size_t total = 2 * n * n + k * k + k * (2 * n + 1) + 3 * m * n + 2 * n * n + n + 2 * m + 2 * n;
    double *block = calloc(total, sizeof(double));
    f->pivots = calloc(k + 1, sizeof(int));
    if (!block || !f->pivots) {
        free(block);
        free(f->pivots);
        f->pivots = NULL;
        return WB_ERR_NOMEM;
    }
    f->M = block;
    f->Minv = f->M + n * n;
    f->kkt = f->Minv + n * n;
    f->rhs = f->kkt + k * k;
    f->G = f->rhs + k * (2 * n + 1);
    f->B = f->G + m * n;
    f->third = f->B + m * n;
    f->T = f->third + m * n;
    f->D = f->T + n * n;
    f->grad = f->D + n * n;
    f->lambda = f->grad + n;
    f->unit = f->lambda + m;
    /* M is constant: any q will do (the scratch after unit has 2n doubles) */
    wb_mass(model, f->grad, f->M);
    wb_constant_inverse_mass(model, f->unit + m, f->Minv);
    return WB_OK;
}

void vz_field_free(vz_field *f)
{
    free(f->M);
    free(f->pivots);
    f->M = NULL, f->pivots = NULL;
}

/* The saddle-point matrix at q, factored: [[M, -G^T], [-G, 0]]. */
static int factor_kkt(vz_field *f, const double *q)
{
    const int n = f->n, m = f->m, k = n + m;
    double *K = f->kkt;
    wb_constraint_jacobian(f->model, q, f->G);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            double value = 0.0;
            if (i < n && j < n)
                value = f->M[i * n + j];
            else if (i < n)
                value = -f->G[(j - n) * n + i];
            else if (j < n)
                value = -f->G[(i - n) * n + j];
            K[i * k + j] = value;
        }
    int status = f->host->lu_factor(f->host, k, K, f->pivots);
    if (status != WB_OK)
        f->host->error(f->host, "variationalize: the constrained field's saddle-point matrix "
                                "[[M, -G^T], [-G, 0]] is singular at q (G without full rank?)");
    return status;
}

/* sum_i v_i D^3 g_a(., v, .) row by row: out (m x n), row a, column j =
 * sum_il g_a,ilj v_i v_l. */
static void third_terms(vz_field *f, const double *q, const double *v, double *out)
{
    const int n = f->n, m = f->m;
    for (int a = 0; a < m; a++) {
        for (int b = 0; b < m; b++)
            f->unit[b] = (a == b);
        wb_constraint_third_contract(f->model, q, f->unit, v, f->D);
        mat_t_vec(n, n, f->D, v, out + (size_t)a * n);
    }
}

int vz_field_eval(vz_field *f, const double *q, const double *v, double *A, double *L,
                  double *dA, double *dL, wb_step_stats *stats)
{
    const int n = f->n, m = f->m, k = n + m, dim = 2 * n;
    const wb_model *model = f->model;
    const wb_host *host = f->host;
    if (stats)
        stats->function_evals++;
    wb_potential_gradient(model, q, f->grad);
    if (L) {
        double kinetic = 0.0;
        for (int i = 0; i < n; i++)
            kinetic += v[i] * vec_dot(n, f->M + (size_t)i * n, v);
        *L = 0.5 * kinetic - wb_potential(model, q);
    }
    if (dL) {
        for (int i = 0; i < n; i++) {
            dL[i] = -f->grad[i];
            dL[n + i] = vec_dot(n, f->M + (size_t)i * n, v);
        }
    }
    if (m == 0) {
        /* A = -M^-1 grad V, A_q = -M^-1 Hess V, A_v = 0 */
        mat_vec(n, n, f->Minv, f->grad, A);
        for (int i = 0; i < n; i++)
            A[i] = -A[i];
        if (dA) {
            wb_potential_hessian(model, q, f->T);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < dim; j++) {
                    double value = 0.0;
                    if (j < n)
                        for (int l = 0; l < n; l++)
                            value -= f->Minv[i * n + l] * f->T[l * n + j];
                    dA[(size_t)i * dim + j] = value;
                }
        }
        return WB_OK;
    }
    int status = factor_kkt(f, q);
    if (status != WB_OK)
        return status;
    /* A and lambda */
    double *x = f->rhs;
    for (int i = 0; i < n; i++)
        x[i] = -f->grad[i];
    wb_constraint_hessian_vector(model, q, v, f->B);
    for (int a = 0; a < m; a++)
        x[n + a] = vec_dot(n, f->B + (size_t)a * n, v);
    status = host->lu_solve(host, k, 1, f->kkt, f->pivots, x);
    if (stats)
        stats->linear_solves++;
    if (status != WB_OK)
        return status;
    vec_copy(n, x, A);
    vec_copy(m, x + n, f->lambda);
    if (!dA)
        return WB_OK;
    /* the 2n derivative columns, one right-hand side each */
    double *cols = f->rhs + k;
    wb_potential_hessian(model, q, f->T);
    for (int j = 0; j < n * n; j++)
        f->T[j] = -f->T[j];
    wb_constraint_hessian_contract(model, q, f->lambda, f->D);
    for (int j = 0; j < n * n; j++)
        f->T[j] += f->D[j];             /* -Hess V + sum_a lambda_a D^2 g_a */
    double *third = f->third;
    const int quadratic = (model->holonomic_flags & WB_HOLONOMIC_QUADRATIC) != 0;
    /* B(q; A) first into the rhs bottoms, then B(q; v) is needed again */
    double *BA = f->B;                  /* reuse: B(q; v) is recomputed below */
    wb_constraint_hessian_vector(model, q, A, BA);
    for (int j = 0; j < n; j++) {
        double *c = cols + (size_t)j * k;
        for (int i = 0; i < n; i++)
            c[i] = f->T[i * n + j];
        for (int a = 0; a < m; a++)
            c[n + a] = BA[a * n + j];
    }
    if (!quadratic) {
        third_terms(f, q, v, third);
        for (int j = 0; j < n; j++)
            for (int a = 0; a < m; a++)
                cols[(size_t)j * k + n + a] += third[a * n + j];
    }
    wb_constraint_hessian_vector(model, q, v, f->B);
    for (int j = 0; j < n; j++) {
        double *c = cols + (size_t)(n + j) * k;
        for (int i = 0; i < n; i++)
            c[i] = 0.0;
        for (int a = 0; a < m; a++)
            c[n + a] = 2.0 * f->B[a * n + j];
    }
    status = host->lu_solve(host, k, dim, f->kkt, f->pivots, cols);
    if (stats)
        stats->linear_solves++;
    if (status != WB_OK)
        return status;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < dim; j++)
            dA[(size_t)i * dim + j] = cols[(size_t)j * k + i];
    return WB_OK;
}
