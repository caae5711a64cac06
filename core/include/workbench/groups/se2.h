/*
 * workbench/groups/se2.h -- SE(2), the rigid motions of the plane
 * (header-only).
 *
 * q = (R11, R12, R21, R22, t1, t2) for the element [[R, t], [0, 1]];
 * xi = (w, u1, u2) for [[0, -w, u1], [w, 0, u2], [0, 0, 0]], so
 *   [(w, u), (w', u')] = (0, w J u' - w' J u),  J = [[0, -1], [1, 0]],
 *   Ad_(R, t) (w, u) = (w, R u - w J t),
 *   exp(w, u) = (R(w), V(w) u),  V = (sin w / w) I + ((1 - cos w) / w) J.
 * dexp is phi(ad_x) (workbench/groups/small_matrix.h), dexpinv its
 * inverse, the Cayley family the matrix formulas; duals by transposition.
 */
#ifndef WORKBENCH_GROUPS_SE2_H
#define WORKBENCH_GROUPS_SE2_H

#include "small_matrix.h"
#include "so3.h"

static inline void wb_se2_identity(double *q)
{
    q[0] = 1.0, q[1] = 0.0, q[2] = 0.0, q[3] = 1.0, q[4] = 0.0, q[5] = 0.0;
}

/* (R1, t1)(R2, t2) = (R1 R2, R1 t2 + t1) (ab may not alias a or b) */
static inline void wb_se2_compose(const double *a, const double *b, double *ab)
{
    ab[0] = a[0] * b[0] + a[1] * b[2], ab[1] = a[0] * b[1] + a[1] * b[3];
    ab[2] = a[2] * b[0] + a[3] * b[2], ab[3] = a[2] * b[1] + a[3] * b[3];
    ab[4] = a[0] * b[4] + a[1] * b[5] + a[4];
    ab[5] = a[2] * b[4] + a[3] * b[5] + a[5];
}

/* (R^T, -R^T t) */
static inline void wb_se2_inverse(const double *a, double *inverse)
{
    inverse[0] = a[0], inverse[1] = a[2], inverse[2] = a[1], inverse[3] = a[3];
    inverse[4] = -(a[0] * a[4] + a[2] * a[5]);
    inverse[5] = -(a[1] * a[4] + a[3] * a[5]);
}

/* V(w) = alpha I + beta J with alpha = sin w / w, beta = (1 - cos w) / w */
static inline void wb_se2_V(double w, double *alpha, double *beta)
{
    const double t = fabs(w);
    *alpha = wb_so3_coefficient_a(t);
    *beta = w * wb_so3_coefficient_b(t);
}

static inline void wb_se2_exp(const double *xi, double *q)
{
    const double w = xi[0], c = cos(w), s = sin(w);
    double alpha, beta;
    wb_se2_V(w, &alpha, &beta);
    q[0] = c, q[1] = -s, q[2] = s, q[3] = c;
    q[4] = alpha * xi[1] - beta * xi[2];
    q[5] = beta * xi[1] + alpha * xi[2];
}

static inline void wb_se2_log(const double *q, double *xi)
{
    const double w = atan2(q[2], q[0]);
    double alpha, beta;
    wb_se2_V(w, &alpha, &beta);
    const double det = alpha * alpha + beta * beta;
    xi[0] = w;
    xi[1] = (alpha * q[4] + beta * q[5]) / det;
    xi[2] = (-beta * q[4] + alpha * q[5]) / det;
}

/* the 3 x 3 matrix of ad_x */
static inline void wb_se2_ad_matrix(const double *x, double *A)
{
    A[0] = 0.0, A[1] = 0.0, A[2] = 0.0;
    A[3] = x[2], A[4] = 0.0, A[5] = -x[0];
    A[6] = -x[1], A[7] = x[0], A[8] = 0.0;
}

static inline void wb_se2_ad(const double *x, const double *y, double *out)
{
    double A[9];
    wb_se2_ad_matrix(x, A);
    wb_small_apply(3, A, y, out);
}

static inline void wb_se2_ad_star(const double *x, const double *mu, double *out)
{
    double A[9];
    wb_se2_ad_matrix(x, A);
    wb_small_apply_transpose(3, A, mu, out);
}

/* the matrix of Ad_q: [[1, 0], [-J t, R]] */
static inline void wb_se2_Ad_matrix(const double *q, double *A)
{
    A[0] = 1.0, A[1] = 0.0, A[2] = 0.0;
    A[3] = q[5], A[4] = q[0], A[5] = q[1];
    A[6] = -q[4], A[7] = q[2], A[8] = q[3];
}

