/* The four methods of the `ggl` family: options, claimed properties, and
 * the checks that refuse option sets whose Newton matrix is singular. */
#include "ggl.h"
#include "wb_integrator_plugin.h"

#include <float.h>
#include <string.h>

static const char *const requires[] = {WB_EXT_MECHANICAL, WB_EXT_HOLONOMIC, NULL};

/* The part of a method's description every GGL method shares: one
 * instance type and step (common.c), holonomic models only. */
#define GGL_METHOD_COMMON                                                                   \
    .struct_size = sizeof(wb_method), WB_METHOD_ELEMENT_SIZES, .requires = requires,        \
    .handles = WB_HANDLES_HOLONOMIC, .destroy = ggl_destroy, .reset = ggl_reset,            \
    .start = ggl_start, .step = ggl_step, .aux_values = ggl_aux_values

/* Options every method has, first in every option list. */
enum { OPT_TOL, OPT_MAX_ITER, OPT_CONVERGENCE, OPT_GUESS, OPT_SOLVER, OPT_LINEAR_SOLVER,
       OPT_COMMON };
#define COMMON_OPTIONS                                                                      \
    {"tol", WB_OPT_NUMBER, 1e-9, 1e-16, 1e-2, NULL, NULL,                                   \
     "Newton tolerance on max |residual| (the paper uses 1e-9)"},                           \
    {"max_iter", WB_OPT_INTEGER, 40, 1, 1000, NULL, NULL, "Newton iterations per step"},    \
    {"convergence", WB_OPT_CHOICE, 0, 0, 0, "step", "step|residual",                        \
     "step: max |R| <= tol and the last update <= tol relative to each unknown (the "      \
     "paper's code: max(|R|, |dz|) < tol); residual: max |R| <= tol alone"},                \
    {"guess", WB_OPT_CHOICE, 0, 0, 0, "simple", "simple|advanced",                          \
     "Newton's first q^{n+1}: q^n (simple) or q^n + h v^n (advanced)"},                   \
    {"solver", WB_OPT_CHOICE, 0, 0, 0, "continuation", "newton|continuation",               \
     "continuation: Newton from the guess, and where that fails the same step equations "  \
     "solved along h' = s h, s from 0 to 1 (secant predictor, Newton corrector): the "      \
     "scheme is unchanged, only the way to its solution, which Newton from the guess can "  \
     "miss at large h; newton: Newton from the guess alone (the paper's)"},                 \
    WB_LINEAR_SOLVER_OPTION("G, Hess V and T(q; mu) in patterns, a diagonal mass and "   \
                            "quadratic constraints; EM, EM-G: d DG V/dq in Hess V's "       \
                            "pattern, Gonzalez's rank-one term by Sherman-Morrison, "        \
                            "Greenspan's by differences grouped by a column colouring")

static void decode_common(const wb_option_value *opts, const wb_host *host, ggl *proto)
{
    memset(proto, 0, sizeof *proto);
    host->newton_defaults(host, &proto->newton_options);
    proto->newton_options.tol = opts[OPT_TOL].number;
    proto->newton_options.max_iter = (int)opts[OPT_MAX_ITER].number;
    proto->advanced_guess = strcmp(opts[OPT_GUESS].string, "advanced") == 0;
    proto->continuation = strcmp(opts[OPT_SOLVER].string, "continuation") == 0;
    /* the paper's code stops on max(|R|, |dz|) < tol; the round-off claims
     * rely on the update that follows |R| <= tol */
    proto->newton_options.settle_update = strcmp(opts[OPT_CONVERGENCE].string, "step") == 0;
}

/* ---- vi_s ------------------------------------------------------------------------ */

static const wb_option_spec vi_s_options[] = {COMMON_OPTIONS};

/* All three are also the next step's Newton guesses (v its predictor):
 * state. */
static const wb_aux_spec vi_aux[] = {
    {.name = "v", .size_kind = WB_AUX_VELOCITY, .time = WB_AUX_ON_INTERVAL,
     .doc = "interval velocity (VI-S: v^n of [t_n, t_n+1], paired with q^n; theta-VI: "
            "v^{n+1})"},
    {.name = "lambda", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_ON_INTERVAL,
     .doc = "multiplier of g(q) = 0"},
    {.name = "gamma", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_ON_INTERVAL,
     .doc = "multiplier of the velocity constraint (zero for the exact flow)"},
};

