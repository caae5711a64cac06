/* The header-only groups (workbench/groups/) where check-model cannot
 * look: accuracy at the angles where closed forms cancel or degenerate,
 * against long-double references; the right-trivialised dexp of every
 * group against its defining series; the SO(3) closed forms against the
 * generic matrix formulas the other groups use; and products against their
 * factors.  (Identities and derivatives by differences on the group are
 * check-model's, on tests/groups/group_body.c and the shipped models.) */
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include "../unit/test_check.h"

#include <float.h>

/* ---- long-double references ---------------------------------------------------------- */

/* Rodrigues in long double */
static void reference_exp(const double *w, long double *R)
{
    long double t2 = (long double)w[0] * w[0] + (long double)w[1] * w[1] + (long double)w[2] * w[2];
    long double t = sqrtl(t2), a, b;
    if (t < 1e-4L) {
        a = 1 - t2 / 6 + t2 * t2 / 120;
        b = 0.5L - t2 / 24 + t2 * t2 / 720;
    } else {
        a = sinl(t) / t;
        b = (1 - cosl(t)) / t2;
    }
    const long double x = w[0], y = w[1], z = w[2];
    R[0] = 1 - b * (y * y + z * z), R[4] = 1 - b * (x * x + z * z), R[8] = 1 - b * (x * x + y * y);
    R[1] = -a * z + b * x * y, R[3] = a * z + b * x * y;
    R[2] = a * y + b * x * z, R[6] = -a * y + b * x * z;
    R[5] = -a * x + b * y * z, R[7] = a * x + b * y * z;
}

/* sum_k c_k ad^k v with c_k = 1/(k+1)! (dexp) over the n x n ad matrix A */
static void reference_dexp(int n, const double *A, const double *v, long double *out)
{
    long double term[6], next[6], factor = 1.0L;
    for (int i = 0; i < n; i++)
        term[i] = v[i], out[i] = v[i];
    for (int k = 1; k < 80; k++) {
        factor /= (k + 1);
        for (int i = 0; i < n; i++) {
            long double s = 0;
            for (int j = 0; j < n; j++)
                s += (long double)A[i * n + j] * term[j];
            next[i] = s;
        }
        for (int i = 0; i < n; i++)
            term[i] = next[i], out[i] += factor * term[i];
    }
}

/* sum_k B_k/k! ad^k v (dexpinv), for |ad| well inside 2 pi */
static void reference_dexpinv(int n, const double *A, const double *v, long double *out)
{
    static const long double B[] = {
        1.0L, -0.5L, 1.0L / 6, 0, -1.0L / 30, 0, 1.0L / 42, 0, -1.0L / 30, 0, 5.0L / 66, 0,
        -691.0L / 2730, 0, 7.0L / 6, 0, -3617.0L / 510, 0, 43867.0L / 798, 0,
        -174611.0L / 330, 0, 854513.0L / 138, 0, -236364091.0L / 2730};
    long double term[6], next[6], factorial = 1.0L;
    for (int i = 0; i < n; i++)
        term[i] = v[i], out[i] = v[i];
    for (int k = 1; k < (int)(sizeof B / sizeof B[0]); k++) {
        factorial *= k;
        for (int i = 0; i < n; i++) {
            long double s = 0;
            for (int j = 0; j < n; j++)
                s += (long double)A[i * n + j] * term[j];
            next[i] = s;
        }
        for (int i = 0; i < n; i++)
            term[i] = next[i], out[i] += B[k] / factorial * term[i];
    }
}

static double relative_gap(int n, const double *x, const long double *ref)
{
    long double diff = 0, size = 0;
    for (int i = 0; i < n; i++) {
        diff = fmaxl(diff, fabsl(x[i] - ref[i]));
        size = fmaxl(size, fabsl(ref[i]));
    }
    return (double)(size > 0 ? diff / size : diff);
}

/* ---- SO(3) at the hard angles ------------------------------------------------------ */

static void axis_angle(double angle, double *w)
{
    const double axis[3] = {0.48, -0.6, 0.64}; /* unit */
    for (int i = 0; i < 3; i++)
        w[i] = angle * axis[i];
}

