/* The `spark` family: the constrained Lobatto IIIA-IIIB pair for holonomic
 * constraints (Jay 1996; Hairer-Lubich-Wanner VII.1), for a constant mass
 * matrix:
 *
 *   Q_i = q0 + h sum_j a_ij M^-1 P_j                  (Lobatto IIIA)
 *   P_i = p0 - h sum_j ah_ij F_j,   F_j = grad V(Q_j) + G(Q_j)^T L_j   (IIIB)
 *   g(Q_i) = 0  for i = 2..s      (Q_1 = q0 holds it already)
 *   q1 = Q_s,   p1 = p0 - h sum_j b_j F_j,   G(q1) M^-1 p1 = 0.
 *
 * Unknowns per step: the s stage momenta P_i and the s multipliers L_i,
 * s (n + m) numbers, solved by Newton with the analytic Jacobian.  The
 * method is symplectic, symmetric, of order 2s-2 in (q, p), and keeps both
 * g = 0 and G M^-1 p = 0 at every node.  With s = 2 it is RATTLE
 * (L_1 = RATTLE's lambda, L_2 = its mu).
 *
 * Option linear_solver (as RATTLE's) picks the Newton matrix's form:
 *   dense   (s (n + m))^2 entries, dense products with M^-1 and G, LAPACK
 *           LU: O(s^3 (n + m)^3) a step;
 *   sparse  the model declares G, the Hessian of V and T(q; L) in
 *           patterns and a diagonal mass (wb.sparsity/1): the matrix is
 *           assembled block by block in its nonzeros (stage blocks in the
 *           pattern of Hess V + T, G, G^T, G (Hess V + T) and G G^T) and
 *           solved by the host's sparse LU (banded after reverse
 *           Cuthill-McKee): O(s^3 nnz) a step, O(N) for a chain.
 *
 * Option iteration.  With constraints a fixed point does not solve the
 * index-3 system, so the choice is among Newton iterations:
 *   auto        (the default) simplified Newton on the factors of the last
 *               Jacobian, kept from step to step by the host's workspace
 *               (wb_newton_options.keep_jacobian) while the step size
 *               stays; the host forms a new one at the current iterate when
 *               an update cuts the residual by less than REFRESH_RATE
 *               (refresh_rate, counted in sol.stats.jacobian_refreshes),
 *               and a solve that fails all the same is redone by full
 *               Newton from the step's guess (counted there too);
 *   newton      a Jacobian and LU every update, quadratic convergence;
 *   simplified  one Jacobian at the first iterate of every step.
 * The kept Jacobian's point (unknowns, q0, p0, h) is carried state, so a
 * run continued from its last row forms the same factors and continues bit
 * for bit.  Measured (callgrind Ir a step, Jacobians a step in brackets,
 * h = 0.01 unless said; newton, simplified, auto): spherical pendulum
 * s = 2: 38.5k (2.0), 26.9k (1), 36.0k (0.16); s = 3: 66.9k (1.94), 41.8k,
 * 41.7k (0.25); s = 4: 58.6k (1.0), 58.6k, 52.0k (0.32) -- on these 8 to
 * 16 unknowns an update on kept factors (a residual and LAPACK's dgetrs,
 * ~4k) is a seventh of a Jacobian and its LU (~30k), and auto's extra
 * updates eat most of what it saves; double spherical pendulum s = 3
 * (24 unknowns): 213k, 121k, 104k (0.33); pendulum_chain, s = 3,
 * h = 1e-3, N = 10 dense (90 unknowns): 4.79M, 2.47M, 0.47M (0.08);
 * N = 100 sparse: 7.22M, 4.33M, 2.63M (0.29).  A refresh rate of 0.1
 * favours the smallest systems (spherical pendulum s = 2: 30.0k, but s = 4:
 * 60.1k), 0.4 the chain (N = 100: 2.20M, 0.03 Jacobians a step; spherical
 * pendulum s = 2: 47.1k). */
#include <workbench/workbench.h>

#include "wb_integrator_plugin.h"
#include "wb_mass.h"
#include "wb_residual_scale.h"
#include "wb_sparse_method.h"
#include "wb_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SPARK_MAX_S = 8 }; /* option s's upper bound */

enum { ITERATION_AUTO, ITERATION_NEWTON, ITERATION_SIMPLIFIED }; /* option iteration */
/* iteration = auto: kept factors are renewed (the host's refresh_rate) once
 * an update cuts the residual by less than this factor (see the header) */
static const double REFRESH_RATE = 0.2;

/* linear_solver = sparse: the stage values in the model's patterns and the
 * Newton matrix's blocks.  Block numbers are -1 where the tableau's
 * coefficients leave the block zero. */
