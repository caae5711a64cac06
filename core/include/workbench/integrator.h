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
 * The driver (in the host) owns the time loop.  It starts a run with
 *     status = start(inst, t0, h, q0, p0, aux0)     (1.1; 1.0: reset)
 * and then for every step calls
 *     status = step(inst, t, h, q0, p0, q1, p1, stats)
 * with distinct input and output arrays; on a status other than WB_OK the
 * driver keeps (q0, p0), so a failed step leaves the run in a sound state.
 * step() must not allocate: create() allocates everything it needs.
 *
 * Carried unknowns are state: everything a step reads besides (q0, p0) --
 * multipliers, staggered positions, a variational layer's momenta, Newton's
 * starting values, a compensated sum's carry -- is an aux unknown, so that
 * aux_values() after a run and start(..., aux) continue it exactly: a run
 * to T continued to 2T equals one run to 2T, bit for bit.
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
 * degree.  The host's driver checks POSITION_, VELOCITY_ and
 * NONHOLONOMIC_CONSTRAINT, LIE_GROUP and ENERGY_CONSERVING on the states
 * a step returns, against the size of each residual's terms, and refuses
 * a step that breaks one (docs/lua-api.md, "What the driver checks"). */
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
    WB_AUX_FIXED = 4,         /* `size` values                              */
    WB_AUX_CONFIGURATION = 5, /* 1.1: nq values                             */
    WB_AUX_CONFIGURATION_BLOCKS = 6, /* 1.2: nq values times the method's
                                 aux_blocks(opts, group), which may depend
                                 on the options (one block per stage)      */
    WB_AUX_VELOCITY_BLOCKS = 7  /* 1.2: nv values times aux_blocks(opts, group)
                                 (a Lie-group method's stage velocities)    */
} wb_aux_size;

typedef enum wb_aux_time {
    WB_AUX_AT_NODE = 1,       /* belongs to t_{n+1}, the step's end        */
    WB_AUX_ON_INTERVAL = 2,   /* belongs to the interval [t_n, t_{n+1}]    */
    WB_AUX_AT_OFFSET = 3      /* 1.1: belongs to t_{n+1} + theta h, theta
                                 from the method's aux_time_offset()       */
} wb_aux_time;

/* wb_aux_spec.flags (1.1) */
#define WB_AUX_UNRECORDED 0x1u /* state only (a compensated sum's carry,
                                  Newton's starting stages): no solution
                                  column, but part of the carried state   */

typedef struct wb_aux_spec {
    const char *name;   /* "lambda", "gamma", "v", ...                      */
    int size_kind;      /* wb_aux_size                                      */
    int size;           /* WB_AUX_FIXED only                                */
    int time;           /* wb_aux_time                                      */
    const char *doc;
    uint32_t flags;     /* 1.1: WB_AUX_* flags                              */
} wb_aux_spec;

