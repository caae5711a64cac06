/* Stages in q alone, for a constant mass matrix (H = p^T M^-1 p / 2 + V(q)):
 * the momentum stages P_j = p0 - h sum_k a2_jk grad V(Q_k) are explicit in
 * the position stages, so with v0 = M^-1 p0 and G_k = grad V(Q_k)
 *
 *   Z_i = Q_i - q0 = h r_i v0 - h^2 sum_k (a a2)_ik M^-1 G_k,
 *
 * with r_i = sum_j a_ij (the nodes c_i, except for tableaux such as Radau IA
 * with one stage, whose c is not the row sum),
 *
 * s n unknowns instead of 2 s n (Hairer's gni_irk2 does the same for
 * second-order equations).  Simplified Newton factors
 * I + h^2 (a a2) (x) M^-1 Hess V(q) at the step's start (or keeps it from
 * an earlier step); full Newton uses the Hessian at every stage; fixed-point
 * iteration needs no linear algebra.  The extrapolated start interpolates
 * the last step's M^-1 G_k at the new nodes: Z_i = h r_i v0 -
 * h^2 sum_k (a a2 X)_ik M^-1 G_k(last step); the corrected start
 * (corrected_start.h) adds the forces at the last step's start, at q0 and
 * at a point beyond, for a start of higher order (after gni_irk2).
 * The update
 *   q1 - q0 = (sum_j b_j) h v0 - h^2 sum_k (b^T a2)_k M^-1 G_k,
 *   p1 - p0 = -h sum_k b2_k G_k
 * uses the gradients of the last sweep, which agree with the converged
 * stages to round-off. */
#include "stage_solver_internal.h"
#include "wb_mass.h"
#include "wb_vec.h"

#include <stdlib.h>

int separable_setup(stage_solver *s)
{
    const int st = s->s, n = s->n, sn = st * n;
    size_t doubles = 3 * (size_t)st * st + 3 * (size_t)st + 4 * (size_t)sn + (size_t)sn * sn +
                     (size_t)st * n * n + 5 * (size_t)n /* v0, diagonal, column, 2 n scratch */
                     + (size_t)st * (st + CORRECTED_POINTS) + (size_t)st + 3 * (size_t)n;
    s->separable = calloc(doubles, sizeof(double));
    s->qpivots = calloc((size_t)sn, sizeof(int));
    if (!s->separable || !s->qpivots)
        return -1;
    double *p = s->separable;
    s->AA = p, p += (size_t)st * st;
    s->EX = p, p += (size_t)st * st;
    s->wq = p, p += st;
    s->rows = p, p += st;
    s->Zq = p, p += sn;
    s->G = p, p += sn;
    s->MG = p, p += sn;
    s->Rq = p, p += sn;
    s->Mq = p, p += (size_t)sn * sn;
    s->MinvH = p, p += (size_t)st * n * n; /* one per stage for full Newton */
    s->v0 = p, p += n;
    s->h2AA = p, p += (size_t)st * st;
    s->hr = p, p += st;
    s->minv_diagonal = p, p += n;
    s->column = p, p += n;
    s->CE = p, p += (size_t)st * (st + CORRECTED_POINTS);
    s->CW = p, p += st;
    s->point_force = p, p += n;
    s->extra_point = p, p += n;
    s->extra_force = p, p += n;
    s->coefficients_h = NAN;
    /* M^-1 once (n solves into the Newton matrix's room, free until a step):
     * when diagonal, the sweep scales by it instead of calling the model */
    double *minv = s->Mq, *scratch = p;
    wb_constant_inverse_mass(s->model, scratch, minv);
    for (int r = 0; r < n && s->minv_diagonal; r++) {
        s->minv_diagonal[r] = minv[r * n + r];
        for (int c = 0; c < n; c++)
            if (c != r && minv[r * n + c] != 0.0)
                s->minv_diagonal = NULL;
    }
    s->bq_sum = 0;
    for (int i = 0; i < st; i++) {
        s->bq_sum += s->bq[i];
        s->rows[i] = 0;
        for (int j = 0; j < st; j++)
            s->rows[i] += s->aq[i * st + j];
        for (int k = 0; k < st; k++) {
            double sum = 0;
            for (int j = 0; j < st; j++)
                sum += s->aq[i * st + j] * s->ap[j * st + k];
            s->AA[i * st + k] = sum;
        }
    }
    for (int k = 0; k < st; k++) {
        double sum = 0;
        for (int j = 0; j < st; j++)
            sum += s->bq[j] * s->ap[j * st + k];
        s->wq[k] = sum;
    }
    return 0;
}

