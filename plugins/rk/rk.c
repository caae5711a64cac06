/* The `rk` family: Runge-Kutta methods with any tableau, explicit or
 * implicit, on unconstrained mechanical models (Hamilton's equations in
 * (q, p)).  Order and structure are read off the tableau: Gauss, Radau,
 * Lobatto, a composition, or your own. */
#include "stage_solver.h"

static const wb_option_spec options[STAGE_OPT_COUNT] = STAGE_SOLVER_OPTIONS(
    "gauss2", "Butcher tableau (object or name, e.g. gauss3, rk4, radau_iia2)");

static const char *const requires[] = {WB_EXT_MECHANICAL, NULL};

static const wb_method rk_method = {
    .struct_size = sizeof(wb_method),
    .name = "rk",
    .doc = "Runge-Kutta method with any tableau on Hamilton's equations",
    .options = options,
    .n_options = STAGE_OPT_COUNT,
    .requires = requires,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "order of the tableau (Gauss s: 2s, Radau: 2s-1, Lobatto: 2s-2)",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING,
    .describe = stage_method_describe_rk,
    .create = stage_method_create_rk,
    .destroy = stage_method_destroy,
    .reset = stage_method_reset,
    .step = stage_method_step,
};

static const wb_method *const methods[] = {&rk_method};

static const wb_family rk_family = {
    .struct_size = sizeof(wb_family),
    .name = "rk",
    .doc = "explicit and implicit Runge-Kutta methods with any tableau",
    .methods = methods,
    .n_methods = 1,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_INTEGRATOR,
    .name = "rk",
    .version = "1.0",
    .description = "Runge-Kutta methods with any tableau (Newton, simplified Newton, fixed point)",
    .descriptor = &rk_family,
};
