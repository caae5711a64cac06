/* HBVM(k, s) for Hamiltonian systems with holonomic constraints
 * (Brugnano, Gurioli, Iavernaro, Weinmueller: "Line integral solution of
 * Hamiltonian systems with holonomic constraints", Sect. 4, eqs. 49-54),
 * for H = 1/2 p^T M^-1 p + V(q) with a constant mass matrix and
 * constraints g(q) = 0 (m of them; none is allowed):
 *
 *   q' = M^-1 p,   p' = -grad V(q) - G(q)^T lambda_n   on [t_n, t_n + h],
 *
 * with one constant multiplier lambda_n per step, chosen so that the
 * discrete line integral of grad g^T q' over the step vanishes.  The
 * position path is a polynomial of degree s,
 *
 *   u(ch) = q0 + h sum_j int_0^c P_j  gamma_j,        j = 0 .. s-1,
 *
 * and, with the k-point Gauss quadrature of basis.h at the stages
 * Y_l = u(c_l h), F_l = grad V(Y_l) + G(Y_l)^T lambda,
 *
 *   psi_j = sum_l b_l P_j(c_l) grad V(Y_l),   rho_j = sum_l b_l P_j(c_l) G(Y_l),
 *   gamma_j = M^-1 [delta_j0 p0 - h sum_i X_ji (psi_i + rho_i^T lambda)]  (50)
 *   sum_j rho_j gamma_j = 0     (the discrete line integral: m equations, 51)
 *   q1 = q0 + h gamma_0,   p1 = p0 - h (psi_0 + rho_0^T lambda)           (52)
 *
 * Unknowns: the s Legendre coefficients gamma_j and lambda, s n + m
 * numbers whatever k is; k only sets how many stages are evaluated.
 * gamma_j is affine in lambda, gamma_j = a_j + D_j lambda, so for given
 * stages (51) is an m x m linear system, nonsymmetric when m > 1 (LU with
 * pivoting).  Ways to solve the whole problem:
 *   fixed point   the paper's iteration: stages from gamma, lambda from
 *                 (51), new gamma from (50), until the increment vanishes
 *                 or stops decreasing;
 *   newton        Newton on (gamma, lambda) with the analytic Jacobian
 *                 (Hessians of V and g at the k stages), or simplified
 *                 Newton with the step's first Jacobian;
 *   auto          (the default) the fixed point while it contracts; once it
 *                 stalls or diverges (a stiff problem), simplified Newton
 *                 for the rest of the run, its Jacobian and LU kept across
 *                 steps while they converge (rk's rule, wb_iteration.h):
 *                 where the fixed point converges, bit for bit the paper's
 *                 iteration; should Newton fail on a step, the fixed point
 *                 (uninterrupted) takes it and the rest of the run.
 * Without constraints the fixed point can run in the stage positions
 * instead (the second-order, Nystrom form of rk's separable path):
 * Z_l = Y_l - q0 = h I gamma, and (50) becomes
 *
 *   Z_l = h c_l v0 - h^2 sum_l' (I X W)_ll' M^-1 grad V(q0 + Z_l'),
 *
 * k n unknowns, no mass solve per coefficient, the same iterates (from
 * Z = h I gamma) to round-off; gamma is formed from the last sweep's
 * forces at the end, for the update (52) and the next start.  The default
 * takes it for k = s (Gauss: s n unknowns either way, fewer operations a
 * sweep); for k > s the coefficients are fewer unknowns (s n < k n).
 * H and g are conserved exactly when they are polynomials of degree
 * <= 2k/s, to O(h^2k) otherwise; the method is symmetric, of order 2
 * (2s when lambda is constant or there are no constraints).
 *
 * Option linear_solver picks how the m x n arrays and the two linear
 * systems are held, at create time:
 *   dense   G(Y_l), rho_j, D_j as m x n rows (each row of D_j through the
 *           model's mass solve), S (m x m) and the Newton matrix
 *           ((s n + m)^2) dense, LAPACK LU: O(m^2 n) a fixed-point sweep,
 *           O((s n + m)^3) a Jacobian, O(n^2) memory;
 *   sparse  a model that declares G's pattern and a diagonal mass
 *           (wb.sparsity/1; for Newton, iteration other than fixed_point,
 *           also the Hessian patterns): the arrays in G's nonzeros, S in
 *           the pattern of G G^T and the Newton matrix in its nonzeros,
 *           both factored by the host's sparse LU (sparse.h): O(N) a sweep,
 *           a Jacobian and memory for a chain of N links;
 *   auto    sparse when the model declares what that needs, else dense. */
#ifndef HBVM_H
#define HBVM_H

#include "basis.h"
#include "sparse.h"
#include "wb_compensated.h"

typedef enum hbvm_iteration {
    HBVM_FIXED_POINT = 0,
    HBVM_NEWTON = 1,
    HBVM_SIMPLIFIED = 2,
    HBVM_AUTO = 3
} hbvm_iteration;

