/*
 * workbench/model.h -- what a model plugin provides.
 *
 * A model plugin's entry (kind WB_KIND_MODEL) points to a const
 * wb_model_class.  The class lists the model's parameters (static data the
 * host can print without running anything), creates instances for given
 * parameter values, and answers extension queries: each capability of a
 * model is an optional, versioned extension struct found by string id
 * (the CLAP pattern), never one ever-growing struct.
 *
 * Coordinates and shapes
 *   nq  configuration coordinates: q in R^nq.  For a Lie-group model,
 *       q holds the nq numbers representing one group element.
 *   nv  velocity / momentum dimension: p in R^nv.  nv == nq for models on
 *       a vector space; nv == dim g for a Lie-group model.
 *   m   number of holonomic constraints g(q) = 0 (info.n_holonomic).
 *   k   number of nonholonomic constraints Phi(q, v) = 0.
 * Matrices are dense row-major; "m x nq" means m rows of nq entries.
 *
 * Conventions of mechanics
 *   H(q, p) = 1/2 p^T M(q)^-1 p + V(q),  v = M(q)^-1 p,
 *   q' = v,  p' = -grad V(q) - dT/dq - G(q)^T lambda - A(q, v)^T nu,
 *   G(q) = Dg(q) is m x nq (holonomic), A = D_v Phi(q, v) is k x nv
 *   (nonholonomic, Chetaev/Lagrange-d'Alembert).  Both multipliers enter
 *   with a minus sign, so a constraint g(q) = 0 written as G(q) v = 0 has
 *   the same multiplier either way.  (Martin de Diego and Sato write the
 *   nonholonomic force as +lambda D_v Phi: their lambda is our -nu.)
 *   On a Lie group (wb.lie_group/1) the state is (g, mu), mu in g* the
 *   right-trivialised momentum, xi = the right-trivialised velocity
 *   (g' = xi g), and mu' = f2 - ad*_xi mu - A^T nu with A = D_xi phi.
 *
 * Optional derivative callbacks may be NULL: the host then supplies a
 * finite-difference fallback, and `workbench check-model NAME` compares
 * every callback a model does provide against finite differences.
 *
 * Threading: an instance is used by one thread at a time.
 */
#ifndef WORKBENCH_MODEL_H
#define WORKBENCH_MODEL_H

#include "host.h"

/* ---- Extension ids (string, with version suffix) ----------------------- */
#define WB_EXT_MECHANICAL "wb.mechanical/1"
#define WB_EXT_HOLONOMIC "wb.holonomic/1"
#define WB_EXT_NONHOLONOMIC "wb.nonholonomic/1"
#define WB_EXT_INVARIANTS "wb.invariants/1"
#define WB_EXT_INITIAL_STATE "wb.initial_state/1"
#define WB_EXT_LIE_GROUP "wb.lie_group/1"
#define WB_EXT_LIE_HAMILTONIAN "wb.lie_hamiltonian/1"
#define WB_EXT_POTENTIAL_INVARIANTS "wb.potential_invariants/1"
#define WB_EXT_LIE_LAGRANGIAN "wb.lie_lagrangian/1"     /* 1.1 */
#define WB_EXT_LIE_NONHOLONOMIC "wb.lie_nonholonomic/1" /* 1.1 */
#define WB_EXT_SPARSITY "wb.sparsity/1"                  /* 1.3 */
#define WB_EXT_HOLONOMIC_POINT "wb.holonomic_point/1"    /* 1.4 */

/* A named real parameter with its default and admissible closed range. */
typedef struct wb_param_spec {
    const char *name;
    double default_value;
    double min;
    double max;
    const char *doc;
} wb_param_spec;

/* Filled by wb_model_class.create.  Strings are owned by the model (static
 * or freed by destroy) and must stay valid for the instance's lifetime. */
typedef struct wb_model_info {
    uint32_t struct_size;
    int nq;
    int nv;
    int n_holonomic;        /* m; 0 when unconstrained                     */
    int n_nonholonomic;     /* k                                           */
    int mass_constant;      /* 1 when M does not depend on q               */
    int n_invariants;       /* named first integrals besides the energy    */
    const char *const *invariant_names;  /* n_invariants names, e.g. "Lz"  */
} wb_model_info;

