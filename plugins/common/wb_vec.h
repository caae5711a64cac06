/* Small dense vector helpers shared by the host and the in-tree plugins
 * (header-only: plugins link against nothing but libm). */
#ifndef WB_VEC_H
#define WB_VEC_H

#include <math.h>
#include <string.h>

static inline double vec_dot(int n, const double *a, const double *b)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static inline void vec_copy(int n, const double *src, double *dst)
{
    memcpy(dst, src, (size_t)n * sizeof(double));
}

/* y += a x */
static inline void vec_axpy(int n, double a, const double *x, double *y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

static inline double vec_max_abs(int n, const double *x)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        if (isnan(x[i]) || fabs(x[i]) > m) /* a NaN, once seen, stays */
            m = fabs(x[i]);
    return m;
}

static inline int vec_all_finite(int n, const double *x)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

static inline int vec_equal(int n, const double *a, const double *b)
{
    return memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}

/* y = A x for an r x c row-major A */
static inline void mat_vec(int r, int c, const double *A, const double *x, double *y)
{
    for (int i = 0; i < r; i++)
        y[i] = vec_dot(c, A + (size_t)i * c, x);
}

/* y = A^T x for an r x c row-major A (y has c entries) */
static inline void mat_t_vec(int r, int c, const double *A, const double *x, double *y)
{
    for (int j = 0; j < c; j++)
        y[j] = 0;
    for (int i = 0; i < r; i++)
        vec_axpy(c, x[i], A + (size_t)i * c, y);
}

#endif
