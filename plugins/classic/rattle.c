/* SHAKE and RATTLE (Hairer-Lubich-Wanner VII.1.4) for a constant mass
 * matrix, q' = M^-1 p, p' = -grad V - G^T lambda, g(q) = 0:
 *
 *   p_{1/2} = p0 - h/2 (grad V(q0) + G(q0)^T lambda)
 *   q1      = q0 + h M^-1 p_{1/2},          g(q1) = 0       (Newton, m unknowns)
 *   p1      = p_{1/2} - h/2 (grad V(q1) + G(q1)^T mu)
 *
 * RATTLE chooses mu so that G(q1) M^-1 p1 = 0 (a linear m x m solve): it is
 * symplectic, symmetric, of order 2, with both constraint levels at the
 * nodes.  SHAKE, written as a one-step method, reuses mu = lambda: the
 * positions are SHAKE's, the velocity constraint is not imposed (it holds
 * to O(h^2) only).  So SHAKE's velocity across g = 0 comes from g(q1) = 0
 * alone, and where Newton corrects q0's round-off off g = 0 (eps |q|
 * across it; at tol below g's round-off) that becomes a velocity error
 * c eps |q| / h, c ~ 0.3 .. 5 over 20 steps (tests/ggl/round_off_velocity.lua;
 * EM-G removes its own, plugins/ggl/em.c).
 *
 * Both m x m systems have the matrix G(q) M^-1 G(q')^T.  Option
 * linear_solver picks how they are solved, at create time:
 *   dense   G as an m x n matrix, LAPACK LU of the m x m matrices:
 *           O(m^2 n) a step;
 *   sparse  the model declares G's pattern and a diagonal mass
 *           (wb.sparsity/1): G and W = M^-1 G^T live in G's nonzeros, the
 *           matrices in the pattern of G G^T, solved by the host's sparse
 *           LU (banded after reverse Cuthill-McKee): O(nnz) a step for a
 *           chain.  The Newton iteration is the host's in both.
 *
 * M^-1 is taken once, at create time, when M is diagonal (declared by
 * wb.sparsity/1, or probed through the model's solve): a step scales by it
 * instead of calling the model.  One constraint on the dense path (m = 1,
 * a pendulum) has a step of its own: the same operations with the 1x1
 * Newton iteration and solve written out and n = 2, 3 compiled as constants.
 *
 * A model with wb.holonomic_point/1 (ABI 1.4) gives grad V, g and G at a
 * point in one call: the one-constraint step then makes one call per Newton
 * residual (its G is the Newton matrix's, and at the solution G(q1) and
 * grad V(q1) are the next step's start values), two a step for a pendulum
 * instead of five.  The numbers are the same (option combined_evaluation =
 * false makes the separate calls, for comparison).  When the model also
 * has that extension's project() (ABI 1.7), the model runs the Newton
 * iteration itself on its own evaluation, compiled into the loop: one call
 * a step, the same operations and so the same numbers (model_projection =
 * false keeps the iteration here).  The calls are most of what the model
 * boundary costs: each passes the trial point through memory into code the
 * compiler cannot see and spills every live register around it. */
#include "classic.h"
#include "wb_array.h"
#include "wb_mass.h"
#include "wb_residual_scale.h"
#include "wb_sparse_method.h"
#include "wb_vec.h"

#include <workbench/holonomic_projection.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* G, W = M^-1 G^T and the m x m matrices in G's sparsity (linear_solver =
 * sparse); NULL ext: the dense path. */
typedef struct sparse_rows {
    const wb_sparsity_ext *ext;
    void *self;                 /* the model instance                          */
    const wb_sparse_pattern *G; /* the model's pattern of G                    */
    wb_csr Gt;                  /* its transpose; Gt_origin[e] = G's entry     */
    int *Gt_origin;
    wb_csr S;                   /* the pattern of G G^T (and the diagonal)     */
    wb_sparse_lu *lu;           /* the velocity multiplier's LU                */
    int *mark;                  /* m                                           */
    double *values;             /* one block for the arrays below              */
    double *inverse_mass;       /* n                                           */
    double *Wt;                 /* W^T's values in Gt's pattern                */
    double *Sv;                 /* S's values                                  */
} sparse_rows;

typedef struct rattle rattle;
/* One step of the instance's kind, chosen at create time. */
typedef int (*rattle_step_fn)(rattle *r, double h, const double *q0, const double *p0,
                              double *q1, double *p1, wb_step_stats *stats);

struct rattle {
    rattle_step_fn step;
    const wb_host *host;
    const wb_model *model;
    int n, m;
    int project_velocity;       /* 1 RATTLE, 0 SHAKE */
    wb_newton *newton;
    wb_newton_options newton_options;
    double h;                   /* step of the current Newton solve */
    /* per-step work, allocated once */
    double *drift;              /* q0 + h M^-1 (p0 - h/2 grad V(q0)) */
    double *W;                  /* M^-1 G(q)^T for the cached q, column k contiguous */
    double *q1, *G1;            /* trial position, G(q1) */
    double *grad0, *G0;         /* grad V and G at the step's start (FSAL cache) */
    double *cached_q;           /* the q that grad0, G0 and W belong to */
    int cache_valid;
    double *half, *tmp, *S, *lambda, *mu, *saved_lambda;
    double *trial_lambda;       /* the lambda that q1 belongs to, when trial_valid */
    int trial_valid;
    double *scale;              /* the sizes of g_k's terms at q0 (Newton's test) */
    int *pivots;
    sparse_rows sparse;         /* W, G0, G1 are values in G's pattern when set */
    int one_constraint;         /* m = 1, dense: step_one_constraint */
    int combined;               /* ... through the model's holonomic_point:
                                   EVALUATE_POINT, or EVALUATE_PROJECTION for
                                   Newton by its project() */
    double *grad1;              /* grad V at Newton's trial position (combined) */
    const double *minv_diagonal; /* M^-1's diagonal (n) when M is diagonal, else NULL */
};

