/* The `variationalize` family: any one-step method turned into a
 * variational integrator of the same order, after Patrick, Cuell, Spiteri
 * and Zhang, "On converting any one-step method to a variational integrator
 * of the same order" (seed 003; digest shared/notes/003.md).
 *
 * Systems: L(q, v) = 1/2 v^T M v - V(q) on R^N with a constant mass matrix
 * and holonomic constraints g(q) = 0 (d of them, possibly none).  The
 * driver's state is (q, p) with p = M v.
 *
 * Three layers, one file each:
 *
 *   field.c       F(q, v) = (v, A(q, v), L(q, v)) of the augmented system
 *                 q' = v, v' = A, S' = L, with A and its derivatives from
 *                 the saddle-point system (4.3) of the paper (corrected
 *                 derivative formulas, digest 2.6), valid off TQ.
 *   layer.c       the standard layer: one Runge-Kutta step R_t(q, v) =
 *                 (R^q, R^v, R^S) of any tableau, explicit or implicit, for
 *                 a signed t (t = 0 is the identity), with its first
 *                 derivative from the variational equations (the same
 *                 method on Y' = DF Y), or by central differences (the
 *                 test oracle).
 *   projection.c  the projection P onto Q along the fibres of
 *                 iota(q, theta) = q + W G(q)^T theta (W = I, the paper's
 *                 (3.2), or W = M^-1), the pull-back (4.7) of a covector,
 *                 and the velocity projection onto T_q Q.
 *
 * and the symplectic layer on top:
 *
 *   del.c         the discrete Euler-Lagrange equations in the reduced
 *                 form (digest 2.8): (qbar, mu) -> (qbar', mu') with
 *                 w = (q, v) in TQ as the intermediate, 3N + 3d unknowns,
 *                 solved by Newton through the host (its matrix: the
 *                 columns of (q2, v2) by forward differences of the exact
 *                 residual, the others analytic; a step the chosen solver
 *                 fails is retried from the same guess by full Newton with
 *                 those columns by extrapolated central differences); the
 *                 linear start-up solve for mu.
 *   stage4.c      the paper's own Stage 4 system (12N + 5d equations) and
 *                 its fixed-point iteration with the approximates of
 *                 Fig. 2 as corrected in the digest (S4.6a', S4.7a'): a
 *                 chord iteration through the host's Newton.
 *   method.c      options, claims, the methods `vi` and `projected`.
 *
 * No sparse path (issue 12's chains): the scheme is built on the Jacobian
 * of the layer's one-step map, D R_t, and on the index-1 field's DF, and
 * both are dense for a chain however sparse G and Hess V are (the
 * multipliers solve (G M^-1 G^T) lambda = ..., whose inverse couples every
 * link to every other), so a step costs O(N^3) at least; today's forward
 * differences over the 3N + 3d reduced unknowns add a factor of N.
 * Measured on pendulum_chain (planar, h = 0.01, 5 steps): 1.1 ms, 7.4 ms,
 * 86 ms and 1.29 s a step at N = 4, 8, 16, 32, about N^3.6.
 */
#ifndef VARIATIONALIZE_H
#define VARIATIONALIZE_H

#include <workbench/workbench.h>

/* ---- the vector field ---------------------------------------------------------- */

typedef struct vz_field {
    const wb_host *host;
    const wb_model *model;
    int n, m;             /* N coordinates, d constraints                       */
    double *M, *Minv;     /* constant mass matrix and its inverse, n x n        */
    /* work memory */
    double *MinvGt;       /* n x m: M^-1 G^T                                    */
    double *S, *S_lu;     /* m x m: G M^-1 G^T and a copy to eliminate           */
    double *rhs;          /* m x 2n: the multipliers' derivatives                */
    double *G, *B, *third;/* m x n: G(q), B(q; w), D^3 g(v, v, .)               */
    double *T, *D;        /* n x n                                               */
    double *grad, *u, *lambda, *unit; /* n, n, m, m (+ 2n scratch at set-up)     */
} vz_field;

