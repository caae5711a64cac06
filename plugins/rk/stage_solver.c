/* Partitioned Runge-Kutta steps for mechanical models (see stage_solver.h):
 * set-up, the step and its compensated update, the method callbacks. */
#include "stage_solver_internal.h"
#include "wb_iteration.h"
#include "wb_vec.h"

#include <stdlib.h>


/* ---- set-up -------------------------------------------------------------------------- */

/* d^T = b^T A^-1, or 0 when A is singular (then stages are re-evaluated). */
static int weights_through_inverse(const wb_host *host, int s, const double *a,
                                   const double *b, double *d)
{
    double *At = malloc(sizeof(double) * (size_t)s * s);
    int *piv = malloc(sizeof(int) * (size_t)s);
    int ok = At && piv;
    if (ok) {
        for (int i = 0; i < s; i++) /* solve A^T d = b */
            for (int j = 0; j < s; j++)
                At[i * s + j] = a[j * s + i];
        vec_copy(s, b, d);
        ok = host->dense_solve(host, s, 1, At, piv, d) == WB_OK;
        /* a nearly singular A would amplify round-off: keep the safe path */
        for (int i = 0; ok && i < s; i++)
            ok = fabs(d[i]) < 1e6;
    }
    free(At);
    free(piv);
    return ok;
}

/* X_kj = l_j(1 + c_k): the Lagrange basis of the nodes c, one step later
 * (the collocation polynomial's derivative, extrapolated to the next
 * step's nodes).  0 when two nodes coincide: no extrapolation then. */
static int extrapolation_matrix(int s, const double *c, double *X)
{
    for (int j = 0; j < s; j++)
        for (int m = 0; m < j; m++)
            if (fabs(c[j] - c[m]) < 1e-10)
                return 0;
    for (int k = 0; k < s; k++)
        for (int j = 0; j < s; j++) {
            double l = 1.0;
            for (int m = 0; m < s; m++)
                if (m != j)
                    l *= (1.0 + c[k] - c[m]) / (c[j] - c[m]);
            X[k * s + j] = l;
        }
    return 1;
}

void stage_solver_destroy(stage_solver *s)
{
    if (!s)
        return;
    free(s->dq);
    free(s->Z);
    free(s->pivots);
    free(s->separable);
    free(s->qpivots);
    free(s->extrapolation);
    free(s);
}

