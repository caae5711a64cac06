/* The opposite groups of workbench/groups/group.h (wb_group_add_opposite):
 * every map of a product with an opposite factor of each kind against its
 * definition on G^op, built from the product's own compose and exp alone
 * (a *op b = b a, checked against the plain group), by central
 * differences in the numbers that represent an element:
 *   d/de exp(x + e v)            = d/de exp(e dexp_x v) *op exp(x)
 *   d/de cay(x + e v)            = d/de exp(e dcay_x v) *op cay(x)
 *   d/de q *op exp(e x) *op q^-1 = d/de exp(e Ad_q x)
 *   d/de Ad_exp(e x) y           = ad_x y
 *   D_x[dcayinv_x v] w           = differences of dcayinv in x,
 * the inverses (dexpinv, dcayinv) by composition, the duals (ad*, Ad*,
 * dexp*, dexpinv*, dcay*, dcayinv*) by the pairing, and a plain factor
 * beside opposite ones bit for bit as in a group without them. */
#include <workbench/groups/group.h>

#include "test_check.h"

#define NQ_MAX 64
#define NV_MAX 32
#define STEP 1e-5
#define FD_TOL 1e-8 /* central differences: h^2 truncation, eps / h round-off */
#define EXACT_TOL 1e-13

/* SE(2)^op x (R^2)^op x SO(3)^op x SE(3)^op x SO(3), and the same plain */
static void product(wb_group *g, int opposite)
{
    static const int kinds[] = {WB_GROUP_SE2, WB_GROUP_RN, WB_GROUP_SO3, WB_GROUP_SE3};
    wb_group_init(g);
    for (int k = 0; k < 4; k++) {
        const int n = kinds[k] == WB_GROUP_RN ? 2 : 0;
        if (opposite)
            wb_group_add_opposite(g, kinds[k], n);
        else
            wb_group_add(g, kinds[k], n);
    }
    wb_group_add(g, WB_GROUP_SO3, 0);
}

/* a deterministic vector of entries ~scale */
static void point(int n, unsigned seed, double scale, double *x)
{
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = scale * (((seed >> 8) & 0xffff) / 32768.0 - 1.0);
    }
}

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* max |a - b| / max(1, max |b|) */
static double gap(int n, const double *a, const double *b)
{
    double d = 0.0, size = 1.0;
    for (int i = 0; i < n; i++) {
        d = fmax(d, fabs(a[i] - b[i]));
        size = fmax(size, fabs(b[i]));
    }
    return d / size;
}

/* E = exp(e u) */
static void exp_scaled(const wb_group *g, const double *u, double e, double *E)
{
    double eta[NV_MAX];
    for (int i = 0; i < g->nv; i++)
        eta[i] = e * u[i];
    wb_group_exp(g, eta, E);
}

/* d/de exp(e u) *op q at e = 0 */
static void tangent(const wb_group *g, const double *u, const double *q, double *out)
{
    double E[NQ_MAX], plus[NQ_MAX], minus[NQ_MAX];
    for (int sign = -1; sign <= 1; sign += 2) {
        exp_scaled(g, u, sign * STEP, E);
        wb_group_compose(g, E, q, sign > 0 ? plus : minus);
    }
    for (int i = 0; i < g->nq; i++)
        out[i] = (plus[i] - minus[i]) / (2 * STEP);
}

typedef void (*retraction)(const wb_group *g, const double *xi, double *q);

/* d/de R(x + e v) at e = 0 */
static void retraction_derivative(const wb_group *g, retraction R, const double *x,
                                  const double *v, double *out)
{
    double shifted[NV_MAX], plus[NQ_MAX], minus[NQ_MAX];
    for (int i = 0; i < g->nv; i++)
        shifted[i] = x[i] + STEP * v[i];
    R(g, shifted, plus);
    for (int i = 0; i < g->nv; i++)
        shifted[i] = x[i] - STEP * v[i];
    R(g, shifted, minus);
    for (int i = 0; i < g->nq; i++)
        out[i] = (plus[i] - minus[i]) / (2 * STEP);
}

