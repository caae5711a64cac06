/* A model that provides only what wb.mechanical/1 and wb.holonomic/1
 * require -- mass(), potential() and constraints() -- so that every
 * derivative an integrator sees comes from the host's finite-difference
 * fallbacks.  tests/unit/fd_fallback_test.c compares those fallbacks with
 * the closed forms below (kept there, not here: this file must not offer
 * them to the host).
 *
 *   q = (x, y, z),
 *   M(q) = diag(1 + x^2, 2, 1 + z^2)       configuration-dependent,
 *   V(q) = x^2 y + sin z + x z^3,
 *   g1(q) = x^2 + y^2 + z^2 - 1            quadratic,
 *   g2(q) = sin x + y z - 0.2              not quadratic: D^3 g2 != 0.
 *
 * The mass depends on q so that the fallbacks for mass_solve,
 * kinetic_gradient and the dM/dt term of the index-1 multiplier are all
 * exercised.  A consistent initial state lets `workbench check-model`
 * judge the flow. */
#include <workbench/workbench.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int create(const wb_host *host, const double *values, void **self,
                  wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL; /* no state: the model has no parameters */
    info->nq = info->nv = 3;
    info->n_holonomic = 2;
    info->mass_constant = 0;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self;
    memset(M, 0, 9 * sizeof(double));
    M[0] = 1.0 + q[0] * q[0];
    M[4] = 2.0;
    M[8] = 1.0 + q[2] * q[2];
}

static double potential(void *self, const double *q)
{
    (void)self;
    return q[0] * q[0] * q[1] + sin(q[2]) + q[0] * q[2] * q[2] * q[2];
}

static void constraints(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0;
    g[1] = sin(q[0]) + q[1] * q[2] - 0.2;
}

/* A consistent state: x = 0, y = cos a, z = sin a with sin 2a = 0.4
 * satisfies g1 = 0 and g2 = y z - 0.2 = 0; v spans the kernel of
 * G(q) = [[0, 2y, 2z], [1, z, y]] (the cross product of its rows), so
 * G M^-1 p = G v = 0. */
static void initial(void *self, double *q, double *p)
{
    (void)self;
    const double a = 0.5 * asin(0.4);
    const double y = cos(a), z = sin(a);
    q[0] = 0.0, q[1] = y, q[2] = z;
    const double v[3] = {2 * y * y - 2 * z * z, 2 * z, -2 * y};
    p[0] = (1.0 + q[0] * q[0]) * v[0];
    p[1] = 2.0 * v[1];
    p[2] = (1.0 + q[2] * q[2]) * v[2];
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
};

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = 0, /* g2 is not quadratic */
    .constraints = constraints,
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
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = "derivative_free_model",
    .doc = "test model: mass, potential and constraints only (host FD fallbacks)",
    .params = NULL,
    .n_params = 0,
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = "derivative_free_model",
    .version = "test",
    .description = "test model without derivatives: every derivative is a host fallback",
    .descriptor = &model_class,
};
