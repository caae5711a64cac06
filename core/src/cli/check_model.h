/* `workbench check-model NAME`: every analytic derivative a model provides
 * against finite differences, plus structural checks (mass matrix SPD,
 * consistent initial state, first integrals conserved by the flow, Lie
 * group identities). */
#ifndef CORE_CHECK_MODEL_H
#define CORE_CHECK_MODEL_H

#include <stdio.h>

#include "run/model_instance.h"

/* Prints a table to out; returns the number of failed checks. */
int check_model(model_instance *mi, FILE *out, double tol);

#endif