stage_solver *stage_solver_create(const wb_host *host, const wb_model *model,
                                  const stage_solver_config *config, int *status)
{
    const wb_tableau *t = config->tableau;
    if (config->partitioned && !t->a2) {
        host->error(host, "tableau '%s' is not a partitioned pair (it has no a2, b2); "
                          "build one with wb.tableau{a =, b =, a2 =, b2 =} or use e.g. "
                          "lobatto_iiia_iiib3", t->name);
        *status = WB_ERR_INVALID;
        return NULL;
    }
    stage_solver *s = calloc(1, sizeof *s);
    if (!s) {
        host->error(host, "stage solver: out of memory (%d stages, dimension %d)", t->s, model->nq);
        *status = WB_ERR_NOMEM;
        return NULL;
    }
    s->host = host, s->model = model;
    s->n = model->nq, s->s = t->s, s->dim = 2 * model->nq, s->size = t->s * s->dim;
    s->aq = t->a, s->bq = t->b, s->cq = t->c;
    s->ap = config->partitioned ? t->a2 : t->a;
    s->bp = config->partitioned ? t->b2 : t->b;
    s->cp = config->partitioned ? t->c2 : t->c;
    s->explicit_tableau = mat_strictly_lower(t->s, s->aq) && mat_strictly_lower(t->s, s->ap);
    s->iteration = config->iteration, s->tol = config->tol;
    s->max_iter = config->max_iter, s->sum.enabled = config->compensated;
    const size_t n = (size_t)s->n, dim = (size_t)s->dim, size = (size_t)s->size,
                 st = (size_t)t->s;
    s->dq = calloc(2 * st, sizeof(double));
    s->Z = calloc(3 * size + dim + size * dim + size * size + 3 * dim + 3 * dim * dim + 4 * n,
                  sizeof(double));
    s->pivots = calloc(size, sizeof(int));
    s->extrapolation = calloc(3 * st * st + st * dim + 2 * dim, sizeof(double));
    if (!s->dq || !s->Z || !s->pivots || !s->extrapolation) {
        stage_solver_destroy(s);
        host->error(host, "stage solver: out of memory (%d stages, dimension %d)", t->s, model->nq);
        *status = WB_ERR_NOMEM;
        return NULL;
    }
    s->dp = s->dq + t->s;
    if (s->explicit_tableau || !weights_through_inverse(host, t->s, s->aq, s->bq, s->dq) ||
        !weights_through_inverse(host, t->s, s->ap, s->bp, s->dp)) {
        free(s->dq);
        s->dq = s->dp = NULL;
    }
    s->F = s->Z + size;
    s->R = s->F + size;
    s->Y = s->R + size;
    s->J = s->Y + dim;                 /* one per stage for full Newton */
    s->matrix = s->J + size * dim;
    s->sum.carry = s->matrix + size * size;
    s->sum.last = s->sum.carry + dim;
    s->work = s->sum.last + dim;       /* 3 dim^2 + 4 n + dim */
    s->AXq = s->extrapolation + st * st;
    s->AXp = s->AXq + st * st;
    s->history = s->AXp + st * st;
    s->jacobian_point = s->history + st * dim;
    s->scale = s->jacobian_point + dim;
    const int separable = model->mass_constant && !s->explicit_tableau;
    if (separable) {
        if (separable_setup(s) != 0) {
            stage_solver_destroy(s);
            host->error(host, "stage solver: out of memory (%d stages, dimension %d)", t->s,
                        model->nq);
            *status = WB_ERR_NOMEM;
            return NULL;
        }
        /* the stages' positions sit at the row sums of a */
        s->extrapolate = config->extrapolate &&
                         extrapolation_matrix(t->s, s->rows, s->extrapolation);
        /* gni_irk2's points beyond the step for Gauss 2, 4, 6, between and
         * past them for other stage counts (a choice, not a condition) */
        static const double sigma[] = {1.6, 1.6, 1.6, 1.625, 1.65, 1.7, 1.75};
        const double point_beyond = sigma[t->s < 6 ? t->s : 6];
        if (s->extrapolate && (config->corrected || config->choose_start) &&
            corrected_start_coefficients(host, t->s, s->rows, s->aq, s->bq, s->AA, s->wq, s->bp,
                                         point_beyond, s->CE, s->CW)) {
            s->corrected = 1;
            s->sigma = point_beyond;
            s->choose_start = config->choose_start;
        }
    } else if (!s->explicit_tableau) {
        s->extrapolate = config->extrapolate &&
                         extrapolation_matrix(t->s, s->cq, s->extrapolation);
    }
    if (s->extrapolate) {
        for (int i = 0; i < t->s; i++)
            for (int j = 0; j < t->s; j++) {
                double aq = 0, ap = 0, aa = 0;
                for (int k = 0; k < t->s; k++) {
                    const double x = s->extrapolation[k * t->s + j];
                    aq += s->aq[i * t->s + k] * x;
                    ap += s->ap[i * t->s + k] * x;
                    if (separable)
                        aa += s->AA[i * t->s + k] * x;
                }
                s->AXq[i * t->s + j] = aq, s->AXp[i * t->s + j] = ap;
                if (separable)
                    s->EX[i * t->s + j] = aa;
            }
    }
    stage_solver_reset(s);
    *status = WB_OK;
    return s;
}

/* The start of a run: the corrected one where it was asked for and applies,
 * else (also for auto, until hard steps call for it) the extrapolation. */
static int first_start(const stage_solver *s)
{
    return s->corrected && !s->choose_start ? START_CORRECTED : START_EXTRAPOLATED;
}

