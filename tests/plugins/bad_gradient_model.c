/* A 2-D anharmonic oscillator whose analytic potential_gradient is off by
 * one percent.  Everything else is right, so `workbench check-model
 * bad_gradient_model` must fail on exactly the potential_gradient row.
 *
 *   q in R^2, M = I,  V(q) = 1/2 (x^2 + 4 y^2) + x^2 y,
 *   grad V = (x + 2 x y, 4 y + x^2)   -- reported times 1.01.
 *
 * No potential_hessian: the host would difference the wrong gradient, and
 * the test wants a single failing row. */
#include <workbench/workbench.h>

#include <string.h>

#define GRADIENT_ERROR 1.01 /* the deliberate mistake */

static int create(const wb_host *host, const double *values, void **self,
                  wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = 2;
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
    const double x = q[0], y = q[1];
    return 0.5 * (x * x + 4 * y * y) + x * x * y;
}

static void potential_gradient(void *self, const double *q, double *g)
{
    (void)self;
    const double x = q[0], y = q[1];
    g[0] = GRADIENT_ERROR * (x + 2 * x * y);
    g[1] = GRADIENT_ERROR * (4 * y + x * x);
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    q[0] = 0.5, q[1] = -0.25;
    p[0] = 0.3, p[1] = 0.8;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
    .potential_gradient = potential_gradient,
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
    .name = "bad_gradient_model",
    .doc = "test: 2-D oscillator whose potential_gradient is 1% too large",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = "bad_gradient_model",
    .version = "test",
    .description = "test: analytic gradient deliberately wrong by a factor 1.01",
    .descriptor = &model_class,
};
