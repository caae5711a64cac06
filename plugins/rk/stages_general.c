/* Stages in (q, p) for any mechanical model: explicit tableaux stage by
 * stage; implicit ones by full Newton, simplified Newton or fixed-point
 * iteration on the stage increments Z_i = (Q_i - q0, P_i - p0). */
#include "stage_solver_internal.h"
#include "wb_fd.h"
#include "wb_iteration.h"
#include "wb_vec.h"

/* ---- the vector field and its Jacobian -------------------------------------------- */

static void field(stage_solver *s, const double *y, double *out, wb_step_stats *stats)
{
    const int n = s->n;
    wb_mass_solve(s->model, y, y + n, out);
    wb_potential_gradient(s->model, y, out + n);
    wb_kinetic_gradient(s->model, y, y + n, s->work);
    for (int i = 0; i < n; i++)
        out[n + i] = -out[n + i] - s->work[i];
    stats->function_evals++;
}

/* field() as a wb_vector_map, for differencing */
typedef struct field_map {
    stage_solver *solver;
    wb_step_stats *stats;
} field_map;

static void field_at(void *ctx, const double *y, double *out)
{
    field_map *map = ctx;
    field(map->solver, y, out, map->stats);
}

/* J = dF/dy at y, dim x dim.  A constant mass matrix leaves the blocks
 * dq/dp = M^-1 and dp/dq = -Hess V; a configuration-dependent one adds
 * d(M^-1 p)/dq, d^2T/dq^2 and d^2T/dq dp, which the view does not offer:
 * then all but dq/dp come from central differences of the field, whose
 * scratch lies past work[0 .. n), which field() itself uses. */
static void field_jacobian(stage_solver *s, const double *y, double *J, wb_step_stats *stats)
{
    const int n = s->n, dim = s->dim;
    double *unit = s->work, *column = s->work + n, *H = s->work + 2 * n;
    if (s->model->mass_constant) {
        for (int i = 0; i < dim * dim; i++)
            J[i] = 0;
        wb_potential_hessian(s->model, y, H);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                J[(n + i) * dim + j] = -H[i * n + j];
    } else {
        field_map map = {s, stats};
        wb_central_jacobian(field_at, &map, dim, dim, y, H, J);
    }
    for (int j = 0; j < n; j++) { /* dq/dp = M^-1, exactly */
        for (int i = 0; i < n; i++)
            unit[i] = (i == j);
        wb_mass_solve(s->model, y, unit, column);
        for (int i = 0; i < n; i++)
            J[i * dim + n + j] = column[i];
    }
    stats->jacobian_evals++;
}

/* ---- stages ------------------------------------------------------------------------------ */

/* Y = y0 + Z_i */
static void stage_state(stage_solver *s, const double *y0, int i, double *Y)
{
    const double *Zi = s->Z + (size_t)i * s->dim;
    for (int k = 0; k < s->dim; k++)
        Y[k] = y0[k] + Zi[k];
}

/* R_i = Z_i - h sum_j a_ij (F_j restricted to q or p) */
static void residual(stage_solver *s, double h)
{
    const int n = s->n, dim = s->dim, st = s->s;
    for (int i = 0; i < st; i++) {
        double *Ri = s->R + (size_t)i * dim;
        vec_copy(dim, s->Z + (size_t)i * dim, Ri);
        for (int j = 0; j < st; j++) {
            const double *Fj = s->F + (size_t)j * dim;
            vec_axpy(n, -h * s->aq[i * st + j], Fj, Ri);
            vec_axpy(n, -h * s->ap[i * st + j], Fj + n, Ri + n);
        }
    }
}

/* I - h (A (x) J), with the q-rows using a and the p-rows a2; J_j per stage
 * (full Newton) or one J for all (simplified). */
static int newton_matrix(stage_solver *s, double h, int per_stage)
{
    const int n = s->n, dim = s->dim, st = s->s, size = s->size;
    for (int i = 0; i < st; i++)
        for (int j = 0; j < st; j++) {
            const double *Jj = s->J + (per_stage ? (size_t)j * dim * dim : 0);
            for (int r = 0; r < dim; r++) {
                const double a = (r < n ? s->aq : s->ap)[i * st + j];
                double *row = s->matrix + (size_t)(i * dim + r) * size + (size_t)j * dim;
                for (int c = 0; c < dim; c++)
                    row[c] = (i == j && r == c) - h * a * Jj[r * dim + c];
            }
        }
    return s->host->lu_factor(s->host, size, s->matrix, s->pivots);
}

