/* The methods of the `variationalize` family:
 *
 *   vi         the symplectic layer over any Runge-Kutta tableau (the
 *              paper's conversion): options, claims, the carried state.
 *   projected  the standard layer alone, its end point projected onto TQ
 *              after every step: the non-variational baseline the
 *              conversion is measured against (digest Table C). */
#include "variationalize.h"
#include "wb_integrator_plugin.h"
#include "wb_mass.h"
#include "wb_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const requires[] = {WB_EXT_MECHANICAL, NULL};

/* ---- options shared by both methods ---------------------------------------------------- */

static int is_pair(const wb_tableau *t) { return t->a2 != NULL; }

static int refuse_pair(const wb_host *host, const char *option, const wb_tableau *t)
{
    if (!is_pair(t))
        return WB_OK;
    host->error(host, "option '%s': tableau '%s' is a partitioned pair; the standard layer is "
                      "one Runge-Kutta method on (q, v, S): give a plain tableau (e.g. "
                      "wb.tableau{a = T.a, b = T.b, c = T.c} for the first of the pair)",
                option, t->name);
    return WB_ERR_INVALID;
}

static int weight_of(const char *choice)
{
    return strcmp(choice, "mass") == 0 ? VZ_MASS : strcmp(choice, "auto") == 0 ? VZ_AUTO
                                                                             : VZ_ORTHOGONAL;
}

static int same_tableau(const wb_tableau *a, const wb_tableau *b)
{
    if (a == b)
        return 1;
    if (a->s != b->s || is_pair(a) != is_pair(b))
        return 0;
    const int s = a->s;
    for (int i = 0; i < s; i++) {
        if (a->b[i] != b->b[i])
            return 0;
        for (int j = 0; j < s; j++)
            if (a->a[i * s + j] != b->a[i * s + j])
                return 0;
    }
    return 1;
}

/* ---- vi ----------------------------------------------------------------------------------- */

enum { OPT_LAYER, OPT_LAYER_MINUS, OPT_ALPHA_MINUS, OPT_ALPHA_PLUS, OPT_PROJECTION, OPT_SOLVER,
       OPT_APPROXIMATES, OPT_JACOBIAN, OPT_DERIVATIVES, OPT_TOL, OPT_MAX_ITER, OPT_COUNT };

static const wb_option_spec vi_options[OPT_COUNT] = {
    {"layer", WB_OPT_TABLEAU, 0, 0, 0, "rk4", NULL,
     "the standard layer: any Runge-Kutta tableau, explicit or implicit (euler, heun, "
     "kutta3, rk4, gauss2, ... or your own); its order r is the method's"},
    {"layer_minus", WB_OPT_TABLEAU, 0, 0, 0, "rk4", NULL,
     "the method of the d- end and its action (e.g. the adjoint); default: the layer"},
    {"alpha_minus", WB_OPT_NUMBER, -0.5, -1.0, 0.0, NULL, NULL,
     "bias: d- = R^q at t = h alpha_minus; alpha_plus - alpha_minus = 1, giving one sets the "
     "other"},
    {"alpha_plus", WB_OPT_NUMBER, 0.5, 0.0, 1.0, NULL, NULL,
     "bias: d+ = R^q at t = h alpha_plus; the junction qbar belongs to t_n + alpha_plus h"},
    {"projection", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|orthogonal|mass",
     "iota(q, theta) = q + W G(q)^T theta, the normal at the foot point: W = I (orthogonal, "
     "the paper's (3.2)) or W = M^-1 (mass; then also the momenta's gauge G W lambda = 0 and "
     "Newton's test of each point's momentum in its own units); auto: orthogonal up to a mass "
     "ratio of 1e3 and on unconstrained models, mass above (mass ratio: the largest "
     "eigenvalue of M over the smallest, for point masses the heaviest over the lightest); "
     "orthogonal is refused above 1e3 on a constrained model (it holds a light point's "
     "velocity only to ~tol x the ratio: 2e-9 at 1e4, 0.1 .. 0.3 at 1e12)"},
    {"solver", WB_OPT_CHOICE, 0, 0, 0, "simplified", "simplified|newton|approximate",
     "simplified: Newton on the reduced equations (3N + 3d unknowns) with one matrix per "
     "step; newton: a new matrix at every iteration; approximate: the paper's iteration "
     "(4.4) on its Stage 4 system (12N + 5d) with the corrected approximates of Fig. 2"},
    {"approximates", WB_OPT_CHOICE, 0, 0, 0, "corrected", "corrected|printed",
     "solver = 'approximate': S4.6a' and S4.7a' as the digest corrects them, or as printed "
     "(S4.6a' without its h alpha factors: the iteration diverges)"},
    {"jacobian", WB_OPT_CHOICE, 0, 0, 0, "mixed", "mixed|finite_difference",
     "Newton's matrix: (q2, v2) columns by forward differences of the exact residual, the "
     "rest in closed form (mixed), or every column by differences"},
    {"derivatives", WB_OPT_CHOICE, 0, 0, 0, "variational", "variational|finite_difference",
     "derivatives of the layer in the equations: the variational equations (the method), "
     "or central differences (a test oracle only)"},
    {"tol", WB_OPT_NUMBER, 1e-13, 1e-16, 1e-4, NULL, NULL,
     "max |residual| (rows of v divided by h), each row's bound tol times the size of its "
     "terms where they are below 1 (every solver), or their round-off floor once the residual "
     "stops falling; then "
     "the iteration runs until its update is below tol too (or stops cutting the residual)"},
    {"max_iter", WB_OPT_INTEGER, 0, 0, 100000, NULL, NULL,
     "iterations per step; 0: 60 for simplified, 25 for newton, 600 for approximate"},
};

