/* An oscillator whose potential crashes the process (SIGSEGV) at its
 * `after`-th evaluation, as a broken plugin would in the middle of a run:
 * the host's temporary files (a stream of hundreds of MB) must not survive
 * it (tests/fuzz/temp_cleanup.sh). */
#include <workbench/workbench.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const wb_param_spec params[] = {
    {"after", 1000.0, 1.0, 1e15, "potential evaluations before the crash"}};

typedef struct oscillator {
    double after, calls;
} oscillator;

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    oscillator *o = calloc(1, sizeof *o);
    if (!o) {
        host->error(host, "crash_in_step_model: out of memory");
        return WB_ERR_NOMEM;
    }
    o->after = values[0];
    *self = o;
    info->nq = info->nv = 1;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    M[0] = 1.0;
}

static double potential(void *self, const double *q)
{
    oscillator *o = self;
    if (++o->calls >= o->after)
        raise(SIGSEGV);
    return 0.5 * q[0] * q[0];
}

static void gradient(void *self, const double *q, double *g)
{
    potential(self, q);
    g[0] = q[0];
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    q[0] = 1.0, p[0] = 0.0;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
    .potential_gradient = gradient,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = "crash_in_step_model",
    .doc = "test: an oscillator whose potential crashes after a number of calls",
    .n_params = 1,
    .params = params,
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = "crash_in_step_model",
    .version = "test",
    .description = "test: crashes in the middle of a run",
    .descriptor = &model_class,
};