#define SEPARABLE_INLINE static inline __attribute__((always_inline))

/* G = grad V(q) and MG = M^-1 G (one force evaluation) */
SEPARABLE_INLINE void force_n(stage_solver *s, const double *q, double *G, double *MG, int n)
{
    const double *d = s->minv_diagonal;
    wb_potential_gradient(s->model, q, G);
    if (d)
        for (int c = 0; c < n; c++)
            MG[c] = d[c] * G[c];
    else
        wb_mass_solve(s->model, q, G, MG);
}

/* G_j = grad V(q0 + Z_j) and MG_j = M^-1 G_j for every stage; n is a
 * constant where the dispatch below knows it. */
SEPARABLE_INLINE void gradients_n(stage_solver *s, const double *q0, int n, int st,
                                  wb_step_stats *stats)
{
    double *Q = s->column;
    for (int j = 0; j < st; j++) {
        const double *Zj = s->Zq + (size_t)j * n;
        for (int c = 0; c < n; c++)
            Q[c] = q0[c] + Zj[c];
        force_n(s, Q, s->G + (size_t)j * n, s->MG + (size_t)j * n, n);
    }
    stats->function_evals += (uint64_t)st;
}

/* R_i = Z_i - h r_i v0 + h^2 sum_k (a a2)_ik MG_k */
SEPARABLE_INLINE void residual_n(stage_solver *s, int n, int st)
{
    for (int i = 0; i < st; i++) {
        double *Ri = s->Rq + (size_t)i * n;
        const double *Zi = s->Zq + (size_t)i * n, hr = s->hr[i];
        for (int c = 0; c < n; c++)
            Ri[c] = Zi[c] - hr * s->v0[c];
        for (int k = 0; k < st; k++) {
            const double w = s->h2AA[i * st + k], *MGk = s->MG + (size_t)k * n;
            for (int c = 0; c < n; c++)
                Ri[c] += w * MGk[c];
        }
    }
}

/* The largest increment, absolute and relative to scale, without a branch
 * per component: max without NaN handling, and NaN caught by a sum of the
 * relative increments (non-negative: NaN only if one of them is). */
typedef struct increment_max {
    double relative, absolute, nan_check;
} increment_max;

SEPARABLE_INLINE void increment_take(increment_max *m, double d, double inverse_scale,
                                     int track_absolute)
{
    const double r = d * inverse_scale;
    m->relative = r > m->relative ? r : m->relative;
    m->nan_check += r;
    if (track_absolute)
        m->absolute = d > m->absolute ? d : m->absolute;
}

/* One sweep: the fixed point Z_i <- h r_i v0 - h^2 sum_k (a a2)_ik MG_k
 * directly, or Newton's Z <- Z - M^-1 R; the increment's largest component,
 * relative to scale, and absolute when a tolerance asks for it
 * (track_absolute; else reported as infinite). */
SEPARABLE_INLINE int sweep_track(stage_solver *s, const double *q0, int mode, int n, int st,
                                 int track_absolute, wb_step_stats *stats, double *relative,
                                 double *absolute)
{
    gradients_n(s, q0, n, st, stats);
    const double *inverse_scale = s->scale;
    increment_max m = {0.0, 0.0, 0.0};
    if (mode == ITERATE_FIXED_POINT) {
        const double *restrict hAA = s->h2AA, *restrict MG = s->MG, *restrict v0 = s->v0;
        for (int i = 0; i < st; i++) {
            double *restrict Zi = s->Zq + (size_t)i * n;
            const double hr = s->hr[i];
            for (int c = 0; c < n; c++) {
                double z = hr * v0[c];
                for (int k = 0; k < st; k++)
                    z -= hAA[i * st + k] * MG[(size_t)k * n + c];
                increment_take(&m, fabs(z - Zi[c]), inverse_scale[c], track_absolute);
                Zi[c] = z;
            }
        }
    } else {
        residual_n(s, n, st);
        stats->linear_solves++;
        int status = s->host->lu_solve(s->host, st * n, 1, s->Mq, s->qpivots, s->Rq);
        if (status != WB_OK)
            return status;
        for (int i = 0; i < st; i++) {
            double *Zi = s->Zq + (size_t)i * n;
            const double *Ri = s->Rq + (size_t)i * n;
            for (int c = 0; c < n; c++) {
                increment_take(&m, fabs(Ri[c]), inverse_scale[c], track_absolute);
                Zi[c] -= Ri[c];
            }
        }
    }
    const int nan = isnan(m.nan_check);
    *relative = nan ? NAN : m.relative;
    *absolute = nan ? NAN : track_absolute ? m.absolute : INFINITY;
    return WB_OK;
}

