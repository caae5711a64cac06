/* A partitioned Runge-Kutta step for Hamilton's equations of a mechanical
 * model, shared by the `rk` and `prk` families (compiled into both; plugins
 * link against nothing but libm):
 *
 *   q' = f(q, p) = M(q)^-1 p,    p' = g(q, p) = -grad V(q) - dT/dq(q, p),
 *   Q_i = q0 + h sum_j a_ij  f(Q_j, P_j),   q1 = q0 + h sum_j b_j  f(Q_j, P_j),
 *   P_i = p0 + h sum_j a2_ij g(Q_j, P_j),   p1 = p0 + h sum_j b2_j g(Q_j, P_j).
 *
 * A plain Runge-Kutta method is the case a2 = a, b2 = b.  Explicit
 * tableaux are evaluated stage by stage; implicit ones solve for the stage
 * increments Z_i = (Q_i - q0, P_i - p0) -- for a constant mass matrix for
 * the positions alone, in the Nystrom form -- by fixed-point iteration,
 * simplified Newton or full Newton, run to machine precision by default
 * (until the increment, relative to the unknowns, is at round-off or stops
 * decreasing, or, for the fixed point, the error its contraction rate
 * predicts is below 1e-21: the sweep that would only confirm convergence
 * is skipped).  The default, "auto", iterates to a fixed point and changes
 * to simplified Newton, its Jacobian and LU kept across steps while they
 * converge, for the rest of the run when the fixed point stalls or
 * diverges (a stiff problem).  Each step starts from the previous step's
 * collocation polynomial extrapolated (its stage derivatives interpolated
 * at the new nodes), or with start = "plain" from the constant-velocity
 * guess, or with start = "corrected" (constant mass, collocation tableaux;
 * corrected_start.h) from gni_irk2's start of order s + 2 relative to the
 * stages, two more force evaluations a step; the default, "auto", takes
 * the one of the last two that the run's own counts say is cheaper, step
 * by step, while the iteration is the fixed point (start_choice.h; the
 * extrapolation under Newton and where the corrected start does not
 * apply).  The update uses compensated summation, as in Hairer's
 * GNI codes, so that round-off grows like a random walk. */
#ifndef STAGE_SOLVER_H
#define STAGE_SOLVER_H

#include <workbench/workbench.h>

#include "wb_compensated.h"
#include "wb_integrator_plugin.h"

typedef enum stage_iteration {
    ITERATE_NEWTON = 0,
    ITERATE_SIMPLIFIED = 1,
    ITERATE_FIXED_POINT = 2,
    ITERATE_AUTO = 3
} stage_iteration;

typedef struct stage_solver_config {
    const wb_tableau *tableau;  /* a, b, c for q; a2, b2 for p when paired */
    int partitioned;            /* 1: use a2, b2 for p (tableau must be a pair) */
    int iteration;              /* stage_iteration */
    double tol;                 /* 0: iterate to machine precision */
    int max_iter;
    int compensated;            /* compensated summation of the update */
    int extrapolate;            /* 1: start from the last step's stages */
    int corrected;              /* 1 (with extrapolate): gni_irk2's corrected start,
                                   for collocation tableaux in the separable form */
    int choose_start;           /* 1 (with extrapolate): the extrapolated or the
                                   corrected start, chosen step by step */
} stage_solver_config;

/* The solver state's values in the aux "solver_state". */
#define STAGE_SOLVER_STATE_SIZE 9

typedef struct stage_solver stage_solver;

/* NULL with the reason reported through host->error. */
stage_solver *stage_solver_create(const wb_host *host, const wb_model *model,
                                  const stage_solver_config *config, int *status);
void stage_solver_destroy(stage_solver *s);
void stage_solver_reset(stage_solver *s);
/* The carried state in the aux layout (the compensated sum's carry, nq
 * then nv values; the starting values, 2 s nq; the solver state; the
 * Jacobian's point, 2 nq), and a restart that continues the trajectory
 * ending at (q, p) with it. */
void stage_solver_carry(const stage_solver *s, double *carry);
void stage_solver_resume(stage_solver *s, const double *q, const double *p,
                         const double *carry);
int stage_solver_step(stage_solver *s, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats);

/* ---- the method callbacks shared by rk and prk ---------------------------- */

/* Their options, in this order. */
enum { STAGE_OPT_TABLEAU, STAGE_OPT_ITERATION, STAGE_OPT_TOL, STAGE_OPT_MAX_ITER,
       STAGE_OPT_COMPENSATED, STAGE_OPT_START, STAGE_OPT_COUNT };