static int describe_vi_s(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 1;
    out->multiplier_order = 1;
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING | WB_PROP_POSITION_CONSTRAINT;
    return WB_OK;
}

static int create_vi_s(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                       void **inst)
{
    ggl proto;
    decode_common(opts, host, &proto);
    return ggl_create(host, model, &ggl_vi_s_scheme, &proto, opts[OPT_LINEAR_SOLVER].string,
                      inst);
}

const wb_method ggl_vi_s = {
    GGL_METHOD_COMMON,
    .name = "vi_s",
    .doc = "VI-S: first-order GGL variational integrator (constrained symplectic Euler, eq. 55)",
    .options = vi_s_options,
    .n_options = WB_ARRAY_COUNT(vi_s_options),
    .order_doc = "1",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING |
                      WB_PROP_POSITION_CONSTRAINT,
    .aux = vi_aux,
    .n_aux = WB_ARRAY_COUNT(vi_aux),
    .describe = describe_vi_s,
    .create = create_vi_s,
};

/* ---- vi_theta ----------------------------------------------------------------------- */

enum { OPT_THETA = OPT_COMMON, OPT_CONSTRAINT, OPT_VARTHETA };
static const wb_option_spec vi_theta_options[] = {
    COMMON_OPTIONS,
    {"theta", WB_OPT_NUMBER, 0.5, 0.0, 1.0, NULL, NULL,
     "L, G and grad V at q^{n+theta} = (1 - theta) q^n + theta q^{n+1}; 0 < theta < 1 with "
     "constraint = 'intermediate' (at 0 and 1 its Newton matrix is singular), 0 <= theta <= 1 "
     "with 'trapezoidal'"},
    {"constraint", WB_OPT_CHOICE, 0, 0, 0, "intermediate", "intermediate|trapezoidal",
     "g_d: g(q^{n+theta}) (option A, eq. 79) or (1 - vartheta) g(q^n) + vartheta g(q^{n+1}) "
     "(option B, eq. 82)"},
    {"vartheta", WB_OPT_NUMBER, 0.5, 0.0, 1.0, NULL, NULL,
     "weight of g(q^{n+1}) in the trapezoidal constraint: 0 < vartheta < 1 with constraint = "
     "'trapezoidal' (at 0 and 1 its Newton matrix is singular); unused with 'intermediate'"},
};

static int is_trapezoidal(const wb_option_value *opts)
{
    return strcmp(opts[OPT_CONSTRAINT].string, "trapezoidal") == 0;
}

/* Symmetric (hence of order 2) exactly when theta = 1/2 and, for option B,
 * vartheta = 1/2: swapping n <-> n+1, h -> -h then maps the equations onto
 * themselves.  Option B holds g(q^{n+1}) = 0 at the nodes, but the error
 * left by Newton is multiplied by (1 - vartheta)/vartheta per step, so the
 * claim is made only for vartheta >= 1/2.  Its velocity constraint holds
 * as G(q^{n+1}) v^{n+1} = 0 with the interval velocity (theta = 1), not as
 * G M^-1 p at the nodes: not claimed. */
static int describe_vi_theta(const wb_option_value *opts, wb_method_props *out)
{
    const double theta = opts[OPT_THETA].number, vartheta = opts[OPT_VARTHETA].number;
    const int trapezoidal = is_trapezoidal(opts);
    const int symmetric = theta == 0.5 && (!trapezoidal || vartheta == 0.5);
    out->order = symmetric ? 2 : 1;
    out->multiplier_order = 1;
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_MOMENTUM_CONSERVING;
    if (symmetric)
        out->flags |= WB_PROP_SYMMETRIC;
    if (trapezoidal && vartheta >= 0.5 && vartheta < 1.0)
        out->flags |= WB_PROP_POSITION_CONSTRAINT;
    return WB_OK;
}