static void test_so3_exp_log(void)
{
    const double angles[] = {1e-12, 1e-8, 1e-4, 1e-2, 0.5, 1.0 - 1e-9, 1.0, 2.0,
                             M_PI - 1e-4, M_PI - 1e-8, M_PI - 1e-12};
    for (size_t k = 0; k < sizeof angles / sizeof angles[0]; k++) {
        double w[3], R[9], back[3];
        long double Rref[9];
        axis_angle(angles[k], w);
        wb_so3_exp(w, R);
        reference_exp(w, Rref);
        CHECK(relative_gap(9, R, Rref) <= 4 * DBL_EPSILON, "so3 exp at angle %.17g: gap %.3e",
              angles[k], relative_gap(9, R, Rref));
        /* log of the exact rotation, rounded to double */
        double Rd[9];
        for (int i = 0; i < 9; i++)
            Rd[i] = (double)Rref[i];
        wb_so3_log(Rd, back);
        long double wref[3] = {w[0], w[1], w[2]};
        /* near pi the angle is conditioned like 1/sqrt(pi - t): allow it */
        double tol = angles[k] < 3.0 ? 8 * DBL_EPSILON
                                      : 8 * DBL_EPSILON / sqrt(M_PI - angles[k] + 1e-300) + 1e-15;
        if (tol > 1e-7)
            tol = 1e-7;
        CHECK(relative_gap(3, back, wref) <= tol, "so3 log at angle %.17g: gap %.3e (tol %.1e)",
              angles[k], relative_gap(3, back, wref), tol);
    }
    /* exactly pi: either sign of the axis is a logarithm */
    double w[3], R[9], back[3];
    axis_angle(M_PI, w);
    wb_so3_exp(w, R);
    wb_so3_log(R, back);
    double plus = 0, minus = 0;
    for (int i = 0; i < 3; i++)
        plus = fmax(plus, fabs(back[i] - w[i])), minus = fmax(minus, fabs(back[i] + w[i]));
    CHECK(fmin(plus, minus) <= 1e-7, "so3 log at pi: %.3e", fmin(plus, minus));
}

