/* The family's methods: options, claimed orders and properties, and the
 * entry. */
#include "algebra.h"
#include "liegroup.h"

#include "wb_array.h"
#include "wb_integrator_plugin.h"

#include <math.h>
#include <string.h>

/* Option indices.  Every method with options starts with the tableau and
 * the solver's options; the variational ones then have warm_start, and
 * vrkmk and rkmk the cutoff (rkmk starts from an explicit guess: the same
 * iterate, bit for bit, from any start, so it carries nothing). */
enum { OPT_TABLEAU, OPT_ITERATION, OPT_TOL, OPT_MAX_ITER, OPT_WARM_START };
enum { OPT_VRKMK_CUTOFF = OPT_WARM_START + 1, OPT_RKMK_CUTOFF = OPT_MAX_ITER + 1 };

#define SOLVER_OPTIONS                                                                         \
    {"iteration", WB_OPT_CHOICE, 0, 0, 0, "fixed_point", "fixed_point|newton|simplified",     \
     "the stage equations: the paper's fixed-point iteration, Newton (host, difference "      \
     "Jacobian) or simplified Newton (one Jacobian per step)"},                               \
    {"tol", WB_OPT_NUMBER, 0, 0, 1e-3, NULL, NULL,                                            \
     "stop when max |z - Phi(z)| <= tol (the paper: 1e-11); 0 iterates to machine precision"}, \
    {"max_iter", WB_OPT_INTEGER, 500, 1, 100000, NULL, NULL, "iterations per step"}

#define WARM_START_OPTION                                                                      \
    {"warm_start", WB_OPT_BOOLEAN, 1, 0, 1, NULL, NULL,                                       \
     "start from the previous step's stage values (shifted by the change of the start); 0: " \
     "from X_i = h c_i xi0, M_i = mu0"}

#define CUTOFF_OPTION(doc)                                                                     \
    {"cutoff", WB_OPT_INTEGER, -1, -1, LIEGROUP_MAX_CUTOFF, NULL, NULL, doc}

static const wb_option_spec vrkmk_options[] = {
    {"tableau", WB_OPT_TABLEAU, 0, 0, 0, "gauss2", NULL,
     "Butcher tableau (object or name; every weight nonzero), e.g. implicit_midpoint, kutta3, "
     "gauss2, gauss3"},
    SOLVER_OPTIONS,
    WARM_START_OPTION,
    CUTOFF_OPTION("r, the highest power of ad kept in the truncated dexpinv; -1 (default): "
                  "the smallest r that keeps the tableau's order"),
};

static const wb_option_spec vcg_options[] = {
    {"tableau", WB_OPT_TABLEAU, 0, 0, 0, "implicit_midpoint", NULL,
     "Butcher tableau (object or name; every weight nonzero): a composition of midpoint steps "
     "such as wb.tableau.triple_jump(wb.tableau.gauss(1)) has the composition's order"},
    SOLVER_OPTIONS,
    WARM_START_OPTION,
};

static const wb_option_spec cmo_options[] = {
    {"tableau", WB_OPT_TABLEAU, 0, 0, 0, "implicit_midpoint", NULL,
     "Butcher tableau (object or name; every weight nonzero); the method is of order 2 at "
     "most whatever its order"},
    SOLVER_OPTIONS,
    WARM_START_OPTION,
};

static const wb_option_spec rkmk_options[] = {
    {"tableau", WB_OPT_TABLEAU, 0, 0, 0, "gauss2", NULL,
     "Butcher tableau (object or name): explicit ones (rk4, kutta3) are evaluated stage by "
     "stage, implicit ones solved from h c_i xi0, mu0"},
    SOLVER_OPTIONS,
    CUTOFF_OPTION("r, the highest power of ad kept in dexpinv; -1 (default): the smallest r "
                  "that keeps the tableau's order"),
};

static const char *const requires[] = {
    WB_EXT_LIE_GROUP, WB_EXT_LIE_HAMILTONIAN "|" WB_EXT_LIE_LAGRANGIAN, NULL};

/* the cutoff option at index `at`: -1 is the smallest r keeping order p */
static int effective_cutoff(const wb_option_value *opts, int at, int p)
{
    const int r = (int)opts[at].number;
    return r >= 0 ? r : liegroup_default_cutoff(p);
}

static int min_int(int a, int b) { return a < b ? a : b; }

/* ---- describe ------------------------------------------------------------------------- */

static int describe_vrkmk(const wb_option_value *opts, wb_method_props *out)
{
    const wb_tableau *t = opts[OPT_TABLEAU].tableau;
    const int p = liegroup_pair_order(t);
    const int r = effective_cutoff(opts, OPT_VRKMK_CUTOFF, p);
    out->order = min_int(p, liegroup_cutoff_order(r));
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING | WB_PROP_LIE_GROUP;
    if (t->s == 1 && r == 0 && fabs(t->a[0] - 0.5) < 1e-15)
        out->flags |= WB_PROP_SYMMETRIC;
    return WB_OK;
}