/* Option sets whose Newton matrix is singular.  With g_d independent of
 * q^{n+1} (theta = 0 in option A, vartheta = 0 in option B) the rows of the
 * position constraint vanish.  At the other end, eliminating p^{n+1} from
 * the Legendre map (76c) with (76b) leaves the impulse of lambda on v as
 * h (1 - theta) G(q^{n+theta})^T lambda (option A) or
 * h (1 - vartheta) G(q^n)^T lambda (option B): for theta = 1 in A, or
 * vartheta = 1 in B (which the paper admits), v follows from p^n and gamma
 * alone and the 2m constraints R4, R5 are left with the m unknowns gamma. */
static int refuse_singular(const wb_host *host, double theta, int trapezoidal, double vartheta)
{
    if (!trapezoidal && (theta == 0.0 || theta == 1.0)) {
        if (theta == 0.0)
            host->error(host, "vi_theta: theta = 0 is refused with constraint = "
                        "'intermediate', which accepts 0 < theta < 1; theta = 0 and 1 need "
                        "constraint = 'trapezoidal': g(q^{n+theta}) = g(q^n) does not depend "
                        "on the unknowns, so the rows of R4 in the Newton matrix are zero and "
                        "it is singular (the paper's option A needs theta in (0, 1)); VI-A is "
                        "theta = 1/2");
        else
            host->error(host, "vi_theta: theta = 1 is refused with constraint = "
                        "'intermediate', which accepts 0 < theta < 1; theta = 0 and 1 need "
                        "constraint = 'trapezoidal': M v^{n+1} = p^n (eq. 79c), so lambda no "
                        "longer reaches v, and g(q^{n+1}) = 0 and G(q^{n+1}) v^{n+1} = 0 (2m "
                        "equations) are left with the m unknowns gamma: the Newton matrix is "
                        "singular (the paper's option A needs theta in (0, 1)); VI-A is "
                        "theta = 1/2");
        return WB_ERR_INVALID;
    }
    if (trapezoidal && (vartheta == 0.0 || vartheta == 1.0)) {
        if (vartheta == 0.0)
            host->error(host, "vi_theta: vartheta = 0 is refused with constraint = "
                        "'trapezoidal', which accepts 0 < vartheta < 1: g_d = g(q^n) does not "
                        "depend on the unknowns, so the rows of R4 in the Newton matrix are "
                        "zero and it is singular (option B needs vartheta > 0); VI-B is "
                        "vartheta = 1/2");
        else
            host->error(host, "vi_theta: vartheta = 1 is refused with constraint = "
                        "'trapezoidal', which accepts 0 < vartheta < 1: after eliminating "
                        "p^{n+1}, M v^{n+1} = p^n - h (1 - vartheta) G(q^n)^T lambda + ... "
                        "has no lambda, so g(q^{n+1}) = 0 and G(q^{n+theta}) v^{n+1} = 0 "
                        "(2m equations) are left with the m unknowns gamma and the Newton "
                        "matrix is singular (the paper admits vartheta = 1, but it fails at "
                        "the first step); VI-B is vartheta = 1/2");
        return WB_ERR_INVALID;
    }
    return WB_OK;
}

/* Well-posed but unstable: the normal momentum is multiplied by -w/(1-w)
 * per step and the position residual by -(1-w)/w, w = theta (option A)
 * or vartheta (option B); both are of modulus one only for w = 1/2, the
 * paper's choice.  Any other w blows up from round-off within a few
 * hundred steps. */
static void warn_unstable(const wb_host *host, double theta, int trapezoidal, double vartheta)
{
    const double w = trapezoidal ? vartheta : theta;
    if (w == 0.5)
        return;
    host->log(host, WB_LOG_WARNING,
              "vi_theta: %s = %g: per step the position residual is multiplied by %.3g and "
              "the normal momentum by %.3g; only %s = 1/2 keeps both bounded, expect a "
              "blow-up", trapezoidal ? "vartheta" : "theta", w, -(1 - w) / w, -w / (1 - w),
              trapezoidal ? "vartheta" : "theta");
}

/* Called by the host whenever options are set: wb.method() itself refuses
 * a singular option set. */
static int validate_vi_theta(const wb_host *host, const wb_option_value *opts)
{
    return refuse_singular(host, opts[OPT_THETA].number, is_trapezoidal(opts),
                           opts[OPT_VARTHETA].number);
}

