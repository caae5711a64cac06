/* The host's Newton solver (core/src/newton.c) through the service table.
 *
 *   newton_test            every case but the step_tol contract
 *   newton_test step_tol   the step_tol contract of workbench/host.h
 *
 * Residuals record what they were called with, so the tests can compare
 * the solver's counters and convergence history with what actually
 * happened. */
#include "host/host.h"
#include "test_check.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define MAX_CALLS 256

/* What a residual saw: the max-norm of every residual it returned and the
 * last point it was evaluated at. */
typedef struct trace {
    int calls, jacobian_calls;
    double norms[MAX_CALLS];
    double last_x[4];
    double scale; /* residual multiplier (1 unless a test says otherwise) */
} trace;

static void record(trace *t, int n, const double *x, const double *r)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(r[i]));
    if (t->calls < MAX_CALLS)
        t->norms[t->calls] = m;
    t->calls++;
    memcpy(t->last_x, x, (size_t)n * sizeof(double));
}

/* ---- systems --------------------------------------------------------------------- */

/* x^2 + y^2 = 5, x y = 2: roots (1, 2), (2, 1) and their negatives. */
static int circle_hyperbola(void *user, const double *x, double *r)
{
    trace *t = user;
    r[0] = x[0] * x[0] + x[1] * x[1] - 5.0;
    r[1] = x[0] * x[1] - 2.0;
    record(t, 2, x, r);
    return WB_OK;
}

static int circle_hyperbola_jacobian(void *user, const double *x, double *J)
{
    trace *t = user;
    t->jacobian_calls++;
    J[0] = 2 * x[0], J[1] = 2 * x[1]; /* row-major: row 0 = d r0 / d(x, y) */
    J[2] = x[1], J[3] = x[0];
    return WB_OK;
}

/* Two copies of one equation: every Jacobian is exactly singular. */
static int dependent(void *user, const double *x, double *r)
{
    trace *t = user;
    r[0] = x[0] + x[1] - 1.0;
    r[1] = 2.0 * x[0] + 2.0 * x[1] - 2.0;
    record(t, 2, x, r);
    return WB_OK;
}

static int dependent_jacobian(void *user, const double *x, double *J)
{
    (void)user, (void)x;
    J[0] = 1, J[1] = 1, J[2] = 2, J[3] = 2;
    return WB_OK;
}

/* x^2 + 1 = 0 has no real root. */
static int no_root(void *user, const double *x, double *r)
{
    r[0] = x[0] * x[0] + 1.0;
    record(user, 1, x, r);
    return WB_OK;
}

static int no_root_jacobian(void *user, const double *x, double *J)
{
    (void)user;
    J[0] = 2 * x[0];
    return WB_OK;
}

/* sqrt(x) + 1 = 0: from x0 > 0 the first update lands at x < 0, where the
 * residual is NaN. */
static int sqrt_plus_one(void *user, const double *x, double *r)
{
    r[0] = sqrt(x[0]) + 1.0;
    record(user, 1, x, r);
    return WB_OK;
}

static int sqrt_jacobian(void *user, const double *x, double *J)
{
    (void)user;
    J[0] = 0.5 / sqrt(x[0]);
    return WB_OK;
}

static int failing_residual(void *user, const double *x, double *r)
{
    (void)user, (void)x;
    r[0] = 0;
    return WB_ERR_MODEL;
}

static int infinite_jacobian(void *user, const double *x, double *J)
{
    (void)user, (void)x;
    J[0] = INFINITY;
    return WB_OK;
}

/* scale * (x^2 - 2, y - x): the root (sqrt 2, sqrt 2) is not a double, so
 * for a large scale the residual cannot drop below ~scale * 1e-16. */
static int scaled_sqrt2(void *user, const double *x, double *r)
{
    trace *t = user;
    r[0] = t->scale * (x[0] * x[0] - 2.0);
    r[1] = t->scale * (x[1] - x[0]);
    record(t, 2, x, r);
    return WB_OK;
}

static int scaled_sqrt2_jacobian(void *user, const double *x, double *J)
{
    trace *t = user;
    t->jacobian_calls++;
    J[0] = t->scale * 2 * x[0], J[1] = 0;
    J[2] = -t->scale, J[3] = t->scale;
    return WB_OK;
}

/* scale (e^x - e): a residual scaled so small that it meets tol while the
 * update is still large. */
static int scaled_exp(void *user, const double *x, double *r)
{
    trace *t = user;
    r[0] = t->scale * (exp(x[0]) - exp(1.0));
    record(t, 1, x, r);
    return WB_OK;
}

static int scaled_exp_jacobian(void *user, const double *x, double *J)
{
    trace *t = user;
    t->jacobian_calls++;
    J[0] = t->scale * exp(x[0]);
    return WB_OK;
}

/* a (x - 1) + B (y - c), y^2 - s with s the trace's scale (1 or 2) and c
 * = sqrt(s) rounded: row 0 determines x through a term far smaller than
 * its others (a = 1e-8, B = 1), so a residual within tol leaves x wrong by
 * B / a times y's error.  For s = 2 the root y = sqrt 2 is no double: y's
 * round-off keeps x off the root by ~1e-8, a floor far above tol. */
static const double hidden_a = 1e-8, hidden_B = 1.0;

static int hidden_unknown(void *user, const double *x, double *r)
{
    trace *t = user;
    r[0] = hidden_a * (x[0] - 1.0) + hidden_B * (x[1] - sqrt(t->scale));
    r[1] = x[1] * x[1] - t->scale;
    record(t, 2, x, r);
    return WB_OK;
}

static int hidden_unknown_jacobian(void *user, const double *x, double *J)
{
    trace *t = user;
    t->jacobian_calls++;
    J[0] = hidden_a, J[1] = hidden_B;
    J[2] = 0.0, J[3] = 2.0 * x[1];
    return WB_OK;
}

/* ---- helpers ----------------------------------------------------------------------- */

