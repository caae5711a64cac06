/* The stopping test of iterations run "until the increment vanishes or
 * stops decreasing" (Hairer's GNI codes), and the automatic choice between
 * a fixed-point iteration and simplified Newton with a Jacobian kept across
 * steps (rk's and hbvm's iteration = "auto"), shared by the in-tree plugins.
 *
 * An increment that stops decreasing means round-off has been reached only
 * when it is itself at round-off level: above that, a simplified Newton or
 * fixed-point iteration can merely oscillate on its way down, and taking
 * its first rise as convergence would accept a solution wrong by 1e-10. */
#ifndef WB_ITERATION_H
#define WB_ITERATION_H

#include <workbench/workbench.h>

#include <float.h>
#include <math.h>

/* The iteration has converged when the last increment `norm` (max norm):
 *   - is at most `tol` (when the caller set one), or below the resolution
 *     of the largest unknown, `scale` (max norm of the unknowns), or
 *     exactly zero, or
 *   - did not decrease (norm >= previous) while being within 1000 ulps of
 *     `scale` (round-off level).
 * The resolution test matters when an unknown is exactly zero in the
 * solution (a velocity component by symmetry): it can keep absorbing ever
 * smaller increments of 1e-18 that never stop decreasing. */
static inline int wb_iteration_settled(int iteration, double norm, double previous,
                                       double tol, double scale)
{
    if (norm <= tol || norm <= DBL_EPSILON * scale)
        return 1;
    return iteration > 0 && norm >= previous && norm <= 1e3 * DBL_EPSILON * (1.0 + scale);
}

/* ---- iteration = "auto" ------------------------------------------------------------------
 * Iterate to a fixed point while it contracts; when it stalls or diverges
 * (a stiff problem: h^2 |f'| near or above 1), change to simplified Newton
 * for the rest of the run, keeping its Jacobian and LU across steps while
 * they converge.  The caller measures each sweep by `relative`, its
 * increment relative to the unknowns (max norm), and compares it with the
 * last sweep's, `previous`. */

/* Increments at or below this (relative) are round-off: their ratio is no rate. */
#define WB_AUTO_RATE_FLOOR 1e-13
/* The fixed point is abandoned when a sweep cuts the increment by less
 * than this factor. */
#define WB_AUTO_FIXED_POINT_SLOW 0.25
/* A kept Jacobian that contracts by less than this is re-evaluated at the
 * next step; above 1 (diverging) at once. */
#define WB_AUTO_JACOBIAN_SLOW 0.1

/* The sweep gives a rate worth judging: non-finite, or a later sweep whose
 * increment is above round-off and grew or shrank by a measurable ratio. */
static inline int wb_auto_rate_measured(int sweep, double relative, double previous)
{
    return !isfinite(relative) ||
           (sweep > 0 && relative > WB_AUTO_RATE_FLOOR && relative / previous > 0);
}

/* The fixed point should give way to simplified Newton after this sweep
 * (0-based): it diverged, contracts by less than WB_AUTO_FIXED_POINT_SLOW,
 * or has run `sweeps` sweeps without settling (the caller's budget: a
 * steady rate below the bound from a poor first guess takes many). */
static inline int wb_auto_fixed_point_stalls(int sweep, double relative, double previous,
                                             int sweeps)
{
    return !isfinite(relative) ||
           (wb_auto_rate_measured(sweep, relative, previous) &&
            relative / previous > WB_AUTO_FIXED_POINT_SLOW) ||
           sweep + 1 >= sweeps;
}

/* What a simplified-Newton sweep on the kept Jacobian says about it. */
typedef enum wb_auto_jacobian {
    WB_AUTO_JACOBIAN_KEEP,          /* converging well: keep it                 */
    WB_AUTO_JACOBIAN_REFRESH_NEXT,  /* slow: a new one at the next step          */
    WB_AUTO_JACOBIAN_REFRESH_NOW    /* an older step's, diverging: a new one and
                                       the step again                           */
} wb_auto_jacobian;

/* `old`: the Jacobian was evaluated for an earlier step (one of this step
 * that diverges is no better renewed: the step fails or shrinks). */
static inline wb_auto_jacobian wb_auto_judge_jacobian(int sweep, double relative,
                                                      double previous, int old)
{
    if (!wb_auto_rate_measured(sweep, relative, previous))
        return WB_AUTO_JACOBIAN_KEEP;
    const double rate = relative / previous;
    if (old && (!isfinite(relative) || rate >= 1.0))
        return WB_AUTO_JACOBIAN_REFRESH_NOW;
    return rate > WB_AUTO_JACOBIAN_SLOW ? WB_AUTO_JACOBIAN_REFRESH_NEXT : WB_AUTO_JACOBIAN_KEEP;
}

/* Count a solved step under its iteration (sol.stats.iteration says which
 * ran: fixed_point, newton, or mixed when auto changed). */
static inline void wb_count_iteration_step(wb_step_stats *stats, int by_fixed_point)
{
    if (!WB_HAS_FIELD(stats, wb_step_stats, newton_steps))
        return;
    if (by_fixed_point)
        stats->fixed_point_steps++;
    else
        stats->newton_steps++;
}

#endif
