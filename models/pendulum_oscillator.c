/* A pendulum coupled to an oscillator: two degrees of freedom, no
 * constraint (the unconstrained test system P3 of the seed-003 digest,
 * shared/notes/003.md, used for its identity and symplecticity checks).
 *
 *   q = (q1, q2) in R^2,  M = diag(m1, m2),
 *   V(q) = -a cos q1 + k q2^2 / 2 + c q1 q2^2,
 *   H = p1^2 / (2 m1) + p2^2 / (2 m2) + V.
 *
 * Defaults: m1 = 1, m2 = 2, a = 1, k = 1, c = 0.1, and the digest's
 * initial state q = (0.7, -0.4), v = (0.3, 0.5), so p = (0.3, 1.0). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pendulum_oscillator {
    double m1, m2, a, k, c;
} pendulum_oscillator;

enum { P_M1, P_M2, P_A, P_K, P_C };
static const wb_param_spec params[] = {
    {"m1", 1.0, 1e-12, 1e12, "mass (inertia) of the pendulum angle q1"},
    {"m2", 2.0, 1e-12, 1e12, "mass of the oscillator coordinate q2"},
    {"a", 1.0, -1e12, 1e12, "pendulum strength: V contains -a cos q1"},
    {"k", 1.0, -1e12, 1e12, "oscillator stiffness: V contains k q2^2 / 2"},
    {"c", 0.1, -1e12, 1e12, "coupling: V contains c q1 q2^2"},
};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    pendulum_oscillator *s = malloc(sizeof *s);
    if (!s) {
        host->error(host, "pendulum_oscillator: out of memory");
        return WB_ERR_NOMEM;
    }
    s->m1 = values[P_M1], s->m2 = values[P_M2], s->a = values[P_A];
    s->k = values[P_K], s->c = values[P_C];
    *self = s;
    info->nq = info->nv = 2;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const pendulum_oscillator *s = self;
    (void)q;
    M[0] = s->m1, M[1] = M[2] = 0.0, M[3] = s->m2;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const pendulum_oscillator *s = self;
    (void)q;
    v[0] = p[0] / s->m1, v[1] = p[1] / s->m2;
}

static double potential(void *self, const double *q)
{
    const pendulum_oscillator *s = self;
    return -s->a * cos(q[0]) + 0.5 * s->k * q[1] * q[1] + s->c * q[0] * q[1] * q[1];
}

static void potential_gradient(void *self, const double *q, double *g)
{
    const pendulum_oscillator *s = self;
    g[0] = s->a * sin(q[0]) + s->c * q[1] * q[1];
    g[1] = s->k * q[1] + 2.0 * s->c * q[0] * q[1];
}

static void potential_hessian(void *self, const double *q, double *H)
{
    const pendulum_oscillator *s = self;
    H[0] = s->a * cos(q[0]);
    H[1] = H[2] = 2.0 * s->c * q[1];
    H[3] = s->k + 2.0 * s->c * q[0];
}

static void initial(void *self, double *q, double *p)
{
    const pendulum_oscillator *s = self;
    q[0] = 0.7, q[1] = -0.4;
    p[0] = s->m1 * 0.3, p[1] = s->m2 * 0.5;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = mass_solve,
    .potential = potential,
    .potential_gradient = potential_gradient,
    .potential_hessian = potential_hessian,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("pendulum_oscillator",
                "pendulum coupled to an oscillator, V = -a cos q1 + k q2^2/2 + c q1 q2^2 "
                "(seed-003 digest P3)",
                "two degrees of freedom, unconstrained, non-separable coupling", params, create,
                destroy, extensions);