static int create_vi_theta(const wb_host *host, const wb_model *model,
                           const wb_option_value *opts, void **inst)
{
    ggl proto;
    decode_common(opts, host, &proto);
    proto.theta = opts[OPT_THETA].number;
    proto.vartheta = opts[OPT_VARTHETA].number;
    proto.trapezoidal = is_trapezoidal(opts);
    warn_unstable(host, proto.theta, proto.trapezoidal, proto.vartheta);
    return ggl_create(host, model, &ggl_vi_theta_scheme, &proto,
                      opts[OPT_LINEAR_SOLVER].string, inst);
}

const wb_method ggl_vi_theta = {
    GGL_METHOD_COMMON,
    .name = "vi_theta",
    .doc = "one-stage GGL variational integrators: VI-A = (theta 1/2, intermediate), "
           "VI-B = (theta 1, trapezoidal, vartheta 1/2)",
    .options = vi_theta_options,
    .n_options = WB_ARRAY_COUNT(vi_theta_options),
    .order_doc = "2 for theta = 1/2 (and vartheta = 1/2 with option B), else 1",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING,
    .aux = vi_aux,
    .n_aux = WB_ARRAY_COUNT(vi_aux),
    .describe = describe_vi_theta,
    .create = create_vi_theta,
    .validate = validate_vi_theta,
};

/* ---- em, em_gonzalez ------------------------------------------------------------------ */

enum { OPT_GRADIENT = OPT_COMMON };
static const wb_option_spec em_options[] = {
    COMMON_OPTIONS,
    {"discrete_gradient", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|greenspan|gonzalez",
     "DG V: Greenspan's through the model's potential invariants, Gonzalez's generic "
     "form, or (auto) Greenspan when the model has invariants; momentum conservation is "
     "claimed for 'greenspan' only, since 'auto' may fall back to Gonzalez's"},
};

/* EM-G carries lambda alone: the first entry */
static const wb_aux_spec em_aux[] = {
    {.name = "lambda", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_ON_INTERVAL,
     .doc = "multiplier of g (acts through G(q_m) at the midpoint)"},
    {.name = "gamma", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_ON_INTERVAL,
     .doc = "multiplier of the velocity constraint (zero for the exact flow)"},
};

/* Momentum maps are conserved when DG V is orthogonal to the symmetry
 * generators at the midpoint: Greenspan's form through invariants is;
 * Gonzalez's generic form is only when its correction vanishes (V of
 * degree <= 2).  "auto" falls back to Gonzalez on models without
 * invariants, so only the explicit "greenspan" (which refuses such
 * models) claims momentum on every model it runs. */
static uint32_t em_flags(const wb_option_value *opts)
{
    uint32_t flags = WB_PROP_ENERGY_CONSERVING | WB_PROP_POSITION_CONSTRAINT;
    if (strcmp(opts[OPT_GRADIENT].string, "greenspan") == 0)
        flags |= WB_PROP_MOMENTUM_CONSERVING;
    return flags;
}

/* EM imposes G M^-1 p = 0 at the nodes, EM-G does not. */
static int describe_energy_momentum(const wb_option_value *opts, int velocity_constraint,
                                    wb_method_props *out)
{
    out->order = 2;
    out->multiplier_order = 1;
    out->flags = em_flags(opts) | (velocity_constraint ? WB_PROP_VELOCITY_CONSTRAINT : 0u);
    return WB_OK;
}

static int describe_em(const wb_option_value *opts, wb_method_props *out)
{
    return describe_energy_momentum(opts, 1, out);
}

static int describe_em_gonzalez(const wb_option_value *opts, wb_method_props *out)
{
    return describe_energy_momentum(opts, 0, out);
}

/* The models EM and EM-G cannot integrate at these options (wb_method's
 * check_model, and create's first step). */
