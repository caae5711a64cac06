/* check-model on a Lie-group model: the group's functions against each
 * other and against central differences on the group (in the numbers q
 * that represent an element), the Hamiltonian's and the Lagrangian's
 * trivialised derivatives, and the two descriptions against each other. */
#include "cli/check_model_internal.h"
#include "wb_fd.h"
#include "wb_vec.h"

#include <string.h>

#define STEP WB_FD_CENTRAL_STEP

/* A deterministic algebra element of size ~0.6 for check point k. */
static void algebra_point(const checker *c, int k, double *x)
{
    unsigned seed = 777u + 31u * (unsigned)k;
    for (int i = 0; i < c->m->nv; i++)
        x[i] = 0.6 * jitter(&seed);
}

/* out = exp(e u) q */
static void moved(const wb_model *m, const double *u, double e, const double *q,
                  double *work, double *out)
{
    double *eta = work, *E = work + m->nv;
    for (int i = 0; i < m->nv; i++)
        eta[i] = e * u[i];
    wb_lie_exp(m, eta, E);
    wb_lie_compose(m, E, q, out);
}

/* d/de exp(e u) q at e = 0, in the representation: (nq values) */
static void tangent_at(const wb_model *m, const double *u, const double *q, double *work,
                       double *out)
{
    double *plus = work, *minus = plus + m->nq, *rest = minus + m->nq;
    moved(m, u, STEP, q, rest, plus);
    moved(m, u, -STEP, q, rest, minus);
    for (int i = 0; i < m->nq; i++)
        out[i] = (plus[i] - minus[i]) / (2 * STEP);
}

/* A retraction of the algebra onto the group: exp or cay. */
typedef void (*retraction)(const wb_model *m, const double *xi, double *g);
static void retract_exp(const wb_model *m, const double *xi, double *g) { wb_lie_exp(m, xi, g); }
static void retract_cay(const wb_model *m, const double *xi, double *g) { wb_lie_cay(m, xi, g); }

/* d/de R(x + e v) at e = 0, in the representation. */
static void retraction_derivative(const wb_model *m, retraction R, const double *x,
                                  const double *v, double *work, double *out)
{
    double *shifted = work, *plus = shifted + m->nv, *minus = plus + m->nq;
    for (int i = 0; i < m->nv; i++)
        shifted[i] = x[i] + STEP * v[i];
    R(m, shifted, plus);
    for (int i = 0; i < m->nv; i++)
        shifted[i] = x[i] - STEP * v[i];
    R(m, shifted, minus);
    for (int i = 0; i < m->nq; i++)
        out[i] = (plus[i] - minus[i]) / (2 * STEP);
}

/* d/de R(x + e v) = (dR_x v) R(x): both sides by differences. */
static double retraction_gap(checker *c, retraction R,
                             void (*derivative)(const wb_model *, const double *,
                                                const double *, double *))
{
    const wb_model *m = c->m;
    double *x = c->mu + m->nv, *u = c->d, *g = u + m->nv;
    gap e = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        algebra_point(c, k, x);
        retraction_derivative(m, R, x, c->w, c->scratch, c->a);
        derivative(m, x, c->w, u);
        R(m, x, g);
        tangent_at(m, u, g, c->scratch, c->b);
        gap_add(&e, m->nq, c->a, c->b);
    }
    return gap_error(&e);
}

static void view_dexp(const wb_model *m, const double *x, const double *v, double *out)
{
    wb_lie_dexp(m, x, v, out);
}

static void view_dcay(const wb_model *m, const double *x, const double *v, double *out)
{
    wb_lie_dcay(m, x, v, out);
}

