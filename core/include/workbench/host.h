/*
 * workbench/host.h -- the service table the host hands to every plugin.
 *
 * Plugins do not link against the host.  Each create() receives a
 * `const wb_host *`; the pointer stays valid until the plugin's instance
 * is destroyed.  Services are plain function pointers; every one of them
 * takes the host pointer first.
 *
 * Conventions shared by all services
 *   - Matrices are dense, row-major, double precision: element (i, j) of an
 *     r x c matrix A is A[i*c + j].
 *   - Several right-hand sides are stored one vector after another:
 *     right-hand side k of length n starts at B + k*n.
 *   - Services never keep a pointer to caller memory after they return.
 *   - Services never allocate except the *_create functions; a workspace
 *     created once lets a step loop run without allocation.
 *   - On failure a service returns a wb_status other than WB_OK and has
 *     already reported the reason through error(); the caller may add
 *     context by reporting again (the last report wins).
 */
#ifndef WORKBENCH_HOST_H
#define WORKBENCH_HOST_H

#include "abi.h"

typedef struct wb_host wb_host;

/* Counters a step accumulates; the host owns the struct and passes it to
 * step().  The driver counts `steps` itself; plugins only ever add to the
 * other fields (never to `steps`, which would count every step twice). */
typedef struct wb_step_stats {
    uint32_t struct_size;
    uint64_t steps;              /* successful steps                        */
    uint64_t newton_iterations;  /* Newton or fixed-point sweeps            */
    uint64_t residual_evals;     /* residual (or fixed-point map) calls     */
    uint64_t jacobian_evals;     /* Jacobian evaluations (analytic or FD)   */
    uint64_t linear_solves;      /* factorisations + back-substitutions     */
    uint64_t function_evals;     /* model right-hand-side evaluations: the
                                    force grad V (or a Lie-group field) each
                                    time a step has the model compute it, on
                                    a vector space the host's consistent
                                    multipliers included (one each; a Lie
                                    group's, by differences, are not
                                    counted), not start()'s or reset()'s
                                    (tests/plugins/counting.lua)            */
    /* 1.2: how implicit stages were solved, steps counted once each (a
     * method with a choice of iteration adds to one of them per step; test
     * WB_HAS_FIELD before writing) */
    uint64_t fixed_point_steps;  /* by fixed-point iteration alone          */
    uint64_t newton_steps;       /* by (simplified) Newton                  */
    /* 1.5: Jacobians formed in place of one that was kept or reused but
     * contracted too slowly or failed (also counted in jacobian_evals) */
    uint64_t jacobian_refreshes;
    /* 1.6: steps whose iteration began from the last step's solution
     * extrapolated, or from a corrected start of higher order (rk's
     * start = "corrected", or "auto" where it chose that start); steps
     * from the plain guess are in neither (test WB_HAS_FIELD before
     * writing) */
    uint64_t extrapolated_starts;
    uint64_t corrected_starts;
} wb_step_stats;

/* ---- Butcher tableaux ------------------------------------------------ */

/* A Runge-Kutta tableau, optionally with the second tableau of a
 * partitioned pair (a2, b2, c2 non-NULL).  Tableaux handed out by the host
 * are host-owned and immutable; they live until the host exits. */
typedef struct wb_tableau {
    uint32_t struct_size;
    int s;                  /* number of stages                            */
    const double *a;        /* s x s, row-major                            */
    const double *b;        /* s weights                                   */
    const double *c;        /* s nodes                                     */
    const double *a2;       /* partitioned pair: second s x s, or NULL     */
    const double *b2;       /* partitioned pair: second weights, or NULL   */
    const double *c2;       /* partitioned pair: second nodes, or NULL     */
    const char *name;       /* e.g. "gauss3", "lobatto_iiia_iiib3", "rk4"   */
    /* Orders: from the rooted-tree conditions up to 8 (6 for a pair), and
     * beyond that the lower bound of Butcher's simplifying assumptions
     * B(p), C(q), D(r): min(p, q + r + 1, 2 q + 2), rounded up to even for
     * a symmetric method; for a pair only with one quadrature (b = b2,
     * c = c2), with the q and r both matrices satisfy. */
    int order;              /* of the method: the pair, when it is one      */
    int order_first;        /* of (a, b, c) alone as a Runge-Kutta method   */
} wb_tableau;

/* ---- Newton solver --------------------------------------------------- */

/* Residual r(x) of an n-dimensional system.  Return WB_OK, or a status
 * (e.g. WB_ERR_NONFINITE) that aborts the iteration. */
