/* The `spark` family: the constrained Lobatto IIIA-IIIB pair for holonomic
 * constraints (Jay 1996; Hairer-Lubich-Wanner VII.1), for a constant mass
 * matrix:
 *
 *   Q_i = q0 + h sum_j a_ij M^-1 P_j                  (Lobatto IIIA)
 *   P_i = p0 - h sum_j ah_ij F_j,   F_j = grad V(Q_j) + G(Q_j)^T L_j   (IIIB)
 *   g(Q_i) = 0  for i = 2..s      (Q_1 = q0 holds it already)
 *   q1 = Q_s,   p1 = p0 - h sum_j b_j F_j,   G(q1) M^-1 p1 = 0.
 *
 * The method is symplectic, symmetric, of order 2s-2 in (q, p), and keeps
 * both g = 0 and G M^-1 p = 0 at every node.  With s = 2 it is RATTLE
 * (L_1 = RATTLE's lambda, L_2 = its mu).  Newton with the analytic
 * Jacobian solves a step; option stage_form picks its unknowns besides the
 * s multipliers L_i:
 *   positions  (the default) the second-order (Nystrom) form for the
 *              constant mass, spark_positions.c: P_j = p0 - h sum_k ah_jk F_k
 *              eliminated, the increments Q_i - q0 of the stages i = 2..s as
 *              unknowns (Q_1 = q0 is none), (s - 1) n + s m numbers;
 *   momenta    the stage momenta P_1..P_s, spark_momenta.c: s (n + m).
 * The trade is s momentum blocks for s - 1 position blocks: the spherical
 * pendulum (n = 3, m = 1) has 5, 9, 13 unknowns at s = 2, 3, 4 against 8,
 * 12, 16; a planar chain of N links (n = 2N, m = N) 7N against 9N at
 * s = 3.  Its Jacobian is also the cheaper to form: stage blocks
 * M / h + h W_ik K_k and h W_ik G_k^T (W = a ah) where the momenta form has
 * I + h^2 sum_j ah_ij a_jk K_j M^-1, and no M^-1 but in the hidden
 * constraint's row.  Full Newton takes the same iterations in both (the
 * same system in other coordinates; tests/lua/spark_stage_form.lua).
 * Two more eliminations are possible and not made: W's last column
 * vanishes (IIIB's does), so Q_s is explicit in F_1..F_(s-1) and could
 * leave the unknowns ((s - 2) n + s m: 6 for the pendulum at s = 3), but
 * g(Q_s) and the hidden constraint would then depend on every stage
 * through G(q1) M^-1 K_k and (B - h b_s G M^-1 K_s) M^-1 K_k, patterns of three
 * factors on the sparse path (wider bands for a chain); and L_s enters
 * the hidden constraint alone, an m x m solve after Newton that would
 * save m unknowns more.
 *
 * Option linear_solver (as RATTLE's) picks the Newton matrix's form:
 *   dense   dense products with M^-1 and G, LAPACK LU of the whole matrix:
 *           O(s^3 (n + m)^3) a step;
 *   sparse  the model declares G, the Hessian of V and T(q; L) in
 *           patterns and a diagonal mass (wb.sparsity/1): the matrix is
 *           assembled block by block in its nonzeros (stage blocks in the
 *           pattern of Hess V + T, the mass, G, G^T, G (Hess V + T) and
 *           G G^T) and solved by the host's sparse LU (banded after reverse
 *           Cuthill-McKee): O(s^3 nnz) a step, O(N) for a chain.
 *
 * Option iteration.  With constraints a fixed point does not solve the
 * index-3 system, so the choice is among Newton iterations:
 *   auto        (the default) simplified Newton on the factors of the last
 *               Jacobian, kept from step to step by the host's workspace
 *               (wb_newton_options.keep_jacobian) while the step size
 *               stays; the host forms a new one at the current iterate when
 *               an update cuts the residual by less than REFRESH_RATE above
 *               its round-off floor (refresh_rate, counted in
 *               sol.stats.jacobian_refreshes), and a solve that fails all
 *               the same is redone by full Newton from the step's guess
 *               (counted there too);
 *   newton      a Jacobian and LU every update, quadratic convergence;
 *   simplified  one Jacobian at the first iterate of every step.
 * The kept Jacobian's point (unknowns, q0, p0, h) is carried state, so a
 * run continued from its last row forms the same factors and continues bit
 * for bit.
 *
 * Measured: callgrind Ir a step (bench/spark_iteration.lua), Jacobians a
 * step in brackets, newton / simplified / auto, h = 0.01 (chains 1e-3),
 * s = 3 but where said:
 *   spherical pendulum s = 2   positions 23.3k (2.0) / 18.1k (1) / 22.8k (0.30)
 *                              momenta   38.8k / 27.3k / 30.6k
 *   spherical pendulum s = 3   positions 42.6k (1.94) / 28.1k / 30.1k (0.30)
 *                              momenta   67.7k / 42.2k / 42.3k
 *   spherical pendulum s = 4   positions 38.8k (1.0) / 38.8k / 37.3k (0.30)
 *                              momenta   59.4k / 59.5k / 61.0k
 *   double sph. pendulum       positions 119k (2.0) / 71.0k / 69.7k (0.46)
 *                              momenta   213k / 121k / 109k
 *   pendulum_chain N = 10,     positions 1.88M (1.66) / 1.20M / 0.264M (0.017)
 *   dense (70, 90 unknowns)    momenta   4.80M / 2.47M / 0.392M
 *   pendulum_chain N = 100,    positions 4.63M (2.01) / 2.84M / 1.51M (0.025)
 *   sparse                     momenta   7.18M / 4.31M / 2.21M
 * On the spherical pendulum's few unknowns an update on kept factors (a
 * residual and LAPACK's dgetrs) costs a third of a Jacobian and its LU,
 * and auto's extra updates (5 .. 6 a step against 2) eat what the kept LU
 * saves: there simplified is as cheap or cheaper.  REFRESH_RATE: 0.05,
 * 0.1, 0.2, 0.4 (positions) give the spherical pendulum s = 3 29.3k,
 * 30.1k, 34.5k, 44.7k, the double pendulum 74.3k, 69.7k, 70.3k, 80.8k,
 * chain N = 10 259k, 264k, 281k, 271k; chain N = 100 1.51M for all. */
