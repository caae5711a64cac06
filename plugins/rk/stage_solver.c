/* Partitioned Runge-Kutta steps for mechanical models (see stage_solver.h). */
#include "stage_solver.h"
#include "wb_vec.h"

#include <float.h>
#include <stdlib.h>

struct stage_solver {
    const wb_host *host;
    const wb_model *model;
    int n;          /* configuration dimension          */
    int s;          /* stages                            */
    int dim;        /* 2n: one stage state (q, p)        */
    int size;       /* s * dim unknowns                  */
    const double *aq, *ap, *bq, *bp, *cq, *cp;
    int explicit_tableau;
    int iteration, max_iter, compensated;
    double tol;
    double *dq, *dp;    /* b^T A^-1 when A is invertible, else NULL */
    double *Z, *F, *R, *Y, *J, *matrix, *error, *last, *work;
    int *pivots;
    int have_last;
};

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

/* J = dF/dy at y, dim x dim.  Blocks that a configuration-dependent mass
 * matrix adds (d(M^-1 p)/dq, d^2T/dq^2, d^2T/dq dp) come from central
 * differences of the model's own functions. */
static void field_jacobian(stage_solver *s, const double *y, double *J, wb_step_stats *stats)
{
    const int n = s->n, dim = s->dim;
    double *unit = s->work, *column = s->work + n, *H = s->work + 2 * n;
    for (int i = 0; i < dim * dim; i++)
        J[i] = 0;
    for (int j = 0; j < n; j++) { /* dq/dp = M^-1 */
        for (int i = 0; i < n; i++)
            unit[i] = (i == j);
        wb_mass_solve(s->model, y, unit, column);
        for (int i = 0; i < n; i++)
            J[i * dim + n + j] = column[i];
    }
    wb_potential_hessian(s->model, y, H);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            J[(n + i) * dim + j] = -H[i * n + j];
    if (!s->model->mass_constant) {
        double *yp = H, *plus = H + dim, *minus = plus + dim;
        for (int j = 0; j < dim; j++) {
            const double step = 6.0554544523933395e-06 * fmax(1.0, fabs(y[j]));
            vec_copy(dim, y, yp);
            yp[j] = y[j] + step;
            field(s, yp, plus, stats);
            yp[j] = y[j] - step;
            field(s, yp, minus, stats);
            for (int i = 0; i < dim; i++)
                if (!(i < n && j >= n)) /* M^-1 is exact above */
                    J[i * dim + j] = (plus[i] - minus[i]) / (2 * step);
        }
    }
    stats->jacobian_evals++;
}

/* ---- set-up -------------------------------------------------------------------------- */

static int strictly_lower(int s, const double *a)
{
    for (int i = 0; i < s; i++)
        for (int j = i; j < s; j++)
            if (a[i * s + j] != 0.0)
                return 0;
    return 1;
}

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

void stage_solver_destroy(stage_solver *s)
{
    if (!s)
        return;
    free(s->dq);
    free(s->Z);
    free(s->pivots);
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
        *status = WB_ERR_NOMEM;
        return NULL;
    }
    s->host = host, s->model = model;
    s->n = model->nq, s->s = t->s, s->dim = 2 * model->nq, s->size = t->s * s->dim;
    s->aq = t->a, s->bq = t->b, s->cq = t->c;
    s->ap = config->partitioned ? t->a2 : t->a;
    s->bp = config->partitioned ? t->b2 : t->b;
    s->cp = config->partitioned ? t->c2 : t->c;
    s->explicit_tableau = strictly_lower(t->s, s->aq) && strictly_lower(t->s, s->ap);
    s->iteration = config->iteration, s->tol = config->tol;
    s->max_iter = config->max_iter, s->compensated = config->compensated;
    const size_t n = (size_t)s->n, dim = (size_t)s->dim, size = (size_t)s->size;
    s->dq = calloc(2 * (size_t)t->s, sizeof(double));
    s->Z = calloc(3 * size + dim + size * dim + size * size + 3 * dim + 3 * dim * dim + 4 * n,
                  sizeof(double));
    s->pivots = calloc(size, sizeof(int));
    if (!s->dq || !s->Z || !s->pivots) {
        stage_solver_destroy(s);
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
    s->error = s->matrix + size * size;
    s->last = s->error + dim;
    s->work = s->last + dim;           /* 3 dim^2 + 4 n + dim */
    *status = WB_OK;
    return s;
}

