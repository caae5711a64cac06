/* Analytic derivatives against finite differences, and structural checks.
 *
 * Each check runs at the model's initial state and at two deterministic
 * perturbations of it.  The error is relative to the derivative's own size
 * over those points: max|analytic - fd| / max(|analytic|, |fd|), so that a
 * model in tiny units (the solar system's gradients are 1e-8) is judged as
 * strictly as one in units of 1, while a derivative that happens to vanish
 * at one point is still measured against its size at the others.  A
 * derivative that is zero at every point is judged absolutely. */
#include "cli/check_model.h"
#include "host/host.h"
#include "wb_fd.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_POINTS 3

typedef struct checker {
    FILE *out;
    double tol;
    int failures;
    model_instance *mi;
    const wb_model *m;
    const model_extensions *ext;
    const fd_levels *levels;
    void *self;
    double *q[N_POINTS], *p[N_POINTS];
    double *a, *b, *c, *d, *scratch; /* work arrays */
    double *mu, *w;                   /* fixed test vectors */
} checker;

/* The worst difference and the largest size seen over the check points. */
typedef struct gap {
    double diff, scale;
} gap;

static void gap_add(gap *g, int n, const double *analytic, const double *fd)
{
    for (int i = 0; i < n; i++) {
        double d = fabs(analytic[i] - fd[i]);
        if (!isfinite(analytic[i]) || !isfinite(fd[i]))
            d = INFINITY;
        g->diff = fmax(g->diff, d);
        g->scale = fmax(g->scale, fmax(fabs(analytic[i]), fabs(fd[i])));
    }
}

/* max(worst, x) that keeps a NaN (fmax drops it): a NaN must FAIL. */
static double worse(double worst, double x)
{
    return isnan(x) || x > worst ? x : worst;
}

static double gap_error(const gap *g)
{
    return g->scale > 0 ? g->diff / g->scale : g->diff;
}

static void row(checker *c, const char *what, double err, const char *note)
{
    int ok = err <= c->tol;
    if (!ok)
        c->failures++;
    fprintf(c->out, "  %-34s %10.2e   %s%s%s\n", what, err, ok ? "ok" : "FAIL",
            note ? "   " : "", note ? note : "");
}

static void skipped(checker *c, const char *what, const char *why)
{
    fprintf(c->out, "  %-34s %10s   %s\n", what, "-", why);
}

/* Compare an analytic function with its finite differences at every point. */
#define COMPARE(label, provided, count, analytic_call, fd_call)             \
    do {                                                                    \
        if (!(provided)) {                                                  \
            skipped(c, label, "not provided: finite differences");          \
            break;                                                          \
        }                                                                   \
        gap g = {0, 0};                                                     \
        for (int k = 0; k < N_POINTS; k++) {                                \
            analytic_call;                                                  \
            fd_call;                                                        \
            gap_add(&g, count, c->a, c->b);                                 \
        }                                                                   \
        row(c, label, gap_error(&g), NULL);                                 \
    } while (0)

/* Deterministic pseudo-random numbers in [-1, 1]. */
static double jitter(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xffff) / 32767.5 - 1.0;
}

/* ---- mechanical ------------------------------------------------------------ */

static void check_mass(checker *c)
{
    const int n = c->m->nq;
    double worst_sym = 0;
    gap solve = {0, 0}, constant = {0, 0};
    int spd = 1;
    for (int k = 0; k < N_POINTS; k++) {
        wb_mass(c->m, c->q[k], c->a);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                worst_sym = worse(worst_sym, fabs(c->a[i * n + j] - c->a[j * n + i]) /
                                                 fabs(c->a[i * n + i]));
        memcpy(c->b, c->a, (size_t)n * n * sizeof(double));
        if (linalg_cholesky_factor(host_services(), n, c->b) != WB_OK)
            spd = 0;
        /* M (M^-1 p) == p */
        wb_mass_solve(c->m, c->q[k], c->p[k], c->c);
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < n; j++)
                s += c->a[i * n + j] * c->c[j];
            c->d[i] = s;
        }
        gap_add(&solve, n, c->d, c->p[k]);
        if (c->m->mass_constant && k > 0) {
            wb_mass(c->m, c->q[0], c->b);
            gap_add(&constant, n * n, c->a, c->b);
        }
    }
    row(c, "mass: symmetric", worst_sym, NULL);
    row(c, "mass: positive definite", spd ? 0.0 : INFINITY, spd ? NULL : "Cholesky failed");
    row(c, "mass_solve: M (M^-1 p) = p", gap_error(&solve),
        c->ext->mechanical->mass_solve ? NULL : "(host Cholesky)");
    if (c->m->mass_constant)
        row(c, "mass: constant as declared", gap_error(&constant), NULL);
}