typedef struct wb_model_class {
    uint32_t struct_size;
    const char *name;
    const char *doc;
    const wb_param_spec *params;
    uint32_t n_params;
    /* Create an instance.  params holds n_params values in spec order,
     * already range-checked by the host.  The host zeroes *info and sets
     * info->struct_size before the call.  Return WB_OK and set *self, or
     * report through host->error() and return a status. */
    int (*create)(const wb_host *host, const double *params, void **self,
                  wb_model_info *info);
    void (*destroy)(void *self);
    /* Extension struct for id, or NULL.  Static: the answer may not depend
     * on an instance, so the host can list capabilities without creating
     * one.  The returned struct is const and lives as long as the plugin. */
    const void *(*get_extension)(const char *id);
    /* 1.1: sizeof(wb_param_spec) as the plugin was built, the stride of
     * `params` (required when n_params > 0; absent: the 1.0 size). */
    uint32_t param_spec_size;
} wb_model_class;

/* ---- wb.mechanical/1 ------------------------------------------------ */
typedef struct wb_mechanical_ext {
    uint32_t struct_size;
    /* Mass matrix M(q), nq x nq, symmetric positive definite.  Required. */
    void (*mass)(void *self, const double *q, double *M);
    /* v = M(q)^-1 p.  Optional (host: Cholesky of mass()). */
    void (*mass_solve)(void *self, const double *q, const double *p, double *v);
    /* V(q).  Required. */
    double (*potential)(void *self, const double *q);
    /* grad V(q), nq.  Optional. */
    void (*potential_gradient)(void *self, const double *q, double *g);
    /* Hessian of V, nq x nq.  Optional. */
    void (*potential_hessian)(void *self, const double *q, double *H);
    /* d/dq of T(q, p) = 1/2 p^T M(q)^-1 p at fixed p, nq.  Optional; zero
     * for a constant mass matrix. */
    void (*kinetic_gradient)(void *self, const double *q, const double *p,
                             double *g);
} wb_mechanical_ext;

/* ---- wb.holonomic/1 ------------------------------------------------- */
#define WB_HOLONOMIC_QUADRATIC 1u /* every g_k is a quadratic polynomial  */
typedef struct wb_holonomic_ext {
    uint32_t struct_size;
    uint32_t flags;
    /* g(q), m values.  Required. */
    void (*constraints)(void *self, const double *q, double *g);
    /* G(q) = Dg(q), m x nq.  Optional. */
    void (*jacobian)(void *self, const double *q, double *G);
    /* T(q; mu) = sum_k mu_k D^2 g_k(q), nq x nq (mu has m entries) =
     * D_q[G(q)^T mu].  Optional. */
    void (*hessian_contract)(void *self, const double *q, const double *mu,
                             double *T);
    /* B(q; w), m x nq, row k = (D^2 g_k(q) w)^T = D_q[G(q) w].  Optional. */
    void (*hessian_vector)(void *self, const double *q, const double *w,
                           double *B);
    /* D_q[T(q; mu) w], nq x nq: entry (i, j) = sum_k mu_k sum_l
     * d^3 g_k / dq_i dq_l dq_j w_l.  Optional; zero when the
     * WB_HOLONOMIC_QUADRATIC flag is set. */
    void (*third_contract)(void *self, const double *q, const double *mu,
                           const double *w, double *D);
} wb_holonomic_ext;

/* ---- wb.nonholonomic/1 ----------------------------------------------
 * Velocity constraints on a vector space; needs wb.mechanical/1 (v is
 * M^-1 p).  A Lie-group model gives wb.lie_nonholonomic/1 instead. */
