/* Compensated summation of a step's update y1 = y0 + increment (Kahan, as
 * in Hairer's GNI codes): the rounding error of each addition is carried
 * into the next step's, so that round-off grows like a random walk rather
 * than linearly with the number of steps.
 *
 * The carried error belongs to the trajectory that ended at `last`: a step
 * from any other start (the driver restarted from a new state) begins
 * afresh, or it would add another trajectory's rounding error. */
#ifndef WB_COMPENSATED_H
#define WB_COMPENSATED_H

#include "wb_vec.h"

typedef struct wb_compensated {
    double *carry;  /* dim: the rounding error not yet added                  */
    double *last;   /* dim: the last sum, the start the carry belongs to      */
    int have_last;
    int enabled;    /* 0: plain summation, the carry stays zero               */
} wb_compensated;

/* Forget the trajectory: the next begin() starts afresh whatever y0 is. */
static inline void wb_compensated_restart(wb_compensated *c)
{
    c->have_last = 0;
}

/* Call before the step from y0 (dim values). */
static inline void wb_compensated_begin(wb_compensated *c, int dim, const double *y0)
{
    if (!c->have_last || !vec_equal(dim, y0, c->last))
        for (int k = 0; k < dim; k++)
            c->carry[k] = 0.0;
}

/* y1 = y0 + inc (+ the carried error), y1 distinct from y0; y1 becomes
 * `last` (y1 may be c->last itself). */
static inline void wb_compensated_add(wb_compensated *c, int dim, const double *y0,
                                      const double *inc, double *y1)
{
    for (int k = 0; k < dim; k++) {
        const double total = inc[k] + (c->enabled ? c->carry[k] : 0.0);
        y1[k] = y0[k] + total;
        c->carry[k] = c->enabled ? total - (y1[k] - y0[k]) : 0.0;
    }
    if (y1 != c->last)
        vec_copy(dim, y1, c->last);
    c->have_last = 1;
}

#endif
