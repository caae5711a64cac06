/* The symplectic layer: the discrete Euler-Lagrange equations of the
 * paper's Stage 3, in the reduced form of the digest (section 2.8).
 *
 * Equations (S3.1), (S3.3)-(S3.4), (S3.6), (S3.8) on the w1 side are linear
 * in the multipliers once w1 is known, and their mu is the lambda+ of the
 * previous step, so the layer is a map (qbar, mu) -> (qbar', mu') on T*Q:
 * qbar = d+(w_n) = d-(w_{n+1}) is the junction of two segments at
 * t_n + alpha+ h and mu the momentum there.  One step solves, for
 * x = (q2, v2, lambda+, nu1+, nu2+, theta+) (3N + 3d unknowns),
 *
 *   E1 [2N] DL_h(w2) - lhat+ D dhat+(w2) + muhat D dhat-(w2)
 *           - nu1+ [G(q2), 0] - nu2+ [B(q2; v2), G(q2)]            (S3.2)
 *   E2 [d]  lambda+ G(q2+)^T                                       (S3.8)
 *   E3 [N]  dhat-(w2) - qbar - W G(qbar)^T theta+                  (S3.5)
 *   E4 [2d] g(q2), G(q2) v2                                        (S3.7)
 *
 * with dhat-+(w) = R^q_{h alpha-+}(w), L_h = R^S_{h alpha+} - R^S_{h alpha-},
 * (q2+, theta2+) = P(dhat+(w2)), lhat+ = DP(dhat+(w2))^T lambda+ and
 * muhat = DP(dhat-(w2))^T mu at the projection data (qbar, theta+), which
 * E3 makes those of dhat-(w2).  Then qbar' = q2+, mu' = lambda+.  The rows
 * of E1 that pair with v are O(h): they are divided by h (pitfall 9).
 * Newton's test is relative to the size of each row's terms at the step's
 * start (vz_del_residual_scales: wb_newton_options.residual_scale), so that one
 * tol serves a pendulum of length 1e-12 and of 1e12; the forward
 * differences step relative to the size of (q, v) where it is below 1.
 *
 * Newton's matrix: the columns of (q2, v2) by forward differences of the
 * exact residual (they hold second derivatives of the layer, which the
 * variational equations do not give), the columns of the multipliers and
 * theta+ in closed form.
 *
 * Masses far apart (1e12: double_spherical_pendulum, m2 = 1e-12) make that
 * matrix ill-conditioned: the light point's tangential velocity enters the
 * momentum rows, whose terms are the heavy point's, through terms ~m2 / h^2
 * (with W = I the pulled-back covectors carry the heavy momentum into the
 * light point's rows too), so |J^-1| reaches 1e7 .. 1e12 in those unknowns.
 * Forward differences carry errors ~sqrt(eps) of each row's terms (1e-8
 * against entries of 1e-8 .. 1e-4 there), and the chord iteration keeps the
 * matrix of the guess; either stalls Newton at 1e-12 .. 1e-9 of the terms.
 * So a step the chosen solver fails is retried once from the same guess by
 * full Newton with those columns by Richardson-extrapolated central
 * differences (errors ~eps^(4/5) of the terms, 4 residuals a column): it
 * steps where the first solve does not, and costs nothing where it does.
 *
 * Its accuracy there (issue 13): E2 fixes the momenta's normal part, which
 * the pull-backs annihilate, by G(q2+) W lambda+ = 0 (S3.8 for W = I).
 * With W = I a rod joining the two points then puts the heavy momentum
 * into the light point's components of lambda, which the pull-back
 * cancels again: those rows hold the light momentum only to tol (and eps)
 * of the heavy one, its velocity off by ~tol x the ratio (0.1 at 1e12).
 * With W = M^-1 the light components stay its own size, its momentum rows
 * are tested in its own units (mass_weights) and the start-up solve runs
 * in velocity units, refined (solve_refined): m1 or m2 = 1e-12, 2e-14 ..
 * 3e-12 in its velocity against RATTLE (tests/variationalize/mass_ratio.lua). */
#include "variationalize.h"
#include "wb_array.h"
#include "wb_residual_scale.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- set-up ------------------------------------------------------------------------- */

static int allocate_ends(vz_ends *e, int n)
{
    const size_t dim = 2 * (size_t)n;
    double *block = calloc(2 * (n + n * dim + dim), sizeof(double));
    if (!block)
        return WB_ERR_NOMEM;
    e->qm = block;
    e->Jm = e->qm + n;
    e->dSm = e->Jm + n * dim;
    e->qp = e->dSm + dim;
    e->Jp = e->qp + n;
    e->dSp = e->Jp + n * dim;
    return WB_OK;
}

void vz_del_destroy(vz_del *del)
{
    if (!del)
        return;
    vz_stage4_destroy(del);
    if (del->newton)
        del->host->newton_destroy(del->host, del->newton);
    vz_layer_free(&del->plus);
    vz_layer_free(&del->minus);
    vz_projection_free(&del->proj);
    vz_field_free(&del->field);
    free(del->ends.qm);
    free(del->ends0.qm);
    free(del->qbar);
    free(del->init_pivots);
    free(del);
}

