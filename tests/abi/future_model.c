/* A model as a later minor version might write it: parameter specs with a
 * member the host does not know (param_spec_size larger than the host's).
 * A 1D oscillator, V = k q^2 / 2, M = m. */
#include <workbench/workbench.h>

#include <stdlib.h>
#include <string.h>

typedef struct future_param_spec {
    wb_param_spec known;
    const char *unit;       /* a 1.2 member */
} future_param_spec;

static const future_param_spec params[] = {
    {{"m", 2.0, 1e-6, 1e6, "mass"}, "kg"},
    {{"k", 8.0, 0.0, 1e6, "stiffness"}, "N/m"},
};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    double *mk = malloc(2 * sizeof(double));
    if (!mk) {
        host->error(host, "future_oscillator: out of memory");
        return WB_ERR_NOMEM;
    }
    mk[0] = values[0], mk[1] = values[1];
    *self = mk;
    info->nq = info->nv = 1;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    (void)q;
    M[0] = ((const double *)self)[0];
}

static double potential(void *self, const double *q)
{
    return 0.5 * ((const double *)self)[1] * q[0] * q[0];
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    q[0] = 1.0, p[0] = 0.0;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext), .mass = mass, .potential = potential};
static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext), .initial = initial};

/* An extension id the host does not know: only the plugins that do use it. */
typedef struct damping_ext {
    uint32_t struct_size;
    double (*coefficient)(void *self);
} damping_ext;

static double coefficient(void *self)
{
    (void)self;
    return 0.125;
}

static const damping_ext damping = {sizeof(damping_ext), coefficient};

static const void *get_extension(const char *id)
{
    if (strcmp(id, "test.damping/1") == 0)
        return &damping;
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = "future_oscillator",
    .doc = "test: parameter specs of a later minor version",
    .params = &params[0].known,
    .n_params = 2,
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
    .param_spec_size = sizeof(future_param_spec),
};

WB_PLUGIN_ENTRY = {WB_ABI_MAJOR, 2, sizeof(wb_plugin_entry), WB_KIND_MODEL,
                   "future_oscillator", "1.2", "test: larger parameter specs", &model_class};