#include "spark_internal.h"

#include "wb_integrator_plugin.h"
#include "wb_iteration.h"
#include "wb_mass.h"
#include "wb_residual_scale.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* iteration = auto: kept factors are renewed (the host's refresh_rate) once
 * an update cuts the residual by less than this factor (see the header) */
static const double REFRESH_RATE = 0.1;

enum {
    OPT_S, OPT_TOL, OPT_MAX_ITER, OPT_ITERATION, OPT_STEP_TOL, OPT_LINEAR_SOLVER, OPT_START,
    OPT_STAGE_FORM
};
/* the aux groups, in the order of aux[] */
enum { AUX_LAMBDA, AUX_START, AUX_START_VALID, AUX_JACOBIAN_POINT, AUX_JACOBIAN_STATE };
static const wb_option_spec options[] = {
    {"s", WB_OPT_INTEGER, 3, 2, 8, NULL, NULL,
     "stages of the Lobatto IIIA-IIIB pair: order 2s-2 (s = 2 is RATTLE)"},
    {"tol", WB_OPT_NUMBER, 1e-12, 1e-16, 1e-3, NULL, NULL,
     "Newton tolerance on the residuals (momenta, g/h, G M^-1 p1; relative to the size "
     "of a residual's terms where they are below 1, stopping at their round-off)"},
    {"max_iter", WB_OPT_INTEGER, 50, 1, 1000, NULL, NULL, "Newton iterations per step"},
    {"iteration", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|newton|simplified",
     "auto: simplified Newton on the LU of the last Jacobian, kept across steps and renewed "
     "when an update cuts the residual by less than 0.1 (sol.stats.jacobian_refreshes), full "
     "Newton from the step's guess if that fails; newton: full Newton; simplified: a new "
     "Jacobian every step"},
    {"step_tol", WB_OPT_NUMBER, 0, 0, 1e-3, NULL, NULL,
     "also converged when the Newton update is below step_tol (1 + |x|); 0 uses the "
     "residual test alone.  Under full Newton, whose last update overshoots, 1e-15 iterates "
     "to machine precision; auto and simplified meet the residual test first: tol = 1e-16 "
     "iterates them to round-off"},
    WB_LINEAR_SOLVER_OPTION("G, Hess V and T(q; L) in patterns and a diagonal mass; the "
                            "Newton matrix assembled in its nonzeros"),
    {"start", WB_OPT_CHOICE, 0, 0, 0, "extrapolate", "extrapolate|plain",
     "Newton starts from the last step's stage forces and multipliers extrapolated (their "
     "Lagrange polynomials at the next step's nodes, the momenta from the forces), or "
     "(plain) from P_i = p0 and every L_i the last L_s"},
    {"stage_form", WB_OPT_CHOICE, 0, 0, 0, "positions", "positions|momenta",
     "Newton's unknowns besides the s multipliers: the stage positions Q_2..Q_s (the "
     "second-order form, (s - 1) n + s m unknowns) or the stage momenta P_1..P_s (s (n + m))"},
};

