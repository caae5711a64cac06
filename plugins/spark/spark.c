/* The `spark` family: the constrained Lobatto IIIA-IIIB pair for holonomic
 * constraints (Jay 1996; Hairer-Lubich-Wanner VII.1), for a constant mass
 * matrix:
 *
 *   Q_i = q0 + h sum_j a_ij M^-1 P_j                  (Lobatto IIIA)
 *   P_i = p0 - h sum_j ah_ij F_j,   F_j = grad V(Q_j) + G(Q_j)^T L_j   (IIIB)
 *   g(Q_i) = 0  for i = 2..s      (Q_1 = q0 holds it already)
 *   q1 = Q_s,   p1 = p0 - h sum_j b_j F_j,   G(q1) M^-1 p1 = 0.
 *
 * Unknowns per step: the s stage momenta P_i and the s multipliers L_i,
 * s (n + m) numbers, solved by Newton with the analytic Jacobian.  The
 * method is symplectic, symmetric, of order 2s-2 in (q, p), and keeps both
 * g = 0 and G M^-1 p = 0 at every node.  With s = 2 it is RATTLE
 * (L_1 = RATTLE's lambda, L_2 = its mu). */
#include <workbench/workbench.h>

#include "wb_vec.h"

#include <stdlib.h>

typedef struct spark {
    const wb_host *host;
    const wb_model *model;
    int n, m, s, size;
    const double *a, *ah, *b;
    double h;
    const double *q0, *p0;
    wb_newton *newton;
    wb_newton_options newton_options;
    double *x;        /* unknowns (P_1..P_s, L_1..L_s)                      */
    double *saved;    /* the guess, restored when a step fails              */
    double *Minv;     /* n x n                                               */
    double *Q, *F, *G, *K, *grad, *v, *p1, *T, *B, *Gv, *MG, *tmp;
} spark;

enum { OPT_S, OPT_TOL, OPT_MAX_ITER, OPT_ITERATION, OPT_STEP_TOL };
static const wb_option_spec options[] = {
    {"s", WB_OPT_INTEGER, 3, 2, 8, NULL, NULL,
     "stages of the Lobatto IIIA-IIIB pair: order 2s-2 (s = 2 is RATTLE)"},
    {"tol", WB_OPT_NUMBER, 1e-12, 1e-16, 1e-3, NULL, NULL,
     "Newton tolerance on the residuals (momenta, g/h, G M^-1 p1)"},
    {"max_iter", WB_OPT_INTEGER, 50, 1, 1000, NULL, NULL, "Newton iterations per step"},
    {"iteration", WB_OPT_CHOICE, 0, 0, 0, "newton", "newton|simplified",
     "full Newton, or simplified Newton reusing the step's first Jacobian"},
    {"step_tol", WB_OPT_NUMBER, 0, 0, 1e-3, NULL, NULL,
     "also converged when the Newton update is below step_tol (1 + |x|): 1e-15 iterates "
     "to machine precision; 0 uses the residual test alone"},
};

static const char *const requires[] = {WB_EXT_MECHANICAL, WB_EXT_HOLONOMIC, NULL};

static const wb_aux_spec aux[] = {
    {"lambda", WB_AUX_HOLONOMIC, 0, WB_AUX_AT_NODE,
     "the last stage multiplier L_s, which acts at the step's end"},
};

/* ---- layout ------------------------------------------------------------------- */

static double *stage_P(spark *k, double *x, int i) { return x + (size_t)i * k->n; }
static double *stage_L(spark *k, double *x, int i)
{
    return x + (size_t)k->s * k->n + (size_t)i * k->m;
}

/* Q_i, F_i (and G_i = G(Q_i)) for all stages, from the unknowns x. */
static void stages(spark *k, const double *x)
{
    const int n = k->n, m = k->m, s = k->s;
    for (int i = 0; i < s; i++) {
        double *Qi = k->Q + (size_t)i * n;
        vec_copy(n, k->q0, Qi);
        for (int j = 0; j < s; j++) {
            const double a = k->h * k->a[i * s + j];
            if (a == 0.0)
                continue;
            mat_vec(n, n, k->Minv, stage_P(k, (double *)x, j), k->tmp);
            vec_axpy(n, a, k->tmp, Qi);
        }
    }
    for (int j = 0; j < s; j++) {
        const double *Qj = k->Q + (size_t)j * n;
        double *Fj = k->F + (size_t)j * n, *Gj = k->G + (size_t)j * m * n;
        wb_potential_gradient(k->model, Qj, Fj);
        wb_constraint_jacobian(k->model, Qj, Gj);
        const double *L = stage_L(k, (double *)x, j);
        for (int c = 0; c < m; c++)
            vec_axpy(n, L[c], Gj + (size_t)c * n, Fj);
    }
    vec_copy(n, k->p0, k->p1);
    for (int j = 0; j < s; j++)
        vec_axpy(n, -k->h * k->b[j], k->F + (size_t)j * n, k->p1);
}

