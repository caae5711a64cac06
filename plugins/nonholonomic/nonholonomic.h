/* The `nonholonomic` family's internals: the Lobatto IIIA-IIIB method for
 * velocity constraints of Martin de Diego and Sato Martin de Almagro (seed
 * 001, eq. 14 on a vector space, Appendix F on a Lie group), one engine for
 * both spaces.
 *
 * A vector space is treated as the abelian group R^n with tau(X) q = q + X,
 * so that every group map below is the identity (or zero) there and the
 * group formulas reduce to eq. (14) term by term; `flat` skips those maps.
 *
 * Conventions are the ABI's (workbench/model.h): right trivialisation,
 * g' = xi g, mu = D2 l(g, xi), mu' = n - ad*_xi mu - A^T nu, and the host's
 * sign of the multiplier, nu = -Lambda of the paper.  The paper writes its
 * Lie-group method left-trivialised (G^i = g_k tau(Xi^i)); the same method
 * on the opposite group G^op (a . b = b a), which is what the
 * right-trivialised data describe, reads with
 *   G^i = tau(Xi^i) g_k,  dL tau -> dtau (the ABI's right-trivialised
 *   dcay / dexp),  Ad*_{tau(x)} -> Ad*_{tau(-x)},  L*_G D1 l -> n,
 *   ddL tau_X(H, .)^* Pi -> -D(dtauinv)_X(dtau_X H, .)^* Pi,
 * and reduces to eq. (14) on R^n. */
#ifndef NONHOLONOMIC_H
#define NONHOLONOMIC_H

#include <workbench/workbench.h>

#include <stdint.h>

/* Where the constraint is imposed (section 5.1 of the paper). */
enum constraint_variant {
    CONSTRAINT_IIIA = 0,   /* Psi(Q^i, p^i) = 0, i = 2..s, IIIA momenta (eq. 14e)   */
    CONSTRAINT_IIIB = 1,   /* Phi(Q^i, V^i) = Psi(Q^i, P^i) = 0, i = 1..s-1, and
                              Psi(q1, p1) = 0: the IIIB stage momenta             */
    CONSTRAINT_DIRECT = 2  /* Phi(Q^i, V^i) = 0, i = 1..s-1, no force at stage s:
                              the discrete velocities (DLA for s = 2)              */
};

enum retraction_kind { RETRACTION_CAY = 0, RETRACTION_EXP = 1 };

enum iteration_kind { ITERATION_AUTO = 0, ITERATION_NEWTON = 1, ITERATION_SIMPLIFIED = 2 };

/* Per-stage values: the stage's algebra increment X, element G = tau(X) g0,
 * velocity eta = dtau_X H, the model's momentum mu(G, eta) and force
 * f = n(G, eta) - A^T nu, the transported N = dtau_X^T f and
 * Pi = dtau_X^T mu, and K = D(dtauinv)_X(eta, .)^T Pi. */
typedef struct stage {
    double *X, *Xm, *G, *eta, *mu, *f, *N, *Pi, *K; /* Xm = -X */
    double *nu;                 /* the stage multiplier (in x, carried or zero)  */
    /* group maps at X and -X (identity / zero on a vector space) */
    double *T;                  /* dtau_X                     d x d              */
    double *Tm;                 /* dtau_{-X}                  d x d              */
    double *U;                  /* dtauinv_{-X}               d x d              */
    double *AdS;                /* Ad*_{tau(-X)}              d x d              */
    double *Dp, *Dm;            /* D(dtauinv) at X and -X: [r][c] = D_X[dtauinv_X e_r] e_c, d^3 */
    double *tau_minus;          /* tau(-X), nq                                   */
    /* model derivatives at (G, eta) */
    double *Jxi, *Jg, *Fg, *Cxi, *Cg; /* d x d                                   */
    double *A, *B;              /* D_v phi, D_g phi at (G, eta), k x d            */
    /* tangents (d x N): derivatives in the unknowns */
    double *dX, *zeta, *deta, *dmu, *df, *dN, *dPi, *dK;
    double *dUN, *dUsN;         /* of U_i^T N^i and U_s^T N^i                    */
} stage;

/* A constraint row block: where and on which momentum the constraint acts. */
typedef struct constraint_row {
    int stage;                  /* 0-based stage i                               */
    int on_momentum;            /* 1: phi(G_i, vel(G_i, mu^i)) / h (IIIA momenta) */
                                /* 0: phi(G_i, eta_i) (the stage velocity)        */
} constraint_row;