static inline void wb_se2_Ad(const double *q, const double *x, double *out)
{
    double A[9];
    wb_se2_Ad_matrix(q, A);
    wb_small_apply(3, A, x, out);
}

static inline void wb_se2_Ad_star(const double *q, const double *mu, double *out)
{
    double A[9];
    wb_se2_Ad_matrix(q, A);
    wb_small_apply_transpose(3, A, mu, out);
}

/* the matrix of dexp_x = phi(ad_x) */
static inline void wb_se2_dexp_matrix(const double *x, double *D)
{
    double A[9];
    wb_se2_ad_matrix(x, A);
    wb_small_phi(3, A, D);
}

static inline void wb_se2_dexp(const double *x, const double *v, double *out)
{
    double D[9];
    wb_se2_dexp_matrix(x, D);
    wb_small_apply(3, D, v, out);
}

static inline void wb_se2_dexp_star(const double *x, const double *mu, double *out)
{
    double D[9];
    wb_se2_dexp_matrix(x, D);
    wb_small_apply_transpose(3, D, mu, out);
}

static inline void wb_se2_dexpinv(const double *x, const double *v, double *out)
{
    double D[9];
    wb_se2_dexp_matrix(x, D);
    wb_small_solve_vector(3, D, v, out);
}

static inline void wb_se2_dexpinv_star(const double *x, const double *mu, double *out)
{
    double D[9], Dt[9];
    wb_se2_dexp_matrix(x, D);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Dt[3 * i + j] = D[3 * j + i];
    wb_small_solve_vector(3, Dt, mu, out);
}

/* ---- Cayley ------------------------------------------------------------------------ */

static inline void wb_se2_hat(const double *x, double *X)
{
    X[0] = 0.0, X[1] = -x[0], X[2] = x[1];
    X[3] = x[0], X[4] = 0.0, X[5] = x[2];
    X[6] = 0.0, X[7] = 0.0, X[8] = 0.0;
}

static inline void wb_se2_vee(const double *X, double *x)
{
    x[0] = 0.5 * (X[3] - X[1]), x[1] = X[2], x[2] = X[5];
}

static inline void wb_se2_cay(const double *xi, double *q)
{
    double X[9], G[9];
    wb_se2_hat(xi, X);
    wb_small_cay(3, X, G);
    q[0] = G[0], q[1] = G[1], q[2] = G[3], q[3] = G[4], q[4] = G[2], q[5] = G[5];
}

static inline void wb_se2_dcay(const double *xi, const double *v, double *out)
{
    double X[9], V[9], W[9];
    wb_se2_hat(xi, X);
    wb_se2_hat(v, V);
    wb_small_dcay(3, X, V, W);
    wb_se2_vee(W, out);
}

static inline void wb_se2_dcayinv(const double *xi, const double *v, double *out)
{
    double X[9], V[9], W[9];
    wb_se2_hat(xi, X);
    wb_se2_hat(v, V);
    wb_small_dcayinv(3, X, V, W);
    wb_se2_vee(W, out);
}

static inline void wb_se2_dcayinv_derivative(const double *xi, const double *v,
                                             const double *u, double *out)
{
    double X[9], V[9], U[9], W[9];
    wb_se2_hat(xi, X);
    wb_se2_hat(v, V);
    wb_se2_hat(u, U);
    wb_small_dcayinv_derivative(3, X, V, U, W);
    wb_se2_vee(W, out);
}

static inline void wb_se2_dcay_star(const double *xi, const double *mu, double *out)
{
    wb_small_transpose_of(3, wb_se2_dcay, xi, mu, out);
}

static inline void wb_se2_dcayinv_star(const double *xi, const double *mu, double *out)
{
    wb_small_transpose_of(3, wb_se2_dcayinv, xi, mu, out);
}

/* max |R^T R - I| and |det R - 1| of the rotation block */
static inline double wb_se2_residual(const double *q)
{
    const double e[4] = {q[0] * q[0] + q[2] * q[2] - 1.0, q[1] * q[1] + q[3] * q[3] - 1.0,
                         q[0] * q[1] + q[2] * q[3], q[0] * q[3] - q[1] * q[2] - 1.0};
    double worst = 0.0;
    for (int i = 0; i < 4; i++)
        if (isnan(e[i]) || fabs(e[i]) > worst)
            worst = fabs(e[i]);
    return worst;
}

#endif