static rattle_step_fn choose_step(const rattle *r);

/* Models up to this size have their constant mass probed for a diagonal at
 * create time (O(n^2)); larger ones on the dense path keep the model's solve. */
enum { PROBED_MASS_MAX = 512 };

enum { OPT_TOL, OPT_MAX_ITER, OPT_LINEAR_SOLVER, OPT_COMBINED, OPT_PROJECTION };

/* How the one-constraint step evaluates the model (a constant of each
 * compiled variant). */
enum { EVALUATE_SEPARATE = 0, EVALUATE_POINT = 1, EVALUATE_PROJECTION = 2 };
static const wb_option_spec options[] = {
    {"tol", WB_OPT_NUMBER, 1e-12, 1e-16, 1e-2, NULL, NULL,
     "Newton tolerance on max |g(q1)| (relative to the size of g's terms, |q|^2 for "
     "|q|^2 - l^2, where they are below 1; stopping at their round-off)"},
    {"max_iter", WB_OPT_INTEGER, 50, 1, 1000, NULL, NULL, "Newton iterations per step"},
    WB_LINEAR_SOLVER_OPTION("G's pattern and a diagonal mass; G M^-1 G^T in the pattern of "
                            "G G^T"),
    {"combined_evaluation", WB_OPT_BOOLEAN, 1, 0, 1, NULL, NULL,
     "one model call for grad V, g and G at a point when the model has wb.holonomic_point/1 "
     "(one constraint, dense): the same numbers as separate calls, fewer calls a step"},
    {"model_projection", WB_OPT_BOOLEAN, 1, 0, 1, NULL, NULL,
     "with combined_evaluation, the one-constraint Newton iteration run by the model on its "
     "own point evaluation when it has wb.holonomic_point/1's project() (ABI 1.7): the same "
     "numbers, one model call a step"},
};

static const char *const requires[] = {WB_EXT_MECHANICAL, WB_EXT_HOLONOMIC, NULL};

/* lambda is also the next step's first Newton guess: it is state. */
static const wb_aux_spec shake_aux[] = {
    {.name = "lambda", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_ON_INTERVAL,
     .doc = "position multiplier of the step (enters both half kicks)"},
};

static const wb_aux_spec rattle_aux[] = {
    {.name = "lambda", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_ON_INTERVAL,
     .doc = "position multiplier of the step (first half kick)"},
    {.name = "mu", .size_kind = WB_AUX_HOLONOMIC, .time = WB_AUX_AT_NODE,
     .doc = "velocity multiplier at the step's end (second half kick)"},
};

static void destroy(void *inst)
{
    rattle *r = inst;
    if (!r)
        return;
    if (r->newton)
        r->host->newton_destroy(r->host, r->newton);
    sparse_rows *sp = &r->sparse;
    wb_csr_free(&sp->Gt);
    free(sp->Gt_origin);
    wb_csr_free(&sp->S);
    if (sp->lu)
        r->host->sparse_lu_destroy(r->host, sp->lu);
    free(sp->mark);
    free(sp->values);
    free(r->drift);
    free(r->pivots);
    free(r);
}

/* The sparse structure: G's pattern from the model, its transpose, the
 * pattern of G G^T and its LUs; W, G0 and G1 become values in G's pattern. */
static int create_sparse(rattle *r)
{
    sparse_rows *sp = &r->sparse;
    const wb_host *host = r->host;
    const int n = r->n, m = r->m;
    const char *missing;
    sp->ext = wb_sparse_usable(host, r->model, 0, &missing);
    sp->self = r->model->model_self;
    sp->G = sp->ext->jacobian_pattern(sp->self);
    if (wb_sparse_check_pattern(host, r->model, sp->G, m, n, "G", "rattle") != WB_OK)
        return WB_ERR_INVALID;
    const size_t nnz = (size_t)sp->G->nnz;
    if (wb_csr_transpose(sp->G, &sp->Gt, &sp->Gt_origin) != 0 ||
        wb_csr_product_pattern(sp->G, &sp->Gt.pattern, 1, &sp->S) != 0)
        return WB_ERR_NOMEM;
    sp->mark = calloc((size_t)m + 1, sizeof(int));
    sp->values = calloc(4 * nnz + (size_t)n + (size_t)sp->S.pattern.nnz + 1, sizeof(double));
    if (!sp->mark || !sp->values)
        return WB_ERR_NOMEM;
    r->W = sp->values;
    r->G0 = r->W + nnz;
    r->G1 = r->G0 + nnz;
    sp->Wt = r->G1 + nnz;
    sp->inverse_mass = sp->Wt + nnz;
    sp->Sv = sp->inverse_mass + n;
    /* M is constant (wb_require_constant_mass): its diagonal at any q */
    if (wb_sparse_inverse_mass(host, r->model, sp->ext, r->drift, sp->inverse_mass, "rattle") !=
        WB_OK)
        return WB_ERR_INVALID;
    sp->lu = host->sparse_lu_create(host, &sp->S.pattern);
    r->newton = host->newton_create_sparse(host, &sp->S.pattern);
    return sp->lu && r->newton ? WB_OK : WB_ERR_NOMEM;
}

