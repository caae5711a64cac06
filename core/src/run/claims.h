/* What a method claims of every step it accepts, checked by the driver on
 * the state the step produced, whatever the method's own acceptance test
 * said: a method that converged to the wrong point, or stopped early, must
 * not hand on a state that breaks its claim (nonholonomic.lobatto at h = 3
 * accepted |Phi| = 0.16, 65 % of its terms).
 *
 * Each claimed residual is judged against the size of the terms it is
 * made of, as the methods' own Newton tests are (plugins/common/
 * wb_residual_scale.h):
 *   g(q) = 0             (position_constraint)    |g_k| against sum_j |G_kj| max|q|
 *   G(q) M^-1 p = 0      (velocity_constraint)    |G_k v| against sum_j |G_kj| max|v|
 *   Phi(q, v) = 0        (nonholonomic_constraint) |Phi_a| against sum_j |A_aj| max|v|
 *                                                 plus |Phi_a - A_a v| (an affine part)
 *   q on the group       (lie_group)              the group residual's growth, per step
 *   H(q, p) = H(q0, p0)  (energy_conserving)      |E - E_before| against the
 *                                                 energy's scale, per step
 * plus each row's floor, its normwise size at the start (sum_j |a_kj|
 * times max|q0|, or times the start's speed, max(max|v0|, sqrt(2 E
 * max(M^-1 1))) with E energy_error's scale: a start at rest has the speed
 * its energy allows), never taken from a state being judged.  The
 * tolerance is relative: max(2^-26, min(1000 tol, sqrt(tol))) with tol the
 * method's option of that name (the claims hold to the tolerance the user
 * asked for, with room for a residual measured at q1 where the method
 * measured it at q0, and always below the residual's own size), 2^-26 for
 * a method without one or at tol = 0.  The two that
 * accumulate round-off over a run (energy, group) are judged by their
 * change since the last check, up to that tolerance per step. */
#ifndef RUN_CLAIMS_H
#define RUN_CLAIMS_H

#include "run/integrator_instance.h"

typedef struct claims claims;

/* A state's constraint residuals where they are already at hand (the
 * driver's recorded row computes them): g and G M^-1 p (m each), Phi and
 * the velocity v it was evaluated at (k and nv). */
typedef struct row_residuals {
    double *g, *gv, *phi, *v;
} row_residuals;

/* The claims of `it`'s method on its model that can be checked on a state
 * (none: the check is free), with the energy and its scale at the start
 * (energy_error's scale, see driver.h).  NULL only when out of memory,
 * with the message. */
claims *claims_create(const integrator *it, const double *q0, const double *p0, double energy0,
                      double energy_scale);
void claims_destroy(claims *c);
/* 1 when the method claims something this model can be checked for. */
int claims_any(const claims *c);
/* 0 when (q, p), reached `steps` steps after the last state checked (or
 * the start), keeps every claim; -1 with the message naming the claim,
 * the residual, its terms and the tolerance.  `known`: the state's
 * residuals when at hand, else NULL.  No allocation. */
int claims_check(claims *c, const double *q, const double *p, long long steps,
                 const row_residuals *known);

#endif