typedef struct run {
    int status;
    double x[4];
    wb_step_stats stats;
    wb_newton_report report;
    trace trace;
} run;

static run solve(const wb_host *host, int n, wb_residual_fn r, wb_jacobian_fn J,
                 const double *x0, const wb_newton_options *opt, double scale)
{
    run out;
    memset(&out, 0, sizeof out);
    out.stats.struct_size = sizeof out.stats;
    out.report.struct_size = sizeof out.report;
    out.trace.scale = scale;
    memcpy(out.x, x0, (size_t)n * sizeof(double));
    wb_newton *ws = host->newton_create(host, n);
    if (!CHECK(ws != NULL, "newton_create(%d): %s", n, host_last_error())) {
        out.status = -1;
        return out;
    }
    host_clear_error();
    out.status = host->newton_solve(host, ws, r, J, &out.trace, out.x, opt, &out.stats,
                                    &out.report);
    host->newton_destroy(host, ws);
    return out;
}

static wb_newton_options defaults(const wb_host *host)
{
    wb_newton_options opt;
    memset(&opt, 0xff, sizeof opt); /* newton_defaults must set every field */
    host->newton_defaults(host, &opt);
    return opt;
}

/* The defaults with the whole struct: every member after the 1.0 ones off. */
static wb_newton_options current(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    opt.struct_size = sizeof opt;
    opt.residual_scale = NULL;
    opt.keep_jacobian = 0, opt.refresh_rate = 0.0;
    opt.unknown_scale = NULL;
    return opt;
}

static void check_root_12(const run *r, const char *what)
{
    CHECK_STATUS(r->status, WB_OK, what);
    CHECK(fabs(r->x[0] - 1.0) <= 1e-12 && fabs(r->x[1] - 2.0) <= 1e-12,
          "%s: converged to (%.17g, %.17g), expected (1, 2)", what, r->x[0], r->x[1]);
    CHECK(r->report.residual_norm <= 1e-12, "%s: reported residual %.3e", what,
          r->report.residual_norm);
    CHECK((int)r->stats.newton_iterations == r->report.iterations,
          "%s: stats.newton_iterations %llu != report.iterations %d", what,
          (unsigned long long)r->stats.newton_iterations, r->report.iterations);
}

/* ---- cases ---------------------------------------------------------------------------- */

static void test_defaults_and_create(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    /* the 1.0 members only: a plugin built against an earlier header has a
     * struct that ends there (residual_scale is 1.2, set by those who know it) */
    CHECK(opt.struct_size == offsetof(wb_newton_options, residual_scale),
          "defaults: struct_size %u, the 1.0 layout's %zu", opt.struct_size,
          offsetof(wb_newton_options, residual_scale));
    unsigned char bytes[sizeof(wb_newton_options) + 16];
    memset(bytes, 0xab, sizeof bytes);
    host->newton_defaults(host, (wb_newton_options *)(void *)bytes);
    int untouched = 1;
    for (size_t i = offsetof(wb_newton_options, residual_scale); i < sizeof bytes; i++)
        untouched &= bytes[i] == 0xab;
    CHECK(untouched, "defaults: nothing written past the 1.0 members");
    CHECK(opt.tol == 1e-12 && opt.step_tol == 0.0 && opt.max_iter == 50 &&
              opt.simplified == 0 && opt.fd_eps == 0.0 && opt.settle_update == 0,
          "defaults: tol %g, step_tol %g, max_iter %d, simplified %d, fd_eps %g", opt.tol,
          opt.step_tol, opt.max_iter, opt.simplified, opt.fd_eps);
    host_clear_error();
    CHECK(host->newton_create(host, 0) == NULL, "newton_create(0) refuses");
    CHECK_CONTAINS(host_last_error(), "positive", "newton_create(0)");
    host->newton_destroy(host, NULL); /* allowed, like free(NULL) */
}

static void test_analytic_jacobian(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    const double x0[2] = {0.8, 2.3};
    run r = solve(host, 2, circle_hyperbola, circle_hyperbola_jacobian, x0, &opt, 1);
    check_root_12(&r, "analytic Jacobian");
    const int it = r.report.iterations;
    CHECK(it >= 2 && it <= 6, "analytic Jacobian: %d iterations (quadratic: <= 6)", it);
    /* one residual per iterate, one Jacobian + one factorisation + one
     * back-substitution per update */
    CHECK(r.trace.calls == it + 1 && r.stats.residual_evals == (uint64_t)(it + 1),
          "analytic: %d residual calls, stats %llu, expected %d", r.trace.calls,
          (unsigned long long)r.stats.residual_evals, it + 1);
    CHECK(r.trace.jacobian_calls == it && r.stats.jacobian_evals == (uint64_t)it,
          "analytic: %d Jacobian calls, stats %llu, expected %d", r.trace.jacobian_calls,
          (unsigned long long)r.stats.jacobian_evals, it);
    CHECK(r.stats.linear_solves == (uint64_t)(2 * it),
          "analytic: %llu linear solves, expected %d (factor + solve per update)",
          (unsigned long long)r.stats.linear_solves, 2 * it);
    CHECK(r.stats.steps == 0 && r.stats.function_evals == 0,
          "the solver leaves steps and function_evals alone");
    /* Quadratic convergence: once the residual is small, the next one is
     * below C * (this one)^2 (C ~ |J^-1|^2 |D^2 r| / 2 ~ 1 here). */
    for (int k = 0; k + 1 < r.trace.calls; k++) {
        const double e = r.trace.norms[k], next = r.trace.norms[k + 1];
        printf("  analytic: |r_%d| = %.3e\n", k, e);
        if (e < 1e-1 && next > 1e-14)
            CHECK(next <= 10.0 * e * e, "quadratic convergence: |r_%d| = %.3e, |r_%d| = %.3e",
                  k, e, k + 1, next);
    }
}