static int create_common(const wb_host *host, const wb_model *model,
                         const wb_option_value *opts, void **inst, int project_velocity)
{
    const char *who = project_velocity ? "RATTLE" : "SHAKE";
    int status = wb_require_constant_mass(host, model, who);
    if (status != WB_OK)
        return status;
    const int sparse = wb_sparse_choose(host, model, opts[OPT_LINEAR_SOLVER].string, 0, who);
    if (sparse < 0)
        return WB_ERR_INVALID;
    rattle *r = calloc(1, sizeof *r);
    if (!r) {
        host->error(host, "rattle: out of memory");
        return WB_ERR_NOMEM;
    }
    const int n = model->nq, m = model->n_holonomic;
    r->host = host, r->model = model, r->n = n, r->m = m;
    r->project_velocity = project_velocity;
    host->newton_defaults(host, &r->newton_options);
    r->newton_options.tol = opts[OPT_TOL].number;
    r->newton_options.max_iter = (int)opts[OPT_MAX_ITER].number;
    /* the dense path's G0, G1, W (m x n) and S (m x m) */
    const size_t dense = sparse ? 0 : (size_t)m * n, square = sparse ? 0 : (size_t)m * m;
    size_t doubles = (size_t)n * 8 + dense * 3 + square + (size_t)m * 7 + n;
    r->drift = calloc(doubles, sizeof(double));
    r->pivots = calloc((size_t)m, sizeof(int));
    if (!sparse)
        r->newton = host->newton_create(host, m);
    if (!r->drift || !r->pivots || (!sparse && !r->newton)) {
        destroy(r);
        host->error(host, "rattle: out of memory");
        return WB_ERR_NOMEM;
    }
    double *p = r->drift + n;
    r->W = p, p += dense;
    r->q1 = p, p += n;
    r->G1 = p, p += dense;
    r->grad0 = p, p += n;
    r->G0 = p, p += dense;
    r->cached_q = p, p += n;
    r->half = p, p += n;
    r->tmp = p, p += n;
    r->S = p, p += square;
    r->lambda = p, p += m;
    r->mu = p, p += m;
    r->saved_lambda = p, p += m;
    r->trial_lambda = p, p += m;
    r->scale = p, p += m;
    r->grad1 = p, p += n;
    double *minv_diagonal = p;
    p += n;
    r->newton_options.struct_size = sizeof r->newton_options;
    r->newton_options.residual_scale = r->scale;
    r->one_constraint = !sparse && m == 1;
    r->combined = r->one_constraint && opts[OPT_COMBINED].number != 0 &&
                          wb_has_holonomic_point(model)
                      ? (opts[OPT_PROJECTION].number != 0 && wb_has_holonomic_projection(model)
                             ? EVALUATE_PROJECTION
                             : EVALUATE_POINT)
                      : EVALUATE_SEPARATE;
    if (sparse && (status = create_sparse(r)) != WB_OK) {
        if (status == WB_ERR_NOMEM)
            host->error(host, "rattle: out of memory for the sparse structure of '%s'",
                        model->name);
        destroy(r);
        return status;
    }
    /* M^-1 once: its diagonal is the sparse path's by declaration, and a
     * probed one on the dense path (half and tmp, adjacent, as scratch) */
    if (sparse)
        r->minv_diagonal = r->sparse.inverse_mass;
    else if (n <= PROBED_MASS_MAX && wb_constant_inverse_mass_diagonal(model, r->half,
                                                                       minv_diagonal))
        r->minv_diagonal = minv_diagonal;
    r->step = choose_step(r);
    *inst = r;
    return WB_OK;
}

static int create_shake(const wb_host *host, const wb_model *model,
                        const wb_option_value *opts, void **inst)
{
    return create_common(host, model, opts, inst, 0);
}

static int create_rattle(const wb_host *host, const wb_model *model,
                         const wb_option_value *opts, void **inst)
{
    return create_common(host, model, opts, inst, 1);
}

static int reset(void *inst, double t, const double *q, const double *p)
{
    rattle *r = inst;
    (void)t;
    r->cache_valid = 0;
    /* the continuous multiplier is the natural first guess and the node value */
    if (wb_index1_multiplier(r->model, q, p, r->lambda) != WB_OK)
        for (int k = 0; k < r->m; k++)
            r->lambda[k] = 0;
    vec_copy(r->m, r->lambda, r->mu);
    return WB_OK;
}

/* Continue from carried multipliers (aux_values' layout), or start afresh. */
static int start(void *inst, double t, double h, const double *q, const double *p,
                 const double *aux)
{
    rattle *r = inst;
    (void)h;
    if (!aux)
        return reset(inst, t, q, p);
    r->cache_valid = 0;
    vec_copy(r->m, aux, r->lambda);
    vec_copy(r->m, r->project_velocity ? aux + r->m : aux, r->mu);
    return WB_OK;
}

/* out = M^-1 x (M constant: q is any point) */
static void inverse_mass_times(const rattle *r, const double *q, const double *x, double *out)
{
    if (!r->minv_diagonal) {
        wb_mass_solve(r->model, q, x, out);
        return;
    }
    for (int i = 0; i < r->n; i++)
        out[i] = r->minv_diagonal[i] * x[i];
}

