/* The `rk` family: Runge-Kutta methods with any tableau, explicit or
 * implicit, on unconstrained mechanical models (Hamilton's equations in
 * (q, p)).  Order and structure are read off the tableau: Gauss, Radau,
 * Lobatto, a composition, or your own. */
#include "stage_solver.h"

STAGE_SOLVER_FAMILY("rk", rk, "gauss2",
                    "Butcher tableau (object or name, e.g. gauss3, rk4, radau_iia2)",
                    "Runge-Kutta method with any tableau on Hamilton's equations",
                    "the tableau's (Gauss s: 2s, Radau: 2s-1, Lobatto: 2s-2)",
                    "explicit and implicit Runge-Kutta methods with any tableau",
                    stage_method_validate_rk);
