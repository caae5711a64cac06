/*
 * workbench/groups/so3.h -- SO(3) in closed form (header-only).
 *
 * q = R, 9 numbers row-major; xi = w in R^3 with hat(w) the skew matrix,
 * [hat a, hat b] = hat(a x b).  Right trivialisation, the dot product
 * between the algebra and its dual (workbench/model.h):
 *   ad_x y = x x y,  ad*_x mu = mu x x,  Ad_R y = R y,  Ad*_R mu = R^T mu,
 *   exp(w)       = I + a W + b W^2                      (Rodrigues)
 *   dexp_w v     = v + b w x v + c w x (w x v)
 *   dexpinv_w v  = v - w x v / 2 + d w x (w x v)
 *   a = sin t / t, b = (1 - cos t)/t^2, c = (t - sin t)/t^3,
 *   d = (1 - (t/2) cot(t/2))/t^2,  t = |w|;
 *   cay(w)       = I + 4/(4 + t^2) (W + W^2/2)
 *   dcay_w v     = 2/(4 + t^2) (2 v + w x v)            (right-trivialised)
 *   dcayinv_w v  = v - w x v / 2 + w (w . v) / 4,
 * and dexp*_w = dexp_-w, dexpinv*_w = dexpinv_-w, likewise for cay.  The
 * coefficients switch to their Taylor series below t = 1, where the closed
 * forms cancel, so every function is accurate to a few ulps from t = 0 on
 * (dexpinv up to well below its singularity at 2 pi).  log is the principal
 * logarithm, angle in [0, pi], accurate near 0 and near pi. */
#ifndef WORKBENCH_GROUPS_SO3_H
#define WORKBENCH_GROUPS_SO3_H

#include <math.h>
#include <string.h>

static inline void wb_so3_cross(const double *a, const double *b, double *c)
{
    const double c0 = a[1] * b[2] - a[2] * b[1];
    const double c1 = a[2] * b[0] - a[0] * b[2];
    const double c2 = a[0] * b[1] - a[1] * b[0];
    c[0] = c0, c[1] = c1, c[2] = c2;
}

static inline double wb_so3_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static inline double wb_so3_norm(const double *w)
{
    return sqrt(wb_so3_dot(w, w));
}

/* sum_k (-1)^k t^2k / (2k + first)!, k = 0..9: below t = 1 the terms
 * beyond fall under 1e-18 of the sum. */
static inline double wb_so3_alternating_series(double t, int first)
{
    double factorial = 1.0;
    for (int i = 2; i <= first; i++)
        factorial *= i;
    double term = 1.0 / factorial, sum = term;
    const double t2 = t * t;
    for (int k = 1; k < 10; k++) {
        term *= -t2 / ((2.0 * k + first - 1) * (2.0 * k + first));
        sum += term;
    }
    return sum;
}

/* a = sin t / t */
static inline double wb_so3_coefficient_a(double t)
{
    return t < 1.0 ? wb_so3_alternating_series(t, 1) : sin(t) / t;
}

/* b = (1 - cos t) / t^2 */
static inline double wb_so3_coefficient_b(double t)
{
    if (t < 1.0)
        return wb_so3_alternating_series(t, 2);
    const double s = sin(0.5 * t) / t;
    return 2.0 * s * s;
}

/* c = (t - sin t) / t^3 */
static inline double wb_so3_coefficient_c(double t)
{
    return t < 1.0 ? wb_so3_alternating_series(t, 3) : (t - sin(t)) / (t * t * t);
}

/* d = (1 - (t/2) cot(t/2)) / t^2 = sum_k |B_2k| t^(2k-2) / (2k)! */
static inline double wb_so3_coefficient_d(double t)
{
    static const double series[] = {
        8.3333333333333333e-02, 1.3888888888888889e-03, 3.3068783068783069e-05,
        8.2671957671957672e-07, 2.0876756987868099e-08, 5.2841901386874932e-10,
        1.3382536530684679e-11, 3.3896802963225827e-13, 8.5860620562778445e-15,
        2.1748686985580619e-16, 5.5090028283602295e-18, 1.3954464685812522e-19};
    if (t < 1.0) {
        const double t2 = t * t;
        double sum = 0.0;
        for (int k = (int)(sizeof series / sizeof series[0]) - 1; k >= 0; k--)
            sum = sum * t2 + series[k];
        return sum;
    }
    const double half = 0.5 * t;
    return (1.0 - half * cos(half) / sin(half)) / (t * t);
}