typedef struct lobatto {
    const wb_host *host;
    const wb_model *model;
    int flat;                   /* vector space: tau(X) q = q + X                */
    int s, nq, d, k;            /* stages, group numbers, algebra dim, constraints */
    int variant, retraction, iteration;
    int n_unknown_nu;           /* multipliers solved for                        */
    int N;                      /* unknowns: s d + n_unknown_nu k                */
    int nu_first;               /* stage of the first unknown multiplier (0-based) */
    int n_rows;                 /* constraint row blocks                         */
    constraint_row rows[32];
    const double *a, *ah, *b;   /* Lobatto IIIA, IIIB, weights (s x s, s)        */
    double nu_check;            /* relative tolerance on a given starting multiplier */
    int check_jacobian;

    /* the step's data */
    double h;
    const double *q0, *p0;
    double *nu0;                /* carried multiplier at the step's start (k)    */
    double *nu1;                /* ... at its end, after a successful step       */
    double *zero_nu;            /* k zeros: the last stage's force in `direct`   */
    wb_step_stats *stats;
    int failure;                /* a status from inside the residual             */

    stage *st;
    const double **own, **last; /* per stage: the tangents of U_j^T N^j, U_s^T N^j */
    double *D0;                 /* cay: D(dtauinv) at X = 0, d^3                  */
    double *M, *Minv;           /* vector space: constant mass matrix, inverse   */
    double *S;                  /* dtauinv at xi = X_s (d x d)                   */
    double *y, *z, *mu_row, *eta_c, *Jxi_c, *Jg_c, *A_c, *B_c, *phi;
    double *dy, *dz, *dmu_row, *deta_c, *tmp_t, *tmp_t2;
    double *m1, *m2, *m3;       /* d x d scratch                                 */
    double *v1, *v2, *v3, *v4, *e; /* d scratch vectors and a basis vector       */
    double *mo_e, *mo_col;      /* matrix_of's own basis vector and column        */
    double *zero_d;             /* d zeros                                       */
    double *series[6];          /* the exp series' recurrences, d each           */
    int *ipiv;
    double *bern;               /* B_k / k! for the exp retraction's series      */
    int n_bern;

    wb_newton *newton;
    wb_newton_options newton_options;
    double *x, *guess, *fd_x, *fd_r1, *fd_r2, *fd_J;
    double *scale;              /* N: the sizes of each residual row's terms     */
    double *unknown_scale;      /* N: the size of each unknown for the correction test */
    double velocity_size, multiplier_size; /* the unknowns' vectors at the guess  */
    double *g_terms;            /* s nq: the sizes of the terms of G_i's numbers */
    double *g_work;             /* 3 nq scratch (|tau(X)|, |g0|, a moved G)     */
    double *fd_mu, *fd_n, *fd_phi; /* d, d, k: values at a moved G               */
} lobatto;

/* ---- retraction.c: tau, its trivialised derivatives and their derivatives ---- */
int retraction_setup(lobatto *L);
void retraction_tau(lobatto *L, const double *X, double *g);
void retraction_dtau(lobatto *L, const double *X, const double *v, double *out);
void retraction_dtauinv(lobatto *L, const double *X, const double *v, double *out);
/* D_X[dtauinv_X v] w; WB_OK or WB_ERR_NEWTON when the exp series does not
 * converge (an increment beyond the series' radius) */
int retraction_Dinv(lobatto *L, const double *X, const double *v, const double *w,
                    double *out);
/* D_X of D_X[dtauinv_X v] w along u */
int retraction_Dinv2(lobatto *L, const double *X, const double *v, const double *w,
                     const double *u, double *out);
/* out = D_X[dtauinv_X v](.)^T mu: <out, w> = <mu, D_X[dtauinv_X v] w> */
int retraction_Dinv_star(lobatto *L, const double *X, const double *v, const double *mu,
                         double *out);
/* D[r][c] = D_X[dtauinv_X e_r] e_c at X (d^3 values) */
int build_tensor(lobatto *L, const double *X, double *D);
/* The d x d matrix of a linear map of the algebra, column by column. */
void matrix_of(lobatto *L, void (*map)(lobatto *, const double *, const double *, double *),
               const double *X, double *Mat);

/* ---- system.c: the residual and its Jacobian ---------------------------------- */
int lobatto_residual(void *user, const double *x, double *r);
int lobatto_jacobian(void *user, const double *x, double *J);
/* The sizes of the terms each residual row is made of at x (the step's
 * guess), into L->scale for wb_newton_options.residual_scale, so that no
 * row's tolerance lies below its round-off: a bound of every term, not the
 * row's value, since a small row can be made of large terms.  Momentum
 * rows: the momenta's |Jxi| |eta|, the forces' |n| and |A^T| |nu| apart
 * (the CVT's passenger at rest: z - lambda = 0 from terms of 1), what the
 * round-off of G's numbers brings into mu and n, all carried through the
 * maps by their absolute values.  Constraint rows: |A| |eta|, G's
 * round-off, and on the IIIA momenta the round-off of mu^i's terms
 * through the velocity map, |A Jxi^-1| (terms of mu^i).  SE(2) far from
 * its origin has momenta of 1e6 |v| made of terms of 1e12: an absolute
 * tolerance there is below round-off. */
void lobatto_row_scales(lobatto *L, const double *x);
/* The size of each unknown at x (the step's guess), into L->unknown_scale
 * for wb_newton_options.unknown_scale: the largest stage velocity
 * component for every H^i_c, the largest multiplier for every nu^j_a.
 * One size a vector, not one a component: a component small against the
 * others (the sideways v2 of a rolling disc, 1e-4 of its speed) needs no
 * more digits than its vector, and asking for them costs iterations. */
void lobatto_unknown_scales(lobatto *L, const double *x);
/* The step's outputs from the last residual: q1 = G_s, p1 = mu^s. */
int lobatto_outputs(lobatto *L, const double *x, double *q1, double *p1);
/* Central differences of the residual against the analytic Jacobian:
 * the largest gap relative to max(1, |J|), and where. */
double lobatto_jacobian_gap(lobatto *L, const double *x, int *row, int *col);

#endif