static const wb_aux_spec vi_aux[] = {
    {.name = "qbar", .size_kind = WB_AUX_CONFIGURATION, .time = WB_AUX_AT_OFFSET,
     .doc = "junction d+(w_n) = d-(w_n+1) of consecutive segments, at t_n + alpha_plus h"},
    {.name = "mu", .size_kind = WB_AUX_CONFIGURATION, .time = WB_AUX_AT_OFFSET,
     .doc = "discrete momentum at the junction (J = mu . xi(qbar) is conserved)"},
    {.name = "mu_prev", .size_kind = WB_AUX_CONFIGURATION, .time = WB_AUX_AT_OFFSET,
     .doc = "the previous mu (Newton's guess for lambda+)", .flags = WB_AUX_UNRECORDED},
    {.name = "nu1", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_AT_NODE,
     .doc = "multiplier of dw in T_w TQ, position part", .flags = WB_AUX_UNRECORDED},
    {.name = "nu2", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_AT_NODE,
     .doc = "multiplier of dw in T_w TQ, velocity part", .flags = WB_AUX_UNRECORDED},
    {.name = "theta", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_AT_OFFSET,
     .doc = "fibre coordinate of dhat-(w_n+1) = iota(qbar, theta)", .flags = WB_AUX_UNRECORDED},
};

/* giving one end of the bias sets the other; the d- layer defaults to the layer */
static int vi_complete(const wb_host *host, wb_option_value *opts, const unsigned char *given)
{
    double *am = &opts[OPT_ALPHA_MINUS].number, *ap = &opts[OPT_ALPHA_PLUS].number;
    if (given[OPT_ALPHA_MINUS] && given[OPT_ALPHA_PLUS]) {
        if (fabs(*ap - *am - 1.0) > 1e-12) {
            host->error(host, "the bias must satisfy alpha_plus - alpha_minus = 1 with "
                              "-1 <= alpha_minus <= 0 <= alpha_plus <= 1; got alpha_minus = %g "
                              "and alpha_plus = %g (give one of them: it sets the other)",
                        *am, *ap);
            return WB_ERR_INVALID;
        }
    } else if (given[OPT_ALPHA_MINUS]) {
        *ap = *am + 1.0;
    } else if (given[OPT_ALPHA_PLUS]) {
        *am = *ap - 1.0;
    }
    if (!given[OPT_LAYER_MINUS])
        opts[OPT_LAYER_MINUS].tableau = opts[OPT_LAYER].tableau;
    return WB_OK;
}