/* a *op b = b a factor by factor; e, inverses, one-parameter subgroups */
static void test_group_law(const wb_group *op, const wb_group *plain)
{
    double x[NV_MAX], y[NV_MAX], a[NQ_MAX], b[NQ_MAX], ab[NQ_MAX], ba[NQ_MAX], e[NQ_MAX];
    double inv[NQ_MAX], prod[NQ_MAX], sum[NV_MAX], whole[NQ_MAX];
    point(op->nv, 1, 0.7, x);
    point(op->nv, 2, 0.7, y);
    wb_group_exp(op, x, a);
    wb_group_exp(op, y, b);
    wb_group_compose(op, a, b, ab);
    wb_group_compose(plain, b, a, ba);
    for (int k = 0; k < op->n_factors; k++) {
        const wb_group_factor *f = &op->factors[k];
        double plain_ab[NQ_MAX];
        wb_group_compose(plain, a, b, plain_ab);
        const double *want = wb_group_factor_is_opposite(op, k) ? ba : plain_ab;
        CHECK(memcmp(ab + f->q_offset, want + f->q_offset, (size_t)f->nq * sizeof(double)) == 0,
              "factor %d: a *op b = %s, bit for bit", k,
              wb_group_factor_is_opposite(op, k) ? "b a" : "a b (a plain factor)");
    }
    wb_group_identity(op, e);
    wb_group_inverse(op, a, inv);
    wb_group_compose(op, a, inv, prod);
    CHECK(gap(op->nq, prod, e) < EXACT_TOL, "a *op a^-1 = e: %.2e", gap(op->nq, prod, e));
    wb_group_compose(op, inv, a, prod);
    CHECK(gap(op->nq, prod, e) < EXACT_TOL, "a^-1 *op a = e: %.2e", gap(op->nq, prod, e));
    /* exp(0.3 x) *op exp(0.7 x) = exp(x): still a one-parameter subgroup */
    for (int i = 0; i < op->nv; i++)
        sum[i] = 0.3 * x[i], y[i] = 0.7 * x[i];
    wb_group_exp(op, sum, a);
    wb_group_exp(op, y, b);
    wb_group_compose(op, a, b, prod);
    wb_group_exp(op, x, whole);
    CHECK(gap(op->nq, prod, whole) < EXACT_TOL, "exp(0.3 x) *op exp(0.7 x) = exp(x): %.2e",
          gap(op->nq, prod, whole));
}

static void check_retraction(const wb_group *g, const char *name, retraction R,
                             void (*derivative)(const wb_group *, const double *, const double *,
                                                double *))
{
    for (unsigned k = 0; k < 4; k++) {
        double x[NV_MAX], v[NV_MAX], u[NV_MAX], q[NQ_MAX], fd[NQ_MAX], want[NQ_MAX];
        point(g->nv, 10 + k, 0.8, x);
        point(g->nv, 20 + k, 1.0, v);
        retraction_derivative(g, R, x, v, fd);
        derivative(g, x, v, u);
        R(g, x, q);
        tangent(g, u, q, want);
        CHECK(gap(g->nq, fd, want) < FD_TOL,
              "d/de %s(x + e v) = d/de exp(e d%s_x v) *op %s(x), point %u: %.2e", name, name,
              name, k, gap(g->nq, fd, want));
    }
}

/* map(x, inverse(x, v)) = v and inverse(x, map(x, v)) = v */
static void check_inverse_pair(const wb_group *g, const char *name,
                               void (*map)(const wb_group *, const double *, const double *,
                                           double *),
                               void (*inverse)(const wb_group *, const double *, const double *,
                                               double *))
{
    for (unsigned k = 0; k < 4; k++) {
        double x[NV_MAX], v[NV_MAX], u[NV_MAX], back[NV_MAX];
        point(g->nv, 30 + k, 0.8, x);
        point(g->nv, 40 + k, 1.0, v);
        inverse(g, x, v, u);
        map(g, x, u, back);
        CHECK(gap(g->nv, back, v) < EXACT_TOL, "%s o %sinv = id, point %u: %.2e", name, name, k,
              gap(g->nv, back, v));
        map(g, x, v, u);
        inverse(g, x, u, back);
        CHECK(gap(g->nv, back, v) < EXACT_TOL, "%sinv o %s = id, point %u: %.2e", name, name, k,
              gap(g->nv, back, v));
    }
}

