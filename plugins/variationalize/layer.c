/* The standard layer: one Runge-Kutta step of any tableau on the augmented
 * system y = (q, v, S), y' = F(y) = (v, A(q, v), L(q, v)), for a signed
 * step t, with its first derivative with respect to w = (q, v).
 *
 * The derivative is the same Runge-Kutta method applied to the equations
 * of first variation Y' = DF(y) Y, Y(0) = [I; 0] (Hairer-Lubich-Wanner,
 * GNI Lemma VI.4.1; the paper's section 4.1): stage by stage for an
 * explicit tableau; for an implicit one, the stages are solved by Newton
 * with the exact DF, and the variational stages K_i = DF(y_i) Y_i,
 * Y_i = Y0 + t sum_j a_ij K_j, are one linear solve with the Newton matrix
 * I - t (a_ij DF(y_j)) at the converged stages.  S does not feed back
 * (F does not depend on S), so only (q, v) enter the stage systems.
 *
 * derivatives = VZ_FINITE_DIFFERENCE replaces the variational equations by
 * central differences of the step: a test oracle, never the method (a
 * difference inside the integrator's equations would put its error into
 * the discrete Lagrangian, pitfall 8). */
#include "variationalize.h"
#include "wb_fd.h"
#include "wb_iteration.h"
#include "wb_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int vz_layer_init(vz_layer *ly, vz_field *field, const wb_tableau *t, int derivatives)
{
    memset(ly, 0, sizeof *ly);
    ly->field = field, ly->tableau = t;
    const size_t s = (size_t)t->s, n = (size_t)field->n, dim = 2 * n;
    ly->s = t->s, ly->n = (int)n, ly->dim = (int)dim;
    ly->explicit_tableau = mat_strictly_lower(t->s, t->a);
    ly->derivatives = derivatives;
    const size_t sd = s * dim;
    const size_t total = sd + sd + s + s * n * dim + sd + 2 * s * dim * dim + 3 * sd + sd * sd +
                         (2 * dim + 2 * (n + 1)) + (n + 1) * dim;
    double *block = calloc(total, sizeof(double));
    ly->pivots = calloc(sd, sizeof(int));
    if (!block || !ly->pivots) {
        free(block);
        free(ly->pivots);
        ly->pivots = NULL;
        return WB_ERR_NOMEM;
    }
    ly->y = block;
    ly->k = ly->y + sd;
    ly->Ls = ly->k + sd;
    ly->dA = ly->Ls + s;
    ly->dL = ly->dA + s * n * dim;
    ly->Y = ly->dL + sd;
    ly->K = ly->Y + s * dim * dim;
    ly->Z = ly->K + s * dim * dim;
    ly->R = ly->Z + sd;
    ly->dZ = ly->R + sd;
    ly->newton = ly->dZ + sd;
    ly->fd = ly->newton + sd * sd;
    return WB_OK;
}

void vz_layer_free(vz_layer *ly)
{
    free(ly->y);
    free(ly->pivots);
    ly->y = NULL, ly->pivots = NULL;
}

/* F and (with derivatives) DF at stage i from its (q, v) in y_i. */
static int eval_stage(vz_layer *ly, int i, int derivatives, wb_step_stats *stats)
{
    const int n = ly->n, dim = ly->dim;
    const double *yi = ly->y + (size_t)i * dim;
    double *ki = ly->k + (size_t)i * dim;
    vec_copy(n, yi + n, ki); /* q' = v */
    return vz_field_eval(ly->field, yi, yi + n, ki + n, ly->Ls + i,
                         derivatives ? ly->dA + (size_t)i * n * dim : NULL,
                         derivatives ? ly->dL + (size_t)i * dim : NULL, stats);
}

/* K_i = DF_i Y_i: q-rows the v-rows of Y_i, v-rows dA_i Y_i. */
static void variational_field(vz_layer *ly, int i)
{
    const int n = ly->n, dim = ly->dim;
    const double *Yi = ly->Y + (size_t)i * dim * dim;
    double *Ki = ly->K + (size_t)i * dim * dim;
    memcpy(Ki, Yi + (size_t)n * dim, (size_t)n * dim * sizeof(double));
    mat_mul(n, dim, dim, ly->dA + (size_t)i * n * dim, Yi, Ki + (size_t)n * dim);
}