/* The weight of coordinate i's momentum rows in the Newton test: with W =
 * M^-1 its mass relative to the largest (row sums of |M|), times a slack
 * of 16, capped at 1.  Those rows then hold the light point's momentum to
 * tol x 16 of its own (velocity units), not to tol of the heavy point's,
 * which left its velocity off by tol x (mass ratio) (issue 13).  The slack:
 * their round-off floor is 2 .. 4 tol (tol = 1e-13) of their terms,
 * whatever the ratio (1e-6 .. 1e-12, double_spherical_pendulum), above the
 * 64 eps at which Newton's test would accept a stalled residual.  With W =
 * I every weight is 1: the pull-back (GG^T)^-1 G lambda carries the heavy
 * momentum into the light point's rows, whose floor is then eps x that
 * momentum (see the top of the file).  solver = "approximate" takes the
 * same weights: its Stage 4 rows reach them since its gauge rows are
 * G W lambda = 0 as E2 (stage4.c, gauge_rows; before, with G lambda = 0,
 * they stalled above them and it kept weights of 1, its light velocity off
 * by ~tol x the ratio). */
enum { VZ_LIGHT_ROW_SLACK = 16 };

static void mass_weights(vz_del *del)
{
    const int n = del->n;
    const double *M = del->field.M;
    double largest = 0.0;
    if (del->opt.weight != VZ_MASS) {
        for (int i = 0; i < n; i++)
            del->mass_weight[i] = del->mass_scale[i] = 1.0, del->mass_row[i] = 0.0;
        return;
    }
    for (int i = 0; i < n; i++) {
        double row = 0.0;
        for (int j = 0; j < n; j++)
            row += fabs(M[(size_t)i * n + j]);
        del->mass_weight[i] = del->mass_row[i] = row;
        largest = fmax(largest, row);
    }
    for (int i = 0; i < n; i++)
        del->mass_scale[i] = largest > 0.0 && del->mass_weight[i] > 0.0
                                 ? del->mass_weight[i] / largest : 1.0;
    for (int i = 0; i < n; i++)
        del->mass_weight[i] = largest > 0.0 && del->mass_weight[i] > 0.0
                                  ? fmin(1.0, VZ_LIGHT_ROW_SLACK * del->mass_weight[i] / largest)
                                  : 1.0;
}

/* projection = "auto": W = I (the paper's (3.2)) up to VZ_MASS_RATIO_LIMIT,
 * W = M^-1 above it; an explicit W = I above it is refused, since it would
 * give the light point's velocity off by ~tol x the ratio with no message.
 * Without constraints W plays no part (iota = id, no gauge) and W = I
 * stays, whatever the masses. */
static int resolve_weight(vz_del *del)
{
    const wb_host *host = del->host;
    del->mass_ratio = vz_mass_ratio(del->n, del->field.M);
    const int beyond = del->m > 0 && !(del->mass_ratio <= VZ_MASS_RATIO_LIMIT);
    if (del->opt.weight == VZ_AUTO) {
        del->opt.weight = beyond ? VZ_MASS : VZ_ORTHOGONAL;
        host->log(host, WB_LOG_INFO, "vi on model '%s': projection = auto is '%s' (mass ratio "
                  "%.3g, %s the limit %g)", del->model->name,
                  beyond ? "mass" : "orthogonal", del->mass_ratio, beyond ? "above" : "within",
                  VZ_MASS_RATIO_LIMIT);
    } else if (del->opt.weight == VZ_ORTHOGONAL && beyond) {
        host->error(host, "vi: projection = 'orthogonal' (W = I, the paper's (3.2)) on model "
                          "'%s' with mass ratio %.3g (largest over smallest eigenvalue of M) "
                          "above %g, where it holds the light points' velocities only to "
                          "~tol x the ratio; use projection = 'mass' (or 'auto', the default, "
                          "which takes it there)", del->model->name, del->mass_ratio,
                    VZ_MASS_RATIO_LIMIT);
        return WB_ERR_INVALID;
    }
    return WB_OK;
}