#define WB_NONHOLONOMIC_LINEAR 1u  /* Phi = A(q) v                         */
#define WB_NONHOLONOMIC_AFFINE 2u  /* Phi = A(q) v + a(q)                  */
typedef struct wb_nonholonomic_ext {
    uint32_t struct_size;
    uint32_t flags;
    /* Phi(q, v), k values, v = velocity.  Required. */
    void (*constraints)(void *self, const double *q, const double *v,
                        double *phi);
    /* D_v Phi, k x nq.  Optional. */
    void (*jacobian_v)(void *self, const double *q, const double *v, double *A);
    /* D_q Phi, k x nq.  Optional. */
    void (*jacobian_q)(void *self, const double *q, const double *v, double *B);
    /* sum_a lam_a D_v D_v Phi_a, nq x nq.  Optional (zero if linear). */
    void (*hessian_vv_contract)(void *self, const double *q, const double *v,
                                const double *lam, double *out);
    /* sum_a lam_a D_q D_v Phi_a: entry (i, j) = sum_a lam_a
     * d^2 Phi_a / dv_i dq_j, nq x nq.  Optional. */
    void (*hessian_qv_contract)(void *self, const double *q, const double *v,
                                const double *lam, double *out);
} wb_nonholonomic_ext;

/* ---- wb.invariants/1 ------------------------------------------------ */
typedef struct wb_invariants_ext {
    uint32_t struct_size;
    /* The model's named first integrals (info.n_invariants values, in the
     * order of info.invariant_names) at (q, p).  Required when
     * n_invariants > 0. */
    void (*evaluate)(void *self, const double *q, const double *p, double *out);
    /* Energy, when it is not H = T + V (e.g. a Lie-group model).
     * Optional. */
    double (*energy)(void *self, const double *q, const double *p);
    /* Infinitesimal generator xi_Q(q) in R^nq of invariant `index` when it
     * is the momentum map J = p . xi_Q(q) of a symmetry; return 0 and fill
     * xi, or return -1 when that invariant is not a momentum map.  On a
     * Lie-group model xi has nv entries: J = <mu, xi(q)>.  Optional. */
    int (*generator)(void *self, int index, const double *q, double *xi);
} wb_invariants_ext;

/* ---- wb.initial_state/1 --------------------------------------------- */
typedef struct wb_initial_state_ext {
    uint32_t struct_size;
    /* A consistent initial state: g(q) = 0, G M^-1 p = 0, Phi = 0. */
    void (*initial)(void *self, double *q, double *p);
} wb_initial_state_ext;

/* ---- wb.potential_invariants/1 ----------------------------------------
 * The potential written through invariants of the symmetry group,
 * V(q) = sum_i V_i(pi_i(q)), i = 1..count (exactly: no remainder), as
 * energy-momentum schemes need for Greenspan's discrete gradient
 *   DG V = sum_i [V_i(pi_i(q1)) - V_i(pi_i(q0))] / [pi_i(q1) - pi_i(q0)]
 *          * grad pi_i(q_mid)      (exact when the pi_i are quadratic).
 * For the four-particle system pi_1 = |q3 - q1|^2, pi_2 = |q4 - q2|^2. */
typedef struct wb_potential_invariants_ext {
    uint32_t struct_size;
    /* Number of invariants (may depend on the instance). */
    int (*count)(void *self);
    /* pi(q), count values. */
    void (*invariants)(void *self, const double *q, double *pi);
    /* d pi_i / dq, count x nq. */
    void (*invariants_gradient)(void *self, const double *q, double *dpi);
    /* V_i(pi_i) and V_i'(pi_i) for each i (V or dV may be NULL). */
    void (*potentials)(void *self, const double *pi, double *V, double *dV);
    /* [V_i(b_i) - V_i(a_i)] / (b_i - a_i) in closed form, finite as
     * b_i -> a_i (then V_i'(a_i)).  Optional: the host falls back to the
     * quotient, or V_i' at the midpoint when |b_i - a_i| is tiny. */
    void (*difference_quotient)(void *self, const double *a, const double *b, double *out);
} wb_potential_invariants_ext;