SEPARABLE_INLINE int sweep_n(stage_solver *s, const double *q0, int mode, int n, int st,
                             wb_step_stats *stats, double *relative, double *absolute)
{
    if (s->tol > 0)
        return sweep_track(s, q0, mode, n, st, 1, stats, relative, absolute);
    return sweep_track(s, q0, mode, n, st, 0, stats, relative, absolute);
}

/* MinvH = M^-1 Hess V(q), column by column (Hess V is symmetric: its
 * column c is its row c). */
static void inverse_mass_times_hessian(stage_solver *s, const double *q, double *MinvH,
                                       wb_step_stats *stats)
{
    const int n = s->n;
    double *H = s->Mq; /* scratch: the Newton matrix is rebuilt right after */
    wb_potential_hessian(s->model, q, H);
    for (int c = 0; c < n; c++) {
        wb_mass_solve(s->model, q, H + (size_t)c * n, s->column);
        for (int r = 0; r < n; r++)
            MinvH[r * n + c] = s->column[r];
    }
    stats->jacobian_evals++;
}

/* I + h^2 (a a2) (x) MinvH_k, factored; per_stage: MinvH at each stage
 * (from q0 + Z_k), else at q. */
static int newton_matrix(stage_solver *s, double h, const double *q, int per_stage,
                         wb_step_stats *stats)
{
    const int n = s->n, st = s->s, sn = st * n;
    if (per_stage) {
        for (int k = 0; k < st; k++) {
            double *Q = s->Rq; /* scratch before the residual is formed */
            for (int c = 0; c < n; c++)
                Q[c] = q[c] + s->Zq[(size_t)k * n + c];
            inverse_mass_times_hessian(s, Q, s->MinvH + (size_t)k * n * n, stats);
        }
    } else {
        inverse_mass_times_hessian(s, q, s->MinvH, stats);
    }
    for (int i = 0; i < st; i++)
        for (int k = 0; k < st; k++) {
            const double w = h * h * s->AA[i * st + k];
            const double *MH = s->MinvH + (per_stage ? (size_t)k * n * n : 0);
            for (int r = 0; r < n; r++) {
                double *row = s->Mq + (size_t)(i * n + r) * sn + (size_t)k * n;
                for (int c = 0; c < n; c++)
                    row[c] = (i == k && r == c) + w * MH[r * n + c];
            }
        }
    stats->linear_solves++;
    return s->host->lu_factor(s->host, sn, s->Mq, s->qpivots);
}

/* M^-1 grad V(q) into MG, grad V in the Newton residual's room (free
 * before the iteration) */
SEPARABLE_INLINE void inverse_mass_gradient_n(stage_solver *s, const double *q, double *MG,
                                              int n, wb_step_stats *stats)
{
    force_n(s, q, s->Rq, MG, n);
    stats->function_evals++;
}

/* The corrected start (corrected_start.h): the point beyond the last
 * step on its collocation polynomial, the force there, and the stages from
 * the forces at the last nodes (history), at the last step's start
 * (history's block s), at q0 (point_force) and beyond. */