int vz_del_create(const wb_host *host, const wb_model *model, const vz_options *opt,
                  vz_del **out)
{
    vz_del *del = calloc(1, sizeof *del);
    if (!del)
        goto nomem;
    del->host = host, del->model = model, del->opt = *opt;
    const int n = model->nq, m = model->n_holonomic;
    del->n = n, del->m = m, del->dim = 2 * n, del->nx = 3 * n + 3 * m;
    if (vz_field_init(&del->field, host, model) != WB_OK)
        goto nomem;
    int status = resolve_weight(del);
    if (status != WB_OK) {
        vz_del_destroy(del);
        return status;
    }
    if (vz_layer_init(&del->plus, &del->field, opt->layer, opt->derivatives) != WB_OK ||
        vz_layer_init(&del->minus, &del->field, opt->layer_minus, opt->derivatives) != WB_OK ||
        vz_projection_init(&del->proj, &del->field, del->opt.weight) != WB_OK ||
        allocate_ends(&del->ends, n) != WB_OK || allocate_ends(&del->ends0, n) != WB_OK)
        goto nomem;
    const size_t N = (size_t)n, M = (size_t)m, nx = (size_t)del->nx, ni = 2 * N + 2 * M;
    struct {
        double **array;
        size_t count;
    } parts[] = {
        {&del->qbar, N},    {&del->mu, N},       {&del->mu_prev, N}, {&del->nu1, M + 1},
        {&del->nu2, M + 1}, {&del->theta, M + 1}, {&del->x, nx},     {&del->r, nx},
        {&del->x_last, nx}, {&del->q2p, N},       {&del->th2p, M + 1}, {&del->lhat, N},
        {&del->muhat, N},   {&del->G2, M * N + 1}, {&del->B2, M * N + 1},
        {&del->Gbar, M * N + 1}, {&del->Gp, M * N + 1}, {&del->DPt, N * N},
        {&del->dmu, M * N + 1}, {&del->Ha, N * N}, {&del->r_shift, nx}, {&del->x_shift, nx},
        {&del->v1buf, N},   {&del->vtmp, 2 * N}, {&del->r_base, nx}, {&del->wmu, N},
        {&del->rhs_n, N},   {&del->unit_m, M + 1}, {&del->residual_scale, nx}, {&del->mass_weight, N}, {&del->mass_scale, N}, {&del->mass_row, N},
        {&del->init_matrix, ni * ni}, {&del->init_copy, ni * ni + 3 * ni},
        {&del->init_rhs, ni}, {&del->q0m, N}, {&del->th0m, M + 1}, {&del->q0p, N},
        {&del->th0p, M + 1}, {&del->DPm, N * N}, {&del->DPp, N * N},
        {&del->r_minus, nx}, {&del->r_half_plus, nx}, {&del->r_half_minus, nx},
        {&del->x_guess, nx},
    };
    size_t total = 0;
    for (size_t i = 0; i < WB_ARRAY_COUNT(parts); i++)
        total += parts[i].count;
    double *block = calloc(total, sizeof(double));
    del->init_pivots = calloc(ni + 1, sizeof(int));
    if (!block || !del->init_pivots) {
        free(block);
        goto nomem;
    }
    for (size_t i = 0; i < WB_ARRAY_COUNT(parts); i++) {
        *parts[i].array = block;
        block += parts[i].count;
    }
    mass_weights(del);
    if (!(del->newton = host->newton_create(host, del->nx)))
        goto nomem;
    if (opt->solver == VZ_APPROXIMATE && vz_stage4_create(del) != WB_OK)
        goto nomem;
    *out = del;
    return WB_OK;
nomem:
    vz_del_destroy(del);
    host->error(host, "variationalize: out of memory");
    return WB_ERR_NOMEM;
}

/* ---- the segment ends ------------------------------------------------------------------ */

int vz_del_ends(vz_del *del, vz_ends *e, double h, const double *q, const double *v,
                int derivatives)
{
    int status = vz_layer_step(&del->minus, h * del->opt.alpha_minus, q, v, e->qm, NULL,
                               &e->Sm, derivatives ? e->Jm : NULL, e->dSm, del->stats);
    if (status != WB_OK)
        return status;
    return vz_layer_step(&del->plus, h * del->opt.alpha_plus, q, v, e->qp, NULL, &e->Sp,
                         derivatives ? e->Jp : NULL, e->dSp, del->stats);
}

int vz_del_predict(vz_del *del, double h, const double *q1, const double *v1, double *q2,
                   double *v2)
{
    double S;
    return vz_layer_step(&del->plus, h, q1, v1, q2, v2, &S, NULL, NULL, del->stats);
}

/* ---- the start-up solve --------------------------------------------------------------- */

/* The rows of DP^T at projection data (q, theta): row c = DP^T e_c. */
static int pull_identity(vz_del *del, const double *q, const double *theta, double *rows)
{
    const int n = del->n;
    memset(rows, 0, (size_t)n * n * sizeof(double));
    for (int c = 0; c < n; c++)
        rows[c * n + c] = 1.0;
    return vz_pull(&del->proj, q, theta, n, rows, rows);
}

/* (G W)_ac: the momenta's gauge G(q) W lambda = 0 (S3.8 with W = I) fixes
 * their normal part, which the pull-backs DP^T annihilate, so that
 * DP^T lambda = lambda on Q: with W = M^-1 the light point's components
 * of lambda stay its own size instead of carrying the heavy point's
 * momentum along a rod that joins them (issue 13). */
double vz_weighted_normal(const vz_del *del, const double *G, int a, int c)
{
    const int n = del->n;
    const double *W = del->proj.W;
    double sum = 0.0;
    for (int k = 0; k < n; k++)
        sum += G[(size_t)a * n + k] * W[(size_t)k * n + c];
    return sum;
}

/* x = A^-1 b (A: ni x ni, destroyed; b overwritten by x), equilibrated,
 * with two rounds of iterative refinement.  With W = M^-1 at masses far
 * apart the start-up system's rows span the mass ratio even in velocity
 * units (the nu columns are not scaled), and one elimination left the
 * light point's mu off by ~0.1 eps x the ratio: with m2 light, its
 * velocity off by 1.4e-5 at a ratio of 1e12 (7.7e-11 at 1e6) after the
 * first step, whatever tol and solver, the source of what 85f03f1 left
 * open (issue 13).  Refined (residuals in double): 3.2e-12 at 1e12, at
 * most 1.1e-11 (at 1e6) from 1e4 to 1e12 (double_spherical_pendulum
 * h = 3.5e-5, against RATTLE at h/10); with the scaling below 7.6e-12 at
 * 1e12, at most 1.2e-11 (at 1e8): the same floor.
 *
 * Refinement alone does not reach a system whose entries span 1e-16 ..
 * 1e32 (heavy_top at m = 1e12: the director rows in velocity units carry
 * G and B(q; v) with v = 2e14 into the nu columns, the gauge rows are
 * 1e-12 .. 1e-16): there its corrections grew, and mu came out with a
 * relative error of 4e-10 .. 9e-9 that every later step kept as an
 * energy offset of that size (h = 5e-16 .. 5e-18).  So the columns of
 * nu1, nu2 and the gauge rows, which the mass scaling leaves in their own
 * units, are each scaled by a power of two (the scaling rounds nothing)
 * to a largest entry in [1/2, 1) first: energy error 1e-15 there at every
 * h.  The momentum rows and columns keep the velocity units: equilibrated
 * too, the light point of double_spherical_pendulum at m2 = 1e12, h =
 * 3.5e-9 came out off by 2.7e-4 of its velocity (the accuracy survey).
 * W = I takes the same solve: with one elimination heavy_top at l = 1e4,
 * i1 = i2 = i3 = 1 (mass ratio 1.4) kept an energy offset of 4 .. 8e-9 at
 * every h from 2.45e-9 to 6e-11 (1e-15 with this solve); the paper's own
 * numbers move in their last digits only. */
