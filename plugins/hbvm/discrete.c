/* The discrete problem of HBVM(k, s) and its solvers (see hbvm.h). */
#include "hbvm.h"
#include "wb_iteration.h"
#include "wb_mass.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* The solvers' verdicts inside a step (never returned to the host): auto's
 * fixed point gives way to simplified Newton; auto's kept Jacobian, an
 * older step's, diverged and is renewed. */
enum { FIXED_POINT_STALLED = -1, JACOBIAN_STALE = -2 };

/* ---- memory (create time only) ------------------------------------------------------ */

static double *take(double **cursor, size_t count)
{
    double *p = *cursor;
    *cursor += count;
    return p;
}

/* M^-1 as a matrix (the dense Jacobian's products), and its diagonal when
 * it is one; the sparse path has the declared diagonal. */
static void inverse_mass(hbvm *it)
{
    const size_t n = (size_t)it->n;
    if (it->sp.ext) {
        it->Minv = NULL;
        it->minv_diagonal = it->sp.inverse_mass;
        return;
    }
    wb_constant_inverse_mass(it->model, it->work, it->Minv);
    for (size_t r = 0; r < n && it->minv_diagonal; r++) {
        it->minv_diagonal[r] = it->Minv[r * n + r];
        for (size_t c = 0; c < n; c++)
            if (c != r && it->Minv[r * n + c] != 0.0)
                it->minv_diagonal = NULL;
    }
}

int hbvm_alloc(hbvm *it)
{
    const size_t n = (size_t)it->n, m = (size_t)it->m, s = (size_t)it->s, k = (size_t)it->k;
    const size_t size = (size_t)it->size, g = (size_t)it->g_entries;
    /* the n x n, m x m and size x size matrices are the dense path's */
    const int dense = it->sp.ext == NULL;
    const size_t nn = dense ? n * n : 0, mm = dense ? m * m : 0, jj = dense ? size * size : 0;
    const size_t doubles = nn + size + m + k * (2 * n + g) + s * (2 * n + 2 * g) + mm +
                           2 * size + jj + k * nn + k * g + 2 * nn + 12 * n + s * s +
                           2 * k * n + 2 * k * k + k + n + n + 2 * size;
    double *p = it->memory = calloc(doubles, sizeof(double));
    it->pivots = calloc(size + 1 + m, sizeof(int));
    if (!p || !it->pivots) {
        free(p);
        free(it->pivots);
        it->memory = NULL, it->pivots = NULL;
        it->host->error(it->host, "hbvm: out of memory (k = %d, s = %d, n = %d)", it->k,
                        it->s, it->n);
        return WB_ERR_NOMEM;
    }
    it->Minv = take(&p, nn);
    it->x = take(&p, size);
    it->lambda = take(&p, m);
    it->Y = take(&p, k * n);
    it->grad = take(&p, k * n);
    it->G = take(&p, k * g);
    it->psi = take(&p, s * n);
    it->rho = take(&p, s * g);
    it->a = take(&p, s * n);
    it->D = take(&p, s * g);
    it->S = take(&p, mm);
    /* Newton's arrays, small enough to allocate whatever the solver */
    it->R = take(&p, size);
    it->dx = take(&p, size);
    it->J = take(&p, jj);
    it->K = take(&p, k * nn);
    it->B = take(&p, k * g);
    it->hess = take(&p, nn);
    it->T = take(&p, nn);
    it->force = take(&p, 2 * n);
    it->work = take(&p, 2 * n);
    it->start = take(&p, 2 * n);
    it->increment = take(&p, 2 * n);
    it->sum.carry = take(&p, 2 * n);
    it->sum.last = take(&p, 2 * n);
    it->shift = take(&p, s * s);
    it->Z = take(&p, k * n);
    it->MG = take(&p, k * n);
    it->IXW = take(&p, k * k);
    it->h2IXW = take(&p, k * k);
    it->hc = take(&p, k);
    it->minv_diagonal = take(&p, n);
    it->jacobian_point = take(&p, n + size);
    it->guess = take(&p, size);
    it->multiplier_pivots = it->pivots + size + 1;
    it->h_coefficients = NAN;
    inverse_mass(it);
    for (int l = 0; l < it->k; l++) /* I X W = I (X W), k x k */
        for (int lp = 0; lp < it->k; lp++) {
            double sum = 0.0;
            for (int j = 0; j < it->s; j++)
                sum += it->basis.I[l * it->s + j] * it->basis.XW[j * it->k + lp];
            it->IXW[l * it->k + lp] = sum;
        }
    return WB_OK;
}

void hbvm_free(hbvm *it)
{
    free(it->memory);
    free(it->pivots);
    it->memory = NULL;
    it->pivots = NULL;
}

/* P_j(x) = sqrt(2j + 1) L_j(2x - 1), by the Legendre recurrence. */
static double legendre_shifted(int j, double x)
{
    const double y = 2.0 * x - 1.0;
    double previous = 1.0, current = y;
    if (j == 0)
        return 1.0;
    for (int d = 1; d < j; d++) {
        const double next = ((2.0 * d + 1.0) * y * current - d * previous) / (d + 1.0);
        previous = current, current = next;
    }
    return sqrt(2.0 * j + 1.0) * current;
}

/* The integrand has degree 2s - 2 <= 2k - 1: the k-point Gauss rule is exact. */
void hbvm_shift_matrix(hbvm *it)
{
    const int s = it->s, k = it->k;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) {
            double sum = 0.0;
            for (int l = 0; l < k; l++)
                sum += it->basis.W[i * k + l] * legendre_shifted(j, 1.0 + it->basis.c[l]);
            it->shift[i * s + j] = sum;
        }
}

/* A run begins with the configured iteration, auto with the fixed point. */
static int first_mode(const hbvm *it)
{
    return it->iteration == HBVM_AUTO ? HBVM_FIXED_POINT : it->iteration;
}

