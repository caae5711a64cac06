/* The `liegroup` family: symplectic partitioned Lie-group methods on
 * T*G ~ G x g* (right trivialisation), after Bogfjellmo and Marthinsen,
 * "High order symplectic partitioned Lie group methods" (2014):
 *
 *   vrkmk      variational Runge-Kutta-Munthe-Kaas (eq. 16): any tableau
 *              with nonzero weights, cutoff r of the truncated dexpinv
 *   vcg        variational Crouch-Grossman (eq. 18)
 *   cmo        the second-order family of eq. 12 (Celledoni-Marthinsen-
 *              Owren; Bou-Rabee-Marsden with r = 0): never above order 2
 *   rkmk       Runge-Kutta-Munthe-Kaas on T*G, any tableau and cutoff, not
 *              symplectic (the contrast)
 *   lie_euler  the Lie-Euler method, rkmk with Euler's tableau
 *
 * The model gives (f1, f2) = (D2 H, -(D1 H) q^-1) (wb.lie_hamiltonian/1, or
 * from wb.lie_lagrangian/1 through the host), the exact group maps exp,
 * dexp*, Ad*, ad, ad*; the truncated dexpinv and P*_(r) are built here from
 * ad and ad* (algebra.h).
 *
 * Every scheme is a map Phi on its stage unknowns z (blocks of nv values);
 * a step solves z = Phi(z) by the paper's fixed-point iteration or by
 * Newton through the host on z - Phi(z), from the previous step's stage
 * values (shifted by the change of the starting point) or from an
 * explicit guess.  That starting guess is the method's carried state (aux
 * "guess"), so that a continued run equals one run bit for bit. */
#ifndef LIEGROUP_H
#define LIEGROUP_H

#include <workbench/workbench.h>

typedef struct liegroup liegroup;

/* How a block of unknowns starts (cold) and is carried to the next step
 * (warm: the stored value is relative to the step's starting value). */
enum liegroup_block {
    BLOCK_ALGEBRA,    /* X_i, U_i: cold h c_i xi0, carried as is              */
    BLOCK_MOMENTUM,   /* M_i: cold mu0, carried relative to mu0               */
    BLOCK_VELOCITY,   /* xi_i: cold xi0, carried relative to xi0              */
    BLOCK_MULTIPLIER  /* lambda_i: cold -h b_i f2(q0, mu0), carried as is     */
};

typedef struct liegroup_scheme {
    const char *name;
    int n_blocks;                      /* blocks of s x nv unknowns         */
    const int *blocks;                 /* enum liegroup_block, n_blocks     */
    /* z_next = Phi(z); leaves what finish() needs in the instance */
    int (*map)(liegroup *lg, const double *z, double *z_next);
    /* (q1, p1) from the last map() evaluation */
    void (*finish)(liegroup *lg, double *q1, double *p1);
} liegroup_scheme;

enum liegroup_iteration { ITERATE_FIXED_POINT, ITERATE_NEWTON, ITERATE_SIMPLIFIED };

struct liegroup {
    const wb_host *host;
    const wb_model *model;
    const liegroup_scheme *scheme;
    int nq, nv, s;
    const double *a, *b, *c;     /* the tableau, s x s row-major, s, s      */
    int cutoff;                  /* r                                       */
    int sequential;              /* explicit rkmk: stages in order, no solve */

    /* the nonlinear solve */
    int iteration;               /* enum liegroup_iteration                 */
    double tol;                  /* 0: to machine precision                 */
    int max_iter;
    int warm_start;
    int carries_guess;           /* the method declares the aux "guess"     */
    int n_unknowns;
    double *z, *z_next;
    wb_newton *newton;

    /* carried state: the last step's unknowns (shifted), valid when
     * have_guess, for a step starting at (last_q, last_p) */
    int have_guess;
    double *guess, *last_q, *last_p;

    /* the step under way */
    double h;
    const double *q0, *p0;
    wb_step_stats *stats;
    double *xi0, *n0;            /* f(q0, p0)                               */

