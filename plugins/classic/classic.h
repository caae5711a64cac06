/* The `classic` family: SHAKE and RATTLE for holonomic constraints,
 * Stormer-Verlet, the classical explicit Runge-Kutta method, and the same
 * tableau as a Runge-Kutta-Munthe-Kaas method on Lie groups. */
#ifndef CLASSIC_H
#define CLASSIC_H

#include <workbench/workbench.h>

extern const wb_method classic_shake;
extern const wb_method classic_rattle;
extern const wb_method classic_verlet;
extern const wb_method classic_rk4;
extern const wb_method classic_rkmk4;

#endif
