/* The `hbvm` family: Hamiltonian Boundary Value Methods HBVM(k, s), the
 * energy-conserving line-integral methods of Brugnano, Iavernaro and
 * Trigiante, with the extension of Brugnano, Gurioli, Iavernaro and
 * Weinmueller to holonomic constraints (see hbvm.h for the equations).
 *
 * Options: s, the degree of the polynomial path (the Legendre cutoff: the
 * unknowns and the cost of a step grow with s); k >= s, the Gauss nodes of
 * the quadrature (only the function evaluations grow with k); the solver
 * (auto: the paper's fixed point, simplified Newton once it stalls).
 * HBVM(s, s) is s-stage Gauss collocation. */
#include "hbvm.h"
#include "wb_integrator_plugin.h"
#include "wb_mass.h"
#include "wb_sparse_method.h"
#include "wb_vec.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_K, OPT_S, OPT_ITERATION, OPT_TOL, OPT_MAX_ITER, OPT_COMPENSATED, OPT_START,
       OPT_STAGE_FORM, OPT_LINEAR_SOLVER, OPT_COUNT };

static const wb_option_spec options[OPT_COUNT] = {
    {"k", WB_OPT_INTEGER, 0, 0, 64, NULL, NULL,
     "Gauss-Legendre nodes of the quadrature, k >= s (0: k = s, i.e. s-stage Gauss); H and "
     "g are conserved exactly when polynomials of degree <= 2k/s, else to O(h^2k)"},
    {"s", WB_OPT_INTEGER, 2, 1, 16, NULL, NULL,
     "degree of the polynomial path = Legendre coefficients per step (the cutoff): "
     "order 2s unconstrained or with a constant multiplier, 2 otherwise"},
    {"iteration", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|fixed_point|newton|simplified",
     "auto (the paper's fixed point while it converges, bit for bit; once a sweep contracts "
     "by less than 1/4 or diverges, simplified Newton for the rest of the run, its Jacobian "
     "(at the step's start) and LU kept across steps while they converge; should Newton fail "
     "on a step, the fixed point from then on), the paper's fixed-point iteration, Newton with "
     "the analytic Jacobian, or simplified Newton (the step's first Jacobian, one LU per "
     "step); sol.stats.iteration says which ran"},
    {"tol", WB_OPT_NUMBER, 0, 0, 1e-3, NULL, NULL,
     "stop when the increment is below tol; 0 iterates to machine precision (until the "
     "increment vanishes or stops decreasing)"},
    {"max_iter", WB_OPT_INTEGER, 200, 1, 10000, NULL, NULL, "iterations per step"},
    {"compensated", WB_OPT_BOOLEAN, 1, 0, 1, NULL, NULL,
     "compensated summation of the update (round-off grows like a random walk)"},
    {"start", WB_OPT_CHOICE, 0, 0, 0, "extrapolate", "extrapolate|plain",
     "each step's path starts as the last step's polynomial extrapolated (its Legendre "
     "coefficients one step later), or (plain) as the constant-velocity path"},
    {"stage_form", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|nystrom|legendre",
     "the fixed point's unknowns: the k stage positions (nystrom, the second-order form; "
     "no constraints), the s Legendre coefficients and the multiplier (legendre), or auto "
     "(nystrom without constraints, iteration = fixed_point or auto and k = s: for k > s the "
     "Legendre form has fewer unknowns); Newton runs in the Legendre form"},
    WB_LINEAR_SOLVER_OPTION("G in its pattern and a diagonal mass, and for any iteration but "
                            "fixed_point the Hessian patterns; the multiplier system (51) in "
                            "the pattern of G G^T and the Newton matrix in its nonzeros"),
};

static const char *const requires[] = {WB_EXT_MECHANICAL, NULL};

/* lambda is Newton's guess for the next multiplier: state, with the
 * compensated sum's carry. */
