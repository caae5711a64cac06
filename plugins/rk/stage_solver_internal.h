/* The stage solver's state, shared by its files:
 *   stage_solver.c       set-up, the step with compensated summation, the
 *                        method callbacks and their properties;
 *   stages_general.c     stages in (q, p) for any mechanical model;
 *   stages_separable.c   stages in q alone for a constant mass matrix
 *                        (H = T(p) + V(q) separable), as Hairer's gni_irk2. */
#ifndef STAGE_SOLVER_INTERNAL_H
#define STAGE_SOLVER_INTERNAL_H

#include "stage_solver.h"
#include "wb_compensated.h"

struct stage_solver {
    const wb_host *host;
    const wb_model *model;
    int n;          /* configuration dimension          */
    int s;          /* stages                            */
    int dim;        /* 2n: one stage state (q, p)        */
    int size;       /* s * dim unknowns                  */
    const double *aq, *ap, *bq, *bp, *cq, *cp;
    int explicit_tableau;
    int iteration, max_iter;
    double tol;
    double *dq, *dp;    /* b^T A^-1 when A is invertible, else NULL */
    double *Z, *F, *R, *Y, *J, *matrix, *work;
    int *pivots;
    wb_compensated sum; /* the update y0 + (y1 - y0), dim values */
    /* the separable path (NULL block when not used) */
    double *separable;  /* one allocation for everything below */
    double *AA;         /* a a2, s x s                              */
    double *wq;         /* b^T a2, s                                */
    double *rows;       /* row sums of a, s (not always the nodes c)  */
    double bq_sum;
    double *Zq, *G, *MG, *Rq, *Mq, *MinvH, *v0, *column;
    int *qpivots;
};

/* Each computes the step's increment y1 - y0 into s->R[0 .. 2n). */
int general_increment(stage_solver *s, double h, const double *y0, wb_step_stats *stats);
int separable_increment(stage_solver *s, double h, const double *y0, wb_step_stats *stats);
/* Allocate and precompute the separable path; 0, or -1 when out of memory. */
int separable_setup(stage_solver *s);

#endif