void hbvm_restart(hbvm *it)
{
    it->history_valid = 0;
    wb_compensated_restart(&it->sum);
    it->mode = first_mode(it), it->newton_failed = 0;
    it->jacobian_set = 0, it->refresh = 0, it->factored = 0;
}

void hbvm_solver_state(const hbvm *it, double *state)
{
    state[HBVM_STATE_MODE] = it->mode;
    state[HBVM_STATE_NEWTON_FAILED] = it->newton_failed;
    state[HBVM_STATE_JACOBIAN_SET] = it->jacobian_set;
    state[HBVM_STATE_REFRESH] = it->refresh;
    state[HBVM_STATE_JACOBIAN_H] = it->jacobian_h;
    vec_copy(it->n + it->size, it->jacobian_point, state + HBVM_STATE_COUNT);
}

void hbvm_resume_solver(hbvm *it, const double *state)
{
    /* auto may have moved on to simplified Newton; any other choice stays */
    const int auto_newton = it->iteration == HBVM_AUTO &&
                            (int)state[HBVM_STATE_MODE] == HBVM_SIMPLIFIED;
    it->mode = auto_newton ? HBVM_SIMPLIFIED : first_mode(it);
    it->newton_failed = it->iteration == HBVM_AUTO && state[HBVM_STATE_NEWTON_FAILED] != 0;
    it->jacobian_set = it->iteration == HBVM_AUTO && state[HBVM_STATE_JACOBIAN_SET] != 0;
    it->refresh = state[HBVM_STATE_REFRESH] != 0;
    it->jacobian_h = state[HBVM_STATE_JACOBIAN_H];
    vec_copy(it->n + it->size, state + HBVM_STATE_COUNT, it->jacobian_point);
    it->factored = 0; /* factored again at that point: the same factors */
}

/* ---- the pieces of one evaluation ------------------------------------------------------ */

static double *gamma_of(hbvm *it, double *x, int j) { return x + (size_t)j * it->n; }
static double *lambda_of(hbvm *it, double *x) { return x + (size_t)it->s * it->n; }
static double *rho_of(hbvm *it, int j) { return it->rho + (size_t)j * it->g_entries; }
static double *D_of(hbvm *it, int j) { return it->D + (size_t)j * it->g_entries; }

/* ---- G's shape: m x n rows (dense), or values in G's pattern (sparse) ---------------- */

/* y += A x for A of G's shape. */
static void rows_times_add(const hbvm *it, const double *A, const double *x, double *y)
{
    if (it->sp.ext) {
        wb_csr_mat_vec_add(it->sp.G, A, 1.0, x, y);
        return;
    }
    for (int r = 0; r < it->m; r++)
        y[r] += vec_dot(it->n, A + (size_t)r * it->n, x);
}

/* x += A^T y for A of G's shape. */
static void rows_transpose_times_add(const hbvm *it, const double *A, const double *y,
                                     double *x)
{
    if (it->sp.ext) {
        wb_csr_t_vec_add(it->sp.G, A, 1.0, y, x);
        return;
    }
    for (int c = 0; c < it->m; c++)
        vec_axpy(it->n, y[c], A + (size_t)c * it->n, x);
}

/* y += |A| |x| for A of G's shape. */
static void abs_rows_times_add(const hbvm *it, const double *A, const double *x, double *y)
{
    if (it->sp.ext) {
        const wb_sparse_pattern *G = it->sp.G;
        for (int r = 0; r < G->rows; r++)
            for (int e = G->row_start[r]; e < G->row_start[r + 1]; e++)
                y[r] += fabs(A[e]) * fabs(x[G->columns[e]]);
        return;
    }
    for (int r = 0; r < it->m; r++)
        for (int e = 0; e < it->n; e++)
            y[r] += fabs(A[(size_t)r * it->n + e]) * fabs(x[e]);
}

/* x += |A|^T |y| for A of G's shape. */
static void abs_rows_transpose_times_add(const hbvm *it, const double *A, const double *y,
                                         double *x)
{
    if (it->sp.ext) {
        const wb_sparse_pattern *G = it->sp.G;
        for (int r = 0; r < G->rows; r++)
            for (int e = G->row_start[r]; e < G->row_start[r + 1]; e++)
                x[G->columns[e]] += fabs(A[e]) * fabs(y[r]);
        return;
    }
    for (int r = 0; r < it->m; r++)
        for (int e = 0; e < it->n; e++)
            x[e] += fabs(A[(size_t)r * it->n + e]) * fabs(y[r]);
}

/* G(q) into out, of G's shape. */
static void constraint_rows(hbvm *it, const double *q, double *out)
{
    if (it->sp.ext)
        it->sp.ext->jacobian_values(it->sp.self, q, out);
    else
        wb_constraint_jacobian(it->model, q, out);
}

/* Y_l = q0 + h sum_j I_lj gamma_j, and grad V, G there. */
static void evaluate_stages(hbvm *it, const double *x, wb_step_stats *stats)
{
    const int n = it->n, s = it->s;
    for (int l = 0; l < it->k; l++) {
        double *Yl = it->Y + (size_t)l * n;
        vec_copy(n, it->q0, Yl);
        for (int j = 0; j < s; j++)
            vec_axpy(n, it->h * it->basis.I[l * s + j], x + (size_t)j * n, Yl);
        wb_potential_gradient(it->model, Yl, it->grad + (size_t)l * n);
        if (it->m > 0)
            constraint_rows(it, Yl, it->G + (size_t)l * it->g_entries);
    }
    stats->function_evals += (uint64_t)it->k;
}

/* psi_j = sum_l W_jl grad V(Y_l),  rho_j = sum_l W_jl G(Y_l) */
static void project(hbvm *it)
{
    const int n = it->n, g = it->g_entries, k = it->k;
    for (int j = 0; j < it->s; j++) {
        double *psi = it->psi + (size_t)j * n, *rho = rho_of(it, j);
        for (int e = 0; e < n; e++)
            psi[e] = 0.0;
        for (int e = 0; e < g; e++)
            rho[e] = 0.0;
        for (int l = 0; l < k; l++) {
            const double w = it->basis.W[j * k + l];
            vec_axpy(n, w, it->grad + (size_t)l * n, psi);
            vec_axpy(g, w, it->G + (size_t)l * g, rho);
        }
    }
}