/* x += s A^T y for A = G(q) in rows (dense m x n, or values in G's pattern). */
static void add_transpose_times(const rattle *r, const double *rows, double s, const double *y,
                                double *x)
{
    if (r->sparse.ext) {
        wb_csr_t_vec_add(r->sparse.G, rows, s, y, x);
        return;
    }
    for (int k = 0; k < r->m; k++)
        vec_axpy(r->n, s * y[k], rows + (size_t)k * r->n, x);
}

/* S = c A W^T for A = G(q) in rows: dense m x m into S, or S's values. */
static void row_products(rattle *r, const double *rows, double c, double *S)
{
    const int n = r->n, m = r->m;
    sparse_rows *sp = &r->sparse;
    if (!sp->ext) {
        for (int i = 0; i < m; i++)
            for (int k = 0; k < m; k++)
                S[i * m + k] = c * vec_dot(n, rows + (size_t)i * n, r->W + (size_t)k * n);
        return;
    }
    for (int e = 0; e < sp->S.pattern.nnz; e++)
        S[e] = 0.0;
    wb_csr_product_add(sp->G, rows, NULL, &sp->Gt.pattern, sp->Wt, &sp->S.pattern, c, sp->mark,
                       S);
}

/* q1(lambda) = drift - h^2/2 W lambda.  Newton asks for the Jacobian at
 * the lambda of the residual it has just evaluated, and the step for q1 at
 * the solution, the last residual's lambda: q1 is kept for its lambda
 * (O(m) to compare, O(nnz) to form). */
static void trial_position(rattle *r, const double *lambda)
{
    if (r->trial_valid && vec_equal(r->m, lambda, r->trial_lambda))
        return;
    vec_copy(r->n, r->drift, r->q1);
    add_transpose_times(r, r->W, -0.5 * r->h * r->h, lambda, r->q1);
    vec_copy(r->m, lambda, r->trial_lambda);
    r->trial_valid = 1;
}

/* G(q) into rows (dense m x n, or G's values). */
static void constraint_rows(rattle *r, const double *q, double *rows)
{
    if (r->sparse.ext)
        r->sparse.ext->jacobian_values(r->sparse.self, q, rows);
    else
        wb_constraint_jacobian(r->model, q, rows);
}

static int position_residual(void *user, const double *lambda, double *res)
{
    rattle *r = user;
    trial_position(r, lambda);
    wb_constraints(r->model, r->q1, res);
    return WB_OK;
}

/* d g(q1) / d lambda = G(q1) (-h^2/2 W) */
static int position_jacobian(void *user, const double *lambda, double *J)
{
    rattle *r = user;
    trial_position(r, lambda);
    constraint_rows(r, r->q1, r->G1);
    row_products(r, r->G1, -0.5 * r->h * r->h, J);
    return WB_OK;
}

/* grad V(q), G(q) and W = M^-1 G(q)^T: the start values of a step and the
 * end values of the previous one. */
static void point_values(rattle *r, const double *q, wb_step_stats *stats)
{
    const int n = r->n;
    wb_potential_gradient(r->model, q, r->grad0);
    constraint_rows(r, q, r->G0);
    const sparse_rows *sp = &r->sparse;
    if (sp->ext) {
        const wb_sparse_pattern *G = sp->G;
        for (int e = 0; e < G->nnz; e++)
            r->W[e] = r->G0[e] * sp->inverse_mass[G->columns[e]];
        for (int e = 0; e < G->nnz; e++)
            sp->Wt[e] = r->W[sp->Gt_origin[e]];
    } else {
        for (int k = 0; k < r->m; k++)
            inverse_mass_times(r, q, r->G0 + (size_t)k * n, r->W + (size_t)k * n);
    }
    vec_copy(n, q, r->cached_q);
    r->cache_valid = 1;
    stats->function_evals++;
}

/* Reused from the previous step's end when q0 is that point. */
static void start_values(rattle *r, const double *q0, wb_step_stats *stats)
{
    if (!r->cache_valid || !vec_equal(r->n, q0, r->cached_q))
        point_values(r, q0, stats);
}

/* mu from G(q1) M^-1 (half - h/2 G1^T mu) = 0, half = p_{1/2} - h/2 grad V(q1);
 * G0 and W hold G(q1) and M^-1 G(q1)^T here. */
static int velocity_multiplier(rattle *r, const double *q1, wb_step_stats *stats)
{
    const int n = r->n, m = r->m;
    const wb_host *host = r->host;
    sparse_rows *sp = &r->sparse;
    stats->linear_solves++;
    if (sp->ext) {
        for (int i = 0; i < n; i++)
            r->tmp[i] = sp->inverse_mass[i] * r->half[i];
        wb_csr_mat_vec(sp->G, r->G0, r->tmp, r->mu);
        for (int i = 0; i < m; i++)
            r->mu[i] *= 2.0 / r->h;
        row_products(r, r->G0, 1.0, sp->Sv);
        int status = host->sparse_lu_factor(host, sp->lu, sp->Sv);
        return status != WB_OK ? status : host->sparse_lu_solve(host, sp->lu, 1, r->mu);
    }
    inverse_mass_times(r, q1, r->half, r->tmp);
    for (int i = 0; i < m; i++)
        r->mu[i] = (2.0 / r->h) * vec_dot(n, r->G0 + (size_t)i * n, r->tmp);
    row_products(r, r->G0, 1.0, r->S);
    return host->dense_solve(host, m, 1, r->S, r->pivots, r->mu);
}

