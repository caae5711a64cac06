/*
 * workbench/groups/small_matrix.h -- the few dense-matrix operations the
 * group implementations share (header-only, n <= 6, no allocation): one
 * implementation of the matrix functions, the Cayley map on group
 * matrices and transposes of algebra maps, used by every group that is
 * not done in closed form.
 */
#ifndef WORKBENCH_GROUPS_SMALL_MATRIX_H
#define WORKBENCH_GROUPS_SMALL_MATRIX_H

#include <math.h>
#include <string.h>

#define WB_SMALL_MAX 6

static inline void wb_small_identity(int n, double *A)
{
    memset(A, 0, (size_t)(n * n) * sizeof(double));
    for (int i = 0; i < n; i++)
        A[i * n + i] = 1.0;
}

/* C = A B (C may not alias A or B) */
static inline void wb_small_multiply(int n, const double *A, const double *B, double *C)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += A[i * n + k] * B[k * n + j];
            C[i * n + j] = s;
        }
}

/* y = A x and y = A^T x (y may not alias x) */
static inline void wb_small_apply(int n, const double *A, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = 0; k < n; k++)
            s += A[i * n + k] * x[k];
        y[i] = s;
    }
}

static inline void wb_small_apply_transpose(int n, const double *A, const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int k = 0; k < n; k++)
            s += A[k * n + i] * x[k];
        y[i] = s;
    }
}

/* Solve A X = B for m right-hand sides (B n x m row-major, overwritten by
 * X; A overwritten), Gaussian elimination with partial pivoting.  0, or -1
 * for an exactly singular A (X then NaN). */
static inline int wb_small_solve(int n, int m, double *A, double *B)
{
    for (int col = 0; col < n; col++) {
        int pivot = col;
        for (int r = col + 1; r < n; r++)
            if (fabs(A[r * n + col]) > fabs(A[pivot * n + col]))
                pivot = r;
        if (A[pivot * n + col] == 0.0) {
            for (int i = 0; i < n * m; i++)
                B[i] = NAN;
            return -1;
        }
        if (pivot != col) {
            for (int k = 0; k < n; k++) {
                double t = A[col * n + k];
                A[col * n + k] = A[pivot * n + k], A[pivot * n + k] = t;
            }
            for (int k = 0; k < m; k++) {
                double t = B[col * m + k];
                B[col * m + k] = B[pivot * m + k], B[pivot * m + k] = t;
            }
        }
        for (int r = col + 1; r < n; r++) {
            const double f = A[r * n + col] / A[col * n + col];
            for (int k = col; k < n; k++)
                A[r * n + k] -= f * A[col * n + k];
            for (int k = 0; k < m; k++)
                B[r * m + k] -= f * B[col * m + k];
        }
    }
    for (int col = n - 1; col >= 0; col--)
        for (int k = 0; k < m; k++) {
            double s = B[col * m + k];
            for (int j = col + 1; j < n; j++)
                s -= A[col * n + j] * B[j * m + k];
            B[col * m + k] = s / A[col * n + col];
        }
    return 0;
}

/* A^-1 (NaN for a singular A) */
static inline void wb_small_inverse(int n, const double *A, double *inverse)
{
    double work[WB_SMALL_MAX * WB_SMALL_MAX];
    memcpy(work, A, (size_t)(n * n) * sizeof(double));
    wb_small_identity(n, inverse);
    wb_small_solve(n, n, work, inverse);
}

/* x = A^-1 b (x may alias b) */
static inline void wb_small_solve_vector(int n, const double *A, const double *b, double *x)
{
    double work[WB_SMALL_MAX * WB_SMALL_MAX];
    memcpy(work, A, (size_t)(n * n) * sizeof(double));
    if (x != b)
        memcpy(x, b, (size_t)n * sizeof(double));
    wb_small_solve(n, 1, work, x);
}

/* phi(A) = sum_k A^k / (k+1)! = (exp(A) - I) A^-1, the matrix of a right-
 * trivialised dexp when A = ad_x.  Scaling and squaring: A / 2^s has
 * infinity norm below 1/4, where 16 Taylor terms are exact to round-off,
 * then phi(2B) = phi(B) (exp(B) + I) / 2 and exp(2B) = exp(B)^2, s times. */
static inline void wb_small_phi(int n, const double *A, double *phi)
{
    double norm = 0.0;
    for (int i = 0; i < n; i++) {
        double row = 0.0;
        for (int k = 0; k < n; k++)
            row += fabs(A[i * n + k]);
        norm = fmax(norm, row);
    }
    int s = 0;
    while (norm > 0.25 && s < 60)
        norm *= 0.5, s++;
    const double scale = ldexp(1.0, -s);
    double B[WB_SMALL_MAX * WB_SMALL_MAX], term[WB_SMALL_MAX * WB_SMALL_MAX];
    double next[WB_SMALL_MAX * WB_SMALL_MAX], E[WB_SMALL_MAX * WB_SMALL_MAX];
    for (int i = 0; i < n * n; i++)
        B[i] = scale * A[i];
    /* phi = sum B^k/(k+1)!, E = sum B^k/k! */
    wb_small_identity(n, term);
    wb_small_identity(n, phi);
    wb_small_identity(n, E);
    for (int k = 1; k <= 16; k++) {
        wb_small_multiply(n, term, B, next);
        for (int i = 0; i < n * n; i++) {
            term[i] = next[i] / k;                   /* B^k / k!     */
            phi[i] += term[i] / (k + 1);             /* B^k/(k+1)!   */
            E[i] += term[i];
        }
    }
    for (int step = 0; step < s; step++) {
        for (int i = 0; i < n; i++)
            E[i * n + i] += 1.0;
        wb_small_multiply(n, phi, E, next);          /* phi (E + I)  */
        for (int i = 0; i < n; i++)
            E[i * n + i] -= 1.0;
        for (int i = 0; i < n * n; i++)
            phi[i] = 0.5 * next[i];
        wb_small_multiply(n, E, E, next);
        memcpy(E, next, (size_t)(n * n) * sizeof(double));
    }
}