/* D_j row c = -h M^-1 sum_i X_ji (row c of rho_i), row by row through the
 * model's mass solve. */
static void directions_dense(hbvm *it, int j)
{
    const int n = it->n, s = it->s;
    double *sum = it->work;
    for (int c = 0; c < it->m; c++) {
        for (int e = 0; e < n; e++)
            sum[e] = 0.0;
        for (int i = 0; i < s; i++)
            if (it->basis.X[j * s + i] != 0.0)
                vec_axpy(n, -it->h * it->basis.X[j * s + i], rho_of(it, i) + (size_t)c * n, sum);
        wb_mass_solve(it->model, it->q0, sum, D_of(it, j) + (size_t)c * n);
    }
}

/* The same in G's pattern, the sums entry by entry in the same order, each
 * scaled by its column's diagonal M^-1. */
static void directions_sparse(hbvm *it, int j)
{
    const wb_sparse_pattern *G = it->sp.G;
    const int s = it->s;
    double *D = D_of(it, j);
    for (int e = 0; e < G->nnz; e++)
        D[e] = 0.0;
    for (int i = 0; i < s; i++)
        if (it->basis.X[j * s + i] != 0.0)
            vec_axpy(G->nnz, -it->h * it->basis.X[j * s + i], rho_of(it, i), D);
    for (int e = 0; e < G->nnz; e++)
        D[e] = it->sp.inverse_mass[G->columns[e]] * D[e];
}

/* gamma_j(lambda) = a_j + D_j^T lambda from (50):
 *   a_j = M^-1 (delta_j0 p0 - h sum_i X_ji psi_i),
 *   D_j row c = -h M^-1 sum_i X_ji (row c of rho_i). */
static void affine_gamma(hbvm *it)
{
    const int n = it->n, s = it->s;
    double *sum = it->work;
    for (int j = 0; j < s; j++) {
        for (int e = 0; e < n; e++)
            sum[e] = j == 0 ? it->p0[e] : 0.0;
        for (int i = 0; i < s; i++)
            if (it->basis.X[j * s + i] != 0.0)
                vec_axpy(n, -it->h * it->basis.X[j * s + i], it->psi + (size_t)i * n, sum);
        wb_mass_solve(it->model, it->q0, sum, it->a + (size_t)j * n);
        if (it->sp.ext)
            directions_sparse(it, j);
        else
            directions_dense(it, j);
    }
}

/* S = -sum_j rho_j D_j^T, m x m. */
static void multiplier_matrix_dense(hbvm *it)
{
    const int n = it->n, m = it->m, s = it->s;
    for (int r = 0; r < m; r++)
        for (int c = 0; c < m; c++) {
            double sum = 0.0;
            for (int j = 0; j < s; j++)
                sum -= vec_dot(n, rho_of(it, j) + (size_t)r * n, D_of(it, j) + (size_t)c * n);
            it->S[r * m + c] = sum;
        }
}

/* y <- S^-1 y with the factors multiplier_solve left. */
static int multiplier_lu_solve(hbvm *it, double *y)
{
    const wb_host *host = it->host;
    if (it->sp.ext)
        return host->sparse_lu_solve(host, it->sp.multiplier_lu, 1, y);
    return host->lu_solve(host, it->m, 1, it->S, it->multiplier_pivots, y);
}

/* S lambda = b, S dense (LU with pivoting) or in G G^T's pattern (the
 * host's sparse LU); the factors stay for multiplier_lu_solve. */
static int multiplier_solve(hbvm *it, double *lambda)
{
    const wb_host *host = it->host;
    int status;
    if (it->sp.ext) {
        hbvm_sparse_multiplier_matrix(it);
        status = host->sparse_lu_factor(host, it->sp.multiplier_lu, it->sp.Sv);
    } else {
        multiplier_matrix_dense(it);
        status = host->lu_factor(host, it->m, it->S, it->multiplier_pivots);
    }
    return status != WB_OK ? status : multiplier_lu_solve(it, lambda);
}

/* The discrete line integral (51), sum_j rho_j (a_j + D_j^T lambda) = 0:
 * an m x m system S lambda = sum_j rho_j a_j, nonsymmetric for m > 1. */
static int solve_multiplier(hbvm *it, double *lambda, wb_step_stats *stats)
{
    for (int r = 0; r < it->m; r++)
        lambda[r] = 0.0;
    for (int j = 0; j < it->s; j++)
        rows_times_add(it, rho_of(it, j), it->a + (size_t)j * it->n, lambda);
    stats->linear_solves++;
    int status = multiplier_solve(it, lambda);
    if (status == WB_ERR_NONFINITE)
        it->host->error(it->host, "hbvm: the multiplier system (51) became non-finite (h = %g): "
                                  "the iteration diverged; reduce h", it->h);
    else if (status != WB_OK)
        it->host->error(it->host, "hbvm: the multiplier system (51) is singular (h = %g): "
                                  "G M^-1 G^T must be invertible along the step", it->h);
    return status;
}

/* gamma_j = a_j + D_j^T lambda, written into out (s x n). */
static void gamma_at(hbvm *it, const double *lambda, double *out)
{
    const int n = it->n;
    for (int j = 0; j < it->s; j++) {
        double *g = out + (size_t)j * n;
        vec_copy(n, it->a + (size_t)j * n, g);
        rows_transpose_times_add(it, D_of(it, j), lambda, g);
    }
}

/* ---- stopping: to machine precision unless a tolerance is given ----------------------- */