    /* work memory of the schemes (carved in create, no allocation later) */
    double *E, *Q;               /* s x nq: exp of stage increments, stages */
    double *partial;             /* VCG: s x (s + 1) x nq partial products  */
    double *node;                /* VCG: (s + 1) x nq, q^0 .. q^s           */
    double *xi, *f2;             /* s x nv: stage velocities and forces     */
    double *D, *W, *F;           /* s x nv: dexpinv_(r) xi, W_i, other      */
    double *Y, *S, *Lam;         /* nv                                      */
    double *t1, *t2, *t3;        /* nv scratch                              */
    double *g1, *g2;             /* nq scratch                              */
    double *algebra;             /* liegroup_algebra_work(r, nv)            */
};

/* stage i's block k of z (s x nv each) */
static inline double *liegroup_block(const liegroup *lg, double *z, int k, int i)
{
    return z + ((size_t)k * lg->s + (size_t)i) * lg->nv;
}

static inline const double *liegroup_cblock(const liegroup *lg, const double *z, int k, int i)
{
    return z + ((size_t)k * lg->s + (size_t)i) * lg->nv;
}

/* (xi, f2) = f(g, mu), counted */
static inline void liegroup_field(liegroup *lg, const double *g, const double *mu, double *xi,
                                  double *f2)
{
    wb_lie_vector_field(lg->model, g, mu, xi, f2);
    lg->stats->function_evals++;
}

/* out = Ad*_{g^-1} mu */
void liegroup_Ad_star_inverse(liegroup *lg, const double *g, const double *mu, double *out);

extern const liegroup_scheme liegroup_vrkmk_scheme;
extern const liegroup_scheme liegroup_cmo_scheme;
extern const liegroup_scheme liegroup_vcg_scheme;
extern const liegroup_scheme liegroup_rkmk_scheme;

/* ---- the method callbacks shared by every method (solver.c) ------------- */

typedef struct liegroup_config {
    const liegroup_scheme *scheme;
    const wb_tableau *tableau;
    int cutoff;                  /* resolved: >= 0                          */
    int iteration;
    double tol;
    int max_iter;
    int warm_start;
    int carries_guess;           /* aux guess_valid, guess declared          */
} liegroup_config;

int liegroup_create(const wb_host *host, const wb_model *model, const liegroup_config *config,
                    void **inst);
void liegroup_destroy(void *inst);
int liegroup_start(void *inst, double t, double h, const double *q, const double *p,
                   const double *aux);
int liegroup_reset(void *inst, double t, const double *q, const double *p);
int liegroup_step(void *inst, double t, double h, const double *q0, const double *p0,
                  double *q1, double *p1, wb_step_stats *stats);
void liegroup_aux_values(const void *inst, double *out);
int liegroup_strictly_lower(const wb_tableau *t);
/* nv-blocks of the aux group "guess" (the stage unknowns) for a scheme */
int liegroup_guess_blocks(const liegroup_scheme *scheme, const wb_tableau *tableau);

/* ---- orders (orders.c) ------------------------------------------------- */

/* Order of the symplectic partitioned pair (A, b; Ahat, b),
 * ahat_ij = b_j - b_j a_ji / b_i, that every variational method reduces to
 * on an abelian group: the tableau's own order when ahat = a (Gauss),
 * otherwise from the bicoloured-tree conditions up to order 6. */
int liegroup_pair_order(const wb_tableau *t);
/* The order a cutoff r allows: r + 2, or r + 3 for even r >= 2
 * (c_{r+1} = 0: the method with r is the one with r + 1). */
int liegroup_cutoff_order(int r);
/* The smallest r whose cutoff order reaches p. */
int liegroup_default_cutoff(int p);
/* 1 when the tableau is a composition of midpoint steps in the DIRK form
 * a_ij = b_j (j < i), a_ii = b_i / 2, a_ij = 0 (j > i). */
int liegroup_is_midpoint_composition(const wb_tableau *t);
/* The VCG order conditions of Bogfjellmo-Marthinsen through order 3 that
 * the tableau meets: 0..3. */
int liegroup_vcg_conditions(const wb_tableau *t);
/* The tableau's weights are all nonzero (the variational methods divide
 * by them). */
int liegroup_weights_nonzero(const wb_tableau *t, int *which);

#endif