typedef struct spark_sparse {
    const wb_sparsity_ext *ext;   /* NULL: the dense path                       */
    void *self;                   /* the model instance                          */
    const wb_sparse_pattern *G;   /* the model's pattern of G (m x n)            */
    const wb_sparse_pattern *T;   /* and of T(q; L) (n x n)                      */
    wb_block_matrix K;            /* Hess V + T(q; L), n x n: union of patterns  */
    int K_hessian, K_contract;    /* K's two blocks                              */
    wb_csr Gt;                    /* G^T; Gt_origin[e] = G's entry               */
    int *Gt_origin;
    wb_csr GK, GG;                /* the patterns of G K and G G^T               */
    int *mark;                    /* n + m ints of scratch                       */
    wb_block_matrix J;            /* the Newton matrix                           */
    int identity[SPARK_MAX_S], stage_K[SPARK_MAX_S][SPARK_MAX_S];
    int stage_Gt[SPARK_MAX_S][SPARK_MAX_S], position_G[SPARK_MAX_S][SPARK_MAX_S];
    int hidden_B[SPARK_MAX_S], hidden_GK[SPARK_MAX_S], hidden_GG[SPARK_MAX_S];
    double *values;               /* one block for the arrays below              */
    double *inverse_mass;         /* n                                           */
    double *Gv;                   /* G(Q_j) in G's pattern, s of them            */
    double *KM;                   /* K_j M^-1 in K's pattern, s of them          */
    double *Hv, *Tv;              /* Hess V and T(Q_j; L_j) of one stage         */
    double *Bv, *Gtv;             /* B(q1; M^-1 p1) in G's pattern, one G_k^T    */
    double *GKv, *GGv;            /* G M^-1 K_j M^-1 and G M^-1 G_k^T            */
} spark_sparse;

typedef struct spark {
    const wb_host *host;
    const wb_model *model;
    int n, m, s, size;
    const double *a, *ah, *b;
    double h;
    const double *q0, *p0;
    wb_step_stats *stats;   /* the step's: the residual counts its model calls */
    wb_newton *newton;
    wb_newton_options newton_options;
    double *x;              /* unknowns (P_1..P_s, L_1..L_s)                   */
    double *saved;          /* the guess, restored when a step fails           */
    double *scale;          /* the sizes of each residual row's terms (Newton) */
    double *Minv;           /* n x n                                           */
    double *V;              /* V_j = M^-1 P_j, s x n                           */
    double *Q, *F, *G;      /* stages: Q_j, F_j (s x n), G(Q_j) (s x m x n)    */
    double *KM;             /* K_j M^-1 (s x n x n), K_j = dF_j/dQ_j           */
    double *hess, *T;       /* n x n scratch for one K_j                       */
    double *v, *p1;         /* M^-1 p1 and p1, n each                          */
    /* the hidden constraint's rows, m x n each: B(q1; v), B(q1; v) M^-1,
     * G(q1) M^-1, G(q1) M^-1 K_j M^-1; and m x m G(q1) M^-1 G_j^T */
    double *B, *BM, *GM, *GMKM;
    double *GG;
    spark_sparse sp;
    /* the extrapolated start: the last step's stage forces F_j and
     * multipliers L_j (in x after a step), taken on as the Lagrange
     * polynomials of the nodes c one step later, L_i <- sum_j X_ij L_j and
     * P_i <- p0 - h sum_j (ah X)_ij F_j.  Not P_i <- sum_j X_ij P_j: the
     * IIIB stage momenta are off p(t0 + c_i h) by O(h^2) amounts of their
     * own, which no polynomial through them follows (spherical pendulum,
     * s = 3, h = 0.01: the guess's momentum residual 5e-3 that way, 4e-6
     * this way; s = 4: 2.0 full Newton iterations a step become 1.0) */
    int extrapolate;        /* option start = "extrapolate" (and m <= n)       */
    int history_valid;      /* forces and x hold the step that ended at last    */
    double *extrapolation;  /* X, s x s: X_ij = l_j(1 + c_i)                   */
    double *force_extrapolation; /* ah X, s x s                               */
    double *forces;         /* F_j of that step, s x n                         */
    double *last;           /* (q1, p1) of that step, 2 n                      */
    double last_h;
    /* iteration = auto: simplified Newton on the factors of the last
     * Jacobian the workspace formed, kept from step to step.  Its point is
     * state (carried, so that a continued run forms the same factors). */
    int iteration;          /* ITERATION_*                                     */
    double *guess;          /* the step's first iterate, for full Newton       */
    double *kept;           /* the kept Jacobian's point: x, q0, p0            */
    double kept_h;
    int kept_valid;         /* the workspace holds that Jacobian's factors      */
    int reform;             /* a resumed run: its first Jacobian is the one at
                               `kept`, not at the iterate                     */
} spark;