/* Rows and columns from `first` on scaled to a largest entry in [1/2, 1);
 * column_scale (ni values) to multiply the solution by. */
static void equilibrate(int ni, int first, double *A, double *b, double *column_scale)
{
    for (int r = first; r < ni; r++) {
        double largest = 0.0;
        for (int c = 0; c < ni; c++)
            largest = fmax(largest, fabs(A[(size_t)r * ni + c]));
        int exponent = 0;
        if (largest > 0.0 && isfinite(largest))
            frexp(largest, &exponent);
        for (int c = 0; c < ni; c++)
            A[(size_t)r * ni + c] = ldexp(A[(size_t)r * ni + c], -exponent);
        b[r] = ldexp(b[r], -exponent);
    }
    for (int c = 0; c < ni; c++) {
        int exponent = 0;
        if (c >= first) {
            double largest = 0.0;
            for (int r = 0; r < ni; r++)
                largest = fmax(largest, fabs(A[(size_t)r * ni + c]));
            if (largest > 0.0 && isfinite(largest))
                frexp(largest, &exponent);
            for (int r = 0; r < ni; r++)
                A[(size_t)r * ni + c] = ldexp(A[(size_t)r * ni + c], -exponent);
        }
        column_scale[c] = ldexp(1.0, -exponent);
    }
}

static int solve_refined(vz_del *del, int ni, double *A, double *b)
{
    const wb_host *host = del->host;
    double *A0 = del->init_copy, *b0 = A0 + (size_t)ni * ni, *correction = b0 + ni;
    double *column_scale = correction + ni;
    equilibrate(ni, 2 * del->n, A, b, column_scale);
    memcpy(A0, A, (size_t)ni * ni * sizeof(double));
    memcpy(b0, b, (size_t)ni * sizeof(double));
    int status = host->lu_factor(host, ni, A, del->init_pivots);
    if (status == WB_OK)
        status = host->lu_solve(host, ni, 1, A, del->init_pivots, b);
    for (int round = 0; round < 2 && status == WB_OK; round++) {
        for (int r = 0; r < ni; r++)
            correction[r] = b0[r] - vec_dot(ni, A0 + (size_t)r * ni, b);
        status = host->lu_solve(host, ni, 1, A, del->init_pivots, correction);
        if (status == WB_OK)
            vec_axpy(ni, 1.0, correction, b);
    }
    for (int c = 0; c < ni; c++)
        b[c] *= column_scale[c];
    return status;
}

/* Solve DL_h(w0) = lambda- DP- Jhat- + mu DP+ Jhat+ + nu1 C1(q0) + nu2 C2(q0, v0),
 * lambda- G(q0-)^T = 0, mu G(qbar)^T = 0 (linear, 2N + 2d unknowns). */
int vz_del_start(vz_del *del, double h, const double *q, const double *v)
{
    const int n = del->n, m = del->m, dim = del->dim, ni = 2 * n + 2 * m;
    const wb_host *host = del->host;
    vz_ends *e = &del->ends0;
    del->h = h;
    int status = vz_del_ends(del, e, h, q, v, 1);
    if (status == WB_OK)
        status = vz_project(&del->proj, e->qm, del->q0m, del->th0m, del->stats);
    if (status == WB_OK)
        status = vz_project(&del->proj, e->qp, del->q0p, del->th0p, del->stats);
    if (status == WB_OK)
        status = pull_identity(del, del->q0m, del->th0m, del->DPm);
    if (status == WB_OK)
        status = pull_identity(del, del->q0p, del->th0p, del->DPp);
    if (status != WB_OK)
        return status;
    double *A = del->init_matrix, *b = del->init_rhs;
    memset(A, 0, (size_t)ni * ni * sizeof(double));
    double *column = del->vtmp;
    for (int c = 0; c < n; c++) {
        vz_covector_times(n, dim, del->DPm + (size_t)c * n, e->Jm, column);
        for (int r = 0; r < dim; r++)
            A[r * ni + c] = column[r];
        vz_covector_times(n, dim, del->DPp + (size_t)c * n, e->Jp, column);
        for (int r = 0; r < dim; r++)
            A[r * ni + n + c] = column[r];
    }
    if (m > 0) {
        wb_constraint_jacobian(del->model, q, del->G2);
        wb_constraint_hessian_vector(del->model, q, v, del->B2);
        for (int a = 0; a < m; a++)
            for (int i = 0; i < n; i++) {
                A[i * ni + 2 * n + a] = del->G2[a * n + i];          /* nu1 C1, q-part */
                A[i * ni + 2 * n + m + a] = del->B2[a * n + i];      /* nu2 C2, q-part */
                A[(n + i) * ni + 2 * n + m + a] = del->G2[a * n + i]; /*        v-part */
            }
        wb_constraint_jacobian(del->model, del->q0m, del->Gbar);
        wb_constraint_jacobian(del->model, del->q0p, del->Gp);
        for (int a = 0; a < m; a++)
            for (int i = 0; i < n; i++) {
                A[(dim + a) * ni + i] = vz_weighted_normal(del, del->Gbar, a, i);
                A[(dim + m + a) * ni + n + i] = vz_weighted_normal(del, del->Gp, a, i);
            }
    }
    for (int r = 0; r < dim; r++)
        b[r] = e->dSp[r] - e->dSm[r];
    for (int r = dim; r < ni; r++)
        b[r] = 0.0;
    /* with W = M^-1, in velocity units: the rows of coordinate i divided by
     * its relative mass, the momenta's columns multiplied by it (issue 13:
     * else the pivoting resolves a light point's momentum to eps of the
     * heavy one's); with W = I the scales are 1 */
    const double *mass = del->mass_scale;
    for (int r = 0; r < dim; r++) {
        const double row = 1.0 / mass[r % n];
        b[r] *= row;
        for (int c = 0; c < ni; c++)
            A[r * ni + c] *= row;
    }
    for (int r = 0; r < ni; r++)
        for (int c = 0; c < dim; c++)
            A[r * ni + c] *= mass[c % n];
    status = solve_refined(del, ni, A, b);
    for (int c = 0; c < dim; c++)
        b[c] *= mass[c % n];
    if (del->stats)
        del->stats->linear_solves++;
    if (status != WB_OK) {
        host->error(host, "vi: the start-up system for mu is singular: (D d-, D d+) is not "
                          "invertible on T_w TQ at this h (h too large for the bias?)");
        return status;
    }
    vec_copy(n, del->q0p, del->qbar);
    vec_copy(n, b + n, del->mu);
    vec_copy(n, del->mu, del->mu_prev);
    memset(del->nu1, 0, (size_t)m * sizeof(double));
    memset(del->nu2, 0, (size_t)m * sizeof(double));
    memset(del->theta, 0, (size_t)m * sizeof(double));
    return WB_OK;
}

