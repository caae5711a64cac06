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
 *   q' = v,  p' = -grad V(q) - dT/dq - G(q)^T lambda (holonomic),
 *   G(q) = Dg(q) is m x nq; the multiplier enters with a minus sign.
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

/* ---- wb.nonholonomic/1 ---------------------------------------------- */
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
     * xi, or return -1 when that invariant is not a momentum map.
     * Optional. */
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
 *   Ad_g x = g x g^-1,  <Ad*_g mu, x> = <mu, Ad_g x>.          */
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

#endif