static const char *const requires[] = {WB_EXT_MECHANICAL, WB_EXT_HOLONOMIC, NULL};

/* L_s is also every stage multiplier's guess in the next step (plain
 * start); the stages are the extrapolated start's: state. */
static const wb_aux_spec aux[] = {
    {.name = "lambda", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_AT_NODE,
     .doc = "the last stage multiplier L_s, which acts at the step's end"},
    {.name = "start", .size_kind = WB_AUX_VELOCITY_BLOCKS, .time = WB_AUX_AT_NODE,
     .doc = "the last step's stage forces F_j = grad V(Q_j) + G(Q_j)^T L_j (s blocks), then "
            "its multipliers L_j (s m values in s blocks): the next step's extrapolated start",
     .flags = WB_AUX_UNRECORDED},
    {.name = "start_valid", .size_kind = WB_AUX_FIXED, .size = 1, .time = WB_AUX_AT_NODE,
     .doc = "1 when start holds the step that ended here", .flags = WB_AUX_UNRECORDED},
    {.name = "jacobian_point", .size_kind = WB_AUX_VELOCITY_BLOCKS, .time = WB_AUX_AT_NODE,
     .doc = "iteration = auto: where the kept Jacobian was evaluated, its unknowns (the stage "
            "form's, then L_j), q0 and p0 (2 s + 2 blocks, zero-padded)",
     .flags = WB_AUX_UNRECORDED},
    {.name = "jacobian_state", .size_kind = WB_AUX_FIXED, .size = 2, .time = WB_AUX_AT_NODE,
     .doc = "1 when a Jacobian is kept (auto), and its step size", .flags = WB_AUX_UNRECORDED},
};

/* start: 2 s blocks of nv (the L_j fit in s of them: m <= n); the
 * Jacobian's point 2 more, for q0 and p0. */
static uint32_t aux_blocks(const wb_option_value *opts, uint32_t group)
{
    const uint32_t s = (uint32_t)opts[OPT_S].number;
    return group == AUX_START ? 2u * s : group == AUX_JACOBIAN_POINT ? 2u * s + 2u : 0u;
}

/* ---- the method ---------------------------------------------------------------------- */

static void destroy(void *inst)
{
    spark *k = inst;
    if (!k)
        return;
    if (k->newton)
        k->host->newton_destroy(k->host, k->newton);
    free(k->extrapolation);
    free(k->first_grad);
    spark_free_sparse(k);
    free(k->x);
    free(k);
}

/* One block of doubles, owned by x, carved into the arrays; the dense
 * path's matrices are empty on the sparse one. */
static int allocate(spark *k, int sparse)
{
    const size_t n = (size_t)k->n, m = (size_t)k->m, s = (size_t)k->s, N = (size_t)k->size;
    const size_t nn = sparse ? 0 : n * n, mn = sparse ? 0 : m * n, mm = sparse ? 0 : m * m;
    const size_t doubles = 5 * N + 2 * n + 2 * nn + 4 * s * n + s * mn + s * nn + 2 * nn +
                           2 * n + 4 * mn + mm + s * s + s;
    k->x = calloc(doubles, sizeof(double));
    if (!sparse)
        k->newton = k->host->newton_create(k->host, k->size);
    if (!k->x || (!sparse && !k->newton))
        return WB_ERR_NOMEM;
    double *p = k->x + N;
    k->saved = p, p += N;
    k->scale = p, p += N;
    k->guess = p, p += N;
    k->kept = p, p += N + 2 * n;
    k->Minv = p, p += nn;
    k->M = p, p += nn;
    k->V = p, p += s * n;
    k->momenta = p, p += s * n;
    k->W = p, p += s * s;
    k->c = p, p += s;
    k->Q = p, p += s * n;
    k->F = p, p += s * n;
    k->G = p, p += s * mn;
    k->KM = p, p += s * nn;
    k->hess = p, p += nn;
    k->T = p, p += nn;
    k->v = p, p += n;
    k->p1 = p, p += n;
    k->B = p, p += mn;
    k->BM = p, p += mn;
    k->GM = p, p += mn;
    k->GMKM = p, p += mn;
    k->GG = p;
    return WB_OK;
}

