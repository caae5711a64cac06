/*
 * workbench/integrator.h -- what an integrator plugin provides.
 *
 * An integrator plugin is a family (entry kind WB_KIND_INTEGRATOR): a
 * const wb_family listing its methods.  Each method is a named const type
 * object (as GSL's odeiv2 steppers are): static data the host can list
 * without running anything -- options, required model extensions,
 * claimed properties, the unknowns it carries per step -- plus functions
 * to create an instance for one model, reset it to an initial state, and
 * step.
 *
 * The driver (in the host) owns the time loop.  For every step it calls
 *     status = step(inst, t, h, q0, p0, q1, p1, stats)
 * with distinct input and output arrays; on a status other than WB_OK the
 * driver keeps (q0, p0), so a failed step leaves the run in a sound state.
 * step() must not allocate: create() allocates everything it needs.
 */
#ifndef WORKBENCH_INTEGRATOR_H
#define WORKBENCH_INTEGRATOR_H

#include "model_view.h"

/* ---- options ----------------------------------------------------------- */
typedef enum wb_option_type {
    WB_OPT_NUMBER = 1,   /* real in [min, max]                              */
    WB_OPT_INTEGER = 2,  /* integer in [min, max]                           */
    WB_OPT_BOOLEAN = 3,
    WB_OPT_CHOICE = 4,   /* one of the '|'-separated words in `choices`     */
    WB_OPT_TABLEAU = 5,  /* a wb_tableau; default_string names a tableau    */
    WB_OPT_STRING = 6
} wb_option_type;

typedef struct wb_option_spec {
    const char *name;
    int type;                   /* wb_option_type                          */
    double default_number;      /* NUMBER, INTEGER, BOOLEAN (0 or 1)       */
    double min, max;            /* NUMBER, INTEGER                         */
    const char *default_string; /* CHOICE, STRING, TABLEAU ("gauss2", ...) */
    const char *choices;        /* CHOICE: e.g. "simple|advanced"          */
    const char *doc;            /* one line                                */
} wb_option_spec;

/* Resolved option values, one per spec, in spec order.  Strings and
 * tableaux are host-owned and outlive the instance. */
typedef struct wb_option_value {
    double number;
    const char *string;
    const wb_tableau *tableau;
} wb_option_value;

/* ---- claimed properties --------------------------------------------------
 * A claim holds on every model the method handles, at the options it was
 * described for.  MOMENTUM_CONSERVING means the quadratic momentum maps of
 * the model's linear symmetries (of V and g), on models that have one.  A
 * conservation that also needs H and g polynomial (line-integral methods
 * with a finite quadrature) is claimed as CONSERVING_IF_POLYNOMIAL, never
 * as ENERGY_CONSERVING / POSITION_CONSTRAINT; the method's doc gives the
 * degree. */
#define WB_PROP_SYMPLECTIC 0x001u
#define WB_PROP_SYMMETRIC 0x002u
#define WB_PROP_ENERGY_CONSERVING 0x004u
#define WB_PROP_MOMENTUM_CONSERVING 0x008u
#define WB_PROP_POSITION_CONSTRAINT 0x010u  /* g(q_n) = 0 at every node     */
#define WB_PROP_VELOCITY_CONSTRAINT 0x020u  /* G(q_n) M^-1 p_n = 0 at nodes */
#define WB_PROP_NONHOLONOMIC_CONSTRAINT 0x040u /* Phi(q_n, v_n) = 0        */
#define WB_PROP_EXPLICIT 0x080u
#define WB_PROP_LIE_GROUP 0x100u            /* stays on the group exactly  */
#define WB_PROP_CONSERVING_IF_POLYNOMIAL 0x200u /* H and g(q_n) = 0 exactly when
                                                   polynomial (degree in doc) */

typedef struct wb_method_props {
    uint32_t struct_size;
    int order;             /* classical order in (q, p), 0 if unknown      */
    int multiplier_order;  /* order of the multipliers, 0 if none/unknown  */
    uint32_t flags;        /* WB_PROP_*                                    */
} wb_method_props;