/* The carried solver state (aux "solver_state"), in this order. */
enum { HBVM_STATE_MODE, HBVM_STATE_NEWTON_FAILED, HBVM_STATE_JACOBIAN_SET, HBVM_STATE_REFRESH,
       HBVM_STATE_JACOBIAN_H, HBVM_STATE_COUNT };

typedef struct hbvm {
    const wb_host *host;
    const wb_model *model;
    int n, m, s, k;
    int size;              /* s n + m unknowns                                 */
    int iteration, max_iter; /* iteration: the configured hbvm_iteration       */
    int mode;              /* the iteration in use: the configured one, or for
                              HBVM_AUTO the fixed point until it stalls, then
                              simplified Newton for the rest of the run        */
    int newton_failed;     /* auto: Newton failed on a step the fixed point then
                              took: the fixed point, without changing, for the
                              rest of the run                                 */
    int nystrom;           /* the fixed point in the stage positions (m = 0)   */
    double tol;
    hbvm_basis basis;
    double *memory;        /* the one block the arrays below are carved from    */
    double *Minv;          /* n x n, the constant M^-1, for the Jacobian's matrix
                              products (dense; NULL on the sparse path); vectors
                              go through the model's solve, O(n) for a diagonal M */
    /* the step being solved */
    double h;
    const double *q0, *p0;
    double *x;             /* unknowns: gamma (s x n), then lambda (m)         */
    double *guess;         /* the step's first x: auto starts again from it     */
    double *lambda;        /* the last accepted step's multiplier (aux)        */
    /* G(Y_l), rho_j, D_j and B_l are m x n: dense rows, or their values in
     * G's pattern (sparse); g_entries is the size of one, m n or nnz(G) */
    int g_entries;
    hbvm_sparse sp;        /* linear_solver = sparse: sp.ext set                 */
    double *Y, *grad, *G;  /* stages: positions, grad V, G (k of them)           */
    double *psi, *rho;     /* s x n, s of G's shape                              */
    double *a, *D;         /* gamma_j = a_j + D_j^T lambda: s x n, s of G's shape */
    double *S;             /* the multiplier system (51), m x m (dense)          */
    double *R, *dx, *J;    /* Newton: residual, update, Jacobian (size^2, dense) */
    double *K, *B;         /* Newton: M^-1 (Hess V + T(.; lambda)) (k x n x n,
                              dense), B(Y_l; w_l) (k of G's shape)               */
    double *hess, *T;      /* Newton: n x n scratch for one stage's Hessians (dense) */
    double *force, *work;  /* 2 n and 2 n scratch                               */
    double *start;         /* (q0, p0), 2 n: the update's summands, ...          */
    double *increment;     /* ... (q1 - q0, p1 - p0), 2 n ...                    */
    wb_compensated sum;    /* ... and their compensated sum                      */
    /* the extrapolated start: x after a step holds its path's coefficients;
     * the next step's path is taken as that polynomial one step later,
     * gamma_i <- sum_j T_ij gamma_j, T_ij = int_0^1 P_i(c) P_j(1 + c) dc */
    int extrapolate;       /* option start = "extrapolate"                      */
    int history_valid;     /* x holds the path of the step that ended at sum.last */
    double last_h;
    double *shift;         /* T, s x s                                          */
    /* the Nystrom form: Z (k x n), M^-1 grad V at the stages (k x n), I X W
     * (k x k) and its multiples h^2 I X W, h c for the step size h_coefficients */
    double *Z, *MG, *IXW, *h2IXW, *hc, h_coefficients;
    double *minv_diagonal; /* M^-1 when diagonal (n; sparse: sp.inverse_mass), else NULL */
    /* auto's kept Jacobian: J (sparse: sp.jacobian_lu) holds its LU (when
     * `factored`), evaluated at jacobian_point = (q0, gamma, lambda) with
     * step size jacobian_h; the point is state, so a resumed run factors
     * the same matrix again */
    int jacobian_set;      /* jacobian_point holds that point                  */
    int refresh;           /* it converged slowly: a new one at the next step  */
    int factored;          /* J holds its factors                              */
    double jacobian_h;
    double *jacobian_point;/* n + size                                         */
    int *pivots;           /* J's                                              */
    int *multiplier_pivots;/* the system (51)'s, m: J's stay with a kept LU    */
} hbvm;

/* The arrays, dense or in G's pattern (after hbvm_sparse_create when
 * sp.ext is set); g_entries must be set. */
int hbvm_alloc(hbvm *it);
/* T_ij = int_0^1 P_i(c) P_j(1 + c) dc into it->shift (after hbvm_alloc). */
void hbvm_shift_matrix(hbvm *it);
void hbvm_free(hbvm *it);
/* Forget the trajectory: the compensated carry, the extrapolated start and
 * auto's choice and kept Jacobian. */
void hbvm_restart(hbvm *it);
/* The solver state in the aux layout (solver_state, then jacobian_point as
 * q0 and gamma, then its lambda), and a resumed run's from it. */
void hbvm_solver_state(const hbvm *it, double *state);
void hbvm_resume_solver(hbvm *it, const double *state);
int hbvm_solve_step(hbvm *it, double h, const double *q0, const double *p0, double *q1,
                    double *p1, wb_step_stats *stats);

#endif
