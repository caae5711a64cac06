/* Starting values of order s for collocation in the Nystrom form, after
 * Hairer's gni_irk2 (HLW VIII.6.1): the coefficients, derived for any
 * collocation tableau when a method is created.  Pure arithmetic (and the
 * host's dense solve), so that tests/unit/corrected_start_test.c checks
 * them against the published Gauss 2, 4, 6 tables.
 *
 * With h the step, v0 = M^-1 p0 and f_j the last step's stage
 * accelerations (-M^-1 grad V(Q_j)), f_last, f_0 the accelerations at the
 * last step's start and at q0, and f_beyond the one at
 *   x = q0 + (sigma - 1) h v0 + h^2 sum_j CW_j f_j
 * (the last step's collocation polynomial at t_last + sigma h), the start is
 *   Z_i = h c_i v0 + h^2 (sum_j CE_ij f_j + CE_i,s f_last + CE_i,s+1 f_0
 *                         + CE_i,s+2 f_beyond).                          */
#ifndef CORRECTED_START_H
#define CORRECTED_START_H

#include <workbench/workbench.h>

/* The points the corrected start adds to the nodes: the last step's start,
 * its end, one point beyond. */
enum { CORRECTED_POINTS = 3 };

/* From the nodes c (s values), a and b (s x s, s: row-major), the Nystrom
 * coefficients AA = a a2, wq = b^T a2 and bp = b2 of the tableau, and
 * sigma: CE (s x (s + CORRECTED_POINTS), row-major) and CW (s).  1 when
 * the tableau is collocation (a_ik = int_0^c_i l_k, b_k = int_0^1 l_k for
 * the Lagrange basis l of distinct nodes c, to 1e-10; at most 16 stages),
 * not both 0 and 1 are nodes (Lobatto: no gain over the extrapolation)
 * and the conditions are solvable; else 0 and nothing written. */
int corrected_start_coefficients(const wb_host *host, int s, const double *c, const double *a,
                                 const double *b, const double *AA, const double *wq,
                                 const double *bp, double sigma, double *CE, double *CW);

#endif
