/* The spark family's state, shared by its files:
 *   spark.c            the method: options, carried state, the first iterate,
 *                      the iteration (auto, newton, simplified), the step;
 *   spark_system.c     what both stage forms share: the stage forces, the
 *                      constraint rows, the Jacobian callback, the sparse
 *                      path's patterns;
 *   spark_momenta.c    the stage momenta P_i as unknowns (stage_form =
 *                      momenta);
 *   spark_positions.c  the stage positions (stage_form = positions).
 * Each stage form is a `spark_form`: its unknowns' positions Q_i, its own
 * residual rows and Jacobian blocks, and its unknowns from a guess of the
 * stage momenta. */
#ifndef SPARK_INTERNAL_H
#define SPARK_INTERNAL_H

#include <workbench/workbench.h>

#include "wb_sparse_method.h"
#include "wb_vec.h"

enum { SPARK_MAX_S = 8 }; /* option s's upper bound */

enum { ITERATION_AUTO, ITERATION_NEWTON, ITERATION_SIMPLIFIED }; /* option iteration */

/* linear_solver = sparse: the stage values in the model's patterns and the
 * Newton matrix's blocks.  Block numbers are -1 where the tableau's
 * coefficients leave the block zero; each form gives them its own rows and
 * columns (see its place_blocks). */
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
    double *mass;                 /* n: the diagonal of M                        */
    double *Gv;                   /* G(Q_j) in G's pattern, s of them            */
    double *KM;                   /* K_j (times M^-1: the momenta form) in K's
                                     pattern, s of them                          */
    double *Hv, *Tv;              /* Hess V and T(Q_j; L_j) of one stage         */
    double *Bv, *Gtv;             /* B(q1; M^-1 p1) in G's pattern, one G_k^T    */
    double *GKv, *GGv;            /* G M^-1 K_j (M^-1) and G M^-1 G_k^T          */
} spark_sparse;

typedef struct spark spark;

/* A stage form (see the top).  blocks: its unknowns' n-blocks, before the
 * s multiplier blocks of m; its residual has as many n-rows first. */
typedef struct spark_form {
    int (*blocks)(int s);
    void (*positions)(spark *k, const double *x);          /* Q_j into k->Q   */
    void (*rows)(spark *k, const double *x, double *r);    /* its n-rows      */
    void (*dense_jacobian)(spark *k, const double *x, double *J); /* after stages */
    void (*sparse_jacobian)(spark *k, const double *x, double *J);
    int (*place_blocks)(spark *k);                         /* 0, -1: no memory */
    void (*from_momenta)(spark *k, const double *P, double *x); /* P: s x n   */
} spark_form;

extern const spark_form spark_momenta, spark_positions;

struct spark {
    const wb_host *host;
    const wb_model *model;
    const spark_form *form;
    int n, m, s, size;
    int blocks;             /* form->blocks(s)                                 */
    const double *a, *ah, *b;
    double *W;              /* a ah, s x s (positions form)                     */
    double *c;              /* row sums of a, s                                 */
    double h;
    const double *q0, *p0;
    wb_step_stats *stats;   /* the step's: the residual counts its model calls */
    wb_newton *newton;
    wb_newton_options newton_options;
    double *x;              /* unknowns: the form's blocks, then L_1..L_s      */
    double *saved;          /* the guess, restored when a step fails           */
    double *scale;          /* the sizes of each residual row's terms (Newton) */
    double *Minv, *M;       /* n x n                                           */
    double *V;              /* V_j = M^-1 P_j, s x n                           */
    double *momenta;        /* the first iterate's stage momenta, s x n        */
    double *Q, *F, *G;      /* stages: Q_j, F_j (s x n), G(Q_j) (s x m x n)    */
    double *KM;             /* K_j (M^-1) (s x n x n), K_j = dF_j/dQ_j         */
    double *hess, *T;       /* n x n scratch for one K_j                       */
    double *v, *p1;         /* M^-1 p1 and p1, n each                          */
    /* the hidden constraint's rows, m x n each: B(q1; v), B(q1; v) M^-1,
     * G(q1) M^-1, G(q1) M^-1 K_j (M^-1); and m x m G(q1) M^-1 G_j^T */
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
    /* Q_1 = q0 (IIIA's first row is zero): grad V and G there do not change
     * from residual to residual of a step; evaluated once for the q0 they
     * belong to (compared bit for bit: Jacobians kept across steps switch
     * q0), and copied into stage 1's F and G */
    double *first_grad;     /* grad V(first_q), n                              */
    double *first_G;        /* G(first_q): m x n, or G's nnz values (sparse)    */
    size_t first_G_size;    /* its doubles                                     */
    double *first_q;        /* n                                               */
    int first_valid;
};

/* ---- layout and shared pieces (spark_system.c) ----------------------------------- */

static inline double *spark_stage_L(const spark *k, double *x, int i)
{
    return x + (size_t)k->blocks * k->n + (size_t)i * k->m;
}

/* grad V(q) and G(q) into first_grad and first_G unless they hold them
 * already (Q_1 = q0 is every residual's stage 1, and the row scales'
 * point).  Returns the model evaluations made (0 or 1). */
int spark_first_stage(spark *k, const double *q);

/* G(Q_j): m x n rows, or its values in G's pattern (sparse). */
static inline double *spark_stage_G(const spark *k, int j)
{
    return k->sp.ext ? k->sp.Gv + (size_t)j * k->sp.G->nnz : k->G + (size_t)j * k->m * k->n;
}

/* V = M^-1 P (dense or diagonal M^-1). */
static inline void spark_inverse_mass_times(const spark *k, const double *P, double *V)
{
    if (k->sp.ext)
        for (int i = 0; i < k->n; i++)
            V[i] = k->sp.inverse_mass[i] * P[i];
    else
        mat_vec(k->n, k->n, k->Minv, P, V);
}

/* The Newton system's callbacks (newton_solve). */
int spark_residual(void *user, const double *x, double *r);
int spark_jacobian(void *user, const double *x, double *J);

/* The sparse path's patterns and workspace (the form's blocks included). */
int spark_create_sparse(spark *k);
void spark_free_sparse(spark *k);

/* Sparse: K_j = Hess V(Q_j) + T(Q_j; L_j) times diag(scale) (NULL: none)
 * in K's pattern into sp->KM, for the stages from..s-1. */
void spark_sparse_stage_K(spark *k, const double *x, int from, const double *scale);
/* Sparse: G(q1) M^-1 G_k^T in GG's pattern into sp->GGv. */
void spark_sparse_GMGt(spark *k, int kk);

/* Place a block when `nonzero` (else its number is -1); 0 when out of memory. */
static inline int spark_place(wb_block_matrix *J, int *id, int row, int col,
                              const wb_sparse_pattern *p, int transposed, int size, int nonzero)
{
    *id = nonzero ? wb_block_place(J, row, col, p, transposed, size) : -1;
    return !nonzero || *id >= 0;
}

#endif