/* <star(x, mu), v> = <mu, map(x, v)>; x an algebra or (in_group) group point */
static void check_dual(const wb_group *g, const char *name, int in_group,
                       void (*map)(const wb_group *, const double *, const double *, double *),
                       void (*star)(const wb_group *, const double *, const double *, double *))
{
    for (unsigned k = 0; k < 4; k++) {
        double x[NQ_MAX], v[NV_MAX], mu[NV_MAX], a[NV_MAX], b[NV_MAX];
        point(g->nv, 50 + k, 0.8, x);
        if (in_group) {
            double xi[NV_MAX];
            memcpy(xi, x, sizeof xi);
            wb_group_exp(g, xi, x);
        }
        point(g->nv, 60 + k, 1.0, v);
        point(g->nv, 70 + k, 1.0, mu);
        map(g, x, v, a);
        star(g, x, mu, b);
        const double lhs = dot(g->nv, b, v), rhs = dot(g->nv, mu, a);
        CHECK(fabs(lhs - rhs) < EXACT_TOL * fmax(1.0, fabs(rhs)),
              "<%s*(x, mu), v> = <mu, %s(x, v)>, point %u: %.17g against %.17g", name, name, k,
              lhs, rhs);
    }
}

/* Ad_q x = d/de q *op exp(e x) *op q^-1, ad_x y = d/de Ad_exp(e x) y */
static void test_adjoint(const wb_group *g)
{
    for (unsigned k = 0; k < 4; k++) {
        double xi[NV_MAX], x[NV_MAX], y[NV_MAX], q[NQ_MAX], qi[NQ_MAX], E[NQ_MAX], t[NQ_MAX];
        double plus[NQ_MAX], minus[NQ_MAX], fd[NQ_MAX], u[NV_MAX], e[NQ_MAX], want[NQ_MAX];
        point(g->nv, 80 + k, 0.8, xi);
        point(g->nv, 90 + k, 1.0, x);
        point(g->nv, 100 + k, 1.0, y);
        wb_group_exp(g, xi, q);
        wb_group_inverse(g, q, qi);
        for (int sign = -1; sign <= 1; sign += 2) {
            exp_scaled(g, x, sign * STEP, E);
            wb_group_compose(g, q, E, t);
            wb_group_compose(g, t, qi, sign > 0 ? plus : minus);
        }
        for (int i = 0; i < g->nq; i++)
            fd[i] = (plus[i] - minus[i]) / (2 * STEP);
        wb_group_Ad(g, q, x, u);
        wb_group_identity(g, e);
        tangent(g, u, e, want);
        CHECK(gap(g->nq, fd, want) < FD_TOL,
              "Ad_q x = d/de q *op exp(e x) *op q^-1, point %u: %.2e", k,
              gap(g->nq, fd, want));
        double adp[NV_MAX], adm[NV_MAX], ad_fd[NV_MAX], ad[NV_MAX];
        for (int sign = -1; sign <= 1; sign += 2) {
            exp_scaled(g, x, sign * STEP, E);
            wb_group_Ad(g, E, y, sign > 0 ? adp : adm);
        }
        for (int i = 0; i < g->nv; i++)
            ad_fd[i] = (adp[i] - adm[i]) / (2 * STEP);
        wb_group_ad(g, x, y, ad);
        CHECK(gap(g->nv, ad, ad_fd) < FD_TOL, "ad_x y = d/de Ad_exp(e x) y, point %u: %.2e", k,
              gap(g->nv, ad, ad_fd));
    }
}