int vz_field_init(vz_field *f, const wb_host *host, const wb_model *model);
void vz_field_free(vz_field *f);

/* At (q, v): A (n values), L, and when dA is not NULL the derivatives
 * dA = [A_q | A_v] (n x 2n row-major) and dL = [L_q | L_v] (2n values). */
int vz_field_eval(vz_field *f, const double *q, const double *v, double *A, double *L,
                  double *dA, double *dL, wb_step_stats *stats);

/* ---- the standard layer ---------------------------------------------------------- */

typedef enum vz_derivatives { VZ_VARIATIONAL = 0, VZ_FINITE_DIFFERENCE = 1 } vz_derivatives;

typedef struct vz_layer {
    vz_field *field;          /* shared, not owned                            */
    const wb_tableau *tableau;
    int s, n, dim;            /* stages, N, 2N                                */
    int explicit_tableau;
    int derivatives;          /* vz_derivatives                               */
    /* work memory */
    double *y;                /* s x dim: stage values (q, v)                 */
    double *k;                /* s x dim: F at the stages                     */
    double *Ls;               /* s: L at the stages                           */
    double *dA;               /* s x (n x dim)                                */
    double *dL;               /* s x dim                                      */
    double *Y;                /* s x (dim x dim): stage derivatives           */
    double *K;                /* s x (dim x dim): DF Y at the stages           */
    double *Z, *R, *dZ;       /* s x dim: implicit stages' increments        */
    double *newton;           /* (s dim)^2 and its LU                         */
    int *pivots;              /* s dim                                        */
    double *fd;               /* the oracle's scratch                         */
    wb_step_stats *stats;     /* of the step under way                        */
} vz_layer;

int vz_layer_init(vz_layer *ly, vz_field *field, const wb_tableau *t, int derivatives);
void vz_layer_free(vz_layer *ly);

/* R_t(q, v): q_out = R^q (n), v_out = R^v (n, may be NULL), S = R^S; with
 * J not NULL also J = D R^q (n x 2n) and dS = D R^S (2n).  t may be
 * negative; t = 0 is the identity exactly. */
int vz_layer_step(vz_layer *ly, double t, const double *q, const double *v, double *q_out,
                  double *v_out, double *S, double *J, double *dS, wb_step_stats *stats);

/* ---- the projection onto Q ------------------------------------------------------- */

/* VZ_AUTO (vi's default) is resolved at creation (vz_del_create) to one of
 * the other two by the model's mass ratio, never reaches the projection. */
typedef enum vz_weight { VZ_ORTHOGONAL = 0, VZ_MASS = 1, VZ_AUTO = 2 } vz_weight;

/* The mass ratio of a constant mass matrix M (n x n, symmetric positive
 * definite, row-major): its largest eigenvalue over its smallest (for a
 * diagonal M of point masses, the heaviest over the lightest); 1 for n = 0,
 * INFINITY when M is singular or not positive definite. */
double vz_mass_ratio(int n, const double *M);
/* Above this mass ratio vi's W = I (the paper's (3.2)) holds a light
 * point's velocity only to ~tol x the ratio (the pull-back carries the
 * heavy momentum into its rows): 1e-10 at 1e3, 2e-9 at 1e4, 0.1 .. 0.3 at
 * 1e12 (double_spherical_pendulum, four_particles, against RATTLE at h/10).
 * projection = "auto" takes W = M^-1 above it; "orthogonal" is refused
 * there on a constrained model. */
#define VZ_MASS_RATIO_LIMIT 1e3

typedef struct vz_projection {
    vz_field *field;          /* shared: model, M^-1                           */
    int n, m;
    int weight;               /* vz_weight                                     */
    double *W;                /* n x n: I or M^-1                              */
    /* work memory */
    double *K;                /* (n+m)^2, eliminated in place                  */
    double *r, *G, *T, *WGt, *x; /* n+m, m x n, n x n, n x m, (n+m) x (n+1)   */
} vz_projection;