/* W = a ah and c_i = sum_j a_ij (the positions form's). */
static void tableau_products(spark *k)
{
    const int s = k->s;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) {
            double w = 0.0;
            for (int l = 0; l < s; l++)
                w += k->a[i * s + l] * k->ah[l * s + j];
            k->W[i * s + j] = w;
            k->c[i] += k->a[i * s + j];
        }
}

static int create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                  void **inst)
{
    int status = wb_require_constant_mass(host, model, "spark");
    if (status != WB_OK)
        return status;
    const int sparse = wb_sparse_choose(host, model, opts[OPT_LINEAR_SOLVER].string,
                                        WB_SPARSE_NEEDS_HESSIANS, "spark");
    if (sparse < 0)
        return WB_ERR_INVALID;
    const int s = (int)opts[OPT_S].number;
    const wb_tableau *pair = host->tableau_family(host, "lobatto_iiia_iiib", s);
    if (!pair)
        return WB_ERR_INVALID;
    if (pair->s != s || !pair->a2 || s > SPARK_MAX_S) {
        host->error(host, "spark: the host's Lobatto IIIA-IIIB pair has %d stages%s, "
                          "expected a pair of %d", pair->s, pair->a2 ? "" : " and no a2", s);
        return WB_ERR_INVALID;
    }
    spark *k = calloc(1, sizeof *k);
    if (!k) {
        host->error(host, "spark: out of memory");
        return WB_ERR_NOMEM;
    }
    k->host = host, k->model = model, k->n = model->nq, k->m = model->n_holonomic, k->s = s;
    k->form = opts[OPT_STAGE_FORM].string[0] == 'm' ? &spark_momenta : &spark_positions;
    k->blocks = k->form->blocks(s);
    k->size = k->blocks * k->n + s * k->m;
    k->a = pair->a, k->ah = pair->a2, k->b = pair->b;
    host->newton_defaults(host, &k->newton_options);
    k->newton_options.tol = opts[OPT_TOL].number;
    k->newton_options.max_iter = (int)opts[OPT_MAX_ITER].number;
    const char *iteration = opts[OPT_ITERATION].string;
    k->iteration = iteration[0] == 'a'   ? ITERATION_AUTO
                   : iteration[0] == 's' ? ITERATION_SIMPLIFIED
                                         : ITERATION_NEWTON;
    k->newton_options.simplified = k->iteration != ITERATION_NEWTON;
    k->newton_options.step_tol = opts[OPT_STEP_TOL].number;
    k->newton_options.struct_size = sizeof k->newton_options; /* with the 1.2, 1.5 members */
    k->newton_options.refresh_rate = k->iteration == ITERATION_AUTO ? REFRESH_RATE : 0.0;
    status = allocate(k, sparse);
    if (status == WB_OK)
        tableau_products(k);
    if (status == WB_OK && sparse)
        status = spark_create_sparse(k);
    if (status != WB_OK) {
        destroy(k);
        if (status == WB_ERR_NOMEM)
            host->error(host, "spark: out of memory%s", sparse ? " for the sparse structure" : "");
        return status;
    }
    k->newton_options.residual_scale = k->scale;
    /* s = 2 (RATTLE) too: through the forces, the straight line is a
     * better guess (spherical pendulum, full Newton: 2.0 iterations a step
     * against 3.0 plain at h = 0.01, 2.9 against 3.0 at h = 0.05; through
     * the momenta it was 3.5 against 3.0 at h = 0.05) */
    k->extrapolate = strcmp(opts[OPT_START].string, "extrapolate") == 0 && k->m <= k->n;
    k->extrapolation = calloc(2 * (size_t)s * s + (size_t)s * k->n + 2 * (size_t)k->n,
                              sizeof(double));
    if (!k->extrapolation) {
        destroy(k);
        host->error(host, "spark: out of memory");
        return WB_ERR_NOMEM;
    }
    k->first_G_size = sparse ? (size_t)k->sp.G->nnz : (size_t)k->m * k->n;
    k->first_grad = calloc(2 * (size_t)k->n + k->first_G_size, sizeof(double));
    if (!k->first_grad) {
        destroy(k);
        host->error(host, "spark: out of memory");
        return WB_ERR_NOMEM;
    }
    k->first_q = k->first_grad + k->n;
    k->first_G = k->first_q + k->n;
    k->force_extrapolation = k->extrapolation + (size_t)s * s;
    k->forces = k->force_extrapolation + (size_t)s * s;
    k->last = k->forces + (size_t)s * k->n;
    for (int i = 0; i < s; i++) /* the Lobatto nodes are distinct */
        for (int j = 0; j < s; j++) {
            double l = 1.0;
            for (int c = 0; c < s; c++)
                if (c != j)
                    l *= (1.0 + pair->c[i] - pair->c[c]) / (pair->c[j] - pair->c[c]);
            k->extrapolation[i * s + j] = l;
        }
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++)
            for (int l = 0; l < s; l++)
                k->force_extrapolation[i * s + j] += k->ah[i * s + l] * k->extrapolation[l * s + j];
    if (!sparse) { /* Q (s >= 2 stages) is free until a step */
        wb_constant_inverse_mass(model, k->Q, k->Minv);
        wb_mass(model, k->Q, k->M); /* constant: any q */
    }
    *inst = k;
    return WB_OK;
}