static void check_potential(checker *c)
{
    const wb_mechanical_ext *e = c->ext->mechanical;
    const int n = c->m->nq;
    if (!e->potential_gradient)
        skipped(c, "potential_gradient", "not provided: finite differences of V");
    else
        COMPARE("potential_gradient", 1, n, wb_potential_gradient(c->m, c->q[k], c->a),
                fd_potential_gradient(c->m, c->scratch, c->q[k], c->b));
    COMPARE("potential_hessian", e->potential_hessian, n * n,
            wb_potential_hessian(c->m, c->q[k], c->a),
            fd_potential_hessian(c->m, c->levels->gradient, c->scratch, c->q[k], c->b));
    if (e->kinetic_gradient)
        COMPARE("kinetic_gradient", 1, n, wb_kinetic_gradient(c->m, c->q[k], c->p[k], c->a),
                fd_kinetic_gradient(c->m, c->scratch, c->q[k], c->p[k], c->b));
}

/* ---- holonomic ------------------------------------------------------------- */


static void check_holonomic(checker *c)
{
    const wb_holonomic_ext *e = c->ext->holonomic;
    const int n = c->m->nq, m = c->m->n_holonomic;
    COMPARE("constraint_jacobian", e->jacobian, m * n,
            wb_constraint_jacobian(c->m, c->q[k], c->a),
            fd_constraint_jacobian(c->m, c->scratch, c->q[k], c->b));
    COMPARE("constraint_hessian_contract", e->hessian_contract, n * n,
            wb_constraint_hessian_contract(c->m, c->q[k], c->mu, c->a),
            fd_constraint_hessian_contract(c->m, c->levels->jacobian, c->scratch, c->q[k], c->mu, c->b));
    COMPARE("constraint_hessian_vector", e->hessian_vector, m * n,
            wb_constraint_hessian_vector(c->m, c->q[k], c->w, c->a),
            fd_constraint_hessian_vector(c->m, c->levels->jacobian, c->scratch, c->q[k], c->w, c->b));
    if (e->third_contract) {
        COMPARE("constraint_third_contract", 1, n * n,
                wb_constraint_third_contract(c->m, c->q[k], c->mu, c->w, c->a),
                fd_constraint_third_contract(c->m, c->levels->contract, c->scratch, c->q[k], c->mu, c->w, c->b));
    } else if (e->flags & WB_HOLONOMIC_QUADRATIC) {
        /* the third derivatives vanish: judged against the second ones */
        double diff = 0, scale = 0;
        for (int k = 0; k < N_POINTS; k++) {
            fd_constraint_third_contract(c->m, c->levels->contract, c->scratch, c->q[k], c->mu,
                                         c->w, c->b);
            wb_constraint_hessian_contract(c->m, c->q[k], c->mu, c->a);
            for (int i = 0; i < n * n; i++)
                diff = worse(diff, fabs(c->b[i])), scale = worse(scale, fabs(c->a[i]));
        }
        row(c, "constraints quadratic (D^3 g = 0)", scale > 0 ? diff / scale : diff, NULL);
    } else {
        skipped(c, "constraint_third_contract", "not provided: finite differences");
    }
}