static int not_converged(hbvm *it, const char *what, int sweeps, double norm)
{
    if (!isfinite(norm)) {
        it->host->error(it->host, "hbvm: the %s produced a non-finite increment (h = %g)", what,
                        it->h);
        return WB_ERR_NONFINITE;
    }
    it->host->error(it->host, "hbvm: the %s did not converge in %d iterations (last increment "
                              "%.3e, h = %g); raise max_iter or reduce h",
                    what, sweeps, norm, it->h);
    return WB_ERR_NEWTON;
}

/* ---- the round-off floor of many constraints -------------------------------------------
 * wb_iteration_settled takes an increment that stopped decreasing for
 * convergence when it is within 1000 ulps of the unknowns.  With many
 * constraints the floor is higher: the multiplier's system grows ill-
 * conditioned (like N^2 for a chain of N links, whose tensions also grow
 * like N), and its round-off reaches gamma through D^T.  pendulum_chain,
 * HBVM(2,2), h = 1e-3: the fixed point's increments stop decreasing at
 * 5.8e-13 for N = 3000 and stay at 9.2e-12 for N = 10^4 (|gamma| = 2, 1000
 * ulps 4.4e-13: it never settled); Newton's, in lambda, wander between 1e-9
 * and 6e-9 for N = 1000 (|lambda| = 6.9e3). So where that test fails on
 * an increment that stopped decreasing, the floor is estimated as
 * eps |A^-1 w|, w the sizes of the terms of the equations at the iterate
 * and A their matrix, whose factors are at hand (one more solve): above,
 * it is 8.8e-12 and 8.9e-11 for the fixed point (10 to 15 times the
 * stall), 5e-7 in lambda for Newton (100 times).  On small systems it is
 * at most of the order of the 1000 ulps (N = 10: 2.5e-15 against 6.4e-13
 * for the fixed point, 2e-11 against 1.5e-11 for Newton), so that the
 * paper's runs do not change (scripts/hbvm print the same numbers). */

/* |gamma_j|'s terms |a_j| + |D_j|^T |lambda| added into t (s x n). */
static void add_gamma_terms(hbvm *it, const double *lambda, double *t)
{
    const int n = it->n;
    for (int e = 0; e < it->s * n; e++)
        t[e] += fabs(it->a[e]);
    for (int j = 0; j < it->s; j++)
        abs_rows_transpose_times_add(it, D_of(it, j), lambda, t + (size_t)j * n);
}

/* The fixed point's floor at x: gamma = a + D^T lambda with lambda =
 * S^-1 b, b's terms w = sum_j |rho_j| t_j: eps max_j (t_j + |D_j^T S^-1 w|).
 * R and dx are free between sweeps. */
static double fixed_point_floor(hbvm *it)
{
    const int n = it->n, m = it->m, sn = it->s * n;
    double *t = it->R, *y = it->dx, *z = it->dx + m, largest = 0.0;
    if (m == 0)
        return 0.0; /* gamma = a: its own round-off */
    for (int e = 0; e < sn; e++)
        t[e] = 0.0;
    add_gamma_terms(it, lambda_of(it, it->x), t);
    for (int c = 0; c < m; c++)
        y[c] = 0.0;
    for (int j = 0; j < it->s; j++)
        abs_rows_times_add(it, rho_of(it, j), t + (size_t)j * n, y);
    if (multiplier_lu_solve(it, y) != WB_OK)
        return 0.0;
    for (int j = 0; j < it->s; j++) {
        for (int e = 0; e < n; e++)
            z[e] = 0.0;
        rows_transpose_times_add(it, D_of(it, j), y, z);
        for (int e = 0; e < n; e++)
            largest = fmax(largest, t[(size_t)j * n + e] + fabs(z[e]));
    }
    return DBL_EPSILON * largest;
}

/* The increment stopped decreasing at round-off: within 1000 ulps, or at
 * or below the estimated floor (computed only when that is in question).
 * A floor is round-off only while it leaves at least half the unknowns'
 * digits (the largest measured, a chain of 10^4 links, leaves 11): the
 * estimate grows with the terms at the iterate and with the inverse of a
 * kept Jacobian, so a diverging iterate has a floor as large as itself,
 * and without the bound its increments, equal to the unknowns, "settled"
 * (spherical pendulum g = 300, h = 0.05, HBVM(4,2) auto: from step 10 its
 * simplified Newton accepted iterates of 1e17 .. 1e140, q reached 1e222
 * at step 13 and the run reported success). */
static int settled_at_floor(hbvm *it, int iter, double norm, double previous, double scale,
                            double (*floor)(hbvm *))
{
    if (wb_iteration_settled(iter, norm, previous, it->tol, scale))
        return 1;
    return iter > 0 && norm >= previous && norm <= sqrt(DBL_EPSILON) * scale &&
           norm <= floor(it);
}

/* ---- the paper's fixed-point iteration ---------------------------------------------------- */

/* An increment relative to the unknowns' size (max norms), for auto's rates. */
static double relative_to(double norm, double scale) { return scale > 0 ? norm / scale : norm; }

/* auto may still give the fixed point up for Newton. */
static int may_switch(const hbvm *it) { return it->iteration == HBVM_AUTO && !it->newton_failed; }

/* auto: the fixed point gives way (FIXED_POINT_STALLED) when a sweep
 * contracts too slowly or diverges (rk's rates), or at the last of max_iter
 * sweeps instead of failing; until then its sweeps are the paper's.  Not
 * after rk's 20 sweeps: a steady rate below the bound from a poor guess is
 * convergence (HBVM(3,1), modified pendulum, h = 0.2: 22 sweeps at 0.20),
 * and Newton cost more there (827 sweeps and 29 Jacobians in 50 steps
 * against the fixed point's 674). */
static int fixed_point_stalls(hbvm *it, int sweep, double norm, double scale,
                              double *relative)
{
    if (!may_switch(it))
        return 0;
    const double previous = *relative;
    *relative = relative_to(norm, scale);
    if (!wb_auto_fixed_point_stalls(sweep, *relative, previous, it->max_iter))
        return 0;
    /* a rate at the round-off floor is none (the budget still counts) */
    return !isfinite(norm) || sweep + 1 >= it->max_iter || norm > fixed_point_floor(it);
}