static int reset(void *inst, double t, const double *q, const double *p)
{
    spark *k = inst;
    (void)t;
    k->history_valid = 0;
    k->kept_valid = 0, k->reform = 0;
    k->first_valid = 0;
    double *L = spark_stage_L(k, k->x, 0);
    if (wb_index1_multiplier(k->model, q, p, L) != WB_OK)
        for (int c = 0; c < k->m; c++)
            L[c] = 0;
    for (int i = 1; i < k->s; i++)
        vec_copy(k->m, L, spark_stage_L(k, k->x, i));
    return WB_OK;
}

/* The plain start reads only L_s of the previous step (its guess for every
 * L_i), the extrapolated one all its stages. */
static int start(void *inst, double t, double h, const double *q, const double *p,
                 const double *carried)
{
    spark *k = inst;
    if (!carried)
        return reset(inst, t, q, p);
    const int n = k->n, m = k->m, s = k->s;
    const double *stages = carried + m, *valid = stages + 2 * (size_t)s * n;
    const double *point = valid + 1, *state = point + (2 * (size_t)s + 2) * n;
    k->first_valid = 0;
    for (int i = 0; i < s; i++)
        vec_copy(m, carried, spark_stage_L(k, k->x, i));
    /* the kept factors are formed again at their point before they are used */
    k->kept_valid = k->reform = k->iteration == ITERATION_AUTO && m <= n && state[0] != 0.0;
    if (k->kept_valid) {
        vec_copy(k->size + 2 * n, point, k->kept);
        k->kept_h = state[1];
    }
    k->history_valid = k->extrapolate && valid[0] != 0.0;
    if (k->history_valid) {
        vec_copy(s * n, stages, k->forces);
        vec_copy(s * m, stages + (size_t)s * n, spark_stage_L(k, k->x, 0));
        vec_copy(n, q, k->last);
        vec_copy(n, p, k->last + n);
        k->last_h = h;
    }
    return WB_OK;
}

/* The first iterate: the last step's forces and multipliers extrapolated
 * when they are those of the step that ended at (q0, p0) with this h, else
 * P_i = p0 and every L_i = the last L_s; the form takes its unknowns from
 * those momenta.  x is kept in k->saved. */
static int first_guess(spark *k, double h, const double *q0, const double *p0, int extrapolate)
{
    const int n = k->n, m = k->m, s = k->s;
    vec_copy(k->size, k->x, k->saved);
    const int continuing = extrapolate && k->history_valid && h == k->last_h &&
                           vec_equal(n, q0, k->last) && vec_equal(n, p0, k->last + n);
    for (int i = 0; i < s; i++) {
        double *Pi = k->momenta + (size_t)i * n, *Li = spark_stage_L(k, k->x, i);
        vec_copy(n, p0, Pi);
        if (!continuing) {
            vec_copy(m, spark_stage_L(k, k->saved, s - 1), Li);
            continue;
        }
        for (int c = 0; c < m; c++)
            Li[c] = 0.0;
        for (int j = 0; j < s; j++) {
            vec_axpy(n, -h * k->force_extrapolation[i * s + j], k->forces + (size_t)j * n, Pi);
            vec_axpy(m, k->extrapolation[i * s + j], spark_stage_L(k, k->saved, j), Li);
        }
    }
    k->form->from_momenta(k, k->momenta, k->x);
    return continuing;
}