/* ---- wb.lie_group/1 --------------------------------------------------
 * The configuration space is a matrix Lie group G; q holds nq numbers
 * representing an element, the Lie algebra g has dimension nv and is
 * identified with R^nv, its dual with R^nv through the dot product.
 * Conventions (right trivialisation, as in Bogfjellmo-Marthinsen):
 *   d/dt exp(s(t)) = (dexp_s s') exp(s),  dexpinv_s = (dexp_s)^-1,
 *   ad_x y = [x, y],  <ad*_x mu, y> = <mu, [x, y]>,
 *   Ad_g x = g x g^-1,  <Ad*_g mu, x> = <mu, Ad_g x>.
 * A group model gives its dynamics by wb.lie_hamiltonian/1 or
 * wb.lie_lagrangian/1 and velocity constraints by wb.lie_nonholonomic/1;
 * wb.mechanical/1, wb.holonomic/1 and wb.nonholonomic/1 describe vector
 * spaces and are refused on a group model, with a message.  Header-only
 * implementations of SO(3), SE(2), SE(3), R^n and their direct products,
 * with a macro that writes this extension: workbench/groups/.  A model
 * written left-trivialised (body velocities, g' = g xi) declares the
 * opposite group G^op (a *op b = b a), on which these conventions are G's
 * left-trivialised ones: wb_group_add_opposite in workbench/groups/group.h. */
typedef struct wb_lie_group_ext {
    uint32_t struct_size;
    void (*identity)(void *self, double *e);
    void (*compose)(void *self, const double *a, const double *b, double *ab);
    void (*inverse)(void *self, const double *a, double *ainv);
    void (*exp)(void *self, const double *xi, double *g);
    /* Optional (diagnostics only): principal logarithm. */
    void (*log)(void *self, const double *g, double *xi);
    void (*dexp)(void *self, const double *xi, const double *v, double *out);
    void (*dexpinv)(void *self, const double *xi, const double *v, double *out);
    void (*ad)(void *self, const double *x, const double *y, double *out);
    void (*ad_star)(void *self, const double *x, const double *mu, double *out);
    void (*Ad)(void *self, const double *g, const double *x, double *out);
    void (*Ad_star)(void *self, const double *g, const double *mu, double *out);
    /* Optional: Cayley map and the inverse of its right-trivialised
     * derivative, for methods built on cay instead of exp. */
    void (*cay)(void *self, const double *xi, double *g);
    void (*dcayinv)(void *self, const double *xi, const double *v, double *out);
    /* 1.1, optional with cay: the right-trivialised derivative of cay,
     * d/dt cay(s(t)) = (dcay_s s') cay(s) (host: the inverse of dcayinv). */
    void (*dcay)(void *self, const double *xi, const double *v, double *out);
    /* 1.1, optional with cay: D_xi[dcayinv_xi v] w, the derivative of
     * dcayinv_xi v along w (bilinear in v and w).  Methods whose residual
     * needs it refuse a model without it: the host does not difference it
     * (a finite difference inside a residual breaks the method's
     * structure). */
    void (*dcayinv_derivative)(void *self, const double *xi, const double *v,
                               const double *w, double *out);
    /* 1.1, optional: (dexp_xi)^* mu, <dexp_star(xi, mu), v> =
     * <mu, dexp(xi, v)> (host: the transpose of dexp, nv calls). */
    void (*dexp_star)(void *self, const double *xi, const double *mu, double *out);
    /* 1.1, optional but expected: how far the nq numbers q are from
     * representing a group element, 0 on the group (e.g. max |R^T R - I|
     * for SO(3)).  The driver records it as the column "group_residual". */
    double (*group_residual)(void *self, const double *q);
} wb_lie_group_ext;

/* ---- wb.lie_hamiltonian/1 --------------------------------------------
 * A Hamiltonian system on T*G ~ G x g* (right trivialisation,
 * mu = p_q q^-1):  q' = f1 q,  mu' = f2 - ad*_{f1} mu, with
 * f1 = D2 H(q, mu) and f2 = -(D1 H(q, mu)) q^-1, the right-trivialised
 * derivative <f2, eta> = -d/de H(exp(e eta) q, mu).  Integrators consume
 * f2 ("n"), never mu'. */
typedef struct wb_lie_hamiltonian_ext {
    uint32_t struct_size;
    double (*hamiltonian)(void *self, const double *q, const double *mu);
    void (*vector_field)(void *self, const double *q, const double *mu,
                         double *f1, double *f2);
} wb_lie_hamiltonian_ext;

