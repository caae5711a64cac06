/* The model view's finite-difference fallbacks against closed forms.
 *
 *   fd_fallback_test PLUGIN first    fallbacks one difference away from
 *                                    the model's own functions
 *   fd_fallback_test PLUGIN nested   fallbacks that difference another
 *                                    fallback (Hessians, contractions,
 *                                    third derivatives, the multiplier)
 *
 * PLUGIN is tests/plugins/derivative_free_model.so, which provides only
 * mass(), potential() and constraints(): every other function of its view
 * is a host fallback.  Each is evaluated at a few points -- off the
 * constraint manifold on purpose, since the view's functions are defined
 * everywhere -- and compared with the derivatives worked out by hand
 * below.
 *
 * Tolerances.  One central difference of an exact function with step
 * cbrt(eps) is good to ~1e-10: we ask 1e-9.  A second derivative from
 * nested central differences can reach ~1e-8 with a suitable step
 * (eps^(1/4)): we ask 1e-7.  A third derivative from three nested
 * differences can reach ~1e-6 (step eps^(1/5)): we ask 1e-5. */
#include "host/host.h"
#include "run/model_instance.h"
#include "host/plugins.h"
#include "test_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NQ = 3, NC = 2 };

/* ---- closed forms for derivative_free_model ------------------------------- */

static void mass_diagonal(const double *q, double *d)
{
    d[0] = 1.0 + q[0] * q[0];
    d[1] = 2.0;
    d[2] = 1.0 + q[2] * q[2];
}

static void exact_gradient(const double *q, double *g)
{
    const double x = q[0], y = q[1], z = q[2];
    g[0] = 2 * x * y + z * z * z;
    g[1] = x * x;
    g[2] = cos(z) + 3 * x * z * z;
}

static void exact_hessian(const double *q, double *H)
{
    const double x = q[0], y = q[1], z = q[2];
    const double h[NQ * NQ] = {2 * y,     2 * x, 3 * z * z,
                               2 * x,     0,     0,
                               3 * z * z, 0,     -sin(z) + 6 * x * z};
    memcpy(H, h, sizeof h);
}

/* d/dq of 1/2 sum p_i^2 / m_i(q) */
static void exact_kinetic_gradient(const double *q, const double *p, double *g)
{
    double m[NQ];
    mass_diagonal(q, m);
    g[0] = -q[0] * p[0] * p[0] / (m[0] * m[0]);
    g[1] = 0;
    g[2] = -q[2] * p[2] * p[2] / (m[2] * m[2]);
}

static void exact_jacobian(const double *q, double *G)
{
    const double x = q[0], y = q[1], z = q[2];
    const double g[NC * NQ] = {2 * x, 2 * y, 2 * z,
                               cos(x), z, y};
    memcpy(G, g, sizeof g);
}

/* D^2 g2; D^2 g1 = 2 I */
static void g2_hessian(const double *q, double *H)
{
    const double h[NQ * NQ] = {-sin(q[0]), 0, 0,
                               0,          0, 1,
                               0,          1, 0};
    memcpy(H, h, sizeof h);
}

static void exact_hessian_contract(const double *q, const double *mu, double *T)
{
    double H2[NQ * NQ];
    g2_hessian(q, H2);
    for (int i = 0; i < NQ; i++)
        for (int j = 0; j < NQ; j++)
            T[i * NQ + j] = mu[0] * (i == j ? 2.0 : 0.0) + mu[1] * H2[i * NQ + j];
}

static void exact_hessian_vector(const double *q, const double *w, double *B)
{
    double H2[NQ * NQ];
    g2_hessian(q, H2);
    for (int j = 0; j < NQ; j++) {
        B[j] = 2.0 * w[j];
        B[NQ + j] = H2[j * NQ + 0] * w[0] + H2[j * NQ + 1] * w[1] + H2[j * NQ + 2] * w[2];
    }
}

/* Only d^3 g2 / dx^3 = -cos x is nonzero. */
static void exact_third_contract(const double *q, const double *mu, const double *w,
                                 double *D)
{
    memset(D, 0, NQ * NQ * sizeof(double));
    D[0] = mu[1] * -cos(q[0]) * w[0];
}

/* (G M^-1 G^T) lambda = v^T D^2 g v + G w - G M^-1 (grad V + dT/dq),
 * v = M^-1 p, w = D_q[M^-1(q) p] v  (host.h / model_view.h convention). */
