/*
 * bench/bench_host.h -- what the C benchmarks share: a monotonic clock, where
 * the freshly built plugins are, and a method of a loaded family.  The
 * benchmarks link the host (wbcore) and load plugins through its loader,
 * as the command line and the Lua layer do.
 */
#ifndef BENCH_HOST_H
#define BENCH_HOST_H

#include "host/host.h"
#include "host/plugins.h"
#include "run/integrator_instance.h"

#include <math.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* <exe dir>/../<sub>/<file> when it exists (build tree layout), else
 * <compiled_dir>/<file>. */
static inline void bench_plugin_path(const char *sub, const char *file, const char *compiled_dir,
                                     char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            int written = snprintf(out, size, "%s/../%s/%s", exe, sub, file);
            if (written > 0 && (size_t)written < size && access(out, R_OK) == 0)
                return;
        }
    }
    snprintf(out, size, "%s/%s", compiled_dir, file);
}

/* The method `name` of a loaded family.  (plugins_find_method would also
 * run the plugin discovery, which is not what is being measured.) */
static inline const wb_method *bench_family_method(const plugin *family, const char *name)
{
    if (family->entry->kind != WB_KIND_INTEGRATOR) {
        host_error("'%s' is not an integrator family", family->path);
        return NULL;
    }
    for (uint32_t i = 0; i < family->family->n_methods; i++)
        if (strcmp(family->family->methods[i]->name, name) == 0)
            return family->family->methods[i];
    host_error("family '%s' has no method '%s'", family->family->name, name);
    return NULL;
}

/* The number option `name` of a method's configuration (NAN if none). */
static inline double bench_option_number(const method_config *cfg, const char *name)
{
    int index = method_config_find(cfg, name);
    return index >= 0 ? cfg->values[index].number : NAN;
}

/* The value of model parameter `name` in `values` (the class's order; NAN
 * if the class has none). */
static inline double bench_model_parameter(const wb_model_class *cls, const double *values,
                                           const char *name)
{
    for (uint32_t i = 0; i < cls->n_params; i++)
        if (strcmp(cls->params[i].name, name) == 0)
            return values[i];
    return NAN;
}

#endif