SEPARABLE_INLINE void corrected_guess_n(stage_solver *s, double h, const double *y0, int n,
                                        int st, wb_step_stats *stats)
{
    const int columns = st + CORRECTED_POINTS;
    const double h2 = h * h, hs = (s->sigma - 1.0) * h;
    double *x = s->extra_point;
    for (int c = 0; c < n; c++)
        x[c] = y0[c] + hs * s->v0[c];
    for (int k = 0; k < st; k++) {
        const double w = -h2 * s->CW[k], *Hk = s->history + (size_t)k * n;
        for (int c = 0; c < n; c++)
            x[c] += w * Hk[c];
    }
    inverse_mass_gradient_n(s, x, s->extra_force, n, stats);
    const double *last_point = s->history + (size_t)st * n;
    for (int i = 0; i < st; i++) {
        double *Zi = s->Zq + (size_t)i * n;
        const double hr = s->hr[i], *E = s->CE + (size_t)i * columns;
        const double w0 = -h2 * E[st], w1 = -h2 * E[st + 1], w2 = -h2 * E[st + 2];
        for (int c = 0; c < n; c++)
            Zi[c] = hr * s->v0[c] + w0 * last_point[c] + w1 * s->point_force[c] +
                    w2 * s->extra_force[c];
        for (int k = 0; k < st; k++) {
            const double w = -h2 * E[k], *Hk = s->history + (size_t)k * n;
            for (int c = 0; c < n; c++)
                Zi[c] += w * Hk[c];
        }
    }
}

/* v0 = M^-1 p0 and the first iterate: Q_i = q0 + h r_i v0, less the
 * extrapolated forces when continuing, or the corrected start. */
SEPARABLE_INLINE void guess_n(stage_solver *s, double h, const double *y0, int continuing,
                              int n, int st, wb_step_stats *stats)
{
    if (h != s->coefficients_h) {
        for (int i = 0; i < st; i++) {
            s->hr[i] = h * s->rows[i];
            for (int k = 0; k < st; k++)
                s->h2AA[i * st + k] = h * h * s->AA[i * st + k];
        }
        s->coefficients_h = h;
    }
    const double *d = s->minv_diagonal;
    if (d)
        for (int c = 0; c < n; c++)
            s->v0[c] = d[c] * y0[n + c];
    else
        wb_mass_solve(s->model, y0, y0 + n, s->v0);
    const double h2 = h * h;
    const int corrected = s->start == START_CORRECTED;
    if (corrected)
        inverse_mass_gradient_n(s, y0, s->point_force, n, stats);
    if (corrected && continuing)
        corrected_guess_n(s, h, y0, n, st, stats);
    else
        for (int i = 0; i < st; i++) {
            double *Zi = s->Zq + (size_t)i * n;
            const double hr = s->hr[i];
            for (int c = 0; c < n; c++)
                Zi[c] = hr * s->v0[c];
            if (continuing)
                for (int k = 0; k < st; k++) {
                    const double w = -h2 * s->EX[i * st + k], *Hk = s->history + (size_t)k * n;
                    for (int c = 0; c < n; c++)
                        Zi[c] += w * Hk[c];
                }
        }
    /* the stopping test's weights 1 / max(|q0_c|, 0.1 max |q0|) */
    double largest = 0;
    for (int c = 0; c < n; c++)
        largest = fabs(y0[c]) > largest ? fabs(y0[c]) : largest;
    const double floor = largest > 0 ? 0.1 * largest : 1.0;
    for (int c = 0; c < n; c++)
        s->scale[c] = 1.0 / (fabs(y0[c]) > floor ? fabs(y0[c]) : floor);
}

static int factor(stage_solver *s, double h, const double *y, wb_step_stats *stats)
{
    return newton_matrix(s, h, y, 0, stats);
}

/* q1 - q0 = (sum_j b_j) h v0 - h^2 sum_k (b^T a2)_k MG_k,
 * p1 - p0 = -h sum_k b2_k G_k, from the last sweep's gradients. */
SEPARABLE_INLINE void finish_n(stage_solver *s, double h, int n, int st)
{
    double *dq = s->R, *dp = s->R + n;
    const double hb = s->bq_sum * h, h2 = h * h;
    for (int c = 0; c < n; c++)
        dq[c] = hb * s->v0[c], dp[c] = 0;
    for (int k = 0; k < st; k++) {
        const double wq = -h2 * s->wq[k], wp = -h * s->bp[k];
        const double *MGk = s->MG + (size_t)k * n, *Gk = s->G + (size_t)k * n;
        for (int c = 0; c < n; c++)
            dq[c] += wq * MGk[c], dp[c] += wp * Gk[c];
    }
    if (s->extrapolate)
        for (int e = 0; e < st * n; e++)
            s->history[e] = s->MG[e];
    if (s->start == START_CORRECTED) /* the force at this step's start, for the next one */
        for (int c = 0; c < n; c++)
            s->history[(size_t)st * n + c] = s->point_force[c];
}