enum { OPT_S, OPT_TOL, OPT_MAX_ITER, OPT_ITERATION, OPT_STEP_TOL, OPT_LINEAR_SOLVER, OPT_START };
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
     "when an update cuts the residual by less than 0.2 (sol.stats.jacobian_refreshes), full "
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
     .doc = "iteration = auto: where the kept Jacobian was evaluated, its unknowns (P_j, L_j), "
            "q0 and p0 (2 s + 2 blocks, zero-padded)",
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

/* ---- layout ------------------------------------------------------------------- */

static double *stage_P(spark *k, double *x, int i) { return x + (size_t)i * k->n; }
static double *stage_L(spark *k, double *x, int i)
{
    return x + (size_t)k->s * k->n + (size_t)i * k->m;
}

/* V_j = M^-1 P_j (dense or diagonal M^-1). */
static void inverse_mass_times(const spark *k, const double *P, double *V)
{
    if (k->sp.ext)
        for (int i = 0; i < k->n; i++)
            V[i] = k->sp.inverse_mass[i] * P[i];
    else
        mat_vec(k->n, k->n, k->Minv, P, V);
}

/* G(Q_j): m x n rows, or its values in G's pattern (sparse). */
static double *stage_G(spark *k, int j)
{
    return k->sp.ext ? k->sp.Gv + (size_t)j * k->sp.G->nnz : k->G + (size_t)j * k->m * k->n;
}

/* Q_i, F_i (and G_i = G(Q_i)) for all stages, and p1, from the unknowns x. */
static void stages(spark *k, const double *x)
{
    const int n = k->n, m = k->m, s = k->s;
    for (int j = 0; j < s; j++)
        inverse_mass_times(k, stage_P(k, (double *)x, j), k->V + (size_t)j * n);
    for (int i = 0; i < s; i++) {
        double *Qi = k->Q + (size_t)i * n;
        vec_copy(n, k->q0, Qi);
        for (int j = 0; j < s; j++) {
            const double a = k->h * k->a[i * s + j];
            if (a != 0.0)
                vec_axpy(n, a, k->V + (size_t)j * n, Qi);
        }
    }
    for (int j = 0; j < s; j++) {
        const double *Qj = k->Q + (size_t)j * n;
        double *Fj = k->F + (size_t)j * n, *Gj = stage_G(k, j);
        wb_potential_gradient(k->model, Qj, Fj);
        const double *L = stage_L(k, (double *)x, j);
        if (k->sp.ext) {
            k->sp.ext->jacobian_values(k->sp.self, Qj, Gj);
            wb_csr_t_vec_add(k->sp.G, Gj, 1.0, L, Fj);
            continue;
        }
        wb_constraint_jacobian(k->model, Qj, Gj);
        for (int c = 0; c < m; c++)
            vec_axpy(n, L[c], Gj + (size_t)c * n, Fj);
    }
    k->stats->function_evals += (uint64_t)s;
    vec_copy(n, k->p0, k->p1);
    for (int j = 0; j < s; j++)
        vec_axpy(n, -k->h * k->b[j], k->F + (size_t)j * n, k->p1);
}

/* ---- residual and Jacobian ------------------------------------------------------- */

static int residual(void *user, const double *x, double *r)
{
    spark *k = user;
    const int n = k->n, m = k->m, s = k->s;
    stages(k, x);
    for (int i = 0; i < s; i++) { /* P_i - p0 + h sum_j ah_ij F_j */
        double *ri = r + (size_t)i * n;
        const double *Pi = stage_P(k, (double *)x, i);
        for (int c = 0; c < n; c++)
            ri[c] = Pi[c] - k->p0[c];
        for (int j = 0; j < s; j++)
            vec_axpy(n, k->h * k->ah[i * s + j], k->F + (size_t)j * n, ri);
    }
    double *rc = r + (size_t)s * n;
    for (int i = 1; i < s; i++) { /* g(Q_i) / h: O(1) sensitivity to the unknowns */
        wb_constraints(k->model, k->Q + (size_t)i * n, rc + (size_t)(i - 1) * m);
        for (int c = 0; c < m; c++)
            rc[(size_t)(i - 1) * m + c] /= k->h;
    }
    inverse_mass_times(k, k->p1, k->v); /* G(q1) M^-1 p1, q1 = Q_s */
    if (k->sp.ext)
        wb_csr_mat_vec(k->sp.G, stage_G(k, s - 1), k->v, rc + (size_t)(s - 1) * m);
    else
        mat_vec(m, n, stage_G(k, s - 1), k->v, rc + (size_t)(s - 1) * m);
    return WB_OK;
}

