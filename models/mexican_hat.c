/* A particle in the plane in the "Mexican hat" potential: two degrees of
 * freedom, no constraint, rotational symmetry.
 *
 *   q in R^2,  M = m I,  V(q) = b (|q|^2 - r0^2)^2 / 4,
 *   H = |p|^2 / (2 m) + V,  L = q1 p2 - q2 p1 the momentum map of
 *   rotations about the origin (generator xi(q) = (-q2, q1)).
 *
 * A smooth, anharmonic central force: the unconstrained companion of the
 * spherical pendulum for the discrete momentum map of a variational
 * integrator (Kepler's singular force limits the step size instead).
 * Default initial state q = (1.2, 0), p = m (0.3, 0.3): a rosette about the
 * circle of minima, between the radii 0.79 and 1.28 (for m = b = r0 = 1). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <stdlib.h>

typedef struct mexican_hat {
    double m, b, r0;
} mexican_hat;

enum { P_M, P_B, P_R0 };
static const wb_param_spec params[] = {
    {"m", 1.0, 1e-12, 1e12, "mass"},
    {"b", 1.0, 0.0, 1e12, "strength: V = b (|q|^2 - r0^2)^2 / 4"},
    {"r0", 1.0, 0.0, 1e12, "radius of the potential's circle of minima"},
};

static const char *const invariant_names[] = {"L"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    mexican_hat *s = malloc(sizeof *s);
    if (!s) {
        host->error(host, "mexican_hat: out of memory");
        return WB_ERR_NOMEM;
    }
    s->m = values[P_M], s->b = values[P_B], s->r0 = values[P_R0];
    *self = s;
    info->nq = info->nv = 2;
    info->mass_constant = 1;
    info->n_invariants = 1;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const mexican_hat *s = self;
    (void)q;
    M[0] = M[3] = s->m, M[1] = M[2] = 0.0;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const mexican_hat *s = self;
    (void)q;
    v[0] = p[0] / s->m, v[1] = p[1] / s->m;
}

static double excess(const mexican_hat *s, const double *q)
{
    return q[0] * q[0] + q[1] * q[1] - s->r0 * s->r0;
}

static double potential(void *self, const double *q)
{
    const mexican_hat *s = self;
    const double e = excess(s, q);
    return 0.25 * s->b * e * e;
}

static void potential_gradient(void *self, const double *q, double *g)
{
    const mexican_hat *s = self;
    const double e = excess(s, q);
    g[0] = s->b * e * q[0];
    g[1] = s->b * e * q[1];
}

static void potential_hessian(void *self, const double *q, double *H)
{
    const mexican_hat *s = self;
    const double e = excess(s, q);
    H[0] = s->b * (e + 2.0 * q[0] * q[0]);
    H[1] = H[2] = 2.0 * s->b * q[0] * q[1];
    H[3] = s->b * (e + 2.0 * q[1] * q[1]);
}

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    out[0] = q[0] * p[1] - q[1] * p[0];
}

static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index != 0)
        return -1;
    xi[0] = -q[1], xi[1] = q[0];
    return 0;
}

static void initial(void *self, double *q, double *p)
{
    const mexican_hat *s = self;
    q[0] = 1.2, q[1] = 0.0;
    p[0] = 0.3 * s->m, p[1] = 0.3 * s->m;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = mass_solve,
    .potential = potential,
    .potential_gradient = potential_gradient,
    .potential_hessian = potential_hessian,
};

static const wb_invariants_ext invariants = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = evaluate,
    .generator = generator,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_INVARIANTS, &invariants},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("mexican_hat",
                "particle in the plane, V = b (|q|^2 - r0^2)^2 / 4, angular momentum L",
                "two degrees of freedom, unconstrained, rotationally symmetric", params, create,
                destroy, extensions);