static int fixed_point(hbvm *it, wb_step_stats *stats)
{
    const int sn = it->s * it->n;
    double *lambda = lambda_of(it, it->x), *next = it->dx;
    double previous = INFINITY, norm = INFINITY, relative = INFINITY;
    for (int sweep = 0; sweep < it->max_iter; sweep++) {
        evaluate_stages(it, it->x, stats);
        project(it);
        affine_gamma(it);
        if (it->m > 0) {
            int status = solve_multiplier(it, lambda, stats);
            if (status != WB_OK) /* auto: a diverging iterate; Newton will say if it is more */
                return may_switch(it) ? FIXED_POINT_STALLED : status;
        }
        gamma_at(it, lambda, next);
        norm = vec_max_abs_diff(sn, next, it->x);
        vec_copy(sn, next, it->x);
        stats->newton_iterations++;
        stats->residual_evals++;
        const double scale = vec_max_abs(sn, it->x);
        if (isfinite(norm) && settled_at_floor(it, sweep, norm, previous, scale, fixed_point_floor))
            return WB_OK;
        if (fixed_point_stalls(it, sweep, norm, scale, &relative))
            return FIXED_POINT_STALLED;
        if (!isfinite(norm))
            break;
        previous = norm;
    }
    return not_converged(it, "fixed-point iteration", it->max_iter, norm);
}

/* ---- the fixed point in the stage positions (no constraints) ------------------------------ */

/* Z_l <- h c_l v0 - h^2 sum_l' (I X W)_ll' M^-1 grad V(q0 + Z_l'), from
 * Z = h I gamma; the increments are compared as velocities (divided by h),
 * as the coefficient form compares gamma's.  At the end, psi and gamma from
 * the last sweep's gradients, as that form leaves them. */
static int nystrom_fixed_point(hbvm *it, wb_step_stats *stats)
{
    const int n = it->n, k = it->k, s = it->s;
    const double h = it->h, *c = it->basis.c, *d = it->minv_diagonal;
    double *restrict Z = it->Z, *restrict MG = it->MG, *restrict G = it->grad;
    double *restrict v0 = it->work + n; /* after affine_gamma's scratch */
    if (h != it->h_coefficients) {
        for (int l = 0; l < k; l++) {
            it->hc[l] = h * c[l];
            for (int lp = 0; lp < k; lp++)
                it->h2IXW[l * k + lp] = h * h * it->IXW[l * k + lp];
        }
        it->h_coefficients = h;
    }
    wb_mass_solve(it->model, it->q0, it->p0, v0);
    for (int l = 0; l < k; l++) {
        double *Zl = Z + (size_t)l * n;
        for (int e = 0; e < n; e++)
            Zl[e] = 0.0;
        for (int j = 0; j < s; j++)
            vec_axpy(n, h * it->basis.I[l * s + j], it->x + (size_t)j * n, Zl);
    }
    double previous = INFINITY, norm = INFINITY, relative = INFINITY;
    for (int sweep = 0; sweep < it->max_iter; sweep++) {
        for (int l = 0; l < k; l++) {
            double *Yl = it->Y + (size_t)l * n, *Gl = G + (size_t)l * n, *MGl = MG + (size_t)l * n;
            for (int e = 0; e < n; e++)
                Yl[e] = it->q0[e] + Z[(size_t)l * n + e];
            wb_potential_gradient(it->model, Yl, Gl);
            if (d)
                for (int e = 0; e < n; e++)
                    MGl[e] = d[e] * Gl[e];
            else
                mat_vec(n, n, it->Minv, Gl, MGl);
        }
        stats->function_evals += (uint64_t)k;
        /* row by row, the stage sums as axpys over the n components (they
         * vectorise); the maxima without a branch, NaN caught by a sum */
        double largest = 0.0, size = 0.0, nan_check = 0.0;
        double *restrict row = it->force;
        for (int l = 0; l < k; l++) {
            double *restrict Zl = Z + (size_t)l * n;
            const double hc = it->hc[l];
            for (int e = 0; e < n; e++)
                row[e] = hc * v0[e];
            for (int lp = 0; lp < k; lp++) {
                const double w = it->h2IXW[l * k + lp], *restrict MGl = MG + (size_t)lp * n;
                for (int e = 0; e < n; e++)
                    row[e] -= w * MGl[e];
            }
            for (int e = 0; e < n; e++) {
                const double step = fabs(row[e] - Zl[e]), magnitude = fabs(row[e]);
                largest = step > largest ? step : largest;
                size = magnitude > size ? magnitude : size;
                nan_check += step;
                Zl[e] = row[e];
            }
        }
        if (isnan(nan_check))
            largest = NAN;
        norm = largest / fabs(h); /* h < 0: a step backwards */
        stats->newton_iterations++;
        stats->residual_evals++;
        if (isfinite(norm) &&
            wb_iteration_settled(sweep, norm, previous, it->tol, size / fabs(h))) {
            project(it);
            affine_gamma(it);
            vec_copy(s * n, it->a, it->x);
            return WB_OK;
        }
        if (fixed_point_stalls(it, sweep, largest, size, &relative))
            return FIXED_POINT_STALLED;
        if (!isfinite(norm))
            break;
        previous = norm;
    }
    return not_converged(it, "fixed-point iteration", it->max_iter, norm);
}

/* ---- Newton on (gamma, lambda) ------------------------------------------------------------- */

/* R_j = gamma_j - (a_j + D_j^T lambda),  R_lambda = sum_j rho_j gamma_j. */
static void residual(hbvm *it, wb_step_stats *stats)
{
    const int n = it->n, s = it->s;
    evaluate_stages(it, it->x, stats);
    project(it);
    affine_gamma(it);
    gamma_at(it, lambda_of(it, it->x), it->R);
    for (int e = 0; e < s * n; e++)
        it->R[e] = it->x[e] - it->R[e];
    double *Rl = it->R + (size_t)s * n;
    for (int r = 0; r < it->m; r++)
        Rl[r] = 0.0;
    for (int j = 0; j < s; j++)
        rows_times_add(it, rho_of(it, j), gamma_of(it, it->x, j), Rl);
    stats->residual_evals++;
}