static int vi_validate(const wb_host *host, const wb_option_value *opts)
{
    const double am = opts[OPT_ALPHA_MINUS].number, ap = opts[OPT_ALPHA_PLUS].number;
    if (fabs(ap - am - 1.0) > 1e-12) {
        host->error(host, "the bias must satisfy alpha_plus - alpha_minus = 1; got "
                          "alpha_minus = %g and alpha_plus = %g", am, ap);
        return WB_ERR_INVALID;
    }
    int status = refuse_pair(host, "layer", opts[OPT_LAYER].tableau);
    if (status == WB_OK)
        status = refuse_pair(host, "layer_minus", opts[OPT_LAYER_MINUS].tableau);
    return status;
}

/* Symmetric: the bias (-1/2, 1/2) with one method at both ends; the
 * adjoint of Phi^(a-, a+) is Phi^(-a+, -a-) (digest 2.9). */
static int vi_symmetric(const wb_option_value *opts)
{
    return opts[OPT_ALPHA_MINUS].number == -opts[OPT_ALPHA_PLUS].number &&
           same_tableau(opts[OPT_LAYER].tableau, opts[OPT_LAYER_MINUS].tableau);
}

static int vi_describe(const wb_option_value *opts, wb_method_props *out)
{
    const wb_tableau *plus = opts[OPT_LAYER].tableau, *minus = opts[OPT_LAYER_MINUS].tableau;
    if (is_pair(plus) || is_pair(minus))
        return WB_ERR_INVALID;
    int r = plus->order_first < minus->order_first ? plus->order_first : minus->order_first;
    /* Not WB_PROP_SYMPLECTIC: the layer is symplectic for the discrete
     * form omega_{L_h} on TQ, i.e. the junction map (qbar, mu) -> (qbar',
     * mu') is canonical; the step map of the driver's state (q, M v) at
     * the nodes is conjugate to it, not canonical itself (Euler with the
     * bias (-1/2, 1/2) is the trapezoidal rule).  Nor
     * WB_PROP_MOMENTUM_CONSERVING: the conserved momentum is mu . xi(qbar),
     * not p . xi(q). */
    out->flags = WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT;
    if (vi_symmetric(opts)) {
        out->flags |= WB_PROP_SYMMETRIC;
        r += r % 2; /* a symmetric method has even order */
    }
    out->order = r;
    out->multiplier_order = 0;
    return WB_OK;
}

static double vi_time_offset(const wb_option_value *opts, uint32_t group)
{
    (void)group;
    return opts[OPT_ALPHA_PLUS].number;
}

typedef struct vi_instance {
    vz_del *del;
    const wb_model *model;
    double *v0, *v1;
} vi_instance;

static void vi_destroy(void *inst)
{
    vi_instance *vi = inst;
    if (!vi)
        return;
    vz_del_destroy(vi->del);
    free(vi->v0);
    free(vi);
}

static int vi_create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                     void **inst)
{
    int status = wb_require_constant_mass(host, model, "vi");
    if (status != WB_OK)
        return status;
    const char *solver = opts[OPT_SOLVER].string;
    vz_options o = {
        .layer = opts[OPT_LAYER].tableau,
        .layer_minus = opts[OPT_LAYER_MINUS].tableau,
        .alpha_minus = opts[OPT_ALPHA_MINUS].number,
        .alpha_plus = opts[OPT_ALPHA_PLUS].number,
        .weight = weight_of(opts[OPT_PROJECTION].string),
        .derivatives = strcmp(opts[OPT_DERIVATIVES].string, "finite_difference") == 0
                           ? VZ_FINITE_DIFFERENCE : VZ_VARIATIONAL,
        .solver = strcmp(solver, "approximate") == 0 ? VZ_APPROXIMATE
                  : strcmp(solver, "newton") == 0    ? VZ_NEWTON
                                                     : VZ_SIMPLIFIED,
        .jacobian = strcmp(opts[OPT_JACOBIAN].string, "finite_difference") == 0
                        ? VZ_JACOBIAN_FD : VZ_JACOBIAN_MIXED,
        .printed_approximates = strcmp(opts[OPT_APPROXIMATES].string, "printed") == 0,
        .tol = opts[OPT_TOL].number,
        .max_iter = (int)opts[OPT_MAX_ITER].number,
    };
    if (o.max_iter == 0)
        o.max_iter = o.solver == VZ_APPROXIMATE ? 600 : o.solver == VZ_SIMPLIFIED ? 60 : 25;
    vi_instance *vi = calloc(1, sizeof *vi);
    double *v = calloc(2 * (size_t)model->nq, sizeof(double));
    if (!vi || !v) {
        free(vi);
        free(v);
        host->error(host, "vi: out of memory");
        return WB_ERR_NOMEM;
    }
    vi->model = model, vi->v0 = v, vi->v1 = v + model->nq;
    status = vz_del_create(host, model, &o, &vi->del);
    if (status != WB_OK) {
        vi_destroy(vi);
        return status;
    }
    *inst = vi;
    return WB_OK;
}