/* ---- the residual -------------------------------------------------------------------------- */

enum { OFF_Q = 0 };
#define OFF_V(d) ((d)->n)
#define OFF_L(d) (2 * (d)->n)
#define OFF_N1(d) (3 * (d)->n)
#define OFF_N2(d) (3 * (d)->n + (d)->m)
#define OFF_TH(d) (3 * (d)->n + 2 * (d)->m)

static int del_residual(void *user, const double *x, double *r)
{
    vz_del *del = user;
    const int n = del->n, m = del->m, dim = del->dim;
    const double h = del->h;
    const double *q2 = x, *v2 = x + OFF_V(del), *lam = x + OFF_L(del);
    const double *nu1 = x + OFF_N1(del), *nu2 = x + OFF_N2(del), *th = x + OFF_TH(del);
    vz_ends *e = &del->ends;
    memset(del->x_last, 0, (size_t)del->nx * sizeof(double)); /* stale until the end */
    del->x_last[0] = NAN;
    int status = vz_del_ends(del, e, h, q2, v2, 1);
    if (status == WB_OK)
        status = vz_project(&del->proj, e->qp, del->q2p, del->th2p, del->stats);
    if (status == WB_OK)
        status = vz_pull(&del->proj, del->q2p, del->th2p, 1, lam, del->lhat);
    if (status == WB_OK)
        status = vz_pull(&del->proj, del->qbar, th, 1, del->mu, del->muhat);
    if (status != WB_OK) {
        del->evaluation_failed = 1;
        return status;
    }
    /* E1 */
    double *E1 = r, *work = del->vtmp;
    for (int j = 0; j < dim; j++)
        E1[j] = e->dSp[j] - e->dSm[j];
    vz_covector_times(n, dim, del->lhat, e->Jp, work);
    vec_axpy(dim, -1.0, work, E1);
    vz_covector_times(n, dim, del->muhat, e->Jm, work);
    vec_axpy(dim, 1.0, work, E1);
    double *E2 = r + dim, *E3 = E2 + m, *E4 = E3 + n;
    if (m > 0) {
        wb_constraint_jacobian(del->model, q2, del->G2);
        wb_constraint_hessian_vector(del->model, q2, v2, del->B2);
        for (int a = 0; a < m; a++) {
            vec_axpy(n, -nu1[a], del->G2 + (size_t)a * n, E1);
            vec_axpy(n, -nu2[a], del->B2 + (size_t)a * n, E1);
            vec_axpy(n, -nu2[a], del->G2 + (size_t)a * n, E1 + n);
        }
        wb_constraint_jacobian(del->model, del->q2p, del->Gp);
        mat_vec(n, n, del->proj.W, lam, del->wmu);
        mat_vec(m, n, del->Gp, del->wmu, E2);
        wb_constraints(del->model, q2, E4);
        mat_vec(m, n, del->G2, v2, E4 + m);
    }
    for (int j = n; j < dim; j++)
        E1[j] /= h;
    /* E3 = dhat-(w2) - qbar - W G(qbar)^T theta+ */
    vz_normal_offset(&del->proj, del->qbar, th, E3);
    for (int i = 0; i < n; i++)
        E3[i] = e->qm[i] - del->qbar[i] - E3[i];
    if (!vec_all_finite(del->nx, r)) {
        del->host->error(del->host, "vi: non-finite residual of the discrete Euler-Lagrange "
                                    "equations");
        del->evaluation_failed = 1;
        return WB_ERR_NONFINITE;
    }
    vec_copy(del->nx, x, del->x_last);
    if (r != del->r)
        vec_copy(del->nx, r, del->r); /* the residual at x_last, for the Jacobian */
    return WB_OK;
}