static const wb_aux_spec aux[] = {
    {.name = "lambda", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_ON_INTERVAL,
     .doc = "the step's constant multiplier lambda_n on [t_n, t_n+1]: first order against "
            "lambda(t_n) (times 'start', the paper's comparison), second order against "
            "lambda(t_n + h/2) (times 'mid')"},
    WB_COMPENSATED_AUX_SPECS,
    {.name = "start", .size_kind = WB_AUX_VELOCITY_BLOCKS, .time = WB_AUX_AT_NODE,
     .doc = "the last step's Legendre coefficients gamma_j (s blocks): the next step's "
            "extrapolated start", .flags = WB_AUX_UNRECORDED},
    {.name = "start_valid", .size_kind = WB_AUX_FIXED, .size = 1, .time = WB_AUX_AT_NODE,
     .doc = "1 when start holds the step that ended here", .flags = WB_AUX_UNRECORDED},
    {.name = "solver_state", .size_kind = WB_AUX_FIXED, .size = HBVM_STATE_COUNT,
     .time = WB_AUX_AT_NODE,
     .doc = "iteration in use (auto), Newton failed (auto: fixed point from then on), "
            "Jacobian kept, Jacobian to refresh, its step size",
     .flags = WB_AUX_UNRECORDED},
    {.name = "jacobian_point", .size_kind = WB_AUX_CONFIGURATION_BLOCKS,
     .time = WB_AUX_AT_NODE,
     .doc = "where the kept Jacobian was evaluated: q0, then gamma_j (s blocks)",
     .flags = WB_AUX_UNRECORDED},
    {.name = "jacobian_lambda", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_AT_NODE,
     .doc = "the multiplier at which the kept Jacobian was evaluated",
     .flags = WB_AUX_UNRECORDED},
};

enum { AUX_START = 3, AUX_JACOBIAN_POINT = 6 };

/* start: s blocks of nv; jacobian_point: 1 + s blocks of nq. */
static uint32_t aux_blocks(const wb_option_value *opts, uint32_t group)
{
    const uint32_t s = (uint32_t)opts[OPT_S].number;
    return group == AUX_START ? s : group == AUX_JACOBIAN_POINT ? 1u + s : 0u;
}

static int nodes_of(const wb_option_value *opts)
{
    const int k = (int)opts[OPT_K].number, s = (int)opts[OPT_S].number;
    return k == 0 ? s : k;
}

static void destroy(void *inst)
{
    hbvm *it = inst;
    if (!it)
        return;
    hbvm_basis_free(&it->basis);
    hbvm_sparse_free(it);
    hbvm_free(it);
    free(it);
}

/* Refused at wb.method, before any model is involved. */
static int validate(const wb_host *host, const wb_option_value *opts)
{
    const int k = nodes_of(opts), s = (int)opts[OPT_S].number;
    if (k < s) {
        host->error(host, "hbvm: k = %d quadrature nodes is fewer than the degree s = %d; "
                          "HBVM(k, s) needs k >= s (k = 0 means k = s)", k, s);
        return WB_ERR_INVALID;
    }
    return WB_OK;
}

static int iteration_of(const char *choice)
{
    return strcmp(choice, "newton") == 0       ? HBVM_NEWTON
           : strcmp(choice, "simplified") == 0 ? HBVM_SIMPLIFIED
           : strcmp(choice, "auto") == 0       ? HBVM_AUTO
                                               : HBVM_FIXED_POINT;
}

/* The arrays in G's pattern (linear_solver = sparse) or dense, after the
 * basis (the Newton matrix's blocks follow the quadrature's couplings). */
static int create_arrays(hbvm *it, int sparse)
{
    int status = WB_OK;
    it->g_entries = it->m * it->n;
    if (sparse && (status = hbvm_sparse_create(it, it->iteration != HBVM_FIXED_POINT)) ==
                      WB_ERR_NOMEM)
        it->host->error(it->host, "hbvm: out of memory for the sparse structure of '%s'",
                        it->model->name);
    return status == WB_OK ? hbvm_alloc(it) : status;
}

