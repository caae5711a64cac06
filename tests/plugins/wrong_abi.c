/* A complete, otherwise valid model whose entry claims the next major ABI
 * version.  The host must refuse it from the entry alone -- without
 * calling anything or reading the descriptor -- and say which version it
 * found and which it speaks. */
#include <workbench/workbench.h>

#include <string.h>

static int create(const wb_host *host, const double *values, void **self,
                  wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = 1;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    M[0] = 1.0;
}

static double potential(void *self, const double *q)
{
    (void)self;
    return 0.5 * q[0] * q[0];
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
};

static const void *get_extension(const char *id)
{
    return strcmp(id, WB_EXT_MECHANICAL) == 0 ? &mechanical : NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = "wrong_abi",
    .doc = "test: built against a future major ABI",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR + 1,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = "wrong_abi",
    .version = "test",
    .description = "test: entry with abi_major = WB_ABI_MAJOR + 1",
    .descriptor = &model_class,
};