static inline void wb_so3_identity(double *R)
{
    memset(R, 0, 9 * sizeof(double));
    R[0] = R[4] = R[8] = 1.0;
}

/* AB = A B (AB may not alias A or B) */
static inline void wb_so3_compose(const double *A, const double *B, double *AB)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            AB[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* R^T (ainv may not alias a) */
static inline void wb_so3_inverse(const double *R, double *Rt)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            Rt[3 * i + j] = R[3 * j + i];
}

/* out = R x and out = R^T x (out may not alias x) */
static inline void wb_so3_rotate(const double *R, const double *x, double *out)
{
    for (int i = 0; i < 3; i++)
        out[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

static inline void wb_so3_rotate_back(const double *R, const double *x, double *out)
{
    for (int i = 0; i < 3; i++)
        out[i] = R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2];
}

/* out = R diag(d) R^T x: a body tensor (principal values d) acting on a
 * spatial vector, e.g. the spatial angular velocity from the spatial
 * momentum with d = 1 / I (out may not alias x) */
static inline void wb_so3_spatial_diagonal(const double *R, const double *d, const double *x,
                                           double *out)
{
    double body[3];
    wb_so3_rotate_back(R, x, body);
    for (int i = 0; i < 3; i++)
        body[i] *= d[i];
    wb_so3_rotate(R, body, out);
}

/* I + alpha W + beta W^2 as a matrix, W = hat(w) */
static inline void wb_so3_quadratic(const double *w, double alpha, double beta, double *M)
{
    const double x = w[0], y = w[1], z = w[2];
    const double xx = x * x, yy = y * y, zz = z * z;
    M[0] = 1.0 - beta * (yy + zz), M[4] = 1.0 - beta * (xx + zz), M[8] = 1.0 - beta * (xx + yy);
    M[1] = -alpha * z + beta * x * y, M[3] = alpha * z + beta * x * y;
    M[2] = alpha * y + beta * x * z, M[6] = -alpha * y + beta * x * z;
    M[5] = -alpha * x + beta * y * z, M[7] = alpha * x + beta * y * z;
}

static inline void wb_so3_exp(const double *w, double *R)
{
    const double t = wb_so3_norm(w);
    wb_so3_quadratic(w, wb_so3_coefficient_a(t), wb_so3_coefficient_b(t), R);
}

/* out = v + alpha w x v + beta w x (w x v) (out may alias v) */
static inline void wb_so3_apply_quadratic(const double *w, double alpha, double beta,
                                          const double *v, double *out)
{
    double wv[3], wwv[3];
    wb_so3_cross(w, v, wv);
    wb_so3_cross(w, wv, wwv);
    for (int i = 0; i < 3; i++)
        out[i] = v[i] + alpha * wv[i] + beta * wwv[i];
}

static inline void wb_so3_dexp(const double *w, const double *v, double *out)
{
    const double t = wb_so3_norm(w);
    wb_so3_apply_quadratic(w, wb_so3_coefficient_b(t), wb_so3_coefficient_c(t), v, out);
}

static inline void wb_so3_dexpinv(const double *w, const double *v, double *out)
{
    wb_so3_apply_quadratic(w, -0.5, wb_so3_coefficient_d(wb_so3_norm(w)), v, out);
}

/* the transposes: the same maps at -w */
static inline void wb_so3_dexp_star(const double *w, const double *mu, double *out)
{
    const double minus[3] = {-w[0], -w[1], -w[2]};
    wb_so3_dexp(minus, mu, out);
}

static inline void wb_so3_dexpinv_star(const double *w, const double *mu, double *out)
{
    const double minus[3] = {-w[0], -w[1], -w[2]};
    wb_so3_dexpinv(minus, mu, out);
}

static inline void wb_so3_ad(const double *x, const double *y, double *out)
{
    wb_so3_cross(x, y, out);
}

static inline void wb_so3_ad_star(const double *x, const double *mu, double *out)
{
    wb_so3_cross(mu, x, out);
}

static inline void wb_so3_Ad(const double *R, const double *x, double *out)
{
    wb_so3_rotate(R, x, out);
}

static inline void wb_so3_Ad_star(const double *R, const double *mu, double *out)
{
    wb_so3_rotate_back(R, mu, out);
}

/* The principal logarithm.  Away from pi the skew part gives w = t n
 * directly; near pi (cos t < -1/2) the skew part vanishes and the axis
 * comes from the symmetric part R + R^T = 2 cos t I + 2 (1 - cos t) n n^T,
 * its sign from the skew part. */
static inline void wb_so3_log(const double *R, double *w)
{
    const double skew[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])};
    const double c = 0.5 * (R[0] + R[4] + R[8] - 1.0), s = wb_so3_norm(skew);
    const double t = atan2(s, c);
    if (c > -0.5) {
        const double a = wb_so3_coefficient_a(t);
        for (int i = 0; i < 3; i++)
            w[i] = skew[i] / a;
        return;
    }
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (R[4 * i] > R[4 * k])
            k = i;
    double n[3];
    const double scale = 1.0 - c;
    for (int i = 0; i < 3; i++)
        n[i] = 0.5 * (R[3 * i + k] + R[3 * k + i]) / scale;
    n[k] = (R[4 * k] - c) / scale; /* n_k^2 */
    const double nk = sqrt(fmax(n[k], 0.0));
    for (int i = 0; i < 3; i++)
        n[i] = i == k ? nk : n[i] / nk;
    const double norm = wb_so3_norm(n), sign = wb_so3_dot(n, skew) < 0.0 ? -1.0 : 1.0;
    for (int i = 0; i < 3; i++)
        w[i] = sign * t * n[i] / norm;
}