static int create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                  void **inst)
{
    const int k = nodes_of(opts), s = (int)opts[OPT_S].number;
    const int iteration = iteration_of(opts[OPT_ITERATION].string);
    int status = validate(host, opts);
    if (status == WB_OK) /* (50) and (52) take M^-1 as a matrix: H = p^T M^-1 p / 2 + V(q) */
        status = wb_require_constant_mass(host, model, "hbvm");
    if (status != WB_OK)
        return status;
    /* Newton's matrix differentiates grad V and G^T lambda: the Hessians */
    const int sparse = wb_sparse_choose(host, model, opts[OPT_LINEAR_SOLVER].string,
                                        iteration == HBVM_FIXED_POINT ? 0
                                                                      : WB_SPARSE_NEEDS_HESSIANS,
                                        "hbvm");
    if (sparse < 0)
        return WB_ERR_INVALID;
    hbvm *it = calloc(1, sizeof *it);
    if (!it) {
        host->error(host, "hbvm: out of memory");
        return WB_ERR_NOMEM;
    }
    it->host = host, it->model = model;
    it->n = model->nq, it->m = model->n_holonomic, it->s = s, it->k = k;
    it->size = s * it->n + it->m;
    it->iteration = iteration;
    it->tol = opts[OPT_TOL].number;
    it->max_iter = (int)opts[OPT_MAX_ITER].number;
    it->sum.enabled = opts[OPT_COMPENSATED].number != 0;
    if ((status = hbvm_basis_init(&it->basis, host, s, k)) != WB_OK ||
        (status = create_arrays(it, sparse)) != WB_OK) {
        destroy(it);
        return status;
    }
    it->extrapolate = strcmp(opts[OPT_START].string, "extrapolate") == 0;
    const char *form = opts[OPT_STAGE_FORM].string;
    const int nystrom_applies =
        it->m == 0 && (it->iteration == HBVM_FIXED_POINT || it->iteration == HBVM_AUTO);
    if (strcmp(form, "nystrom") == 0 && !nystrom_applies) {
        host->error(host, "hbvm: stage_form = \"nystrom\" needs a model without constraints "
                          "(this one has %d) and iteration = \"fixed_point\" or \"auto\" "
                          "(now \"%s\"); use stage_form = \"auto\" or \"legendre\"",
                    it->m, opts[OPT_ITERATION].string);
        destroy(it);
        return WB_ERR_INVALID;
    }
    /* auto: k n stage positions against s n coefficients, so only for k = s
     * (callgrind, h = 0.01 on Kepler, 10 days on the outer solar system,
     * instructions a step Nystrom / Legendre: HBVM(2,2) 3544 / 5017 and
     * 17360 / 20048, HBVM(4,4) 6546 / 9031 and 30184 / 34172; HBVM(6,3) on
     * the solar system 48068 / 42865) */
    it->nystrom = nystrom_applies && (strcmp(form, "nystrom") == 0 ||
                                      (strcmp(form, "auto") == 0 && it->k == it->s));
    hbvm_shift_matrix(it);
    hbvm_restart(it);
    *inst = it;
    return WB_OK;
}

static int reset(void *inst, double t, const double *q, const double *p)
{
    hbvm *it = inst;
    (void)t;
    hbvm_restart(it);
    /* Newton's first guess for the multiplier; the fixed point needs none */
    if (it->m > 0 && wb_index1_multiplier(it->model, q, p, it->lambda) != WB_OK)
        for (int c = 0; c < it->m; c++)
            it->lambda[c] = 0.0;
    return WB_OK;
}

static int step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
                double *p1, wb_step_stats *stats)
{
    (void)t;
    return hbvm_solve_step(inst, h, q0, p0, q1, p1, stats);
}

static int start(void *inst, double t, double h, const double *q, const double *p,
                 const double *carried)
{
    hbvm *it = inst;
    if (!carried)
        return reset(inst, t, q, p);
    hbvm_restart(it);
    vec_copy(it->m, carried, it->lambda);
    vec_copy(it->n, q, it->start);
    vec_copy(it->n, p, it->start + it->n);
    wb_compensated_resume(&it->sum, 2 * it->n, it->start, carried + it->m);
    const double *path = carried + it->m + 2 * it->n, *valid = path + (size_t)it->s * it->n;
    it->history_valid = it->extrapolate && valid[0] != 0.0;
    if (it->history_valid) {
        vec_copy(it->s * it->n, path, it->x);
        it->last_h = h;
    }
    hbvm_resume_solver(it, valid + 1);
    return WB_OK;
}

