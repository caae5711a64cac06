/* The `prk` family: partitioned Runge-Kutta methods on unconstrained
 * mechanical models, any pair of tableaux: (a, b) on the positions,
 * (a2, b2) on the momenta -- Lobatto IIIA-IIIB is IIIA on q, IIIB on p.
 * Order and structure are read off the pair. */
#include "stage_solver.h"

static const wb_option_spec options[STAGE_OPT_COUNT] = STAGE_SOLVER_OPTIONS(
    "lobatto_iiia_iiib3",
    "a partitioned pair (lobatto_iiia_iiib<s>, or wb.tableau{a =, b =, a2 =, b2 =})");

static const char *const requires[] = {WB_EXT_MECHANICAL, NULL};

static const wb_method prk_method = {
    .struct_size = sizeof(wb_method),
    .name = "prk",
    .doc = "partitioned Runge-Kutta method: (a, b) on q, (a2, b2) on p",
    .options = options,
    .n_options = STAGE_OPT_COUNT,
    .requires = requires,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "order of the pair (Lobatto IIIA-IIIB with s stages: 2s-2)",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING,
    .describe = stage_method_describe_prk,
    .create = stage_method_create_prk,
    .destroy = stage_method_destroy,
    .reset = stage_method_reset,
    .step = stage_method_step,
};

static const wb_method *const methods[] = {&prk_method};

static const wb_family prk_family = {
    .struct_size = sizeof(wb_family),
    .name = "prk",
    .doc = "partitioned Runge-Kutta methods with any pair of tableaux",
    .methods = methods,
    .n_methods = 1,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_INTEGRATOR,
    .name = "prk",
    .version = "1.0",
    .description = "partitioned Runge-Kutta methods (Lobatto IIIA-IIIB and any pair)",
    .descriptor = &prk_family,
};
