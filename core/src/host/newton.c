/* Newton's method with an analytic or forward-difference Jacobian. */
#include "host/host.h"
#include "wb_vec.h"

#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>

struct wb_newton {
    int n;
    wb_sparse_lu *sparse; /* a sparse Jacobian's LU, or NULL (dense) */
    double *jacobian;   /* n x n, then its LU factors; sparse: its nnz values */
    double *residual;   /* n */
    double *update;     /* n */
    double *shifted;    /* n: FD residual at x + delta e_j */
    int *pivots;        /* n */
    /* jacobian_rank_one: u (sparse: then S^-1 u) and v, n each; whether the
     * factors are those of the sparse part alone, and 1 + v.S^-1 u */
    wb_rank_one_fn rank_one_fn; /* newton_set_rank_one, or NULL */
    double *rank_u, *rank_v;
    int rank_one;
    double rank_denominator;
    int factored; /* the last Jacobian's factors are whole (keep_jacobian) */
};

wb_newton *newton_create(const wb_host *host, int n)
{
    if (n <= 0) {
        host->error(host, "newton_create: system size %d must be positive", n);
        return NULL;
    }
    wb_newton *ws = calloc(1, sizeof *ws);
    double *block = calloc((size_t)n * (size_t)(n + 5), sizeof(double));
    int *pivots = calloc((size_t)n, sizeof(int));
    if (!ws || !block || !pivots) {
        free(ws);
        free(block);
        free(pivots);
        host->error(host, "newton_create: out of memory for a system of size %d", n);
        return NULL;
    }
    ws->n = n;
    ws->jacobian = block;
    ws->residual = block + (size_t)n * n;
    ws->update = ws->residual + n;
    ws->shifted = ws->update + n;
    ws->rank_u = ws->shifted + n;
    ws->rank_v = ws->rank_u + n;
    ws->pivots = pivots;
    return ws;
}

/* The same workspace with the Jacobian's nonzeros and their sparse LU in
 * place of the dense n x n matrix. */
wb_newton *newton_create_sparse(const wb_host *host, const wb_sparse_pattern *pattern)
{
    wb_sparse_lu *lu = sparse_lu_create(host, pattern);
    if (!lu)
        return NULL;
    const int n = pattern->rows;
    wb_newton *ws = calloc(1, sizeof *ws);
    double *block = calloc((size_t)pattern->nnz + 5 * (size_t)n, sizeof(double));
    if (!ws || !block) {
        free(ws);
        free(block);
        sparse_lu_destroy(host, lu);
        host->error(host, "newton_create_sparse: out of memory for a system of size %d", n);
        return NULL;
    }
    ws->n = n;
    ws->sparse = lu;
    ws->jacobian = block;
    ws->residual = block + pattern->nnz;
    ws->update = ws->residual + n;
    ws->shifted = ws->update + n;
    ws->rank_u = ws->shifted + n;
    ws->rank_v = ws->rank_u + n;
    return ws;
}

void newton_destroy(const wb_host *host, wb_newton *ws)
{
    if (!ws)
        return;
    sparse_lu_destroy(host, ws->sparse);
    free(ws->jacobian);
    free(ws->pivots);
    free(ws);
}

void newton_defaults(const wb_host *host, wb_newton_options *opt)
{
    (void)host;
    /* the 1.0 members only: an older plugin's struct ends there */
    opt->struct_size = (uint32_t)offsetof(wb_newton_options, residual_scale);
    opt->tol = 1e-12;
    opt->step_tol = 0.0;
    opt->max_iter = 50;
    opt->simplified = 0;
    opt->fd_eps = 0.0;
    opt->settle_update = 0;
}

static int eval_residual(wb_residual_fn residual, void *user,
                         const double *x, double *r, wb_step_stats *stats)
{
    if (stats)
        stats->residual_evals++;
    return residual(user, x, r);
}