/* q q^-1 = e, e q = q, exp(x) exp(-x) = e */
static void check_axioms(checker *c)
{
    const wb_model *m = c->m;
    const int nq = m->nq, nv = m->nv;
    double *e = c->c, *x = c->x, *minus = x + nv;
    gap inverse = {0, 0}, identity = {0, 0}, exponential = {0, 0};
    wb_lie_identity(m, e);
    for (int k = 0; k < N_POINTS; k++) {
        wb_lie_inverse(m, c->q[k], c->a);
        wb_lie_compose(m, c->q[k], c->a, c->b);
        gap_add(&inverse, nq, c->b, e);
        wb_lie_compose(m, e, c->q[k], c->b);
        gap_add(&identity, nq, c->b, c->q[k]);
        algebra_point(c, k, x);
        for (int i = 0; i < nv; i++)
            minus[i] = -x[i];
        wb_lie_exp(m, x, c->a);
        wb_lie_exp(m, minus, c->d);
        wb_lie_compose(m, c->a, c->d, c->b);
        gap_add(&exponential, nq, c->b, e);
    }
    row(c, "lie: q q^-1 = e", gap_error(&inverse), NULL);
    row(c, "lie: e q = q", gap_error(&identity), NULL);
    row(c, "lie: exp(x) exp(-x) = e", gap_error(&exponential), NULL);
}

/* <star(x, mu), v> = <mu, map(x, v)> for the view's map and transpose. */
static double duality_gap(checker *c, void (*map)(const wb_model *, const double *,
                                                   const double *, double *),
                          void (*star)(const wb_model *, const double *, const double *,
                                       double *))
{
    const wb_model *m = c->m;
    const int nv = m->nv;
    double *x = c->x, *mu = c->d;
    gap e = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        algebra_point(c, k, x);
        for (int i = 0; i < nv; i++)
            mu[i] = c->p[k][i];
        map(m, x, c->w, c->a);
        star(m, x, mu, c->b);
        double pairing[2] = {vec_dot(nv, mu, c->a), vec_dot(nv, c->b, c->w)};
        gap_add(&e, 1, &pairing[0], &pairing[1]);
    }
    return gap_error(&e);
}

static void view_dexp_star(const wb_model *m, const double *x, const double *mu, double *out)
{
    wb_lie_dexp_star(m, x, mu, out);
}
static void view_ad(const wb_model *m, const double *x, const double *y, double *out)
{
    wb_lie_ad(m, x, y, out);
}
static void view_ad_star(const wb_model *m, const double *x, const double *mu, double *out)
{
    wb_lie_ad_star(m, x, mu, out);
}

/* dexp o dexpinv = id, exp against dexp, dexp* the transpose of dexp. */
static void check_exponential(checker *c)
{
    const wb_model *m = c->m;
    const int nv = m->nv;
    double *x = c->x;
    gap inverse = {0, 0}, log_exp = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        algebra_point(c, k, x);
        wb_lie_dexpinv(m, x, c->w, c->a);
        wb_lie_dexp(m, x, c->a, c->b);
        gap_add(&inverse, nv, c->b, c->w);
        if (m->capabilities & WB_CAP_LIE_LOG) {
            wb_lie_exp(m, x, c->a);
            wb_lie_log(m, c->a, c->b);
            gap_add(&log_exp, nv, c->b, x);
        }
    }
    row(c, "lie: dexp o dexpinv = id", gap_error(&inverse), NULL);
    row(c, "lie: exp against dexp (differences)", retraction_gap(c, retract_exp, view_dexp),
        NULL);
    const wb_lie_group_ext *g = m->lie_group;
    int own_star = WB_HAS_FIELD(g, wb_lie_group_ext, dexp_star) && g->dexp_star;
    row(c, "lie: dexp* the transpose of dexp", duality_gap(c, view_dexp, view_dexp_star),
        own_star ? NULL : "(host transpose)");
    if (m->capabilities & WB_CAP_LIE_LOG)
        row(c, "lie: log(exp(x)) = x", gap_error(&log_exp), NULL);
    else
        skipped(c, "lie: log(exp(x)) = x", "no log");
}