int vz_projection_init(vz_projection *p, vz_field *field, int weight);
void vz_projection_free(vz_projection *p);

/* q = P(qhat) and theta (m values) with qhat = q + W G(q)^T theta,
 * g(q) = 0: Newton from (qhat, 0) to machine precision.  Without
 * constraints q = qhat. */
int vz_project(vz_projection *p, const double *qhat, double *q, double *theta,
               wb_step_stats *stats);
/* The pull-back (4.7) of `count` covectors l (rows of n values) through
 * DP at the projection data (q, theta): lhat = DP^T l, solved from
 * K(q, theta)^T [lhat; z] = [l; 0].  Without constraints lhat = l. */
int vz_pull(vz_projection *p, const double *q, const double *theta, int count,
            const double *l, double *lhat);
/* out = W G(q)^T theta (n values). */
void vz_normal_offset(vz_projection *p, const double *q, const double *theta, double *out);
/* v = the M-orthogonal projection of vhat onto T_q Q = {G(q) v = 0}. */
int vz_project_velocity(vz_projection *p, const double *q, const double *vhat, double *v);

/* ---- the symplectic layer ---------------------------------------------------------- */

typedef enum vz_solver { VZ_NEWTON = 0, VZ_SIMPLIFIED = 1, VZ_APPROXIMATE = 2 } vz_solver;
typedef enum vz_jacobian { VZ_JACOBIAN_MIXED = 0, VZ_JACOBIAN_FD = 1 } vz_jacobian;

typedef struct vz_options {
    const wb_tableau *layer, *layer_minus;
    double alpha_minus, alpha_plus;
    int weight;               /* vz_weight                                     */
    int derivatives;          /* vz_derivatives                                */
    int solver;               /* vz_solver                                     */
    int jacobian;             /* vz_jacobian                                   */
    int printed_approximates; /* Stage 4: S4.6a', S4.7a' as printed            */
    double tol;
    int max_iter;
} vz_options;

/* The segment ends and action of one w: q̂^-, J^-, S^-, dS^- from the minus
 * layer at t = h alpha-, the same from the plus layer at t = h alpha+. */
typedef struct vz_ends {
    double *qm, *Jm, *dSm, Sm;   /* n, n x 2n, 2n                              */
    double *qp, *Jp, *dSp, Sp;
} vz_ends;

typedef struct vz_del vz_del;
struct vz_del {
    const wb_host *host;
    const wb_model *model;
    vz_options opt;           /* opt.weight resolved: never VZ_AUTO            */
    int n, m, dim;            /* N, d, 2N                                      */
    double mass_ratio;        /* vz_mass_ratio of the model's M                */
    vz_field field;
    vz_layer plus, minus;     /* minus shares nothing but the field           */
    vz_projection proj;
    /* carried state (the aux unknowns) */
    double *qbar, *mu;        /* n each: at t_n + alpha+ h                     */
    double *mu_prev;          /* n: the previous mu (Newton's guess)           */
    double *nu1, *nu2, *theta;/* m each: Newton's guesses                      */
    /* the step under way */
    double h;
    const double *q1, *v1;    /* w1: the step's start                          */
    wb_step_stats *stats;
    /* reduced DEL: Newton */
    int nx;                   /* 3n + 3m                                        */
    double *x, *r, *x_last;   /* unknowns, residual, x of the last residual    */
    double *q2p, *th2p;       /* P(q̂+(w2)) of the last residual: n, m          */
    wb_newton *newton;
    vz_ends ends;             /* at w2                                          */
    double *lhat, *muhat, *G2, *B2, *Gbar, *Gp; /* n, n, m x n (x3), m x n     */
    double *DPt;              /* n x n: DP^T at (q2+, theta2+)                  */
    double *dmu;              /* m x n: d muhat / d theta                        */
    double *Ha;               /* n x n                                           */
    double *r_shift, *x_shift, *r_base; /* nx each: the forward differences  */
    double *r_minus, *r_half_plus, *r_half_minus; /* nx each: the extrapolated ones */
    double *x_guess;          /* nx: the step's first guess (for the retry)     */
    int extrapolated;         /* the (q2, v2) columns by extrapolated central
                                 differences (the retry's matrix), not forward */
    double *wmu, *rhs_n, *unit_m;         /* n, n, m: scratch                   */
    double *residual_scale;   /* nx: the size of each row's terms (the step's) */
    double *mass_weight;      /* n: its momentum rows' weight in Newton's test  */
    double *mass_scale;       /* n: with W = M^-1 its mass / the largest, else 1 */
    double *mass_row;         /* n: with W = M^-1 row sums of |M|, else 0      */
    int evaluation_failed;    /* a layer or the projection failed in a residual */
    double fd_size[2];        /* the differences' unit: q columns [0], v [1]   */
    double *v1buf, *vtmp;     /* n each                                          */
    /* start-up solve: (2n + 2m)^2 system */
    double *init_matrix, *init_rhs;
    double *init_copy;        /* ni^2 + 3 ni: the refinement's, column scales (W = M^-1) */
    int *init_pivots;
    vz_ends ends0;            /* at w0 (also Stage 4's ends at w1)             */
    double *q0m, *th0m, *q0p, *th0p, *DPm, *DPp; /* n, m, n, m, n x n, n x n  */
    /* Stage 4 (stage4.c) */
    struct vz_stage4 *stage4;
};