/* KM_j = K_j M^-1 with K_j = Hess V(Q_j) + T(Q_j; L_j), the derivative of
 * F_j in Q_j: dQ_j/dP_k = h a_jk M^-1 puts M^-1 after every K_j. */
static void stage_hessians(spark *k, const double *x)
{
    const int n = k->n;
    for (int j = 0; j < k->s; j++) {
        const double *Qj = k->Q + (size_t)j * n;
        wb_potential_hessian(k->model, Qj, k->hess);
        wb_constraint_hessian_contract(k->model, Qj, stage_L(k, (double *)x, j), k->T);
        for (int e = 0; e < n * n; e++)
            k->hess[e] += k->T[e];
        mat_mul(n, n, n, k->hess, k->Minv, k->KM + (size_t)j * n * n);
    }
}

/* Momentum rows P_i - p0 + h sum_j ah_ij F_j:
 *   d/dP_k = delta_ik I + h^2 sum_j ah_ij a_jk K_j M^-1,   d/dL_k = h ah_ik G_k^T */
static void momentum_rows(spark *k, double *J)
{
    const int n = k->n, m = k->m, s = k->s, N = k->size;
    const double h = k->h;
    for (int i = 0; i < s; i++)
        for (int kk = 0; kk < s; kk++) {
            if (i == kk)
                mat_block_add_identity(J, N, i * n, kk * n, n, 1.0);
            for (int j = 0; j < s; j++) {
                const double w = h * h * k->ah[i * s + j] * k->a[j * s + kk];
                if (w != 0.0)
                    mat_block_add(J, N, i * n, kk * n, n, n, k->KM + (size_t)j * n * n, w);
            }
            mat_block_add_t(J, N, i * n, s * n + kk * m, n, m, k->G + (size_t)kk * m * n,
                            h * k->ah[i * s + kk]);
        }
}

/* Position constraint rows g(Q_i)/h, i >= 1: d/dP_k = a_ik G(Q_i) M^-1. */
static void position_rows(spark *k, double *J)
{
    const int n = k->n, m = k->m, s = k->s, N = k->size;
    double *GiM = k->GMKM; /* scratch: the hidden rows come after */
    for (int i = 1; i < s; i++) {
        mat_mul(m, n, n, k->G + (size_t)i * m * n, k->Minv, GiM);
        for (int kk = 0; kk < s; kk++)
            mat_block_add(J, N, s * n + (i - 1) * m, kk * n, m, n, GiM, k->a[i * s + kk]);
    }
}

/* The hidden constraint row G(q1) M^-1 p1, q1 = Q_s, p1 = p0 - h sum_j b_j F_j:
 *   d/dP_k = h a_sk B(q1; M^-1 p1) M^-1 - h^2 sum_j b_j a_jk G(q1) M^-1 K_j M^-1
 *   d/dL_k = -h b_k G(q1) M^-1 G_k^T */
static void hidden_constraint_rows(spark *k, double *J)
{
    const int n = k->n, m = k->m, s = k->s, N = k->size;
    const double h = k->h;
    const int row = s * n + (s - 1) * m;
    mat_vec(n, n, k->Minv, k->p1, k->v);
    wb_constraint_hessian_vector(k->model, k->Q + (size_t)(s - 1) * n, k->v, k->B);
    mat_mul(m, n, n, k->B, k->Minv, k->BM);
    mat_mul(m, n, n, k->G + (size_t)(s - 1) * m * n, k->Minv, k->GM);
    for (int kk = 0; kk < s; kk++)
        mat_block_add(J, N, row, kk * n, m, n, k->BM, h * k->a[(s - 1) * s + kk]);
    for (int j = 0; j < s; j++) {
        mat_mul(m, n, n, k->GM, k->KM + (size_t)j * n * n, k->GMKM);
        for (int kk = 0; kk < s; kk++) {
            const double w = h * h * k->b[j] * k->a[j * s + kk];
            if (w != 0.0)
                mat_block_add(J, N, row, kk * n, m, n, k->GMKM, -w);
        }
    }
    for (int kk = 0; kk < s; kk++) {
        mat_mul_bt(m, n, m, k->GM, k->G + (size_t)kk * m * n, k->GG);
        mat_block_add(J, N, row, s * n + kk * m, m, m, k->GG, -h * k->b[kk]);
    }
}

/* The same matrix in its nonzeros (linear_solver = sparse), block by block
 * as momentum_rows, position_rows and hidden_constraint_rows above. */
