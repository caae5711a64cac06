/* The host's sparse LU and sparse Newton (core/src/host/sparse_lu.c,
 * newton.c) through the service table: solutions equal to the dense LU's
 * on chain-like, block-chain, scrambled and irregular patterns, the band
 * reverse Cuthill-McKee finds for a scrambled chain, and the refusals
 * (malformed pattern, singular and non-finite matrices, a sparse Newton
 * without its Jacobian); and lib/wb_fd_coloured.h's Jacobian by coloured
 * differences against the dense differences. */
#include "host/host.h"
#include "test_check.h"
#include "wb_fd_coloured.h"
#include "wb_sparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A deterministic pseudo-random number in [-1, 1). */
static double noise(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (double)(*state >> 8) / (double)(1u << 23) - 1.0;
}

/* The pattern of a symmetric structure given as a dense 0/1 mask. */
static int pattern_from_mask(int n, const unsigned char *mask, wb_csr *out)
{
    int nnz = 0;
    for (int i = 0; i < n * n; i++)
        nnz += mask[i] != 0;
    if (wb_csr_alloc(out, n, n, nnz) != 0)
        return -1;
    int at = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            if (mask[i * n + j])
                out->columns[at++] = j;
        out->row_start[i + 1] = at;
    }
    return 0;
}

/* Solves A x = b with values drawn for the pattern (diagonally dominant),
 * sparse and dense, and returns max |x_sparse - x_dense| / max |x_dense|. */
static double compare_with_dense(const wb_host *host, const wb_csr *a, unsigned seed,
                                 int *kl, int *ku)
{
    const int n = a->pattern.rows, nnz = a->pattern.nnz;
    double *values = malloc((size_t)nnz * sizeof(double));
    double *dense = calloc((size_t)n * n, sizeof(double));
    double *b = malloc((size_t)n * sizeof(double)), *x = malloc((size_t)n * sizeof(double));
    int *pivots = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) {
        b[i] = noise(&seed);
        for (int e = a->row_start[i]; e < a->row_start[i + 1]; e++)
            values[e] = a->columns[e] == i ? 4.0 + noise(&seed) : noise(&seed);
    }
    wb_csr_to_dense(&a->pattern, values, dense);
    memcpy(x, b, (size_t)n * sizeof(double));
    wb_sparse_lu *lu = host->sparse_lu_create(host, &a->pattern);
    double worst = INFINITY;
    if (CHECK(lu != NULL, "sparse_lu_create: %s", host_last_error()) &&
        CHECK_STATUS(host->sparse_lu_factor(host, lu, values), WB_OK, "sparse factor") &&
        CHECK_STATUS(host->sparse_lu_solve(host, lu, 1, x), WB_OK, "sparse solve") &&
        CHECK_STATUS(host->dense_solve(host, n, 1, dense, pivots, b), WB_OK, "dense solve")) {
        double diff = 0, size = 0;
        for (int i = 0; i < n; i++) {
            diff = fmax(diff, fabs(x[i] - b[i]));
            size = fmax(size, fabs(b[i]));
        }
        worst = diff / size;
        host->sparse_lu_band(host, lu, kl, ku);
    }
    host->sparse_lu_destroy(host, lu);
    free(values), free(dense), free(b), free(x), free(pivots);
    return worst;
}