static int vi_start(void *inst, double t, double h, const double *q, const double *p,
                    const double *aux)
{
    vi_instance *vi = inst;
    vz_del *del = vi->del;
    const int n = del->n, m = del->m;
    (void)t;
    if (!aux) {
        wb_mass_solve(vi->model, q, p, vi->v0);
        del->stats = NULL;
        return vz_del_start(del, h, q, vi->v0);
    }
    del->h = h;
    double *const targets[] = {del->qbar, del->mu, del->mu_prev, del->nu1, del->nu2, del->theta};
    const int sizes[] = {n, n, n, m, m, m};
    for (int g = 0; g < 6; g++) {
        vec_copy(sizes[g], aux, targets[g]);
        aux += sizes[g];
    }
    return WB_OK;
}

static void vi_aux_values(const void *inst, double *out)
{
    const vz_del *del = ((const vi_instance *)inst)->del;
    const int n = del->n, m = del->m;
    const double *const sources[] = {del->qbar, del->mu, del->mu_prev, del->nu1, del->nu2,
                                     del->theta};
    const int sizes[] = {n, n, n, m, m, m};
    for (int g = 0; g < 6; g++) {
        vec_copy(sizes[g], sources[g], out);
        out += sizes[g];
    }
}

static int vi_step(void *inst, double t, double h, const double *q0, const double *p0,
                   double *q1, double *p1, wb_step_stats *stats)
{
    vi_instance *vi = inst;
    (void)t;
    wb_mass_solve(vi->model, q0, p0, vi->v0);
    int status = vz_del_step(vi->del, h, q0, vi->v0, q1, vi->v1, stats);
    if (status != WB_OK)
        return status;
    mat_vec(vi->del->n, vi->del->n, vi->del->field.M, vi->v1, p1);
    return WB_OK;
}

static const wb_method variationalize_vi = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "vi",
    .doc = "any Runge-Kutta layer converted to a variational integrator of its order "
           "(Patrick-Cuell-Spiteri-Zhang): g and G v exact at the nodes; symplectic for the "
           "discrete form (the junction map (qbar, mu) -> (qbar', mu') is canonical, the node "
           "map of (q, M v) only conjugate to it) and the discrete momentum mu . xi(qbar) "
           "conserved (not p . xi(q))",
    .options = vi_options,
    .n_options = OPT_COUNT,
    .requires = requires,
    .handles = WB_HANDLES_UNCONSTRAINED | WB_HANDLES_HOLONOMIC,
    .order_doc = "r, the layer's order, for an asymmetric bias; the symmetric bias "
                 "(-1/2, 1/2) with one layer: r rounded up to even",
    .property_flags = WB_PROP_SYMMETRIC | WB_PROP_POSITION_CONSTRAINT |
                      WB_PROP_VELOCITY_CONSTRAINT,
    .aux = vi_aux,
    .n_aux = WB_ARRAY_COUNT(vi_aux),
    .describe = vi_describe,
    .create = vi_create,
    .destroy = vi_destroy,
    .step = vi_step,
    .aux_values = vi_aux_values,
    .validate = vi_validate,
    .start = vi_start,
    .aux_time_offset = vi_time_offset,
    .complete_options = vi_complete,
};

/* ---- projected ---------------------------------------------------------------------------- */

enum { POPT_LAYER, POPT_PROJECTION, POPT_COUNT };

static const wb_option_spec projected_options[POPT_COUNT] = {
    {"layer", WB_OPT_TABLEAU, 0, 0, 0, "rk4", NULL,
     "the Runge-Kutta tableau of the step on (q, v)"},
    {"projection", WB_OPT_CHOICE, 0, 0, 0, "orthogonal", "orthogonal|mass",
     "q onto Q along q + W G(q)^T theta (W = I or M^-1); v then M-orthogonally onto T_q Q"},
};