/* ---- residual and Jacobian ------------------------------------------------------- */

static int residual(void *user, const double *x, double *r)
{
    spark *k = user;
    const int n = k->n, m = k->m, s = k->s;
    stages(k, x);
    for (int i = 0; i < s; i++) { /* P_i - p0 + h sum_j ah_ij F_j */
        double *ri = r + (size_t)i * n;
        const double *Pi = stage_P(k, (double *)x, i);
        for (int c = 0; c < n; c++)
            ri[c] = Pi[c] - k->p0[c];
        for (int j = 0; j < s; j++)
            vec_axpy(n, k->h * k->ah[i * s + j], k->F + (size_t)j * n, ri);
    }
    double *rc = r + (size_t)s * n;
    for (int i = 1; i < s; i++) { /* g(Q_i) / h: O(1) sensitivity to the unknowns */
        wb_constraints(k->model, k->Q + (size_t)i * n, rc + (size_t)(i - 1) * m);
        for (int c = 0; c < m; c++)
            rc[(size_t)(i - 1) * m + c] /= k->h;
    }
    mat_vec(n, n, k->Minv, k->p1, k->v); /* G(q1) M^-1 p1, q1 = Q_s */
    mat_vec(m, n, k->G + (size_t)(s - 1) * m * n, k->v, rc + (size_t)(s - 1) * m);
    return WB_OK;
}

/* K_j = Hess V(Q_j) + T(Q_j; L_j): the derivative of F_j in Q_j. */
static void stage_hessians(spark *k, const double *x)
{
    const int n = k->n;
    for (int j = 0; j < k->s; j++) {
        double *Kj = k->K + (size_t)j * n * n;
        wb_potential_hessian(k->model, k->Q + (size_t)j * n, Kj);
        wb_constraint_hessian_contract(k->model, k->Q + (size_t)j * n,
                                       stage_L(k, (double *)x, j), k->T);
        for (int e = 0; e < n * n; e++)
            Kj[e] += k->T[e];
    }
}