/* At the stages of the last evaluation, those of the unknowns x:
 *   K_l = M^-1 (Hess V(Y_l) + sum_c lambda_c D^2 g_c(Y_l)),
 *   B_l = D_q[G(q) w_l] at Y_l with w_l = sum_j W_jl gamma_j. */
static void stage_derivatives(hbvm *it, double *x)
{
    const int n = it->n, m = it->m, k = it->k, s = it->s;
    const double *lambda = lambda_of(it, x);
    double *hess = it->hess, *T = it->T, *w = it->work;
    for (int l = 0; l < k; l++) {
        const double *Yl = it->Y + (size_t)l * n;
        wb_potential_hessian(it->model, Yl, hess);
        if (m > 0) {
            wb_constraint_hessian_contract(it->model, Yl, lambda, T);
            for (int e = 0; e < n * n; e++)
                hess[e] += T[e];
            for (int e = 0; e < n; e++)
                w[e] = 0.0;
            for (int j = 0; j < s; j++)
                vec_axpy(n, it->basis.W[j * k + l], gamma_of(it, x, j), w);
            wb_constraint_hessian_vector(it->model, Yl, w, it->B + (size_t)l * m * n);
        }
        mat_mul(n, n, n, it->Minv, hess, it->K + (size_t)l * n * n);
    }
}

/* The Jacobian of (R_gamma, R_lambda) in (gamma, lambda):
 *   d R_j / d gamma_i = delta_ji I + h^2 sum_l (X W)_jl I_li K_l
 *   d R_j / d lambda  = -D_j^T
 *   d R_lambda / d gamma_i = rho_i + h sum_l I_li B_l,   d R_lambda / d lambda = 0. */
static void assemble(hbvm *it)
{
    const int n = it->n, m = it->m, k = it->k, s = it->s, N = it->size;
    const double h = it->h;
    double *J = it->J;
    for (int e = 0; e < N * N; e++)
        J[e] = 0.0;
    for (int j = 0; j < s; j++)
        for (int i = 0; i < s; i++) {
            for (int l = 0; l < k; l++) {
                const double w = h * h * it->basis.XW[j * k + l] * it->basis.I[l * s + i];
                const double *Kl = it->K + (size_t)l * n * n;
                for (int r = 0; r < n; r++)
                    vec_axpy(n, w, Kl + (size_t)r * n, J + (size_t)(j * n + r) * N + i * n);
            }
            if (i == j)
                for (int r = 0; r < n; r++)
                    J[(size_t)(j * n + r) * N + j * n + r] += 1.0;
        }
    for (int j = 0; j < s; j++)
        for (int c = 0; c < m; c++)
            for (int r = 0; r < n; r++)
                J[(size_t)(j * n + r) * N + s * n + c] = -D_of(it, j)[(size_t)c * n + r];
    for (int r = 0; r < m; r++) {
        double *row = J + (size_t)(s * n + r) * N;
        for (int i = 0; i < s; i++) {
            vec_axpy(n, 1.0, rho_of(it, i) + (size_t)r * n, row + i * n);
            for (int l = 0; l < k; l++)
                vec_axpy(n, h * it->basis.I[l * s + i], it->B + (size_t)(l * m + r) * n,
                         row + i * n);
        }
    }
}

/* Context for a failed factorisation or solve (the last report wins; the
 * word "non-finite" tells the driver that the message is about that). */
static void newton_failure(hbvm *it, int status)
{
    if (status == WB_ERR_NONFINITE)
        it->host->error(it->host, "hbvm: the Newton matrix or update became non-finite (h = %g): "
                                  "the iteration diverged; reduce h", it->h);
    else
        it->host->error(it->host, "hbvm: the Newton matrix is singular (h = %g)", it->h);
}

/* The Jacobian at x, whose stages the last evaluation left, factored in J
 * (sparse: assembled in its nonzeros and factored in sp.jacobian_lu). */
static int factor_jacobian(hbvm *it, double *x, wb_step_stats *stats)
{
    const wb_host *host = it->host;
    int status;
    stats->jacobian_evals++;
    stats->linear_solves++;
    if (it->sp.ext) {
        hbvm_sparse_newton_matrix(it, x);
        status = host->sparse_lu_factor(host, it->sp.jacobian_lu, it->sp.Jv);
    } else {
        stage_derivatives(it, x);
        assemble(it);
        status = host->lu_factor(host, it->size, it->J, it->pivots);
    }
    if (status != WB_OK)
        newton_failure(it, status);
    return status;
}

/* dx <- J^-1 dx with the factors of factor_jacobian. */
static int solve_newton(hbvm *it, double *dx)
{
    const wb_host *host = it->host;
    if (it->sp.ext)
        return host->sparse_lu_solve(host, it->sp.jacobian_lu, 1, dx);
    return host->lu_solve(host, it->size, 1, it->J, it->pivots, dx);
}

/* Newton's floor (see fixed_point_floor): eps |J^-1 w|, w the sizes of
 * the residual's terms at x, |gamma_j| + |a_j| + |D_j|^T |lambda| and
 * sum_j |rho_j| |gamma_j|.  R is free after the update. */
static double newton_floor(hbvm *it)
{
    const int sn = it->s * it->n;
    double *w = it->R;
    for (int e = 0; e < sn; e++)
        w[e] = fabs(it->x[e]);
    for (int c = 0; c < it->m; c++)
        w[sn + c] = 0.0;
    add_gamma_terms(it, lambda_of(it, it->x), w);
    for (int j = 0; j < it->s; j++)
        abs_rows_times_add(it, rho_of(it, j), gamma_of(it, it->x, j), w + sn);
    if (solve_newton(it, w) != WB_OK)
        return 0.0;
    return DBL_EPSILON * vec_max_abs(it->size, w);
}