void stage_solver_reset(stage_solver *s)
{
    wb_compensated_restart(&s->sum);
    s->history_valid = 0;
    s->start = first_start(s);
    s->choice = (start_choice){{0.0, 0.0}, {0.0, 0.0}};
    s->mode = s->iteration == ITERATE_AUTO ? ITERATE_FIXED_POINT : s->iteration;
    s->jacobian_set = 0, s->refresh = 0, s->factored = 0;
}

/* The aux layout: carry (dim), start (s dim), solver state, Jacobian point (dim). */
void stage_solver_carry(const stage_solver *s, double *carry)
{
    const int dim = s->dim, st = s->s;
    wb_compensated_state(&s->sum, dim, carry);
    double *history = carry + dim, *state = history + (size_t)st * dim, *point = state + STATE_COUNT;
    vec_copy(st * dim, s->history, history);
    state[STATE_HISTORY_VALID] = s->history_valid;
    state[STATE_MODE] = s->mode;
    state[STATE_JACOBIAN_SET] = s->jacobian_set;
    state[STATE_REFRESH] = s->refresh;
    state[STATE_START] = s->start;
    state[STATE_HARD_EXTRAPOLATED_EVALS] = s->choice.evals[START_EXTRAPOLATED];
    state[STATE_HARD_EXTRAPOLATED_STEPS] = s->choice.steps[START_EXTRAPOLATED];
    state[STATE_HARD_CORRECTED_EVALS] = s->choice.evals[START_CORRECTED];
    state[STATE_HARD_CORRECTED_STEPS] = s->choice.steps[START_CORRECTED];
    vec_copy(dim, s->jacobian_point, point);
}

void stage_solver_resume(stage_solver *s, const double *q, const double *p,
                         const double *carry)
{
    const int dim = s->dim, st = s->s;
    vec_copy(s->n, q, s->sum.last);
    vec_copy(s->n, p, s->sum.last + s->n);
    wb_compensated_resume(&s->sum, dim, s->sum.last, carry);
    const double *history = carry + dim, *state = history + (size_t)st * dim,
                 *point = state + STATE_COUNT;
    vec_copy(st * dim, history, s->history);
    s->history_valid = state[STATE_HISTORY_VALID] != 0 && s->extrapolate;
    const int mode = (int)state[STATE_MODE];
    /* auto may have moved on to simplified Newton; any other choice stays */
    s->mode = s->iteration == ITERATE_AUTO && mode == ITERATE_SIMPLIFIED ? mode
              : s->iteration == ITERATE_AUTO                             ? ITERATE_FIXED_POINT
                                                                         : s->iteration;
    s->jacobian_set = state[STATE_JACOBIAN_SET] != 0;
    s->refresh = state[STATE_REFRESH] != 0;
    /* auto continues with the start it chose; the corrected start needs the
     * force at the last step's start, which only a corrected step (or one
     * handing over to it) carries */
    const int carried_corrected = state[STATE_START] == START_CORRECTED;
    s->start = s->choose_start && carried_corrected ? START_CORRECTED
               : s->choose_start                    ? START_EXTRAPOLATED
                                                    : first_start(s);
    if (s->start == START_CORRECTED && !carried_corrected)
        s->history_valid = 0;
    s->choice = (start_choice){
        {state[STATE_HARD_EXTRAPOLATED_EVALS], state[STATE_HARD_CORRECTED_EVALS]},
        {state[STATE_HARD_EXTRAPOLATED_STEPS], state[STATE_HARD_CORRECTED_STEPS]}};
    vec_copy(dim, point, s->jacobian_point);
    s->factored = 0; /* factored again at that point: the same factors */
}

void stage_scale(double *scale, const double *y, int from, int count)
{
    double largest = 0;
    for (int k = from; k < from + count; k++)
        largest = fmax(largest, fabs(y[k]));
    const double floor = largest > 0 ? 0.1 * largest : 1.0;
    for (int k = from; k < from + count; k++)
        scale[k] = 1.0 / fmax(fabs(y[k]), floor);
}

/* ---- the iteration ---------------------------------------------------------------------- */