void stage_solver_reset(stage_solver *s)
{
    s->have_last = 0;
    for (int i = 0; i < s->dim; i++)
        s->error[i] = 0;
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
        if (norm == 0.0 || norm <= s->tol)
            return WB_OK;
        /* converged to round-off: the increment stops decreasing */
        if (it > 0 && norm >= previous && norm <= 1e-10 * (1.0 + vec_max_abs(size, s->Z)))
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

int stage_solver_step(stage_solver *s, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    const int n = s->n, dim = s->dim, st = s->s;
    double *y0 = s->work + 3 * dim * dim + 4 * n; /* after field_jacobian's scratch */
    vec_copy(n, q0, y0);
    vec_copy(n, p0, y0 + n);
    if (!s->have_last || !vec_equal(dim, y0, s->last))
        for (int k = 0; k < dim; k++)
            s->error[k] = 0; /* a new start: nothing to compensate */
    if (s->explicit_tableau) {
        explicit_stages(s, h, y0, stats);
        increment(s, h, y0, stats, 1);
    } else {
        field(s, y0, s->F, stats); /* first guess Z_i = h c_i F(y0) */
        for (int i = 0; i < st; i++)
            for (int k = 0; k < dim; k++)
                s->Z[(size_t)i * dim + k] = h * (k < n ? s->cq[i] : s->cp[i]) * s->F[k];
        int status = iterate(s, h, y0, stats);
        if (status != WB_OK)
            return status;
        increment(s, h, y0, stats, 0);
    }
    double *y1 = s->last;
    for (int k = 0; k < dim; k++) {
        const double inc = s->R[k] + (s->compensated ? s->error[k] : 0.0);
        y1[k] = y0[k] + inc;
        s->error[k] = s->compensated ? inc - (y1[k] - y0[k]) : 0.0;
    }
    s->have_last = 1;
    vec_copy(n, y1, q1);
    vec_copy(n, y1 + n, p1);
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
                                    : ITERATE_FIXED_POINT,
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

int stage_method_step(void *inst, double t, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    (void)t;
    return stage_solver_step(inst, h, q0, p0, q1, p1, stats);
}

static int holds(double defect) { return defect <= 1e-12; }

static double power(double x, int k)
{
    double r = 1;
    while (k-- > 0)
        r *= x;
    return r;
}

/* Largest p, q, r (p <= 2s, q, r <= s) with B(p), C(q), D(r). */
static void simplifying(int s, const double *a, const double *b, const double *c, int *p,
                        int *q, int *r)
{
    *p = *q = *r = 0;
    for (int k = 1; k <= 2 * s; k++) {
        double sum = 0;
        for (int i = 0; i < s; i++)
            sum += b[i] * power(c[i], k - 1);
        if (!holds(fabs(sum - 1.0 / k)))
            break;
        *p = k;
    }
    for (int k = 1; k <= s; k++) {
        int ok = 1;
        for (int i = 0; i < s && ok; i++) {
            double sum = 0;
            for (int j = 0; j < s; j++)
                sum += a[i * s + j] * power(c[j], k - 1);
            ok = holds(fabs(sum - power(c[i], k) / k));
        }
        if (!ok)
            break;
        *q = k;
    }
    for (int k = 1; k <= s; k++) {
        int ok = 1;
        for (int j = 0; j < s && ok; j++) {
            double sum = 0;
            for (int i = 0; i < s; i++)
                sum += b[i] * power(c[i], k - 1) * a[i * s + j];
            ok = holds(fabs(sum - b[j] * (1.0 - power(c[j], k)) / k));
        }
        if (!ok)
            break;
        *r = k;
    }
}

static int butcher_bound(int s, const double *a, const double *b, const double *c)
{
    int p, q, r;
    simplifying(s, a, b, c, &p, &q, &r);
    int bound = p;
    if (q + r + 1 < bound)
        bound = q + r + 1;
    if (2 * q + 2 < bound)
        bound = 2 * q + 2;
    return bound;
}

static int describe(const wb_tableau *t, int partitioned, wb_method_props *out)
{
    const int s = t->s;
    const double *a2 = partitioned ? t->a2 : t->a, *b2 = partitioned ? t->b2 : t->b;
    const double *c2 = partitioned ? t->c2 : t->c;
    int cap = partitioned ? 6 : 8; /* the host's tree checks go this far */
    int order = t->order;
    if (order >= cap) {
        int bound = butcher_bound(s, t->a, t->b, t->c);
        int bound2 = butcher_bound(s, a2, b2, c2);
        if (bound2 < bound)
            bound = bound2;
        if (bound > order)
            order = bound;
    }
    out->order = order;
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
    if (strictly_lower(s, t->a) && strictly_lower(s, a2))
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