/* Y_i = [I] + t sum_{j < upto} a_ij K_j (all j for an implicit tableau). */
static void stage_derivative(vz_layer *ly, double t, int i, int upto)
{
    const int s = ly->s, dim = ly->dim;
    const double *a = ly->tableau->a;
    double *Yi = ly->Y + (size_t)i * dim * dim;
    memset(Yi, 0, (size_t)dim * dim * sizeof(double));
    for (int r = 0; r < dim; r++)
        Yi[(size_t)r * dim + r] = 1.0;
    for (int j = 0; j < upto; j++) {
        const double c = t * a[i * s + j];
        if (c != 0.0)
            vec_axpy(dim * dim, c, ly->K + (size_t)j * dim * dim, Yi);
    }
}

static int explicit_stages(vz_layer *ly, double t, const double *q, const double *v,
                           int derivatives, wb_step_stats *stats)
{
    const int s = ly->s, n = ly->n, dim = ly->dim;
    const double *a = ly->tableau->a;
    for (int i = 0; i < s; i++) {
        double *yi = ly->y + (size_t)i * dim;
        vec_copy(n, q, yi);
        vec_copy(n, v, yi + n);
        for (int j = 0; j < i; j++)
            if (a[i * s + j] != 0.0)
                vec_axpy(dim, t * a[i * s + j], ly->k + (size_t)j * dim, yi);
        int status = eval_stage(ly, i, derivatives, stats);
        if (status != WB_OK)
            return status;
        if (derivatives) {
            stage_derivative(ly, t, i, i);
            variational_field(ly, i);
        }
    }
    return WB_OK;
}

/* I - t (a_ij DF_j), DF_j = [[0, I], [A_q, A_v]] at the current stages,
 * factored. */
static int factor_stage_matrix(vz_layer *ly, double t)
{
    const int s = ly->s, n = ly->n, dim = ly->dim, size = s * dim;
    const double *a = ly->tableau->a;
    double *N = ly->newton;
    memset(N, 0, (size_t)size * size * sizeof(double));
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) {
            const double c = -t * a[i * s + j];
            const double *dA = ly->dA + (size_t)j * n * dim;
            for (int r = 0; r < dim; r++) {
                double *row = N + (size_t)(i * dim + r) * size + (size_t)j * dim;
                if (i == j)
                    row[r] += 1.0;
                if (c == 0.0)
                    continue;
                if (r < n)
                    row[n + r] += c;
                else
                    vec_axpy(dim, c, dA + (size_t)(r - n) * dim, row);
            }
        }
    const wb_host *host = ly->field->host;
    int status = host->lu_factor(host, size, N, ly->pivots);
    if (status != WB_OK)
        host->error(host, "variationalize: the stage matrix of layer '%s' is singular at t = %g",
                    ly->tableau->name, t);
    return status;
}

