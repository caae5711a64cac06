/* The stage solver's state, shared by its files:
 *   stage_solver.c       set-up, the choice of iteration (fixed point, or
 *                        simplified Newton with a Jacobian kept across
 *                        steps) and its stopping test, the step with
 *                        compensated summation, the method callbacks;
 *   stages_general.c     stages in (q, p) for any mechanical model;
 *   stages_separable.c   stages in q alone for a constant mass matrix
 *                        (H = T(p) + V(q) separable), as Hairer's gni_irk2.
 *
 * Each stage form is a `stage_path`: its first guess, one sweep of the
 * iteration, the simplified-Newton matrix and the increment of the step;
 * stage_solver.c runs the iteration over them. */
#ifndef STAGE_SOLVER_INTERNAL_H
#define STAGE_SOLVER_INTERNAL_H

#include "corrected_start.h"
#include "stage_solver.h"
#include "start_choice.h"
#include "wb_compensated.h"

/* The carried solver state (aux "solver_state"), in this order. */
enum { STATE_HISTORY_VALID, STATE_MODE, STATE_JACOBIAN_SET, STATE_REFRESH, STATE_START,
       STATE_HARD_EXTRAPOLATED_EVALS, STATE_HARD_EXTRAPOLATED_STEPS, STATE_HARD_CORRECTED_EVALS,
       STATE_HARD_CORRECTED_STEPS, STATE_COUNT };
_Static_assert(STATE_COUNT == STAGE_SOLVER_STATE_SIZE, "aux solver_state's size");

struct stage_solver {
    const wb_host *host;
    const wb_model *model;
    int n;          /* configuration dimension          */
    int s;          /* stages                            */
    int dim;        /* 2n: one stage state (q, p)        */
    int size;       /* s * dim unknowns                  */
    const double *aq, *ap, *bq, *bp, *cq, *cp;
    int explicit_tableau;
    int iteration;  /* configured: stage_iteration        */
    int max_iter;
    double tol;
    double *dq, *dp;    /* b^T A^-1 when A is invertible, else NULL */
    double *Z, *F, *R, *Y, *J, *matrix, *work;
    int *pivots;
    wb_compensated sum; /* the update y0 + (y1 - y0), dim values */

    /* ---- the iteration, carried from step to step (aux state) ---------- */
    int mode;             /* the iteration in use: the configured one, or for
                             ITERATE_AUTO fixed point until it stalls, then
                             simplified Newton for the rest of the run       */
    int extrapolate;      /* start option not "plain", and distinct nodes     */
    int start;            /* the start of the next step that has a last one:
                             START_EXTRAPOLATED or START_CORRECTED           */
    int choose_start;     /* start "auto" where the corrected start applies  */
    start_choice choice;  /* its counts                                      */
    double *extrapolation;/* s x s: X_kj = l_j(1 + c_k), the Lagrange basis of
                             the nodes evaluated one step later              */
    double *history;      /* the last step's stage derivatives F_j (general,
                             s x dim) or M^-1 grad V(Q_j) (separable, s x n) */
    int history_valid;    /* history belongs to the trajectory ending at
                             sum.last                                        */
    double *jacobian_point; /* dim: where the kept Jacobian was evaluated     */
    int jacobian_set;     /* jacobian_point holds that point                  */
    int refresh;          /* the kept Jacobian converged slowly: evaluate a
                             new one at the next step's start                */
    int factored;         /* matrix (or Mq) holds the factors for
                             jacobian_point and factored_h                   */
    double factored_h;
    double *scale;        /* dim: per-component weight of the stopping test,
                             1 / max(|y_k|, 0.1 max |y|)                     */

    /* the separable path (NULL block when not used) */
    double *separable;  /* one allocation for everything below */
    double *AA;         /* a a2, s x s                              */
    double *EX;         /* AA X: the extrapolated start, s x s      */
    double *wq;         /* b^T a2, s                                */
    double *rows;       /* row sums of a, s (not always the nodes c)  */
    double bq_sum;
    double *Zq, *G, *MG, *Rq, *Mq, *MinvH, *v0, *column;
    int *qpivots;
    double *minv_diagonal; /* M^-1 when it is diagonal (n), else NULL: the
                              sweep then scales instead of calling the model */
    double *h2AA, *hr;  /* h^2 a a2 and h r for the step size of the last guess */
    double coefficients_h;
    /* the corrected start (separable, collocation tableaux; see
     * corrected_start.h): the stages from the last step's forces at its
     * nodes and at CORRECTED_POINTS more points (its two step points and one
     * beyond), and where that last point lies */
    int corrected;      /* the corrected start's coefficients are set     */
    double sigma;       /* the point beyond: t_last + sigma h             */
    double *CE;         /* s x (s + CORRECTED_POINTS): the start's weights */
    double *CW;         /* s: u(t_last + sigma h) - q0 - (sigma - 1) h v0 in units of
                           h^2 M^-1 G_j (the collocation polynomial)      */
    double *point_force;/* n: M^-1 grad V(q0) of this step               */
    double *extra_point, *extra_force; /* n each: the point beyond, M^-1 grad V there */
    /* the general path's extrapolated start: a X and a2 X, s x s each */
    double *AXq, *AXp;
};

/* One stage form.  guess() writes the first iterate (from the history when
 * `continuing`, else the plain start); factor() the simplified-Newton
 * matrix at the point y (dim values); sweep() one iteration in `mode`,
 * giving the increment's largest component relative to `scale` and its
 * largest absolute component; finish() the step's increment y1 - y0 into
 * R[0 .. dim) and the history for the next start. */
typedef struct stage_path {
    void (*guess)(stage_solver *s, double h, const double *y0, int continuing,
                  wb_step_stats *stats);
    int (*factor)(stage_solver *s, double h, const double *y, wb_step_stats *stats);
    int (*sweep)(stage_solver *s, double h, const double *y0, int mode, wb_step_stats *stats,
                 double *relative, double *absolute);
    void (*finish)(stage_solver *s, double h, const double *y0, wb_step_stats *stats);
} stage_path;

extern const stage_path general_path;
extern const stage_path separable_path;

/* After a solve, before finish() replaces the history: is the extrapolated
 * start within relative_bound of the stages the solve reached (largest
 * component, relative to the stopping test's scale), or within
 * absolute_bound?  No force evaluation. */
int separable_extrapolation_within(const stage_solver *s, double h, double relative_bound,
                                   double absolute_bound);
/* The force at this step's start (y0) for the next step's corrected start,
 * after finish(): one evaluation, when an extrapolated step hands over. */
void separable_store_start_force(stage_solver *s, const double *y0, wb_step_stats *stats);

/* The explicit tableaux' step: increment into R[0 .. dim). */
void general_explicit_increment(stage_solver *s, double h, const double *y0,
                                wb_step_stats *stats);
/* Allocate and precompute a path; 0, or -1 when out of memory. */
int separable_setup(stage_solver *s);
int general_setup(stage_solver *s);

/* scale[k] = 1 / max(|y_k|, 0.1 max_k |y_k|) over k in [from, from + count):
 * the stopping test weighs each increment by the size of its unknown, so a
 * position of 0 is not asked for more digits than its neighbours have. */
void stage_scale(double *scale, const double *y, int from, int count);

#endif
