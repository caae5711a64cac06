/* The stopping test of iterations run "until the increment vanishes or
 * stops decreasing" (Hairer's GNI codes), shared by the in-tree plugins.
 *
 * An increment that stops decreasing means round-off has been reached only
 * when it is itself at round-off level: above that, a simplified Newton or
 * fixed-point iteration can merely oscillate on its way down, and taking
 * its first rise as convergence would accept a solution wrong by 1e-10. */
#ifndef WB_ITERATION_H
#define WB_ITERATION_H

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

#endif