static int describe_cmo(const wb_option_value *opts, wb_method_props *out)
{
    const wb_tableau *t = opts[OPT_TABLEAU].tableau;
    out->order = min_int(liegroup_pair_order(t), 2);
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING | WB_PROP_LIE_GROUP;
    if (t->s == 1 && fabs(t->a[0] - 0.5) < 1e-15)
        out->flags |= WB_PROP_SYMMETRIC;
    return WB_OK;
}

static int symmetric_weights(const wb_tableau *t)
{
    for (int i = 0; i < t->s; i++)
        if (fabs(t->b[i] - t->b[t->s - 1 - i]) > 1e-14)
            return 0;
    return 1;
}

static int describe_vcg(const wb_option_value *opts, wb_method_props *out)
{
    const wb_tableau *t = opts[OPT_TABLEAU].tableau;
    const int composition = liegroup_is_midpoint_composition(t);
    out->order = composition ? t->order_first : liegroup_vcg_conditions(t);
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING | WB_PROP_LIE_GROUP;
    if (composition && symmetric_weights(t))
        out->flags |= WB_PROP_SYMMETRIC;
    return WB_OK;
}

static int describe_rkmk(const wb_option_value *opts, wb_method_props *out)
{
    const wb_tableau *t = opts[OPT_TABLEAU].tableau;
    const int r = effective_cutoff(opts, OPT_RKMK_CUTOFF, t->order_first);
    out->order = min_int(t->order_first, liegroup_cutoff_order(r));
    out->flags = WB_PROP_LIE_GROUP | (liegroup_strictly_lower(t) ? WB_PROP_EXPLICIT : 0u);
    return WB_OK;
}

static int describe_lie_euler(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 1;
    out->flags = WB_PROP_LIE_GROUP | WB_PROP_EXPLICIT;
    return WB_OK;
}

/* ---- validate --------------------------------------------------------------------------- */

static int validate_variational(const wb_host *host, const wb_option_value *opts)
{
    const wb_tableau *t = opts[OPT_TABLEAU].tableau;
    int which = 0;
    if (!liegroup_weights_nonzero(t, &which)) {
        host->error(host, "tableau '%s': weight b_%d is zero; the variational methods divide "
                          "by every weight (M_i = W_i / b_i, ahat_ij = b_j - b_j a_ji / b_i)",
                    t->name, which);
        return WB_ERR_INVALID;
    }
    return WB_OK;
}

/* ---- create ------------------------------------------------------------------------------ */

static int create_with(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                       void **inst, const liegroup_scheme *scheme, int cutoff, int warm_start,
                       int carries_guess)
{
    const char *it = opts[OPT_ITERATION].string;
    liegroup_config config = {
        .scheme = scheme,
        .tableau = opts[OPT_TABLEAU].tableau,
        .cutoff = cutoff,
        .iteration = strcmp(it, "newton") == 0       ? ITERATE_NEWTON
                     : strcmp(it, "simplified") == 0 ? ITERATE_SIMPLIFIED
                                                     : ITERATE_FIXED_POINT,
        .tol = opts[OPT_TOL].number,
        .max_iter = (int)opts[OPT_MAX_ITER].number,
        .warm_start = warm_start,
        .carries_guess = carries_guess,
    };
    return liegroup_create(host, model, &config, inst);
}

static int create_vrkmk(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                        void **inst)
{
    const int p = liegroup_pair_order(opts[OPT_TABLEAU].tableau);
    return create_with(host, model, opts, inst, &liegroup_vrkmk_scheme,
                       effective_cutoff(opts, OPT_VRKMK_CUTOFF, p),
                       opts[OPT_WARM_START].number != 0, 1);
}

static int create_cmo(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                      void **inst)
{
    return create_with(host, model, opts, inst, &liegroup_cmo_scheme, 0,
                       opts[OPT_WARM_START].number != 0, 1);
}

static int create_vcg(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                      void **inst)
{
    return create_with(host, model, opts, inst, &liegroup_vcg_scheme, 0,
                       opts[OPT_WARM_START].number != 0, 1);
}

static int create_rkmk(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                       void **inst)
{
    const wb_tableau *t = opts[OPT_TABLEAU].tableau;
    return create_with(host, model, opts, inst, &liegroup_rkmk_scheme,
                       effective_cutoff(opts, OPT_RKMK_CUTOFF, t->order_first), 0, 0);
}

static int create_lie_euler(const wb_host *host, const wb_model *model,
                            const wb_option_value *opts, void **inst)
{
    const wb_tableau *euler = host->tableau_named(host, "euler");
    if (!euler)
        return WB_ERR_INTERNAL;
    liegroup_config config = {.scheme = &liegroup_rkmk_scheme, .tableau = euler, .cutoff = 0,
                              .iteration = ITERATE_FIXED_POINT, .max_iter = 1};
    (void)opts;
    return liegroup_create(host, model, &config, inst);
}

/* ---- the carried guess ------------------------------------------------------------------- */