/* Kinds of model a method can integrate. */
#define WB_HANDLES_UNCONSTRAINED 0x1u
#define WB_HANDLES_HOLONOMIC 0x2u
#define WB_HANDLES_NONHOLONOMIC 0x4u
#define WB_HANDLES_LIE_GROUP 0x8u

/* ---- unknowns carried per step (auxiliary outputs) ----------------------- */
typedef enum wb_aux_size {
    WB_AUX_HOLONOMIC = 1,     /* m values                                   */
    WB_AUX_NONHOLONOMIC = 2,  /* k values                                   */
    WB_AUX_VELOCITY = 3,      /* nv values                                  */
    WB_AUX_FIXED = 4          /* `size` values                              */
} wb_aux_size;

typedef enum wb_aux_time {
    WB_AUX_AT_NODE = 1,       /* belongs to t_{n+1}, the step's end        */
    WB_AUX_ON_INTERVAL = 2    /* belongs to the interval [t_n, t_{n+1}]    */
} wb_aux_time;

typedef struct wb_aux_spec {
    const char *name;   /* "lambda", "gamma", "v", ...                      */
    int size_kind;      /* wb_aux_size                                      */
    int size;           /* WB_AUX_FIXED only                                */
    int time;           /* wb_aux_time                                      */
    const char *doc;
} wb_aux_spec;

/* ---- a method ------------------------------------------------------------ */
typedef struct wb_method {
    uint32_t struct_size;
    const char *name;             /* unique within the family: [a-z0-9_]+  */
    const char *doc;              /* one line                              */
    const wb_option_spec *options;
    uint32_t n_options;
    const char *const *requires;  /* NULL-terminated model extension ids  */
    uint32_t handles;             /* WB_HANDLES_* bits                     */
    const char *order_doc;        /* order as a formula, e.g. "2s-2"       */
    uint32_t property_flags;      /* WB_PROP_* at the default options      */
    const wb_aux_spec *aux;       /* unknowns carried per step             */
    uint32_t n_aux;

    /* Properties for given options (order, flags).  Optional: when NULL
     * the host reports order 0 and property_flags. */
    int (*describe)(const wb_option_value *opts, wb_method_props *out);
    /* Create an instance for `model`; the host has already checked
     * `requires` and `handles`.  Allocate everything step() needs. */
    int (*create)(const wb_host *host, const wb_model *model,
                  const wb_option_value *opts, void **inst);
    void (*destroy)(void *inst);
    /* Start a run at (t, q, p): compute carried unknowns (consistent
     * multipliers, staggered velocities, ...).  Called before the first
     * step and whenever the driver restarts from a new state. */
    int (*reset)(void *inst, double t, const double *q, const double *p);
    /* One step of size h (h may be negative) from (t, q0, p0) to
     * (q1, p1).  Must not allocate.  Returns WB_OK, WB_ERR_NEWTON,
     * WB_ERR_NONFINITE, WB_ERR_SINGULAR or WB_ERR_MODEL; on failure the
     * instance's carried unknowns must still describe (q0, p0). */
    int (*step)(void *inst, double t, double h, const double *q0,
                const double *p0, double *q1, double *p1,
                wb_step_stats *stats);
    /* Current values of the aux unknowns, concatenated in `aux` order,
     * for the last successful step (or the reset state).  Optional when
     * n_aux == 0. */
    void (*aux_values)(const void *inst, double *out);
    /* Refuse option values that cannot work together (the host has already
     * checked each against its type and range), reporting why through
     * host->error.  Optional; called whenever options are set, before any
     * instance exists, so that wb.method() itself fails. */
    int (*validate)(const wb_host *host, const wb_option_value *opts);
} wb_method;

typedef struct wb_family {
    uint32_t struct_size;
    const char *name;
    const char *doc;
    const wb_method *const *methods;
    uint32_t n_methods;
} wb_family;

#endif