static void check_nonholonomic(checker *c)
{
    const wb_nonholonomic_ext *e = c->ext->nonholonomic;
    const int n = c->m->nq, k_nh = c->m->n_nonholonomic;
    double *v = c->d;
#define NH_COMPARE(label, provided, count, analytic, fd)                    \
    COMPARE(label, provided, count, (wb_mass_solve(c->m, c->q[k], c->p[k], v), analytic), fd)
    NH_COMPARE("nh_jacobian_v", e->jacobian_v, k_nh * n,
               wb_nh_jacobian_v(c->m, c->q[k], v, c->a),
               fd_nh_jacobian_v(c->m, c->scratch, c->q[k], v, c->b));
    NH_COMPARE("nh_jacobian_q", e->jacobian_q, k_nh * n,
               wb_nh_jacobian_q(c->m, c->q[k], v, c->a),
               fd_nh_jacobian_q(c->m, c->scratch, c->q[k], v, c->b));
    NH_COMPARE("nh_hessian_vv_contract", e->hessian_vv_contract, n * n,
               WB_CALL(c->m, nh_hessian_vv_contract, c->q[k], v, c->mu, c->a),
               fd_nh_hessian_vv_contract(c->m, c->levels->nh_jacobian_v, c->scratch, c->q[k], v, c->mu, c->b));
    NH_COMPARE("nh_hessian_qv_contract", e->hessian_qv_contract, n * n,
               WB_CALL(c->m, nh_hessian_qv_contract, c->q[k], v, c->mu, c->a),
               fd_nh_hessian_qv_contract(c->m, c->levels->nh_jacobian_v, c->scratch, c->q[k], v, c->mu, c->b));
    if (e->flags & WB_NONHOLONOMIC_LINEAR) {
        gap linear = {0, 0};
        for (int k = 0; k < N_POINTS; k++) {
            wb_mass_solve(c->m, c->q[k], c->p[k], v);
            wb_nh_constraints(c->m, c->q[k], v, c->a);
            for (int i = 0; i < n; i++)
                c->c[i] = 2 * v[i];
            wb_nh_constraints(c->m, c->q[k], c->c, c->b);
            for (int i = 0; i < k_nh; i++)
                c->a[i] *= 2;
            gap_add(&linear, k_nh, c->a, c->b);
        }
        row(c, "nonholonomic: linear in v", gap_error(&linear), NULL);
    }
#undef NH_COMPARE
}

/* ---- the initial state and the flow ------------------------------------------ */

/* y' = f(y) for a mechanical model: q' = M^-1 p, p' = -grad V - dT/dq - G^T lambda. */
static int vector_field(checker *c, const double *q, const double *p, double *dq, double *dp)
{
    const wb_model *m = c->m;
    const int n = m->nq;
    double *tmp = c->scratch;
    wb_mass_solve(m, q, p, dq);
    wb_potential_gradient(m, q, dp);
    wb_kinetic_gradient(m, q, p, tmp);
    for (int i = 0; i < n; i++)
        dp[i] = -(dp[i] + tmp[i]);
    if (m->n_holonomic > 0) {
        double *lambda = tmp + n, *G = lambda + m->n_holonomic;
        if (wb_index1_multiplier(m, q, p, lambda) != WB_OK)
            return -1;
        wb_constraint_jacobian(m, q, G);
        for (int k = 0; k < m->n_holonomic; k++)
            for (int i = 0; i < n; i++)
                dp[i] -= G[k * n + i] * lambda[k];
    }
    return 0;
}

/* The energy and the invariants at y + e f, f restricted to component
 * `only` (all components when only < 0), y = check point `point`; out
 * holds ninv + 1 values, the energy last. */
static void shifted_integrals(checker *c, int point, const double *f, double e, int only,
                              double *out)
{
    const wb_model *m = c->m;
    const int n = m->nq;
    double *qs = c->b, *ps = c->b + n;
    for (int i = 0; i < 2 * n; i++) {
        double shift = (only < 0 || only == i) ? e * f[i] : 0.0;
        if (i < n)
            qs[i] = c->q[point][i] + shift;
        else
            ps[i - n] = c->p[point][i - n] + shift;
    }
    out[m->n_invariants] = wb_energy(m, qs, ps);
    if (m->n_invariants)
        wb_invariants(m, qs, ps, out);
}

/* At check point `point`: for each integral I (energy last), add to rate[k]
 * the size of dI/dt = sum_i dI/dy_i f_i when it rises above the
 * differences' noise eps |I| / e, and to terms[k] the sizes of the terms
 * |dI/dy_i f_i|, which must cancel.  Returns -1 when the index-1 multiplier
 * cannot be formed there. */
