/* The projection P onto Q = {g = 0} along the fibres of
 *     iota(q, theta) = q + W G(q)^T theta        (paper (3.2) for W = I)
 * with the normal taken at the foot point q, not at qhat (pitfall 6), so P
 * is computed by Newton on (q, theta) from (qhat, 0) to machine precision
 * (a loose P breaks exact symplecticity and momentum conservation).
 * W = M^-1 gives the mass-weighted foot point instead: both satisfy the
 * paper's conditions on iota (iota(q, 0) = q, Im D_theta iota + ker G = R^N).
 *
 * Differentiating qhat = q + W G(q)^T theta, g(q) = 0 (paper (4.6)):
 *     dqhat = (I + W T(q; theta)) dq + W G^T dtheta,   0 = G dq,
 * so DP = [I 0] K^-1 [I; 0] with K = [[I + W T, W G^T], [G, 0]], and the
 * pull-back of a covector lhat = DP^T l solves K^T [lhat; z] = [l; 0]
 * (paper (4.7), its transpose for W != I). */
#include "variationalize.h"
#include "wb_iteration.h"
#include "wb_residual_scale.h"
#include "wb_vec.h"

#include <workbench/groups/small_matrix.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int vz_projection_init(vz_projection *p, vz_field *field, int weight)
{
    memset(p, 0, sizeof *p);
    p->field = field, p->weight = weight;
    const size_t n = (size_t)field->n, m = (size_t)field->m, k = n + m;
    p->n = (int)n, p->m = (int)m;
    const size_t total = n * n + k * k + k + m * n + n * n + n * m + k * (n + 1);
    double *block = calloc(total, sizeof(double));
    if (!block)
        return WB_ERR_NOMEM;
    p->W = block;
    p->K = p->W + n * n;
    p->r = p->K + k * k;
    p->G = p->r + k;
    p->T = p->G + m * n;
    p->WGt = p->T + n * n;
    p->x = p->WGt + n * m;
    if (weight == VZ_MASS)
        memcpy(p->W, field->Minv, n * n * sizeof(double));
    else
        for (size_t i = 0; i < n; i++)
            p->W[i * n + i] = 1.0;
    return WB_OK;
}

void vz_projection_free(vz_projection *p)
{
    free(p->W);
    p->W = NULL;
}

/* WGt = W G^T (n x m) for the G in p->G. */
static void weighted_normals(vz_projection *p)
{
    const int n = p->n, m = p->m;
    for (int i = 0; i < n; i++)
        for (int a = 0; a < m; a++)
            p->WGt[i * m + a] = vec_dot(n, p->W + (size_t)i * n, p->G + (size_t)a * n);
}

void vz_normal_offset(vz_projection *p, const double *q, const double *theta, double *out)
{
    const int n = p->n, m = p->m;
    if (m == 0) {
        memset(out, 0, (size_t)n * sizeof(double));
        return;
    }
    wb_constraint_jacobian(p->field->model, q, p->G);
    weighted_normals(p);
    mat_vec(n, m, p->WGt, theta, out);
}

/* K = [[I + W T(q; theta), W G^T], [G, 0]] at (q, theta), transposed when
 * `transpose`. */
static void form(vz_projection *p, const double *q, const double *theta, int transpose)
{
    const int n = p->n, m = p->m, k = n + m;
    const wb_model *model = p->field->model;
    wb_constraint_jacobian(model, q, p->G);
    wb_constraint_hessian_contract(model, q, theta, p->T);
    weighted_normals(p);
    double *K = p->K;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            double value;
            if (i < n && j < n) { /* (I + W T)_ij */
                value = (i == j);
                for (int l = 0; l < n; l++)
                    value += p->W[i * n + l] * p->T[l * n + j];
            } else if (i < n) {
                value = p->WGt[i * m + (j - n)];
            } else if (j < n) {
                value = p->G[(i - n) * n + j];
            } else {
                value = 0.0;
            }
            K[transpose ? j * k + i : i * k + j] = value;
        }
}

/* X (k x count, row-major) = K^-1 X, K destroyed */
static int solve(vz_projection *p, int count, double *X)
{
    if (wb_small_solve(p->n + p->m, count, p->K, X) == 0)
        return WB_OK;
    const wb_host *host = p->field->host;
    host->error(host, "variationalize: the projection's matrix [[I + W T, W G^T], [G, 0]] is "
                      "singular (a point too far from the constraint manifold?)");
    return WB_ERR_SINGULAR;
}

