/* The `classic` family: SHAKE and RATTLE for holonomic constraints,
 * Stormer-Verlet and the classical explicit Runge-Kutta method. */
#ifndef CLASSIC_H
#define CLASSIC_H

#include <workbench/workbench.h>

extern const wb_method classic_shake;
extern const wb_method classic_rattle;
extern const wb_method classic_verlet;
extern const wb_method classic_rk4;

#endif
