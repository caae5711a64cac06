/*
 * workbench/groups/se3.h -- SE(3), the rigid motions of space
 * (header-only).
 *
 * q = (R row-major, t), 12 numbers, for [[R, t], [0, 1]];
 * xi = (w, u), 6 numbers, for [[hat w, u], [0, 0]], so
 *   [(w, u), (w', u')] = (w x w', w x u' - w' x u),
 *   Ad_(R, t) (w, u) = (R w, R u + t x R w),
 *   exp(w, u) = (exp(w), V(w) u),  V(w) = the matrix of SO(3)'s dexp_w,
 *   log(R, t) = (log R, V(w)^-1 t).
 * dexp is phi(ad_x) (workbench/groups/small_matrix.h), dexpinv its
 * inverse, the Cayley family the matrix formulas; duals by transposition.
 */
#ifndef WORKBENCH_GROUPS_SE3_H
#define WORKBENCH_GROUPS_SE3_H

#include "small_matrix.h"
#include "so3.h"

static inline void wb_se3_identity(double *q)
{
    wb_so3_identity(q);
    q[9] = q[10] = q[11] = 0.0;
}

static inline void wb_se3_compose(const double *a, const double *b, double *ab)
{
    wb_so3_compose(a, b, ab);
    wb_so3_rotate(a, b + 9, ab + 9);
    for (int i = 0; i < 3; i++)
        ab[9 + i] += a[9 + i];
}

static inline void wb_se3_inverse(const double *a, double *inverse)
{
    wb_so3_inverse(a, inverse);
    wb_so3_rotate_back(a, a + 9, inverse + 9);
    for (int i = 0; i < 3; i++)
        inverse[9 + i] = -inverse[9 + i];
}

static inline void wb_se3_exp(const double *xi, double *q)
{
    const double t = wb_so3_norm(xi);
    double V[9];
    wb_so3_exp(xi, q);
    wb_so3_quadratic(xi, wb_so3_coefficient_b(t), wb_so3_coefficient_c(t), V);
    wb_so3_rotate(V, xi + 3, q + 9);
}

static inline void wb_se3_log(const double *q, double *xi)
{
    wb_so3_log(q, xi);
    wb_so3_dexpinv(xi, q + 9, xi + 3);
}

/* the 6 x 6 matrix of ad_x: [[W, 0], [U, W]] */
static inline void wb_se3_ad_matrix(const double *x, double *A)
{
    memset(A, 0, 36 * sizeof(double));
    const double *w = x, *u = x + 3;
    const double W[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
    const double U[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            A[6 * i + j] = W[3 * i + j];
            A[6 * (i + 3) + j + 3] = W[3 * i + j];
            A[6 * (i + 3) + j] = U[3 * i + j];
        }
}

static inline void wb_se3_ad(const double *x, const double *y, double *out)
{
    double A[36];
    wb_se3_ad_matrix(x, A);
    wb_small_apply(6, A, y, out);
}

static inline void wb_se3_ad_star(const double *x, const double *mu, double *out)
{
    double A[36];
    wb_se3_ad_matrix(x, A);
    wb_small_apply_transpose(6, A, mu, out);
}

/* the matrix of Ad_q: [[R, 0], [hat(t) R, R]] */
static inline void wb_se3_Ad_matrix(const double *q, double *A)
{
    memset(A, 0, 36 * sizeof(double));
    const double *t = q + 9;
    const double T[9] = {0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0};
    double TR[9];
    wb_so3_compose(T, q, TR);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            A[6 * i + j] = q[3 * i + j];
            A[6 * (i + 3) + j + 3] = q[3 * i + j];
            A[6 * (i + 3) + j] = TR[3 * i + j];
        }
}

static inline void wb_se3_Ad(const double *q, const double *x, double *out)
{
    double A[36];
    wb_se3_Ad_matrix(q, A);
    wb_small_apply(6, A, x, out);
}

static inline void wb_se3_Ad_star(const double *q, const double *mu, double *out)
{
    double A[36];
    wb_se3_Ad_matrix(q, A);
    wb_small_apply_transpose(6, A, mu, out);
}

static inline void wb_se3_dexp_matrix(const double *x, double *D)
{
    double A[36];
    wb_se3_ad_matrix(x, A);
    wb_small_phi(6, A, D);
}

static inline void wb_se3_dexp(const double *x, const double *v, double *out)
{
    double D[36];
    wb_se3_dexp_matrix(x, D);
    wb_small_apply(6, D, v, out);
}

static inline void wb_se3_dexp_star(const double *x, const double *mu, double *out)
{
    double D[36];
    wb_se3_dexp_matrix(x, D);
    wb_small_apply_transpose(6, D, mu, out);
}

static inline void wb_se3_dexpinv(const double *x, const double *v, double *out)
{
    double D[36];
    wb_se3_dexp_matrix(x, D);
    wb_small_solve_vector(6, D, v, out);
}

static inline void wb_se3_dexpinv_star(const double *x, const double *mu, double *out)
{
    double D[36], Dt[36];
    wb_se3_dexp_matrix(x, D);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            Dt[6 * i + j] = D[6 * j + i];
    wb_small_solve_vector(6, Dt, mu, out);
}

/* ---- Cayley ------------------------------------------------------------------------ */

static inline void wb_se3_hat(const double *x, double *X)
{
    const double *w = x, *u = x + 3;
    const double M[16] = {0,     -w[2], w[1],  u[0], w[2], 0, -w[0], u[1],
                          -w[1], w[0],  0,     u[2], 0,    0, 0,     0};
    memcpy(X, M, sizeof M);
}

static inline void wb_se3_vee(const double *X, double *x)
{
    x[0] = 0.5 * (X[9] - X[6]), x[1] = 0.5 * (X[2] - X[8]), x[2] = 0.5 * (X[4] - X[1]);
    x[3] = X[3], x[4] = X[7], x[5] = X[11];
}

static inline void wb_se3_cay(const double *xi, double *q)
{
    double X[16], G[16];
    wb_se3_hat(xi, X);
    wb_small_cay(4, X, G);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            q[3 * i + j] = G[4 * i + j];
        q[9 + i] = G[4 * i + 3];
    }
}

static inline void wb_se3_dcay(const double *xi, const double *v, double *out)
{
    double X[16], V[16], W[16];
    wb_se3_hat(xi, X);
    wb_se3_hat(v, V);
    wb_small_dcay(4, X, V, W);
    wb_se3_vee(W, out);
}

static inline void wb_se3_dcayinv(const double *xi, const double *v, double *out)
{
    double X[16], V[16], W[16];
    wb_se3_hat(xi, X);
    wb_se3_hat(v, V);
    wb_small_dcayinv(4, X, V, W);
    wb_se3_vee(W, out);
}

static inline void wb_se3_dcayinv_derivative(const double *xi, const double *v,
                                             const double *u, double *out)
{
    double X[16], V[16], U[16], W[16];
    wb_se3_hat(xi, X);
    wb_se3_hat(v, V);
    wb_se3_hat(u, U);
    wb_small_dcayinv_derivative(4, X, V, U, W);
    wb_se3_vee(W, out);
}

static inline void wb_se3_dcay_star(const double *xi, const double *mu, double *out)
{
    wb_small_transpose_of(6, wb_se3_dcay, xi, mu, out);
}

static inline void wb_se3_dcayinv_star(const double *xi, const double *mu, double *out)
{
    wb_small_transpose_of(6, wb_se3_dcayinv, xi, mu, out);
}

static inline double wb_se3_residual(const double *q)
{
    return wb_so3_residual(q);
}

#endif