/* Forward differences, column by column; x is restored exactly. */
static int fd_jacobian(const wb_host *host, wb_newton *ws,
                       wb_residual_fn residual, void *user, double *x,
                       double eps, wb_step_stats *stats)
{
    const int n = ws->n;
    for (int j = 0; j < n; j++) {
        const double saved = x[j];
        const double delta = eps * fmax(1.0, fabs(saved));
        x[j] = saved + delta;
        const double actual = x[j] - saved; /* exactly representable step */
        int status = eval_residual(residual, user, x, ws->shifted, stats);
        x[j] = saved;
        if (status != WB_OK)
            return status;
        for (int i = 0; i < n; i++)
            ws->jacobian[i * n + j] = (ws->shifted[i] - ws->residual[i]) / actual;
    }
    (void)host;
    return WB_OK;
}

void newton_set_rank_one(const wb_host *host, wb_newton *ws, wb_rank_one_fn rank_one)
{
    (void)host;
    ws->rank_one_fn = rank_one;
}

/* Sherman-Morrison's precomputation on the sparse part's fresh factors:
 * u := S^-1 u and 1 + v.S^-1 u, which must not vanish (exactly, as the
 * dense LU's pivots).  A zero u (a rank-one part absent at this x) costs
 * nothing. */
static int prepare_rank_one(const wb_host *host, wb_newton *ws, wb_step_stats *stats)
{
    const int n = ws->n;
    if (vec_max_abs(n, ws->rank_u) == 0.0)
        return WB_OK;
    int status = sparse_lu_solve(host, ws->sparse, 1, ws->rank_u);
    if (stats)
        stats->linear_solves++;
    if (status != WB_OK)
        return status;
    ws->rank_denominator = 1.0 + vec_dot(n, ws->rank_v, ws->rank_u);
    if (ws->rank_denominator == 0.0 || !isfinite(ws->rank_denominator)) {
        host->error(host, "Newton: the Jacobian (%dx%d, sparse plus rank one) is singular "
                    "(1 + v.S^-1 u = %.3e)", n, n, ws->rank_denominator);
        return isfinite(ws->rank_denominator) ? WB_ERR_SINGULAR : WB_ERR_NONFINITE;
    }
    ws->rank_one = 1;
    return WB_OK;
}

static int form_jacobian(const wb_host *host, wb_newton *ws,
                         wb_residual_fn residual, wb_jacobian_fn jacobian,
                         void *user, double *x, const wb_newton_options *opt,
                         wb_step_stats *stats)
{
    int status;
    /* only with an analytic Jacobian: differences already hold all of it */
    wb_rank_one_fn rank_one = jacobian ? ws->rank_one_fn : NULL;
    ws->rank_one = 0;
    ws->factored = 0;
    if (stats)
        stats->jacobian_evals++;
    if (ws->sparse) {
        if (!jacobian) {
            host->error(host, "Newton: a sparse system needs its Jacobian (no differences)");
            return WB_ERR_INVALID;
        }
        status = jacobian(user, x, ws->jacobian);
        if (status == WB_OK && rank_one)
            status = rank_one(user, x, ws->rank_u, ws->rank_v);
        if (status != WB_OK)
            return status;
        if (stats)
            stats->linear_solves++;
        status = sparse_lu_factor(host, ws->sparse, ws->jacobian);
        if (status == WB_ERR_SINGULAR)
            host->error(host, "Newton: the sparse Jacobian (%dx%d) is singular", ws->n, ws->n);
        if (status == WB_OK && rank_one)
            status = prepare_rank_one(host, ws, stats);
        ws->factored = status == WB_OK;
        return status;
    }
    if (jacobian) {
        status = jacobian(user, x, ws->jacobian);
        if (status == WB_OK && rank_one) {
            status = rank_one(user, x, ws->rank_u, ws->rank_v);
            for (int i = 0; status == WB_OK && i < ws->n; i++)
                vec_axpy(ws->n, ws->rank_u[i], ws->rank_v, ws->jacobian + (size_t)i * ws->n);
        }
    } else {
        double eps = opt->fd_eps > 0.0 ? opt->fd_eps : sqrt(DBL_EPSILON);
        status = fd_jacobian(host, ws, residual, user, x, eps, stats);
    }
    if (status != WB_OK)
        return status;
    if (stats)
        stats->linear_solves++;
    status = linalg_lu_factor(host, ws->n, ws->jacobian, ws->pivots);
    if (status == WB_ERR_SINGULAR)
        host->error(host, "Newton: the Jacobian (%dx%d) is singular", ws->n, ws->n);
    ws->factored = status == WB_OK;
    return status;
}