static void sparse_jacobian(spark *k, const double *x, double *J)
{
    spark_sparse *sp = &k->sp;
    const int n = k->n, s = k->s, nnz_G = sp->G->nnz, nnz_K = sp->K.csr.pattern.nnz;
    const double h = k->h, *Minv = sp->inverse_mass;
    const double *G1 = stage_G(k, s - 1);
    memset(J, 0, (size_t)sp->J.csr.pattern.nnz * sizeof(double));
    for (int j = 0; j < s; j++) { /* K_j M^-1 */
        const double *Qj = k->Q + (size_t)j * n;
        double *KM = sp->KM + (size_t)j * nnz_K;
        sp->ext->potential_hessian_values(sp->self, Qj, sp->Hv);
        sp->ext->hessian_contract_values(sp->self, Qj, stage_L(k, (double *)x, j), sp->Tv);
        memset(KM, 0, (size_t)nnz_K * sizeof(double));
        wb_block_add(&sp->K, sp->K_hessian, 1.0, sp->Hv, Minv, KM);
        wb_block_add(&sp->K, sp->K_contract, 1.0, sp->Tv, Minv, KM);
    }
    for (int i = 0; i < s; i++) {
        wb_block_add(&sp->J, sp->identity[i], 1.0, NULL, NULL, J);
        for (int kk = 0; kk < s; kk++) {
            for (int j = 0; j < s && sp->stage_K[i][kk] >= 0; j++) {
                const double w = h * h * k->ah[i * s + j] * k->a[j * s + kk];
                if (w != 0.0)
                    wb_block_add(&sp->J, sp->stage_K[i][kk], w, sp->KM + (size_t)j * nnz_K,
                                 NULL, J);
            }
            if (sp->stage_Gt[i][kk] >= 0)
                wb_block_add(&sp->J, sp->stage_Gt[i][kk], h * k->ah[i * s + kk],
                             stage_G(k, kk), NULL, J);
            if (i > 0 && sp->position_G[i][kk] >= 0)
                wb_block_add(&sp->J, sp->position_G[i][kk], k->a[i * s + kk], stage_G(k, i),
                             Minv, J);
        }
    }
    inverse_mass_times(k, k->p1, k->v);
    sp->ext->hessian_vector_values(sp->self, k->Q + (size_t)(s - 1) * n, k->v, sp->Bv);
    for (int j = 0; j < s; j++) {
        memset(sp->GKv, 0, (size_t)sp->GK.pattern.nnz * sizeof(double));
        wb_csr_product_add(sp->G, G1, Minv, &sp->K.csr.pattern, sp->KM + (size_t)j * nnz_K,
                           &sp->GK.pattern, 1.0, sp->mark, sp->GKv);
        for (int kk = 0; kk < s; kk++) {
            const double w = h * h * k->b[j] * k->a[j * s + kk];
            if (w != 0.0 && sp->hidden_GK[kk] >= 0)
                wb_block_add(&sp->J, sp->hidden_GK[kk], -w, sp->GKv, NULL, J);
        }
    }
    for (int kk = 0; kk < s; kk++) {
        if (sp->hidden_B[kk] >= 0)
            wb_block_add(&sp->J, sp->hidden_B[kk], h * k->a[(s - 1) * s + kk], sp->Bv, Minv, J);
        if (sp->hidden_GG[kk] < 0)
            continue;
        const double *Gk = stage_G(k, kk);
        for (int e = 0; e < nnz_G; e++)
            sp->Gtv[e] = Gk[sp->Gt_origin[e]];
        memset(sp->GGv, 0, (size_t)sp->GG.pattern.nnz * sizeof(double));
        wb_csr_product_add(sp->G, G1, Minv, &sp->Gt.pattern, sp->Gtv, &sp->GG.pattern, 1.0,
                           sp->mark, sp->GGv);
        wb_block_add(&sp->J, sp->hidden_GG[kk], -h * k->b[kk], sp->GGv, NULL, J);
    }
}

/* iteration = auto: the point of the Jacobian about to be formed, whose
 * factors the workspace keeps: the iterate x, recorded with q0, p0 and h;
 * or, first after a resumed run, the point the original run kept (its q0
 * and p0 in place of the step's until the Jacobian is formed). */
static const double *jacobian_point(spark *k, const double *x)
{
    double *point = k->kept;
    k->kept_valid = 1;
    if (k->reform) {
        k->reform = 0;
        k->q0 = point + k->size, k->p0 = point + k->size + k->n;
        return point;
    }
    vec_copy(k->size, x, point);
    vec_copy(k->n, k->q0, point + k->size);
    vec_copy(k->n, k->p0, point + k->size + k->n);
    k->kept_h = k->h;
    return x;
}