/* ---- the Cayley map on group matrices (d x d) ---------------------------------- */

/* (I - X/2)^-1 (I + X/2) */
static inline void wb_small_cay(int d, const double *X, double *G)
{
    double minus[WB_SMALL_MAX * WB_SMALL_MAX];
    for (int i = 0; i < d * d; i++) {
        minus[i] = -0.5 * X[i];
        G[i] = 0.5 * X[i];
    }
    for (int i = 0; i < d; i++)
        minus[i * d + i] += 1.0, G[i * d + i] += 1.0;
    wb_small_solve(d, d, minus, G);
}

/* (I - X/2)^-1 V (I + X/2)^-1, the right-trivialised derivative */
static inline void wb_small_dcay(int d, const double *X, const double *V, double *out)
{
    double minus[WB_SMALL_MAX * WB_SMALL_MAX], plus_inverse[WB_SMALL_MAX * WB_SMALL_MAX];
    double plus[WB_SMALL_MAX * WB_SMALL_MAX];
    for (int i = 0; i < d * d; i++)
        minus[i] = -0.5 * X[i], plus[i] = 0.5 * X[i];
    for (int i = 0; i < d; i++)
        minus[i * d + i] += 1.0, plus[i * d + i] += 1.0;
    wb_small_inverse(d, plus, plus_inverse);
    wb_small_multiply(d, V, plus_inverse, out);
    wb_small_solve(d, d, minus, out);
}

/* (I - X/2) V (I + X/2) */
static inline void wb_small_dcayinv(int d, const double *X, const double *V, double *out)
{
    double left[WB_SMALL_MAX * WB_SMALL_MAX], right[WB_SMALL_MAX * WB_SMALL_MAX];
    double LV[WB_SMALL_MAX * WB_SMALL_MAX];
    for (int i = 0; i < d * d; i++)
        left[i] = -0.5 * X[i], right[i] = 0.5 * X[i];
    for (int i = 0; i < d; i++)
        left[i * d + i] += 1.0, right[i * d + i] += 1.0;
    wb_small_multiply(d, left, V, LV);
    wb_small_multiply(d, LV, right, out);
}

/* D_X[(I - X/2) V (I + X/2)] U = -(U/2) V (I + X/2) + (I - X/2) V (U/2) */
static inline void wb_small_dcayinv_derivative(int d, const double *X, const double *V,
                                               const double *U, double *out)
{
    double left[WB_SMALL_MAX * WB_SMALL_MAX], right[WB_SMALL_MAX * WB_SMALL_MAX];
    double UV[WB_SMALL_MAX * WB_SMALL_MAX], VU[WB_SMALL_MAX * WB_SMALL_MAX];
    double a[WB_SMALL_MAX * WB_SMALL_MAX], b[WB_SMALL_MAX * WB_SMALL_MAX];
    for (int i = 0; i < d * d; i++)
        left[i] = -0.5 * X[i], right[i] = 0.5 * X[i];
    for (int i = 0; i < d; i++)
        left[i * d + i] += 1.0, right[i * d + i] += 1.0;
    wb_small_multiply(d, U, V, UV);
    wb_small_multiply(d, UV, right, a);
    wb_small_multiply(d, V, U, VU);
    wb_small_multiply(d, left, VU, b);
    for (int i = 0; i < d * d; i++)
        out[i] = 0.5 * (b[i] - a[i]);
}

/* ---- transposes of linear maps of the algebra ------------------------------------- */

/* The matrix (n x n) of v -> map(x, v), column by column. */
typedef void (*wb_algebra_map)(const double *x, const double *v, double *out);

static inline void wb_small_matrix_of(int n, wb_algebra_map map, const double *x, double *M)
{
    double basis[WB_SMALL_MAX] = {0}, column[WB_SMALL_MAX];
    for (int j = 0; j < n; j++) {
        basis[j] = 1.0;
        map(x, basis, column);
        basis[j] = 0.0;
        for (int i = 0; i < n; i++)
            M[i * n + j] = column[i];
    }
}

/* <out, v> = <mu, map(x, v)> for every v */
static inline void wb_small_transpose_of(int n, wb_algebra_map map, const double *x,
                                         const double *mu, double *out)
{
    double M[WB_SMALL_MAX * WB_SMALL_MAX];
    wb_small_matrix_of(n, map, x, M);
    wb_small_apply_transpose(n, M, mu, out);
}

#endif