/* The tolerance of a row whose terms have the size `scale`
 * (residual_scale): tol for rows of size 1 or more (as with no scales),
 * tol relative to the size for smaller ones. */
static double row_tolerance(double tol, double scale)
{
    return scale > 0.0 && isfinite(scale) ? tol * fmin(1.0, scale) : tol;
}

/* max_i |r_i| / tol_i: the residual test holds when it is at most 1. */
static double residual_measure(int n, const double *r, const double *scale, double tol)
{
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double v = fabs(r[i]) / row_tolerance(tol, scale ? scale[i] : 1.0);
        if (v != v || v > worst)
            worst = v;
    }
    return worst;
}

/* Whether every row is within its tolerance or its round-off floor, 64 eps
 * times the size of its terms: where an iteration that no longer gets
 * smaller has to stop.  A row already within its tolerance may sit above
 * its floor (a term whose own round-off its scale does not see, as a rod
 * x2 - x1 of length 1 at |x| = 1e6) and must not hold back the rows whose
 * floor lies above tol. */
static int at_round_off(int n, const double *r, const double *scale, double tol)
{
    for (int i = 0; i < n; i++) {
        double s = scale[i] > 0.0 && isfinite(scale[i]) ? scale[i] : 1.0;
        if (!(fabs(r[i]) <= fmax(64.0 * DBL_EPSILON * s, row_tolerance(tol, s))))
            return 0;
    }
    return 1;
}

/* Every |dx_i| <= tol max(1, |x_i|): relative to each unknown, since an
 * absolute test stalls on the round-off of large unknowns (multipliers). */
static int update_settled(int n, const double *x, const double *dx, double tol)
{
    for (int i = 0; i < n; i++)
        if (!(fabs(dx[i]) <= tol * fmax(1.0, fabs(x[i]))))
            return 0;
    return 1;
}

/* With settle_update, whether the residual test's solution also passes the
 * update test, or cannot get better: the residual no longer falls by
 * orders of magnitude over an update taken below tol. */
static int settled(const wb_newton_options *opt, int n, const double *x, const double *dx,
                   int iterations, int settling, double residual, double residual_before)
{
    return !opt->settle_update || iterations == 0 || update_settled(n, x, dx, opt->tol) ||
           (settling > 0 && !(residual < 1e-3 * residual_before));
}

/* The 1.5 members, or what a caller without them asked for: no reuse
 * across solves, no refresh. */
static int keeps_jacobian(const wb_newton_options *opt)
{
    return opt->simplified && WB_HAS_FIELD(opt, wb_newton_options, keep_jacobian) &&
           opt->keep_jacobian;
}

static double refresh_rate(const wb_newton_options *opt)
{
    return opt->simplified && WB_HAS_FIELD(opt, wb_newton_options, refresh_rate)
               ? opt->refresh_rate
               : 0.0;
}

/* A simplified iteration's factors are stale when an update cut the
 * residual measure by less than the refresh rate while the residual is
 * above the tolerance and above its round-off floor (where no Jacobian
 * makes it fall faster). */
static int stale(double rate, int iterations, double measure, double measure_before,
                 const wb_newton *ws, const double *scale, double tol)
{
    return rate > 0.0 && iterations > 0 && measure > 1.0 &&
           !(measure < rate * measure_before) &&
           !(scale && at_round_off(ws->n, ws->residual, scale, tol));
}

static void count_refresh(wb_step_stats *stats)
{
    if (stats && WB_HAS_FIELD(stats, wb_step_stats, jacobian_refreshes))
        stats->jacobian_refreshes++;
}