static int jacobian(void *user, const double *x, double *J)
{
    spark *k = user;
    const double *q0 = k->q0, *p0 = k->p0;
    if (k->iteration == ITERATION_AUTO)
        x = jacobian_point(k, x);
    stages(k, x);
    if (k->sp.ext) {
        sparse_jacobian(k, x, J);
    } else {
        stage_hessians(k, x);
        memset(J, 0, (size_t)k->size * k->size * sizeof(double));
        momentum_rows(k, J);
        position_rows(k, J);
        hidden_constraint_rows(k, J);
    }
    k->q0 = q0, k->p0 = p0;
    return WB_OK;
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
    spark_sparse *sp = &k->sp;
    wb_block_matrix_free(&sp->K);
    wb_block_matrix_free(&sp->J);
    wb_csr_free(&sp->Gt);
    free(sp->Gt_origin);
    wb_csr_free(&sp->GK);
    wb_csr_free(&sp->GG);
    free(sp->mark);
    free(sp->values);
    free(k->x);
    free(k);
}

/* One block of doubles, owned by x, carved into the arrays; the dense
 * path's matrices are empty on the sparse one. */
static int allocate(spark *k, int sparse)
{
    const size_t n = (size_t)k->n, m = (size_t)k->m, s = (size_t)k->s, N = (size_t)k->size;
    const size_t nn = sparse ? 0 : n * n, mn = sparse ? 0 : m * n, mm = sparse ? 0 : m * m;
    const size_t doubles =
        5 * N + 2 * n + nn + 3 * s * n + s * mn + s * nn + 2 * nn + 2 * n + 4 * mn + mm;
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
    k->V = p, p += s * n;
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

/* The Newton matrix's blocks where the tableau puts nonzero coefficients
 * (rows: momenta, g(Q_i) for i >= 1, the hidden constraint; columns: P_k,
 * L_k); 0 or -1 (out of memory). */
static int place_blocks(spark *k)
{
    spark_sparse *sp = &k->sp;
    const int n = k->n, m = k->m, s = k->s, hidden = s * n + (s - 1) * m;
    const wb_sparse_pattern *K = &sp->K.csr.pattern;
    wb_block_matrix *J = &sp->J;
    wb_block_matrix_init(J, k->size, k->size);
    int ok = 1;
#define PLACE(id, row, col, pattern, transposed, size, nonzero)                           \
    do {                                                                                  \
        (id) = (nonzero) ? wb_block_place(J, row, col, pattern, transposed, size) : -1;   \
        ok &= !(nonzero) || (id) >= 0;                                                    \
    } while (0)
    for (int i = 0; i < s; i++) {
        PLACE(sp->identity[i], i * n, i * n, NULL, 0, n, 1);
        for (int kk = 0; kk < s; kk++) {
            int coupled = 0;
            for (int j = 0; j < s; j++)
                coupled |= k->ah[i * s + j] * k->a[j * s + kk] != 0.0;
            PLACE(sp->stage_K[i][kk], i * n, kk * n, K, 0, 0, coupled);
            PLACE(sp->stage_Gt[i][kk], i * n, s * n + kk * m, sp->G, 1, 0,
                  k->ah[i * s + kk] != 0.0);
            PLACE(sp->position_G[i][kk], s * n + (i - 1) * m, kk * n, sp->G, 0, 0,
                  i > 0 && k->a[i * s + kk] != 0.0);
        }
    }
    for (int kk = 0; kk < s; kk++) {
        int coupled = 0;
        for (int j = 0; j < s; j++)
            coupled |= k->b[j] * k->a[j * s + kk] != 0.0;
        PLACE(sp->hidden_B[kk], hidden, kk * n, sp->G, 0, 0, k->a[(s - 1) * s + kk] != 0.0);
        PLACE(sp->hidden_GK[kk], hidden, kk * n, &sp->GK.pattern, 0, 0, coupled);
        PLACE(sp->hidden_GG[kk], hidden, s * n + kk * m, &sp->GG.pattern, 0, 0,
              k->b[kk] != 0.0);
    }
#undef PLACE
    return ok && wb_block_matrix_build(J) == 0 ? 0 : -1;
}

/* The sparse path's structure: the model's patterns (checked), K's union
 * pattern, the products' patterns, the Newton matrix and its workspace. */
static int create_sparse(spark *k)
{
    spark_sparse *sp = &k->sp;
    const wb_host *host = k->host;
    const wb_model *model = k->model;
    const int n = k->n, m = k->m, s = k->s;
    const char *missing;
    sp->ext = wb_sparse_usable(host, model, WB_SPARSE_NEEDS_HESSIANS, &missing);
    sp->self = model->model_self;
    sp->G = sp->ext->jacobian_pattern(sp->self);
    const wb_sparse_pattern *H = sp->ext->potential_hessian_pattern(sp->self);
    const wb_sparse_pattern *T = sp->T = sp->ext->hessian_contract_pattern(sp->self);
    if (wb_sparse_check_pattern(host, model, sp->G, m, n, "G", "spark") != WB_OK ||
        wb_sparse_check_pattern(host, model, H, n, n, "Hess V", "spark") != WB_OK ||
        wb_sparse_check_pattern(host, model, T, n, n, "T(q; mu)", "spark") != WB_OK)
        return WB_ERR_INVALID;
    wb_block_matrix_init(&sp->K, n, n);
    sp->K_hessian = wb_block_place(&sp->K, 0, 0, H, 0, 0);
    sp->K_contract = wb_block_place(&sp->K, 0, 0, T, 0, 0);
    if (sp->K_contract < 0 || wb_block_matrix_build(&sp->K) != 0 ||
        wb_csr_transpose(sp->G, &sp->Gt, &sp->Gt_origin) != 0 ||
        wb_csr_product_pattern(sp->G, &sp->K.csr.pattern, 0, &sp->GK) != 0 ||
        wb_csr_product_pattern(sp->G, &sp->Gt.pattern, 0, &sp->GG) != 0 || place_blocks(k) != 0)
        return WB_ERR_NOMEM;
    const size_t nnz_G = (size_t)sp->G->nnz, nnz_K = (size_t)sp->K.csr.pattern.nnz;
    sp->mark = calloc((size_t)n + (size_t)m + 1, sizeof(int));
    sp->values = calloc((size_t)n + (s + 2) * nnz_G + s * nnz_K + (size_t)H->nnz +
                            (size_t)T->nnz + (size_t)sp->GK.pattern.nnz +
                            (size_t)sp->GG.pattern.nnz + 1,
                        sizeof(double));
    if (!sp->mark || !sp->values)
        return WB_ERR_NOMEM;
    double *p = sp->values;
    sp->inverse_mass = p, p += n;
    sp->Gv = p, p += s * nnz_G;
    sp->Bv = p, p += nnz_G;
    sp->Gtv = p, p += nnz_G;
    sp->KM = p, p += s * nnz_K;
    sp->Hv = p, p += H->nnz;
    sp->Tv = p, p += T->nnz;
    sp->GKv = p, p += sp->GK.pattern.nnz;
    sp->GGv = p;
    /* M is constant (wb_require_constant_mass): its diagonal at any q */
    if (wb_sparse_inverse_mass(host, model, sp->ext, k->Q, sp->inverse_mass, "spark") != WB_OK)
        return WB_ERR_INVALID;
    k->newton = host->newton_create_sparse(host, &sp->J.csr.pattern);
    return k->newton ? WB_OK : WB_ERR_NOMEM;
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
    k->size = s * (k->n + k->m);
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
    if (status == WB_OK && sparse)
        status = create_sparse(k);
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
    if (!sparse) /* Q (s >= 2 stages) is free until a step */
        wb_constant_inverse_mass(model, k->Q, k->Minv);
    *inst = k;
    return WB_OK;
}

static int reset(void *inst, double t, const double *q, const double *p)
{
    spark *k = inst;
    (void)t;
    k->history_valid = 0;
    k->kept_valid = 0, k->reform = 0;
    double *L = stage_L(k, k->x, 0);
    if (wb_index1_multiplier(k->model, q, p, L) != WB_OK)
        for (int c = 0; c < k->m; c++)
            L[c] = 0;
    for (int i = 1; i < k->s; i++)
        vec_copy(k->m, L, stage_L(k, k->x, i));
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
    for (int i = 0; i < s; i++)
        vec_copy(m, carried, stage_L(k, k->x, i));
    /* the kept factors are formed again at their point before they are used */
    k->kept_valid = k->reform = k->iteration == ITERATION_AUTO && m <= n && state[0] != 0.0;
    if (k->kept_valid) {
        vec_copy(k->size + 2 * n, point, k->kept);
        k->kept_h = state[1];
    }
    k->history_valid = k->extrapolate && valid[0] != 0.0;
    if (k->history_valid) {
        vec_copy(s * n, stages, k->forces);
        vec_copy(s * m, stages + (size_t)s * n, stage_L(k, k->x, 0));
        vec_copy(n, q, k->last);
        vec_copy(n, p, k->last + n);
        k->last_h = h;
    }
    return WB_OK;
}

/* The first iterate: the last step's forces and multipliers extrapolated
 * when they are those of the step that ended at (q0, p0) with this h, else
 * P_i = p0 and every L_i = the last L_s.  x is kept in k->saved. */
static int first_guess(spark *k, double h, const double *q0, const double *p0, int extrapolate)
{
    const int n = k->n, m = k->m, s = k->s;
    vec_copy(k->size, k->x, k->saved);
    const int continuing = extrapolate && k->history_valid && h == k->last_h &&
                           vec_equal(n, q0, k->last) && vec_equal(n, p0, k->last + n);
    for (int i = 0; i < s; i++) {
        double *Pi = stage_P(k, k->x, i), *Li = stage_L(k, k->x, i);
        vec_copy(n, p0, Pi);
        if (!continuing) {
            vec_copy(m, stage_L(k, k->saved, s - 1), Li);
            continue;
        }
        for (int c = 0; c < m; c++)
            Li[c] = 0.0;
        for (int j = 0; j < s; j++) {
            vec_axpy(n, -h * k->force_extrapolation[i * s + j], k->forces + (size_t)j * n, Pi);
            vec_axpy(m, k->extrapolation[i * s + j], stage_L(k, k->saved, j), Li);
        }
    }
    return continuing;
}

/* The size of each residual row's terms at (q0, p0): momenta |p0| + h |F|
 * with F's constraint forces G^T L at the guess L, whose terms are
 * |G(q0)|^T |L| and, G being made of coordinates (their differences for a
 * chain, whose tensions grow with N), |T(q0; L)| |q0|; g(Q_i) / h from
 * G(q0) |q0| / h,
 * and G(q1) M^-1 p1 from G(q0) |M^-1| times the momentum size.  (k->B,
 * k->sp.Bv and k->v are free until the Newton solve.) */
static void row_scales(spark *k, double h, const double *q0, const double *p0)
{
    const int n = k->n, m = k->m, s = k->s;
    const double *L = stage_L(k, k->x, s - 1);
    double momentum = wb_momentum_scale(k->model, q0, p0, h, k->v);
    double *rows = k->scale + (size_t)s * n, *hidden = rows + (size_t)(s - 1) * m;
    double minv = 0.0; /* |M^-1| in the max norm */
    double *force = k->v;
    for (int i = 0; i < n; i++)
        force[i] = 0.0;
    const double q_size = wb_scale_max_abs(n, q0);
    const spark_sparse *sp = &k->sp;
    if (sp->ext) {
        const wb_sparse_pattern *G = sp->G, *T = sp->T;
        sp->ext->jacobian_values(sp->self, q0, sp->Bv);
        for (int c = 0; c < m; c++)
            for (int e = G->row_start[c]; e < G->row_start[c + 1]; e++)
                force[G->columns[e]] += fabs(sp->Bv[e] * L[c]);
        sp->ext->hessian_contract_values(sp->self, q0, L, sp->Tv);
        for (int i = 0; i < n; i++)
            for (int e = T->row_start[i]; e < T->row_start[i + 1]; e++)
                force[i] += fabs(sp->Tv[e]) * q_size;
        minv = wb_scale_max_abs(n, sp->inverse_mass) * n;
    } else {
        wb_constraint_jacobian(k->model, q0, k->B);
        for (int c = 0; c < m; c++)
            for (int i = 0; i < n; i++)
                force[i] += fabs(k->B[(size_t)c * n + i] * L[c]);
        wb_constraint_hessian_contract(k->model, q0, L, k->T);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                force[i] += fabs(k->T[(size_t)i * n + j]) * q_size;
        for (int i = 0; i < n; i++)
            minv = fmax(minv, wb_scale_max_abs(n, k->Minv + (size_t)i * n) * n);
    }
    momentum += fabs(h) * wb_scale_max_abs(n, force);
    for (int r = 0; r < s * n; r++)
        k->scale[r] = momentum;
    if (sp->ext) {
        wb_sparse_row_scales(sp->G, sp->Bv, q_size, fabs(h), rows);
        wb_sparse_row_scales(sp->G, sp->Bv, minv * momentum, 1.0, hidden);
    } else {
        wb_constraint_row_scales(m, n, k->B, q_size, fabs(h), rows);
        wb_constraint_row_scales(m, n, k->B, minv * momentum, 1.0, hidden);
    }
    for (int i = 2; i < s; i++)
        vec_copy(m, rows, rows + (size_t)(i - 1) * m);
}

static int newton(spark *k, wb_step_stats *stats)
{
    return k->host->newton_solve(k->host, k->newton, residual, jacobian, k, k->x,
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
    if (WB_HAS_FIELD(stats, wb_step_stats, newton_steps))
        stats->newton_steps++;
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
    vec_copy(m, stage_L(k, k->x, s - 1), out);
    double *stages = out + m, *valid = stages + 2 * (size_t)s * n;
    for (size_t e = 0; e < 2 * (size_t)s * n; e++)
        stages[e] = 0.0;
    if (k->history_valid) {
        vec_copy(s * n, k->forces, stages);
        vec_copy(s * m, stage_L(k, k->x, 0), stages + (size_t)s * n);
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