/* ---- wb.lie_lagrangian/1 (1.1) ---------------------------------------
 * A system on G given by its reduced Lagrangian (right trivialisation):
 *   l(g, xi) = L(g, xi g),  g' = xi g,  mu = D2 l(g, xi)  (the p the
 *   driver carries),  mu' = n(g, xi) - ad*_xi mu  (- A^T nu),
 * with n the right-trivialised configuration derivative
 *   <n(g, xi), eta> = d/de l(exp(e eta) g, xi) at e = 0.
 * The energy is E(g, mu) = <mu, xi> - l(g, xi) with mu = D2 l(g, xi), the
 * Legendre transform H.  A model with wb.lie_hamiltonian/1 too must agree
 * with it: f1(g, mu) = xi, f2(g, mu) = n(g, xi), H(g, mu) = E (check-model
 * checks it); a model with only this extension gets f1, f2 and H from the
 * host, so every method for wb.lie_hamiltonian/1 dynamics applies.
 * Matrices are nv x nv row-major.  A right-trivialised g-derivative of F
 * has column j = d/de F(exp(e E_j) g) at e = 0, E_j the j-th basis vector
 * of g.  Note D_xi n = (D_g mu)^T (mixed partials of l). */
typedef struct wb_lie_lagrangian_ext {
    uint32_t struct_size;
    /* l(g, xi).  Required. */
    double (*lagrangian)(void *self, const double *g, const double *xi);
    /* mu = D2 l(g, xi), nv values.  Required. */
    void (*momentum)(void *self, const double *g, const double *xi, double *mu);
    /* n(g, xi), nv values.  Required. */
    void (*force)(void *self, const double *g, const double *xi, double *n);
    /* xi with D2 l(g, xi) = mu: the inverse Legendre transform.  Optional
     * (host: Newton on momentum from xi = 0). */
    void (*velocity)(void *self, const double *g, const double *mu, double *xi);
    /* D_xi mu = D2 D2 l, the locked inertia, symmetric positive definite
     * for a regular l.  Optional (central differences of momentum). */
    void (*momentum_jacobian_xi)(void *self, const double *g, const double *xi, double *J);
    /* Right-trivialised D_g mu.  Optional (differences along the group). */
    void (*momentum_jacobian_g)(void *self, const double *g, const double *xi, double *J);
    /* Right-trivialised D_g n.  Optional (differences along the group). */
    void (*force_jacobian_g)(void *self, const double *g, const double *xi, double *J);
} wb_lie_lagrangian_ext;

/* ---- wb.lie_nonholonomic/1 (1.1) --------------------------------------
 * Velocity constraints phi(g, xi) = 0 (k = n_nonholonomic values) on a
 * Lie-group model with wb.lie_hamiltonian/1 or wb.lie_lagrangian/1; xi is
 * the right-trivialised velocity (xi = f1(g, mu)).  The shapes and flags of
 * wb.nonholonomic/1 with nv for nq and right-trivialised g-derivatives:
 * the model view binds both extensions to the same nh_* functions. */
typedef struct wb_lie_nonholonomic_ext {
    uint32_t struct_size;
    uint32_t flags;   /* WB_NONHOLONOMIC_LINEAR, WB_NONHOLONOMIC_AFFINE (in xi) */
    /* phi(g, xi), k values.  Required. */
    void (*constraints)(void *self, const double *g, const double *xi, double *phi);
    /* D_xi phi, k x nv.  Optional. */
    void (*jacobian_xi)(void *self, const double *g, const double *xi, double *A);
    /* Right-trivialised D_g phi, k x nv.  Optional. */
    void (*jacobian_g)(void *self, const double *g, const double *xi, double *B);
    /* sum_a lam_a D_xi D_xi phi_a, nv x nv.  Optional (zero if linear). */
    void (*hessian_xixi_contract)(void *self, const double *g, const double *xi,
                                  const double *lam, double *out);
    /* sum_a lam_a D_g D_xi phi_a: entry (i, j) = sum_a lam_a
     * d/de [d phi_a / d xi_i](exp(e E_j) g, xi), nv x nv.  Optional. */
    void (*hessian_gxi_contract)(void *self, const double *g, const double *xi,
                                 const double *lam, double *out);
} wb_lie_nonholonomic_ext;