static void test_fd_jacobian(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    const double x0[2] = {0.8, 2.3};
    run r = solve(host, 2, circle_hyperbola, NULL, x0, &opt, 1);
    check_root_12(&r, "FD Jacobian");
    const int it = r.report.iterations;
    CHECK(it >= 2 && it <= 6, "FD Jacobian: %d iterations (<= 6)", it);
    /* n extra residual calls per Jacobian */
    CHECK(r.stats.jacobian_evals == (uint64_t)it, "FD: %llu Jacobians for %d updates",
          (unsigned long long)r.stats.jacobian_evals, it);
    CHECK(r.trace.calls == it + 1 + 2 * it && r.stats.residual_evals == (uint64_t)r.trace.calls,
          "FD: %d residual calls, stats %llu, expected %d", r.trace.calls,
          (unsigned long long)r.stats.residual_evals, it + 1 + 2 * it);
    CHECK(r.stats.linear_solves == (uint64_t)(2 * it), "FD: %llu linear solves",
          (unsigned long long)r.stats.linear_solves);

    opt.fd_eps = 1e-4; /* a coarse difference still converges, maybe slower */
    run coarse = solve(host, 2, circle_hyperbola, NULL, x0, &opt, 1);
    check_root_12(&coarse, "FD Jacobian, fd_eps 1e-4");
    CHECK(coarse.report.iterations <= 10, "fd_eps 1e-4: %d iterations",
          coarse.report.iterations);
}

static void test_chord(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    opt.simplified = 1;
    const double x0[2] = {0.9, 2.1};
    run r = solve(host, 2, circle_hyperbola, circle_hyperbola_jacobian, x0, &opt, 1);
    check_root_12(&r, "simplified Newton");
    const int it = r.report.iterations;
    CHECK(r.stats.jacobian_evals == 1 && r.trace.jacobian_calls == 1,
          "chord: %llu Jacobians, expected 1", (unsigned long long)r.stats.jacobian_evals);
    CHECK(r.stats.linear_solves == (uint64_t)(1 + it),
          "chord: %llu linear solves, expected 1 factorisation + %d solves",
          (unsigned long long)r.stats.linear_solves, it);
    CHECK(r.stats.residual_evals == (uint64_t)(it + 1), "chord: %llu residuals for %d updates",
          (unsigned long long)r.stats.residual_evals, it);
    run full = solve(host, 2, circle_hyperbola, circle_hyperbola_jacobian, x0,
                     &(wb_newton_options){.struct_size = sizeof opt, .tol = 1e-12,
                                          .max_iter = 50}, 1);
    CHECK(it > full.report.iterations,
          "chord converges linearly: %d iterations vs %d for full Newton", it,
          full.report.iterations);
}

static void test_already_converged(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    const double root[2] = {1.0, 2.0};
    run r = solve(host, 2, circle_hyperbola, circle_hyperbola_jacobian, root, &opt, 1);
    CHECK_STATUS(r.status, WB_OK, "start at the root");
    CHECK(r.report.iterations == 0 && r.stats.residual_evals == 1 &&
              r.stats.jacobian_evals == 0 && r.stats.linear_solves == 0,
          "start at the root: %d iterations, %llu residuals, %llu Jacobians",
          r.report.iterations, (unsigned long long)r.stats.residual_evals,
          (unsigned long long)r.stats.jacobian_evals);
}

/* The counters are added to, never reset: a step loop sums several solves. */
static void test_counters_accumulate(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    wb_newton *ws = host->newton_create(host, 2);
    wb_step_stats stats = {.struct_size = sizeof stats};
    trace t = {0};
    double x[2] = {0.8, 2.3};
    int s1 = host->newton_solve(host, ws, circle_hyperbola, circle_hyperbola_jacobian, &t, x,
                                &opt, &stats, NULL);
    wb_step_stats first = stats;
    x[0] = 0.8, x[1] = 2.3;
    int s2 = host->newton_solve(host, ws, circle_hyperbola, circle_hyperbola_jacobian, &t, x,
                                &opt, &stats, NULL);
    CHECK(s1 == WB_OK && s2 == WB_OK, "two solves in one workspace");
    CHECK(stats.newton_iterations == 2 * first.newton_iterations &&
              stats.residual_evals == 2 * first.residual_evals &&
              stats.jacobian_evals == 2 * first.jacobian_evals &&
              stats.linear_solves == 2 * first.linear_solves,
          "counters accumulate over solves");
    /* NULL stats and report are allowed */
    x[0] = 0.8, x[1] = 2.3;
    CHECK_STATUS(host->newton_solve(host, ws, circle_hyperbola, NULL, &t, x, &opt, NULL, NULL),
                 WB_OK, "stats and report NULL");
    host->newton_destroy(host, ws);
}

static void test_singular(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    const double x0[2] = {0.3, 0.2};
    run r = solve(host, 2, dependent, dependent_jacobian, x0, &opt, 1);
    CHECK_STATUS(r.status, WB_ERR_SINGULAR, "singular analytic Jacobian");
    CHECK_CONTAINS(host_last_error(), "singular", "singular Jacobian message");
    CHECK(r.x[0] == 0.3 && r.x[1] == 0.2, "singular: x keeps the last iterate (%g, %g)",
          r.x[0], r.x[1]);
    CHECK(r.report.iterations == 0, "singular: %d updates", r.report.iterations);
}

static void test_no_root(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    opt.max_iter = 25;
    const double x0[1] = {0.5};
    run r = solve(host, 1, no_root, no_root_jacobian, x0, &opt, 1);
    CHECK_STATUS(r.status, WB_ERR_NEWTON, "x^2 + 1 = 0");
    CHECK_CONTAINS(host_last_error(), "did not converge", "no-root message");
    CHECK_CONTAINS(host_last_error(), "25 iterations", "no-root message names max_iter");
    CHECK(r.report.iterations == 25 && r.stats.newton_iterations == 25,
          "no root: %d iterations, expected max_iter = 25", r.report.iterations);
    CHECK(r.x[0] == r.trace.last_x[0], "no root: x holds the last iterate");
    CHECK(r.report.residual_norm >= 1.0, "no root: residual %.3e >= 1",
          r.report.residual_norm);
}

