/* A test model with a configuration-dependent mass matrix and no
 * constraints: the Kepler problem in polar coordinates,
 *
 *   q = (r, theta),   M(q) = diag(1, r^2),
 *   H = p_r^2 / 2 + p_theta^2 / (2 r^2) - 1 / r,
 *
 * so that Runge-Kutta methods take their (q, p) stage form (the mass is
 * not constant) on an unconstrained model.  p_theta is the angular
 * momentum, a first integral. */
#include <workbench/workbench.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int create(const wb_host *host, const double *values, void **self,
                  wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = 2;
    info->mass_constant = 0;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self;
    M[0] = 1.0, M[1] = M[2] = 0.0, M[3] = q[0] * q[0];
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    (void)self;
    v[0] = p[0], v[1] = p[1] / (q[0] * q[0]);
}

static double potential(void *self, const double *q)
{
    (void)self;
    return -1.0 / q[0];
}

static void potential_gradient(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = 1.0 / (q[0] * q[0]), g[1] = 0.0;
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self;
    H[0] = -2.0 / (q[0] * q[0] * q[0]), H[1] = H[2] = H[3] = 0.0;
}

/* dT/dq at fixed p: dT/dr = -p_theta^2 / r^3 */
static void kinetic_gradient(void *self, const double *q, const double *p, double *g)
{
    (void)self;
    g[0] = -p[1] * p[1] / (q[0] * q[0] * q[0]), g[1] = 0.0;
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    q[0] = 1.0, q[1] = 0.0, p[0] = 0.0, p[1] = 1.2;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = mass_solve,
    .potential = potential,
    .potential_gradient = potential_gradient,
    .potential_hessian = potential_hessian,
    .kinetic_gradient = kinetic_gradient,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = "polar_kepler",
    .doc = "test model: Kepler in polar coordinates (configuration-dependent mass)",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = "polar_kepler",
    .version = "test",
    .description = "test model: Kepler in polar coordinates, M(q) = diag(1, r^2)",
    .descriptor = &model_class,
};
