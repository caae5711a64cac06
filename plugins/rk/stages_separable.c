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
 * I + h^2 (a a2) (x) M^-1 Hess V(q0) once per step; full Newton uses the
 * Hessian at every stage; fixed-point iteration needs no linear algebra.
 * The update
 *   q1 - q0 = (sum_j b_j) h v0 - h^2 sum_k (b^T a2)_k M^-1 G_k,
 *   p1 - p0 = -h sum_k b2_k G_k
 * uses the gradients of the last sweep, which agree with the converged
 * stages to round-off. */
#include "stage_solver_internal.h"
#include "wb_iteration.h"
#include "wb_vec.h"

#include <stdlib.h>

int separable_setup(stage_solver *s)
{
    const int st = s->s, n = s->n, sn = st * n;
    size_t doubles = (size_t)st * st + 2 * (size_t)st + 4 * (size_t)sn + (size_t)sn * sn +
                     (size_t)st * n * n + 2 * (size_t)n;
    s->separable = calloc(doubles, sizeof(double));
    s->qpivots = calloc((size_t)sn, sizeof(int));
    if (!s->separable || !s->qpivots)
        return -1;
    double *p = s->separable;
    s->AA = p, p += (size_t)st * st;
    s->wq = p, p += st;
    s->rows = p, p += st;
    s->Zq = p, p += sn;
    s->G = p, p += sn;
    s->MG = p, p += sn;
    s->Rq = p, p += sn;
    s->Mq = p, p += (size_t)sn * sn;
    s->MinvH = p, p += (size_t)st * n * n; /* one per stage for full Newton */
    s->v0 = p, p += n;
    s->column = p;
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

/* G_j = grad V(q0 + Z_j) and MG_j = M^-1 G_j for every stage. */
static void gradients(stage_solver *s, const double *q0, wb_step_stats *stats)
{
    const int n = s->n;
    for (int j = 0; j < s->s; j++) {
        double *Q = s->column;
        const double *Zj = s->Zq + (size_t)j * n;
        for (int c = 0; c < n; c++)
            Q[c] = q0[c] + Zj[c];
        wb_potential_gradient(s->model, Q, s->G + (size_t)j * n);
        wb_mass_solve(s->model, Q, s->G + (size_t)j * n, s->MG + (size_t)j * n);
        stats->function_evals++;
    }
}

/* R_i = Z_i - h r_i v0 + h^2 sum_k (a a2)_ik MG_k */
static void residual(stage_solver *s, double h)
{
    const int n = s->n, st = s->s;
    for (int i = 0; i < st; i++) {
        double *Ri = s->Rq + (size_t)i * n;
        vec_copy(n, s->Zq + (size_t)i * n, Ri);
        vec_axpy(n, -h * s->rows[i], s->v0, Ri);
        for (int k = 0; k < st; k++)
            vec_axpy(n, h * h * s->AA[i * st + k], s->MG + (size_t)k * n, Ri);
    }
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

/* I + h^2 (a a2) (x) MinvH_k, factored; per_stage: MinvH at each stage. */
static int newton_matrix(stage_solver *s, double h, const double *q0, int per_stage,
                         wb_step_stats *stats)
{
    const int n = s->n, st = s->s, sn = st * n;
    if (per_stage) {
        for (int k = 0; k < st; k++) {
            double *Q = s->Rq; /* scratch before the residual is formed */
            for (int c = 0; c < n; c++)
                Q[c] = q0[c] + s->Zq[(size_t)k * n + c];
            inverse_mass_times_hessian(s, Q, s->MinvH + (size_t)k * n * n, stats);
        }
    } else {
        inverse_mass_times_hessian(s, q0, s->MinvH, stats);
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

static int iterate(stage_solver *s, double h, const double *q0, wb_step_stats *stats)
{
    const int sn = s->s * s->n;
    double previous = INFINITY;
    int status;
    if (s->iteration == ITERATE_SIMPLIFIED && (status = newton_matrix(s, h, q0, 0, stats)))
        return status;
    for (int it = 0; it < s->max_iter; it++) {
        if (s->iteration == ITERATE_NEWTON && (status = newton_matrix(s, h, q0, 1, stats)))
            return status;
        gradients(s, q0, stats);
        residual(s, h);
        stats->residual_evals++;
        if (s->iteration != ITERATE_FIXED_POINT) {
            stats->linear_solves++;
            status = s->host->lu_solve(s->host, sn, 1, s->Mq, s->qpivots, s->Rq);
            if (status != WB_OK)
                return status;
        }
        double norm = vec_max_abs(sn, s->Rq);
        vec_axpy(sn, -1.0, s->Rq, s->Zq);
        stats->newton_iterations++;
        if (!isfinite(norm)) {
            s->host->error(s->host, "stage iteration produced a non-finite increment");
            return WB_ERR_NONFINITE;
        }
        if (wb_iteration_settled(it, norm, previous, s->tol, vec_max_abs(sn, s->Zq)))
            return WB_OK;
        previous = norm;
    }
    s->host->error(s->host, "stage iteration did not converge in %d iterations (last "
                            "increment %.3e)", s->max_iter, previous);
    return WB_ERR_NEWTON;
}

int separable_increment(stage_solver *s, double h, const double *y0, wb_step_stats *stats)
{
    const int n = s->n, st = s->s;
    const double *q0 = y0, *p0 = y0 + n;
    wb_mass_solve(s->model, q0, p0, s->v0);
    for (int i = 0; i < st; i++) /* first guess: Q_i = q0 + h r_i v0 */
        for (int c = 0; c < n; c++)
            s->Zq[(size_t)i * n + c] = h * s->rows[i] * s->v0[c];
    int status = iterate(s, h, q0, stats);
    if (status != WB_OK)
        return status;
    double *dq = s->R, *dp = s->R + n;
    for (int c = 0; c < n; c++)
        dq[c] = s->bq_sum * h * s->v0[c], dp[c] = 0;
    for (int k = 0; k < st; k++) {
        vec_axpy(n, -h * h * s->wq[k], s->MG + (size_t)k * n, dq);
        vec_axpy(n, -h * s->bp[k], s->G + (size_t)k * n, dp);
    }
    return WB_OK;
}