static void so3_ad_matrix(const double *w, double *A)
{
    const double M[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
    memcpy(A, M, sizeof M);
}

static void test_so3_dexp_series(void)
{
    const double angles[] = {1e-9, 1e-5, 1e-3, 0.1, 0.99, 1.0, 1.5, 2.5};
    const double v[3] = {0.3, 0.7, -0.2};
    for (size_t k = 0; k < sizeof angles / sizeof angles[0]; k++) {
        double w[3], A[9], out[3];
        long double ref[3];
        axis_angle(angles[k], w);
        so3_ad_matrix(w, A);
        wb_so3_dexp(w, v, out);
        reference_dexp(3, A, v, ref);
        CHECK(relative_gap(3, out, ref) <= 4 * DBL_EPSILON, "so3 dexp at %.3g: %.3e", angles[k],
              relative_gap(3, out, ref));
        if (angles[k] <= 1.0) { /* the Bernoulli series converges fast there */
            wb_so3_dexpinv(w, v, out);
            reference_dexpinv(3, A, v, ref);
            CHECK(relative_gap(3, out, ref) <= 4 * DBL_EPSILON, "so3 dexpinv at %.3g: %.3e",
                  angles[k], relative_gap(3, out, ref));
        }
        double back[3];
        wb_so3_dexpinv(w, v, out);
        wb_so3_dexp(w, out, back);
        long double vref[3] = {v[0], v[1], v[2]};
        CHECK(relative_gap(3, back, vref) <= 8 * DBL_EPSILON, "so3 dexp(dexpinv) at %.3g: %.3e",
              angles[k], relative_gap(3, back, vref));
    }
}

/* The closed forms against the generic matrix formulas of small_matrix.h. */
static void test_so3_cayley_closed_forms(void)
{
    const double w[3] = {0.7, -1.3, 0.4}, v[3] = {0.2, 0.5, -0.9}, u[3] = {-0.4, 0.1, 0.8};
    double X[9], V[9], U[9], G[9], R[9], M[9], out[3], generic[3];
    so3_ad_matrix(w, X);
    so3_ad_matrix(v, V);
    so3_ad_matrix(u, U);
    wb_small_cay(3, X, G);
    wb_so3_cay(w, R);
    long double Gl[9];
    for (int i = 0; i < 9; i++)
        Gl[i] = G[i];
    CHECK(relative_gap(9, R, Gl) <= 8 * DBL_EPSILON, "so3 cay closed vs matrix: %.3e",
          relative_gap(9, R, Gl));
    const struct {
        const char *what;
        void (*closed)(const double *, const double *, double *);
        void (*matrix)(int, const double *, const double *, double *);
    } maps[] = {{"dcay", wb_so3_dcay, wb_small_dcay}, {"dcayinv", wb_so3_dcayinv, wb_small_dcayinv}};
    for (size_t k = 0; k < 2; k++) {
        maps[k].closed(w, v, out);
        maps[k].matrix(3, X, V, M);
        generic[0] = M[7], generic[1] = M[2], generic[2] = M[3];
        long double g[3] = {generic[0], generic[1], generic[2]};
        CHECK(relative_gap(3, out, g) <= 8 * DBL_EPSILON, "so3 %s closed vs matrix: %.3e",
              maps[k].what, relative_gap(3, out, g));
    }
    wb_so3_dcayinv_derivative(w, v, u, out);
    wb_small_dcayinv_derivative(3, X, V, U, M);
    long double g[3] = {M[7], M[2], M[3]};
    CHECK(relative_gap(3, out, g) <= 8 * DBL_EPSILON, "so3 dcayinv derivative closed vs matrix: "
          "%.3e", relative_gap(3, out, g));
}

/* ---- every group: dexp against its series, dexpinv its inverse ---------------------------- */

static void ad_matrix_of(const wb_group *g, const double *x, double *A)
{
    double basis[WB_SMALL_MAX] = {0}, column[WB_SMALL_MAX];
    for (int j = 0; j < g->nv; j++) {
        basis[j] = 1.0;
        wb_group_ad(g, x, basis, column);
        basis[j] = 0.0;
        for (int i = 0; i < g->nv; i++)
            A[i * g->nv + j] = column[i];
    }
}

static void test_dexp_series(const char *name, const wb_group *g)
{
    const double scales[] = {1e-7, 1e-3, 0.3, 1.0, 2.5};
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
        double x[WB_SMALL_MAX], v[WB_SMALL_MAX], out[WB_SMALL_MAX], back[WB_SMALL_MAX];
        double A[WB_SMALL_MAX * WB_SMALL_MAX];
        long double ref[WB_SMALL_MAX], vref[WB_SMALL_MAX];
        for (int i = 0; i < g->nv; i++) {
            x[i] = scales[k] * (0.3 + 0.25 * i) / (1.0 + 0.2 * g->nv);
            v[i] = 1.0 - 0.3 * i;
            vref[i] = v[i];
        }
        ad_matrix_of(g, x, A);
        wb_group_dexp(g, x, v, out);
        reference_dexp(g->nv, A, v, ref);
        CHECK(relative_gap(g->nv, out, ref) <= 1e-14, "%s dexp at scale %.1e: %.3e", name,
              scales[k], relative_gap(g->nv, out, ref));
        wb_group_dexpinv(g, x, v, out);
        wb_group_dexp(g, x, out, back);
        CHECK(relative_gap(g->nv, back, vref) <= 1e-14, "%s dexp(dexpinv) at scale %.1e: %.3e",
              name, scales[k], relative_gap(g->nv, back, vref));
        /* exp then log is the identity for these sizes */
        double q[32], y[WB_SMALL_MAX];
        long double xref[WB_SMALL_MAX];
        for (int i = 0; i < g->nv; i++)
            xref[i] = x[i];
        wb_group_exp(g, x, q);
        wb_group_log(g, q, y);
        CHECK(relative_gap(g->nv, y, xref) <= 1e-14, "%s log(exp) at scale %.1e: %.3e", name,
              scales[k], relative_gap(g->nv, y, xref));
        CHECK(wb_group_residual(g, q) <= 4 * DBL_EPSILON, "%s exp on the group: %.3e", name,
              wb_group_residual(g, q));
        wb_group_cay(g, x, q);
        CHECK(wb_group_residual(g, q) <= 8 * DBL_EPSILON, "%s cay on the group: %.3e", name,
              wb_group_residual(g, q));
    }
}