static void evaluate_stages(stage_solver *s, const double *y0, wb_step_stats *stats)
{
    for (int j = 0; j < s->s; j++) {
        stage_state(s, y0, j, s->Y);
        field(s, s->Y, s->F + (size_t)j * s->dim, stats);
    }
}

static int iterate(stage_solver *s, double h, const double *y0, wb_step_stats *stats)
{
    const int size = s->size;
    double previous = INFINITY;
    int status;
    if (s->iteration == ITERATE_SIMPLIFIED) {
        field_jacobian(s, y0, s->J, stats);
        if ((status = newton_matrix(s, h, 0)) != WB_OK)
            return status;
        stats->linear_solves++;
    }
    for (int it = 0; it < s->max_iter; it++) {
        evaluate_stages(s, y0, stats);
        residual(s, h);
        stats->residual_evals++;
        if (s->iteration == ITERATE_NEWTON) {
            for (int j = 0; j < s->s; j++) {
                stage_state(s, y0, j, s->Y);
                field_jacobian(s, s->Y, s->J + (size_t)j * s->dim * s->dim, stats);
            }
            if ((status = newton_matrix(s, h, 1)) != WB_OK)
                return status;
            stats->linear_solves++;
        }
        if (s->iteration != ITERATE_FIXED_POINT) {
            status = s->host->lu_solve(s->host, size, 1, s->matrix, s->pivots, s->R);
            stats->linear_solves++;
            if (status != WB_OK)
                return status;
        }
        double norm = vec_max_abs(size, s->R);
        vec_axpy(size, -1.0, s->R, s->Z);
        stats->newton_iterations++;
        if (!isfinite(norm)) {
            s->host->error(s->host, "stage iteration produced a non-finite increment");
            return WB_ERR_NONFINITE;
        }
        if (wb_iteration_settled(it, norm, previous, s->tol, vec_max_abs(size, s->Z)))
            return WB_OK;
        previous = norm;
    }
    s->host->error(s->host, "stage iteration did not converge in %d iterations (last "
                            "increment %.3e)", s->max_iter, previous);
    return WB_ERR_NEWTON;
}

static void explicit_stages(stage_solver *s, double h, const double *y0, wb_step_stats *stats)
{
    const int n = s->n, dim = s->dim, st = s->s;
    for (int i = 0; i < st; i++) {
        vec_copy(dim, y0, s->Y);
        for (int j = 0; j < i; j++) {
            const double *Fj = s->F + (size_t)j * dim;
            vec_axpy(n, h * s->aq[i * st + j], Fj, s->Y);
            vec_axpy(n, h * s->ap[i * st + j], Fj + n, s->Y + n);
        }
        field(s, s->Y, s->F + (size_t)i * dim, stats);
    }
}

/* The increment y1 - y0 into R[0 .. dim): through d = b^T A^-1 and the
 * final stage increments when A is invertible (no extra evaluations, and
 * exactly consistent with the solved stages), else h sum b_j F(Y_j). */
static void increment(stage_solver *s, double h, const double *y0, wb_step_stats *stats,
                      int fresh_stages)
{
    const int n = s->n, dim = s->dim, st = s->s;
    double *delta = s->R;
    for (int k = 0; k < dim; k++)
        delta[k] = 0;
    if (s->dq) {
        for (int j = 0; j < st; j++) {
            const double *Zj = s->Z + (size_t)j * dim;
            vec_axpy(n, s->dq[j], Zj, delta);
            vec_axpy(n, s->dp[j], Zj + n, delta + n);
        }
        return;
    }
    if (!fresh_stages)
        evaluate_stages(s, y0, stats);
    for (int j = 0; j < st; j++) {
        const double *Fj = s->F + (size_t)j * dim;
        vec_axpy(n, h * s->bq[j], Fj, delta);
        vec_axpy(n, h * s->bp[j], Fj + n, delta + n);
    }
}


int general_increment(stage_solver *s, double h, const double *y0, wb_step_stats *stats)
{
    const int n = s->n, dim = s->dim;
    if (s->explicit_tableau) {
        explicit_stages(s, h, y0, stats);
        increment(s, h, y0, stats, 1);
        return WB_OK;
    }
    field(s, y0, s->F, stats); /* first guess Z_i = h c_i F(y0) */
    for (int i = 0; i < s->s; i++)
        for (int k = 0; k < dim; k++)
            s->Z[(size_t)i * dim + k] = h * (k < n ? s->cq[i] : s->cp[i]) * s->F[k];
    int status = iterate(s, h, y0, stats);
    if (status == WB_OK)
        increment(s, h, y0, stats, 0);
    return status;
}
