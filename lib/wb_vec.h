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

/* max_i |a_i - b_i|, keeping a NaN as vec_max_abs does */
static inline double vec_max_abs_diff(int n, const double *a, const double *b)
{
    double m = 0;
    for (int i = 0; i < n; i++) {
        const double d = fabs(a[i] - b[i]);
        if (isnan(d) || d > m)
            m = d;
    }
    return m;
}

/* x - x is 0 for a finite x and NaN for an infinite or NaN one, so the sum
 * is 0 exactly when every entry is finite: no branch per entry (the driver
 * checks the state after every step). */
static inline int vec_all_finite(int n, const double *x)
{
    double s0 = 0.0, s1 = 0.0;
    int i = 0;
    for (; i + 2 <= n; i += 2) {
        s0 += x[i] - x[i];
        s1 += x[i + 1] - x[i + 1];
    }
    if (i < n)
        s0 += x[i] - x[i];
    return s0 + s1 == 0.0;
}

static inline int vec_equal(int n, const double *a, const double *b)
{
    return memcmp(a, b, (size_t)n * sizeof(double)) == 0;
}

/* y = A x for an r x c row-major A */
/* Whether the s x s row-major A is strictly lower triangular: the Butcher
 * matrix of an explicit method, whose stages need no solve. */
static inline int mat_strictly_lower(int s, const double *A)
{
    for (int i = 0; i < s; i++)
        for (int j = i; j < s; j++)
            if (A[i * s + j] != 0.0)
                return 0;
    return 1;
}

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

/* C = A B for an r x k A and a k x c B (C r x c, distinct from both).
 * Zeros of A are skipped: a mass matrix's inverse is often diagonal. */
static inline void mat_mul(int r, int k, int c, const double *A, const double *B, double *C)
{
    for (int i = 0; i < r; i++) {
        double *row = C + (size_t)i * c;
        for (int j = 0; j < c; j++)
            row[j] = 0;
        for (int e = 0; e < k; e++) {
            const double a = A[(size_t)i * k + e];
            if (a != 0.0)
                vec_axpy(c, a, B + (size_t)e * c, row);
        }
    }
}

/* C = A B^T for an r x k A and a c x k B (C r x c, distinct from both) */
static inline void mat_mul_bt(int r, int k, int c, const double *A, const double *B, double *C)
{
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++)
            C[(size_t)i * c + j] = vec_dot(k, A + (size_t)i * k, B + (size_t)j * k);
}

/* Blocks of an N-column row-major J, from row r0 and column c0 on:
 * J += s A for a rows x cols A ... */
static inline void mat_block_add(double *J, int N, int r0, int c0, int rows, int cols,
                                 const double *A, double s)
{
    for (int i = 0; i < rows; i++)
        vec_axpy(cols, s, A + (size_t)i * cols, J + (size_t)(r0 + i) * N + c0);
}

/* ... J += s A^T for a cols x rows A ... */
static inline void mat_block_add_t(double *J, int N, int r0, int c0, int rows, int cols,
                                   const double *A, double s)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            J[(size_t)(r0 + i) * N + c0 + j] += s * A[(size_t)j * rows + i];
}

/* ... J += s I for an n x n I. */
static inline void mat_block_add_identity(double *J, int N, int r0, int c0, int n, double s)
{
    for (int i = 0; i < n; i++)
        J[(size_t)(r0 + i) * N + c0 + i] += s;
}

#endif
