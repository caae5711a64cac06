/* The `ggl` family: integrators of Kinon-Betsch-Schneider, "Structure-
 * preserving integrators based on a new variational principle for
 * constrained mechanical systems" (Nonlinear Dyn. 2023), built on the GGL
 * principle (Livens' principle with multipliers lambda for g(q) = 0 and
 * gamma for the velocity constraint g^v(q, p) = G(q) M^-1 p = 0):
 *
 *   vi_s         first-order GGL variational integrator (eq. 55)
 *   vi_theta     one-stage theta variational integrators, option A (g at
 *                q^{n+theta}, eq. 79) or B (trapezoidal g, eq. 82)
 *   em           GGL energy-momentum scheme (eq. 84)
 *   em_gonzalez  Gonzalez's 1999 energy-momentum scheme, g only (EM-G)
 *   bs99         Bobenko-Suris 1999 discrete Lagrange top, the paper's
 *                comparison on the heavy top (bs99.c)
 *
 * Every method solves its step by Newton's method (host->newton_solve)
 * with an analytic Jacobian, for a constant mass matrix.  The host state
 * is (q, p) at the nodes; the interval unknowns (velocity v, multipliers
 * lambda and gamma) live in the instance and are published as aux
 * unknowns.  Notation (as in the paper and the digest):
 *   G(q) = Dg(q), T(q; mu) = sum_k mu_k D^2 g_k(q) = D_q[G^T mu],
 *   B(q; w) = D_q[G(q) w] (row k = (D^2 g_k w)^T). */
#ifndef GGL_H
#define GGL_H

#include <workbench/workbench.h>

#include "wb_fd_coloured.h"
#include "wb_sparse_method.h"

typedef struct ggl ggl;

/* What distinguishes the methods: the unknown layout and the equations. */
typedef struct ggl_scheme {
    const char *label;        /* "VI-S", "theta-VI", "EM", "EM-G"            */
    int has_velocity;         /* interval velocity v among the unknowns      */
    int has_gamma;            /* velocity-constraint multiplier gamma        */
    wb_residual_fn residual;
    wb_jacobian_fn jacobian;
    /* optional: values at q0 the residual reuses during one step */
    void (*start_values)(ggl *g);
    /* linear_solver = sparse (optional; needs quadratic constraints, whose
     * third derivatives vanish): the Newton matrix's blocks, placed once in
     * g->sparse.J, and its values in that pattern */
    int (*place_blocks)(ggl *g);
    wb_jacobian_fn sparse_jacobian;
    /* and the rank-one part of that Newton matrix (optional; ABI 1.4) */
    wb_rank_one_fn sparse_rank_one;
    /* optional: after a converged solve, the solution's final touch (EM-G:
     * the velocity across g = 0 freed of the positions' round-off, em.c) */
    int (*finish)(ggl *g);
    /* set up what finish needs (optional; 0, or -1 out of memory) */
    int (*finish_create)(ggl *g);
} ggl_scheme;

/* linear_solver = sparse: the model's patterns, the diagonal mass and the
 * Newton matrix's blocks (numbered by the scheme, -1 absent).  Then the
 * instance's G arrays (G0, Ga, Gb, Bm) hold values in G's pattern, its
 * n x n arrays (Ta, Tb, K) values in T's or Hess V's, and M, Minv the
 * diagonals. */
enum { GGL_MAX_BLOCKS = 32 };
typedef struct ggl_sparse {
    const wb_sparsity_ext *ext;  /* NULL: the dense path            */
    void *self;                  /* the model instance              */
    const wb_sparse_pattern *G, *T, *H;
    wb_block_matrix J;
    int block[GGL_MAX_BLOCKS];
    /* Greenspan's d DG / d q1 by differences in Hess V's pattern (which
     * holds it for V = sum_i V_i(pi_i)): the columns' colours */
    wb_fd_colouring colouring;
    /* EM-G's finish: G G^T's pattern (S), G's transpose (Gt, Gt_origin:
     * G's entry of each of its entries, Gt_values), its LU and scratch */
    wb_csr Gt, S;
    int *Gt_origin, *mark;
    double *Gt_values;
    wb_sparse_lu *lu;
} ggl_sparse;

/* How the energy-momentum schemes discretise grad V. */
enum ggl_gradient { GGL_DG_GONZALEZ, GGL_DG_GREENSPAN };

struct ggl {
    const wb_host *host;
    const wb_model *model;
    const ggl_scheme *scheme;
    int n, m;                 /* coordinates, constraints                  */
    int size;                 /* Newton unknowns                           */
    int off_q, off_p, off_v, off_l, off_g; /* offsets in x (-1: absent)    */

    /* options */
    double theta, vartheta;   /* vi_theta                                  */
    int trapezoidal;          /* vi_theta: option B                        */
    int advanced_guess;       /* q^{n+1} guess q^n + h v^n instead of q^n  */
    int gradient;             /* em, em_gonzalez: enum ggl_gradient        */
    int continuation;         /* solver: continuation in h when Newton fails */
    wb_newton *newton;
    wb_newton_options newton_options;

    /* the step being solved */
    double h;
    const double *q0, *p0;
    double *scale;            /* the sizes of each residual row's terms     */
    double *x, *saved;        /* unknowns (x owns the work memory); the
                                 previous step's, restored on failure      */
    double *branch0, *branch1; /* continuation: the last two solutions     */
    wb_step_stats *stats;     /* the step's counters (NULL outside a step) */