static int jacobian(void *user, const double *x, double *J)
{
    spark *k = user;
    const int n = k->n, m = k->m, s = k->s, N = k->size;
    const double h = k->h;
    stages(k, x);
    stage_hessians(k, x);
    for (int e = 0; e < N * N; e++)
        J[e] = 0;
    /* W_jk = d F_j / d P_k = h a_jk K_j M^-1 (n x n), used by every block row */
    for (int i = 0; i < s; i++) {
        for (int kk = 0; kk < s; kk++) {
            /* momentum rows: d/dP_k = delta_ik I + h^2 sum_j ah_ij a_jk K_j M^-1 */
            for (int r = 0; r < n; r++)
                for (int c = 0; c < n; c++) {
                    double sum = (i == kk && r == c);
                    for (int j = 0; j < s; j++) {
                        double w = h * h * k->ah[i * s + j] * k->a[j * s + kk];
                        if (w == 0.0)
                            continue;
                        const double *Kj = k->K + (size_t)j * n * n;
                        sum += w * vec_dot(n, Kj + (size_t)r * n, k->MG + (size_t)c * n);
                    }
                    J[(size_t)(i * n + r) * N + kk * n + c] = sum;
                }
            /* d/dL_j = h ah_ij G_j^T */
            const double *Gk = k->G + (size_t)kk * m * n;
            for (int r = 0; r < n; r++)
                for (int c = 0; c < m; c++)
                    J[(size_t)(i * n + r) * N + s * n + kk * m + c] =
                        h * k->ah[i * s + kk] * Gk[(size_t)c * n + r];
        }
    }
    /* position constraints g(Q_i)/h: d/dP_k = a_ik G(Q_i) M^-1 */
    for (int i = 1; i < s; i++) {
        const double *Gi = k->G + (size_t)i * m * n;
        for (int c = 0; c < m; c++) {
            mat_t_vec(n, n, k->Minv, Gi + (size_t)c * n, k->Gv); /* (G M^-1)_c row */
            for (int kk = 0; kk < s; kk++)
                for (int col = 0; col < n; col++)
                    J[(size_t)(s * n + (i - 1) * m + c) * N + kk * n + col] =
                        k->a[i * s + kk] * k->Gv[col];
        }
    }
    /* hidden constraint G(q1) M^-1 p1:
     *   d/dP_k = B(q1, v1) h a_sk M^-1 - G(q1) M^-1 h sum_j b_j h a_jk K_j M^-1
     *   d/dL_j = -h b_j G(q1) M^-1 G_j^T */
    const double *Gs = k->G + (size_t)(s - 1) * m * n, *qs = k->Q + (size_t)(s - 1) * n;
    mat_vec(n, n, k->Minv, k->p1, k->v);
    wb_constraint_hessian_vector(k->model, qs, k->v, k->B);
    const size_t row0 = (size_t)(s * n + (s - 1) * m);
    for (int c = 0; c < m; c++) {
        mat_t_vec(n, n, k->Minv, Gs + (size_t)c * n, k->Gv); /* row c of G(q1) M^-1 */
        for (int kk = 0; kk < s; kk++) {
            for (int col = 0; col < n; col++) {
                double sum = h * k->a[(s - 1) * s + kk] *
                             vec_dot(n, k->B + (size_t)c * n, k->MG + (size_t)col * n);
                for (int j = 0; j < s; j++) {
                    double w = h * h * k->b[j] * k->a[j * s + kk];
                    if (w == 0.0)
                        continue;
                    const double *Kj = k->K + (size_t)j * n * n;
                    /* (G M^-1 K_j M^-1)_{c,col} */
                    double acc = 0;
                    for (int r = 0; r < n; r++)
                        acc += k->Gv[r] * vec_dot(n, Kj + (size_t)r * n, k->MG + (size_t)col * n);
                    sum -= w * acc;
                }
                J[(row0 + c) * N + kk * n + col] = sum;
            }
            const double *Gk = k->G + (size_t)kk * m * n;
            for (int d = 0; d < m; d++)
                J[(row0 + c) * N + s * n + kk * m + d] =
                    -h * k->b[kk] * vec_dot(n, k->Gv, Gk + (size_t)d * n);
        }
    }
    return WB_OK;
}

/* ---- the method ---------------------------------------------------------------------- */

static void destroy(void *inst)
{
    spark *k = inst;
    if (!k)
        return;
    if (k->newton)
        k->host->newton_destroy(k->host, k->newton);
    free(k->x);
    free(k);
}

static int create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                  void **inst)
{
    if (!model->mass_constant) {
        host->error(host, "spark needs a constant mass matrix; model '%s' has a "
                          "configuration-dependent one", model->name);
        return WB_ERR_INVALID;
    }
    const int s = (int)opts[OPT_S].number;
    const wb_tableau *pair = host->tableau_family(host, "lobatto_iiia_iiib", s);
    if (!pair)
        return WB_ERR_INVALID;
    if (pair->s != s || !pair->a2) {
        host->error(host, "spark: the host's Lobatto IIIA-IIIB pair has %d stages%s, "
                          "expected a pair of %d", pair->s, pair->a2 ? "" : " and no a2", s);
        return WB_ERR_INVALID;
    }
    spark *k = calloc(1, sizeof *k);
    if (!k) {
        host->error(host, "spark: out of memory");
        return WB_ERR_NOMEM;
    }
    const int n = model->nq, m = model->n_holonomic;
    k->host = host, k->model = model, k->n = n, k->m = m, k->s = s;
    k->size = s * (n + m);
    k->a = pair->a, k->ah = pair->a2, k->b = pair->b;
    host->newton_defaults(host, &k->newton_options);
    k->newton_options.tol = opts[OPT_TOL].number;
    k->newton_options.max_iter = (int)opts[OPT_MAX_ITER].number;
    k->newton_options.simplified = opts[OPT_ITERATION].string[0] == 's';
    k->newton_options.step_tol = opts[OPT_STEP_TOL].number;
    /* x, saved; Minv, MG; Q, F; G; K; v, p1, tmp, Gv; B; T */
    size_t doubles = 2 * (size_t)k->size + 2 * (size_t)n * n + 2 * (size_t)s * n +
                     (size_t)s * m * n + (size_t)s * n * n + 4 * (size_t)n + (size_t)m * n +
                     (size_t)n * n;
    k->x = calloc(doubles, sizeof(double));
    k->newton = host->newton_create(host, k->size);
    if (!k->x || !k->newton) {
        destroy(k);
        host->error(host, "spark: out of memory");
        return WB_ERR_NOMEM;
    }
    double *p = k->x + k->size;
    k->saved = p, p += k->size;
    k->Minv = p, p += (size_t)n * n;
    k->MG = p, p += (size_t)n * n;  /* M^-1 transposed columns: row c = column c of M^-1 */
    k->Q = p, p += (size_t)s * n;
    k->F = p, p += (size_t)s * n;
    k->G = p, p += (size_t)s * m * n;
    k->K = p, p += (size_t)s * n * n;
    k->v = p, p += n;
    k->p1 = p, p += n;
    k->tmp = p, p += n;
    k->Gv = p, p += n;
    k->B = p, p += (size_t)m * n;
    k->T = p;
    /* M^-1 by columns (the mass matrix is constant) */
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++)
            k->tmp[i] = (i == j);
        wb_mass_solve(model, k->tmp, k->tmp, k->v); /* q is irrelevant: M is constant */
        for (int i = 0; i < n; i++) {
            k->Minv[i * n + j] = k->v[i];
            k->MG[j * n + i] = k->v[i];
        }
    }
    *inst = k;
    return WB_OK;
}

