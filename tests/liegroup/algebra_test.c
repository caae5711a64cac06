/* The truncated dexpinv and P*_(r) of plugins/liegroup/algebra.c on
 * SO(3), SE(3) and SE(2) x R x SO(3), through a model view that binds only
 * ad and ad* to workbench/groups:
 *   - dexpinv_(r) for large r equals the closed-form dexpinv (small x),
 *   - dexpinv_(r) is dexpinv_(r+1) for even r >= 2 (B_(r+1) = 0),
 *   - (dexpinv_(r))* is its transpose,
 *   - P*_(r)(x, xi) w is the adjoint of dx -> D_x[dexpinv_(r),x xi] dx,
 *     against central differences, for r = 0..8. */
#include "algebra.h"

#include <workbench/groups/group.h>

#include <math.h>
#include <stdio.h>

static int failures;

static void expect_below(double value, double limit, const char *what, const char *group, int r)
{
    const int ok = value <= limit;
    printf("  %-4s %-10s r = %-2d %-44s %.2e (< %.0e)\n", ok ? "ok" : "FAIL", group, r, what,
           value, limit);
    failures += !ok;
}

static void bound_ad(void *ctx, const double *x, const double *y, double *out)
{
    wb_group_ad(ctx, x, y, out);
}

static void bound_ad_star(void *ctx, const double *x, const double *mu, double *out)
{
    wb_group_ad_star(ctx, x, mu, out);
}

static double dot(int n, const double *a, const double *b)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* a fixed pseudo-random vector */
static void fill(int n, int seed, double scale, double *v)
{
    for (int i = 0; i < n; i++)
        v[i] = scale * sin(1.7 * (i + 1) + 0.9 * seed) * (1 + 0.1 * i);
}

static void check_group(const char *name, const wb_group *g)
{
    wb_model m = {0};
    m.struct_size = sizeof m;
    m.nv = g->nv;
    m.lie_ad.fn = bound_ad, m.lie_ad.ctx = (void *)g;
    m.lie_ad_star.fn = bound_ad_star, m.lie_ad_star.ctx = (void *)g;
    const int n = g->nv;
    double x[48], xi[48], w[48], v[48], out[48], exact[48], other[48], work[48 * 40];
    fill(n, 1, 0.3, x);
    fill(n, 2, 1.0, xi);
    fill(n, 3, 1.0, w);
    fill(n, 4, 1.0, v);

    /* the full series at a small x: |x| ~ 0.03, terms beyond r = 16 below 1e-30 */
    double small[48];
    for (int i = 0; i < n; i++)
        small[i] = 0.1 * x[i];
    liegroup_dexpinv_truncated(&m, LIEGROUP_MAX_CUTOFF, small, v, out, work);
    wb_group_dexpinv(g, small, v, exact);
    double err = 0;
    for (int i = 0; i < n; i++)
        err = fmax(err, fabs(out[i] - exact[i]));
    expect_below(err, 1e-15, "dexpinv_(16) = closed-form dexpinv", name, LIEGROUP_MAX_CUTOFF);

    for (int r = 0; r <= 8; r++) {
        /* (dexpinv_(r))* is the transpose: <w, D v> = <D* w, v> */
        liegroup_dexpinv_truncated(&m, r, x, v, out, work);
        liegroup_dexpinv_truncated_star(&m, r, x, w, other, work);
        expect_below(fabs(dot(n, w, out) - dot(n, other, v)), 1e-14,
                     "<w, dexpinv_(r) v> = <dexpinv_(r)* w, v>", name, r);
        if (r >= 2 && r % 2 == 0) {
            liegroup_dexpinv_truncated(&m, r + 1, x, v, other, work);
            double d = 0;
            for (int i = 0; i < n; i++)
                d = fmax(d, fabs(out[i] - other[i]));
            expect_below(d, 0.0, "dexpinv_(r) = dexpinv_(r+1) (B_(r+1) = 0)", name, r);
        }
        /* <P* w, dx> against central differences of <w, dexpinv_(r),x xi> */
        liegroup_pstar(&m, r, x, xi, w, out, work);
        double worst = 0;
        for (int j = 0; j < n; j++) {
            const double eps = 1e-5;
            double xp[48], xm[48], fp[48], fm[48];
            for (int i = 0; i < n; i++)
                xp[i] = xm[i] = x[i];
            xp[j] += eps, xm[j] -= eps;
            liegroup_dexpinv_truncated(&m, r, xp, xi, fp, work);
            liegroup_dexpinv_truncated(&m, r, xm, xi, fm, work);
            const double fd = (dot(n, w, fp) - dot(n, w, fm)) / (2 * eps);
            worst = fmax(worst, fabs(fd - out[j]));
        }
        expect_below(worst, 1e-9, "P*_(r) = adjoint of D_x dexpinv_(r) (differences)", name, r);
    }
}

int main(void)
{
    wb_group so3, se3, mixed;
    wb_group_init(&so3);
    wb_group_add(&so3, WB_GROUP_SO3, 0);
    wb_group_init(&se3);
    wb_group_add(&se3, WB_GROUP_SE3, 0);
    wb_group_init(&mixed);
    wb_group_add(&mixed, WB_GROUP_SE2, 0);
    wb_group_add(&mixed, WB_GROUP_RN, 1);
    wb_group_add(&mixed, WB_GROUP_SO3, 0);
    check_group("SO(3)", &so3);
    check_group("SE(3)", &se3);
    check_group("SE(2)xRxSO(3)", &mixed);
    /* P*_(1) = ad*_xi / 2 and P*_(2) as the paper prints it, on SO(3) */
    {
        wb_model m = {0};
        m.nv = 3;
        m.lie_ad.fn = bound_ad, m.lie_ad.ctx = &so3;
        m.lie_ad_star.fn = bound_ad_star, m.lie_ad_star.ctx = &so3;
        double x[3] = {0.3, -0.2, 0.5}, xi[3] = {1.0, 0.4, -0.7}, w[3] = {-0.6, 0.9, 0.2};
        double out[3], a[3], b[3], c[3], d[3], work[64];
        liegroup_pstar(&m, 2, x, xi, w, out, work);
        /* 1/2 ad*_xi w - 1/6 ad*_xi ad*_x w + 1/12 ad*_x ad*_xi w, ad*_a u = u x a */
        wb_so3_cross(w, xi, a);
        wb_so3_cross(w, x, b);
        wb_so3_cross(b, xi, c);
        wb_so3_cross(a, x, d);
        double err = 0;
        for (int i = 0; i < 3; i++)
            err = fmax(err, fabs(out[i] - (0.5 * a[i] - c[i] / 6 + d[i] / 12)));
        expect_below(err, 1e-15, "P*_(2) as printed (eq. after 16)", "SO(3)", 2);
    }
    printf("%d failed\n", failures);
    return failures != 0;
}
