/* A family whose method declares an aux group of nv-blocks
 * (WB_AUX_VELOCITY_BLOCKS) without saying how many (no aux_blocks()): the
 * loader must refuse it with the reason, before calling anything. */
#include <workbench/workbench.h>

#include <stddef.h>

static int create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                  void **inst)
{
    (void)host, (void)model, (void)opts;
    *inst = NULL;
    return WB_OK;
}

static void destroy(void *inst) { (void)inst; }

static int start(void *inst, double t, double h, const double *q, const double *p,
                 const double *aux)
{
    (void)inst, (void)t, (void)h, (void)q, (void)p, (void)aux;
    return WB_OK;
}

static int step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
                double *p1, wb_step_stats *stats)
{
    (void)inst, (void)t, (void)h, (void)q0, (void)p0, (void)q1, (void)p1, (void)stats;
    return WB_OK;
}

static void aux_values(const void *inst, double *out) { (void)inst, (void)out; }

static const char *const requires[] = {WB_EXT_LIE_GROUP, NULL};
static const wb_aux_spec aux[] = {
    {.name = "stages", .size_kind = WB_AUX_VELOCITY_BLOCKS, .time = WB_AUX_AT_NODE,
     .doc = "stage values", .flags = WB_AUX_UNRECORDED},
};

static const wb_method method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "stages",
    .doc = "declares nv-blocks without aux_blocks()",
    .requires = requires,
    .handles = WB_HANDLES_LIE_GROUP,
    .aux = aux,
    .n_aux = 1,
    .create = create,
    .destroy = destroy,
    .start = start,
    .step = step,
    .aux_values = aux_values,
};

static const wb_method *const methods[] = {&method};

static const wb_family family = {
    .struct_size = sizeof(wb_family),
    .name = "no_aux_blocks",
    .doc = "test: a method without aux_blocks()",
    .methods = methods,
    .n_methods = 1,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_INTEGRATOR,
    .name = "no_aux_blocks",
    .version = "1.0",
    .description = "test: a method without aux_blocks()",
    .descriptor = &family,
};