/* Round-off of the stopping test, relative to each unknown (Hairer's
 * gni codes stop at 1e-16 in the mean square, or when the increment stops
 * decreasing below 1e-15; this is the largest component, whose round-off
 * floor lies higher: it may stop decreasing below 1e-14). */
static const double ROUNDOFF = 1e-16;
/* auto gives up the fixed point after this many sweeps (or when it
 * contracts too slowly, wb_iteration.h). */
enum { FIXED_POINT_SWEEPS = 20 };

/* The error a sweep leaves in the stages, estimated from the contraction
 * rate theta (the ratio of its increment to the last one) as
 * theta / (1 - theta) times its increment, as Hairer and Wanner's Radau5
 * does: at or below this (relative to the unknowns) the solve stops, and
 * the sweep whose increment would merely confirm convergence is not run.
 * The update is formed from the last sweep's forces, so for the fixed
 * point this estimate is its error too (a Newton sweep's forces belong to
 * the stages before its correction: the separable path's update would
 * keep an error of h^2 |f'| times the increment, so Newton stops as
 * before).  An error the same on every step accumulates
 * linearly: 1e-21 keeps it below round-off (1e-15) over 10^6 steps.  At
 * 1e-20, scripts/tableaux/roundoff.lua's plain start grows faster than a
 * random walk (1.1e-15 after 3 x 10^5 steps, 4.2e-15 after 10^6). */
static const double PREDICTED_ERROR = 1e-21;

/* A rate measured above round-off, where it means something. */
static int measurable(double relative) { return relative > 1e3 * ROUNDOFF; }

/* A contraction rate from two increments: the earlier measurable, the
 * later above 1e-17 (below it an increment is the rounding of the
 * unknowns, no longer their error); 0 when there is none. */
static double contraction_rate(int it, double relative, double previous)
{
    return it > 0 && measurable(previous) && relative > 0.1 * ROUNDOFF ? relative / previous
                                                                        : 0.0;
}

/* Converged: below tol, at round-off, the error a fixed-point sweep left
 * (estimated from the rate theta, when measured and below 1) below
 * PREDICTED_ERROR, or no longer decreasing once near round-off.
 * "Near" is 1e-14 for the fixed
 * point, whose sweep adds terms of the size of the unknowns; a Newton
 * solve of a stiff problem (h^2 |f'| >> 1) subtracts terms far larger than
 * the unknowns, so its round-off floor lies higher, and a Newton iteration
 * stops decreasing only there. */
static int settled(int it, int mode, double relative, double previous, double absolute,
                   double tol)
{
    if (absolute <= tol || relative <= ROUNDOFF)
        return 1;
    const double theta = contraction_rate(it, relative, previous);
    if (mode == ITERATE_FIXED_POINT && theta > 0 && theta < 1 &&
        theta / (1 - theta) * relative <= PREDICTED_ERROR)
        return 1;
    const double near = mode == ITERATE_FIXED_POINT ? 100.0 * ROUNDOFF : 1e4 * ROUNDOFF;
    return it > 0 && relative >= previous && previous <= near;
}

/* Make the simplified-Newton factors current: a new Jacobian at y0 every
 * step (ITERATE_SIMPLIFIED), or the kept one (auto) until it is refreshed. */
static int prepare_newton(stage_solver *s, const stage_path *path, double h, const double *y0,
                          wb_step_stats *stats)
{
    if (s->iteration != ITERATE_AUTO || !s->jacobian_set || s->refresh) {
        vec_copy(s->dim, y0, s->jacobian_point);
        s->jacobian_set = 1, s->refresh = 0, s->factored = 0;
    }
    if (s->factored && s->factored_h == h)
        return WB_OK;
    int status = path->factor(s, h, s->jacobian_point, stats);
    s->factored = status == WB_OK;
    s->factored_h = h;
    return status;
}