/* max_i |dx_i| / (tol max(|x_i|, u_i)): each unknown within tol of its
 * size when at most 1 (unknown_scale). */
static double correction_measure(int n, const double *x, const double *dx, const double *u,
                                 double tol)
{
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        double v = dx[i] == 0.0 ? 0.0 : fabs(dx[i]) / (tol * fmax(fabs(x[i]), u[i]));
        if (v != v || v > worst)
            worst = v;
    }
    return worst;
}

/* update = J^-1 residual with the factors at hand. */
static int solve_update(const wb_host *host, wb_newton *ws, wb_step_stats *stats)
{
    const int n = ws->n;
    for (int i = 0; i < n; i++)
        ws->update[i] = ws->residual[i];
    int status = ws->sparse ? sparse_lu_solve(host, ws->sparse, 1, ws->update)
                            : linalg_lu_solve(host, n, 1, ws->jacobian, ws->pivots, ws->update);
    if (status == WB_OK && ws->rank_one) /* Sherman-Morrison */
        vec_axpy(n, -vec_dot(n, ws->rank_v, ws->update) / ws->rank_denominator, ws->rank_u,
                 ws->update);
    if (stats)
        stats->linear_solves++;
    return status;
}

/* One newton_solve call's fixed arguments. */
typedef struct newton_call {
    const wb_host *host;
    wb_newton *ws;
    wb_residual_fn residual;
    wb_jacobian_fn jacobian;
    void *user;
    const wb_newton_options *opt;
    wb_step_stats *stats;
} newton_call;

/* factored_at when the factors at hand belong to no iterate of this
 * solve: there are none, or they were kept from an earlier solve
 * (keep_jacobian), older than any iterate of this one. */
enum { FACTORS_NONE = -1, FACTORS_EARLIER = INT_MIN };

/* The Jacobian at x, the iterate `at`, factored. */
static int factor_at(const newton_call *call, double *x, int at, int *factored_at)
{
    int status = form_jacobian(call->host, call->ws, call->residual, call->jacobian, call->user,
                               x, call->opt, call->stats);
    *factored_at = status == WB_OK ? at : FACTORS_NONE;
    return status;
}

/* The factors a solve begins with: the workspace's last ones when the
 * caller keeps them and they are whole, else none. */
static int initial_factors(const wb_newton_options *opt, const wb_newton *ws)
{
    return keeps_jacobian(opt) && ws->factored ? FACTORS_EARLIER : FACTORS_NONE;
}

/* The factors for the update at iterate `at`: full Newton's are new for
 * every update, a chord's when it holds none or they are stale (refresh,
 * counted as one). */
static int factors_for_update(const newton_call *call, double *x, int at, int refresh,
                              int *factored_at)
{
    if (call->opt->simplified && *factored_at != FACTORS_NONE && !refresh)
        return WB_OK;
    if (refresh)
        count_refresh(call->stats);
    return factor_at(call, x, at, factored_at);
}

/* What the unknowns' test keeps from one iteration to the next: the last
 * two updates in units of tol max(|x_i|, u_i), the iterate the factors
 * were formed at (or FACTORS_NONE, FACTORS_EARLIER). */
typedef struct correction_history {
    double applied, applied_before;
    int factored_at;
} correction_history;

enum { CORRECTION_MORE, CORRECTION_FINAL, CORRECTION_FLOOR };

/* Whether applying the correction of measure c leaves each unknown within
 * tol of its size: c itself, or theta / (1 - theta) of it for an
 * iteration that contracts by theta, its ratio to the last update. */
static int correction_final(double c, double applied)
{
    const double theta = c / applied;
    return c <= 1.0 || (theta < 1.0 && theta * c <= 1.0 - theta);
}

/* The update that theta is measured against.  Factors formed at the
 * iterate take a Newton step (theta -> 0 with no update before); factors
 * kept from an earlier solve that have taken no update in this one have no
 * measured contraction (a chord on them may contract by anything), so
 * their correction must be within tol itself: 0 makes theta infinite. */