typedef int (*wb_residual_fn)(void *user, const double *x, double *r);
/* Jacobian J(x), n x n row-major, J[i*n+j] = d r_i / d x_j. */
typedef int (*wb_jacobian_fn)(void *user, const double *x, double *J);

/* The rank-one part u v^T of a Jacobian at x: u and v, n values each
 * (1.4: newton_set_rank_one). */
typedef int (*wb_rank_one_fn)(void *user, const double *x, double *u, double *v);

typedef struct wb_newton_options {
    uint32_t struct_size;
    double tol;        /* converged when max_i |r_i| <= tol                 */
    double step_tol;   /* ... or when max_i |dx_i| <= step_tol*(1+max|x|)
                          after an update (0 disables this test)           */
    int max_iter;      /* iterations before WB_ERR_NEWTON                   */
    int simplified;    /* 1: reuse the first Jacobian of the solve (chord;
                          across solves: keep_jacobian)                    */
    double fd_eps;     /* relative FD step when no Jacobian given; 0=auto  */
    /* 1: once max|r_i| <= tol, keep updating until the last update is also
     * below tol relative to each unknown (|dx_i| <= tol max(1, |x_i|)), or
     * the residual has reached its round-off floor (an update no longer
     * cuts it by 1000): a residual just under tol may still hide an update
     * of 1e-6.  These further updates get their own max_iter.  0: stop at
     * the residual test alone (the default). */
    int settle_update;
    /* 1.2: NULL (the default: tol is absolute), or n positive numbers s_i,
     * the size of the terms each residual r_i is made of (|q|^2 for g =
     * |q|^2 - l^2, |p| for a momentum balance): its round-off floor is about
     * eps s_i.  Then row i is converged when |r_i| <= tol min(1, s_i): tol
     * as before for rows of size 1 or more, relative for smaller ones (a
     * pendulum of length 1e-6); and the iteration has converged, too, once
     * the residual no longer halves while every |r_i| is within its
     * tolerance or its round-off floor 64 eps s_i, which lies above tol for
     * large terms (a pendulum of length 1e6, where eps l^2 > 1e-12).
     * newton_defaults writes the 1.0 members and their struct_size only:
     * set struct_size = sizeof(wb_newton_options) and the members after them
     * (zero the struct first: a member left unset is then NULL; a plugin
     * built against earlier headers has no room for them). */
    const double *residual_scale;
    /* 1.5 (newton_defaults does not write them: a caller that sets
     * struct_size = sizeof sets every member after the 1.0 ones, or zeroes
     * the struct first, = {0}; 0 is as before).  With simplified = 1 only:
     * keep_jacobian  1: begin with the factors of the last Jacobian this
     *                workspace formed, in an earlier solve, and form a new
     *                one only when it holds none (its last factorisation
     *                failed, or there was none); the caller vouches that
     *                they still fit this system (the same step size ...).
     *                0: a new Jacobian at the first iterate, as before.
     * refresh_rate   > 0: when an update cuts the residual (max_i |r_i| /
     *                tol_i) by less than this factor while it is above the
     *                tolerance and its round-off floor, the Jacobian is
     *                stale: a new one at the current iterate, counted in
     *                stats->jacobian_refreshes.  0: never (the default). */
    int keep_jacobian;
    double refresh_rate;
    /* 1.5: NULL (the default), or n numbers u_i >= 0, the size of each
     * unknown (the size of the vector it belongs to, say).  Then a residual
     * within its tolerance (or at its round-off floor) is not enough: a
     * residual test can leave an unknown wrong by tol times its row's terms
     * over the unknown's share of them (vertical_disc at Iz = 1e-12: a spin
     * row of terms 1e8 times Iz w).  Converged needs the Newton correction
     * the last residual asks for, dx = J^-1 r with the factors at hand (one
     * more back-substitution; no residual or Jacobian), to be within tol of
     * every unknown's size once applied: |dx_i| <= tol max(|x_i|, u_i), or
     * theta / (1 - theta) of it for an iteration that contracts by theta
     * (its ratio to the update before).  That correction is then applied
     * without a further residual (it counts as an iteration; the report's
     * residual_norm is the residual before it).  A larger one is the next
     * update; a chord (simplified) that stalls forms the Jacobian anew at
     * the iterate, and full Newton uses a fresh one for every further
     * update.  Where the rows' round-off keeps the corrections above tol,
     * the iteration stops once a correction is no smaller than the one two
     * updates before with factors at most two iterates old (round-off does
     * not shrink; a converging iteration, even one that oscillates, does).
     * These further updates get their own max_iter; settle_update is not
     * used.  u is read at every test, so a caller may refresh it from its
     * jacobian callback.  Set struct_size = sizeof(wb_newton_options), and
     * test host->abi_minor >= 5: an older host ignores this member.
     * With keep_jacobian and refresh_rate: refresh_rate acts while the rows
     * are above their tolerance and floor, this test once they are not, so
     * the two never judge the same iterate.  Factors kept from an earlier
     * solve count as older than any iterate: until they have taken an
     * update in this solve their contraction is unknown, so their
     * correction is final only when it is within tol itself; they never
     * stop the iteration at the floor, and a chord on them that stalls
     * forms a new Jacobian at the iterate.  Every Jacobian a chord forms in
     * place of factors it holds (refresh_rate's or this test's) is counted
     * in stats->jacobian_refreshes. */
    const double *unknown_scale;
} wb_newton_options;

