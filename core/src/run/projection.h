/* The nearest consistent state of a model, for m:project(q, p). */
#ifndef RUN_PROJECTION_H
#define RUN_PROJECTION_H

#include "run/model_instance.h"

/* (q, p) consistent with every constraint of the model, nearest to
 * (q0, p0): q minimises |q - q0| in the metric M(q0) subject to g(q) = 0
 * (kept as given on a Lie group, and without holonomic constraints); then
 * p = p0 - C^T nu with C the velocity constraints' Jacobian D_v [G v; Phi]
 * at the given velocity, so that G(q) v = 0 and Phi(q, v) = 0 for the
 * velocity v of (q, p) (M^-1-orthogonal for constraints linear or affine
 * in v).  WB_OK, or a status with the reason in host_last_error(). */
int model_project(model_instance *mi, const double *q0, const double *p0, double *q,
                  double *p);

#endif