static int implicit_stages(vz_layer *ly, double t, const double *q, const double *v,
                           int derivatives, wb_step_stats *stats)
{
    const int s = ly->s, n = ly->n, dim = ly->dim, size = s * dim;
    const double *a = ly->tableau->a;
    const wb_host *host = ly->field->host;
    enum { MAX_ITER = 60 };
    memset(ly->Z, 0, (size_t)size * sizeof(double));
    double previous = INFINITY;
    int settled = 0;
    for (int iter = 0; iter < MAX_ITER && !settled; iter++) {
        for (int i = 0; i < s; i++) {
            double *yi = ly->y + (size_t)i * dim;
            vec_copy(n, q, yi);
            vec_copy(n, v, yi + n);
            vec_axpy(dim, 1.0, ly->Z + (size_t)i * dim, yi);
            int status = eval_stage(ly, i, 1, stats);
            if (status != WB_OK)
                return status;
        }
        for (int i = 0; i < s; i++) {
            double *Ri = ly->R + (size_t)i * dim;
            vec_copy(dim, ly->Z + (size_t)i * dim, Ri);
            for (int j = 0; j < s; j++)
                if (a[i * s + j] != 0.0)
                    vec_axpy(dim, -t * a[i * s + j], ly->k + (size_t)j * dim, Ri);
        }
        int status = factor_stage_matrix(ly, t);
        if (status == WB_OK)
            status = host->lu_solve(host, size, 1, ly->newton, ly->pivots, ly->R);
        if (stats) {
            stats->linear_solves++;
            stats->newton_iterations++;
        }
        if (status != WB_OK)
            return status;
        vec_axpy(size, -1.0, ly->R, ly->Z);
        const double norm = vec_max_abs(size, ly->R);
        if (!isfinite(norm)) {
            host->error(host, "variationalize: layer '%s': non-finite stages at t = %g",
                        ly->tableau->name, t);
            return WB_ERR_NONFINITE;
        }
        settled = wb_iteration_settled(iter, norm, previous, 0.0,
                                       vec_max_abs(size, ly->Z) + vec_max_abs(n, q) +
                                           vec_max_abs(n, v));
        previous = norm;
    }
    if (!settled) {
        host->error(host, "variationalize: the stages of layer '%s' did not converge in %d "
                          "Newton iterations at t = %g", ly->tableau->name, MAX_ITER, t);
        return WB_ERR_NEWTON;
    }
    /* F (and DF) at the converged stages: the step and its derivative */
    for (int i = 0; i < s; i++) {
        double *yi = ly->y + (size_t)i * dim;
        vec_copy(n, q, yi);
        vec_copy(n, v, yi + n);
        vec_axpy(dim, 1.0, ly->Z + (size_t)i * dim, yi);
        int status = eval_stage(ly, i, derivatives, stats);
        if (status != WB_OK)
            return status;
    }
    if (!derivatives)
        return WB_OK;
    int status = factor_stage_matrix(ly, t);
    if (status != WB_OK)
        return status;
    /* right-hand sides: column c of DF_i Y0 = column c of DF_i, stacked over i */
    double *cols = ly->K; /* s dim x dim values, column after column */
    for (int c = 0; c < dim; c++)
        for (int i = 0; i < s; i++)
            for (int r = 0; r < dim; r++) {
                double value;
                if (r < n)
                    value = (c == n + r);
                else
                    value = ly->dA[(size_t)i * n * dim + (size_t)(r - n) * dim + c];
                cols[(size_t)c * size + (size_t)i * dim + r] = value;
            }
    status = host->lu_solve(host, size, dim, ly->newton, ly->pivots, cols);
    if (stats)
        stats->linear_solves++;
    if (status != WB_OK)
        return status;
    /* back to K_i as dim x dim row-major blocks (through Y as scratch) */
    for (int i = 0; i < s; i++)
        for (int r = 0; r < dim; r++)
            for (int c = 0; c < dim; c++)
                ly->Y[(size_t)i * dim * dim + (size_t)r * dim + c] =
                    cols[(size_t)c * size + (size_t)i * dim + r];
    memcpy(ly->K, ly->Y, (size_t)s * dim * dim * sizeof(double));
    for (int i = 0; i < s; i++)
        stage_derivative(ly, t, i, s);
    return WB_OK;
}