/* ---- one constraint --------------------------------------------------------
 * m = 1 on the dense path (a pendulum, a spherical pendulum, a particle on a
 * surface): the step below does the very floating-point operations of the
 * general step and of the host's newton_solve and dense_solve for a 1x1
 * system, in the same order, so the results agree to the last bit; what it
 * saves is their size-generic loops, memcpy and callbacks, which cost (with
 * the model's solve at every use of M^-1) four times the arithmetic at n = 2.  It is compiled for n = 2 and n = 3 as
 * constants (the loops unrolled) and for any other n.  The instance's work
 * arrays come in as restrict parameters: they overlap neither each other
 * nor the caller's q0, p0, q1, p1 (which may overlap each other). */

#define ONE_CONSTRAINT_INLINE static inline __attribute__((always_inline))

/* The instance's arrays that one step reads and writes. */
#define ONE_CONSTRAINT_ARRAYS                                                             \
    double *restrict grad0, double *restrict G0, double *restrict W, double *restrict G1, \
        double *restrict drift, double *restrict trial, double *restrict half,            \
        double *restrict tmp, double *restrict cached_q, double *restrict grad1

ONE_CONSTRAINT_INLINE double dot_n(int n, const double *a, const double *b)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* vec_equal (bitwise) for a constant n: memcmp of one double is a load */
ONE_CONSTRAINT_INLINE int equal_n(int n, const double *a, const double *b)
{
    for (int i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(double)) != 0)
            return 0;
    return 1;
}

/* out = M^-1 x, as inverse_mass_times; diagonal (a constant of the
 * variant) when M^-1's diagonal was taken at create time: the step then
 * has no branch to the model's solve, whose call would make the compiler
 * reload from memory every value it had in registers past the join */
ONE_CONSTRAINT_INLINE void inverse_mass_n(const rattle *r, int n, int diagonal, const double *q,
                                          const double *x, double *out)
{
    if (!diagonal) {
        wb_mass_solve(r->model, q, x, out);
        return;
    }
    const double *minv = r->minv_diagonal;
    for (int i = 0; i < n; i++)
        out[i] = minv[i] * x[i];
}

/* newton.c's row tolerance for the one row; the scale is a positive finite
 * number here, and a comparison is what fmin(1, scale) computes for one */
ONE_CONSTRAINT_INLINE double row_tolerance(double tol, double scale)
{
    return tol * (scale < 1.0 ? scale : 1.0);
}

/* newton.c's round-off floor of a row whose terms are of size scale: at or
 * below it, a residual that stops halving has converged */
ONE_CONSTRAINT_INLINE double round_off_floor(double scale)
{
    return 64.0 * DBL_EPSILON * scale;
}

/* The message and status of a one-constraint Newton iteration that ended
 * with `outcome` (WB_PROJECTION_*), after `iterations` updates with the
 * last residual `residual`: the host's newton_solve and dense_solve's. */
static int one_constraint_failure(const rattle *r, int outcome, int iterations,
                                  double residual, double row_tol)
{
    const wb_host *host = r->host;
    switch (outcome) {
    case WB_PROJECTION_RESIDUAL_NONFINITE:
        host->error(host, "Newton: non-finite residual after %d iterations", iterations);
        return WB_ERR_NONFINITE;
    case WB_PROJECTION_NOT_CONVERGED:
        host->error(host, "Newton did not converge in %d iterations (residual %.3e, %.3g times "
                    "the tolerance of its row, tolerance %.3e, relative to the row's terms "
                    "where they are below 1)", iterations, residual, residual / row_tol,
                    r->newton_options.tol);
        return WB_ERR_NEWTON;
    case WB_PROJECTION_JACOBIAN_NONFINITE:
        host->error(host, "lu_factor: the 1x1 matrix has a non-finite entry");
        return WB_ERR_NONFINITE;
    case WB_PROJECTION_SINGULAR:
        host->error(host, "Newton: the Jacobian (1x1) is singular");
        return WB_ERR_SINGULAR;
    case WB_PROJECTION_UPDATE_NONFINITE:
        host->error(host, "lu_solve: the solution is not finite (matrix nearly singular)");
        return WB_ERR_NONFINITE;
    case WB_PROJECTION_INVALID:
        host->error(host, "rattle: model '%s''s project() refused the problem (nq = %d: its "
                    "project_nq or WB_HOLONOMIC_PROJECTION's NQ differs, or the structs are "
                    "too small)", r->model->name, r->n);
        return WB_ERR_INVALID;
    default:
        host->error(host, "rattle: model '%s''s project() answered outcome %d",
                    r->model->name, outcome);
        return WB_ERR_INTERNAL;
    }
}

/* The iteration of workbench/holonomic_projection.h (the host's
 * newton_solve for one unknown, operation for operation) on the model's
 * point evaluation: run by the model itself with its evaluate() inlined
 * (projected, its project(): one call), or here on the view's
 * holonomic_point (one call per residual).  Statistics as newton_solve
 * keeps them. */