/* It stops at the first component past both bounds, looking at the last
 * stage first, where the extrapolation reaches farthest: on the steps that
 * need more than one sweep that is the first component (Kepler, Gauss 4:
 * 87 % of them; the second, 13 %). */
SEPARABLE_INLINE int extrapolation_within_n(const stage_solver *s, double h, double relative_bound,
                                            double absolute_bound, int n, int st)
{
    const double h2 = h * h;
    int past_relative = 0, past_absolute = 0;
    for (int i = st - 1; i >= 0; i--) {
        const double *Zi = s->Zq + (size_t)i * n, hr = s->hr[i];
        for (int c = 0; c < n; c++) {
            double z = hr * s->v0[c];
            for (int k = 0; k < st; k++)
                z += -h2 * s->EX[i * st + k] * s->history[(size_t)k * n + c];
            const double d = fabs(z - Zi[c]);
            past_relative |= d * s->scale[c] > relative_bound;
            past_absolute |= d > absolute_bound;
            if (past_relative && past_absolute)
                return 0;
        }
    }
    return 1;
}

void separable_store_start_force(stage_solver *s, const double *y0, wb_step_stats *stats)
{
    inverse_mass_gradient_n(s, y0, s->history + (size_t)s->s * s->n, s->n, stats);
}

/* The dispatch that lets the compiler see small dimensions and stage counts
 * as constants (call_n_s(n, s)); beyond the small n, the stage count alone
 * (callgrind, outer solar system n = 18, Gauss 4: 21 349 -> 18 721
 * instructions per step). */
#define SEPARABLE_DISPATCH(call_n_s)                                                           \
    switch (s->n * 16 + s->s) {                                                                \
    case 1 * 16 + 1: return call_n_s(1, 1);                                                    \
    case 1 * 16 + 2: return call_n_s(1, 2);                                                    \
    case 2 * 16 + 1: return call_n_s(2, 1);                                                    \
    case 2 * 16 + 2: return call_n_s(2, 2);                                                    \
    case 2 * 16 + 3: return call_n_s(2, 3);                                                    \
    case 2 * 16 + 4: return call_n_s(2, 4);                                                    \
    case 2 * 16 + 6: return call_n_s(2, 6);                                                    \
    case 3 * 16 + 2: return call_n_s(3, 2);                                                    \
    case 3 * 16 + 3: return call_n_s(3, 3);                                                    \
    case 3 * 16 + 4: return call_n_s(3, 4);                                                    \
    default: break;                                                                            \
    }                                                                                          \
    switch (s->s) { /* larger n: the stage loops still unrolled */                            \
    case 2: return call_n_s(s->n, 2);                                                          \
    case 4: return call_n_s(s->n, 4);                                                          \
    case 6: return call_n_s(s->n, 6);                                                          \
    default: return call_n_s(s->n, s->s);                                                      \
    }

static void guess(stage_solver *s, double h, const double *y0, int continuing,
                  wb_step_stats *stats)
{
#define GUESS(N, S) guess_n(s, h, y0, continuing, N, S, stats)
    SEPARABLE_DISPATCH(GUESS)
#undef GUESS
}

static int sweep(stage_solver *s, double h, const double *y0, int mode, wb_step_stats *stats,
                 double *relative, double *absolute)
{
    int status;
    if (mode == ITERATE_NEWTON && (status = newton_matrix(s, h, y0, 1, stats)) != WB_OK)
        return status;
#define SWEEP(N, S) sweep_n(s, y0, mode, N, S, stats, relative, absolute)
    SEPARABLE_DISPATCH(SWEEP)
#undef SWEEP
}

static void finish(stage_solver *s, double h, const double *y0, wb_step_stats *stats)
{
    (void)y0, (void)stats;
#define FINISH(N, S) finish_n(s, h, N, S)
    SEPARABLE_DISPATCH(FINISH)
#undef FINISH
}

int separable_extrapolation_within(const stage_solver *s, double h, double relative_bound,
                                   double absolute_bound)
{
#define WITHIN(N, S) extrapolation_within_n(s, h, relative_bound, absolute_bound, N, S)
    SEPARABLE_DISPATCH(WITHIN)
#undef WITHIN
}

const stage_path separable_path = {guess, factor, sweep, finish};
