/*
 * integrator_template.c -- a complete workbench integrator plugin, to copy
 * and edit.
 *
 * Build it outside the workbench source tree (see README.md next to this
 * file):
 *
 *     cc -shared -fPIC $(pkg-config --cflags workbench-plugin) my_family.c -o my_family.so
 *
 * and use it from a script run with `workbench --plugin-path DIR script.lua`:
 *
 *     local sol = wb.integrate{model = wb.model("kepler"), h = 0.01, t_end = 10,
 *                              method = wb.method("template_family.symplectic_euler")}
 *
 * THE METHOD
 *   Symplectic Euler for Hamilton's equations q' = M^-1 p, p' = -grad V(q)
 *   of an unconstrained model with a constant mass matrix M.  Two variants,
 *   selected by the option `variant`, adjoint to each other:
 *
 *     kick_drift:  p1 = p0 - h grad V(q0),   q1 = q0 + h M^-1 p1
 *     drift_kick:  q1 = q0 + h M^-1 p0,      p1 = p0 - h grad V(q1)
 *
 *   Both are explicit, symplectic, of order 1, and conserve quadratic
 *   invariants of the form q^T D p (e.g. angular momentum).  Composing one
 *   with the other over half steps gives Stormer-Verlet.
 *
 * WHAT AN INTEGRATOR PLUGIN IS
 *   A shared object exporting exactly one symbol, the entry struct at the
 *   bottom of this file.  The entry points to a `wb_family`: a named list
 *   of methods.  Each method is a static `wb_method` descriptor: data the
 *   host can list without running anything (options, required model
 *   extensions, kinds of model handled, claimed properties, unknowns it
 *   carries per step) and six functions:
 *
 *     describe    properties (order, flags) for given option values
 *     create      allocate an instance for one model and option values
 *     destroy     free it
 *     start       start a run from (t, q, p) with steps of size h, or
 *                 continue one from the carried unknowns it ended with
 *     step        one step (t, q0, p0) -> (q1, p1); MUST NOT ALLOCATE
 *     aux_values  the carried unknowns after the last step
 *
 *   (ABI 1.0 plugins have reset(t, q, p) instead of start(); a 1.1 host
 *   still runs them, but cannot continue their runs exactly.)
 *
 *   The host owns the time loop.  For every step it calls
 *       status = step(inst, t, h, q0, p0, q1, p1, stats)
 *   with distinct input and output arrays.  On WB_OK it records (q1, p1)
 *   and swaps; on any other status it stops the run, keeps (q0, p0) and
 *   shows the message the plugin reported through host->error().
 *
 * TO MAKE IT YOURS
 *   1. Rename the family (entry name == family name, [a-z0-9_]+, unique
 *      among loaded families) and the method (unique within the family).
 *   2. Replace the instance struct, the options and step().
 *   3. `workbench --plugin-path DIR list` shows what the host understood.
 *
 * Only the public headers, libc and libm are used: a plugin never links
 * against the host.  Linear algebra, Newton's method and Butcher tableaux
 * are host services reached through the `wb_host` table given to create().
 */
#include <workbench/workbench.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ----------------------------------------------------------------
 *
 * Options are declared statically; the host validates every spec when it
 * loads the plugin, fills in defaults, checks values a script sets
 *     wb.method("template_family.symplectic_euler", {variant = "drift_kick"})
 * (type, range, one of the choices) and hands create() and describe() one
 * resolved wb_option_value per spec, in spec order.  Types: NUMBER and
 * INTEGER (with a range), BOOLEAN, CHOICE ('|'-separated words), STRING
 * and TABLEAU (a Butcher tableau looked up by the host).  Resolved strings
 * and tableaux are host-owned and outlive the instance.
 */
enum option_index { OPT_VARIANT, N_OPTIONS };