static void test_patterns(const wb_host *host)
{
    enum { N = 60 };
    static unsigned char mask[N * N];
    int perm[N];
    wb_csr a;
    int kl, ku;

    /* a chain (tridiagonal): band 1 as given */
    memset(mask, 0, sizeof mask);
    for (int i = 0; i < N; i++)
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < N)
                mask[i * N + j] = 1;
    pattern_from_mask(N, mask, &a);
    CHECK(compare_with_dense(host, &a, 1, &kl, &ku) < 1e-13, "tridiagonal: sparse = dense");
    CHECK(kl == 1 && ku == 1, "tridiagonal: band (%d, %d), expected (1, 1)", kl, ku);
    wb_csr_free(&a);

    /* the same chain with its unknowns scrambled: RCM finds the band again */
    unsigned seed = 7;
    for (int i = 0; i < N; i++)
        perm[i] = i;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)((noise(&seed) + 1.0) * 0.5 * (i + 1)) % (i + 1);
        int t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    memset(mask, 0, sizeof mask);
    for (int i = 0; i < N; i++)
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < N)
                mask[perm[i] * N + perm[j]] = 1;
    pattern_from_mask(N, mask, &a);
    CHECK(compare_with_dense(host, &a, 2, &kl, &ku) < 1e-13, "scrambled chain: sparse = dense");
    CHECK(kl <= 1 && ku <= 1, "scrambled chain: band (%d, %d) after reordering, expected 1", kl,
          ku);
    wb_csr_free(&a);

    /* a chain of 3 x 3 blocks (a spatial chain's T(q; mu)) */
    memset(mask, 0, sizeof mask);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (abs(i / 3 - j / 3) <= 1)
                mask[i * N + j] = 1;
    pattern_from_mask(N, mask, &a);
    CHECK(compare_with_dense(host, &a, 3, &kl, &ku) < 1e-13, "block chain: sparse = dense");
    CHECK(kl <= 5 && ku <= 5, "block chain: band (%d, %d), expected <= 5", kl, ku);
    wb_csr_free(&a);

    /* an irregular unsymmetric pattern, two components, an arrow row */
    memset(mask, 0, sizeof mask);
    for (int i = 0; i < N; i++) {
        mask[i * N + i] = 1;
        if (i < N / 2) {
            mask[0 * N + i] = 1; /* the arrow */
            if (i + 7 < N / 2)
                mask[i * N + i + 7] = 1;
        } else if (i + 1 < N) {
            mask[(i + 1) * N + i] = 1;
        }
    }
    pattern_from_mask(N, mask, &a);
    CHECK(compare_with_dense(host, &a, 4, &kl, &ku) < 1e-12, "irregular: sparse = dense");
    wb_csr_free(&a);

    /* 1 x 1 */
    mask[0] = 1;
    pattern_from_mask(1, mask, &a);
    CHECK(compare_with_dense(host, &a, 5, &kl, &ku) < 1e-15, "1x1: sparse = dense");
    wb_csr_free(&a);
}

static void test_refusals(const wb_host *host)
{
    /* columns not increasing */
    int start[] = {0, 2, 3}, columns[] = {1, 0, 1};
    wb_sparse_pattern bad = {sizeof bad, 2, 2, 3, start, columns};
    CHECK(host->sparse_lu_create(host, &bad) == NULL, "unsorted columns refused");
    CHECK_CONTAINS(host_last_error(), "increasing", "the refusal says why");
    int start2[] = {0, 1, 2}, columns2[] = {0, 1};
    wb_sparse_pattern rect = {sizeof rect, 2, 3, 2, start2, columns2};
    CHECK(host->sparse_lu_create(host, &rect) == NULL, "non-square pattern refused");

    wb_sparse_pattern diag = {sizeof diag, 2, 2, 2, start2, columns2};
    wb_sparse_lu *lu = host->sparse_lu_create(host, &diag);
    double zero[] = {1.0, 0.0}, nan_values[] = {1.0, NAN};
    CHECK_STATUS(host->sparse_lu_factor(host, lu, zero), WB_ERR_SINGULAR, "singular matrix");
    CHECK_STATUS(host->sparse_lu_factor(host, lu, nan_values), WB_ERR_NONFINITE,
                 "non-finite entry");
    host->sparse_lu_destroy(host, lu);
}

/* A sparse nonlinear system, x_i^3 + x_i - x_(i-1) - x_(i+1) = c_i, by the
 * sparse and the dense Newton: the same iterates to round-off. */
enum { SYS_N = 40 };
static double rhs[SYS_N];
static const wb_sparse_pattern *sys_pattern;

static int sys_residual(void *user, const double *x, double *r)
{
    (void)user;
    for (int i = 0; i < SYS_N; i++)
        r[i] = x[i] * x[i] * x[i] + 3 * x[i] - (i > 0 ? x[i - 1] : 0) -
               (i + 1 < SYS_N ? x[i + 1] : 0) - rhs[i];
    return WB_OK;
}

static int sys_jacobian_sparse(void *user, const double *x, double *values)
{
    (void)user;
    for (int i = 0; i < SYS_N; i++)
        for (int e = sys_pattern->row_start[i]; e < sys_pattern->row_start[i + 1]; e++)
            values[e] = sys_pattern->columns[e] == i ? 3 * x[i] * x[i] + 3 : -1.0;
    return WB_OK;
}

static int sys_jacobian_dense(void *user, const double *x, double *J)
{
    (void)user;
    memset(J, 0, sizeof(double) * SYS_N * SYS_N);
    for (int i = 0; i < SYS_N; i++) {
        J[i * SYS_N + i] = 3 * x[i] * x[i] + 3;
        if (i > 0)
            J[i * SYS_N + i - 1] = -1.0;
        if (i + 1 < SYS_N)
            J[i * SYS_N + i + 1] = -1.0;
    }
    return WB_OK;
}