static int solve_stages(stage_solver *s, const stage_path *path, double h, const double *y0,
                        int continuing, wb_step_stats *stats)
{
    double previous = INFINITY, relative = INFINITY;
    int status;
restart:
    path->guess(s, h, y0, continuing, stats);
    if (s->mode == ITERATE_SIMPLIFIED && (status = prepare_newton(s, path, h, y0, stats)))
        return status;
    previous = INFINITY;
    for (int it = 0; it < s->max_iter; it++) {
        double absolute;
        if ((status = path->sweep(s, h, y0, s->mode, stats, &relative, &absolute)) != WB_OK)
            return status;
        stats->newton_iterations++;
        stats->residual_evals++;
        if (isfinite(relative) && settled(it, s->mode, relative, previous, absolute, s->tol)) {
            wb_count_iteration_step(stats, s->mode == ITERATE_FIXED_POINT);
            return WB_OK;
        }
        if (s->iteration == ITERATE_AUTO && s->mode == ITERATE_FIXED_POINT &&
            wb_auto_fixed_point_stalls(it, relative, previous, FIXED_POINT_SWEEPS)) {
            s->mode = ITERATE_SIMPLIFIED; /* stiff: Newton for the rest of the run */
            goto restart;
        }
        if (s->iteration == ITERATE_AUTO && s->mode == ITERATE_SIMPLIFIED) {
            const int old = !vec_equal(s->dim, s->jacobian_point, y0);
            const wb_auto_jacobian verdict = wb_auto_judge_jacobian(it, relative, previous, old);
            if (verdict != WB_AUTO_JACOBIAN_KEEP)
                s->refresh = 1;
            if (verdict == WB_AUTO_JACOBIAN_REFRESH_NOW)
                goto restart;
        }
        if (!isfinite(relative))
            break;
        previous = relative;
    }
    if (continuing) { /* an extrapolation can mislead on a stiff problem: once more, plain */
        continuing = 0;
        goto restart;
    }
    if (!isfinite(relative)) {
        s->host->error(s->host, "stage iteration produced a non-finite increment");
        return WB_ERR_NONFINITE;
    }
    s->host->error(s->host, "stage iteration did not converge in %d iterations (last "
                            "increment %.3e relative to the unknowns)", s->max_iter, relative);
    return WB_ERR_NEWTON;
}

/* Count the step under the start that began it. */
static void count_start(wb_step_stats *stats, int started)
{
    if (started == START_PLAIN || !WB_HAS_FIELD(stats, wb_step_stats, corrected_starts))
        return;
    if (started == START_CORRECTED)
        stats->corrected_starts++;
    else
        stats->extrapolated_starts++;
}

/* start = "auto": the next step's start, from this step's cost (before
 * finish() replaces the history the extrapolation comes from).  The
 * extrapolated start needs more than one sweep when it took more, or, after
 * a corrected start, when it lies off the stages reached by more than the
 * first sweep's stopping test accepts of an increment (which is about that
 * distance: the sweep contracts the error by h^2 |f'| << 1).  Measured on
 * Kepler (e = 0.5, h = 0.01, 20000 steps), evaluations a step with this
 * bound, half of it and twice it: Gauss 5 6.60, 6.80, 6.83; Gauss 6 6.64,
 * 6.68, 6.75 (a wrong guess costs a sweep or a start's two evaluations). */
static int next_start(stage_solver *s, double h, int started, uint64_t sweeps, uint64_t evals)
{
    /* Newton (a stiff problem): its sweeps follow the kept Jacobian more than
     * the start, and its Jacobians and solves, which the evaluations do not
     * count, dominate.  Measured (angle_pendulum g = 1e3, h = 0.05, 4000
     * steps, auto iteration): Gauss 3 extrapolate 31.4 evaluations and 669
     * Jacobians, corrected 32.6 and 787; Gauss 4 39.2 and 242, 39.2 and 154.
     * The evaluations cannot tell these apart; the extrapolation it is. */
    if (s->mode != ITERATE_FIXED_POINT)
        return START_EXTRAPOLATED;
    const int hard = started == START_EXTRAPOLATED
                         ? sweeps > 1
                         : !separable_extrapolation_within(s, h, ROUNDOFF, s->tol);
    return start_choice_next(&s->choice, started, hard, (double)evals);
}