    /* constant mass matrix and its inverse, n x n */
    double *M, *Minv;
    /* values at q0 (start_values) */
    double *grad0, *G0, *g0;
    double v0;                /* V(q0), for Gonzalez's discrete gradient   */
    /* work memory (no allocation per step) */
    double *qa, *w, *u, *t1, *t2, *t3;        /* n each                    */
    double *Ga, *Gb, *Bm, *MGt;               /* m x n each (MGt: n x m)   */
    double *Ta, *Tb, *K, *N1, *N2;            /* n x n each                */
    double *dq, *da, *db, *dH;                /* discrete gradient: n, n, n, n x n */
    double *fd;                               /* its central differences: 4 n */
    double dg_c;              /* sparse path: Gonzalez's c at the last Jacobian */
    /* EM-G's finish: r, kappa (m each), S = G M^-1 G^T (m x m, or values
     * in sparse.S's pattern); one block, owned by across */
    double *across, *kappa, *S;
    ggl_sparse sparse;
};

/* One evaluation of grad V or of a discrete gradient of V, what the
 * statistics call a force evaluation, in the step being solved. */
static inline void ggl_count_force(const ggl *g, uint64_t evaluations)
{
    if (g->stats)
        g->stats->function_evals += evaluations;
}

/* ---- the schemes (vi.c, em.c) --------------------------------------------- */
extern const ggl_scheme ggl_vi_s_scheme;
extern const ggl_scheme ggl_vi_theta_scheme;
extern const ggl_scheme ggl_em_scheme;
extern const ggl_scheme ggl_em_gonzalez_scheme;

/* ---- the methods (methods.c) ------------------------------------------------ */
extern const wb_method ggl_vi_s;
extern const wb_method ggl_vi_theta;
extern const wb_method ggl_em;
extern const wb_method ggl_em_gonzalez;
extern const wb_method ggl_bs99; /* bs99.c: no GGL instance, no Newton */

/* ---- shared numerics (common.c) -------------------------------------------- */

/* Set up an instance for `scheme` (options already decoded into *proto);
 * linear_solver is the option's value (auto|dense|sparse). */
int ggl_create(const wb_host *host, const wb_model *model, const ggl_scheme *scheme,
               const ggl *proto, const char *linear_solver, void **inst);
void ggl_destroy(void *inst);
int ggl_reset(void *inst, double t, const double *q, const double *p);
int ggl_step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
             double *p1, wb_step_stats *stats);
void ggl_aux_values(const void *inst, double *out);
/* reset(), or continue from aux_values' layout (v, lambda, gamma). */
int ggl_start(void *inst, double t, double h, const double *q, const double *p,
              const double *aux);

/* Discrete gradient of V between the step's q0 and q1 (dg, n values) and
 * its derivative with respect to q1 (n x n), per g->gradient; the start
 * values they use, once per step (a ggl_scheme's start_values). */
void ggl_discrete_gradient(ggl *g, const double *q1, double *dg);
void ggl_discrete_gradient_jacobian(ggl *g, const double *q1, double *J);
void ggl_discrete_gradient_start(ggl *g);
/* The sparse path's d DG / d q1 = s H + c I + dq (x) grad c, with H in
 * Hess V's pattern (values): Gonzalez's s = 1/2, H = Hess V(q_m) and c
 * its coefficient; Greenspan's s = 1, H its derivative by coloured
 * differences and c = 0.  Returns c, with dq in g->db and grad c (where
 * c != 0) in g->dq: the rank-one part, which the Newton solves take by
 * Sherman-Morrison (host->newton_set_rank_one). */
double ggl_discrete_gradient_sparse_jacobian(ggl *g, const double *q1, double *values,
                                             double *s);

/* The products the residuals are made of, on either path: y = M^-1 x,
 * y = M x; G(q), T(q; mu), B(q; w) into an instance array (dense, or
 * values in the pattern); y = G x, y = G^T x, y = T x for such arrays. */
void ggl_inverse_mass_times(const ggl *g, const double *x, double *y);
void ggl_mass_times(const ggl *g, const double *x, double *y);
void ggl_constraint_jacobian(const ggl *g, const double *q, double *G);
void ggl_hessian_contract(const ggl *g, const double *q, const double *mu, double *T);
void ggl_hessian_vector(const ggl *g, const double *q, const double *w, double *B);
void ggl_G_times(const ggl *g, const double *G, const double *x, double *y);
void ggl_Gt_times(const ggl *g, const double *G, const double *x, double *y);
void ggl_T_times(const ggl *g, const double *T, const double *x, double *y);

/* A block of the sparse Newton matrix: its number in g->sparse.block, its
 * block row (residual R1..R5 of the VIs: 1..5) and block column (the
 * unknown), and the pattern it has. */
enum ggl_unknown { GGL_Q, GGL_P, GGL_V, GGL_L, GGL_C };
enum ggl_pattern { GGL_IDENTITY, GGL_PATTERN_G, GGL_PATTERN_G_T, GGL_PATTERN_T,
                   GGL_PATTERN_T_T, GGL_PATTERN_H };
typedef struct ggl_block_spec {
    int id, residual, unknown, pattern;
} ggl_block_spec;

/* Place the blocks of `spec` in g->sparse.J for the VIs' row layout
 * (R1, R2, R3: n rows each, R4, R5: m).  0, or -1 out of memory. */
int ggl_place_blocks(ggl *g, const ggl_block_spec *spec, int count);
/* J += s values in block `id` (values NULL: ones), each scaled by
 * scale[its column in the block's pattern] (NULL: not scaled): with
 * scale = g->Minv, X M^-1 or, transposed, M^-1 X^T. */
void ggl_add(const ggl *g, double *J, int id, double s, const double *values,
             const double *scale);

#endif