/* The closed-form columns at x (whose residual is current): lambda+, nu1+,
 * nu2+, theta+. */
static int analytic_columns(vz_del *del, const double *x, double *J)
{
    const int n = del->n, m = del->m, dim = del->dim, nx = del->nx;
    const double h = del->h;
    const double *th = x + OFF_TH(del);
    vz_ends *e = &del->ends;
    double *column = del->vtmp;
    int status = pull_identity(del, del->q2p, del->th2p, del->DPt);
    if (status != WB_OK)
        return status;
    for (int c = 0; c < n; c++) {
        const int col = OFF_L(del) + c;
        vz_covector_times(n, dim, del->DPt + (size_t)c * n, e->Jp, column);
        for (int r = 0; r < dim; r++)
            J[r * nx + col] = -column[r] / (r < n ? 1.0 : h);
        for (int a = 0; a < m; a++)
            J[(dim + a) * nx + col] = vz_weighted_normal(del, del->Gp, a, c);
    }
    for (int a = 0; a < m; a++) {
        const int c1 = OFF_N1(del) + a, c2 = OFF_N2(del) + a;
        for (int i = 0; i < n; i++) {
            J[i * nx + c1] = -del->G2[a * n + i];
            J[i * nx + c2] = -del->B2[a * n + i];
            J[(n + i) * nx + c2] = -del->G2[a * n + i] / h;
        }
    }
    if (m == 0)
        return WB_OK;
    /* theta+: d muhat / d theta_a = -K^-T [H_a(qbar) W muhat; 0]; E3: -W G(qbar)^T */
    const double *W = del->proj.W;
    double *unit = del->unit_m, *Wmu = del->wmu, *rhs = del->rhs_n;
    mat_vec(n, n, W, del->muhat, Wmu);
    for (int a = 0; a < m; a++) {
        for (int b = 0; b < m; b++)
            unit[b] = (a == b);
        wb_constraint_hessian_contract(del->model, del->qbar, unit, del->Ha);
        mat_vec(n, n, del->Ha, Wmu, rhs);
        for (int i = 0; i < n; i++)
            rhs[i] = -rhs[i];
        status = vz_pull(&del->proj, del->qbar, th, 1, rhs, del->dmu + (size_t)a * n);
        if (status != WB_OK)
            return status;
    }
    for (int a = 0; a < m; a++) {
        const int col = OFF_TH(del) + a;
        vz_covector_times(n, dim, del->dmu + (size_t)a * n, e->Jm, column);
        for (int r = 0; r < dim; r++)
            J[r * nx + col] = column[r] / (r < n ? 1.0 : h);
        for (int b = 0; b < m; b++)
            unit[b] = (a == b);
        vz_normal_offset(&del->proj, del->qbar, unit, rhs);
        for (int i = 0; i < n; i++)
            J[(dim + m + i) * nx + col] = -rhs[i];
    }
    return WB_OK;
}

/* The residual at x_shift with its entry j at x_j + delta (the actual
 * shift returned in *actual), x_shift restored. */
static int shifted_residual(vz_del *del, int j, double delta, double *r, double *actual)
{
    const double saved = del->x_shift[j];
    del->x_shift[j] = saved + delta;
    *actual = del->x_shift[j] - saved;
    const int status = del_residual(del, del->x_shift, r);
    if (del->stats)
        del->stats->residual_evals++;
    del->x_shift[j] = saved;
    return status;
}

/* Column j of J by a forward difference from r_base: step sqrt(eps) of
 * max(unit, |x_j|), error ~sqrt(eps) of each row's terms. */
static int forward_column(vz_del *del, int j, double unit, double *J)
{
    const int nx = del->nx;
    double up;
    const int status = shifted_residual(
        del, j, sqrt(DBL_EPSILON) * fmax(unit, fabs(del->x_shift[j])), del->r_shift, &up);
    if (status != WB_OK)
        return status;
    for (int i = 0; i < nx; i++)
        J[i * nx + j] = (del->r_shift[i] - del->r_base[i]) / up;
    return WB_OK;
}

/* Column j of J by central differences at steps delta and delta / 2,
 * Richardson-extrapolated ((4 D(delta/2) - D(delta)) / 3: truncation
 * O(delta^4)); delta = eps^(1/5) max(unit, |x_j|) balances that against
 * the round-off, eps / delta: errors ~eps^(4/5) of each row's terms. */
static int extrapolated_column(vz_del *del, int j, double unit, double *J)
{
    const int nx = del->nx;
    const double delta = pow(DBL_EPSILON, 0.2) * fmax(unit, fabs(del->x_shift[j]));
    double up, down, half_up, half_down;
    int status = shifted_residual(del, j, delta, del->r_shift, &up);
    if (status == WB_OK)
        status = shifted_residual(del, j, -delta, del->r_minus, &down);
    if (status == WB_OK)
        status = shifted_residual(del, j, 0.5 * delta, del->r_half_plus, &half_up);
    if (status == WB_OK)
        status = shifted_residual(del, j, -0.5 * delta, del->r_half_minus, &half_down);
    if (status != WB_OK)
        return status;
    const double span = up - down, half_span = half_up - half_down;
    for (int i = 0; i < nx; i++) {
        const double wide = (del->r_shift[i] - del->r_minus[i]) / span;
        const double narrow = (del->r_half_plus[i] - del->r_half_minus[i]) / half_span;
        J[i * nx + j] = (4.0 * narrow - wide) / 3.0;
    }
    return WB_OK;
}