/* D_x[dcayinv_x v] w against differences of dcayinv in x */
static void test_dcayinv_derivative(const wb_group *g)
{
    for (unsigned k = 0; k < 4; k++) {
        double x[NV_MAX], v[NV_MAX], w[NV_MAX], s[NV_MAX], plus[NV_MAX], minus[NV_MAX];
        double fd[NV_MAX], got[NV_MAX];
        point(g->nv, 110 + k, 0.8, x);
        point(g->nv, 120 + k, 1.0, v);
        point(g->nv, 130 + k, 1.0, w);
        for (int i = 0; i < g->nv; i++)
            s[i] = x[i] + STEP * w[i];
        wb_group_dcayinv(g, s, v, plus);
        for (int i = 0; i < g->nv; i++)
            s[i] = x[i] - STEP * w[i];
        wb_group_dcayinv(g, s, v, minus);
        for (int i = 0; i < g->nv; i++)
            fd[i] = (plus[i] - minus[i]) / (2 * STEP);
        wb_group_dcayinv_derivative(g, x, v, w, got);
        CHECK(gap(g->nv, got, fd) < FD_TOL, "dcayinv_derivative against differences, point %u: "
              "%.2e", k, gap(g->nv, got, fd));
    }
}

/* The plain SO(3) after the opposite factors: every map bit for bit as in
 * a group of that factor alone. */
static void test_plain_factor_unchanged(const wb_group *op)
{
    wb_group alone;
    wb_group_init(&alone);
    wb_group_add(&alone, WB_GROUP_SO3, 0);
    const wb_group_factor *f = &op->factors[op->n_factors - 1];
    double x[NV_MAX], v[NV_MAX], w[NV_MAX], a[NV_MAX], b[NV_MAX], q[NQ_MAX];
    point(op->nv, 140, 0.8, x);
    point(op->nv, 141, 1.0, v);
    point(op->nv, 142, 1.0, w);
    wb_group_exp(op, x, q);
    void (*maps[])(const wb_group *, const double *, const double *, double *) = {
        wb_group_dexp, wb_group_dexpinv, wb_group_dexp_star, wb_group_dexpinv_star,
        wb_group_ad, wb_group_ad_star, wb_group_dcay, wb_group_dcayinv, wb_group_dcay_star,
        wb_group_dcayinv_star};
    int same = 1;
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
        maps[m](op, x, v, a);
        maps[m](&alone, x + f->v_offset, v + f->v_offset, b);
        same &= memcmp(a + f->v_offset, b, 3 * sizeof(double)) == 0;
    }
    wb_group_Ad(op, q, v, a);
    wb_group_Ad(&alone, q + f->q_offset, v + f->v_offset, b);
    same &= memcmp(a + f->v_offset, b, 3 * sizeof(double)) == 0;
    wb_group_dcayinv_derivative(op, x, v, w, a);
    wb_group_dcayinv_derivative(&alone, x + f->v_offset, v + f->v_offset, w + f->v_offset, b);
    same &= memcmp(a + f->v_offset, b, 3 * sizeof(double)) == 0;
    CHECK(same, "a plain factor beside opposite ones: every map bit for bit as alone");
}

int main(void)
{
    wb_group op, plain;
    product(&op, 1);
    product(&plain, 0);
    test_group_law(&op, &plain);
    check_retraction(&op, "exp", wb_group_exp, wb_group_dexp);
    check_retraction(&op, "cay", wb_group_cay, wb_group_dcay);
    check_inverse_pair(&op, "dexp", wb_group_dexp, wb_group_dexpinv);
    check_inverse_pair(&op, "dcay", wb_group_dcay, wb_group_dcayinv);
    test_adjoint(&op);
    test_dcayinv_derivative(&op);
    check_dual(&op, "dexp", 0, wb_group_dexp, wb_group_dexp_star);
    check_dual(&op, "dexpinv", 0, wb_group_dexpinv, wb_group_dexpinv_star);
    check_dual(&op, "dcay", 0, wb_group_dcay, wb_group_dcay_star);
    check_dual(&op, "dcayinv", 0, wb_group_dcayinv, wb_group_dcayinv_star);
    check_dual(&op, "ad", 0, wb_group_ad, wb_group_ad_star);
    check_dual(&op, "Ad", 1, wb_group_Ad, wb_group_Ad_star);
    test_plain_factor_unchanged(&op);
    return test_summary("group_opposite_test");
}