static const wb_option_spec euler_options[N_OPTIONS] = {
    {
        .name = "variant",
        .type = WB_OPT_CHOICE,
        .default_string = "kick_drift",
        .choices = "kick_drift|drift_kick",
        .doc = "kick_drift: p first, then q with the new p; drift_kick: q first, then p at the new q",
    },
};

/* ---- requirements and carried unknowns ------------------------------------------
 *
 * `requires` lists the model extensions the method calls (NULL-terminated);
 * `handles` says which kinds of model it integrates.  The host checks both
 * before create(), with a clear message, so create() only checks what the
 * descriptor cannot express (here: a constant mass matrix).
 */
static const char *const euler_requires[] = {WB_EXT_MECHANICAL, NULL};

/* Unknowns a method carries from step to step, such as multipliers or
 * staggered velocities, are declared as aux specs: the host records them
 * in the solution as extra columns (here drift_v1, drift_v2).  A method
 * with nothing to carry sets aux = NULL, n_aux = 0 and aux_values = NULL.
 * This one exposes the velocity its last drift used, to show the
 * mechanism; it belongs to the step's interval [t_n, t_n+1], not to a
 * node, hence WB_AUX_ON_INTERVAL (the host leaves the initial row NaN). */
static const wb_aux_spec euler_aux[] = {
    {.name = "drift_v", .size_kind = WB_AUX_VELOCITY, .time = WB_AUX_ON_INTERVAL,
     .doc = "velocity M^-1 p used by the step's drift"},
};

/* ---- the instance ---------------------------------------------------------------- */

typedef enum update_order { KICK_THEN_DRIFT, DRIFT_THEN_KICK } update_order;

typedef struct euler {
    const wb_host *host;     /* valid until destroy(); used to report errors */
    const wb_model *model;   /* the resolved model view: host-owned, it
                                outlives the instance; never NULL callbacks
                                for the capabilities listed in `requires`  */
    int n;                   /* nq (== nv for an unconstrained model)        */
    update_order order;      /* the `variant` option, decoded once            */
    /* Work arrays: allocated once by create(), because step() runs
     * millions of times and must not allocate.  One block, n doubles each. */
    double *force;           /* grad V at the kick's position               */
    double *drift_v;         /* aux: velocity of the last accepted drift    */
    double *trial_v;         /* the current step's drift velocity; becomes
                                drift_v only when the step succeeds        */
} euler;

static int decode_variant(const char *word, update_order *order)
{
    if (strcmp(word, "kick_drift") == 0)
        *order = KICK_THEN_DRIFT;
    else if (strcmp(word, "drift_kick") == 0)
        *order = DRIFT_THEN_KICK;
    else
        return -1;
    return 0;
}

/* ---- create / destroy ---------------------------------------------------------------
 *
 * Called once per (model, options) before a run.  The host has already
 * checked `requires` and `handles`.  Allocate every buffer step() will
 * need.  On failure free what you allocated, report through host->error()
 * and return a status (WB_ERR_INVALID for a model or option combination
 * the method cannot serve, WB_ERR_NOMEM); the host then does not call
 * destroy().
 */
static void euler_destroy(void *inst)
{
    euler *e = inst;
    if (!e)
        return;
    free(e->force);   /* the start of the one work block */
    free(e);
}

