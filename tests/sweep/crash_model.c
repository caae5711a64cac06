/* A model that crashes its process (SIGSEGV) when created with crash = 1,
 * as a broken plugin would: wb.sweep must record the case as crashed and
 * carry on with the others. */
#include <workbench/workbench.h>

#include <signal.h>
#include <string.h>

static const wb_param_spec params[] = {{"crash", 0.0, 0.0, 1.0, "1: crash when created"}};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)host;
    if (values[0] > 0.5)
        raise(SIGSEGV);
    *self = NULL;
    info->nq = info->nv = 1;
    info->mass_constant = 1;
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
    .struct_size = sizeof(wb_mechanical_ext), .mass = mass, .potential = potential};

static const void *get_extension(const char *id)
{
    return strcmp(id, WB_EXT_MECHANICAL) == 0 ? &mechanical : NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = "crash_model",
    .doc = "test: crashes when created with crash = 1",
    .params = params,
    .n_params = 1,
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
    .param_spec_size = sizeof(wb_param_spec),
};

WB_PLUGIN_ENTRY = {WB_ABI_MAJOR, WB_ABI_MINOR, sizeof(wb_plugin_entry), WB_KIND_MODEL,
                   "crash_model", "test", "test: a model that crashes", &model_class};