static void exact_index1_multiplier(const double *q, const double *p, double *lambda)
{
    double m[NQ], v[NQ], w[NQ], f[NQ], kin[NQ], G[NC * NQ], H2[NQ * NQ];
    mass_diagonal(q, m);
    for (int i = 0; i < NQ; i++)
        v[i] = p[i] / m[i];
    w[0] = -2 * q[0] * p[0] * v[0] / (m[0] * m[0]);
    w[1] = 0;
    w[2] = -2 * q[2] * p[2] * v[2] / (m[2] * m[2]);
    exact_gradient(q, f);
    exact_kinetic_gradient(q, p, kin);
    for (int i = 0; i < NQ; i++)
        f[i] = (f[i] + kin[i]) / m[i]; /* M^-1 (grad V + dT/dq) */
    exact_jacobian(q, G);
    g2_hessian(q, H2);
    double rhs[NC] = {2 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), 0};
    for (int i = 0; i < NQ; i++)
        for (int j = 0; j < NQ; j++)
            rhs[1] += v[i] * H2[i * NQ + j] * v[j];
    for (int k = 0; k < NC; k++)
        for (int i = 0; i < NQ; i++)
            rhs[k] += G[k * NQ + i] * (w[i] - f[i]);
    double S[NC][NC];
    for (int a = 0; a < NC; a++)
        for (int b = 0; b < NC; b++) {
            S[a][b] = 0;
            for (int i = 0; i < NQ; i++)
                S[a][b] += G[a * NQ + i] * G[b * NQ + i] / m[i];
        }
    const double det = S[0][0] * S[1][1] - S[0][1] * S[1][0];
    lambda[0] = (S[1][1] * rhs[0] - S[0][1] * rhs[1]) / det;
    lambda[1] = (S[0][0] * rhs[1] - S[1][0] * rhs[0]) / det;
}

/* ---- comparison ------------------------------------------------------------ */

/* max |got - want| / max |want|: norm-wise relative error. */
static double relative_error(int n, const double *got, const double *want)
{
    double diff = 0, scale = 0;
    for (int i = 0; i < n; i++) {
        diff = fmax(diff, fabs(got[i] - want[i]));
        scale = fmax(scale, fabs(want[i]));
    }
    if (!isfinite(diff))
        return INFINITY;
    return scale > 0 ? diff / scale : diff;
}

static void compare(const char *what, int point, int n, const double *got,
                    const double *want, double tol)
{
    double err = relative_error(n, got, want);
    printf("  point %d  %-28s relative error %.2e  (tolerance %.0e)\n", point, what, err, tol);
    CHECK(err <= tol, "point %d: %s: relative error %.3e > %.1e", point, what, err, tol);
}

/* Every function of the view is callable, though the model provides only
 * mass(), potential() and constraints(). */
static void check_fallbacks_bound(const wb_model *m)
{
    CHECK(m->nq == NQ && m->n_holonomic == NC, "dimensions nq %d, m %d", m->nq, m->n_holonomic);
    CHECK(!m->mass_constant, "the model's mass is configuration-dependent");
    CHECK(m->capabilities & WB_CAP_HOLONOMIC, "holonomic capability");
    CHECK(!(m->holonomic_flags & WB_HOLONOMIC_QUADRATIC), "g2 is not quadratic");
    CHECK(m->potential_gradient.fn && m->potential_hessian.fn && m->kinetic_gradient.fn &&
              m->mass_solve.fn && m->constraint_jacobian.fn &&
              m->constraint_hessian_contract.fn && m->constraint_hessian_vector.fn &&
              m->constraint_third_contract.fn && m->index1_multiplier.fn &&
              m->hidden_constraints.fn && m->energy.fn,
          "every function of the view is callable");
}

static const double test_mu[NC] = {0.7, -1.3};
static const double test_w[NQ] = {0.4, -0.9, 1.1};