/* Ad_q x = d/de q exp(e x) q^-1, ad_x y = d/de Ad_exp(e x) y, and the duals. */
static void check_adjoint(checker *c)
{
    const wb_model *m = c->m;
    const int nq = m->nq, nv = m->nv;
    double *x = c->x, *u = c->d, *qi = u + nv, *E = qi + nq, *plus = E + nq;
    double *minus = plus + nq, *mu = minus + nq;
    gap Ad = {0, 0}, ad = {0, 0}, dual_Ad = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        const double *q = c->q[k];
        algebra_point(c, k, x);
        wb_lie_inverse(m, q, qi);
        /* q exp(+-e x) q^-1 */
        moved(m, x, STEP, qi, c->scratch, E);
        wb_lie_compose(m, q, E, plus);
        moved(m, x, -STEP, qi, c->scratch, E);
        wb_lie_compose(m, q, E, minus);
        for (int i = 0; i < nq; i++)
            c->a[i] = (plus[i] - minus[i]) / (2 * STEP);
        wb_lie_Ad(m, q, x, u);
        wb_lie_identity(m, E);
        tangent_at(m, u, E, c->scratch, c->b);
        gap_add(&Ad, nq, c->a, c->b);
        /* ad_x y against Ad_exp(+-e x) y */
        for (int i = 0; i < nv; i++)
            u[i] = STEP * x[i];
        wb_lie_exp(m, u, E);
        wb_lie_Ad(m, E, c->w, plus);
        for (int i = 0; i < nv; i++)
            u[i] = -STEP * x[i];
        wb_lie_exp(m, u, E);
        wb_lie_Ad(m, E, c->w, minus);
        for (int i = 0; i < nv; i++)
            c->a[i] = (plus[i] - minus[i]) / (2 * STEP);
        wb_lie_ad(m, x, c->w, c->b);
        gap_add(&ad, nv, c->a, c->b);
        /* <Ad*_q mu, y> = <mu, Ad_q y> */
        for (int i = 0; i < nv; i++)
            mu[i] = c->p[k][i];
        wb_lie_Ad(m, q, c->w, c->a);
        wb_lie_Ad_star(m, q, mu, c->b);
        double pairing[2] = {vec_dot(nv, c->b, c->w), vec_dot(nv, mu, c->a)};
        gap_add(&dual_Ad, 1, &pairing[0], &pairing[1]);
    }
    row(c, "lie: Ad_q x = d/de q exp(e x) q^-1", gap_error(&Ad), NULL);
    row(c, "lie: ad_x y = d/de Ad_exp(e x) y", gap_error(&ad), NULL);
    row(c, "lie: Ad* is the dual of Ad", gap_error(&dual_Ad), NULL);
    row(c, "lie: ad* is the dual of ad", duality_gap(c, view_ad, view_ad_star), NULL);
}

/* dcay o dcayinv = id, cay against dcay, and D_xi dcayinv against
 * differences of dcayinv. */
static void check_cayley(checker *c)
{
    const wb_model *m = c->m;
    const int nv = m->nv;
    if (!(m->capabilities & WB_CAP_LIE_CAYLEY)) {
        skipped(c, "lie: Cayley map", "no cay");
        return;
    }
    double *x = c->x, *shifted = c->d, *plus = shifted + nv, *minus = plus + nv;
    gap inverse = {0, 0}, derivative = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        algebra_point(c, k, x);
        wb_lie_dcayinv(m, x, c->w, c->a);
        wb_lie_dcay(m, x, c->a, c->b);
        gap_add(&inverse, nv, c->b, c->w);
        if (!(m->capabilities & WB_CAP_LIE_CAYLEY_DERIVATIVE))
            continue;
        const double *direction = c->mu; /* a fixed second vector */
        for (int i = 0; i < nv; i++)
            shifted[i] = x[i] + STEP * direction[i];
        wb_lie_dcayinv(m, shifted, c->w, plus);
        for (int i = 0; i < nv; i++)
            shifted[i] = x[i] - STEP * direction[i];
        wb_lie_dcayinv(m, shifted, c->w, minus);
        for (int i = 0; i < nv; i++)
            c->a[i] = (plus[i] - minus[i]) / (2 * STEP);
        wb_lie_dcayinv_derivative(m, x, c->w, direction, c->b);
        gap_add(&derivative, nv, c->b, c->a);
    }
    const wb_lie_group_ext *g = m->lie_group;
    int own_dcay = WB_HAS_FIELD(g, wb_lie_group_ext, dcay) && g->dcay;
    row(c, "lie: dcay o dcayinv = id", gap_error(&inverse),
        own_dcay ? NULL : "(host inverse of dcayinv)");
    row(c, "lie: cay against dcay (differences)", retraction_gap(c, retract_cay, view_dcay),
        NULL);
    if (m->capabilities & WB_CAP_LIE_CAYLEY_DERIVATIVE)
        row(c, "lie: dcayinv_derivative", gap_error(&derivative), NULL);
    else
        skipped(c, "lie: dcayinv_derivative", "not provided (Cayley methods that need it "
                                              "refuse the model)");
}