int vz_project(vz_projection *p, const double *qhat, double *q, double *theta,
               wb_step_stats *stats)
{
    const int n = p->n, m = p->m, k = n + m;
    const wb_host *host = p->field->host;
    vec_copy(n, qhat, q);
    if (m == 0)
        return WB_OK;
    memset(theta, 0, (size_t)m * sizeof(double));
    /* From far off a small constraint (a rod of 1e-12 reached from 1e-2 away)
     * Newton on a quadratic g only halves the distance per iteration until
     * it is near: log2(1e10) = 33 iterations before the quadratic phase
     * (double_spherical_pendulum, l1 = 1e-12: 57 in all). */
    enum { MAX_ITER = 100 };
    double previous = INFINITY;
    for (int iter = 0; iter < MAX_ITER; iter++) {
        form(p, q, theta, 0);
        /* r = [q + W G^T theta - qhat; g(q)] */
        mat_vec(n, m, p->WGt, theta, p->r);
        for (int i = 0; i < n; i++)
            p->r[i] += q[i] - qhat[i];
        wb_constraints(p->field->model, q, p->r + n);
        int status = solve(p, 1, p->r);
        if (stats)
            stats->linear_solves++;
        if (status != WB_OK)
            return status;
        /* theta's update measured by what it moves q by, |W G^T dtheta|:
         * with constraints of sizes 1e12 apart (four_particles, l34 = 1e12:
         * its column of W G^T is 1e-12) a multiplier is known only to
         * eps |q| / |W G^T|_a, and its raw update (3e7 there) never settled
         * while q's sat at round-off.  As one vector, not column by column:
         * where columns cancel, a combination of multipliers is known only
         * to eps |q| / |W G^T c| (heavy_top, W = M^-1: the external rows'
         * d3 part against (|d3|^2 - 1)/2 leave W G^T c = d3 / (l m), 1e-13
         * at m = 1e12; with W = I, d3 / l at l = 1e4), and the update of
         * that combination (2e-3 of it, |W G^T|_a |dtheta_a| = 6e-4 while q
         * moved by 1e-16) never settled either.  Both against q's own size. */
        if (!isfinite(vec_max_abs(k, p->r))) {
            host->error(host, "variationalize: the projection onto the constraints diverged");
            return WB_ERR_NONFINITE;
        }
        double norm = vec_max_abs(n, p->r), scale = wb_scale_max_abs(n, qhat);
        for (int i = 0; i < n; i++)
            norm = fmax(norm, fabs(vec_dot(m, p->WGt + (size_t)i * m, p->r + n)));
        for (int a = 0; a < m; a++) { /* the round-off of q + W G^T theta: its terms */
            double column = 0.0;
            for (int i = 0; i < n; i++)
                column = fmax(column, fabs(p->WGt[i * m + a]));
            scale = fmax(scale, column * fabs(theta[a]));
        }
        vec_axpy(n, -1.0, p->r, q);
        vec_axpy(m, -1.0, p->r + n, theta);
        if (wb_iteration_settled(iter, norm, previous, 0.0,
                                 fmax(scale, wb_scale_max_abs(n, q))))
            return WB_OK;
        previous = norm;
    }
    host->error(host, "variationalize: the projection onto the constraints did not converge in "
                      "%d Newton iterations", MAX_ITER);
    return WB_ERR_NEWTON;
}

int vz_pull(vz_projection *p, const double *q, const double *theta, int count,
            const double *l, double *lhat)
{
    const int n = p->n, m = p->m, k = n + m;
    if (m == 0) {
        vec_copy(n * count, l, lhat);
        return WB_OK;
    }
    form(p, q, theta, 1);
    for (int i = 0; i < k; i++)
        for (int c = 0; c < count; c++)
            p->x[(size_t)i * count + c] = i < n ? l[(size_t)c * n + i] : 0.0;
    int status = solve(p, count, p->x);
    if (status != WB_OK)
        return status;
    for (int c = 0; c < count; c++)
        for (int i = 0; i < n; i++)
            lhat[(size_t)c * n + i] = p->x[(size_t)i * count + c];
    return WB_OK;
}

int vz_project_velocity(vz_projection *p, const double *q, const double *vhat, double *v)
{
    const int n = p->n, m = p->m, k = n + m;
    vec_copy(n, vhat, v);
    if (m == 0)
        return WB_OK;
    /* [[M, G^T], [G, 0]] [v; nu] = [M vhat; 0] */
    const double *M = p->field->M;
    wb_constraint_jacobian(p->field->model, q, p->G);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            p->K[i * k + j] = i < n && j < n ? M[i * n + j]
                              : i < n        ? p->G[(j - n) * n + i]
                              : j < n        ? p->G[(i - n) * n + j]
                                             : 0.0;
    mat_vec(n, n, M, vhat, p->r);
    memset(p->r + n, 0, (size_t)m * sizeof(double));
    int status = solve(p, 1, p->r);
    if (status != WB_OK)
        return status;
    vec_copy(n, p->r, v);
    return WB_OK;
}

/* Cyclic Jacobi rotations on a copy of M until its off-diagonal part is
 * round-off of its diagonal (quadratic convergence: a few sweeps for the
 * small M of a mechanical model); called once per instance. */
double vz_mass_ratio(int n, const double *M)
{
    if (n <= 0)
        return 1.0;
    double *A = malloc((size_t)n * (size_t)n * sizeof(double));
    if (!A)
        return INFINITY;
    memcpy(A, M, (size_t)n * (size_t)n * sizeof(double));
    enum { MAX_SWEEPS = 64 };
    for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
        double off = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                off = fmax(off, fabs(A[i * n + j]) /
                                    sqrt(fabs(A[i * n + i]) * fabs(A[j * n + j]) + DBL_MIN));
        if (off <= DBL_EPSILON)
            break;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++) {
                const double apq = A[p * n + q];
                if (apq == 0.0)
                    continue;
                const double tau = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
                const double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
                const double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
                for (int k = 0; k < n; k++) { /* columns p, q */
                    const double akp = A[k * n + p], akq = A[k * n + q];
                    A[k * n + p] = c * akp - s * akq;
                    A[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) { /* rows p, q */
                    const double apk = A[p * n + k], aqk = A[q * n + k];
                    A[p * n + k] = c * apk - s * aqk;
                    A[q * n + k] = s * apk + c * aqk;
                }
            }
    }
    double smallest = INFINITY, largest = 0.0;
    for (int i = 0; i < n; i++) {
        smallest = fmin(smallest, A[i * n + i]);
        largest = fmax(largest, A[i * n + i]);
    }
    free(A);
    return smallest > 0.0 && isfinite(largest) ? largest / smallest : INFINITY;
}
