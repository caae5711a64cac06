/* Planar pendulum in Cartesian coordinates.
 *
 *   q = (x, y) in R^2, gravity along -y,
 *   H = |p|^2 / (2m) + m g y,   g(q) = |q|^2 - l^2   (one constraint).
 *
 * Default initial state: hanging straight down, q0 = (0, -l), with the
 * horizontal speed sqrt(g l), which swings to 60 degrees (for m = l = g = 1
 * this is the line-integral paper's pendulum: q0 = (0,-1), p0 = (1,0)). */
#include <workbench/workbench.h>
#include <workbench/holonomic_projection.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct pendulum {
    double m, l, g;
} pendulum;

enum { P_M, P_L, P_G };
static const wb_param_spec params[] = {
    {"m", 1.0, 1e-12, 1e12, "mass"},
    {"l", 1.0, 1e-12, 1e12, "rod length"},
    {"g", 9.81, 0.0, 1e12, "gravitational acceleration"},
};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    pendulum *p = malloc(sizeof *p);
    if (!p) {
        host->error(host, "pendulum: out of memory");
        return WB_ERR_NOMEM;
    }
    p->m = values[P_M], p->l = values[P_L], p->g = values[P_G];
    *self = p;
    info->nq = info->nv = 2;
    info->n_holonomic = 1;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const pendulum *p = self;
    (void)q;
    M[0] = M[3] = p->m;
    M[1] = M[2] = 0.0;
}

static void mass_solve(void *self, const double *q, const double *mom, double *v)
{
    const pendulum *p = self;
    (void)q;
    v[0] = mom[0] / p->m;
    v[1] = mom[1] / p->m;
}

static double potential(void *self, const double *q)
{
    const pendulum *p = self;
    return p->m * p->g * q[1];
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    const pendulum *p = self;
    (void)q;
    grad[0] = 0.0;
    grad[1] = p->m * p->g;
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, 4 * sizeof(double));
}

static void constraints(void *self, const double *q, double *g)
{
    const pendulum *p = self;
    g[0] = q[0] * q[0] + q[1] * q[1] - p->l * p->l;
}

static void jacobian(void *self, const double *q, double *G)
{
    (void)self;
    G[0] = 2.0 * q[0];
    G[1] = 2.0 * q[1];
}

static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self, (void)q;
    T[0] = T[3] = 2.0 * mu[0];
    T[1] = T[2] = 0.0;
}

static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self, (void)q;
    B[0] = 2.0 * w[0];
    B[1] = 2.0 * w[1];
}

/* grad V, g and G at once: RATTLE's two calls a step in place of five
 * (the same expressions as the three functions above) */
static void point_values(void *self, const double *q, double *grad, double *g, double *G)
{
    const pendulum *p = self;
    grad[0] = 0.0;
    grad[1] = p->m * p->g;
    g[0] = q[0] * q[0] + q[1] * q[1] - p->l * p->l;
    G[0] = 2.0 * q[0];
    G[1] = 2.0 * q[1];
}

static void initial(void *self, double *q, double *mom)
{
    const pendulum *p = self;
    q[0] = 0.0;
    q[1] = -p->l;
    mom[0] = p->m * sqrt(p->g * p->l);
    mom[1] = 0.0;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = mass_solve,
    .potential = potential,
    .potential_gradient = potential_gradient,
    .potential_hessian = potential_hessian,
};

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = WB_HOLONOMIC_QUADRATIC,
    .constraints = constraints,
    .jacobian = jacobian,
    .hessian_contract = hessian_contract,
    .hessian_vector = hessian_vector,
};

/* RATTLE's Newton iteration on point_values, compiled here: one call a
 * step from the method instead of one per residual */
WB_HOLONOMIC_PROJECTION(project, point_values, 2)

static const wb_holonomic_point_ext holonomic_point = {
    .struct_size = sizeof(wb_holonomic_point_ext),
    .evaluate = point_values,
    .project = project,
    .project_nq = project_nq,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_HOLONOMIC, &holonomic},
    {WB_EXT_HOLONOMIC_POINT, &holonomic_point},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("pendulum",
                "planar pendulum in Cartesian coordinates, g(q) = |q|^2 - l^2",
                "planar pendulum, Cartesian coordinates, one holonomic constraint",
                params, create, destroy, extensions);
