/* Vector-space models whose extensions do not go together; each must be
 * refused with a message naming what is missing (-DVARIANT=...):
 *   LIE_WITHOUT_GROUP        wb.mechanical/1 + wb.lie_hamiltonian/1, no group
 *   HOLONOMIC_NO_MECHANICAL  wb.holonomic/1 alone
 *   NONHOLONOMIC_NO_MECHANICAL  wb.nonholonomic/1 alone */
#include <workbench/workbench.h>

#include <string.h>

#define LIE_WITHOUT_GROUP 1
#define HOLONOMIC_NO_MECHANICAL 2
#define NONHOLONOMIC_NO_MECHANICAL 3

static int create(const wb_host *host, const double *values, void **self,
                  wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = 2;
#if VARIANT == HOLONOMIC_NO_MECHANICAL
    info->n_holonomic = 1;
#elif VARIANT == NONHOLONOMIC_NO_MECHANICAL
    info->n_nonholonomic = 1;
#endif
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    M[0] = M[3] = 1.0, M[1] = M[2] = 0.0;
}

static double potential(void *self, const double *q)
{
    (void)self;
    return 0.5 * (q[0] * q[0] + q[1] * q[1]);
}

static void g_of(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
}

static void phi_of(void *self, const double *q, const double *v, double *phi)
{
    (void)self;
    phi[0] = v[1] - q[0] * v[0];
}

static double hamiltonian(void *self, const double *q, const double *mu)
{
    (void)self, (void)q;
    return 0.5 * mu[0] * mu[0];
}

static void field(void *self, const double *q, const double *mu, double *f1, double *f2)
{
    (void)self, (void)q;
    f1[0] = mu[0], f1[1] = mu[1], f2[0] = f2[1] = 0.0;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext), .mass = mass, .potential = potential};
static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext), .constraints = g_of};
static const wb_nonholonomic_ext nonholonomic = {
    .struct_size = sizeof(wb_nonholonomic_ext), .constraints = phi_of};
static const wb_lie_hamiltonian_ext lie_dynamics = {
    .struct_size = sizeof(wb_lie_hamiltonian_ext), .hamiltonian = hamiltonian,
    .vector_field = field};

static const void *get_extension(const char *id)
{
#if VARIANT == LIE_WITHOUT_GROUP
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_LIE_HAMILTONIAN) == 0)
        return &lie_dynamics;
#elif VARIANT == HOLONOMIC_NO_MECHANICAL
    if (strcmp(id, WB_EXT_HOLONOMIC) == 0)
        return &holonomic;
#else
    if (strcmp(id, WB_EXT_NONHOLONOMIC) == 0)
        return &nonholonomic;
#endif
    (void)mechanical, (void)holonomic, (void)nonholonomic, (void)lie_dynamics;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = NAME,
    .doc = "test: extensions that do not go together",
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
    .name = NAME,
    .version = "test",
    .description = "test: a refused combination of extensions",
    .descriptor = &model_class,
};
