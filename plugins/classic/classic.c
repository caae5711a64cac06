/* The `classic` family's entry. */
#include "classic.h"
#include "wb_integrator_plugin.h"

static const wb_method *const methods[] = {
    &classic_shake,
    &classic_rattle,
    &classic_verlet,
    &classic_rk4,
};

WB_INTEGRATOR_PLUGIN("classic", "SHAKE, RATTLE, Stormer-Verlet and classical RK4",
                     "SHAKE, RATTLE, Stormer-Verlet, RK4", methods);