int vz_del_create(const wb_host *host, const wb_model *model, const vz_options *opt,
                  vz_del **out);
void vz_del_destroy(vz_del *del);
/* (qbar, mu) from w0 = (q, v) by the linear start-up solve for step h. */
int vz_del_start(vz_del *del, double h, const double *q, const double *v);
/* One step from w1 = (q1, v1) and the carried (qbar, mu) to w2 = (q2, v2);
 * on success the carried state moves on, on failure it is unchanged. */
int vz_del_step(vz_del *del, double h, const double *q1, const double *v1, double *q2,
                double *v2, wb_step_stats *stats);
/* The layer's full step R_h(w1) as Newton's first guess for w2. */
int vz_del_predict(vz_del *del, double h, const double *q1, const double *v1, double *q2,
                   double *v2);
/* del->residual_scale (nx values): the size of the terms of each reduced
 * row at the step's start w1 = (q1, v1) and the carried (qbar, mu, nu):
 * [0, 2N) momentum balances, [2N, 2N + d) G rows times a momentum,
 * [2N + d, 3N + d) positions, then d rows G times |q| (g) and d rows G
 * times a velocity (G v).  Stage 4 takes its rows' sizes from these. */
void vz_del_residual_scales(vz_del *del, double h, const double *q1, const double *v1);
/* (G W)_ac for G (m x n): the momenta's gauge G W lambda = 0 (the paper's
 * S3.8 for W = I) fixes their normal part, which the pull-backs annihilate;
 * with W = M^-1 a light point's components of lambda stay its own size. */
double vz_weighted_normal(const vz_del *del, const double *G, int a, int c);
/* Ends at w = (q, v) for step h; J, dS only when `derivatives`. */
int vz_del_ends(vz_del *del, vz_ends *e, double h, const double *q, const double *v,
                int derivatives);

/* ---- Stage 4 (stage4.c) ------------------------------------------------------------ */

int vz_stage4_create(vz_del *del);
void vz_stage4_destroy(vz_del *del);
int vz_stage4_step(vz_del *del, double *q2, double *v2);

/* ---- small dense helpers ---------------------------------------------------------- */

/* y (2n values) = l^T J for a covector l (n) and J (n x 2n): y_j = sum_i l_i J_ij. */
static inline void vz_covector_times(int n, int cols, const double *l, const double *J,
                                     double *y)
{
    for (int j = 0; j < cols; j++)
        y[j] = 0.0;
    for (int i = 0; i < n; i++) {
        const double li = l[i];
        if (li != 0.0)
            for (int j = 0; j < cols; j++)
                y[j] += li * J[(size_t)i * cols + j];
    }
}

#endif