static int euler_create(const wb_host *host, const wb_model *model,
                        const wb_option_value *opts, void **inst)
{
    if (!model->mass_constant) {
        host->error(host, "template_family.symplectic_euler is explicit only for a constant "
                    "mass matrix; model '%s' has a configuration-dependent one", model->name);
        return WB_ERR_INVALID;
    }
    update_order order;
    if (decode_variant(opts[OPT_VARIANT].string, &order) != 0) {
        /* cannot happen: the host only passes declared choices */
        host->error(host, "template_family.symplectic_euler: unknown variant '%s'",
                    opts[OPT_VARIANT].string);
        return WB_ERR_INVALID;
    }
    /* ABI rule: fields of ABI 1.0 are always present for a major-1 host;
     * a field appended in a later minor version may be missing from an
     * older host's view, so check before reading it:
     *     if (!WB_HAS_FIELD(model, wb_model, newer_field)) ... fall back ...
     * The same check on a 1.0 field, where it always passes: */
    if (!WB_HAS_FIELD(model, wb_model, potential_gradient)) {
        host->error(host, "template_family: model view too old");
        return WB_ERR_INVALID;
    }

    const int n = model->nq;
    euler *e = calloc(1, sizeof *e);
    double *block = calloc(3 * (size_t)n, sizeof(double));
    if (!e || !block) {
        free(e);
        free(block);
        host->error(host, "template_family.symplectic_euler: out of memory");
        return WB_ERR_NOMEM;
    }
    e->host = host;
    e->model = model;
    e->n = n;
    e->order = order;
    e->force = block;
    e->drift_v = block + n;
    e->trial_v = block + 2 * n;
    *inst = e;
    return WB_OK;
}

/* ---- start --------------------------------------------------------------------------------
 *
 * Called before the first step of every run (an instance is reused across
 * runs: forget any cache from an earlier one).  With aux == NULL compute
 * the carried unknowns from (t, q, p); h is the run's step size, for
 * methods whose carried unknowns belong to t + alpha h.  Otherwise aux
 * holds every aux unknown as aux_values() wrote them at the end of an
 * earlier run (Lua: sol:final()'s third value, passed back as aux0): take
 * them as they are, so that the continued run equals one long run bit for
 * bit.  Everything the step reads besides (q0, p0) must be an aux unknown
 * for that to hold (Newton's starting values too; declare those
 * WB_AUX_UNRECORDED to keep them out of the solution's columns).
 */
static int euler_start(void *inst, double t, double h, const double *q, const double *p,
                       const double *aux)
{
    euler *e = inst;
    (void)t, (void)h;
    if (aux)
        memcpy(e->drift_v, aux, (size_t)e->n * sizeof(double));
    else
        wb_mass_solve(e->model, q, p, e->drift_v);
    return WB_OK;
}

/* ---- step ----------------------------------------------------------------------------------
 *
 * Rules:
 *   - no allocation (no malloc, no host->newton_create, ...): use the
 *     buffers from create();
 *   - q0, p0 are inputs, q1, p1 outputs, never aliased;
 *   - h may be negative (backward integration);
 *   - return WB_OK, or WB_ERR_NEWTON / WB_ERR_NONFINITE / WB_ERR_SINGULAR /
 *     WB_ERR_MODEL after reporting why with host->error(); on failure the
 *     carried unknowns must still describe (q0, p0), which is why this
 *     step writes its drift velocity to trial_v and commits it at the end;
 *   - count work in *stats by adding to its fields (function_evals for
 *     every force evaluation, newton_iterations, linear_solves, ... when a
 *     method has them).  Do not count steps: the host does.
 * Model functions are called through the accessors of model_view.h
 * (wb_potential_gradient, wb_mass_solve, ...), never through raw members.
 */
static int all_finite(int n, const double *x)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* force = grad V(q), counted and checked. */
static int evaluate_force(euler *e, double t, const double *q, wb_step_stats *stats)
{
    wb_potential_gradient(e->model, q, e->force);
    stats->function_evals++;
    if (!all_finite(e->n, e->force)) {
        e->host->error(e->host, "template_family.symplectic_euler: grad V is not finite "
                       "near t = %g (did the orbit escape, or leave the region where V is "
                       "defined? try a smaller h)", t);
        return WB_ERR_NONFINITE;
    }
    return WB_OK;
}

/* p1 = p0 - h force */
static void kick(const euler *e, double h, const double *p0, double *p1)
{
    for (int i = 0; i < e->n; i++)
        p1[i] = p0[i] - h * e->force[i];
}