/* The step and (derivatives) its Jacobian from the stages. */
static void assemble(vz_layer *ly, double t, const double *q, const double *v, double *q_out,
                     double *v_out, double *S, double *J, double *dS)
{
    const int s = ly->s, n = ly->n, dim = ly->dim;
    const double *b = ly->tableau->b;
    vec_copy(n, q, q_out);
    if (v_out)
        vec_copy(n, v, v_out);
    *S = 0.0;
    for (int i = 0; i < s; i++) {
        const double w = t * b[i];
        if (w == 0.0)
            continue;
        const double *ki = ly->k + (size_t)i * dim;
        vec_axpy(n, w, ki, q_out);
        if (v_out)
            vec_axpy(n, w, ki + n, v_out);
        *S += w * ly->Ls[i];
    }
    if (!J)
        return;
    memset(J, 0, (size_t)n * dim * sizeof(double));
    for (int r = 0; r < n; r++)
        J[(size_t)r * dim + r] = 1.0;
    memset(dS, 0, (size_t)dim * sizeof(double));
    for (int i = 0; i < s; i++) {
        const double w = t * b[i];
        if (w == 0.0)
            continue;
        vec_axpy(n * dim, w, ly->K + (size_t)i * dim * dim, J); /* q-rows of K_i */
        /* dL_i Y_i */
        const double *Yi = ly->Y + (size_t)i * dim * dim, *dLi = ly->dL + (size_t)i * dim;
        for (int r = 0; r < dim; r++)
            if (dLi[r] != 0.0)
                vec_axpy(dim, w * dLi[r], Yi + (size_t)r * dim, dS);
    }
}

static int plain_step(vz_layer *ly, double t, const double *q, const double *v, double *q_out,
                      double *v_out, double *S, double *J, double *dS, wb_step_stats *stats)
{
    const int derivatives = J != NULL;
    int status = ly->explicit_tableau ? explicit_stages(ly, t, q, v, derivatives, stats)
                                      : implicit_stages(ly, t, q, v, derivatives, stats);
    if (status != WB_OK)
        return status;
    assemble(ly, t, q, v, q_out, v_out, S, J, dS);
    return WB_OK;
}

/* ---- the finite-difference oracle ---------------------------------------------------- */

typedef struct fd_context {
    vz_layer *ly;
    double t;
    wb_step_stats *stats;
    int status;
} fd_context;

/* w (2n) -> (R^q (n), R^S) */
static void fd_map(void *ctx, const double *w, double *out)
{
    fd_context *c = ctx;
    const int n = c->ly->n;
    double S = 0.0;
    int status = plain_step(c->ly, c->t, w, w + n, out, NULL, &S, NULL, NULL, c->stats);
    if (status != WB_OK && c->status == WB_OK)
        c->status = status;
    out[n] = S;
}

static int finite_difference_derivatives(vz_layer *ly, double t, const double *q,
                                         const double *v, double *J, double *dS,
                                         wb_step_stats *stats)
{
    const int n = ly->n, dim = ly->dim;
    /* fd: the point w (dim), the differences' scratch (dim + 2 (n + 1)),
     * their Jacobian D ((n + 1) x dim) */
    double *w = ly->fd, *scratch = w + dim, *D = scratch + dim + 2 * (n + 1);
    fd_context c = {ly, t, stats, WB_OK};
    vec_copy(n, q, w);
    vec_copy(n, v, w + n);
    wb_central_jacobian(fd_map, &c, n + 1, dim, w, scratch, D);
    if (c.status != WB_OK)
        return c.status;
    memcpy(J, D, (size_t)n * dim * sizeof(double));
    vec_copy(dim, D + (size_t)n * dim, dS);
    return WB_OK;
}

int vz_layer_step(vz_layer *ly, double t, const double *q, const double *v, double *q_out,
                  double *v_out, double *S, double *J, double *dS, wb_step_stats *stats)
{
    const int n = ly->n, dim = ly->dim;
    if (t == 0.0) { /* R_0 = identity, exactly (pitfall 4) */
        vec_copy(n, q, q_out);
        if (v_out)
            vec_copy(n, v, v_out);
        *S = 0.0;
        if (J) {
            memset(J, 0, (size_t)n * dim * sizeof(double));
            for (int r = 0; r < n; r++)
                J[(size_t)r * dim + r] = 1.0;
            memset(dS, 0, (size_t)dim * sizeof(double));
        }
        return WB_OK;
    }
    if (J && ly->derivatives == VZ_FINITE_DIFFERENCE) {
        int status = finite_difference_derivatives(ly, t, q, v, J, dS, stats);
        if (status != WB_OK)
            return status;
        return plain_step(ly, t, q, v, q_out, v_out, S, NULL, NULL, stats);
    }
    return plain_step(ly, t, q, v, q_out, v_out, S, J, dS, stats);
}