static double contraction_reference(const correction_history *h)
{
    return h->factored_at == FACTORS_EARLIER && h->applied == INFINITY ? 0.0 : h->applied;
}

/* The correction the residual at x (iterate `at`) asks for, into
 * ws->update, and whether it ends the iteration (unknown_scale): FINAL
 * when applying it is enough; FLOOR when it is no smaller than the update
 * two before while the factors are at most two iterates old: round-off
 * (a converging iteration shrinks, even one that oscillates); MORE
 * otherwise.  Factors that are older and stall (a chord whose contraction
 * is lost, or factors kept from an earlier solve) are formed anew at x, a
 * refresh, as full Newton's are for every further update. */
static int test_correction(const newton_call *call, double *x, int at, correction_history *h,
                           int *verdict)
{
    const int n = call->ws->n;
    const double *u = call->opt->unknown_scale;
    const double tol = call->opt->tol;
    int status =
        h->factored_at == FACTORS_NONE ? factor_at(call, x, at, &h->factored_at) : WB_OK;
    if (status == WB_OK)
        status = solve_update(call->host, call->ws, call->stats);
    if (status != WB_OK)
        return status;
    double c = correction_measure(n, x, call->ws->update, u, tol);
    if (c != c) {
        call->host->error(call->host, "Newton: the correction is not a number (NaN in "
                                      "unknown_scale or the unknowns)");
        return WB_ERR_NONFINITE;
    }
    *verdict = CORRECTION_FINAL;
    if (correction_final(c, contraction_reference(h)))
        return WB_OK;
    const int stalled = !(c < h->applied_before);
    *verdict = CORRECTION_FLOOR;
    if (stalled && h->factored_at >= at - 2)
        return WB_OK;
    *verdict = CORRECTION_MORE;
    if ((stalled || !call->opt->simplified) && h->factored_at != at) {
        if (call->opt->simplified)
            count_refresh(call->stats); /* a chord's factors renewed */
        status = factor_at(call, x, at, &h->factored_at);
        if (status == WB_OK)
            status = solve_update(call->host, call->ws, call->stats);
        if (status != WB_OK)
            return status;
        c = correction_measure(n, x, call->ws->update, u, tol);
        if (correction_final(c, h->applied))
            *verdict = CORRECTION_FINAL;
    }
    return WB_OK;
}

