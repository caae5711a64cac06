/*
 * workbench/model_view.h -- the model as integrators see it.
 *
 * The host builds one wb_model per model instance.  It resolves every
 * optional callback of the model's extensions: a callback the model
 * provides is called directly (one indirect call, no host trampoline); a
 * missing derivative is replaced by the host's finite-difference fallback.
 * So an integrator never tests for NULL: every function of a capability
 * the model has (see `capabilities`) is callable.  Functions of a
 * capability the model lacks are NULL.
 *
 * Use the wb_* accessors below rather than the raw members.
 *
 * Ownership: the host owns the view and keeps it alive for as long as any
 * integrator instance created for it exists.  A view is not thread-safe:
 * the finite-difference fallbacks use scratch memory inside the view.
 */
#ifndef WORKBENCH_MODEL_VIEW_H
#define WORKBENCH_MODEL_VIEW_H

#include "model.h"

#define WB_CAP_MECHANICAL 0x01u
#define WB_CAP_HOLONOMIC 0x02u     /* set only when n_holonomic > 0        */
#define WB_CAP_NONHOLONOMIC 0x04u  /* set only when n_nonholonomic > 0     */
#define WB_CAP_INVARIANTS 0x08u
#define WB_CAP_INITIAL_STATE 0x10u
#define WB_CAP_LIE_GROUP 0x20u
#define WB_CAP_LIE_HAMILTONIAN 0x40u
#define WB_CAP_POTENTIAL_INVARIANTS 0x80u

/* A callback bound to its context. */
#define WB_BOUND(ret, name, ...)               \
    struct {                                   \
        ret (*fn)(void *ctx, __VA_ARGS__);     \
        void *ctx;                             \
    } name

typedef struct wb_model {
    uint32_t struct_size;
    const char *name;
    int nq, nv;
    int n_holonomic;
    int n_nonholonomic;
    int n_invariants;
    int mass_constant;
    uint32_t capabilities;          /* WB_CAP_* bits                       */
    uint32_t holonomic_flags;       /* wb_holonomic_ext.flags              */
    uint32_t nonholonomic_flags;    /* wb_nonholonomic_ext.flags           */
    const char *const *invariant_names;

    /* mechanical */
    WB_BOUND(void, mass, const double *q, double *M);
    WB_BOUND(void, mass_solve, const double *q, const double *p, double *v);
    WB_BOUND(double, potential, const double *q);
    WB_BOUND(void, potential_gradient, const double *q, double *g);
    WB_BOUND(void, potential_hessian, const double *q, double *H);
    WB_BOUND(void, kinetic_gradient, const double *q, const double *p, double *g);
    /* H(q, p): the model's energy() if it has one, else T + V. */
    WB_BOUND(double, energy, const double *q, const double *p);

    /* holonomic */
    WB_BOUND(void, constraints, const double *q, double *g);
    WB_BOUND(void, constraint_jacobian, const double *q, double *G);
    WB_BOUND(void, constraint_hessian_contract, const double *q,
             const double *mu, double *T);
    WB_BOUND(void, constraint_hessian_vector, const double *q,
             const double *w, double *B);
    WB_BOUND(void, constraint_third_contract, const double *q,
             const double *mu, const double *w, double *D);
    /* Host-derived: G(q) M(q)^-1 p, m values. */
    WB_BOUND(void, hidden_constraints, const double *q, const double *p,
             double *gv);
    /* Host-derived: the multiplier of the index-1 formulation,
     * (G M^-1 G^T) lambda = v^T D^2g v - G M^-1 (grad V + dT/dq) (+ the
     * term from dM/dt for a configuration-dependent mass), v = M^-1 p.
     * Returns WB_OK or WB_ERR_SINGULAR. */
    WB_BOUND(int, index1_multiplier, const double *q, const double *p,
             double *lambda);

    /* nonholonomic (v is a velocity, k = n_nonholonomic) */
    WB_BOUND(void, nh_constraints, const double *q, const double *v, double *phi);
    WB_BOUND(void, nh_jacobian_v, const double *q, const double *v, double *A);
    WB_BOUND(void, nh_jacobian_q, const double *q, const double *v, double *B);
    WB_BOUND(void, nh_hessian_vv_contract, const double *q, const double *v,
             const double *lam, double *out);
    WB_BOUND(void, nh_hessian_qv_contract, const double *q, const double *v,
             const double *lam, double *out);

    /* invariants (n_invariants values) */
    WB_BOUND(void, invariants, const double *q, const double *p, double *out);
    WB_BOUND(int, invariant_generator, int index, const double *q, double *xi);

    /* initial state */
    WB_BOUND(void, initial, double *q, double *p);

    /* Lie group: the model's own extension structs and instance pointer,
     * passed through unchanged (NULL when absent). */
    const wb_lie_group_ext *lie_group;
    const wb_lie_hamiltonian_ext *lie_hamiltonian;
    void *lie_self;

    /* Potential invariants (wb.potential_invariants/1): the number of
     * invariants and, when the model has them, the potential's discrete
     * gradient in Greenspan's form (Gonzalez's generic form otherwise is
     * the integrator's business):
     *   dg = sum_i Q_i(pi_i(q0), pi_i(q1)) grad pi_i((q0 + q1)/2), nq values,
     * with Q_i the difference quotient of V_i. */
    int n_potential_invariants;
    WB_BOUND(void, potential_discrete_gradient, const double *q0, const double *q1,
             double *dg);
} wb_model;