typedef struct wb_newton_report {
    uint32_t struct_size;
    int iterations;         /* updates taken in the last solve             */
    double residual_norm;   /* max |r_i| at the returned x                 */
    double step_norm;       /* max |dx_i| of the last update               */
} wb_newton_report;

typedef struct wb_newton wb_newton;  /* opaque workspace, one size n */

/* ---- Sparse matrices (1.3) --------------------------------------------- */

/* The nonzero pattern of a rows x cols matrix in compressed rows: the
 * entries of row i are number row_start[i] .. row_start[i+1] - 1, in
 * columns columns[row_start[i]] ..., strictly increasing within a row;
 * row_start[0] = 0 and row_start[rows] = nnz.  A matrix in this pattern is
 * the array of its nnz values in the same order.  The arrays belong to
 * whoever built the pattern; the host copies what it keeps. */
typedef struct wb_sparse_pattern {
    uint32_t struct_size;
    int rows, cols;
    int nnz;
    const int *row_start;  /* rows + 1 */
    const int *columns;    /* nnz      */
} wb_sparse_pattern;

typedef struct wb_sparse_lu wb_sparse_lu;  /* opaque workspace, one pattern */

/* ---- Logging --------------------------------------------------------- */

typedef enum wb_log_level {
    WB_LOG_DEBUG = 0,
    WB_LOG_INFO = 1,
    WB_LOG_WARNING = 2
} wb_log_level;

/* ---- The service table ----------------------------------------------- */

struct wb_host {
    uint32_t abi_major;
    uint32_t abi_minor;
    uint32_t struct_size;

    /* Report an error: formats into the host's error slot (truncated to a
     * few hundred characters).  The caller then returns a status != WB_OK. */
    void (*error)(const wb_host *host, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
    void (*log)(const wb_host *host, int level, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 3, 4)))