int newton_solve(const wb_host *host, wb_newton *ws, wb_residual_fn residual,
                 wb_jacobian_fn jacobian, void *user, double *x,
                 const wb_newton_options *opt, wb_step_stats *stats,
                 wb_newton_report *report)
{
    const int n = ws->n;
    /* a caller's structs must hold at least their ABI 1.0 members */
    if (!WB_HAS_FIELD(opt, wb_newton_options, settle_update) ||
        (report && !WB_HAS_FIELD(report, wb_newton_report, step_norm))) {
        host->error(host, "newton_solve: wb_newton_options or wb_newton_report smaller than "
                          "its ABI 1.0 layout (set struct_size = sizeof)");
        return WB_ERR_INVALID;
    }
    const newton_call call = {host, ws, residual, jacobian, user, opt, stats};
    double step_norm = 0.0, residual_norm = 0.0, residual_before = INFINITY;
    int iterations = 0, settling = 0, status = WB_OK;
    const double rate = refresh_rate(opt);
    const double *scale = WB_HAS_FIELD(opt, wb_newton_options, residual_scale)
                              ? opt->residual_scale : NULL;
    const double *unknown = WB_HAS_FIELD(opt, wb_newton_options, unknown_scale)
                                ? opt->unknown_scale : NULL;
    const double tol = opt->tol;
    double measure = 0.0; /* max_i |r_i| / tol_i: converged at 1 */
    correction_history history = {INFINITY, INFINITY, initial_factors(opt, ws)};

    for (;;) {
        status = eval_residual(residual, user, x, ws->residual, stats);
        if (status != WB_OK)
            break;
        residual_norm = vec_max_abs(n, ws->residual);
        measure = residual_measure(n, ws->residual, scale, tol);
        if (!isfinite(residual_norm)) {
            host->error(host, "Newton: non-finite residual after %d iterations",
                        iterations);
            status = WB_ERR_NONFINITE;
            break;
        }
        /* converged by the residual, or by a vanishing update (a residual
         * whose round-off floor lies above tol can still converge) */
        int small_step = opt->step_tol > 0.0 && iterations > 0 &&
                         step_norm <= opt->step_tol * (1.0 + vec_max_abs(n, x));
        if (small_step)
            break;
        int solved = 0, last = 0; /* the update solved for already; the last one */
        if (unknown && (measure <= 1.0 || (scale && at_round_off(n, ws->residual, scale, tol)))) {
            /* the rows are done; the unknowns are when the correction the
             * residual asks for is within tol of each one's size */
            int verdict;
            status = test_correction(&call, x, iterations, &history, &verdict);
            if (status != WB_OK || verdict == CORRECTION_FLOOR)
                break;
            if (verdict == CORRECTION_MORE && settling++ >= opt->max_iter) {
                host->error(host, "Newton: the corrections stay above the tolerance %.3e of "
                            "the unknowns after %d more iterations (%.3g times it; the "
                            "residual %.3e is within its tolerance)", tol, opt->max_iter,
                            correction_measure(n, x, ws->update, unknown, tol), residual_norm);
                status = WB_ERR_NEWTON;
                break;
            }
            solved = 1, last = verdict == CORRECTION_FINAL;
        } else if (measure <= 1.0) {
            if (settled(opt, n, x, ws->update, iterations, settling, measure,
                        residual_before))
                break;
            if (settling++ >= opt->max_iter) {
                host->error(host, "Newton: the updates stay above the tolerance %.3e after "
                            "%d more iterations (last update %.3e, residual %.3e)",
                            tol, opt->max_iter, step_norm, residual_norm);
                status = WB_ERR_NEWTON;
                break;
            }
        } else if (scale && iterations > 0 && !(measure < 0.5 * residual_before) &&
                   at_round_off(n, ws->residual, scale, tol)) {
            /* the rows' round-off floor lies above tol (a pendulum of length
             * 1e6: eps l^2 > 1e-12) and the residual has stopped falling */
            break;
        } else if (iterations >= opt->max_iter) {
            if (scale)
                host->error(host, "Newton did not converge in %d iterations (residual %.3e, "
                            "%.3g times the tolerance of its row, tolerance %.3e, relative "
                            "to the row's terms where they are below 1)", iterations,
                            residual_norm, measure, tol);
            else
                host->error(host, "Newton did not converge in %d iterations "
                            "(residual %.3e, tolerance %.3e)",
                            iterations, residual_norm, tol);
            status = WB_ERR_NEWTON;
            break;
        }
        if (!solved) {
            /* stale only above the rows' tolerance and floor, where the
             * unknowns' test does not run: the two never judge one iterate */
            const int refresh = history.factored_at != FACTORS_NONE &&
                                stale(rate, iterations, measure, residual_before, ws, scale, tol);
            status = factors_for_update(&call, x, iterations, refresh, &history.factored_at);
            if (status == WB_OK)
                status = solve_update(host, ws, stats);
            if (status != WB_OK)
                break;
        }
        if (unknown) {
            history.applied_before = history.applied;
            history.applied = correction_measure(n, x, ws->update, unknown, tol);
        }
        for (int i = 0; i < n; i++)
            x[i] -= ws->update[i];
        step_norm = vec_max_abs(n, ws->update);
        residual_before = measure;
        iterations++;
        if (stats)
            stats->newton_iterations++;
        if (last)
            break; /* applied without a residual: within tol of the unknowns */
    }
    if (report) {
        report->iterations = iterations;
        report->residual_norm = residual_norm;
        report->step_norm = step_norm;
    }
    return status;
}
