/* A 2-D oscillator that is right in its numbers and wrong in its memory,
 * one defect per build:
 *
 *   OVERRUN             potential_gradient writes one value past its two:
 *                       a method runs on with the same numbers, and
 *                       check-model must name the callback;
 *   WILD_EXTENSION      get_extension("wb.nonholonomic/1") returns a wild
 *                       pointer: the host would crash creating the model,
 *                       and the loader's test process must refuse the file;
 *   CRASHING_EXTENSION  get_extension("wb.nonholonomic/1") crashes: the
 *                       test process dies, and its verdict names the call.
 *
 *   q in R^2, M = I,  V(q) = 1/2 (x^2 + 4 y^2),  grad V = (x, 4 y). */
#include <workbench/workbench.h>

#include <stdint.h>
#include <string.h>

#ifndef PLUGIN_NAME
#define PLUGIN_NAME "bad_memory_model"
#endif

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
    return 0.5 * (q[0] * q[0] + 4 * q[1] * q[1]);
}

static void potential_gradient(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = q[0];
    g[1] = 4 * q[1];
#ifdef OVERRUN
    g[2] = 0.0; /* the deliberate mistake: one past the end */
#endif
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
#if defined(WILD_EXTENSION)
    if (strcmp(id, WB_EXT_NONHOLONOMIC) == 0)
        return (const void *)(uintptr_t)16; /* the deliberate mistake */
#elif defined(CRASHING_EXTENSION)
    if (strcmp(id, WB_EXT_NONHOLONOMIC) == 0) {
        volatile uintptr_t nowhere = 16;
        return (const void *)(uintptr_t)*(const uint32_t *)nowhere; /* the deliberate mistake */
    }
#endif
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = PLUGIN_NAME,
    .doc = "test: a 2-D oscillator right in its numbers, wrong in its memory",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = PLUGIN_NAME,
    .version = "test",
    .description = "test: writes outside its arrays, or a wild get_extension",
    .descriptor = &model_class,
};