/* ---- auto's kept Jacobian ------------------------------------------------------------------- */

/* The kept Jacobian's point for this step: its start, as rk's (every stage
 * at q0, gamma = 0, the last step's multiplier), which no extrapolation can
 * mislead.  Measured against the step's first iterate and the constant-
 * velocity path (HBVM(3,3), angle pendulum, h = 0.05, 400 steps: g = 1e3
 * 22 Jacobians against 34 and 105; g = 1e4 converges, the others fail). */
static void keep_jacobian_point(hbvm *it)
{
    const int sn = it->s * it->n;
    double *x = it->jacobian_point + it->n;
    vec_copy(it->n, it->q0, it->jacobian_point);
    for (int e = 0; e < sn; e++)
        x[e] = 0.0;
    vec_copy(it->m, it->lambda, x + sn);
    it->jacobian_h = it->h;
    it->jacobian_set = 1, it->refresh = 0, it->factored = 0;
}

/* The kept Jacobian, an earlier step's. */
static int jacobian_is_old(const hbvm *it) { return !vec_equal(it->n, it->jacobian_point, it->q0); }

/* J holds the factors of the kept Jacobian: a new one when there is none,
 * it was marked for refreshing or the step size changed (h enters the
 * matrix throughout); factored again at its point when a resumed run has
 * only the point.  It is evaluated before the step's residual (the offsets
 * a come from this step's p0 and go unused). */
static int prepare_kept_jacobian(hbvm *it, wb_step_stats *stats)
{
    if (!it->jacobian_set || it->refresh || it->jacobian_h != it->h)
        keep_jacobian_point(it);
    if (it->factored)
        return WB_OK;
    const double *q0 = it->q0, h = it->h;
    double *x = it->jacobian_point + it->n;
    it->q0 = it->jacobian_point, it->h = it->jacobian_h;
    evaluate_stages(it, x, stats);
    project(it);
    affine_gamma(it);
    int status = factor_jacobian(it, x, stats);
    it->q0 = q0, it->h = h;
    it->factored = status == WB_OK;
    return status;
}

/* auto: what the sweep, of increment norm, says of the kept Jacobian
 * (JACOBIAN_STALE: renew it and solve the step again); a rate at the
 * round-off floor says nothing. */
static int judge_kept_jacobian(hbvm *it, int iter, double norm, double relative, double previous)
{
    if (it->iteration != HBVM_AUTO)
        return WB_OK;
    wb_auto_jacobian verdict =
        wb_auto_judge_jacobian(iter, relative, previous, jacobian_is_old(it));
    if (verdict != WB_AUTO_JACOBIAN_KEEP && isfinite(norm) && norm <= newton_floor(it))
        verdict = WB_AUTO_JACOBIAN_KEEP;
    if (verdict != WB_AUTO_JACOBIAN_KEEP)
        it->refresh = 1;
    return verdict == WB_AUTO_JACOBIAN_REFRESH_NOW ? JACOBIAN_STALE : WB_OK;
}

/* ---- Newton ------------------------------------------------------------------------------- */

/* Newton from a guess outside its basin wanders: increments as large as
 * the unknowns, neither converging nor diverging, until max_iter runs out
 * (spherical pendulum g = 300, h = 0.05, HBVM(3,3) newton: on 7 of the
 * first 40 steps the extrapolated guess, off by 2e3 in unknowns of 3e3,
 * kept it wandering for all 200 iterations; from the plain guess it then
 * converged in 5 .. 7).  A Newton iteration whose increments have not
 * fallen below a tenth of the first in this many gives the guess up, and
 * the step is tried from the next one (solve()). */
enum { NEWTON_WANDERING = 20 };

static int newton(hbvm *it, wb_step_stats *stats)
{
    const int N = it->size;
    double previous = INFINITY, norm = INFINITY, relative = INFINITY, previous_relative;
    double first = INFINITY, smallest = INFINITY;
    const int keeps = it->iteration == HBVM_AUTO;
    int status;
    if (keeps && (status = prepare_kept_jacobian(it, stats)) != WB_OK)
        return status;
    for (int iter = 0; iter < it->max_iter; iter++) {
        residual(it, stats);
        if (!keeps && (it->iteration == HBVM_NEWTON || iter == 0) &&
            (status = factor_jacobian(it, it->x, stats)) != WB_OK)
            return status;
        vec_copy(N, it->R, it->dx);
        status = solve_newton(it, it->dx);
        stats->linear_solves++;
        if (status == WB_ERR_NONFINITE && /* a diverging sweep: relative is the last one's */
            judge_kept_jacobian(it, iter, INFINITY, INFINITY, relative) == JACOBIAN_STALE)
            return JACOBIAN_STALE;
        if (status != WB_OK) {
            newton_failure(it, status);
            return status;
        }
        vec_axpy(N, -1.0, it->dx, it->x);
        stats->newton_iterations++;
        norm = vec_max_abs(N, it->dx);
        const double scale = vec_max_abs(N, it->x);
        if (isfinite(norm) && settled_at_floor(it, iter, norm, previous, scale, newton_floor))
            return WB_OK;
        first = iter == 0 ? norm : first, smallest = fmin(smallest, norm);
        if (iter + 1 >= NEWTON_WANDERING && !(smallest < 0.1 * first))
            return not_converged(it, "Newton iteration (wandering from its guess)", iter + 1, norm);
        previous_relative = relative, relative = relative_to(norm, scale);
        if (judge_kept_jacobian(it, iter, norm, relative, previous_relative) == JACOBIAN_STALE)
            return JACOBIAN_STALE;
        if (!isfinite(norm))
            break;
        previous = norm;
    }
    return not_converged(it, it->iteration == HBVM_NEWTON ? "Newton iteration"
                                                          : "simplified Newton iteration",
                         it->max_iter, norm);
}

