/* The host's linear algebra services (core/src/linalg.c), called through
 * the service table exactly as a plugin calls them.
 *
 * Conventions under test (workbench/host.h): matrices are row-major,
 * A[i*n + j] = A_ij; several right-hand sides are stored one vector after
 * another; band storage is addressed with wb_band_index().  Matrices are
 * nonsymmetric wherever possible, so that a transposition mistake shows. */
#include "host/host.h"
#include "test_check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 6
#define NRHS 3
#define MAX_LDAB 7 /* ldab = 2*kl + ku + 1 of the widest band tested (kl = ku = 2) */

/* Deterministic pseudo-random numbers in [-1, 1] (no libc rand(): its
 * sequence differs between C libraries). */
static double uniform(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (double)(*state >> 8) / (double)(1u << 23) - 1.0;
}

static void random_matrix(int rows, int cols, double *A, uint32_t seed)
{
    for (int i = 0; i < rows * cols; i++)
        A[i] = uniform(&seed);
}

static double max_abs(int n, const double *x)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* max_k ||A x_k - b_k||_inf / (||A||_max ||x_k||_inf): the backward error
 * of a row-major solve, ~1e-16 for a stable solver. */
static double backward_error(int n, int nrhs, const double *A, const double *X,
                             const double *B)
{
    double worst = 0, norm_a = max_abs(n * n, A);
    for (int k = 0; k < nrhs; k++) {
        const double *x = X + k * n, *b = B + k * n;
        double r = 0;
        for (int i = 0; i < n; i++) {
            double s = -b[i];
            for (int j = 0; j < n; j++)
                s += A[i * n + j] * x[j];
            r = fmax(r, fabs(s));
        }
        worst = fmax(worst, r / (norm_a * max_abs(n, x) * n));
    }
    return worst;
}

/* ---- LU ------------------------------------------------------------------------ */

static void test_lu_small_known_solution(const wb_host *host)
{
    /* [[2, 1], [0, 3]] x = [4, 6] has x = (1, 2); the transpose would give
     * x = (2, 4/3), so this pins the row-major convention. */
    double A[4] = {2, 1, 0, 3}, b[2] = {4, 6};
    int ipiv[2];
    CHECK_STATUS(host->dense_solve(host, 2, 1, A, ipiv, b), WB_OK, "dense_solve 2x2");
    CHECK_CLOSE(b[0], 1.0, 1e-15, "row-major 2x2: x0");
    CHECK_CLOSE(b[1], 2.0, 1e-15, "row-major 2x2: x1");
}

static void test_lu_random_several_rhs(const wb_host *host)
{
    double A[N * N], LU[N * N], B[N * NRHS], X[N * NRHS];
    int ipiv[N];
    random_matrix(N, N, A, 7u);
    random_matrix(N, NRHS, B, 11u);
    memcpy(LU, A, sizeof A);
    memcpy(X, B, sizeof B);
    CHECK_STATUS(host->lu_factor(host, N, LU, ipiv), WB_OK, "lu_factor random 6x6");
    CHECK_STATUS(host->lu_solve(host, N, NRHS, LU, ipiv, X), WB_OK, "lu_solve 3 rhs");
    double err = backward_error(N, NRHS, A, X, B);
    CHECK(err < 1e-15, "lu: backward error %.3e over %d right-hand sides", err, NRHS);

    /* Each right-hand side solved alone gives the same vector: the block
     * really is "one vector after another", not interleaved. */
    for (int k = 0; k < NRHS; k++) {
        double x[N];
        memcpy(x, B + k * N, sizeof x);
        CHECK_STATUS(host->lu_solve(host, N, 1, LU, ipiv, x), WB_OK, "lu_solve 1 rhs");
        double diff = 0;
        for (int i = 0; i < N; i++)
            diff = fmax(diff, fabs(x[i] - X[k * N + i]));
        CHECK(diff <= 1e-14 * max_abs(N, x), "rhs %d alone differs by %.3e", k, diff);
    }

    /* The factors are reusable: a second solve with the same LU. */
    memcpy(X, B, sizeof B);
    CHECK_STATUS(host->lu_solve(host, N, NRHS, LU, ipiv, X), WB_OK, "lu_solve again");
    CHECK(backward_error(N, NRHS, A, X, B) < 1e-15, "factors reused");

    /* dense_solve = factor + solve */
    memcpy(LU, A, sizeof A);
    memcpy(X, B, sizeof B);
    CHECK_STATUS(host->dense_solve(host, N, NRHS, LU, ipiv, X), WB_OK, "dense_solve");
    err = backward_error(N, NRHS, A, X, B);
    CHECK(err < 1e-15, "dense_solve: backward error %.3e", err);
}

