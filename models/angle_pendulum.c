/* The pendulum in its angle: the unconstrained pendulum.
 *
 *   q = theta (from the downward vertical),  p = m l^2 theta',
 *   H = p^2 / (2 m l^2) - m g l cos(theta).
 *
 * Default initial state: theta0 = 0 with angular speed sqrt(g / l), which
 * swings to 60 degrees -- the same motion as the `pendulum` model's default
 * in Cartesian coordinates.  Smooth, bounded and nonlinear: the test
 * problem for convergence orders of unconstrained methods. */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>

typedef struct angle_pendulum {
    double m, l, g;
} angle_pendulum;

enum { P_M, P_L, P_G };
static const wb_param_spec params[] = {
    {"m", 1.0, 1e-12, 1e12, "mass"},
    {"l", 1.0, 1e-12, 1e12, "rod length"},
    {"g", 9.81, 0.0, 1e12, "gravitational acceleration"},
};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    angle_pendulum *a = malloc(sizeof *a);
    if (!a) {
        host->error(host, "angle_pendulum: out of memory");
        return WB_ERR_NOMEM;
    }
    a->m = values[P_M], a->l = values[P_L], a->g = values[P_G];
    *self = a;
    info->nq = info->nv = 1;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const angle_pendulum *a = self;
    (void)q;
    M[0] = a->m * a->l * a->l;
}

static double potential(void *self, const double *q)
{
    const angle_pendulum *a = self;
    return -a->m * a->g * a->l * cos(q[0]);
}

static void potential_gradient(void *self, const double *q, double *g)
{
    const angle_pendulum *a = self;
    g[0] = a->m * a->g * a->l * sin(q[0]);
}

static void potential_hessian(void *self, const double *q, double *H)
{
    const angle_pendulum *a = self;
    H[0] = a->m * a->g * a->l * cos(q[0]);
}

static void initial(void *self, double *q, double *p)
{
    const angle_pendulum *a = self;
    q[0] = 0.0;
    p[0] = a->m * a->l * a->l * sqrt(a->g / a->l);
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
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

WB_MODEL_PLUGIN("angle_pendulum",
                "the pendulum in its angle, H = p^2/(2 m l^2) - m g l cos(theta), unconstrained",
                "the unconstrained pendulum in its angle",
                params, create, destroy, extensions);