/* ---- a method ------------------------------------------------------------ */
typedef struct wb_method {
    uint32_t struct_size;
    const char *name;             /* unique within the family: [a-z0-9_]+  */
    const char *doc;              /* one line                              */
    const wb_option_spec *options;
    uint32_t n_options;
    /* NULL-terminated model extension ids, each required; 1.1: an entry
     * "id1|id2|..." is satisfied by any one of its ids, so one method can
     * serve vector-space and group models ("wb.mechanical/1|
     * wb.lie_hamiltonian/1|wb.lie_lagrangian/1"). */
    const char *const *requires;
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
     * step and whenever the driver restarts from a new state.  1.1: may be
     * NULL when start() is set, which the host then calls instead. */
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

    /* ---- 1.1 ------------------------------------------------------------ */

    /* Element sizes of the arrays above as the plugin was built: set them
     * to sizeof(wb_option_spec), sizeof(wb_option_value) and
     * sizeof(wb_aux_spec) (WB_METHOD_ELEMENT_SIZES does).  Required when
     * the array is not empty; a 1.0 method has the 1.0 sizes.  The host
     * hands `opts` arrays to the plugin with the plugin's element size. */
    uint32_t option_spec_size;
    uint32_t option_value_size;
    uint32_t aux_spec_size;
    /* Start a run at (t, q, p) for steps of size h; replaces reset() when
     * set.  aux is NULL: compute the carried unknowns, as reset() does.
     * Otherwise aux holds every aux unknown, in the order and sizes
     * aux_values() writes them (from an earlier run's end): continue from
     * them exactly.  WB_ERR_INVALID, with the reason, for aux values the
     * method cannot continue from. */
    int (*start)(void *inst, double t, double h, const double *q, const double *p,
                 const double *aux);
    /* theta for aux group `group` declared WB_AUX_AT_OFFSET (its value
     * recorded with t_{n+1} belongs to t_{n+1} + theta h, e.g. a variational
     * layer's staggered point at alpha+ h).  Required when a group is
     * declared so; may depend on the options. */
    double (*aux_time_offset)(const wb_option_value *opts, uint32_t group);

    /* ---- 1.2 ------------------------------------------------------------ */

    /* The number of nq-blocks of aux group `group` declared
     * WB_AUX_CONFIGURATION_BLOCKS, or of nv-blocks for one declared
     * WB_AUX_VELOCITY_BLOCKS (e.g. the stages of Newton's starting values);
     * 0 is allowed (the group is then empty).  Required when a group is
     * declared so; may depend on the options. */
    uint32_t (*aux_blocks)(const wb_option_value *opts, uint32_t group);
    /* Properties for these options on a given model, where they depend on
     * it (HBVM(k, s): order 2s without constraints, 2 with them).
     * Optional: describe() otherwise.  Called with the model's view and no
     * instance; it reads the view's dimensions and flags, never calls the
     * model's functions. */
    int (*describe_model)(const wb_option_value *opts, const wb_model *model,
                          wb_method_props *out);
    /* 1.3: options that follow from others (a bias whose two ends differ by
     * one: giving either sets the other; a second tableau that defaults to
     * the first).  Optional.  Called whenever options are set, before
     * validate(), with given[i] nonzero for each option the user set (the
     * others hold their defaults).  It may change `number` of a NUMBER,
     * INTEGER or BOOLEAN option and `tableau` of a TABLEAU option (to a
     * tableau another option holds, or one from the host's tableau
     * services) that the user did not give; the host then checks the new
     * values against their ranges.  A set it cannot complete is refused:
     * report why through host->error and return WB_ERR_INVALID. */
    int (*complete_options)(const wb_host *host, wb_option_value *opts,
                            const unsigned char *given);

    /* ---- 1.6 ------------------------------------------------------------ */

    /* Refuse a model that these options cannot integrate for a reason of
     * its structure that `requires` and `handles` do not express (EM needs
     * quadratic constraints), reporting why through host->error and
     * returning WB_ERR_INVALID; WB_OK otherwise.  Optional.  Called with the
     * model's view and no instance, by m:applies_to(model) and before
     * create(), so that "applies" means "can be set up"; it reads the
     * view's dimensions and flags, never calls the model's functions.  A
     * method that has it calls the same checks from create(), where an
     * older host does not call it. */
    int (*check_model)(const wb_host *host, const wb_option_value *opts,
                       const wb_model *model);
} wb_method;

/* The 1.1 element sizes, for a method's designated initializer. */
#define WB_METHOD_ELEMENT_SIZES                        \
    .option_spec_size = sizeof(wb_option_spec),        \
    .option_value_size = sizeof(wb_option_value),      \
    .aux_spec_size = sizeof(wb_aux_spec)

typedef struct wb_family {
    uint32_t struct_size;
    const char *name;
    const char *doc;
    const wb_method *const *methods;
    uint32_t n_methods;
} wb_family;

#endif