static void test_lu_singular(const wb_host *host)
{
    double A[N * N];
    int ipiv[N];
    /* Two equal rows: elimination reproduces the same operations on both,
     * so a pivot becomes exactly zero. */
    random_matrix(N, N, A, 3u);
    memcpy(A + 4 * N, A + 1 * N, N * sizeof(double));
    host_clear_error();
    CHECK_STATUS(host->lu_factor(host, N, A, ipiv), WB_ERR_SINGULAR, "lu_factor equal rows");
    CHECK_CONTAINS(host_last_error(), "singular", "lu_factor equal rows");

    /* A zero column. */
    random_matrix(N, N, A, 5u);
    for (int i = 0; i < N; i++)
        A[i * N + 2] = 0.0;
    double b[N] = {1, 2, 3, 4, 5, 6};
    host_clear_error();
    CHECK_STATUS(host->dense_solve(host, N, 1, A, ipiv, b), WB_ERR_SINGULAR,
                 "dense_solve zero column");
    CHECK_CONTAINS(host_last_error(), "singular", "dense_solve zero column");
}

static void test_lu_nonfinite(const wb_host *host)
{
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        double A[N * N];
        int ipiv[N];
        random_matrix(N, N, A, 9u);
        A[3 * N + 5] = bad[k];
        host_clear_error();
        CHECK_STATUS(host->lu_factor(host, N, A, ipiv), WB_ERR_NONFINITE,
                     "lu_factor non-finite entry");
        CHECK_CONTAINS(host_last_error(), "non-finite", "lu_factor non-finite entry");
    }
}

/* ---- Cholesky ------------------------------------------------------------------- */

/* A = R R^T + n I: symmetric positive definite, full storage. */
static void spd_matrix(int n, double *A, uint32_t seed)
{
    double R[N * N];
    random_matrix(n, n, R, seed);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = i == j ? n : 0.0;
            for (int k = 0; k < n; k++)
                s += R[i * n + k] * R[j * n + k];
            A[i * n + j] = s;
        }
}

static void test_cholesky_spd(const wb_host *host)
{
    double A[N * N], L[N * N], B[N * NRHS], X[N * NRHS];
    spd_matrix(N, A, 21u);
    random_matrix(N, NRHS, B, 23u);
    memcpy(L, A, sizeof A);
    memcpy(X, B, sizeof B);
    CHECK_STATUS(host->cholesky_factor(host, N, L), WB_OK, "cholesky_factor SPD");
    CHECK_STATUS(host->cholesky_solve(host, N, NRHS, L, X), WB_OK, "cholesky_solve");
    double err = backward_error(N, NRHS, A, X, B);
    CHECK(err < 1e-15, "cholesky: backward error %.3e", err);
}

/* host.h: "lower triangle used".  Poison the strict upper triangle (in the
 * row-major sense of the header's conventions): the result must not
 * change. */
static void test_cholesky_reads_lower_triangle(const wb_host *host)
{
    double A[N * N], L[N * N], B[N], X[N];
    spd_matrix(N, A, 31u);
    random_matrix(N, 1, B, 37u);
    memcpy(L, A, sizeof A);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            L[i * N + j] = -1e3; /* would make the matrix indefinite */
    memcpy(X, B, sizeof B);
    int status = host->cholesky_factor(host, N, L);
    CHECK_STATUS(status, WB_OK, "cholesky_factor with a poisoned upper triangle");
    if (status == WB_OK) {
        CHECK_STATUS(host->cholesky_solve(host, N, 1, L, X), WB_OK, "cholesky_solve");
        double err = backward_error(N, 1, A, X, B);
        CHECK(err < 1e-15, "cholesky from the lower triangle: backward error %.3e", err);
    }
}

static void test_cholesky_failures(const wb_host *host)
{
    /* Symmetric, indefinite: eigenvalues 3 and -1. */
    double A[4] = {1, 2, 2, 1};
    host_clear_error();
    CHECK_STATUS(host->cholesky_factor(host, 2, A), WB_ERR_SINGULAR, "cholesky indefinite");
    CHECK_CONTAINS(host_last_error(), "not positive definite", "cholesky indefinite");

    double Z[9] = {1, 0, 0, 0, 0, 0, 0, 0, 1}; /* positive semidefinite only */
    host_clear_error();
    CHECK_STATUS(host->cholesky_factor(host, 3, Z), WB_ERR_SINGULAR, "cholesky semidefinite");

    double F[4] = {1, 0, 0, NAN};
    host_clear_error();
    CHECK_STATUS(host->cholesky_factor(host, 2, F), WB_ERR_NONFINITE, "cholesky NaN");
    CHECK_CONTAINS(host_last_error(), "non-finite", "cholesky NaN");
}