/* The size of each residual row's terms at (q0, p0): momenta |p0| + h |F|
 * with F's constraint forces G^T L at the guess L, whose terms are
 * |G(q0)|^T |L| and, G being made of coordinates (their differences for a
 * chain, whose tensions grow with N), |T(q0; L)| |q0|; g(Q_i) / h from
 * G(q0) |q0| / h,
 * and G(q1) M^-1 p1 from G(q0) |M^-1| times the momentum size.  grad V(q0)
 * and G(q0) are stage 1's (spark_first_stage: evaluated once for the step);
 * k->sp.Tv and k->v are free until the Newton solve. */
static void row_scales(spark *k, double h, const double *q0, const double *p0)
{
    const int n = k->n, m = k->m, s = k->s;
    const double *L = spark_stage_L(k, k->x, s - 1);
    k->stats->function_evals += (uint64_t)spark_first_stage(k, q0);
    const double *G0 = k->first_G;
    double momentum = wb_momentum_scale_of(k->model, p0, h, k->first_grad);
    double *rows = k->scale + (size_t)k->blocks * n, *hidden = rows + (size_t)(s - 1) * m;
    double minv = 0.0; /* |M^-1| in the max norm */
    double *force = k->v;
    for (int i = 0; i < n; i++)
        force[i] = 0.0;
    const double q_size = wb_scale_max_abs(n, q0);
    const spark_sparse *sp = &k->sp;
    if (sp->ext) {
        const wb_sparse_pattern *G = sp->G, *T = sp->T;
        for (int c = 0; c < m; c++)
            for (int e = G->row_start[c]; e < G->row_start[c + 1]; e++)
                force[G->columns[e]] += fabs(G0[e] * L[c]);
        sp->ext->hessian_contract_values(sp->self, q0, L, sp->Tv);
        for (int i = 0; i < n; i++)
            for (int e = T->row_start[i]; e < T->row_start[i + 1]; e++)
                force[i] += fabs(sp->Tv[e]) * q_size;
        minv = wb_scale_max_abs(n, sp->inverse_mass) * n;
    } else {
        for (int c = 0; c < m; c++)
            for (int i = 0; i < n; i++)
                force[i] += fabs(G0[(size_t)c * n + i] * L[c]);
        wb_constraint_hessian_contract(k->model, q0, L, k->T);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                force[i] += fabs(k->T[(size_t)i * n + j]) * q_size;
        for (int i = 0; i < n; i++)
            minv = fmax(minv, wb_scale_max_abs(n, k->Minv + (size_t)i * n) * n);
    }
    momentum += fabs(h) * wb_scale_max_abs(n, force);
    for (int r = 0; r < k->blocks * n; r++)
        k->scale[r] = momentum;
    if (sp->ext) {
        wb_sparse_row_scales(sp->G, G0, q_size, fabs(h), rows);
        wb_sparse_row_scales(sp->G, G0, minv * momentum, 1.0, hidden);
    } else {
        wb_constraint_row_scales(m, n, G0, q_size, fabs(h), rows);
        wb_constraint_row_scales(m, n, G0, minv * momentum, 1.0, hidden);
    }
    for (int i = 2; i < s; i++)
        vec_copy(m, rows, rows + (size_t)(i - 1) * m);
}

static int newton(spark *k, wb_step_stats *stats)
{
    return k->host->newton_solve(k->host, k->newton, spark_residual, spark_jacobian, k, k->x,
                                 &k->newton_options, stats, NULL);
}

/* auto: the kept factors serve when they are those of a Jacobian at this
 * step size; after a resumed run they are formed again at their point. */
static void choose_factors(spark *k)
{
    const int fits = k->kept_valid && k->kept_h == k->h;
    k->reform = k->reform && fits;
    k->newton_options.keep_jacobian = fits && !k->reform;
}

static void count_refresh(wb_step_stats *stats)
{
    if (WB_HAS_FIELD(stats, wb_step_stats, jacobian_refreshes))
        stats->jacobian_refreshes++;
}