int stage_solver_step(stage_solver *s, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    const int n = s->n, dim = s->dim;
    double *y0 = s->work + 3 * dim * dim + 4 * n; /* after field_jacobian's scratch */
    int continuing = s->sum.have_last;
    for (int k = 0; k < n; k++) { /* y0 = (q0, p0), and is it where the last step ended? */
        y0[k] = q0[k], y0[n + k] = p0[k];
        continuing = continuing && y0[k] == s->sum.last[k] && y0[n + k] == s->sum.last[n + k];
    }
    if (!continuing) /* the carried rounding error belongs to another trajectory */
        for (int k = 0; k < dim; k++)
            s->sum.carry[k] = 0.0;
    if (s->explicit_tableau) {
        general_explicit_increment(s, h, y0, stats);
    } else {
        const stage_path *path = s->separable ? &separable_path : &general_path;
        /* a failed step leaves the carried state as it was, for (q0, p0) */
        const int mode = s->mode, jacobian_set = s->jacobian_set, refresh = s->refresh;
        const int started = continuing && s->history_valid ? s->start : START_PLAIN;
        const uint64_t sweeps = stats->newton_iterations, evals = stats->function_evals;
        int status = solve_stages(s, path, h, y0, started != START_PLAIN, stats);
        if (status != WB_OK) {
            if (s->mode != mode || s->jacobian_set != jacobian_set || s->refresh != refresh)
                s->factored = 0;
            s->mode = mode, s->jacobian_set = jacobian_set, s->refresh = refresh;
            return status;
        }
        count_start(stats, started);
        const int next = s->choose_start && started != START_PLAIN
                             ? next_start(s, h, started, stats->newton_iterations - sweeps,
                                          stats->function_evals - evals)
                             : s->start;
        path->finish(s, h, y0, stats);
        if (next == START_CORRECTED && s->start != START_CORRECTED)
            separable_store_start_force(s, y0, stats);
        s->start = next;
        s->history_valid = s->extrapolate;
    }
    double *y1 = s->sum.last;
    wb_compensated_add(&s->sum, dim, y0, s->R, y1);
    for (int k = 0; k < n; k++)
        q1[k] = y1[k], p1[k] = y1[n + k];
    return WB_OK;
}

/* ---- the method callbacks ------------------------------------------------------------------ */

static int create_method(const wb_host *host, const wb_model *model,
                         const wb_option_value *opts, void **inst, int partitioned)
{
    const char *it = opts[STAGE_OPT_ITERATION].string;
    stage_solver_config config = {
        .tableau = opts[STAGE_OPT_TABLEAU].tableau,
        .partitioned = partitioned,
        .iteration = it[0] == 'n'   ? ITERATE_NEWTON
                     : it[0] == 's' ? ITERATE_SIMPLIFIED
                     : it[0] == 'a' ? ITERATE_AUTO
                                    : ITERATE_FIXED_POINT,
        .extrapolate = opts[STAGE_OPT_START].string[0] != 'p',
        .corrected = opts[STAGE_OPT_START].string[0] == 'c',
        .choose_start = opts[STAGE_OPT_START].string[0] == 'a',
        .tol = opts[STAGE_OPT_TOL].number,
        .max_iter = (int)opts[STAGE_OPT_MAX_ITER].number,
        .compensated = opts[STAGE_OPT_COMPENSATED].number != 0,
    };
    int status;
    *inst = stage_solver_create(host, model, &config, &status);
    return status;
}

int stage_method_create_rk(const wb_host *host, const wb_model *model,
                           const wb_option_value *opts, void **inst)
{
    return create_method(host, model, opts, inst, 0);
}

int stage_method_create_prk(const wb_host *host, const wb_model *model,
                            const wb_option_value *opts, void **inst)
{
    return create_method(host, model, opts, inst, 1);
}

void stage_method_destroy(void *inst) { stage_solver_destroy(inst); }

int stage_method_reset(void *inst, double t, const double *q, const double *p)
{
    (void)t, (void)q, (void)p;
    stage_solver_reset(inst);
    return WB_OK;
}

