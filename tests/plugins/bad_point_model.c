/* The planar pendulum (m = l = 1, gravity 9.81) whose combined evaluation
 * (wb.holonomic_point/1) reports dg/dx one percent too large (a multiple of
 * the right G would go unseen: RATTLE uses G only through lambda G and
 * quotients of G's products); its separate
 * callbacks are right.  `workbench check-model bad_point_model` must fail
 * on the holonomic_point G row and on no other, and RATTLE's results with
 * and without the combined call must differ: so a test sees that the
 * check compares what it says, and that RATTLE does take the combined
 * path when a model offers it.
 *
 *   q in R^2, M = I, V = 9.81 y, g(q) = |q|^2 - 1. */
#include <workbench/workbench.h>

#include <math.h>
#include <string.h>

#define JACOBIAN_ERROR 1.01 /* the deliberate mistake */

static const double gravity = 9.81;

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = 2;
    info->n_holonomic = 1;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    M[0] = M[3] = 1.0;
    M[1] = M[2] = 0.0;
}

static double potential(void *self, const double *q)
{
    (void)self;
    return gravity * q[1];
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    (void)self, (void)q;
    grad[0] = 0.0, grad[1] = gravity;
}

static void constraints(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
}

static void jacobian(void *self, const double *q, double *G)
{
    (void)self;
    G[0] = 2.0 * q[0], G[1] = 2.0 * q[1];
}

static void point_values(void *self, const double *q, double *grad, double *g, double *G)
{
    potential_gradient(self, q, grad);
    constraints(self, q, g);
    G[0] = JACOBIAN_ERROR * 2.0 * q[0], G[1] = 2.0 * q[1];
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    q[0] = 0.0, q[1] = -1.0;
    p[0] = sqrt(gravity), p[1] = 0.0;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
    .potential_gradient = potential_gradient,
};

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = WB_HOLONOMIC_QUADRATIC,
    .constraints = constraints,
    .jacobian = jacobian,
};

static const wb_holonomic_point_ext holonomic_point = {
    .struct_size = sizeof(wb_holonomic_point_ext),
    .evaluate = point_values,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_HOLONOMIC) == 0)
        return &holonomic;
    if (strcmp(id, WB_EXT_HOLONOMIC_POINT) == 0)
        return &holonomic_point;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = "bad_point_model",
    .doc = "pendulum whose wb.holonomic_point/1 reports dg/dx 1% too large (test)",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    WB_ABI_MAJOR, WB_ABI_MINOR, sizeof(wb_plugin_entry), WB_KIND_MODEL, "bad_point_model",
    "1", "pendulum with a wrong combined Jacobian (test)", &model_class,
};