typedef struct projected {
    const wb_model *model;
    vz_field field;
    vz_layer layer;
    vz_projection proj;
    double *v0, *qhat, *vhat, *theta, *v1;
} projected;

static void projected_destroy(void *inst)
{
    projected *pr = inst;
    if (!pr)
        return;
    vz_layer_free(&pr->layer);
    vz_projection_free(&pr->proj);
    vz_field_free(&pr->field);
    free(pr->v0);
    free(pr);
}

static int projected_create(const wb_host *host, const wb_model *model,
                            const wb_option_value *opts, void **inst)
{
    int status = wb_require_constant_mass(host, model, "projected");
    if (status != WB_OK)
        return status;
    projected *pr = calloc(1, sizeof *pr);
    const size_t n = (size_t)model->nq, m = (size_t)model->n_holonomic;
    double *block = calloc(4 * n + m + 1, sizeof(double));
    if (!pr || !block) {
        free(pr);
        free(block);
        host->error(host, "projected: out of memory");
        return WB_ERR_NOMEM;
    }
    pr->model = model;
    pr->v0 = block, pr->qhat = block + n, pr->vhat = block + 2 * n, pr->v1 = block + 3 * n;
    pr->theta = block + 4 * n;
    if (vz_field_init(&pr->field, host, model) != WB_OK ||
        vz_layer_init(&pr->layer, &pr->field, opts[POPT_LAYER].tableau, VZ_VARIATIONAL) != WB_OK ||
        vz_projection_init(&pr->proj, &pr->field, weight_of(opts[POPT_PROJECTION].string)) !=
            WB_OK) {
        projected_destroy(pr);
        host->error(host, "projected: out of memory");
        return WB_ERR_NOMEM;
    }
    *inst = pr;
    return WB_OK;
}

static int projected_reset(void *inst, double t, const double *q, const double *p)
{
    (void)inst, (void)t, (void)q, (void)p;
    return WB_OK;
}

static int projected_step(void *inst, double t, double h, const double *q0, const double *p0,
                          double *q1, double *p1, wb_step_stats *stats)
{
    projected *pr = inst;
    const int n = pr->field.n;
    double S;
    (void)t;
    wb_mass_solve(pr->model, q0, p0, pr->v0);
    int status = vz_layer_step(&pr->layer, h, q0, pr->v0, pr->qhat, pr->vhat, &S, NULL, NULL,
                               stats);
    if (status == WB_OK)
        status = vz_project(&pr->proj, pr->qhat, q1, pr->theta, stats);
    if (status == WB_OK)
        status = vz_project_velocity(&pr->proj, q1, pr->vhat, pr->v1);
    if (status != WB_OK)
        return status;
    mat_vec(n, n, pr->field.M, pr->v1, p1);
    return WB_OK;
}

static int projected_validate(const wb_host *host, const wb_option_value *opts)
{
    return refuse_pair(host, "layer", opts[POPT_LAYER].tableau);
}

static int projected_describe(const wb_option_value *opts, wb_method_props *out)
{
    const wb_tableau *t = opts[POPT_LAYER].tableau;
    if (is_pair(t))
        return WB_ERR_INVALID;
    out->order = t->order_first;
    out->multiplier_order = 0;
    out->flags = WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT;
    return WB_OK;
}

static const wb_method variationalize_projected = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "projected",
    .doc = "the standard layer alone (any tableau on q' = v, v' = A) with q projected onto Q "
           "and v onto T_q Q after every step: the non-variational baseline",
    .options = projected_options,
    .n_options = POPT_COUNT,
    .requires = requires,
    .handles = WB_HANDLES_UNCONSTRAINED | WB_HANDLES_HOLONOMIC,
    .order_doc = "the layer's",
    .property_flags = WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT,
    .describe = projected_describe,
    .create = projected_create,
    .destroy = projected_destroy,
    .reset = projected_reset,
    .step = projected_step,
    .validate = projected_validate,
};

static const wb_method *const methods[] = {&variationalize_vi, &variationalize_projected};

WB_INTEGRATOR_PLUGIN("variationalize",
                     "one-step methods converted to variational integrators of the same order "
                     "(Patrick-Cuell-Spiteri-Zhang)",
                     "any Runge-Kutta layer as a symplectic, constraint-exact variational "
                     "integrator", methods);
