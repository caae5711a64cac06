/* The `classic` family's entry. */
#include "classic.h"

static const wb_method *const methods[] = {
    &classic_shake,
    &classic_rattle,
    &classic_verlet,
    &classic_rk4,
};

static const wb_family classic_family = {
    .struct_size = sizeof(wb_family),
    .name = "classic",
    .doc = "SHAKE, RATTLE, Stormer-Verlet and classical RK4",
    .methods = methods,
    .n_methods = sizeof methods / sizeof methods[0],
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_INTEGRATOR,
    .name = "classic",
    .version = "1.0",
    .description = "SHAKE, RATTLE, Stormer-Verlet, RK4",
    .descriptor = &classic_family,
};