static void aux_values(const void *inst, double *out)
{
    const hbvm *it = inst;
    vec_copy(it->m, it->lambda, out);
    wb_compensated_state(&it->sum, 2 * it->n, out + it->m);
    double *path = out + it->m + 2 * it->n, *valid = path + (size_t)it->s * it->n;
    for (int e = 0; e < it->s * it->n; e++)
        path[e] = it->history_valid ? it->x[e] : 0.0;
    valid[0] = it->history_valid;
    hbvm_solver_state(it, valid + 1);
}

/* Order 2 is what the method guarantees on every model it handles (with
 * constraints); 2s holds without constraints or with a constant
 * multiplier (order_doc).  H and g are conserved exactly only when the
 * quadrature is exact for them (polynomials of degree <= 2k/s, e.g.
 * quadratic g and V of degree <= 2 at every k >= s), else to O(h^2k):
 * hence CONSERVING_IF_POLYNOMIAL, not ENERGY_CONSERVING.  For k = s the
 * method is Gauss applied to H + lambda_n^T g with lambda_n frozen, which
 * conserves the quadratic momentum maps of linear symmetries of V and g
 * (e.g. Lz of a spherical pendulum) whatever their degree. */
static int describe(const wb_option_value *opts, wb_method_props *out)
{
    const int k = nodes_of(opts), s = (int)opts[OPT_S].number;
    if (k < s)
        return WB_ERR_INVALID;
    out->order = 2;
    out->multiplier_order = 1;
    out->flags = WB_PROP_SYMMETRIC | WB_PROP_CONSERVING_IF_POLYNOMIAL;
    if (k == s)
        out->flags |= WB_PROP_MOMENTUM_CONSERVING;
    return WB_OK;
}

/* Without holonomic constraints HBVM(k, s) is of order 2s (the line
 * integral's Gauss collocation); with them the piecewise-constant
 * multiplier makes it 2. */
static int describe_model(const wb_option_value *opts, const wb_model *model,
                          wb_method_props *out)
{
    int status = describe(opts, out);
    if (status == WB_OK && model->n_holonomic == 0)
        out->order = 2 * (int)opts[OPT_S].number;
    return status;
}

static const wb_method hbvm_method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "hbvm",
    .doc = "HBVM(k,s) line-integral method: conserves H and holonomic g (exact for "
           "polynomials of degree <= 2k/s), piecewise-constant multiplier",
    .options = options,
    .n_options = WB_ARRAY_COUNT(options),
    .requires = requires,
    .handles = WB_HANDLES_UNCONSTRAINED | WB_HANDLES_HOLONOMIC,
    .order_doc = "2 with holonomic constraints (2s when the multiplier is constant); 2s "
                 "without constraints; multiplier order 1 at t_n, 2 at t_n + h/2",
    .property_flags = WB_PROP_SYMMETRIC | WB_PROP_CONSERVING_IF_POLYNOMIAL |
                      WB_PROP_MOMENTUM_CONSERVING,
    .aux = aux,
    .n_aux = WB_ARRAY_COUNT(aux),
    .describe = describe,
    .validate = validate,
    .create = create,
    .destroy = destroy,
    .reset = reset,
    .start = start,
    .step = step,
    .aux_values = aux_values,
    .aux_blocks = aux_blocks,
    .describe_model = describe_model,
};

static const wb_method *const methods[] = {&hbvm_method};

WB_INTEGRATOR_PLUGIN("hbvm",
                     "Hamiltonian Boundary Value Methods HBVM(k,s), with holonomic constraints",
                     "HBVM(k,s) line-integral methods (energy and constraint conserving)",
                     methods);