/* One difference away from mass(), potential() or constraints(), or none. */
static void check_first_level(const wb_model *m, int point, const double *q, const double *p)
{
    double got[NQ * NQ], want[NQ * NQ], diag[NQ];

    wb_potential_gradient(m, q, got);
    exact_gradient(q, want);
    compare("potential_gradient", point, NQ, got, want, 1e-9);

    wb_kinetic_gradient(m, q, p, got);
    exact_kinetic_gradient(q, p, want);
    compare("kinetic_gradient", point, NQ, got, want, 1e-9);

    wb_constraint_jacobian(m, q, got);
    exact_jacobian(q, want);
    compare("constraint_jacobian", point, NC * NQ, got, want, 1e-9);

    /* G M^-1 p: the FD Jacobian times an exact solve */
    double gv[NC], gv_want[NC];
    mass_diagonal(q, diag);
    wb_hidden_constraints(m, q, p, gv);
    for (int k = 0; k < NC; k++) {
        gv_want[k] = 0;
        for (int i = 0; i < NQ; i++)
            gv_want[k] += want[k * NQ + i] * p[i] / diag[i];
    }
    compare("hidden_constraints", point, NC, gv, gv_want, 1e-9);

    /* no differences at all: Cholesky of mass() */
    wb_mass_solve(m, q, p, got);
    for (int i = 0; i < NQ; i++)
        want[i] = p[i] / diag[i];
    compare("mass_solve", point, NQ, got, want, 1e-14);

    double energy = q[0] * q[0] * q[1] + sin(q[2]) + q[0] * q[2] * q[2] * q[2];
    for (int i = 0; i < NQ; i++)
        energy += 0.5 * p[i] * want[i];
    double e = wb_energy(m, q, p);
    compare("energy (T + V)", point, 1, &e, &energy, 1e-14);
}

/* Fallbacks that difference another fallback. */
static void check_nested(const wb_model *m, int point, const double *q, const double *p)
{
    double got[NQ * NQ], want[NQ * NQ];

    wb_potential_hessian(m, q, got); /* FD of the FD gradient */
    exact_hessian(q, want);
    compare("potential_hessian", point, NQ * NQ, got, want, 1e-7);

    wb_constraint_hessian_contract(m, q, test_mu, got); /* FD of the FD Jacobian */
    exact_hessian_contract(q, test_mu, want);
    compare("constraint_hessian_contract", point, NQ * NQ, got, want, 1e-7);

    wb_constraint_hessian_vector(m, q, test_w, got); /* FD of the FD Jacobian */
    exact_hessian_vector(q, test_w, want);
    compare("constraint_hessian_vector", point, NC * NQ, got, want, 1e-7);

    double lambda[NC], lambda_want[NC]; /* uses hessian_vector */
    CHECK_STATUS(wb_index1_multiplier(m, q, p, lambda), WB_OK, "index1_multiplier");
    exact_index1_multiplier(q, p, lambda_want);
    compare("index1_multiplier", point, NC, lambda, lambda_want, 1e-7);

    /* three levels deep: each central difference keeps about the 2/3 power
     * of the noise below it, eps^(8/27) ~ 2e-5 here, times the derivative's
     * scale (fd_step in core/src/finite_diff.c) */
    wb_constraint_third_contract(m, q, test_mu, test_w, got);
    exact_third_contract(q, test_mu, test_w, want);
    compare("constraint_third_contract", point, NQ * NQ, got, want, 2e-4);
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "first") != 0 && strcmp(argv[2], "nested") != 0)) {
        fprintf(stderr, "usage: %s PATH/derivative_free_model.so first|nested\n", argv[0]);
        return 2;
    }
    const int nested = strcmp(argv[2], "nested") == 0;
    const char *name = nested ? "fd_fallback nested" : "fd_fallback first";
    const plugin *p = plugins_load_file(argv[1]);
    if (!CHECK(p != NULL, "loading %s: %s", argv[1], host_last_error()))
        return test_summary(name);
    model_instance *mi = model_instance_create(p, NULL);
    if (!CHECK(mi != NULL, "creating the model: %s", host_last_error()))
        return test_summary(name);
    const wb_model *m = model_instance_view(mi);
    check_fallbacks_bound(m);

    /* Points with |q_i| below and above 1 (the FD step scales with
     * max(1, |q_i|)), none on the constraint manifold. */
    static const double points[][2][NQ] = {
        {{0.3, -0.4, 0.7}, {0.5, -0.2, 0.9}},
        {{1.3, 0.5, -0.9}, {-1.1, 0.8, 0.3}},
        {{-0.6, 2.1, 0.25}, {0.7, 1.5, -2.2}},
    };
    for (int k = 0; k < (int)(sizeof points / sizeof points[0]); k++) {
        if (nested)
            check_nested(m, k + 1, points[k][0], points[k][1]);
        else
            check_first_level(m, k + 1, points[k][0], points[k][1]);
    }

    model_instance_destroy(mi);
    plugins_unload_all();
    return test_summary(name);
}