/* ---- wb.sparsity/1 (1.3) ----------------------------------------------
 * The nonzero patterns of a vector-space model's large matrices and their
 * values in those patterns (workbench/host.h: wb_sparse_pattern), so that
 * a method's cost per step grows with the nonzeros rather than with nq^2
 * or nq^3: for a chain of N links G is N x dN with at most 2d nonzeros a
 * row and G M^-1 G^T is tridiagonal.  The dense callbacks of
 * wb.mechanical/1 and wb.holonomic/1 stay the reference (check-model
 * compares these values with them and that every nonzero lies in its
 * pattern); a method that cannot use the patterns calls them as before.
 * With a diagonal mass the host builds no dense M: no nq x nq matrix is
 * formed unless a method asks for one.
 * Patterns belong to the instance (built by create(), freed by destroy())
 * and never change.  Number coordinates and constraints along the
 * structure when there is one (link by link): the host's sparse solves
 * reorder by reverse Cuthill-McKee, but a good numbering is never worse.
 * Every member is optional; a pattern comes with its values function.
 * Methods read this extension through wb_extension(model, WB_EXT_SPARSITY)
 * and call it with model->model_self. */
typedef struct wb_sparsity_ext {
    uint32_t struct_size;
    /* M(q) is diagonal: its nq diagonal entries. */
    void (*mass_diagonal)(void *self, const double *q, double *d);
    /* G(q), m x nq: the pattern and the values at q in its order. */
    const wb_sparse_pattern *(*jacobian_pattern)(void *self);
    void (*jacobian_values)(void *self, const double *q, double *values);
    /* B(q; w) = D_q[G(q) w] in G's pattern (row k is (D^2 g_k w)^T, zero
     * outside the coordinates g_k depends on, which are row k of G's). */
    void (*hessian_vector_values)(void *self, const double *q, const double *w,
                                  double *values);
    /* T(q; mu) = sum_k mu_k D^2 g_k(q), nq x nq: pattern and values. */
    const wb_sparse_pattern *(*hessian_contract_pattern)(void *self);
    void (*hessian_contract_values)(void *self, const double *q, const double *mu,
                                    double *values);
    /* The Hessian of V, nq x nq: pattern and values. */
    const wb_sparse_pattern *(*potential_hessian_pattern)(void *self);
    void (*potential_hessian_values)(void *self, const double *q, double *values);
} wb_sparsity_ext;

/* ---- wb.holonomic_point/1 (1.4) ----------------------------------------
 * One call for what a position step of SHAKE/RATTLE-type methods asks of
 * a constrained vector-space model at a point q: the gradient of the
 * potential, the constraint values and their Jacobian.  Without it such a
 * step calls potential_gradient, constraints and jacobian separately, five
 * calls a step for RATTLE on a pendulum; with it, one call per Newton
 * residual (whose G is the Newton matrix's, and at the solution the next
 * step's start values): two.  Optional, for models with wb.mechanical/1
 * and wb.holonomic/1 (and n_holonomic > 0); methods use it only when the
 * model view says the model has it (WB_CAP_HOLONOMIC_POINT) and call the
 * separate functions otherwise.
 *
 * evaluate(self, q, grad_V, g, G) writes, at q (nq values, read only):
 *   grad_V  nq values, grad V(q)             (= potential_gradient)
 *   g       m values, g(q)                   (= constraints)
 *   G       m x nq, row-major, G(q) = Dg(q)  (= jacobian, dense)
 * in the units of those callbacks.  All three outputs are always asked
 * for, are distinct caller-owned arrays of those sizes and overlap neither
 * each other nor q.  The values must be those of the separate callbacks
 * (computed by the same expressions they are the same to the last bit,
 * and a method gives the same results with and without this extension;
 * `workbench check-model` compares them).  No allocation: it is called in
 * the step loop. */
typedef struct wb_projection_problem wb_projection_problem;
typedef struct wb_projection_report wb_projection_report;