static int reset(void *inst, double t, const double *q, const double *p)
{
    spark *k = inst;
    (void)t;
    double *L = stage_L(k, k->x, 0);
    if (wb_index1_multiplier(k->model, q, p, L) != WB_OK)
        for (int c = 0; c < k->m; c++)
            L[c] = 0;
    for (int i = 1; i < k->s; i++)
        vec_copy(k->m, L, stage_L(k, k->x, i));
    return WB_OK;
}

static int step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
                double *p1, wb_step_stats *stats)
{
    spark *k = inst;
    (void)t;
    k->h = h, k->q0 = q0, k->p0 = p0;
    /* guess: P_i = p0, every L_i = the previous step's last multiplier */
    vec_copy(k->size, k->x, k->saved);
    for (int i = 0; i < k->s; i++)
        vec_copy(k->n, p0, stage_P(k, k->x, i));
    const double *last = stage_L(k, k->saved, k->s - 1);
    for (int i = 0; i < k->s; i++)
        vec_copy(k->m, last, stage_L(k, k->x, i));
    int status = k->host->newton_solve(k->host, k->newton, residual, jacobian, k, k->x,
                                       &k->newton_options, stats, NULL);
    if (status != WB_OK) {
        vec_copy(k->size, k->saved, k->x);
        return status;
    }
    stages(k, k->x);
    stats->function_evals += (uint64_t)k->s;
    vec_copy(k->n, k->Q + (size_t)(k->s - 1) * k->n, q1);
    vec_copy(k->n, k->p1, p1);
    return WB_OK;
}

static void aux_values(const void *inst, double *out)
{
    spark *k = (spark *)inst;
    vec_copy(k->m, stage_L(k, k->x, k->s - 1), out);
}

static int describe(const wb_option_value *opts, wb_method_props *out)
{
    out->order = 2 * (int)opts[OPT_S].number - 2;
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING |
                 WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT;
    return WB_OK;
}

static const wb_method spark_method = {
    .struct_size = sizeof(wb_method),
    .name = "spark",
    .doc = "constrained Lobatto IIIA-IIIB (Jay; HLW VII.1): symplectic, order 2s-2",
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .requires = requires,
    .handles = WB_HANDLES_HOLONOMIC,
    .order_doc = "2s-2",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING |
                      WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT,
    .aux = aux,
    .n_aux = 1,
    .describe = describe,
    .create = create,
    .destroy = destroy,
    .reset = reset,
    .step = step,
    .aux_values = aux_values,
};

static const wb_method *const methods[] = {&spark_method};

static const wb_family spark_family = {
    .struct_size = sizeof(wb_family),
    .name = "spark",
    .doc = "constrained Lobatto IIIA-IIIB for holonomic constraints",
    .methods = methods,
    .n_methods = 1,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_INTEGRATOR,
    .name = "spark",
    .version = "1.0",
    .description = "constrained Lobatto IIIA-IIIB (SPARK) for holonomic constraints",
    .descriptor = &spark_family,
};