/* A product acts factor by factor: its exp is its factors' exps. */
static void test_product(void)
{
    wb_group product, so3, rn;
    wb_group_init(&product);
    wb_group_add(&product, WB_GROUP_SO3, 0);
    wb_group_add(&product, WB_GROUP_RN, 2);
    wb_group_init(&so3);
    wb_group_add(&so3, WB_GROUP_SO3, 0);
    wb_group_init(&rn);
    wb_group_add(&rn, WB_GROUP_RN, 2);
    CHECK(product.nq == 11 && product.nv == 5, "SO(3) x R^2: nq %d nv %d", product.nq,
          product.nv);
    const double x[5] = {0.4, -0.2, 0.9, 1.5, -2.5}, mu[5] = {0.1, 0.2, 0.3, 0.4, 0.5};
    double q[11], part[9], out[5], out_so3[3];
    wb_group_exp(&product, x, q);
    wb_group_exp(&so3, x, part);
    CHECK(memcmp(q, part, sizeof part) == 0 && q[9] == 1.5 && q[10] == -2.5,
          "product exp = the factors' exps");
    wb_group_ad_star(&product, x, mu, out);
    wb_group_ad_star(&so3, x, mu, out_so3);
    CHECK(memcmp(out, out_so3, sizeof out_so3) == 0 && out[3] == 0.0 && out[4] == 0.0,
          "product ad* = (so(3)'s, 0)");
    wb_group g;
    wb_group_init(&g);
    int refused = 0;
    for (int i = 0; i < WB_GROUP_MAX_FACTORS + 1; i++)
        refused += wb_group_add(&g, WB_GROUP_RN, 1) != 0;
    CHECK(refused == 1 && g.n_factors == WB_GROUP_MAX_FACTORS, "a full product refuses more");
    CHECK(wb_group_add(&g, 99, 0) != 0 && wb_group_add(&rn, WB_GROUP_RN, 0) != 0,
          "unknown kinds and R^0 refused");
}

/* The macro writes a complete extension, twice in one file. */
typedef struct two_groups {
    wb_group a, b;
} two_groups;
static const wb_group *first_of(void *self) { return &((two_groups *)self)->a; }
static const wb_group *second_of(void *self) { return &((two_groups *)self)->b; }
WB_LIE_GROUP_EXTENSION(first_group, first_of);
WB_LIE_GROUP_EXTENSION(second_group, second_of);

static void test_extension_macro(void)
{
    two_groups t;
    wb_group_init(&t.a);
    wb_group_add(&t.a, WB_GROUP_SE3, 0);
    wb_group_init(&t.b);
    wb_group_add(&t.b, WB_GROUP_SE2, 0);
    const wb_lie_group_ext *e[2] = {&first_group, &second_group};
    for (int k = 0; k < 2; k++) {
        const wb_lie_group_ext *x = e[k];
        CHECK(x->struct_size == sizeof(wb_lie_group_ext) && x->identity && x->compose &&
                  x->inverse && x->exp && x->log && x->dexp && x->dexpinv && x->ad &&
                  x->ad_star && x->Ad && x->Ad_star && x->cay && x->dcayinv && x->dcay &&
                  x->dcayinv_derivative && x->dexp_star && x->group_residual,
              "WB_LIE_GROUP_EXTENSION %d sets every member", k);
    }
    double e3[12], e2[6];
    first_group.identity(&t, e3);
    second_group.identity(&t, e2);
    CHECK(e3[0] == 1 && e3[11] == 0 && e2[0] == 1 && e2[5] == 0 &&
              first_group.group_residual(&t, e3) == 0.0,
          "each extension forwards to its own group");
}

int main(void)
{
    test_so3_exp_log();
    test_so3_dexp_series();
    test_so3_cayley_closed_forms();
    const int kinds[] = {WB_GROUP_SO3, WB_GROUP_SE2, WB_GROUP_SE3, WB_GROUP_RN};
    const char *names[] = {"SO(3)", "SE(2)", "SE(3)", "R^3"};
    for (int k = 0; k < 4; k++) {
        wb_group g;
        wb_group_init(&g);
        wb_group_add(&g, kinds[k], 3);
        test_dexp_series(names[k], &g);
    }
    wb_group mixed;
    wb_group_init(&mixed);
    wb_group_add(&mixed, WB_GROUP_SE2, 0);
    wb_group_add(&mixed, WB_GROUP_RN, 1);
    test_dexp_series("SE(2) x R", &mixed);
    test_product();
    test_extension_macro();
    return test_summary("groups");
}