static int flow_balance(checker *c, int point, double *rate, double *terms)
{
    const wb_model *m = c->m;
    const int n = m->nq, count = m->n_invariants + 1;
    double *f = c->a, *plus = c->c, *minus = c->c + count, *noise = c->c + 2 * count;
    if (vector_field(c, c->q[point], c->p[point], f, f + n) != 0)
        return -1;
    double speed = 0;
    for (int i = 0; i < 2 * n; i++)
        speed = worse(speed, fabs(f[i]));
    if (speed == 0)
        return 0; /* an equilibrium: nothing moves, nothing to balance */
    const double e = 1e-5 / speed;
    shifted_integrals(c, point, f, 0.0, -1, plus);
    for (int k = 0; k < count; k++)
        noise[k] = 16 * DBL_EPSILON * fabs(plus[k]) / e;
    for (int i = -1; i < 2 * n; i++) {
        shifted_integrals(c, point, f, e, i, plus);
        shifted_integrals(c, point, f, -e, i, minus);
        for (int k = 0; k < count; k++) {
            double r = fabs(plus[k] - minus[k]) / (2 * e);
            if (i >= 0)
                terms[k] = worse(terms[k], r);
            else if (!(r <= noise[k]))
                rate[k] = worse(rate[k], r);
        }
    }
    return 0;
}

/* The energy and each invariant are constant along the flow: |dI/dt|
 * relative to the largest term of the sum that must cancel, over the check
 * points (only the consistent initial state when there are constraints;
 * several points, because at a minimum of V every term vanishes). */
static void check_flow(checker *c)
{
    const wb_model *m = c->m;
    const int count = m->n_invariants + 1;
    if (!(m->capabilities & WB_CAP_MECHANICAL) || m->n_nonholonomic > 0)
        return;
    if (m->n_holonomic > 0 && !(m->capabilities & WB_CAP_INITIAL_STATE)) {
        skipped(c, "flow: first integrals", "no consistent state (no wb.initial_state)");
        return;
    }
    double *rate = c->d, *terms = c->d + count;
    for (int k = 0; k < 2 * count; k++)
        c->d[k] = 0;
    const int points = m->n_holonomic > 0 ? 1 : N_POINTS;
    for (int point = 0; point < points; point++)
        if (flow_balance(c, point, rate, terms) != 0) {
            row(c, "flow: index-1 multiplier", INFINITY, "G M^-1 G^T singular");
            return;
        }
    for (int k = 0; k < count; k++) {
        char label[96];
        snprintf(label, sizeof label, "flow: d%s/dt = 0",
                 k < m->n_invariants ? m->invariant_names[k] : "E");
        row(c, label, terms[k] > 0 ? rate[k] / terms[k] : rate[k], NULL);
    }
}

static void check_generators(checker *c)
{
    const wb_model *m = c->m;
    if (!c->ext->invariants || !c->ext->invariants->generator)
        return;
    for (int i = 0; i < m->n_invariants; i++) {
        gap g = {0, 0};
        int is_map = 1;
        for (int k = 0; k < N_POINTS && is_map; k++) {
            if (WB_CALL(m, invariant_generator, i, c->q[k], c->a) != 0) {
                is_map = 0;
                break;
            }
            double j = 0;
            for (int l = 0; l < m->nq; l++)
                j += c->p[k][l] * c->a[l];
            wb_invariants(m, c->q[k], c->p[k], c->b);
            gap_add(&g, 1, &j, c->b + i);
        }
        if (is_map) {
            char label[96];
            snprintf(label, sizeof label, "momentum map %s = p.xi(q)", m->invariant_names[i]);
            row(c, label, gap_error(&g), NULL);
        }
    }
}

static void check_initial_state(checker *c)
{
    const wb_model *m = c->m;
    if (m->n_holonomic > 0) {
        wb_constraints(m, c->q[0], c->a);
        row(c, "initial state: g(q0) = 0", vec_max_abs(m->n_holonomic, c->a), NULL);
        wb_hidden_constraints(m, c->q[0], c->p[0], c->a);
        row(c, "initial state: G M^-1 p0 = 0", vec_max_abs(m->n_holonomic, c->a), NULL);
    }
    if (m->n_nonholonomic > 0) {
        wb_mass_solve(m, c->q[0], c->p[0], c->c);
        wb_nh_constraints(m, c->q[0], c->c, c->a);
        row(c, "initial state: Phi(q0, v0) = 0", vec_max_abs(m->n_nonholonomic, c->a), NULL);
    }
}

/* ---- potential invariants ----------------------------------------------------- */