static void test_nonfinite(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    const double x0[1] = {0.25};
    run r = solve(host, 1, sqrt_plus_one, sqrt_jacobian, x0, &opt, 1);
    CHECK_STATUS(r.status, WB_ERR_NONFINITE, "NaN residual after one update");
    CHECK_CONTAINS(host_last_error(), "non-finite", "NaN residual message");
    CHECK(r.report.iterations == 1, "NaN after %d updates, expected 1", r.report.iterations);
    CHECK(r.x[0] < 0, "x holds the iterate where the residual was NaN (%g)", r.x[0]);

    /* NaN at the initial guess: no update at all. */
    const double negative[1] = {-1.0};
    run at_start = solve(host, 1, sqrt_plus_one, sqrt_jacobian, negative, &opt, 1);
    CHECK_STATUS(at_start.status, WB_ERR_NONFINITE, "NaN residual at the initial guess");
    CHECK(at_start.report.iterations == 0 && at_start.stats.jacobian_evals == 0,
          "NaN at start: %d updates", at_start.report.iterations);

    /* A non-finite Jacobian is caught by the factorisation. */
    const double one[1] = {1.0};
    run inf = solve(host, 1, no_root, infinite_jacobian, one, &opt, 1);
    CHECK_STATUS(inf.status, WB_ERR_NONFINITE, "infinite Jacobian");
}

static void test_residual_status_propagates(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    const double x0[1] = {1.0};
    run r = solve(host, 1, failing_residual, NULL, x0, &opt, 1);
    CHECK_STATUS(r.status, WB_ERR_MODEL, "a residual's own status aborts the solve");
}

/* step_tol where every reading of host.h agrees: with a tol the solve
 * reaches, adding a step test still returns the root to full accuracy. */
static void test_step_tol_tight(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    opt.step_tol = 1e-14;
    const double x0[2] = {0.8, 2.3};
    run r = solve(host, 2, circle_hyperbola, circle_hyperbola_jacobian, x0, &opt, 1);
    check_root_12(&r, "tol 1e-12 with step_tol 1e-14");
    CHECK(r.report.iterations <= 7, "tol 1e-12 with step_tol 1e-14: %d iterations",
          r.report.iterations);
}

/* workbench/host.h: "converged when max|r_i| <= tol ... or when
 * max|dx_i| <= step_tol*(1+max|x|) after an update (0 disables this test)". */
/* settle_update: the residual test alone stops near x = 1 + 2e-4 (residual
 * 5e-10 <= tol after an update of 2e-2); settling continues until the
 * update is below tol too, landing on the root to round-off. */
static void test_settle_update(const wb_host *host)
{
    wb_newton_options opt = defaults(host);
    opt.tol = 1e-9;
    const double x0[1] = {0.0};
    run plain = solve(host, 1, scaled_exp, scaled_exp_jacobian, x0, &opt, 1e-6);
    CHECK_STATUS(plain.status, WB_OK, "residual test alone");
    CHECK(fabs(plain.x[0] - 1.0) > 1e-5, "residual test alone stops early: |x - 1| = %.3e",
          fabs(plain.x[0] - 1.0));
    opt.settle_update = 1;
    run settled = solve(host, 1, scaled_exp, scaled_exp_jacobian, x0, &opt, 1e-6);
    CHECK_STATUS(settled.status, WB_OK, "settle_update");
    CHECK(fabs(settled.x[0] - 1.0) <= 1e-14, "settle_update reaches the root: |x - 1| = %.3e",
          fabs(settled.x[0] - 1.0));
    CHECK(settled.report.iterations > plain.report.iterations &&
              settled.report.iterations <= plain.report.iterations + 3,
          "settle_update: %d iterations after the residual test's %d (quadratic: a few more)",
          settled.report.iterations, plain.report.iterations);
    CHECK(settled.trace.calls == settled.report.iterations + 1,
          "settle_update: one residual per iterate (%d calls, %d iterations)",
          settled.trace.calls, settled.report.iterations);
}

static void test_step_tol_contract(const wb_host *host)
{
    /* (a) A residual whose round-off floor (~1e-8) lies above tol: only the
     * step test can declare convergence. */
    wb_newton_options opt = defaults(host);
    const double x0[2] = {1.2, 1.0};
    run without = solve(host, 2, scaled_sqrt2, scaled_sqrt2_jacobian, x0, &opt, 1e8);
    CHECK_STATUS(without.status, WB_ERR_NEWTON,
                 "residual floor above tol, step_tol 0: cannot converge");
    opt.step_tol = 1e-12;
    run with = solve(host, 2, scaled_sqrt2, scaled_sqrt2_jacobian, x0, &opt, 1e8);
    CHECK_STATUS(with.status, WB_OK,
                 "residual floor above tol, step_tol 1e-12: converged by the step test");
    CHECK(fabs(with.x[0] - sqrt(2.0)) <= 1e-15 && fabs(with.x[1] - sqrt(2.0)) <= 1e-15,
          "step test: x = (%.17g, %.17g)", with.x[0], with.x[1]);
    CHECK(with.report.iterations < 20, "step test: %d iterations", with.report.iterations);

    /* (b) "or": a step criterion can only stop a solve earlier, never
     * make it take more iterations than the residual test alone. */
    opt = defaults(host);
    opt.tol = 1e-2;
    const double y0[2] = {0.8, 2.3};
    run loose = solve(host, 2, circle_hyperbola, circle_hyperbola_jacobian, y0, &opt, 1);
    opt.step_tol = 1e-14;
    run both = solve(host, 2, circle_hyperbola, circle_hyperbola_jacobian, y0, &opt, 1);
    CHECK_STATUS(loose.status, WB_OK, "tol 1e-2");
    CHECK_STATUS(both.status, WB_OK, "tol 1e-2, step_tol 1e-14");
    CHECK(both.report.iterations <= loose.report.iterations,
          "tol 1e-2 alone stops after %d iterations; adding step_tol (an 'or' criterion) "
          "took %d", loose.report.iterations, both.report.iterations);
}

