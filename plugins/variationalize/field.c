/* The vector field of the augmented system q' = v, v' = A(q, v), S' = L(q, v)
 * for L = 1/2 v^T M v - V(q), M constant, with holonomic constraints
 * (paper (1.2)-(1.4), (4.2)-(4.3)).  A and the multiplier solve
 *
 *     [ M   -G^T ] [ A      ]   [ -grad V          ]
 *     [ -G   0   ] [ lambda ] = [ (v^T D^2 g_a v)_a ]
 *
 * (solved through the Schur complement G M^-1 G^T of the constant M), and
 * their derivatives solve the same matrix (digest 2.6, with the
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

#include <workbench/groups/small_matrix.h>

#include <stdlib.h>
#include <string.h>

int vz_field_init(vz_field *f, const wb_host *host, const wb_model *model)
{
    memset(f, 0, sizeof *f);
    f->host = host, f->model = model;
    const size_t n = (size_t)model->nq, m = (size_t)model->n_holonomic;
    f->n = (int)n, f->m = (int)m;
    const size_t total = 2 * n * n + n * m + 2 * m * m + 2 * m * n + 3 * m * n + 2 * n * n +
                         2 * n + 2 * m + 2 * n + 1;
    double *block = calloc(total, sizeof(double));
    if (!block)
        return WB_ERR_NOMEM;
    f->M = block;
    f->Minv = f->M + n * n;
    f->MinvGt = f->Minv + n * n;
    f->S = f->MinvGt + n * m;
    f->S_lu = f->S + m * m;
    f->rhs = f->S_lu + m * m;
    f->G = f->rhs + 2 * m * n;
    f->B = f->G + m * n;
    f->third = f->B + m * n;
    f->T = f->third + m * n;
    f->D = f->T + n * n;
    f->grad = f->D + n * n;
    f->u = f->grad + n;
    f->lambda = f->u + n;
    f->unit = f->lambda + m;
    /* M is constant: any q will do (the scratch after unit has 2n doubles) */
    wb_mass(model, f->grad, f->M);
    wb_constant_inverse_mass(model, f->unit + m, f->Minv);
    return WB_OK;
}

void vz_field_free(vz_field *f)
{
    free(f->M);
    f->M = NULL;
}

/* The constraint terms through the Schur complement of the constant M:
 * with u = M^-1 grad V and S = G M^-1 G^T (d x d, positive definite when G
 * has full rank), A = M^-1 G^T lambda - u and S lambda = G u - c.  For a
 * derivative with right-hand side [R1; R2] of the saddle-point matrix:
 * S dlambda = -R2 - G M^-1 R1, dA = M^-1 R1 + M^-1 G^T dlambda. */
static int schur(vz_field *f, const double *q)
{
    const int n = f->n, m = f->m;
    wb_constraint_jacobian(f->model, q, f->G);
    for (int i = 0; i < n; i++) /* MinvGt = M^-1 G^T, n x m */
        for (int a = 0; a < m; a++)
            f->MinvGt[i * m + a] = vec_dot(n, f->Minv + (size_t)i * n, f->G + (size_t)a * n);
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            double value = 0.0;
            for (int i = 0; i < n; i++)
                value += f->G[a * n + i] * f->MinvGt[i * m + b];
            f->S[a * m + b] = value;
        }
    return WB_OK;
}

/* X (m x cols, row-major) = S^-1 X */
static int solve_schur(vz_field *f, int cols, double *X, wb_step_stats *stats)
{
    const int m = f->m;
    memcpy(f->S_lu, f->S, (size_t)m * m * sizeof(double));
    if (stats)
        stats->linear_solves++;
    if (wb_small_solve(m, cols, f->S_lu, X) == 0)
        return WB_OK;
    f->host->error(f->host, "variationalize: G M^-1 G^T is singular: the constraint Jacobian "
                            "of model '%s' has no full rank here", f->model->name);
    return WB_ERR_SINGULAR;
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
    const int n = f->n, m = f->m, dim = 2 * n;
    const wb_model *model = f->model;
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
    /* A = -M^-1 grad V (+ M^-1 G^T lambda) */
    mat_vec(n, n, f->Minv, f->grad, f->u);
    for (int i = 0; i < n; i++)
        A[i] = -f->u[i];
    if (dA) {
        /* R1 = -Hess V (+ sum_a lambda_a D^2 g_a), Z = M^-1 R1 into the q-columns */
        wb_potential_hessian(model, q, f->T);
        for (int j = 0; j < n * n; j++)
            f->T[j] = -f->T[j];
    }
    if (m > 0) {
        int status = schur(f, q);
        if (status != WB_OK)
            return status;
        wb_constraint_hessian_vector(model, q, v, f->B);
        double *lambda = f->lambda;
        for (int a = 0; a < m; a++) /* G u - c, c_a = v^T D^2 g_a v */
            lambda[a] = vec_dot(n, f->G + (size_t)a * n, f->u) -
                        vec_dot(n, f->B + (size_t)a * n, v);
        status = solve_schur(f, 1, lambda, stats);
        if (status != WB_OK)
            return status;
        for (int i = 0; i < n; i++)
            A[i] += vec_dot(m, f->MinvGt + (size_t)i * m, lambda);
        if (dA) {
            wb_constraint_hessian_contract(model, q, lambda, f->D);
            for (int j = 0; j < n * n; j++)
                f->T[j] += f->D[j];
        }
    }
    if (!dA)
        return WB_OK;
    /* dA = [M^-1 R1 | 0] first */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < dim; j++) {
            double value = 0.0;
            if (j < n)
                for (int l = 0; l < n; l++)
                    value += f->Minv[i * n + l] * f->T[l * n + j];
            dA[(size_t)i * dim + j] = value;
        }
    if (m == 0)
        return WB_OK;
    /* R2: q-columns B(q; A) + D^3 g(v, v, .), v-columns 2 B(q; v); then
     * dlambda = S^-1 (-R2 - G M^-1 R1) (M^-1 R1 = 0 in the v-columns) */
    double *X = f->rhs; /* m x 2n */
    for (int a = 0; a < m; a++)
        for (int j = 0; j < n; j++)
            X[a * dim + n + j] = -2.0 * f->B[a * n + j];
    wb_constraint_hessian_vector(model, q, A, f->B);
    if (!(model->holonomic_flags & WB_HOLONOMIC_QUADRATIC))
        third_terms(f, q, v, f->third);
    for (int a = 0; a < m; a++)
        for (int j = 0; j < n; j++) {
            double value = -f->B[a * n + j];
            if (!(model->holonomic_flags & WB_HOLONOMIC_QUADRATIC))
                value -= f->third[a * n + j];
            for (int i = 0; i < n; i++)
                value -= f->G[a * n + i] * dA[(size_t)i * dim + j];
            X[a * dim + j] = value;
        }
    int status = solve_schur(f, dim, X, stats);
    if (status != WB_OK)
        return status;
    for (int i = 0; i < n; i++)
        for (int a = 0; a < m; a++) {
            const double w = f->MinvGt[i * m + a];
            if (w != 0.0)
                vec_axpy(dim, w, X + (size_t)a * dim, dA + (size_t)i * dim);
        }
    return WB_OK;
}