/* ---- banded --------------------------------------------------------------------- */

/* A dense n x n matrix with bandwidths (kl, ku), random and diagonally
 * weighted so that it is safely nonsingular. */
static void band_matrix(int n, int kl, int ku, double *A, uint32_t seed)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = (j < i - kl || j > i + ku) ? 0.0
                           : (i == j ? 4.0 + uniform(&seed) : uniform(&seed));
}

/* Copy the band of dense row-major A into LAPACK band storage. */
static void pack_band(int n, int kl, int ku, int ldab, const double *A, double *AB)
{
    memset(AB, 0, (size_t)ldab * n * sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (j >= i - kl && j <= i + ku)
                AB[wb_band_index(kl, ku, ldab, i, j)] = A[i * n + j];
}

static void check_banded_against_dense(const wb_host *host, int kl, int ku, uint32_t seed)
{
    enum { n = 9, nrhs = 2 };
    const int ldab = 2 * kl + ku + 1;
    double A[n * n], dense[n * n], AB[MAX_LDAB * n];
    double B[n * nrhs], Xband[n * nrhs], Xdense[n * nrhs];
    int ipiv[n];
    if (!CHECK(ldab <= MAX_LDAB, "band (kl %d, ku %d) too wide for the test's storage", kl, ku))
        return;
    band_matrix(n, kl, ku, A, seed);
    random_matrix(n, nrhs, B, seed + 1);
    pack_band(n, kl, ku, ldab, A, AB);
    memcpy(Xband, B, sizeof B);
    int status = host->banded_solve(host, n, kl, ku, AB, ldab, ipiv, nrhs, Xband);
    CHECK_STATUS(status, WB_OK, "banded_solve");
    memcpy(dense, A, sizeof A);
    memcpy(Xdense, B, sizeof B);
    CHECK_STATUS(host->dense_solve(host, n, nrhs, dense, ipiv, Xdense), WB_OK,
                 "dense_solve of the same band matrix");
    double diff = 0;
    for (int i = 0; i < n * nrhs; i++)
        diff = fmax(diff, fabs(Xband[i] - Xdense[i]));
    CHECK(diff <= 1e-13 * max_abs(n * nrhs, Xdense),
          "banded (kl %d, ku %d) vs dense: max difference %.3e", kl, ku, diff);
    double err = backward_error(n, nrhs, A, Xband, B);
    CHECK(err < 1e-15, "banded (kl %d, ku %d): backward error %.3e", kl, ku, err);
}

static void test_banded(const wb_host *host)
{
    check_banded_against_dense(host, 1, 1, 41u); /* tridiagonal           */
    check_banded_against_dense(host, 2, 2, 43u); /* pentadiagonal         */
    check_banded_against_dense(host, 1, 2, 47u); /* unsymmetric bandwidth */
    check_banded_against_dense(host, 2, 0, 53u); /* lower triangular band */
}

static void test_banded_failures(const wb_host *host)
{
    enum { n = 5 };
    double AB[4 * n] = {0}, b[n] = {1, 2, 3, 4, 5};
    int ipiv[n];
    host_clear_error();
    CHECK_STATUS(host->banded_solve(host, n, 1, 1, AB, 3, ipiv, 1, b), WB_ERR_INVALID,
                 "banded_solve with ldab < 2*kl+ku+1");
    CHECK_CONTAINS(host_last_error(), "ldab", "banded_solve small ldab");

    /* Tridiagonal with an all-zero row. */
    double A[n * n];
    band_matrix(n, 1, 1, A, 59u);
    for (int j = 0; j < n; j++)
        A[2 * n + j] = 0.0;
    pack_band(n, 1, 1, 4, A, AB);
    host_clear_error();
    CHECK_STATUS(host->banded_solve(host, n, 1, 1, AB, 4, ipiv, 1, b), WB_ERR_SINGULAR,
                 "banded_solve singular");
    CHECK_CONTAINS(host_last_error(), "singular", "banded_solve singular");
}

int main(void)
{
    const wb_host *host = host_services();
    CHECK(host->abi_major == WB_ABI_MAJOR && host->struct_size == sizeof(wb_host),
          "service table version and size");
    test_lu_small_known_solution(host);
    test_lu_random_several_rhs(host);
    test_lu_singular(host);
    test_lu_nonfinite(host);
    test_cholesky_spd(host);
    test_cholesky_reads_lower_triangle(host);
    test_cholesky_failures(host);
    test_banded(host);
    test_banded_failures(host);
    return test_summary("linalg");
}