/* Residual scales (1.2): a residual whose round-off floor, scale * 1e-16,
 * lies above an absolute tol converges when the tol is relative to its
 * terms; a tol below round-off is raised to 16 eps and met. */
static void test_residual_scale(const wb_host *host)
{
    const double x0[2] = {1.3, 1.1}, big = 1e8;
    wb_newton_options opt = defaults(host);
    run absolute = solve(host, 2, scaled_sqrt2, scaled_sqrt2_jacobian, x0, &opt, big);
    CHECK_STATUS(absolute.status, WB_ERR_NEWTON, "scale 1e8, absolute tol 1e-12");
    double scales[2] = {2.0 * big, 2.0 * big};
    opt = current(host);
    opt.residual_scale = scales;
    run relative = solve(host, 2, scaled_sqrt2, scaled_sqrt2_jacobian, x0, &opt, big);
    CHECK_STATUS(relative.status, WB_OK, "scale 1e8, tol relative to the terms");
    CHECK(fabs(relative.x[0] - sqrt(2.0)) <= 1e-15 && fabs(relative.x[1] - sqrt(2.0)) <= 1e-15,
          "relative: (%.17g, %.17g), expected sqrt(2) twice", relative.x[0], relative.x[1]);
    CHECK(relative.report.iterations <= 8, "relative: %d iterations",
          relative.report.iterations);
    opt.tol = 1e-20; /* below round-off: the iteration stops at the floor */
    run tiny = solve(host, 2, scaled_sqrt2, scaled_sqrt2_jacobian, x0, &opt, big);
    CHECK_STATUS(tiny.status, WB_OK, "tol 1e-20: stops at the round-off floor");
    /* small terms: tol relative to them (an absolute 1e-12 would accept
     * anything of 1e-13 = sqrt(2) +- 0.5 for a residual of size 1e-12) */
    const double small = 1e-12, near[2] = {1.4142, 1.4142};
    opt.tol = 1e-12;
    scales[0] = scales[1] = 2.0 * small;
    run tight = solve(host, 2, scaled_sqrt2, scaled_sqrt2_jacobian, near, &opt, small);
    CHECK_STATUS(tight.status, WB_OK, "scale 1e-12, relative tol");
    CHECK(fabs(tight.x[0] - sqrt(2.0)) <= 1e-11, "scale 1e-12: x %.17g, not the guess",
          tight.x[0]);
    opt.tol = 1e-12;
    scales[0] = scales[1] = 2.0;
    run one = solve(host, 2, scaled_sqrt2, scaled_sqrt2_jacobian, x0, &opt, 1.0);
    CHECK_STATUS(one.status, WB_OK, "scale 1, relative tol");
    CHECK(fabs(one.x[0] - sqrt(2.0)) <= 1e-12, "scale 1: x %.17g", one.x[0]);
}

/* Unknown scales (1.5): the residual test stops with x wrong by 1e8 times
 * y's last error; the correction test delivers x to tol, applies its last
 * correction without a further residual, and stops at the round-off floor
 * when the rows' round-off keeps x's corrections above tol. */
static void test_unknown_scale(const wb_host *host)
{
    const double start[2] = {0.0, 2.0}, near[2] = {0.0, 1.1}, sizes[2] = {1.0, 1.0};
    wb_newton_options opt = current(host);
    run plain = solve(host, 2, hidden_unknown, hidden_unknown_jacobian, start, &opt, 1.0);
    CHECK_STATUS(plain.status, WB_OK, "hidden unknown, residual test");
    CHECK(fabs(plain.x[0] - 1.0) > 1e-8, "the residual test leaves x off: |x - 1| = %.3e",
          fabs(plain.x[0] - 1.0));
    opt.unknown_scale = sizes;
    run full = solve(host, 2, hidden_unknown, hidden_unknown_jacobian, start, &opt, 1.0);
    CHECK_STATUS(full.status, WB_OK, "hidden unknown, unknown_scale");
    CHECK(fabs(full.x[0] - 1.0) <= 1e-12 && fabs(full.x[1] - 1.0) <= 1e-12,
          "unknown_scale: (%.17g, %.17g), expected (1, 1) within tol", full.x[0], full.x[1]);
    CHECK(full.report.iterations <= plain.report.iterations + 2,
          "unknown_scale: %d iterations, the residual test's %d", full.report.iterations,
          plain.report.iterations);
    CHECK(full.trace.calls == full.report.iterations &&
              (int)full.stats.newton_iterations == full.report.iterations,
          "unknown_scale: the last correction applied without a residual (%d residuals, "
          "%d iterations, stats %llu)", full.trace.calls, full.report.iterations,
          (unsigned long long)full.stats.newton_iterations);
    opt.simplified = 1;
    run chord = solve(host, 2, hidden_unknown, hidden_unknown_jacobian, near, &opt, 1.0);
    CHECK_STATUS(chord.status, WB_OK, "hidden unknown, chord");
    CHECK(fabs(chord.x[0] - 1.0) <= 1e-12, "chord: |x - 1| = %.3e", fabs(chord.x[0] - 1.0));
    CHECK(chord.trace.jacobian_calls == 1, "chord: %d Jacobians", chord.trace.jacobian_calls);
    opt.simplified = 0, opt.unknown_scale = NULL;
    run rows = solve(host, 2, hidden_unknown, hidden_unknown_jacobian, start, &opt, 2.0);
    opt.unknown_scale = sizes;
    run floor = solve(host, 2, hidden_unknown, hidden_unknown_jacobian, start, &opt, 2.0);
    CHECK_STATUS(floor.status, WB_OK, "y = sqrt 2: stops at the round-off floor");
    CHECK(fabs(floor.x[0] - 1.0) <= 1e-7 && fabs(floor.x[1] - sqrt(2.0)) <= 4e-16,
          "floor: (%.17g, %.17g), x within a few eps B / a of 1", floor.x[0], floor.x[1]);
    CHECK_STATUS(rows.status, WB_OK, "y = sqrt 2, residual test");
    CHECK(floor.report.iterations <= rows.report.iterations + 4,
          "floor: %d iterations, the residual test's %d", floor.report.iterations,
          rows.report.iterations);
}