/* V = sum_i V_i(pi_i), the invariants' gradients and the V_i' against finite
 * differences, the closed-form quotient if any, and the defining property of
 * the discrete gradient: DG V(q0, q1) . (q1 - q0) = V(q1) - V(q0). */
static void check_potential_invariants(checker *c)
{
    const wb_model *m = c->m;
    const wb_potential_invariants_ext *e = c->ext->potential_invariants;
    void *self = c->self;
    const int n = m->nq, k = m->n_potential_invariants;
    double *pi = c->c, *V = pi + k, *dV = V + k, *pp = dV + k, *fd = pp + k, *x = fd + k * n;
    gap sum = {0, 0}, grad = {0, 0}, slope = {0, 0}, quotient = {0, 0}, direction = {0, 0};
    gap midpoint = {0, 0}; /* pi(q1) - pi(q0) = grad pi(q_mid) (q1 - q0)? */
    for (int point = 0; point < N_POINTS; point++) {
        const double *q = c->q[point];
        e->invariants(self, q, pi);
        e->potentials(self, pi, V, dV);
        double total = 0;
        for (int i = 0; i < k; i++)
            total += V[i];
        double v = wb_potential(m, q);
        gap_add(&sum, 1, &total, &v);
        e->invariants_gradient(self, q, c->a);
        for (int j = 0; j < n; j++) { /* d pi / d q_j, column j */
            double h = wb_fd_step(q[j], 0);
            memcpy(x, q, (size_t)n * sizeof(double));
            x[j] = q[j] + h;
            e->invariants(self, x, pp);
            x[j] = q[j] - h;
            e->invariants(self, x, fd);
            for (int i = 0; i < k; i++)
                c->b[i * n + j] = (pp[i] - fd[i]) / (2 * h);
        }
        gap_add(&grad, k * n, c->a, c->b);
        for (int i = 0; i < k; i++) { /* V_i' */
            double h = wb_fd_step(pi[i], 0), vp[2];
            memcpy(pp, pi, (size_t)k * sizeof(double));
            pp[i] = pi[i] + h;
            e->potentials(self, pp, fd, NULL);
            vp[0] = fd[i];
            pp[i] = pi[i] - h;
            e->potentials(self, pp, fd, NULL);
            vp[1] = (vp[0] - fd[i]) / (2 * h);
            gap_add(&slope, 1, &dV[i], &vp[1]);
        }
        const double *q1 = c->q[(point + 1) % N_POINTS];
        if (e->difference_quotient) {
            e->invariants(self, q1, pp);
            e->difference_quotient(self, pi, pp, c->a);
            e->potentials(self, pp, fd, NULL);
            for (int i = 0; i < k; i++)
                c->b[i] = (fd[i] - V[i]) / (pp[i] - pi[i]);
            gap_add(&quotient, k, c->a, c->b);
        }
        WB_CALL(m, potential_discrete_gradient, q, q1, c->a);
        double change = 0, predicted = wb_potential(m, q1) - v;
        for (int j = 0; j < n; j++)
            change += c->a[j] * (q1[j] - q[j]);
        gap_add(&direction, 1, &change, &predicted);
        for (int j = 0; j < n; j++)
            x[j] = 0.5 * (q[j] + q1[j]);
        e->invariants_gradient(self, x, c->b);
        e->invariants(self, q1, pp);
        for (int i = 0; i < k; i++) {
            double rule = 0;
            for (int j = 0; j < n; j++)
                rule += c->b[i * n + j] * (q1[j] - q[j]);
            c->d[i] = pp[i] - pi[i];
            c->d[k + i] = rule;
        }
        gap_add(&midpoint, k, c->d + k, c->d);
    }
    row(c, "potential = sum V_i(pi_i)", gap_error(&sum), NULL);
    row(c, "invariants_gradient", gap_error(&grad), NULL);
    row(c, "potentials: V_i'", gap_error(&slope), NULL);
    if (e->difference_quotient)
        row(c, "difference_quotient", gap_error(&quotient), NULL);
    /* Greenspan's DG is a discrete gradient only when the midpoint rule is
     * exact for the invariants, i.e. when they are quadratic */
    if (gap_error(&midpoint) <= c->tol)
        row(c, "discrete gradient: DG.dq = dV", gap_error(&direction),
            "(the invariants are quadratic)");
    else
        skipped(c, "discrete gradient: DG.dq = dV",
                "invariants not quadratic: Greenspan's DG is not exact for them");
}

