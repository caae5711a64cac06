/* The `classic` family's entry. */
#include "classic.h"
#include "wb_integrator_plugin.h"

static const wb_method *const methods[] = {
    &classic_shake,
    &classic_rattle,
    &classic_verlet,
    &classic_rk4,
    &classic_rkmk4,
};

WB_INTEGRATOR_PLUGIN("classic",
                     "SHAKE, RATTLE, Stormer-Verlet, classical RK4 and RK4 as RKMK on T*G",
                     "SHAKE, RATTLE, Stormer-Verlet, RK4, RKMK4", methods);