/* ---- jacobian_rank_one (1.4) ------------------------------------------------------- */

/* r_i = a_i x_i + w_i s^2 - b_i with s = sum_j x_j, root x = (1, 2, 3, 4):
 * the Jacobian diag(a) + (2 s w) 1^T is diagonal plus rank one. */
static const double rank_a[4] = {3, -2, 5, 4}, rank_w[4] = {0.1, -0.3, 0.2, 0.05};

static double rank_sum(const double *x) { return x[0] + x[1] + x[2] + x[3]; }

static int rank_residual(void *user, const double *x, double *r)
{
    (void)user;
    const double s = rank_sum(x);
    for (int i = 0; i < 4; i++)
        r[i] = rank_a[i] * (x[i] - (i + 1)) + rank_w[i] * (s * s - 100.0);
    return WB_OK;
}

static int rank_full_jacobian(void *user, const double *x, double *J)
{
    (void)user;
    const double s = rank_sum(x);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            J[i * 4 + j] = (i == j ? rank_a[i] : 0.0) + 2 * s * rank_w[i];
    return WB_OK;
}

static int rank_diagonal_dense(void *user, const double *x, double *J)
{
    (void)user, (void)x;
    memset(J, 0, 16 * sizeof(double));
    for (int i = 0; i < 4; i++)
        J[i * 4 + i] = rank_a[i];
    return WB_OK;
}

static int rank_diagonal_values(void *user, const double *x, double *values)
{
    (void)user, (void)x;
    memcpy(values, rank_a, sizeof rank_a);
    return WB_OK;
}

static int rank_part(void *user, const double *x, double *u, double *v)
{
    (void)user;
    const double s = rank_sum(x);
    for (int i = 0; i < 4; i++)
        u[i] = 2 * s * rank_w[i], v[i] = 1.0;
    return WB_OK;
}

static int rank_identity_values(void *user, const double *x, double *values)
{
    (void)user, (void)x;
    for (int i = 0; i < 4; i++)
        values[i] = 1.0;
    return WB_OK;
}

static int rank_singular_part(void *user, const double *x, double *u, double *v)
{
    (void)user, (void)x;
    for (int i = 0; i < 4; i++)
        u[i] = -0.25, v[i] = 1.0;
    return WB_OK;
}

/* The rank-one part on a dense and on a sparse workspace: the same iterates
 * as the full Jacobian, to round-off, in as many iterations; a sparse part
 * that the rank-one term makes singular is refused. */
static void test_rank_one(const wb_host *host)
{
    const double x0[4] = {0.5, 1.0, 4.0, 3.0}, root[4] = {1, 2, 3, 4};
    wb_newton_options opt = defaults(host);
    run full = solve(host, 4, rank_residual, rank_full_jacobian, x0, &opt, 0);
    CHECK_STATUS(full.status, WB_OK, "rank one: full Jacobian");
    run dense;
    memset(&dense, 0, sizeof dense);
    dense.stats.struct_size = sizeof dense.stats;
    memcpy(dense.x, x0, sizeof x0);
    wb_newton *dense_ws = host->newton_create(host, 4);
    host->newton_set_rank_one(host, dense_ws, rank_part);
    dense.status = host->newton_solve(host, dense_ws, rank_residual, rank_diagonal_dense, NULL,
                                      dense.x, &opt, &dense.stats, NULL);
    host->newton_destroy(host, dense_ws);
    CHECK_STATUS(dense.status, WB_OK, "rank one: dense workspace");

    const int diagonal[5] = {0, 1, 2, 3, 4};
    const wb_sparse_pattern pattern = {sizeof pattern, 4, 4, 4, diagonal, diagonal};
    wb_newton *ws = host->newton_create_sparse(host, &pattern);
    host->newton_set_rank_one(host, ws, rank_part);
    run sparse;
    memset(&sparse, 0, sizeof sparse);
    sparse.stats.struct_size = sizeof sparse.stats;
    memcpy(sparse.x, x0, sizeof x0);
    sparse.status = host->newton_solve(host, ws, rank_residual, rank_diagonal_values, NULL,
                                       sparse.x, &opt, &sparse.stats, NULL);
    CHECK_STATUS(sparse.status, WB_OK, "rank one: sparse workspace");
    for (int i = 0; i < 4; i++) {
        CHECK(fabs(dense.x[i] - root[i]) <= 1e-12 && fabs(sparse.x[i] - root[i]) <= 1e-12,
              "rank one: x_%d dense %.17g, sparse %.17g, root %g", i, dense.x[i], sparse.x[i],
              root[i]);
    }
    CHECK(full.stats.newton_iterations == dense.stats.newton_iterations &&
              full.stats.newton_iterations == sparse.stats.newton_iterations,
          "rank one: iterations full %llu, dense %llu, sparse %llu",
          (unsigned long long)full.stats.newton_iterations,
          (unsigned long long)dense.stats.newton_iterations,
          (unsigned long long)sparse.stats.newton_iterations);
    /* diag(1, 1, 1, 1) + u v^T with v.u = -1: singular */
    double x[4] = {0, 0, 0, 0};
    host_clear_error();
    host->newton_set_rank_one(host, ws, rank_singular_part);
    int status = host->newton_solve(host, ws, rank_residual, rank_identity_values, NULL, x,
                                    &opt, NULL, NULL);
    CHECK_STATUS(status, WB_ERR_SINGULAR, "rank one: 1 + v.S^-1 u = 0");
    CHECK_CONTAINS(host_last_error(), "rank one", "rank one: singular");
    host->newton_destroy(host, ws);
}