/* 0 on the check points, which are group elements. */
static void check_residual(checker *c)
{
    const wb_model *m = c->m;
    if (!(m->capabilities & WB_CAP_GROUP_RESIDUAL)) {
        skipped(c, "lie: group_residual", "not provided: no group_residual column");
        return;
    }
    double worst = 0;
    for (int k = 0; k < N_POINTS; k++)
        worst = worse(worst, wb_lie_group_residual(m, c->q[k]));
    row(c, "lie: group_residual = 0 on the group", worst, NULL);
}

void check_lie_group(checker *c)
{
    check_axioms(c);
    check_exponential(c);
    check_adjoint(c);
    check_cayley(c);
    check_residual(c);
}

/* f1 = D2 H and <f2, eta> = -d/de H(exp(e eta) q, mu). */
void check_lie_hamiltonian(checker *c)
{
    const wb_lie_hamiltonian_ext *h = c->m->lie_hamiltonian;
    const wb_model *m = c->m;
    void *self = m->lie_self;
    const int nq = m->nq, nv = m->nv;
    double *f1 = c->a, *f2 = c->a + nv, *fd1 = c->b, *fd2 = c->b + nv;
    double *eta = c->c, *qs = eta + nv, *ms = c->d;
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
            memset(eta, 0, (size_t)nv * sizeof(double));
            eta[j] = 1.0;
            moved(m, eta, STEP, q, c->scratch, qs);
            hp = h->hamiltonian(self, qs, mu);
            moved(m, eta, -STEP, q, c->scratch, qs);
            hm = h->hamiltonian(self, qs, mu);
            fd2[j] = -(hp - hm) / (2 * STEP);
        }
        gap_add(&e1, nv, f1, fd1);
        gap_add(&e2, nv, f2, fd2);
    }
    (void)nq;
    row(c, "lie_hamiltonian: f1 = D2 H", gap_error(&e1), NULL);
    row(c, "lie_hamiltonian: f2 = -(D1 H) q^-1", gap_error(&e2), NULL);
}

/* ---- the Lagrangian ------------------------------------------------------------------ */

/* A velocity for check point k: the model's own at its momentum. */
static void velocity_point(checker *c, int k, double *xi)
{
    unsigned seed = 4242u + 17u * (unsigned)k;
    for (int i = 0; i < c->m->nv; i++)
        xi[i] = 0.4 + 0.3 * jitter(&seed);
}

/* momentum = D2 l and force = trivialised D1 l by differences of l. */
static void check_lagrangian_first(checker *c)
{
    const wb_model *m = c->m;
    const int nv = m->nv;
    double *xi = c->x, *shifted = c->d, *eta = shifted + nv, *gs = eta + nv;
    gap momentum = {0, 0}, force = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        const double *g = c->q[k];
        velocity_point(c, k, xi);
        wb_lie_momentum(m, g, xi, c->a);
        wb_lie_force(m, g, xi, c->a + nv);
        for (int j = 0; j < nv; j++) {
            double step = wb_fd_step(xi[j], 0);
            vec_copy(nv, xi, shifted);
            shifted[j] = xi[j] + step;
            double lp = wb_lie_lagrangian(m, g, shifted);
            shifted[j] = xi[j] - step;
            double lm = wb_lie_lagrangian(m, g, shifted);
            c->b[j] = (lp - lm) / (2 * step);
            memset(eta, 0, (size_t)nv * sizeof(double));
            eta[j] = 1.0;
            moved(m, eta, STEP, g, c->scratch, gs);
            lp = wb_lie_lagrangian(m, gs, xi);
            moved(m, eta, -STEP, g, c->scratch, gs);
            lm = wb_lie_lagrangian(m, gs, xi);
            c->b[nv + j] = (lp - lm) / (2 * STEP);
        }
        gap_add(&momentum, nv, c->a, c->b);
        gap_add(&force, nv, c->a + nv, c->b + nv);
    }
    row(c, "lie_lagrangian: momentum = D2 l", gap_error(&momentum), NULL);
    row(c, "lie_lagrangian: force = trivialised D1 l", gap_error(&force), NULL);
}