ONE_CONSTRAINT_INLINE int newton_on_point(const rattle *r, int n, int projected, double c,
                                          double scale, double *lambda,
                                          const double *restrict drift,
                                          const double *restrict W, double *restrict G1,
                                          double *restrict grad1, double *restrict trial,
                                          wb_step_stats *stats)
{
    const double row_tol = row_tolerance(r->newton_options.tol, scale);
    const wb_projection_problem problem = {
        .struct_size = sizeof problem, .nq = n, .drift = drift, .direction = W, .c = c,
        .tol = row_tol, .floor = round_off_floor(scale),
        .max_iter = r->newton_options.max_iter};
    wb_projection_report report = {.struct_size = sizeof report,
                                   .outcome = WB_PROJECTION_INVALID};
    double g;
    int status, evaluated;
    if (projected)
        status = wb_holonomic_projection(r->model, &problem, lambda, trial, grad1, &g, G1,
                                         &report);
    else
        status = wb_projection_newton(r->model->holonomic_point.ctx, &problem, lambda, trial,
                                      grad1, &g, G1, &report, n, r->model->holonomic_point.fn,
                                      &evaluated);
    /* newton_solve counts a solve when it forms J and one when it divides */
    const int divisions = report.iterations + (report.outcome == WB_PROJECTION_UPDATE_NONFINITE);
    stats->residual_evals += (uint64_t)report.residuals;
    stats->jacobian_evals += (uint64_t)report.jacobians;
    stats->linear_solves += (uint64_t)(report.jacobians + divisions);
    stats->newton_iterations += (uint64_t)report.iterations;
    if (status == WB_OK && report.outcome == WB_PROJECTION_CONVERGED)
        return WB_OK;
    /* an outcome and a status that disagree (a project() not written by
     * the macro) fail the step rather than continue from a stale lambda */
    const int failed = one_constraint_failure(r, report.outcome, report.iterations,
                                              report.residual, row_tol);
    return status != WB_OK ? status : failed;
}

/* The same iteration on the separate callbacks (combined_evaluation =
 * false): g alone at each residual, G only where an update needs it.
 * trial holds q1(*lambda) on return. */
ONE_CONSTRAINT_INLINE int newton_separate(const rattle *r, int n, double c, double scale,
                                          double *lambda, const double *restrict drift,
                                          const double *restrict W, double *restrict G1,
                                          double *restrict trial, wb_step_stats *stats)
{
    const double row_tol = row_tolerance(r->newton_options.tol, scale);
    const int max_iter = r->newton_options.max_iter;
    /* |g| <= row_tol is newton.c's |g| / row_tol <= 1 (a correctly rounded
     * quotient is monotone and exact at 1): the quotient, whose division
     * would hold up the update's on the step's critical path, is formed
     * only where a converging step does not go */
    double x = *lambda, g, g_before = INFINITY;
    for (int iterations = 0;; iterations++) {
        const double a = c * x;
        for (int i = 0; i < n; i++)
            trial[i] = drift[i] + a * W[i];
        stats->residual_evals++;
        wb_constraints(r->model, trial, &g);
        const double size = fabs(g);
        if (!isfinite(g))
            return one_constraint_failure(r, WB_PROJECTION_RESIDUAL_NONFINITE, iterations,
                                          size, row_tol);
        if (size <= row_tol)
            break;
        if (iterations > 0 && size <= round_off_floor(scale) &&
            !(size / row_tol < 0.5 * (g_before / row_tol)))
            break;
        if (iterations >= max_iter)
            return one_constraint_failure(r, WB_PROJECTION_NOT_CONVERGED, iterations, size,
                                          row_tol);
        stats->jacobian_evals++;
        wb_constraint_jacobian(r->model, trial, G1);
        const double J = c * dot_n(n, G1, W);
        stats->linear_solves++;
        if (!isfinite(J) || J == 0.0)
            return one_constraint_failure(r, J == 0.0 ? WB_PROJECTION_SINGULAR
                                                      : WB_PROJECTION_JACOBIAN_NONFINITE,
                                          iterations, size, row_tol);
        const double update = g / J;
        stats->linear_solves++;
        if (!isfinite(update))
            return one_constraint_failure(r, WB_PROJECTION_UPDATE_NONFINITE, iterations, size,
                                          row_tol);
        x -= update;
        g_before = size;
        stats->newton_iterations++;
    }
    *lambda = x;
    return WB_OK;
}

/* 1x1 dense_solve of S mu = mu, with its checks and messages. */
ONE_CONSTRAINT_INLINE int solve_one(const rattle *r, double S, double *mu)
{
    const wb_host *host = r->host;
    if (!isfinite(S)) {
        host->error(host, "lu_factor: the 1x1 matrix has a non-finite entry");
        return WB_ERR_NONFINITE;
    }
    if (S == 0.0) {
        host->error(host, "lu_factor: the 1x1 matrix is singular (zero pivot 1)");
        return WB_ERR_SINGULAR;
    }
    *mu = *mu / S;
    if (!isfinite(*mu)) {
        host->error(host, "lu_solve: the solution is not finite (matrix nearly singular)");
        return WB_ERR_NONFINITE;
    }
    return WB_OK;
}