/* ---- keep_jacobian and refresh_rate (1.5) ------------------------------------------ */

/* One solve of a system of two unknowns in workspace ws from x0; its own
 * counters. */
static run solve_system_in(const wb_host *host, wb_newton *ws, wb_residual_fn r,
                           wb_jacobian_fn J, double scale, const double *x0,
                           const wb_newton_options *opt)
{
    run out;
    memset(&out, 0, sizeof out);
    out.stats.struct_size = sizeof out.stats;
    out.report.struct_size = sizeof out.report;
    out.trace.scale = scale;
    memcpy(out.x, x0, 2 * sizeof(double));
    host_clear_error();
    out.status =
        host->newton_solve(host, ws, r, J, &out.trace, out.x, opt, &out.stats, &out.report);
    return out;
}

static run solve_in(const wb_host *host, wb_newton *ws, const double *x0,
                    const wb_newton_options *opt)
{
    return solve_system_in(host, ws, circle_hyperbola, circle_hyperbola_jacobian, 1.0, x0, opt);
}

static wb_newton_options keeping(const wb_host *host, double rate)
{
    wb_newton_options opt = current(host);
    opt.simplified = 1;
    opt.keep_jacobian = 1;
    opt.refresh_rate = rate;
    return opt;
}

static void test_keep_jacobian(const wb_host *host)
{
    const double near[2] = {0.9, 2.1}, nearer[2] = {0.95, 2.05}, other[2] = {2.1, 0.9};
    wb_newton_options opt = keeping(host, 0.0);
    wb_newton *ws = host->newton_create(host, 2);
    run first = solve_in(host, ws, near, &opt);
    check_root_12(&first, "keep_jacobian, first solve");
    CHECK(first.trace.jacobian_calls == 1, "keep_jacobian: the first solve forms its Jacobian "
          "(%d calls)", first.trace.jacobian_calls);
    run second = solve_in(host, ws, nearer, &opt);
    check_root_12(&second, "keep_jacobian, second solve");
    CHECK(second.trace.jacobian_calls == 0 && second.stats.jacobian_evals == 0 &&
              second.stats.linear_solves == (uint64_t)second.report.iterations,
          "keep_jacobian: the second solve runs on the kept factors (%d Jacobians, %llu "
          "linear solves for %d updates)", second.trace.jacobian_calls,
          (unsigned long long)second.stats.linear_solves, second.report.iterations);
    /* without it every solve forms its own */
    opt.keep_jacobian = 0;
    run fresh = solve_in(host, ws, nearer, &opt);
    CHECK(fresh.trace.jacobian_calls == 1, "keep_jacobian = 0: %d Jacobians",
          fresh.trace.jacobian_calls);
    /* a caller with the 1.4 layout has no keep_jacobian: ignored */
    opt.keep_jacobian = 1;
    opt.struct_size = (uint32_t)offsetof(wb_newton_options, keep_jacobian);
    run older = solve_in(host, ws, nearer, &opt);
    CHECK(older.trace.jacobian_calls == 1, "1.4 layout: keep_jacobian unread (%d Jacobians)",
          older.trace.jacobian_calls);
    /* full Newton ignores it */
    opt = keeping(host, 0.0);
    opt.simplified = 0;
    run full = solve_in(host, ws, nearer, &opt);
    CHECK(full.trace.jacobian_calls == full.report.iterations && full.report.iterations > 0,
          "full Newton with keep_jacobian: a Jacobian every update (%d for %d)",
          full.trace.jacobian_calls, full.report.iterations);
    /* a failed factorisation leaves nothing to keep */
    opt = keeping(host, 0.0);
    opt.keep_jacobian = 0;
    double x[2] = {0.3, 0.2};
    CHECK_STATUS(host->newton_solve(host, ws, dependent, dependent_jacobian, &(trace){0}, x, &opt,
                                    NULL, NULL),
                 WB_ERR_SINGULAR, "keep_jacobian: a singular Jacobian");
    opt.keep_jacobian = 1;
    run after = solve_in(host, ws, near, &opt);
    check_root_12(&after, "keep_jacobian after a singular one");
    CHECK(after.trace.jacobian_calls == 1, "after a failed factorisation a new Jacobian (%d)",
          after.trace.jacobian_calls);

    /* stale factors: the Jacobian at (0.9, 2.1), near the root (1, 2),
     * kept for a start near (2, 1), where the chord diverges */
    wb_newton_options set = keeping(host, 0.0);
    set.keep_jacobian = 0;
    opt = keeping(host, 0.0);
    solve_in(host, ws, near, &set);
    run stuck = solve_in(host, ws, other, &opt);
    CHECK(stuck.status != WB_OK, "stale factors without refresh: %s after %d updates",
          test_status_name(stuck.status), stuck.report.iterations);
    opt = keeping(host, 0.2);
    solve_in(host, ws, near, &set);
    run renewed = solve_in(host, ws, other, &opt);
    CHECK_STATUS(renewed.status, WB_OK, "stale factors, refresh_rate 0.2");
    CHECK(fabs(renewed.x[0] - 2.0) <= 1e-12 && fabs(renewed.x[1] - 1.0) <= 1e-12,
          "refresh_rate 0.2: converged to (%.17g, %.17g), expected (2, 1)", renewed.x[0],
          renewed.x[1]);
    CHECK(renewed.stats.jacobian_refreshes >= 1 &&
              renewed.stats.jacobian_refreshes == renewed.stats.jacobian_evals &&
              renewed.report.iterations <= 12,
          "refresh_rate 0.2: %llu refreshes, %llu Jacobians, %d updates",
          (unsigned long long)renewed.stats.jacobian_refreshes,
          (unsigned long long)renewed.stats.jacobian_evals, renewed.report.iterations);
    /* at the round-off floor no Jacobian helps: a residual of terms of size
     * 2e8 (scale 1e8 (x^2 - 2, y - x)) stalls near 64 eps 2e8 = 3e-6, far
     * above tol 1e-12, and falls there by factors of 0.1 .. 1 (refreshed 15
     * times in these 40 solves before the floor was checked) */
    {
        trace t = {.scale = 1e8};
        double scales[2] = {2e8, 2e8};
        wb_newton_options floor_opt = keeping(host, 0.1);
        floor_opt.residual_scale = scales;
        floor_opt.keep_jacobian = 0;
        wb_newton *fw = host->newton_create(host, 2);
        double y[2] = {1.3, 1.1};
        wb_step_stats st = {.struct_size = sizeof st};
        host->newton_solve(host, fw, scaled_sqrt2, scaled_sqrt2_jacobian, &t, y, &floor_opt,
                           &st, NULL);
        floor_opt.keep_jacobian = 1;
        int refreshed = 0, solved = 1;
        for (int trial = 0; trial < 40; trial++) {
            y[0] = sqrt(2.0) * (1.0 + 1e-9 * (trial + 1)), y[1] = sqrt(2.0);
            wb_step_stats one = {.struct_size = sizeof one};
            solved &= host->newton_solve(host, fw, scaled_sqrt2, scaled_sqrt2_jacobian, &t, y,
                                         &floor_opt, &one, NULL) == WB_OK;
            refreshed += (int)one.jacobian_refreshes;
        }
        CHECK(solved && refreshed == 0, "at the round-off floor: %d refreshes in 40 solves "
              "on kept factors (all converged: %d)", refreshed, solved);
        host->newton_destroy(host, fw);
    }
    /* a good kept Jacobian is not refreshed */
    run steady = solve_in(host, ws, other, &opt);
    CHECK(steady.status == WB_OK && steady.stats.jacobian_evals == 0,
          "refresh_rate 0.2, factors from near the root: %llu Jacobians",
          (unsigned long long)steady.stats.jacobian_evals);
    host->newton_destroy(host, ws);
}