#undef WB_BOUND

/* ---- accessors --------------------------------------------------------- */
#define WB_CALL(m, member, ...) ((m)->member.fn((m)->member.ctx, __VA_ARGS__))

static inline void wb_mass(const wb_model *m, const double *q, double *M)
{ WB_CALL(m, mass, q, M); }
static inline void wb_mass_solve(const wb_model *m, const double *q,
                                 const double *p, double *v)
{ WB_CALL(m, mass_solve, q, p, v); }
static inline double wb_potential(const wb_model *m, const double *q)
{ return WB_CALL(m, potential, q); }
static inline void wb_potential_gradient(const wb_model *m, const double *q,
                                         double *g)
{ WB_CALL(m, potential_gradient, q, g); }
static inline void wb_potential_hessian(const wb_model *m, const double *q,
                                        double *H)
{ WB_CALL(m, potential_hessian, q, H); }
static inline void wb_kinetic_gradient(const wb_model *m, const double *q,
                                       const double *p, double *g)
{ WB_CALL(m, kinetic_gradient, q, p, g); }
static inline double wb_energy(const wb_model *m, const double *q,
                               const double *p)
{ return WB_CALL(m, energy, q, p); }
static inline void wb_constraints(const wb_model *m, const double *q, double *g)
{ WB_CALL(m, constraints, q, g); }
static inline void wb_constraint_jacobian(const wb_model *m, const double *q,
                                          double *G)
{ WB_CALL(m, constraint_jacobian, q, G); }
static inline void wb_constraint_hessian_contract(const wb_model *m,
                                                  const double *q,
                                                  const double *mu, double *T)
{ WB_CALL(m, constraint_hessian_contract, q, mu, T); }
static inline void wb_constraint_hessian_vector(const wb_model *m,
                                                const double *q,
                                                const double *w, double *B)
{ WB_CALL(m, constraint_hessian_vector, q, w, B); }
static inline void wb_constraint_third_contract(const wb_model *m,
                                                const double *q,
                                                const double *mu,
                                                const double *w, double *D)
{ WB_CALL(m, constraint_third_contract, q, mu, w, D); }
static inline void wb_hidden_constraints(const wb_model *m, const double *q,
                                         const double *p, double *gv)
{ WB_CALL(m, hidden_constraints, q, p, gv); }
static inline int wb_index1_multiplier(const wb_model *m, const double *q,
                                       const double *p, double *lambda)
{ return WB_CALL(m, index1_multiplier, q, p, lambda); }
static inline void wb_nh_constraints(const wb_model *m, const double *q,
                                     const double *v, double *phi)
{ WB_CALL(m, nh_constraints, q, v, phi); }
static inline void wb_nh_jacobian_v(const wb_model *m, const double *q,
                                    const double *v, double *A)
{ WB_CALL(m, nh_jacobian_v, q, v, A); }
static inline void wb_nh_jacobian_q(const wb_model *m, const double *q,
                                    const double *v, double *B)
{ WB_CALL(m, nh_jacobian_q, q, v, B); }
static inline void wb_invariants(const wb_model *m, const double *q,
                                 const double *p, double *out)
{ WB_CALL(m, invariants, q, p, out); }
static inline void wb_initial(const wb_model *m, double *q, double *p)
{ WB_CALL(m, initial, q, p); }
static inline void wb_potential_discrete_gradient(const wb_model *m,
                                                  const double *q0,
                                                  const double *q1, double *dg)
{ WB_CALL(m, potential_discrete_gradient, q0, q1, dg); }

#endif