ONE_CONSTRAINT_INLINE int step_one_constraint(rattle *r, int n, int combined, int diagonal,
                                              double h,
                                              const double *q0, const double *p0, double *q1,
                                              double *p1, wb_step_stats *stats,
                                              ONE_CONSTRAINT_ARRAYS)
{
    if (!r->cache_valid || !equal_n(n, q0, cached_q)) { /* point_values at q0 */
        if (combined) {
            double g0;
            wb_holonomic_point(r->model, q0, grad0, &g0, G0);
        } else {
            wb_potential_gradient(r->model, q0, grad0);
            wb_constraint_jacobian(r->model, q0, G0);
        }
        inverse_mass_n(r, n, diagonal, q0, G0, W);
        stats->function_evals++;
    }
    /* wb_constraint_row_scales with y_size = wb_scale_max_abs(q0); a
     * comparison takes fmax's place (a NaN is skipped by both) */
    double row = 0.0, size = 0.0;
    for (int j = 0; j < n; j++) {
        row += fabs(G0[j]);
        size = fabs(q0[j]) > size ? fabs(q0[j]) : size;
    }
    const double scale = wb_scale_or_one(row * size / 1.0);
    for (int i = 0; i < n; i++)
        tmp[i] = p0[i] - 0.5 * h * grad0[i];
    inverse_mass_n(r, n, diagonal, q0, tmp, drift);
    for (int i = 0; i < n; i++)
        drift[i] = q0[i] + h * drift[i];
    double lambda = r->lambda[0];
    int status = combined ? newton_on_point(r, n, combined == EVALUATE_PROJECTION, -0.5 * h * h,
                                            scale, &lambda, drift, W, G1, grad1, trial, stats)
                          : newton_separate(r, n, -0.5 * h * h, scale, &lambda, drift, W, G1,
                                            trial, stats);
    if (status != WB_OK)
        return status;
    const double kick0 = -0.5 * h * lambda;
    for (int i = 0; i < n; i++) {
        half[i] = p0[i] - 0.5 * h * grad0[i];
        half[i] += kick0 * G0[i];
    }
    /* point_values at q1: the next step's start (combined: Newton's last
     * residual evaluated them) */
    if (combined) {
        for (int i = 0; i < n; i++)
            grad0[i] = grad1[i], G0[i] = G1[i];
    } else {
        wb_potential_gradient(r->model, trial, grad0);
        wb_constraint_jacobian(r->model, trial, G0);
    }
    inverse_mass_n(r, n, diagonal, trial, G0, W);
    for (int i = 0; i < n; i++)
        cached_q[i] = trial[i];
    r->cache_valid = 1;
    stats->function_evals++;
    for (int i = 0; i < n; i++)
        half[i] += -0.5 * h * grad0[i];
    double mu = lambda;
    if (r->project_velocity) {
        stats->linear_solves++;
        inverse_mass_n(r, n, diagonal, trial, half, tmp);
        mu = (2.0 / h) * dot_n(n, G0, tmp);
        if ((status = solve_one(r, 1.0 * dot_n(n, G0, W), &mu)) != WB_OK)
            return status;
    }
    r->lambda[0] = lambda, r->mu[0] = mu;
    const double kick1 = -0.5 * h * mu;
    for (int i = 0; i < n; i++) {
        q1[i] = trial[i];
        p1[i] = half[i] + kick1 * G0[i];
    }
    return WB_OK;
}

/* step_one_constraint for n = 2, 3 and any n, with and without the
 * combined evaluation and M^-1's diagonal, each its own function (its own
 * registers and stack frame, not the general step's).  For n = 2, 3 the
 * arrays that do not outlive the step are the function's own (the compiler
 * keeps those the model never sees in registers); the cache (grad0, G0, W
 * at cached_q) is the instance's. */
#define STEP_ONE_ANY_N(name, combined, diagonal)                                                \
    static __attribute__((noinline)) int name(rattle *r, double h, const double *q0,           \
                                              const double *p0, double *q1, double *p1,       \
                                              wb_step_stats *stats)                            \
    {                                                                                          \
        return step_one_constraint(r, r->n, combined, diagonal, h, q0, p0, q1, p1, stats,      \
                                   r->grad0, r->G0, r->W, r->G1, r->drift, r->q1, r->half,     \
                                   r->tmp, r->cached_q, r->grad1);                             \
    }
#define STEP_ONE_SMALL(name, n_value, combined, diagonal)                                       \
    static __attribute__((noinline)) int name(rattle *r, double h, const double *q0,           \
                                              const double *p0, double *q1, double *p1,       \
                                              wb_step_stats *stats)                            \
    {                                                                                          \
        double G1[n_value], drift[n_value], trial[n_value], half[n_value], tmp[n_value],       \
            grad1[n_value];                                                                    \
        return step_one_constraint(r, n_value, combined, diagonal, h, q0, p0, q1, p1, stats,   \
                                   r->grad0, r->G0, r->W, G1, drift, trial, half, tmp,         \
                                   r->cached_q, grad1);                                        \
    }