/* ---- Lie group ---------------------------------------------------------------- */

static void check_lie_group(checker *c)
{
    const wb_lie_group_ext *g = c->m->lie_group;
    void *self = c->m->lie_self;
    const int nq = c->m->nq, nv = c->m->nv;
    double *x = c->mu, *y = c->w, *mu = c->d;
    double *A = c->a, *B = c->b, *C = c->c;
    gap inv = {0, 0}, dexp = {0, 0}, log_exp = {0, 0};
    gap dual_Ad = {0, 0}, dual_ad = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        const double *q = c->q[k];
        g->inverse(self, q, A);           /* q q^-1 = e */
        g->compose(self, q, A, B);
        g->identity(self, C);
        gap_add(&inv, nq, B, C);
        g->dexpinv(self, x, y, A);        /* dexp_x dexpinv_x y = y */
        g->dexp(self, x, A, B);
        gap_add(&dexp, nv, B, y);
        g->Ad(self, q, y, A);             /* <Ad*_q mu, y> = <mu, Ad_q y> */
        g->Ad_star(self, q, mu, B);
        double pairing[2] = {vec_dot(nv, B, y), vec_dot(nv, mu, A)};
        gap_add(&dual_Ad, 1, &pairing[0], &pairing[1]);
        g->ad(self, x, y, A);             /* <ad*_x mu, y> = <mu, [x, y]> */
        g->ad_star(self, x, mu, B);
        pairing[0] = vec_dot(nv, B, y), pairing[1] = vec_dot(nv, mu, A);
        gap_add(&dual_ad, 1, &pairing[0], &pairing[1]);
        if (g->log) {
            g->exp(self, x, A);
            g->log(self, A, B);
            gap_add(&log_exp, nv, B, x);
        }
    }
    row(c, "lie: q q^-1 = e", gap_error(&inv), NULL);
    row(c, "lie: dexp o dexpinv = id", gap_error(&dexp), NULL);
    row(c, "lie: Ad* is the dual of Ad", gap_error(&dual_Ad), NULL);
    row(c, "lie: ad* is the dual of ad", gap_error(&dual_ad), NULL);
    if (g->log)
        row(c, "lie: log(exp(x)) = x", gap_error(&log_exp), NULL);
}

/* f1 = D2 H and <f2, eta> = -d/de H(exp(e eta) q, mu). */
static void check_lie_hamiltonian(checker *c)
{
    const wb_lie_group_ext *g = c->m->lie_group;
    const wb_lie_hamiltonian_ext *h = c->m->lie_hamiltonian;
    void *self = c->m->lie_self;
    const int nq = c->m->nq, nv = c->m->nv;
    double *f1 = c->a, *f2 = c->a + nv, *fd1 = c->b, *fd2 = c->b + nv;
    double *eta = c->c, *E = c->c + nv, *qs = E + nq, *ms = c->d;
    gap e1 = {0, 0}, e2 = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        const double *q = c->q[k], *mu = c->p[k];
        h->vector_field(self, q, mu, f1, f2);
        for (int j = 0; j < nv; j++) {
            double step = wb_fd_step(mu[j], 0);
            memcpy(ms, mu, (size_t)nv * sizeof(double));
            ms[j] = mu[j] + step;
            double hp = h->hamiltonian(self, q, ms);
            ms[j] = mu[j] - step;
            double hm = h->hamiltonian(self, q, ms);
            fd1[j] = (hp - hm) / (2 * step);
            for (int i = 0; i < nv; i++)
                eta[i] = (i == j) ? wb_fd_step(1.0, 0) : 0.0;
            g->exp(self, eta, E);
            g->compose(self, E, q, qs);
            hp = h->hamiltonian(self, qs, mu);
            eta[j] = -eta[j];
            g->exp(self, eta, E);
            g->compose(self, E, q, qs);
            hm = h->hamiltonian(self, qs, mu);
            fd2[j] = -(hp - hm) / (2 * wb_fd_step(1.0, 0));
        }
        gap_add(&e1, nv, f1, fd1);
        gap_add(&e2, nv, f2, fd2);
    }
    row(c, "lie_hamiltonian: f1 = D2 H", gap_error(&e1), NULL);
    row(c, "lie_hamiltonian: f2 = -(D1 H) q^-1", gap_error(&e2), NULL);
}

