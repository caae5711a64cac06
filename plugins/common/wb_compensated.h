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

#include <workbench/integrator.h>

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

/* The carried error as state (dim values): zeros when no trajectory is
 * under way.  With wb_compensated_resume a run continues exactly. */
static inline void wb_compensated_state(const wb_compensated *c, int dim, double *carry)
{
    for (int k = 0; k < dim; k++)
        carry[k] = c->have_last && c->enabled ? c->carry[k] : 0.0;
}

/* Continue the trajectory that ended at y0 with the error `carry` not yet
 * added (what wb_compensated_state gave at its end). */
static inline void wb_compensated_resume(wb_compensated *c, int dim, const double *y0,
                                         const double *carry)
{
    for (int k = 0; k < dim; k++)
        c->carry[k] = c->enabled ? carry[k] : 0.0;
    if (y0 != c->last)
        vec_copy(dim, y0, c->last);
    c->have_last = 1;
}

/* The two aux specs of a compensated method's carry, state only. */
#define WB_COMPENSATED_AUX_SPECS                                                           \
    {.name = "carry_q", .size_kind = WB_AUX_CONFIGURATION, .time = WB_AUX_AT_NODE,        \
     .doc = "compensated summation: rounding error of q not yet added",                   \
     .flags = WB_AUX_UNRECORDED},                                                         \
    {.name = "carry_p", .size_kind = WB_AUX_VELOCITY, .time = WB_AUX_AT_NODE,             \
     .doc = "compensated summation: rounding error of p not yet added",                   \
     .flags = WB_AUX_UNRECORDED}

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