/* The optional second derivatives against the host's differences. */
static void check_lagrangian_second(checker *c)
{
    const wb_model *m = c->m;
    const wb_lie_lagrangian_ext *e = c->ext->lie_lagrangian;
    const int nv = m->nv;
    double *xi = c->x;
    const struct {
        const char *label;
        void (*own)(void *, const double *, const double *, double *);
        int which; /* lagrangian_difference */
    } rows[] = {
        {"lie_lagrangian: momentum_jacobian_xi", e->momentum_jacobian_xi,
         FD_MOMENTUM_JACOBIAN_XI},
        {"lie_lagrangian: momentum_jacobian_g", e->momentum_jacobian_g,
         FD_MOMENTUM_JACOBIAN_G},
        {"lie_lagrangian: force_jacobian_g", e->force_jacobian_g, FD_FORCE_JACOBIAN_G},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        if (!rows[r].own) {
            skipped(c, rows[r].label, "not provided: finite differences");
            continue;
        }
        gap g = {0, 0};
        for (int k = 0; k < N_POINTS; k++) {
            velocity_point(c, k, xi);
            rows[r].own(m->model_self, c->q[k], xi, c->a);
            model_instance_fd_lagrangian(c->mi, rows[r].which, c->q[k], xi, c->b);
            gap_add(&g, nv * nv, c->a, c->b);
        }
        row(c, rows[r].label, gap_error(&g), NULL);
    }
}

/* momentum(g, velocity(g, mu)) = mu; with wb.lie_hamiltonian/1 too, the two
 * descriptions agree: f1 = xi, f2 = n(g, xi), H = <mu, xi> - l. */
static void check_legendre(checker *c)
{
    const wb_model *m = c->m;
    const int nv = m->nv;
    double *xi = c->d, *f1 = xi + nv, *f2 = f1 + nv, *n = f2 + nv;
    gap inverse = {0, 0}, field = {0, 0}, energy = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        const double *g = c->q[k], *mu = c->p[k];
        wb_lie_velocity(m, g, mu, xi);
        wb_lie_momentum(m, g, xi, c->a);
        gap_add(&inverse, nv, c->a, mu);
        if (!m->lie_hamiltonian)
            continue;
        m->lie_hamiltonian->vector_field(m->lie_self, g, mu, f1, f2);
        wb_lie_force(m, g, xi, n);
        gap_add(&field, nv, f1, xi);
        gap_add(&field, nv, f2, n);
        double H = m->lie_hamiltonian->hamiltonian(m->lie_self, g, mu);
        double E = vec_dot(nv, mu, xi) - wb_lie_lagrangian(m, g, xi);
        gap_add(&energy, 1, &H, &E);
    }
    row(c, "lie_lagrangian: momentum(velocity(mu)) = mu", gap_error(&inverse),
        c->ext->lie_lagrangian->velocity ? NULL : "(host Newton)");
    if (m->lie_hamiltonian) {
        row(c, "lie: Hamiltonian f = Lagrangian's", gap_error(&field), NULL);
        row(c, "lie: H = <mu, xi> - l", gap_error(&energy), NULL);
    }
}

void check_lie_lagrangian(checker *c)
{
    check_lagrangian_first(c);
    check_lagrangian_second(c);
    check_legendre(c);
}
