/* The Kepler problem (Hairer-Lubich-Wanner I.2.3), unconstrained.
 *
 *   q, p in R^2,   H = |p|^2 / 2 - 1 / |q|.
 *
 * Initial state for eccentricity e: q0 = (1 - e, 0),
 * p0 = (0, sqrt((1 + e) / (1 - e))): period 2 pi, H = -1/2,
 * angular momentum L = sqrt(1 - e^2).  Invariants: L (the momentum map of
 * rotations) and the Runge-Lenz vector (A1, A2). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>

typedef struct kepler {
    double e;
} kepler;

static const wb_param_spec params[] = {
    {"e", 0.5, 0.0, 0.99, "eccentricity of the orbit started at pericentre"},
};

static const char *const invariant_names[] = {"L", "A1", "A2"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    kepler *k = malloc(sizeof *k);
    if (!k) {
        host->error(host, "kepler: out of memory");
        return WB_ERR_NOMEM;
    }
    k->e = values[0];
    *self = k;
    info->nq = info->nv = 2;
    info->mass_constant = 1;
    info->n_invariants = 3;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    M[0] = M[3] = 1.0;
    M[1] = M[2] = 0.0;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    (void)self, (void)q;
    v[0] = p[0];
    v[1] = p[1];
}

static double potential(void *self, const double *q)
{
    (void)self;
    return -1.0 / sqrt(q[0] * q[0] + q[1] * q[1]);
}

static void potential_gradient(void *self, const double *q, double *g)
{
    (void)self;
    /* sqrt of r^2, not hypot: no overflow to guard against at orbital
     * scales, and hypot costs a quarter of a Gauss step */
    const double r2 = q[0] * q[0] + q[1] * q[1], k = 1.0 / (r2 * sqrt(r2));
    g[0] = k * q[0];
    g[1] = k * q[1];
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self;
    double r2 = q[0] * q[0] + q[1] * q[1], r = sqrt(r2), r3 = r2 * r, r5 = r3 * r2;
    H[0] = 1.0 / r3 - 3.0 * q[0] * q[0] / r5;
    H[1] = H[2] = -3.0 * q[0] * q[1] / r5;
    H[3] = 1.0 / r3 - 3.0 * q[1] * q[1] / r5;
}

/* L = q x p; A = p x L e3 - q / |q| = (p2 L - q1/r, -p1 L - q2/r). */
static void evaluate(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    double L = q[0] * p[1] - q[1] * p[0], r = sqrt(q[0] * q[0] + q[1] * q[1]);
    out[0] = L;
    out[1] = p[1] * L - q[0] / r;
    out[2] = -p[0] * L - q[1] / r;
}

static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index != 0)
        return -1;
    xi[0] = -q[1];
    xi[1] = q[0];
    return 0;
}

static void initial(void *self, double *q, double *p)
{
    const kepler *k = self;
    q[0] = 1.0 - k->e, q[1] = 0.0;
    p[0] = 0.0, p[1] = sqrt((1.0 + k->e) / (1.0 - k->e));
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

WB_MODEL_PLUGIN("kepler",
                "Kepler problem H = |p|^2/2 - 1/|q|, orbit of eccentricity e",
                "two-body Kepler problem, unconstrained, angular momentum and Runge-Lenz",
                params, create, destroy, extensions);