/* [n = 2, 3, any][combined][diagonal] */
#define STEP_ONE_FAMILY(suffix, combined, diagonal)                                             \
    STEP_ONE_SMALL(step_one_2##suffix, 2, combined, diagonal)                                  \
    STEP_ONE_SMALL(step_one_3##suffix, 3, combined, diagonal)                                  \
    STEP_ONE_ANY_N(step_one_n##suffix, combined, diagonal)
STEP_ONE_FAMILY(_separate_solve, 0, 0)
STEP_ONE_FAMILY(_separate_diagonal, 0, 1)
STEP_ONE_FAMILY(_combined_solve, 1, 0)
STEP_ONE_FAMILY(_combined_diagonal, 1, 1)
STEP_ONE_FAMILY(_projected_solve, 2, 0)
STEP_ONE_FAMILY(_projected_diagonal, 2, 1)
#undef STEP_ONE_FAMILY
#undef STEP_ONE_ANY_N
#undef STEP_ONE_SMALL

/* [n = 2, 3, any][EVALUATE_*][diagonal] */
static const rattle_step_fn step_one_variants[3][3][2] = {
    {{step_one_2_separate_solve, step_one_2_separate_diagonal},
     {step_one_2_combined_solve, step_one_2_combined_diagonal},
     {step_one_2_projected_solve, step_one_2_projected_diagonal}},
    {{step_one_3_separate_solve, step_one_3_separate_diagonal},
     {step_one_3_combined_solve, step_one_3_combined_diagonal},
     {step_one_3_projected_solve, step_one_3_projected_diagonal}},
    {{step_one_n_separate_solve, step_one_n_separate_diagonal},
     {step_one_n_combined_solve, step_one_n_combined_diagonal},
     {step_one_n_projected_solve, step_one_n_projected_diagonal}},
};

/* The step for any m, dense or sparse. */
static __attribute__((noinline)) int step_general(rattle *r, double h, const double *q0,
                                                  const double *p0, double *q1, double *p1,
                                                  wb_step_stats *stats)
{
    const int n = r->n, m = r->m;
    r->h = h;
    start_values(r, q0, stats);
    if (r->sparse.ext)
        wb_sparse_row_scales(r->sparse.G, r->G0, wb_scale_max_abs(n, q0), 1.0, r->scale);
    else
        wb_constraint_row_scales(m, n, r->G0, wb_scale_max_abs(n, q0), 1.0, r->scale);
    /* drift = q0 + h M^-1 (p0 - h/2 grad V(q0)) */
    for (int i = 0; i < n; i++)
        r->tmp[i] = p0[i] - 0.5 * h * r->grad0[i];
    inverse_mass_times(r, q0, r->tmp, r->drift);
    for (int i = 0; i < n; i++)
        r->drift[i] = q0[i] + h * r->drift[i];
    r->trial_valid = 0; /* a new drift */
    vec_copy(m, r->lambda, r->saved_lambda);
    int status = r->host->newton_solve(r->host, r->newton, position_residual, position_jacobian,
                                       r, r->lambda, &r->newton_options, stats, NULL);
    if (status != WB_OK) {
        vec_copy(m, r->saved_lambda, r->lambda);
        return status;
    }
    trial_position(r, r->lambda);
    vec_copy(n, r->q1, q1);
    /* p_{1/2}, then the new start values (they are the next step's cache) */
    for (int i = 0; i < n; i++)
        r->half[i] = p0[i] - 0.5 * h * r->grad0[i];
    add_transpose_times(r, r->G0, -0.5 * h, r->lambda, r->half);
    point_values(r, q1, stats);
    vec_axpy(n, -0.5 * h, r->grad0, r->half);
    if (r->project_velocity) {
        status = velocity_multiplier(r, q1, stats);
        if (status != WB_OK) {
            vec_copy(m, r->saved_lambda, r->lambda);
            return status;
        }
    } else {
        vec_copy(m, r->lambda, r->mu);
    }
    vec_copy(n, r->half, p1);
    add_transpose_times(r, r->G0, -0.5 * h, r->mu, p1);
    return WB_OK;
}

static rattle_step_fn choose_step(const rattle *r)
{
    if (!r->one_constraint)
        return step_general;
    const int size_class = r->n == 2 ? 0 : r->n == 3 ? 1 : 2;
    return step_one_variants[size_class][r->combined][r->minv_diagonal != NULL];
}

static int step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
                double *p1, wb_step_stats *stats)
{
    rattle *r = inst;
    (void)t;
    return r->step(r, h, q0, p0, q1, p1, stats);
}

static void aux_values(const void *inst, double *out)
{
    const rattle *r = inst;
    vec_copy(r->m, r->lambda, out);
    if (r->project_velocity)
        vec_copy(r->m, r->mu, out + r->m);
}

static int describe_rattle(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 2;
    out->multiplier_order = 1; /* lambda and mu each; their mean is second order */
    out->flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING |
                 WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT;
    return WB_OK;
}

static int describe_shake(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 2;
    out->multiplier_order = 0;
    out->flags = WB_PROP_POSITION_CONSTRAINT;
    return WB_OK;
}

const wb_method classic_shake = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "shake",
    .doc = "SHAKE as a one-step method: positions on the constraint, mu = lambda (velocity "
           "round-off floor c eps max|q| / h, c ~ 0.3 .. 5, where Newton corrects q's round-off "
           "off g = 0: tol below g's round-off; RATTLE has none)",
    .options = options,
    .n_options = WB_ARRAY_COUNT(options),
    .requires = requires,
    .handles = WB_HANDLES_HOLONOMIC,
    .order_doc = "2",
    .property_flags = WB_PROP_POSITION_CONSTRAINT,
    .aux = shake_aux,
    .n_aux = WB_ARRAY_COUNT(shake_aux),
    .describe = describe_shake,
    .create = create_shake,
    .destroy = destroy,
    .reset = reset,
    .start = start,
    .step = step,
    .aux_values = aux_values,
};

const wb_method classic_rattle = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "rattle",
    .doc = "RATTLE: symplectic, symmetric, order 2, g = 0 and G M^-1 p = 0 at the nodes",
    .options = options,
    .n_options = WB_ARRAY_COUNT(options),
    .requires = requires,
    .handles = WB_HANDLES_HOLONOMIC,
    .order_doc = "2",
    .property_flags = WB_PROP_SYMPLECTIC | WB_PROP_SYMMETRIC | WB_PROP_MOMENTUM_CONSERVING |
                      WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT,
    .aux = rattle_aux,
    .n_aux = WB_ARRAY_COUNT(rattle_aux),
    .describe = describe_rattle,
    .create = create_rattle,
    .destroy = destroy,
    .reset = reset,
    .start = start,
    .step = step,
    .aux_values = aux_values,
};