/* A row's round-off floor is also that of the unknowns it is evaluated
 * at: x_j known to eps |x_j| moves row i by eps sum_j |J_ij| |x_j|.
 * Where that exceeds the size of the row's own terms (residual_scale) the
 * row stalls above Newton's test, which then fails a step whose solution
 * is as good as double precision gives: tethered_satellites l = 0.01,
 * positions 20 with tethers 0.01, the momentum rows' terms 2.2 but each
 * moving by |p| / l x eps |q| (the pull-backs' curvature): stalled at
 * 3.3e-13 against a floor of 8.9e-13 (issue 13).  So each row's scale is
 * raised to a quarter of sum_j |J_ij| |x_j| (Newton accepts a stalled row
 * within 64 eps x its scale: 16 x that floor) where that is the larger;
 * elsewhere (sum_j |J_ij| |x_j| within 4 x the row's terms, as for every
 * model at its default parameters) nothing changes. */
static void unknowns_round_off(vz_del *del, const double *x, const double *J)
{
    const int nx = del->nx;
    for (int i = 0; i < nx; i++) {
        double moved = 0.0;
        for (int j = 0; j < nx; j++)
            moved += fabs(J[(size_t)i * nx + j] * x[j]);
        if (isfinite(moved))
            del->residual_scale[i] = fmax(del->residual_scale[i], 0.25 * moved);
    }
}

/* Newton's matrix at x: closed-form columns, then forward differences in
 * (q2, v2) (the residuals they evaluate leave the cached state stale). */
static int del_jacobian(void *user, const double *x, double *J)
{
    vz_del *del = user;
    const int nx = del->nx, dim = del->dim;
    int status = WB_OK;
    if (!vec_equal(nx, x, del->x_last)) {
        status = del_residual(del, x, del->r);
        if (del->stats)
            del->stats->residual_evals++;
        if (status != WB_OK)
            return status;
    }
    memset(J, 0, (size_t)nx * nx * sizeof(double));
    if (del->opt.jacobian == VZ_JACOBIAN_MIXED) {
        status = analytic_columns(del, x, J);
        if (status != WB_OK) {
            del->evaluation_failed = 1;
            return status;
        }
    }
    const int fd_columns = del->opt.jacobian == VZ_JACOBIAN_MIXED ? dim : nx;
    vec_copy(nx, del->r, del->r_base);
    vec_copy(nx, x, del->x_shift);
    for (int j = 0; j < fd_columns; j++) {
        const double unit = j < del->n ? del->fd_size[0] : j < dim ? del->fd_size[1] : 1.0;
        status = del->extrapolated ? extrapolated_column(del, j, unit, J)
                                   : forward_column(del, j, unit, J);
        if (status != WB_OK)
            return status;
    }
    unknowns_round_off(del, x, J);
    return WB_OK;
}

/* ---- the step ------------------------------------------------------------------------------- */

/* The size of the terms each residual row is made of at w1 = (q1, v1) (max
 * norms): E1's rows (both halves: the v half is divided by h) balance
 * momenta, dS+ - dS- - lhat+ J+ + muhat J-: 2 (|mu| + h |grad V(q1)|) +
 * 2 |mu|, plus the multipliers' terms |G^T nu1|, |B^T nu2| and
 * |G^T nu2| / h at the carried nu; E2 = G(q2+) lambda+ the
 * rows of G times that momentum; E3 joins positions, |q| + h |v|; E4 the
 * rows of G times |q1| (g) and times |v1| + h |M^-1 grad V| (G v). */
void vz_del_residual_scales(vz_del *del, double h, const double *q1, const double *v1)
{
    const int n = del->n, m = del->m, dim = del->dim;
    double *s = del->residual_scale, *grad = del->vtmp, *accel = del->vtmp + n;
    /* dS+ and dS- (each |p| + h |grad V|), lhat+ J+ and muhat J- (each |mu|) */
    double momentum = 2.0 * wb_momentum_scale(del->model, q1, del->mu, h, grad, del->stats) +
                      2.0 * wb_scale_max_abs(n, del->mu);
    mat_vec(n, n, del->field.Minv, grad, accel);
    const double velocity = wb_scale_max_abs(n, v1) + fabs(h) * wb_scale_max_abs(n, accel);
    const double q_size = fmax(wb_scale_max_abs(n, q1), wb_scale_max_abs(n, del->qbar));
    double multipliers = 0.0;
    if (m > 0) {
        wb_constraint_jacobian(del->model, q1, del->G2);
        wb_constraint_hessian_vector(del->model, q1, v1, del->B2);
    }
    for (int i = 0; i < n && m > 0; i++) {
        double q_row = 0.0, v_row = 0.0;
        for (int a = 0; a < m; a++) {
            q_row += fabs(del->nu1[a] * del->G2[(size_t)a * n + i]) +
                     fabs(del->nu2[a] * del->B2[(size_t)a * n + i]);
            v_row += fabs(del->nu2[a] * del->G2[(size_t)a * n + i]);
        }
        multipliers = fmax(multipliers, fmax(q_row, v_row / fabs(h)));
    }
    momentum = wb_scale_or_one(momentum + multipliers);
    /* the momentum rows of coordinate i in that coordinate's own units:
     * momentum x (its mass / the largest), velocity units times its mass,
     * but never below the point's own momentum scale (its row of |M|
     * times the velocities' scale): the heaviest point may be at rest
     * (four_particles, m1 = 1e12), and then momentum x weight put the light
     * rows' bound at 1e-11 of their own terms, below their round-off */
    const double *weight = del->mass_weight;
    for (int i = 0; i < n; i++)
        s[i] = s[n + i] = fmin(momentum, fmax(momentum * weight[i],
                                              VZ_LIGHT_ROW_SLACK * velocity * del->mass_row[i]));
    /* E2 = G W lambda+: each row the momenta it weighs, each in its own
     * scale (the light coordinates may be the fast ones: heavy_top at
     * m = 1e12 spins its directors at 2e14 while its heavy centre moves
     * at 0.75, and momentum x weight put these rows' bound at 1e-5 of their
     * terms, 1.7e14 in velocity units) */
    if (m > 0) {
        for (int a = 0; a < m; a++) {
            double row = 0.0;
            for (int i = 0; i < n; i++)
                row += fabs(vz_weighted_normal(del, del->G2, a, i)) * s[i];
            s[dim + a] = wb_scale_or_one(row);
        }
        wb_constraint_row_scales(m, n, del->G2, q_size, 1.0, s + dim + m + n);
        wb_constraint_row_scales(m, n, del->G2, velocity, 1.0, s + dim + 2 * m + n);
    }
    const double position = wb_scale_or_one(q_size + fabs(h) * wb_scale_max_abs(n, v1));
    for (int i = 0; i < n; i++)
        s[dim + m + i] = position;
    /* a step of sqrt(eps) max(1, |x_j|) would leave a pendulum of 1e-12 */
    del->fd_size[0] = fmin(1.0, wb_scale_or_one(q_size));
    del->fd_size[1] = fmin(1.0, wb_scale_or_one(velocity));
}