/* ---- the step ------------------------------------------------------------------------------ */

/* The last step's path extrapolated (continuing), or gamma_0 = M^-1 p0 and
 * the other coefficients zero: the constant-velocity path. */
static void first_guess(hbvm *it, int continuing)
{
    const int n = it->n, s = it->s;
    if (continuing) {
        double *next = it->dx; /* scratch before the iteration */
        for (int e = 0; e < s * n; e++)
            next[e] = 0.0;
        for (int i = 0; i < s; i++)
            for (int j = 0; j < s; j++)
                vec_axpy(n, it->shift[i * s + j], gamma_of(it, it->x, j),
                         gamma_of(it, next, i));
        vec_copy(s * n, next, it->x);
        vec_copy(it->m, it->lambda, lambda_of(it, it->x));
        return;
    }
    wb_mass_solve(it->model, it->q0, it->p0, it->x);
    for (int e = n; e < it->s * n; e++)
        it->x[e] = 0.0;
    vec_copy(it->m, it->lambda, lambda_of(it, it->x)); /* Newton's guess: the last step's */
}

/* (52) from the last stage evaluation and the final multiplier:
 *   f_i = psi_i + rho_i^T lambda,  dq = h M^-1 (p0 - h sum_i X_0i f_i),  dp = -h f_0,
 * added to (q0, p0) with compensated summation when asked. */
static void update(hbvm *it, double *q1, double *p1)
{
    const int n = it->n, s = it->s;
    const double *lambda = lambda_of(it, it->x);
    double *f = it->force, *sum = it->work, *dq = it->increment, *dp = it->increment + n;
    for (int i = 0; i < s && i < 2; i++) { /* X_0i = 0 for i >= 2 */
        double *fi = f + (size_t)i * n;
        vec_copy(n, it->psi + (size_t)i * n, fi);
        rows_transpose_times_add(it, rho_of(it, i), lambda, fi);
    }
    vec_copy(n, it->p0, sum);
    for (int i = 0; i < s && i < 2; i++)
        vec_axpy(n, -it->h * it->basis.X[i], f + (size_t)i * n, sum);
    wb_mass_solve(it->model, it->q0, sum, dq);
    for (int e = 0; e < n; e++) {
        dq[e] = it->h * dq[e];
        dp[e] = -it->h * f[e];
    }
    double *end = it->sum.last;
    wb_compensated_add(&it->sum, 2 * n, it->start, it->increment, end);
    vec_copy(n, end, q1);
    vec_copy(n, end + n, p1);
}

static int iterate(hbvm *it, wb_step_stats *stats)
{
    if (it->mode != HBVM_FIXED_POINT)
        return newton(it, stats);
    return it->nystrom ? nystrom_fixed_point(it, stats) : fixed_point(it, stats);
}

/* The first guess, kept for auto's new beginnings. */
static void begin(hbvm *it, int continuing)
{
    first_guess(it, continuing);
    if (it->iteration == HBVM_AUTO)
        vec_copy(it->size, it->x, it->guess);
}

/* From the first guess (the extrapolated one when `continuing`): auto's
 * changes of iteration and renewed Jacobians begin again from the same
 * guess; a failure from the extrapolated guess once more from the plain
 * one.  Where auto's Newton fails, the fixed point, which may converge
 * where Newton's basin is too small (spherical pendulum, g = 1e3, h = 0.05:
 * h omega = 1.6 a step, contraction 0.55 a sweep; full Newton fails too),
 * takes the step and the rest of the run. */
static int solve(hbvm *it, int continuing, wb_step_stats *stats)
{
    begin(it, continuing);
    for (;;) {
        const int status = iterate(it, stats);
        if (status == WB_OK)
            return status;
        if (status == FIXED_POINT_STALLED) {
            it->mode = HBVM_SIMPLIFIED; /* stiff: Newton for the rest of the run */
        } else if (status == JACOBIAN_STALE) {
            /* refresh is set: a new Jacobian at this step's start */
        } else if (it->iteration == HBVM_AUTO && it->mode == HBVM_SIMPLIFIED) {
            it->mode = HBVM_FIXED_POINT, it->newton_failed = 1;
        } else if (continuing) { /* an extrapolation can mislead */
            continuing = 0;
            begin(it, 0);
            continue;
        } else {
            return status;
        }
        vec_copy(it->size, it->guess, it->x); /* auto begins again from the same guess */
    }
}

int hbvm_solve_step(hbvm *it, double h, const double *q0, const double *p0, double *q1,
                    double *p1, wb_step_stats *stats)
{
    it->h = h, it->q0 = q0, it->p0 = p0;
    vec_copy(it->n, q0, it->start);
    vec_copy(it->n, p0, it->start + it->n);
    const int continuing = it->extrapolate && it->history_valid && it->sum.have_last &&
                           h == it->last_h && vec_equal(2 * it->n, it->start, it->sum.last);
    wb_compensated_begin(&it->sum, 2 * it->n, it->start);
    /* a failed step leaves auto's choice as it was, for (q0, p0) */
    const int mode = it->mode, newton_failed = it->newton_failed,
              jacobian_set = it->jacobian_set, refresh = it->refresh;
    int status = solve(it, continuing, stats);
    it->history_valid = 0;
    if (status != WB_OK) { /* it->lambda still belongs to the last accepted step */
        if (it->mode != mode || it->jacobian_set != jacobian_set || it->refresh != refresh)
            it->factored = 0;
        it->mode = mode, it->newton_failed = newton_failed;
        it->jacobian_set = jacobian_set, it->refresh = refresh;
        return status;
    }
    wb_count_iteration_step(stats, it->mode == HBVM_FIXED_POINT);
    update(it, q1, p1);
    it->history_valid = it->extrapolate, it->last_h = h;
    vec_copy(it->m, lambda_of(it, it->x), it->lambda);
    return WB_OK;
}