static void test_newton(const wb_host *host)
{
    static unsigned char mask[SYS_N * SYS_N];
    for (int i = 0; i < SYS_N; i++)
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < SYS_N)
                mask[i * SYS_N + j] = 1;
    wb_csr a;
    pattern_from_mask(SYS_N, mask, &a);
    sys_pattern = &a.pattern;
    unsigned seed = 11;
    for (int i = 0; i < SYS_N; i++)
        rhs[i] = 5 * noise(&seed);
    double xs[SYS_N] = {0}, xd[SYS_N] = {0};
    wb_newton_options opt;
    host->newton_defaults(host, &opt);
    wb_step_stats ss = {0}, sd = {0};
    wb_newton *sparse = host->newton_create_sparse(host, &a.pattern);
    wb_newton *dense = host->newton_create(host, SYS_N);
    CHECK_STATUS(host->newton_solve(host, sparse, sys_residual, sys_jacobian_sparse, NULL, xs,
                                    &opt, &ss, NULL),
                 WB_OK, "sparse Newton");
    CHECK_STATUS(host->newton_solve(host, dense, sys_residual, sys_jacobian_dense, NULL, xd,
                                    &opt, &sd, NULL),
                 WB_OK, "dense Newton");
    double diff = 0;
    for (int i = 0; i < SYS_N; i++)
        diff = fmax(diff, fabs(xs[i] - xd[i]));
    CHECK(diff < 1e-13, "sparse Newton = dense Newton: max difference %.3e", diff);
    CHECK(ss.newton_iterations == sd.newton_iterations && ss.newton_iterations >= 3,
          "the same iterations (%llu sparse, %llu dense)", (unsigned long long)ss.newton_iterations,
          (unsigned long long)sd.newton_iterations);
    double zero[SYS_N] = {0};
    CHECK_STATUS(host->newton_solve(host, sparse, sys_residual, NULL, NULL, zero, &opt, NULL,
                                    NULL),
                 WB_ERR_INVALID, "a sparse Newton without its Jacobian");
    CHECK_CONTAINS(host_last_error(), "sparse", "the refusal names the sparse system");
    host->newton_destroy(host, sparse);
    host->newton_destroy(host, dense);
    wb_csr_free(&a);
}

/* F_i(x) = sum over the pentadiagonal band j of sin(x_i x_j) (i + 1) / (1 + |i - j|): row
 * i depends on columns i-2 .. i+2 exactly. */
enum { FD_N = 40 };
static void banded_map(void *ctx, const double *x, double *F)
{
    (void)ctx;
    for (int i = 0; i < FD_N; i++) {
        F[i] = 0;
        for (int j = i - 2; j <= i + 2; j++)
            if (j >= 0 && j < FD_N)
                F[i] += sin(x[i] * x[j] + 0.1 * j) * (i + 1) / (1.0 + abs(i - j));
    }
}

/* Five colours for any length, and every entry equal to the dense central
 * differences' (the same steps and divisors: row i sees only its own
 * columns' shifts), bit for bit. */
static void test_coloured_differences(void)
{
    unsigned char mask[FD_N * FD_N];
    for (int i = 0; i < FD_N; i++)
        for (int j = 0; j < FD_N; j++)
            mask[i * FD_N + j] = abs(i - j) <= 2;
    wb_csr p;
    wb_fd_colouring colouring;
    CHECK(pattern_from_mask(FD_N, mask, &p) == 0, "coloured: pattern");
    CHECK(wb_fd_colouring_build(&p.pattern, &colouring) == 0, "coloured: colouring");
    CHECK(colouring.colours == 5, "coloured: %d colours for a pentadiagonal pattern, 5 expected",
          colouring.colours);
    double x[FD_N], scratch[4 * FD_N], dense[FD_N * FD_N], values[FD_N * 5];
    unsigned state = 7;
    for (int i = 0; i < FD_N; i++)
        x[i] = 2 * noise(&state);
    wb_central_jacobian(banded_map, NULL, FD_N, FD_N, x, scratch, dense);
    wb_central_jacobian_coloured(banded_map, NULL, &p.pattern, &colouring, x, scratch, values);
    int equal = 1;
    for (int i = 0; i < FD_N; i++)
        for (int e = p.row_start[i]; e < p.row_start[i + 1]; e++)
            equal &= values[e] == dense[i * FD_N + p.columns[e]];
    CHECK(equal, "coloured: every entry equal to the dense differences'");
    double analytic = cos(x[3] * x[4] + 0.4) * x[3] * 4 / 2.0; /* dF_3/dx_4 */
    const int e34 = wb_csr_find(&p.pattern, 3, 4);
    CHECK(fabs(values[e34] - analytic) <= 1e-9 * fmax(1.0, fabs(analytic)),
          "coloured: dF_3/dx_4 = %.17g, analytic %.17g", values[e34], analytic);
    wb_fd_colouring_free(&colouring);
    wb_csr_free(&p);
}

int main(void)
{
    const wb_host *host = host_services();
    test_patterns(host);
    test_refusals(host);
    test_newton(host);
    test_coloured_differences();
    return test_summary("sparse_lu_test");
}