typedef struct wb_holonomic_point_ext {
    uint32_t struct_size;
    void (*evaluate)(void *self, const double *q, double *grad_V, double *g, double *G);
    /* ---- 1.7, optional (NULL or beyond struct_size: absent) ------------
     * Newton's iteration for the one multiplier of a position step, run
     * by the model on its own evaluate(): see wb_projection_problem below.
     * Written by WB_HOLONOMIC_PROJECTION (workbench/holonomic_projection.h),
     * never by hand.  project_nq is the nq it was compiled for (0: any;
     * the macro's name##_nq says it).  Bound only beside evaluate() and
     * for an instance with one constraint (m = 1); a project_nq other than
     * 0 and the instance's nq is refused when the model is created. */
    int (*project)(void *self, const wb_projection_problem *problem, double *lambda,
                   double *q, double *grad_V, double *g, double *G,
                   wb_projection_report *report);
    int project_nq;
} wb_holonomic_point_ext;

/* ---- the projection of wb.holonomic_point/1 (1.7) ----------------------
 * A model with one holonomic constraint (m = 1) may run the Newton
 * iteration of a SHAKE/RATTLE position step itself: find lambda with
 *
 *   g(q(lambda)) = 0,   q(lambda) = drift + (c lambda) direction,
 *
 * from the guess *lambda by lambda -= g / (c G(q) . direction), each g and
 * G from its own evaluate().  The point: the model's evaluate() is then
 * compiled into the loop (one call a step from the method instead of one
 * per Newton residual, each of which passes the trial point through
 * memory into code the method's compiler cannot see: bench_rattle_abi,
 * "static + view").  The iteration is the host's newton_solve for one
 * unknown, operation for operation, so a method gets the same numbers to
 * the last bit with or without it, provided neither side lets the compiler
 * contract a * b + c into a fused multiply-add (-ffp-contract=off: the
 * workbench's builds and `pkg-config --cflags workbench-plugin` set it;
 * check-model compares bit for bit and says so):
 *
 *   for k = 0, 1, ...:
 *     q = drift + (c lambda) direction          (a = c * lambda, then
 *                                                q_i = drift_i + a dir_i)
 *     evaluate(q) -> grad_V, g, G;  r = |g|
 *     g not finite                  -> WB_PROJECTION_RESIDUAL_NONFINITE
 *     r <= tol                      -> converged
 *     k > 0 and r <= floor and not r/tol < 0.5 (r_before/tol)
 *                                   -> converged (round-off reached)
 *     k >= max_iter                 -> WB_PROJECTION_NOT_CONVERGED
 *     J = c (G . direction)          (the sum from 0, i = 0 .. nq-1)
 *     J not finite / J == 0         -> ..._JACOBIAN_NONFINITE / _SINGULAR
 *     u = g / J; not finite         -> WB_PROJECTION_UPDATE_NONFINITE
 *     lambda -= u;  r_before = r
 *
 * On return (converged or not) q, grad_V, g and G hold the last point
 * evaluated and its values; *lambda is the solution when converged and is
 * left unchanged otherwise.  The counts in the report let the method keep
 * its statistics.  Caller-owned arrays: drift, direction, q, grad_V, G of
 * nq values, g of one; q, grad_V, g and G overlap nothing.  The caller
 * sets both structs' struct_size; the model writes no report member
 * beyond it. */
struct wb_projection_problem {
    uint32_t struct_size;
    int nq;                  /* the model's nq */
    const double *drift;     /* nq */
    const double *direction; /* nq */
    double c;                /* q = drift + (c lambda) direction */
    double tol;              /* |g| <= tol: converged */
    double floor;            /* a round-off bound for |g| (see above) */
    int max_iter;            /* Newton updates at most */
};

enum {
    WB_PROJECTION_CONVERGED = 0,
    WB_PROJECTION_RESIDUAL_NONFINITE,
    WB_PROJECTION_NOT_CONVERGED,
    WB_PROJECTION_JACOBIAN_NONFINITE,
    WB_PROJECTION_SINGULAR,
    WB_PROJECTION_UPDATE_NONFINITE,
    WB_PROJECTION_INVALID /* a problem it cannot take: too small a struct, another nq */
};

struct wb_projection_report {
    uint32_t struct_size; /* the caller's sizeof(wb_projection_report) */
    int outcome;     /* WB_PROJECTION_* */
    int residuals;   /* evaluate() calls */
    int iterations;  /* updates of lambda */
    int jacobians;   /* J formed (an update attempted) */
    double residual; /* |g| at the last point */
    double jacobian; /* the last J formed */
};

#endif