#endif
        ;

    /* Dense LU with partial pivoting (LAPACK dgetrf/dgetrs).  A is n x n
     * row-major and is overwritten by its factors; ipiv has n entries.
     * WB_ERR_SINGULAR for an exactly singular matrix, WB_ERR_NONFINITE for
     * one with a NaN or Inf entry (and from lu_solve for a non-finite
     * solution). */
    int (*lu_factor)(const wb_host *host, int n, double *A, int *ipiv);
    /* Solve A X = B with the factors of lu_factor; B holds nrhs vectors of
     * length n and is overwritten by X. */
    int (*lu_solve)(const wb_host *host, int n, int nrhs, const double *LU,
                    const int *ipiv, double *B);
    /* Factor and solve in one call (A and B overwritten). */
    int (*dense_solve)(const wb_host *host, int n, int nrhs, double *A,
                       int *ipiv, double *B);
    /* Cholesky of a symmetric positive definite A (lower triangle used,
     * A overwritten).  WB_ERR_SINGULAR when A is not positive definite. */
    int (*cholesky_factor)(const wb_host *host, int n, double *A);
    int (*cholesky_solve)(const wb_host *host, int n, int nrhs,
                          const double *L, double *B);
    /* Banded LU solve (LAPACK dgbsv).  AB is in LAPACK band storage with
     * leading dimension ldab >= 2*kl+ku+1: element (i, j) of A lives at
     * AB[wb_band_index(kl, ku, ldab, i, j)].  AB is overwritten by the
     * factors, B (nrhs vectors of length n) by the solution. */
    int (*banded_solve)(const wb_host *host, int n, int kl, int ku,
                        double *AB, int ldab, int *ipiv, int nrhs, double *B);

    /* Newton's method.  newton_create allocates a workspace for systems of
     * size n (the only allocation); newton_solve iterates x in place from
     * the initial guess it holds.  jacobian may be NULL: the host then
     * uses forward differences of residual (n extra residual calls).
     * stats (may be NULL) receives iterations, residual and Jacobian
     * evaluations and linear solves; report (may be NULL) the final norms.
     * Returns WB_OK, WB_ERR_NEWTON (not converged in max_iter),
     * WB_ERR_SINGULAR or WB_ERR_NONFINITE; x then holds the last iterate.
     * WB_ERR_INVALID when opt or report is smaller than its ABI 1.0
     * layout (struct_size not set to sizeof). */
    wb_newton *(*newton_create)(const wb_host *host, int n);
    void (*newton_destroy)(const wb_host *host, wb_newton *ws);
    int (*newton_solve)(const wb_host *host, wb_newton *ws,
                        wb_residual_fn residual, wb_jacobian_fn jacobian,
                        void *user, double *x, const wb_newton_options *opt,
                        wb_step_stats *stats, wb_newton_report *report);
    /* Sensible defaults: tol 1e-12, step_tol 0, max_iter 50, full Newton. */
    void (*newton_defaults)(const wb_host *host, wb_newton_options *opt);

    /* Tableaux.  family is one of the names `wb.tableau` knows ("gauss",
     * "radau_ia", "radau_iia", "lobatto_iiia", "lobatto_iiib",
     * "lobatto_iiic", "lobatto_iiic_star", "lobatto_iiia_iiib"), s its
     * stage count, from 1 (2 for the Lobatto families) to 16; named()
     * takes "euler", "explicit_midpoint", "heun", "kutta3", "rk4", "rk38"
     * and "<family><s>" such as "gauss3".  NULL (with the error reported)
     * for an unknown name or an s out of range. */
    const wb_tableau *(*tableau_family)(const wb_host *host,
                                        const char *family, int s);
    const wb_tableau *(*tableau_named)(const wb_host *host, const char *name);

    /* ---- 1.3: sparse linear algebra (test WB_HAS_FIELD first) ---------- */

    /* LU of square sparse matrices with one nonzero pattern: the unknowns
     * are ordered by reverse Cuthill-McKee (or kept in their order when
     * that leaves a narrower band) and the matrix is factored by LAPACK's
     * banded LU (dgbtrf/dgbtrs) within the band that ordering leaves, so a
     * chain's matrices cost O(n).  sparse_lu_create copies the pattern and
     * allocates everything (the only allocation); factor and solve do not.
     * factor takes the nnz values in the pattern's order; solve overwrites
     * B (nrhs vectors of length n) with the solution.  Errors as for the
     * dense LU (WB_ERR_SINGULAR, WB_ERR_NONFINITE); WB_ERR_INVALID for a
     * malformed or non-square pattern. */
    wb_sparse_lu *(*sparse_lu_create)(const wb_host *host, const wb_sparse_pattern *pattern);
    void (*sparse_lu_destroy)(const wb_host *host, wb_sparse_lu *lu);
    int (*sparse_lu_factor)(const wb_host *host, wb_sparse_lu *lu, const double *values);
    int (*sparse_lu_solve)(const wb_host *host, wb_sparse_lu *lu, int nrhs, double *B);
    /* The band of the ordered matrix (sub- and superdiagonals). */
    void (*sparse_lu_band)(const wb_host *host, const wb_sparse_lu *lu, int *kl, int *ku);
    /* Newton's method for a system whose n x n Jacobian has the nonzero
     * pattern `pattern`: jacobian() writes its nnz values instead of a
     * dense matrix, and the linear solves are the sparse LU's.  A jacobian
     * callback is required (no differences).  newton_solve and
     * newton_destroy take this workspace like any other. */
    wb_newton *(*newton_create_sparse)(const wb_host *host, const wb_sparse_pattern *pattern);

    /* ---- 1.4 (test WB_HAS_FIELD first) ----------------------------------- */

    /* Give workspace ws's Jacobians a rank-one part (NULL: none, the
     * default): the Jacobian is then the matrix jacobian() writes plus
     * u v^T, which rank_one writes at the same x right after each
     * jacobian() call (not with differences: they hold all of it).  A
     * sparse workspace factors the sparse part alone and solves by the
     * Sherman-Morrison formula (one more solve with its LU per Jacobian,
     * O(n) per update), so a matrix that one outer product makes dense
     * (Gonzalez's discrete gradient) keeps its sparse cost; a dense one
     * adds u v^T before its LU.  newton_solve returns WB_ERR_SINGULAR when
     * 1 + v.S^-1 u vanishes. */
    void (*newton_set_rank_one)(const wb_host *host, wb_newton *ws, wb_rank_one_fn rank_one);
};

/* Index of element (i, j) in LAPACK band storage (column-major). */
static inline int wb_band_index(int kl, int ku, int ldab, int i, int j)
{
    return (kl + ku + i - j) + j * ldab;
}

#endif
