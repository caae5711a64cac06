/* The Kepler problem on the abelian group R^2 (workbench/groups): the same
 * system as models/kepler.c, H = |mu|^2 / 2 - 1 / |q|, f1 = mu,
 * f2 = -grad V = -q / |q|^3, with kepler's initial state for e = 0.5.  On
 * it every variational Lie-group method must be the symplectic partitioned
 * Runge-Kutta method (a, ahat) it reduces to (Gauss for a Gauss tableau). */
#include <workbench/workbench.h>
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kepler_group {
    wb_group group;
} kepler_group;

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)values;
    kepler_group *k = calloc(1, sizeof *k);
    if (!k) {
        host->error(host, "kepler_group: out of memory");
        return WB_ERR_NOMEM;
    }
    wb_group_init(&k->group);
    wb_group_add(&k->group, WB_GROUP_RN, 2);
    *self = k;
    info->nq = info->nv = 2;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static const wb_group *group_of(void *self) { return &((kepler_group *)self)->group; }

WB_LIE_GROUP_EXTENSION(lie_group, group_of);

static double hamiltonian(void *self, const double *q, const double *mu)
{
    (void)self;
    return 0.5 * (mu[0] * mu[0] + mu[1] * mu[1]) - 1.0 / hypot(q[0], q[1]);
}

static void vector_field(void *self, const double *q, const double *mu, double *f1, double *f2)
{
    (void)self;
    const double r = hypot(q[0], q[1]), r3 = r * r * r;
    f1[0] = mu[0], f1[1] = mu[1];
    f2[0] = -q[0] / r3, f2[1] = -q[1] / r3;
}

static void initial(void *self, double *q, double *mu)
{
    (void)self;
    const double e = 0.5;
    q[0] = 1.0 - e, q[1] = 0.0;
    mu[0] = 0.0, mu[1] = sqrt((1.0 + e) / (1.0 - e));
}

static const wb_lie_hamiltonian_ext lie_hamiltonian = {
    .struct_size = sizeof(wb_lie_hamiltonian_ext),
    .hamiltonian = hamiltonian,
    .vector_field = vector_field,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_LIE_GROUP) == 0)
        return &lie_group;
    if (strcmp(id, WB_EXT_LIE_HAMILTONIAN) == 0)
        return &lie_hamiltonian;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = "kepler_group",
    .doc = "the Kepler problem on the abelian group R^2 (test model)",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
    .param_spec_size = sizeof(wb_param_spec),
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = "kepler_group",
    .version = "1.0",
    .description = "Kepler problem on R^2 as a Lie group (test model)",
    .descriptor = &model_class,
};
