/* Partitioned Runge-Kutta steps for mechanical models (see stage_solver.h):
 * set-up, the step and its compensated update, the method callbacks. */
#include "stage_solver_internal.h"
#include "wb_vec.h"

#include <stdlib.h>


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
    free(s->separable);
    free(s->qpivots);
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
    s->explicit_tableau = strictly_lower(t->s, s->aq) && strictly_lower(t->s, s->ap);
    s->iteration = config->iteration, s->tol = config->tol;
    s->max_iter = config->max_iter, s->sum.enabled = config->compensated;
    const size_t n = (size_t)s->n, dim = (size_t)s->dim, size = (size_t)s->size;
    s->dq = calloc(2 * (size_t)t->s, sizeof(double));
    s->Z = calloc(3 * size + dim + size * dim + size * size + 3 * dim + 3 * dim * dim + 4 * n,
                  sizeof(double));
    s->pivots = calloc(size, sizeof(int));
    if (!s->dq || !s->Z || !s->pivots) {
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
    if (model->mass_constant && !s->explicit_tableau && separable_setup(s) != 0) {
        stage_solver_destroy(s);
        host->error(host, "stage solver: out of memory (%d stages, dimension %d)", t->s, model->nq);
        *status = WB_ERR_NOMEM;
        return NULL;
    }
    *status = WB_OK;
    return s;
}

void stage_solver_reset(stage_solver *s)
{
    wb_compensated_restart(&s->sum);
}

void stage_solver_carry(const stage_solver *s, double *carry)
{
    wb_compensated_state(&s->sum, s->dim, carry);
}

void stage_solver_resume(stage_solver *s, const double *q, const double *p,
                         const double *carry)
{
    vec_copy(s->n, q, s->sum.last);
    vec_copy(s->n, p, s->sum.last + s->n);
    wb_compensated_resume(&s->sum, s->dim, s->sum.last, carry);
}

int stage_solver_step(stage_solver *s, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    const int n = s->n, dim = s->dim;
    double *y0 = s->work + 3 * dim * dim + 4 * n; /* after field_jacobian's scratch */
    vec_copy(n, q0, y0);
    vec_copy(n, p0, y0 + n);
    wb_compensated_begin(&s->sum, dim, y0);
    int status = s->separable ? separable_increment(s, h, y0, stats)
                              : general_increment(s, h, y0, stats);
    if (status != WB_OK)
        return status;
    double *y1 = s->sum.last;
    wb_compensated_add(&s->sum, dim, y0, s->R, y1);
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

int stage_method_start(void *inst, double t, double h, const double *q, const double *p,
                       const double *carry)
{
    (void)h;
    if (!carry)
        return stage_method_reset(inst, t, q, p);
    stage_solver_resume(inst, q, p, carry);
    return WB_OK;
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

int stage_method_validate_prk(const wb_host *host, const wb_option_value *opts)
{
    const wb_tableau *t = opts[STAGE_OPT_TABLEAU].tableau;
    if (t->a2)
        return WB_OK;
    host->error(host, "tableau '%s' is not a partitioned pair (it has no a2, b2); use e.g. "
                      "lobatto_iiia_iiib3 or wb.tableau{a =, b =, a2 =, b2 =}", t->name);
    return WB_ERR_INVALID;
}
