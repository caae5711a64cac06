/* Stages in (q, p) for any mechanical model: explicit tableaux stage by
 * stage; implicit ones by full Newton, simplified Newton or fixed-point
 * iteration on the stage increments Z_i = (Q_i - q0, P_i - p0) (the
 * iteration itself: stage_solver.c). */
#include "stage_solver_internal.h"
#include "wb_fd.h"
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

/* Z_i = h c_i F(y0) (one evaluation), or when continuing the last step's
 * stage derivatives interpolated at the new nodes: Z_i = h sum_j (a X)_ij
 * F_j (q rows with a, p rows with a2). */
static void guess(stage_solver *s, double h, const double *y0, int continuing,
                  wb_step_stats *stats)
{
    const int n = s->n, dim = s->dim, st = s->s;
    if (continuing) {
        for (int i = 0; i < st; i++) {
            double *Zi = s->Z + (size_t)i * dim;
            for (int k = 0; k < dim; k++)
                Zi[k] = 0;
            for (int j = 0; j < st; j++) {
                const double *Fj = s->history + (size_t)j * dim;
                vec_axpy(n, h * s->AXq[i * st + j], Fj, Zi);
                vec_axpy(n, h * s->AXp[i * st + j], Fj + n, Zi + n);
            }
        }
    } else {
        field(s, y0, s->F, stats);
        for (int i = 0; i < st; i++)
            for (int k = 0; k < dim; k++)
                s->Z[(size_t)i * dim + k] = h * (k < n ? s->cq[i] : s->cp[i]) * s->F[k];
    }
    stage_scale(s->scale, y0, 0, n);
    stage_scale(s->scale, y0, n, n);
}

static int factor(stage_solver *s, double h, const double *y, wb_step_stats *stats)
{
    field_jacobian(s, y, s->J, stats);
    stats->linear_solves++;
    return newton_matrix(s, h, 0);
}

static int sweep(stage_solver *s, double h, const double *y0, int mode, wb_step_stats *stats,
                 double *relative, double *absolute)
{
    const int size = s->size, dim = s->dim;
    int status;
    evaluate_stages(s, y0, stats);
    residual(s, h);
    if (mode == ITERATE_NEWTON) {
        for (int j = 0; j < s->s; j++) {
            stage_state(s, y0, j, s->Y);
            field_jacobian(s, s->Y, s->J + (size_t)j * dim * dim, stats);
        }
        if ((status = newton_matrix(s, h, 1)) != WB_OK)
            return status;
        stats->linear_solves++;
    }
    if (mode != ITERATE_FIXED_POINT) {
        status = s->host->lu_solve(s->host, size, 1, s->matrix, s->pivots, s->R);
        stats->linear_solves++;
        if (status != WB_OK)
            return status;
    }
    double rel = 0, abs = 0;
    for (int i = 0; i < s->s; i++)
        for (int k = 0; k < dim; k++) {
            const double r = s->R[(size_t)i * dim + k], d = fabs(r);
            if (isnan(d) || d > abs)
                abs = d;
            if (isnan(d) || d * s->scale[k] > rel)
                rel = d * s->scale[k];
            s->Z[(size_t)i * dim + k] -= r;
        }
    *relative = rel, *absolute = abs;
    return WB_OK;
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

void general_explicit_increment(stage_solver *s, double h, const double *y0,
                                wb_step_stats *stats)
{
    explicit_stages(s, h, y0, stats);
    increment(s, h, y0, stats, 1);
}

/* The stage derivatives of the last sweep belong to the iterate before its
 * update, equal to the solution to round-off: the next start's history. */
static void finish(stage_solver *s, double h, const double *y0, wb_step_stats *stats)
{
    if (s->extrapolate)
        vec_copy(s->size, s->F, s->history);
    increment(s, h, y0, stats, 0);
}

const stage_path general_path = {guess, factor, sweep, finish};