#define STAGE_SOLVER_OPTIONS(default_tableau, tableau_doc)                                  \
    {                                                                                       \
        {"tableau", WB_OPT_TABLEAU, 0, 0, 0, default_tableau, NULL, tableau_doc},           \
        {"iteration", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|simplified|newton|fixed_point",  \
         "implicit stages: auto (fixed point, simplified Newton with its LU kept across "    \
         "steps once the fixed point stalls), simplified Newton (one LU per step), full "    \
         "Newton, or fixed-point iteration (sol.stats.iteration says which ran)"},          \
        {"tol", WB_OPT_NUMBER, 0, 0, 1e-3, NULL, NULL,                                      \
         "stop when the stage increment is below tol; 0 iterates to machine precision "     \
         "(until it vanishes or stops decreasing, or the fixed point's contraction rate "    \
         "puts the error left below 1e-21)"},                                                \
        {"max_iter", WB_OPT_INTEGER, 50, 1, 10000, NULL, NULL, "stage iterations per step"}, \
        {"compensated", WB_OPT_BOOLEAN, 1, 0, 1, NULL, NULL,                                \
         "compensated summation of the update (round-off grows like a random walk)"},      \
        {"start", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|extrapolate|plain|corrected",        \
         "implicit stages start from the last step's collocation polynomial extrapolated, "  \
         "or (plain) from the constant-velocity guess, or (corrected) from the forces along " \
         "the last collocation polynomial at its nodes, the two step points and one point "  \
         "beyond the step, interpolated at the new nodes (2 more force evaluations a step; " \
         "collocation tableaux with constant mass, else as extrapolate); auto, step by "     \
         "step: extrapolate while that lets the fixed point stop after one sweep, else "     \
         "the one of the two whose such steps have cost fewer evaluations so far (each "     \
         "tried on 8 first); extrapolate under Newton and where corrected does not apply "   \
         "(sol.stats.start, extrapolated_starts and corrected_starts say which ran)"},        \
    }

/* The whole plugin of a family with one stage-solver method: options,
 * method, family and entry.  `partitioned` is rk or prk. */
#define STAGE_SOLVER_FAMILY(family_name, partitioned, default_tableau, tableau_doc, method_doc,  \
                            order_text, family_doc, validate_options)                           \
    static const wb_option_spec options[STAGE_OPT_COUNT] =                                     \
        STAGE_SOLVER_OPTIONS(default_tableau, tableau_doc);                                     \
    static const char *const requires[] = {WB_EXT_MECHANICAL, NULL};                            \
    static const wb_aux_spec carry[] = {WB_COMPENSATED_AUX_SPECS, STAGE_SOLVER_AUX_SPECS};      \
    static const wb_method stage_method = {                                                     \
        .struct_size = sizeof(wb_method),                                                       \
        WB_METHOD_ELEMENT_SIZES,                                                                \
        .name = family_name,                                                                    \
        .doc = method_doc,                                                                      \
        .options = options,                                                                     \
        .n_options = WB_ARRAY_COUNT(options),                                                   \
        .requires = requires,                                                                   \
        .handles = WB_HANDLES_UNCONSTRAINED,                                                    \
        .order_doc = order_text,                                                                \
        .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING, \
        .describe = stage_method_describe_##partitioned,                                        \
        .create = stage_method_create_##partitioned,                                            \
        .destroy = stage_method_destroy,                                                        \
        .reset = stage_method_reset,                                                            \
        .start = stage_method_start,                                                            \
        .step = stage_method_step,                                                              \
        .aux = carry,                                                                           \
        .n_aux = WB_ARRAY_COUNT(carry),                                                         \
        .aux_values = stage_method_aux_values,                                                  \
        .aux_blocks = stage_method_aux_blocks,                                                  \
        .validate = validate_options,                                                           \
    };                                                                                          \
    static const wb_method *const methods[] = {&stage_method};                                  \
    WB_INTEGRATOR_PLUGIN(family_name, family_doc, family_doc, methods)

/* The iteration's carried state after the compensated carry (groups 2, 3,
 * 4 of the method's aux), state only. */
#define STAGE_SOLVER_AUX_SPECS                                                                 \
    {.name = "start", .size_kind = WB_AUX_CONFIGURATION_BLOCKS, .time = WB_AUX_AT_NODE,       \
     .doc = "the last step's stage derivatives: the next step's extrapolated start",          \
     .flags = WB_AUX_UNRECORDED},                                                             \
    {.name = "solver_state", .size_kind = WB_AUX_FIXED, .size = STAGE_SOLVER_STATE_SIZE,      \
     .time = WB_AUX_AT_NODE,                                                                  \
     .doc = "start valid, iteration in use, Jacobian kept, Jacobian to refresh, next start, " \
            "evaluations and number of the hard steps begun extrapolated, then corrected",    \
     .flags = WB_AUX_UNRECORDED},                                                             \
    {.name = "jacobian_point", .size_kind = WB_AUX_CONFIGURATION_BLOCKS,                      \
     .time = WB_AUX_AT_NODE, .doc = "the state at which the kept Jacobian was evaluated",     \
     .flags = WB_AUX_UNRECORDED}

uint32_t stage_method_aux_blocks(const wb_option_value *opts, uint32_t group);
int stage_method_create_rk(const wb_host *host, const wb_model *model,
                           const wb_option_value *opts, void **inst);
int stage_method_create_prk(const wb_host *host, const wb_model *model,
                            const wb_option_value *opts, void **inst);
void stage_method_destroy(void *inst);
int stage_method_reset(void *inst, double t, const double *q, const double *p);
int stage_method_start(void *inst, double t, double h, const double *q, const double *p,
                       const double *carry);
void stage_method_aux_values(const void *inst, double *out);
int stage_method_step(void *inst, double t, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats);
/* Order and properties of the tableau (tree order up to 8, beyond it the
 * bound from the simplifying assumptions B, C, D). */
int stage_method_describe_rk(const wb_option_value *opts, wb_method_props *out);
int stage_method_describe_prk(const wb_option_value *opts, wb_method_props *out);
/* prk refuses a tableau that is not a pair when its options are set. */
int stage_method_validate_rk(const wb_host *host, const wb_option_value *opts);
int stage_method_validate_prk(const wb_host *host, const wb_option_value *opts);

#endif
