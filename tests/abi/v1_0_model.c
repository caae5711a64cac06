/* A model plugin written against the ABI 1.0 headers (tests/abi/v1_0):
 * a planar isotropic oscillator, H = |p|^2/(2 m) + k |q|^2 / 2, with the
 * angular momentum as a momentum map.  Built without core/include, so it
 * sees exactly the 1.0 structs; a 1.1 host must load and run it as is. */
#include <workbench/workbench.h>

#include <stdlib.h>
#include <string.h>

#if WB_ABI_MAJOR != 1 || WB_ABI_MINOR != 0
#error "this plugin must be built against the ABI 1.0 headers"
#endif

typedef struct oscillator {
    double m, k;
} oscillator;

static const wb_param_spec params[] = {
    {"m", 2.0, 1e-6, 1e6, "mass"},
    {"k", 3.0, 0.0, 1e6, "stiffness"},
};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    oscillator *o = malloc(sizeof *o);
    if (!o) {
        host->error(host, "v1_0_oscillator: out of memory");
        return WB_ERR_NOMEM;
    }
    o->m = values[0], o->k = values[1];
    *self = o;
    static const char *const names[] = {"L"};
    info->nq = info->nv = 2;
    info->mass_constant = 1;
    info->n_invariants = 1;
    info->invariant_names = names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const oscillator *o = self;
    (void)q;
    M[0] = M[3] = o->m, M[1] = M[2] = 0.0;
}

static double potential(void *self, const double *q)
{
    const oscillator *o = self;
    return 0.5 * o->k * (q[0] * q[0] + q[1] * q[1]);
}

static void gradient(void *self, const double *q, double *g)
{
    const oscillator *o = self;
    g[0] = o->k * q[0], g[1] = o->k * q[1];
}

static void invariants(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    out[0] = q[0] * p[1] - q[1] * p[0];
}

static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self, (void)index;
    xi[0] = -q[1], xi[1] = q[0];
    return 0;
}

static void initial(void *self, double *q, double *p)
{
    const oscillator *o = self;
    q[0] = 1.0, q[1] = 0.0;
    p[0] = 0.0, p[1] = 0.5 * o->m;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
    .potential_gradient = gradient,
};
static const wb_invariants_ext invariant = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = invariants,
    .generator = generator,
};
static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_INVARIANTS) == 0)
        return &invariant;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = "v1_0_oscillator",
    .doc = "test: a planar oscillator built against the ABI 1.0 headers",
    .params = params,
    .n_params = 2,
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {WB_ABI_MAJOR, WB_ABI_MINOR, sizeof(wb_plugin_entry), WB_KIND_MODEL,
                   "v1_0_oscillator", "1.0", "test: an ABI 1.0 model", &model_class};
