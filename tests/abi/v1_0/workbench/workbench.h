/*
 * workbench/workbench.h -- the whole public plugin interface.
 *
 *   abi.h         entry symbol, versions, status codes
 *   host.h        services the host hands to plugins (LAPACKE, Newton, ...)
 *   model.h       what a model plugin provides (class + extensions)
 *   model_view.h  the resolved model integrators use
 *   integrator.h  what an integrator family provides
 */
#ifndef WORKBENCH_WORKBENCH_H
#define WORKBENCH_WORKBENCH_H

#include "abi.h"
#include "host.h"
#include "model.h"
#include "model_view.h"
#include "integrator.h"

#endif