static inline void wb_so3_cay(const double *w, double *R)
{
    const double f = 4.0 / (4.0 + wb_so3_dot(w, w));
    wb_so3_quadratic(w, f, 0.5 * f, R);
}

static inline void wb_so3_dcay(const double *w, const double *v, double *out)
{
    double wv[3];
    const double f = 2.0 / (4.0 + wb_so3_dot(w, w));
    wb_so3_cross(w, v, wv);
    for (int i = 0; i < 3; i++)
        out[i] = f * (2.0 * v[i] + wv[i]);
}

static inline void wb_so3_dcayinv(const double *w, const double *v, double *out)
{
    double wv[3];
    const double wdv = 0.25 * wb_so3_dot(w, v);
    wb_so3_cross(w, v, wv);
    for (int i = 0; i < 3; i++)
        out[i] = v[i] - 0.5 * wv[i] + wdv * w[i];
}

static inline void wb_so3_dcay_star(const double *w, const double *mu, double *out)
{
    const double minus[3] = {-w[0], -w[1], -w[2]};
    wb_so3_dcay(minus, mu, out);
}

static inline void wb_so3_dcayinv_star(const double *w, const double *mu, double *out)
{
    const double minus[3] = {-w[0], -w[1], -w[2]};
    wb_so3_dcayinv(minus, mu, out);
}

/* D_w[dcayinv_w v] u = -u x v / 2 + (u (w . v) + w (u . v)) / 4 */
static inline void wb_so3_dcayinv_derivative(const double *w, const double *v,
                                             const double *u, double *out)
{
    double uv[3];
    const double wdv = 0.25 * wb_so3_dot(w, v), udv = 0.25 * wb_so3_dot(u, v);
    wb_so3_cross(u, v, uv);
    for (int i = 0; i < 3; i++)
        out[i] = -0.5 * uv[i] + wdv * u[i] + udv * w[i];
}

/* max(max |R^T R - I|, |det R - 1|); NaN when R holds one */
static inline double wb_so3_residual(const double *R)
{
    double worst = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double g = R[i] * R[j] + R[3 + i] * R[3 + j] + R[6 + i] * R[6 + j];
            const double e = fabs(g - (i == j ? 1.0 : 0.0));
            if (isnan(e) || e > worst)
                worst = e;
        }
    const double det = R[0] * (R[4] * R[8] - R[5] * R[7]) - R[1] * (R[3] * R[8] - R[5] * R[6]) +
                       R[2] * (R[3] * R[7] - R[4] * R[6]);
    const double e = fabs(det - 1.0);
    return isnan(e) || e > worst ? e : worst;
}

#endif