int stage_method_start(void *inst, double t, double h, const double *q, const double *p,
                       const double *carry)
{
    (void)h;
    if (!carry)
        return stage_method_reset(inst, t, q, p);
    stage_solver_resume(inst, q, p, carry);
    return WB_OK;
}

/* start: the stage derivatives, 2 s blocks of nq; jacobian_point: (q, p). */
uint32_t stage_method_aux_blocks(const wb_option_value *opts, uint32_t group)
{
    return group == 2 ? 2u * (uint32_t)opts[STAGE_OPT_TABLEAU].tableau->s : 2u;
}

void stage_method_aux_values(const void *inst, double *out)
{
    stage_solver_carry(inst, out);
}

int stage_method_step(void *inst, double t, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    (void)t;
    return stage_solver_step(inst, h, q0, p0, q1, p1, stats);
}

static int holds(double defect) { return defect <= 1e-12; }

/* Order (the host's: tree conditions, then Butcher's bound) and structure.
 * rk uses (a, b, c) alone even when the tableau is a pair. */
static int describe(const wb_tableau *t, int partitioned, wb_method_props *out)
{
    const int s = t->s;
    if (partitioned && !t->a2)
        return WB_ERR_INVALID;
    const double *a2 = partitioned ? t->a2 : t->a, *b2 = partitioned ? t->b2 : t->b;
    out->order = partitioned ? t->order : t->order_first;
    out->flags = 0;
    double symplectic = 0, symmetric = 0;
    for (int i = 0; i < s; i++) {
        symplectic = fmax(symplectic, fabs(t->b[i] - b2[i]));
        symmetric = fmax(symmetric, fabs(t->b[s - 1 - i] - t->b[i]));
        for (int j = 0; j < s; j++) {
            symplectic = fmax(symplectic, fabs(t->b[i] * a2[i * s + j] +
                                               b2[j] * t->a[j * s + i] - t->b[i] * b2[j]));
            symmetric = fmax(symmetric, fabs(t->a[(s - 1 - i) * s + (s - 1 - j)] +
                                             t->a[i * s + j] - t->b[j]));
            symmetric = fmax(symmetric, fabs(a2[(s - 1 - i) * s + (s - 1 - j)] +
                                             a2[i * s + j] - b2[j]));
        }
    }
    if (holds(symplectic))
        out->flags |= WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING;
    if (holds(symmetric))
        out->flags |= WB_PROP_SYMMETRIC;
    if (mat_strictly_lower(s, t->a) && mat_strictly_lower(s, a2))
        out->flags |= WB_PROP_EXPLICIT;
    return WB_OK;
}

int stage_method_describe_rk(const wb_option_value *opts, wb_method_props *out)
{
    return describe(opts[STAGE_OPT_TABLEAU].tableau, 0, out);
}

int stage_method_describe_prk(const wb_option_value *opts, wb_method_props *out)
{
    return describe(opts[STAGE_OPT_TABLEAU].tableau, 1, out);
}

/* rk with a pair would integrate with its first tableau alone: refused. */
int stage_method_validate_rk(const wb_host *host, const wb_option_value *opts)
{
    const wb_tableau *t = opts[STAGE_OPT_TABLEAU].tableau;
    if (!t->a2)
        return WB_OK;
    host->error(host, "tableau '%s' is a partitioned pair (a, b on q; a2, b2 on p): rk takes "
                      "one tableau; integrate the pair with prk (wb.method(\"prk\", {tableau = "
                      "...})), or give rk a single tableau", t->name);
    return WB_ERR_INVALID;
}

int stage_method_validate_prk(const wb_host *host, const wb_option_value *opts)
{
    const wb_tableau *t = opts[STAGE_OPT_TABLEAU].tableau;
    if (t->a2)
        return WB_OK;
    host->error(host, "tableau '%s' is not a partitioned pair (it has no a2, b2); use e.g. "
                      "lobatto_iiia_iiib3 or wb.tableau{a =, b =, a2 =, b2 =}", t->name);
    return WB_ERR_INVALID;
}