#define GUESS_BLOCKS(NAME)                                                                    \
    static uint32_t NAME##_guess_blocks(const wb_option_value *opts, uint32_t group)          \
    {                                                                                         \
        (void)group;                                                                          \
        return (uint32_t)liegroup_guess_blocks(&liegroup_##NAME##_scheme,                     \
                                               opts[OPT_TABLEAU].tableau);                    \
    }
GUESS_BLOCKS(vrkmk)
GUESS_BLOCKS(cmo)
GUESS_BLOCKS(vcg)

static const wb_aux_spec guess_aux[] = {
    {.name = "guess_valid", .size_kind = WB_AUX_FIXED, .size = 1, .time = WB_AUX_AT_NODE,
     .doc = "1 when `guess` holds the last step's stage unknowns, 0 after a (re)start",
     .flags = WB_AUX_UNRECORDED},
    {.name = "guess", .size_kind = WB_AUX_VELOCITY_BLOCKS, .time = WB_AUX_AT_NODE,
     .doc = "the last step's stage unknowns (block by block, stage by stage; momenta and "
            "velocities relative to the step's start): the next step's starting guess",
     .flags = WB_AUX_UNRECORDED},
};

#define METHOD(NAME, DOC, ORDER_DOC, FLAGS, OPTIONS, N_OPTIONS, VALIDATE, ...)               \
    static const wb_method method_##NAME = {                                                  \
        .struct_size = sizeof(wb_method),                                                     \
        WB_METHOD_ELEMENT_SIZES,                                                              \
        .name = #NAME,                                                                        \
        .doc = DOC,                                                                           \
        .options = OPTIONS,                                                                   \
        .n_options = N_OPTIONS,                                                               \
        .requires = requires,                                                                 \
        .handles = WB_HANDLES_LIE_GROUP,                                                      \
        .order_doc = ORDER_DOC,                                                               \
        .property_flags = FLAGS,                                                              \
        .describe = describe_##NAME,                                                          \
        .create = create_##NAME,                                                              \
        .destroy = liegroup_destroy,                                                          \
        .reset = liegroup_reset,                                                              \
        .start = liegroup_start,                                                              \
        .step = liegroup_step,                                                                \
        .validate = VALIDATE,                                                                 \
        __VA_ARGS__                                                                           \
    }

/* the variational methods carry their starting guess */
#define CARRIES_GUESS(NAME)                                                                   \
    .aux = guess_aux, .n_aux = WB_ARRAY_COUNT(guess_aux), .aux_values = liegroup_aux_values,  \
    .aux_blocks = NAME##_guess_blocks

#define VARIATIONAL WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING | WB_PROP_LIE_GROUP

METHOD(vrkmk,
       "variational Runge-Kutta-Munthe-Kaas on T*G (Bogfjellmo-Marthinsen eq. 16): symplectic, "
       "any tableau with nonzero weights, cutoff r of the truncated dexpinv",
       "min(p, r+2), r+3 for even r >= 2 (B_(r+1) = 0); p the order of the symplectic "
       "partitioned pair (a, ahat)",
       VARIATIONAL, vrkmk_options,
       WB_ARRAY_COUNT(vrkmk_options), validate_variational, CARRIES_GUESS(vrkmk));
METHOD(vcg,
       "variational Crouch-Grossman on T*G (Bogfjellmo-Marthinsen eq. 18): symplectic; "
       "compositions of the midpoint rule reach any order",
       "a composition of midpoint steps: its order; otherwise the paper's conditions (<= 3)",
       VARIATIONAL, vcg_options,
       WB_ARRAY_COUNT(vcg_options), validate_variational, CARRIES_GUESS(vcg));
METHOD(cmo,
       "the second-order family of eq. 12 (Celledoni-Marthinsen-Owren; Bou-Rabee-Marsden with "
       "r = 0): symplectic, never above order 2 (Prop. 3.1)",
       "min(p, 2)", VARIATIONAL, cmo_options,
       WB_ARRAY_COUNT(cmo_options), validate_variational, CARRIES_GUESS(cmo));
METHOD(rkmk,
       "Runge-Kutta-Munthe-Kaas on T*G with any tableau and cutoff r: on the group, not "
       "symplectic (the contrast to vrkmk)",
       "min(p, r+2), r+3 for even r >= 2", WB_PROP_LIE_GROUP | WB_PROP_EXPLICIT, rkmk_options,
       WB_ARRAY_COUNT(rkmk_options), NULL);
METHOD(lie_euler,
       "the Lie-Euler method q1 = exp(h xi0) q0, mu1 = mu0 + h (f2 - ad*_xi0 mu0): explicit, "
       "first order, not symplectic",
       "1", WB_PROP_LIE_GROUP | WB_PROP_EXPLICIT, NULL, 0, NULL);

static const wb_method *const methods[] = {&method_vrkmk, &method_vcg, &method_cmo,
                                           &method_rkmk, &method_lie_euler};

WB_INTEGRATOR_PLUGIN("liegroup",
                     "symplectic partitioned Lie-group methods on T*G (VRKMK, VCG, eq. 12) and "
                     "RKMK, Lie-Euler for contrast",
                     "variational RKMK and Crouch-Grossman methods of Bogfjellmo-Marthinsen",
                     methods);