static int check_em_model(const wb_host *host, const wb_option_value *opts,
                          const wb_model *model, const ggl_scheme *scheme)
{
    if (!(model->holonomic_flags & WB_HOLONOMIC_QUADRATIC)) {
        host->error(host, "%s needs quadratic constraints (WB_HOLONOMIC_QUADRATIC): then "
                    "G(q_m) and the midpoint derivatives of g^v are discrete derivatives; "
                    "model '%s' does not declare them quadratic", scheme->label, model->name);
        return WB_ERR_INVALID;
    }
    const int has_invariants = (model->capabilities & WB_CAP_POTENTIAL_INVARIANTS) != 0;
    if (strcmp(opts[OPT_GRADIENT].string, "greenspan") == 0 && !has_invariants) {
        host->error(host, "%s: discrete_gradient = 'greenspan' needs the model extension %s, "
                    "which model '%s' does not provide (use 'gonzalez' or 'auto')",
                    scheme->label, WB_EXT_POTENTIAL_INVARIANTS, model->name);
        return WB_ERR_INVALID;
    }
    return WB_OK;
}

static int check_model_em(const wb_host *host, const wb_option_value *opts,
                          const wb_model *model)
{
    return check_em_model(host, opts, model, &ggl_em_scheme);
}

static int check_model_em_gonzalez(const wb_host *host, const wb_option_value *opts,
                                   const wb_model *model)
{
    return check_em_model(host, opts, model, &ggl_em_gonzalez_scheme);
}

static int create_em_common(const wb_host *host, const wb_model *model,
                            const wb_option_value *opts, const ggl_scheme *scheme,
                            void **inst)
{
    int status = check_em_model(host, opts, model, scheme);
    if (status != WB_OK)
        return status;
    ggl proto;
    decode_common(opts, host, &proto);
    const char *choice = opts[OPT_GRADIENT].string;
    const int has_invariants = (model->capabilities & WB_CAP_POTENTIAL_INVARIANTS) != 0;
    proto.gradient = strcmp(choice, "gonzalez") != 0 && has_invariants ? GGL_DG_GREENSPAN
                                                                       : GGL_DG_GONZALEZ;
    return ggl_create(host, model, scheme, &proto, opts[OPT_LINEAR_SOLVER].string, inst);
}

static int create_em(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                     void **inst)
{
    return create_em_common(host, model, opts, &ggl_em_scheme, inst);
}

static int create_em_gonzalez(const wb_host *host, const wb_model *model,
                              const wb_option_value *opts, void **inst)
{
    return create_em_common(host, model, opts, &ggl_em_gonzalez_scheme, inst);
}

const wb_method ggl_em = {
    GGL_METHOD_COMMON,
    .name = "em",
    .doc = "EM: GGL energy-momentum scheme (eq. 84), g and G M^-1 p exact at the nodes",
    .options = em_options,
    .n_options = WB_ARRAY_COUNT(em_options),
    .order_doc = "2",
    .property_flags = WB_PROP_ENERGY_CONSERVING | WB_PROP_POSITION_CONSTRAINT |
                      WB_PROP_VELOCITY_CONSTRAINT, /* + momentum with "greenspan" */
    .aux = em_aux,
    .n_aux = WB_ARRAY_COUNT(em_aux),
    .describe = describe_em,
    .create = create_em,
    .check_model = check_model_em,
};

const wb_method ggl_em_gonzalez = {
    GGL_METHOD_COMMON,
    .name = "em_gonzalez",
    .doc = "EM-G: Gonzalez's 1999 energy-momentum scheme, position constraints only (each step "
           "finished with G(q_m) M^-1 p_m = 0, which it implies in exact arithmetic: q's "
           "round-off off g = 0 does not become a velocity error eps |q| / h)",
    .options = em_options,
    .n_options = WB_ARRAY_COUNT(em_options),
    .order_doc = "2",
    .property_flags = WB_PROP_ENERGY_CONSERVING |
                      WB_PROP_POSITION_CONSTRAINT, /* + momentum with "greenspan" */
    .aux = em_aux,
    .n_aux = 1,
    .describe = describe_em_gonzalez,
    .create = create_em_gonzalez,
    .check_model = check_model_em_gonzalez,
};

/* ---- the family -------------------------------------------------------------------------- */

static const wb_method *const methods[] = {&ggl_vi_s, &ggl_vi_theta, &ggl_em, &ggl_em_gonzalez,
                                           &ggl_bs99};

WB_INTEGRATOR_PLUGIN("ggl",
                     "GGL-principle integrators (Kinon-Betsch-Schneider 2023): variational and "
                     "energy-momentum",
                     "GGL variational integrators and the GGL energy-momentum scheme", methods);