/* ---- driver --------------------------------------------------------------------- */

static int setup_points(checker *c)
{
    const wb_model *m = c->m;
    const int nq = m->nq, nv = m->nv;
    unsigned seed = 12345u;
    if (m->capabilities & WB_CAP_INITIAL_STATE) {
        wb_initial(m, c->q[0], c->p[0]);
    } else if (m->lie_group) {
        m->lie_group->identity(m->lie_self, c->q[0]);
        for (int i = 0; i < nv; i++)
            c->p[0][i] = 0.5 + 0.1 * i;
    } else {
        for (int i = 0; i < nq; i++)
            c->q[0][i] = 0.3 + 0.1 * i;
        for (int i = 0; i < nv; i++)
            c->p[0][i] = 0.2 - 0.05 * i;
    }
    for (int k = 1; k < N_POINTS; k++) {
        if (m->lie_group) {
            for (int i = 0; i < nv; i++)
                c->a[i] = 0.3 * jitter(&seed);
            m->lie_group->exp(m->lie_self, c->a, c->b);
            m->lie_group->compose(m->lie_self, c->b, c->q[0], c->q[k]);
        } else {
            for (int i = 0; i < nq; i++)
                c->q[k][i] = c->q[0][i] + 0.1 * jitter(&seed) * fmax(1, fabs(c->q[0][i]));
        }
        for (int i = 0; i < nv; i++)
            c->p[k][i] = c->p[0][i] + 0.1 * jitter(&seed) * fmax(1, fabs(c->p[0][i]));
    }
    int nmax = nq > nv ? nq : nv;
    for (int i = 0; i < nmax; i++) {
        c->mu[i] = 0.5 + 0.4 * jitter(&seed);
        c->w[i] = jitter(&seed);
    }
    return 0;
}

int check_model(model_instance *mi, FILE *out, double tol)
{
    const wb_model *m = model_instance_view(mi);
    checker c = {.out = out, .tol = tol, .mi = mi, .m = m, .ext = model_instance_extensions(mi),
                 .levels = model_instance_fd_levels(mi), .self = model_instance_self(mi)};
    int n = m->nq + m->nv + m->n_holonomic + m->n_nonholonomic + m->n_invariants +
            m->n_potential_invariants + 4;
    size_t big = (size_t)n * n + 4 * (size_t)n;
    double *block = calloc(2 * N_POINTS * (size_t)n + 4 * big + fd_scratch_size(m) + 2 * (size_t)n,
                           sizeof(double));
    if (!block) {
        fprintf(out, "out of memory\n");
        return 1;
    }
    double *p = block;
    for (int k = 0; k < N_POINTS; k++) {
        c.q[k] = p, p += n;
        c.p[k] = p, p += n;
    }
    c.a = p, p += big;
    c.b = p, p += big;
    c.c = p, p += big;
    c.d = p, p += big;
    c.mu = p, p += n;
    c.w = p, p += n;
    c.scratch = p;
    setup_points(&c);
    fprintf(out, "model %s: nq %d, nv %d, holonomic %d, nonholonomic %d, invariants %d, "
                 "mass %s\n", m->name, m->nq, m->nv, m->n_holonomic, m->n_nonholonomic,
            m->n_invariants, m->mass_constant ? "constant" : "configuration-dependent");
    fprintf(out, "  %-34s %10s   %s\n", "check", "rel. error", "status");
    if (m->capabilities & WB_CAP_MECHANICAL) {
        check_mass(&c);
        check_potential(&c);
    }
    if (m->n_holonomic > 0)
        check_holonomic(&c);
    if (m->n_nonholonomic > 0)
        check_nonholonomic(&c);
    if (m->capabilities & WB_CAP_INITIAL_STATE)
        check_initial_state(&c);
    check_flow(&c);
    check_generators(&c);
    if (m->capabilities & WB_CAP_POTENTIAL_INVARIANTS)
        check_potential_invariants(&c);
    if (m->lie_group)
        check_lie_group(&c);
    if (m->lie_hamiltonian)
        check_lie_hamiltonian(&c);
    fprintf(out, "%s: %d check(s) failed (tolerance %.1e)\n", m->name, c.failures, tol);
    free(block);
    return c.failures;
}
