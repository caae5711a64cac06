/* The `prk` family: partitioned Runge-Kutta methods on unconstrained
 * mechanical models, any pair of tableaux: (a, b) on the positions,
 * (a2, b2) on the momenta -- Lobatto IIIA-IIIB is IIIA on q, IIIB on p.
 * Order and structure are read off the pair. */
#include "stage_solver.h"

STAGE_SOLVER_FAMILY("prk", prk, "lobatto_iiia_iiib3",
                    "a partitioned pair (lobatto_iiia_iiib<s>, or wb.tableau{a =, b =, a2 =, b2 =})",
                    "partitioned Runge-Kutta method: (a, b) on q, (a2, b2) on p",
                    "the pair's (Lobatto IIIA-IIIB with s stages: 2s-2)",
                    "partitioned Runge-Kutta methods with any pair of tableaux",
                    stage_method_validate_prk);