/* q1 = q0 + h M^-1 p, the velocity kept in trial_v */
static void drift(euler *e, double h, const double *q0, const double *p, double *q1)
{
    wb_mass_solve(e->model, q0, p, e->trial_v);   /* M constant: any q will do */
    for (int i = 0; i < e->n; i++)
        q1[i] = q0[i] + h * e->trial_v[i];
}

static int euler_step(void *inst, double t, double h, const double *q0, const double *p0,
                      double *q1, double *p1, wb_step_stats *stats)
{
    euler *e = inst;
    int status;
    if (e->order == KICK_THEN_DRIFT) {
        status = evaluate_force(e, t, q0, stats);
        if (status != WB_OK)
            return status;
        kick(e, h, p0, p1);
        drift(e, h, q0, p1, q1);
    } else {
        drift(e, h, q0, p0, q1);
        status = evaluate_force(e, t + h, q1, stats);
        if (status != WB_OK)
            return status;
        kick(e, h, p0, p1);
    }
    /* success: commit the carried unknown (a swap, not a copy) */
    double *accepted = e->trial_v;
    e->trial_v = e->drift_v;
    e->drift_v = accepted;
    return WB_OK;
}

/* ---- aux values and properties ------------------------------------------------------------- */

/* The aux unknowns, concatenated in euler_aux order, for the last
 * successful step (or the start state).  `out` has room for all of them. */
static void euler_aux_values(const void *inst, double *out)
{
    const euler *e = inst;
    memcpy(out, e->drift_v, (size_t)e->n * sizeof(double));
}

/* Properties for given option values: the host shows them (`workbench
 * list`, method.order, method.properties in Lua) and tests may compare the
 * claimed order with a measured one.  A method whose order depends on an
 * option (a tableau, a number of stages) computes it here; `order_doc` in
 * the descriptor gives the formula in words.  Optional: when describe is
 * NULL the host reports order 0 ("unknown") and property_flags. */
static int euler_describe(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;   /* both variants share order and properties */
    out->order = 1;
    out->multiplier_order = 0;   /* no multipliers */
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING | WB_PROP_EXPLICIT;
    return WB_OK;
}

/* ---- the method, the family, the entry ----------------------------------------------------- */

static const wb_method euler_method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "symplectic_euler",
    .doc = "symplectic Euler (kick-drift or drift-kick), explicit, order 1, constant M",
    .options = euler_options,
    .n_options = N_OPTIONS,
    .requires = euler_requires,
    .handles = WB_HANDLES_UNCONSTRAINED,
    .order_doc = "1",
    /* Claimed at the default options.  Claim only what holds: scripts and
     * tests take these flags at their word (a symplectic claim invites an
     * energy-drift test).  Not WB_PROP_SYMMETRIC: each variant's adjoint
     * is the other one. */
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING | WB_PROP_EXPLICIT,
    .aux = euler_aux,
    .n_aux = sizeof euler_aux / sizeof euler_aux[0],
    .describe = euler_describe,
    .create = euler_create,
    .destroy = euler_destroy,
    .start = euler_start,   /* ABI 1.1; 1.0 plugins set .reset instead */
    .step = euler_step,
    .aux_values = euler_aux_values,
};

/* A family may list many methods; each is addressed in scripts as
 * "family.method" (or by the bare method name when it is unique). */
static const wb_method *const family_methods[] = {
    &euler_method,
};

static const wb_family template_family = {
    .struct_size = sizeof(wb_family),
    .name = "template_family",   /* must equal the entry's name */
    .doc = "template integrator family: symplectic Euler",
    .methods = family_methods,
    .n_methods = sizeof family_methods / sizeof family_methods[0],
};

/* The one exported symbol.  The host reads it as data only, refuses it
 * unless abi_major equals its own, checks every struct_size and validates
 * the family (names, options, functions) before calling anything here. */
WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_INTEGRATOR,
    .name = "template_family",
    .version = "1.0",
    .description = "template: symplectic Euler, first order, explicit",
    .descriptor = &template_family,
};