/* Newton from the guess in x.  auto: simplified on the kept factors (the
 * host renews them when they contract too slowly), then full Newton from
 * the same guess if that fails.  A failed solve may leave the workspace
 * without factors: none are kept after one. */
static int solve(spark *k, wb_step_stats *stats)
{
    if (k->iteration != ITERATION_AUTO)
        return newton(k, stats);
    vec_copy(k->size, k->x, k->guess);
    choose_factors(k);
    int status = newton(k, stats);
    if (status == WB_OK)
        return WB_OK;
    k->kept_valid = 0, k->reform = 0;
    count_refresh(stats);
    vec_copy(k->size, k->guess, k->x);
    k->newton_options.simplified = 0;
    status = newton(k, stats);
    k->newton_options.simplified = 1;
    if (status != WB_OK)
        k->kept_valid = 0;
    return status;
}

static int step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
                double *p1, wb_step_stats *stats)
{
    spark *k = inst;
    (void)t;
    k->h = h, k->q0 = q0, k->p0 = p0, k->stats = stats;
    const int extrapolated = first_guess(k, h, q0, p0, k->extrapolate);
    row_scales(k, h, q0, p0);
    int status = solve(k, stats);
    if (status != WB_OK && extrapolated) { /* an extrapolation can mislead: once more, plain */
        vec_copy(k->size, k->saved, k->x);
        first_guess(k, h, q0, p0, 0);
        row_scales(k, h, q0, p0);
        status = solve(k, stats);
    }
    if (status != WB_OK) {
        vec_copy(k->size, k->saved, k->x);
        return status;
    }
    wb_count_iteration_step(stats, 0);
    /* newton_solve returns WB_OK right after the residual at the returned x:
     * Q and p1 are that x's */
    vec_copy(k->n, k->Q + (size_t)(k->s - 1) * k->n, q1);
    vec_copy(k->n, k->p1, p1);
    vec_copy(k->s * k->n, k->F, k->forces);
    vec_copy(k->n, q1, k->last);
    vec_copy(k->n, p1, k->last + k->n);
    k->last_h = h, k->history_valid = k->extrapolate;
    return WB_OK;
}

static void aux_values(const void *inst, double *out)
{
    spark *k = (spark *)inst;
    const int n = k->n, m = k->m, s = k->s;
    vec_copy(m, spark_stage_L(k, k->x, s - 1), out);
    double *stages = out + m, *valid = stages + 2 * (size_t)s * n;
    for (size_t e = 0; e < 2 * (size_t)s * n; e++)
        stages[e] = 0.0;
    if (k->history_valid) {
        vec_copy(s * n, k->forces, stages);
        vec_copy(s * m, spark_stage_L(k, k->x, 0), stages + (size_t)s * n);
    }
    valid[0] = k->history_valid;
    double *point = valid + 1, *state = point + (2 * (size_t)s + 2) * n;
    const int carried = k->kept_valid && m <= n; /* m > n: the point does not fit */
    for (size_t e = 0; e < (2 * (size_t)s + 2) * n; e++)
        point[e] = 0.0;
    if (carried)
        vec_copy(k->size + 2 * n, k->kept, point);
    state[0] = carried, state[1] = carried ? k->kept_h : 0.0;
}

static int describe(const wb_option_value *opts, wb_method_props *out)
{
    out->order = 2 * (int)opts[OPT_S].number - 2;
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING |
                 WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT;
    return WB_OK;
}

static const wb_method spark_method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "spark",
    .doc = "constrained Lobatto IIIA-IIIB (Jay; HLW VII.1): symplectic, order 2s-2",
    .options = options,
    .n_options = WB_ARRAY_COUNT(options),
    .requires = requires,
    .handles = WB_HANDLES_HOLONOMIC,
    .order_doc = "2s-2",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING |
                      WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT,
    .aux = aux,
    .n_aux = WB_ARRAY_COUNT(aux),
    .describe = describe,
    .create = create,
    .destroy = destroy,
    .reset = reset,
    .start = start,
    .step = step,
    .aux_values = aux_values,
    .aux_blocks = aux_blocks,
};

static const wb_method *const methods[] = {&spark_method};

WB_INTEGRATOR_PLUGIN("spark", "constrained Lobatto IIIA-IIIB for holonomic constraints",
                     "constrained Lobatto IIIA-IIIB (SPARK) for holonomic constraints", methods);