int vz_del_step(vz_del *del, double h, const double *q1, const double *v1, double *q2,
                double *v2, wb_step_stats *stats)
{
    const int n = del->n, m = del->m;
    const wb_host *host = del->host;
    del->stats = stats;
    del->q1 = q1, del->v1 = v1;
    int status;
    if (h != del->h) { /* the carried junction belongs to another step size */
        status = vz_del_start(del, h, q1, v1);
        if (status != WB_OK)
            return status;
    }
    if (del->opt.solver == VZ_APPROXIMATE)
        return vz_stage4_step(del, q2, v2);
    vz_del_residual_scales(del, h, q1, v1);
    /* the guess: the layer's step for w2, mu extrapolated for lambda+, the
     * previous step's nu and theta */
    double *x = del->x;
    status = vz_del_predict(del, h, q1, v1, x + OFF_Q, x + OFF_V(del));
    if (status != WB_OK)
        return status;
    for (int i = 0; i < n; i++)
        x[OFF_L(del) + i] = 2.0 * del->mu[i] - del->mu_prev[i];
    vec_copy(m, del->nu1, x + OFF_N1(del));
    vec_copy(m, del->nu2, x + OFF_N2(del));
    vec_copy(m, del->theta, x + OFF_TH(del));
    wb_newton_options options = {0}; /* the members newton_defaults leaves (1.2, 1.5) */
    host->newton_defaults(host, &options);
    options.tol = del->opt.tol;
    options.max_iter = del->opt.max_iter;
    options.simplified = del->opt.solver == VZ_SIMPLIFIED;
    options.settle_update = 1;
    options.struct_size = sizeof options;
    options.residual_scale = del->residual_scale;
    wb_newton_report report = {.struct_size = sizeof report};
    del->evaluation_failed = 0;
    del->extrapolated = 0;
    vec_copy(del->nx, x, del->x_guess);
    status = host->newton_solve(host, del->newton, del_residual, del_jacobian, del, x,
                                &options, stats, &report);
    if (status != WB_OK && status != WB_ERR_NOMEM) {
        /* the retry (see the top of the file): full Newton, extrapolated columns */
        vec_copy(del->nx, del->x_guess, x);
        del->evaluation_failed = 0;
        del->extrapolated = 1;
        options.simplified = 0;
        options.max_iter = del->opt.max_iter < 25 ? del->opt.max_iter : 25; /* quadratic, or lost */
        status = host->newton_solve(host, del->newton, del_residual, del_jacobian, del, x,
                                    &options, stats, &report);
        del->extrapolated = 0;
    }
    if (status == WB_ERR_NEWTON && !del->evaluation_failed)
        host->error(host, "vi: Newton on the discrete Euler-Lagrange equations did not converge "
                          "(max |residual| %.3e after %d iterations of full Newton with "
                          "extrapolated differences, after the %s solver failed; tolerance %.1e "
                          "relative to each row's terms where they are below 1); try a smaller h",
                    report.residual_norm, report.iterations,
                    del->opt.solver == VZ_SIMPLIFIED ? "simplified" : "newton", options.tol);
    if (status != WB_OK) /* else the message of what failed: a layer, the projection */
        return status;
    if (!vec_equal(del->nx, x, del->x_last)) {
        status = del_residual(del, x, del->r);
        if (status != WB_OK)
            return status;
    }
    vec_copy(n, x + OFF_Q, q2);
    vec_copy(n, x + OFF_V(del), v2);
    vec_copy(n, del->mu, del->mu_prev);
    vec_copy(n, x + OFF_L(del), del->mu);
    vec_copy(n, del->q2p, del->qbar);
    vec_copy(m, x + OFF_N1(del), del->nu1);
    vec_copy(m, x + OFF_N2(del), del->nu2);
    vec_copy(m, x + OFF_TH(del), del->theta);
    return WB_OK;
}