/* keep_jacobian with unknown_scale: kept factors have no contraction
 * measured in the new solve, so a first correction above tol is an update,
 * not the last one (hidden_unknown: a chord on factors from elsewhere
 * moves x by B / a times its error in y); a chord on them that stalls in
 * the unknowns' test is renewed and counted as a refresh. */
static void test_keep_with_unknown_scale(const wb_host *host)
{
    const double sizes[2] = {1.0, 1.0};
    /* rows within tol (1.1e-13, 2e-13), x off by 1e-6 */
    const double off[2] = {1.0 + 1e-6, 1.0 + 1e-13};
    wb_newton_options set = current(host), opt = current(host);
    set.simplified = 1;
    opt.simplified = 1, opt.keep_jacobian = 1, opt.unknown_scale = sizes;
    wb_newton *ws = host->newton_create(host, 2);
    /* factors at y = 1.2 (s = 1): the chord contracts y's error by 1/6 */
    solve_system_in(host, ws, hidden_unknown, hidden_unknown_jacobian, 1.0,
                    (const double[2]){0.0, 1.2}, &set);
    run good = solve_system_in(host, ws, hidden_unknown, hidden_unknown_jacobian, 1.0, off, &opt);
    CHECK_STATUS(good.status, WB_OK, "kept factors, unknown_scale");
    CHECK(fabs(good.x[0] - 1.0) <= 1e-12 && fabs(good.x[1] - 1.0) <= 1e-12,
          "kept factors, unknown_scale: (%.17g, %.17g), expected (1, 1) within tol",
          good.x[0], good.x[1]);
    CHECK(good.trace.jacobian_calls == 0 && good.stats.jacobian_refreshes == 0,
          "kept factors that contract: %d Jacobians, %llu refreshes", good.trace.jacobian_calls,
          (unsigned long long)good.stats.jacobian_refreshes);
    /* factors at y = 0.45 (s = 0.16, root y = 0.4): on s = 1 the chord
     * multiplies y's error by 1 - 2 / 0.9 = -1.2 and stalls */
    solve_system_in(host, ws, hidden_unknown, hidden_unknown_jacobian, 0.16,
                    (const double[2]){0.0, 0.45}, &set);
    run bad = solve_system_in(host, ws, hidden_unknown, hidden_unknown_jacobian, 1.0, off, &opt);
    CHECK_STATUS(bad.status, WB_OK, "kept factors that stall, unknown_scale");
    CHECK(fabs(bad.x[0] - 1.0) <= 1e-12 && fabs(bad.x[1] - 1.0) <= 1e-12,
          "kept factors that stall: (%.17g, %.17g), expected (1, 1) within tol", bad.x[0],
          bad.x[1]);
    CHECK(bad.trace.jacobian_calls == 1 && bad.stats.jacobian_refreshes == 1,
          "kept factors that stall: renewed once (%d Jacobians, %llu refreshes)",
          bad.trace.jacobian_calls, (unsigned long long)bad.stats.jacobian_refreshes);
    host->newton_destroy(host, ws);
}

int main(int argc, char **argv)
{
    const wb_host *host = host_services();
    if (argc > 1 && strcmp(argv[1], "step_tol") == 0) {
        test_step_tol_contract(host);
        return test_summary("newton step_tol contract");
    }
    test_defaults_and_create(host);
    test_analytic_jacobian(host);
    test_fd_jacobian(host);
    test_chord(host);
    test_already_converged(host);
    test_counters_accumulate(host);
    test_singular(host);
    test_no_root(host);
    test_nonfinite(host);
    test_residual_status_propagates(host);
    test_step_tol_tight(host);
    test_settle_update(host);
    test_residual_scale(host);
    test_unknown_scale(host);
    test_rank_one(host);
    test_keep_jacobian(host);
    test_keep_with_unknown_scale(host);
    return test_summary("newton");
}
