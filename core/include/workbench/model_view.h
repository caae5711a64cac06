/*
 * workbench/model_view.h -- the model as integrators see it.
 *
 * The host builds one wb_model per model instance.  It resolves every
 * optional callback of the model's extensions: a callback the model
 * provides is called directly (one indirect call, no host trampoline); a
 * missing derivative is replaced by the host's finite-difference fallback.
 * So an integrator never tests for NULL: every function of a capability
 * the model has (see `capabilities`) is callable.  Functions of a
 * capability the model lacks are NULL.  The members appended in ABI 1.1
 * (after potential_discrete_gradient) exist when WB_HAS_FIELD(model,
 * wb_model, member) says so, i.e. under a 1.1 host.
 *
 * Tangent coordinates: velocities, momenta and q-derivatives in this view
 * have nv entries.  On a vector space nv == nq and they are the usual
 * ones; on a Lie group v is the right-trivialised velocity xi and a
 * q-derivative is right-trivialised: column j = d/de F(exp(e E_j) q).
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
/* 1.1 */
#define WB_CAP_LIE_LAGRANGIAN 0x100u  /* wb.lie_lagrangian/1: lie_lagrangian ... */
#define WB_CAP_LIE_DYNAMICS 0x200u    /* lie_vector_field, energy, velocity on a
                                         group (from either Lie extension)      */
#define WB_CAP_LIE_LOG 0x400u         /* lie_log                                */
#define WB_CAP_LIE_CAYLEY 0x800u      /* lie_cay, lie_dcay, lie_dcayinv, stars  */
#define WB_CAP_LIE_CAYLEY_DERIVATIVE 0x1000u /* lie_dcayinv_derivative(_star) */
#define WB_CAP_GROUP_RESIDUAL 0x2000u /* lie_group_residual                     */
#define WB_CAP_VELOCITY 0x4000u       /* velocity (mechanical or Lie dynamics)  */
/* 1.4 */
#define WB_CAP_HOLONOMIC_POINT 0x8000u /* holonomic_point: the model's own
                                          wb.holonomic_point/1               */
/* 1.7 */
#define WB_CAP_HOLONOMIC_PROJECTION 0x10000u /* holonomic_projection: the
                                                model's own project() of
                                                wb.holonomic_point/1        */

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

    /* nonholonomic (v is a velocity, k = n_nonholonomic): wb.nonholonomic/1
     * on a vector space, wb.lie_nonholonomic/1 on a group (then v = xi and
     * the q-derivatives are right-trivialised, k x nv) */
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
     * passed through unchanged (NULL when absent).  Their optional members
     * may be NULL: prefer the bound lie_* functions of ABI 1.1 below. */
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

    /* ---- 1.1 ------------------------------------------------------------ */

    /* Any extension of the model by id (NULL when absent), so that an
     * extension id the host does not know yet is usable by a plugin that
     * does: call its functions with model_self.  Always bound. */
    WB_BOUND(const void *, extension, const char *id);
    void *model_self;

    /* The velocity of the state (q, p), nv values: M(q)^-1 p on a vector
     * space, xi = f1(q, mu) on a group.  WB_CAP_VELOCITY. */
    WB_BOUND(void, velocity, const double *q, const double *p, double *v);
    /* Host-derived: the consistent nonholonomic multiplier nu (k values,
     * sign as in model.h: p' = ... - A^T nu), from d/dt Phi = 0 along the
     * flow: (A W A^T) nu = D_q Phi v + A (W f + w), with W = M^-1 (vector
     * space) or D_mu f1 (group), f the unconstrained force, w the drift of
     * the velocity at fixed momentum.  With holonomic constraints too, both
     * multipliers come from one joint system (index1_multiplier then
     * answers the holonomic part of it).  Returns WB_OK or
     * WB_ERR_SINGULAR.  Bound with nonholonomic constraints. */
    WB_BOUND(int, nh_multiplier, const double *q, const double *p, double *nu);

    /* Lie group (WB_CAP_LIE_GROUP), the model's own functions or the
     * host's: identity, compose, inverse, exp, dexp, dexpinv, ad, ad_star,
     * Ad, Ad_star always; dexp_star and dexpinv_star (host: transposes);
     * log with WB_CAP_LIE_LOG; cay, dcay (host: inverse of dcayinv),
     * dcayinv, dcay_star, dcayinv_star with WB_CAP_LIE_CAYLEY;
     * dcayinv_derivative and its transpose in w,
     *   <dcayinv_derivative_star(xi, v, mu), w> = <mu, D_xi[dcayinv_xi v] w>,
     * with WB_CAP_LIE_CAYLEY_DERIVATIVE; group_residual with
     * WB_CAP_GROUP_RESIDUAL. */
    WB_BOUND(void, lie_identity, double *e);
    WB_BOUND(void, lie_compose, const double *a, const double *b, double *ab);
    WB_BOUND(void, lie_inverse, const double *a, double *ainv);
    WB_BOUND(void, lie_exp, const double *xi, double *g);
    WB_BOUND(void, lie_log, const double *g, double *xi);
    WB_BOUND(void, lie_dexp, const double *xi, const double *v, double *out);
    WB_BOUND(void, lie_dexpinv, const double *xi, const double *v, double *out);
    WB_BOUND(void, lie_dexp_star, const double *xi, const double *mu, double *out);
    WB_BOUND(void, lie_dexpinv_star, const double *xi, const double *mu, double *out);
    WB_BOUND(void, lie_ad, const double *x, const double *y, double *out);
    WB_BOUND(void, lie_ad_star, const double *x, const double *mu, double *out);
    WB_BOUND(void, lie_Ad, const double *g, const double *x, double *out);
    WB_BOUND(void, lie_Ad_star, const double *g, const double *mu, double *out);
    WB_BOUND(void, lie_cay, const double *xi, double *g);
    WB_BOUND(void, lie_dcay, const double *xi, const double *v, double *out);
    WB_BOUND(void, lie_dcayinv, const double *xi, const double *v, double *out);
    WB_BOUND(void, lie_dcay_star, const double *xi, const double *mu, double *out);
    WB_BOUND(void, lie_dcayinv_star, const double *xi, const double *mu, double *out);
    WB_BOUND(void, lie_dcayinv_derivative, const double *xi, const double *v,
             const double *w, double *out);
    WB_BOUND(void, lie_dcayinv_derivative_star, const double *xi, const double *v,
             const double *mu, double *out);
    WB_BOUND(double, lie_group_residual, const double *q);

    /* Dynamics on T*G (WB_CAP_LIE_DYNAMICS): (f1, f2) of
     * wb.lie_hamiltonian/1, or from wb.lie_lagrangian/1 f1 = xi(g, mu)
     * (the inverse Legendre transform) and f2 = n(g, f1). */
    WB_BOUND(void, lie_vector_field, const double *q, const double *mu, double *f1,
             double *f2);

    /* wb.lie_lagrangian/1 (WB_CAP_LIE_LAGRANGIAN), with host fallbacks for
     * the optional derivatives (differences along the group) and for the
     * inverse Legendre transform (Newton on lie_momentum). */
    WB_BOUND(double, lie_lagrangian, const double *g, const double *xi);
    WB_BOUND(void, lie_momentum, const double *g, const double *xi, double *mu);
    WB_BOUND(void, lie_force, const double *g, const double *xi, double *n);
    WB_BOUND(void, lie_velocity, const double *g, const double *mu, double *xi);
    WB_BOUND(void, lie_momentum_jacobian_xi, const double *g, const double *xi, double *J);
    WB_BOUND(void, lie_momentum_jacobian_g, const double *g, const double *xi, double *J);
    WB_BOUND(void, lie_force_jacobian_g, const double *g, const double *xi, double *J);

    /* ---- 1.4 ------------------------------------------------------------ */

    /* wb.holonomic_point/1: grad V(q) (nq), g(q) (m) and G(q) (m x nq,
     * row-major) in one call of the model's own function (no host
     * fallback: it would only be the three calls it saves).  Bound, with
     * WB_CAP_HOLONOMIC_POINT set, only when the model provides it; else
     * NULL.  Test wb_has_holonomic_point() before calling. */
    WB_BOUND(void, holonomic_point, const double *q, double *grad_V, double *g, double *G);

    /* ---- 1.7 ------------------------------------------------------------ */

    /* wb.holonomic_point/1's project(): the one-constraint Newton iteration
     * of a position step run by the model on its own evaluate() (model.h,
     * wb_projection_problem).  Bound, with WB_CAP_HOLONOMIC_PROJECTION,
     * only when the model provides it and the instance has one holonomic
     * constraint; else NULL (a project_nq other than 0 and the instance's
     * nq is refused when the model is created).  Test
     * wb_has_holonomic_projection(). */
    WB_BOUND(int, holonomic_projection, const wb_projection_problem *problem, double *lambda,
             double *q, double *grad_V, double *g, double *G, wb_projection_report *report);
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

/* 1.1 */
static inline const void *wb_extension(const wb_model *m, const char *id)
{ return WB_CALL(m, extension, id); }
static inline void wb_velocity(const wb_model *m, const double *q, const double *p,
                               double *v)
{ WB_CALL(m, velocity, q, p, v); }
static inline int wb_nh_multiplier(const wb_model *m, const double *q, const double *p,
                                   double *nu)
{ return WB_CALL(m, nh_multiplier, q, p, nu); }
static inline void wb_nh_hessian_vv_contract(const wb_model *m, const double *q,
                                             const double *v, const double *lam,
                                             double *out)
{ WB_CALL(m, nh_hessian_vv_contract, q, v, lam, out); }
static inline void wb_nh_hessian_qv_contract(const wb_model *m, const double *q,
                                             const double *v, const double *lam,
                                             double *out)
{ WB_CALL(m, nh_hessian_qv_contract, q, v, lam, out); }
static inline void wb_lie_identity(const wb_model *m, double *e)
{ WB_CALL(m, lie_identity, e); }
static inline void wb_lie_compose(const wb_model *m, const double *a, const double *b,
                                  double *ab)
{ WB_CALL(m, lie_compose, a, b, ab); }
static inline void wb_lie_inverse(const wb_model *m, const double *a, double *ainv)
{ WB_CALL(m, lie_inverse, a, ainv); }
static inline void wb_lie_exp(const wb_model *m, const double *xi, double *g)
{ WB_CALL(m, lie_exp, xi, g); }
static inline void wb_lie_log(const wb_model *m, const double *g, double *xi)
{ WB_CALL(m, lie_log, g, xi); }
static inline void wb_lie_dexp(const wb_model *m, const double *xi, const double *v,
                               double *out)
{ WB_CALL(m, lie_dexp, xi, v, out); }
static inline void wb_lie_dexpinv(const wb_model *m, const double *xi, const double *v,
                                  double *out)
{ WB_CALL(m, lie_dexpinv, xi, v, out); }
static inline void wb_lie_dexp_star(const wb_model *m, const double *xi,
                                    const double *mu, double *out)
{ WB_CALL(m, lie_dexp_star, xi, mu, out); }
static inline void wb_lie_dexpinv_star(const wb_model *m, const double *xi,
                                       const double *mu, double *out)
{ WB_CALL(m, lie_dexpinv_star, xi, mu, out); }
static inline void wb_lie_ad(const wb_model *m, const double *x, const double *y,
                             double *out)
{ WB_CALL(m, lie_ad, x, y, out); }
static inline void wb_lie_ad_star(const wb_model *m, const double *x, const double *mu,
                                  double *out)
{ WB_CALL(m, lie_ad_star, x, mu, out); }
static inline void wb_lie_Ad(const wb_model *m, const double *g, const double *x,
                             double *out)
{ WB_CALL(m, lie_Ad, g, x, out); }
static inline void wb_lie_Ad_star(const wb_model *m, const double *g, const double *mu,
                                  double *out)
{ WB_CALL(m, lie_Ad_star, g, mu, out); }
static inline void wb_lie_cay(const wb_model *m, const double *xi, double *g)
{ WB_CALL(m, lie_cay, xi, g); }
static inline void wb_lie_dcay(const wb_model *m, const double *xi, const double *v,
                               double *out)
{ WB_CALL(m, lie_dcay, xi, v, out); }
static inline void wb_lie_dcayinv(const wb_model *m, const double *xi, const double *v,
                                  double *out)
{ WB_CALL(m, lie_dcayinv, xi, v, out); }
static inline void wb_lie_dcay_star(const wb_model *m, const double *xi,
                                    const double *mu, double *out)
{ WB_CALL(m, lie_dcay_star, xi, mu, out); }
static inline void wb_lie_dcayinv_star(const wb_model *m, const double *xi,
                                       const double *mu, double *out)
{ WB_CALL(m, lie_dcayinv_star, xi, mu, out); }
static inline void wb_lie_dcayinv_derivative(const wb_model *m, const double *xi,
                                             const double *v, const double *w,
                                             double *out)
{ WB_CALL(m, lie_dcayinv_derivative, xi, v, w, out); }
static inline void wb_lie_dcayinv_derivative_star(const wb_model *m, const double *xi,
                                                  const double *v, const double *mu,
                                                  double *out)
{ WB_CALL(m, lie_dcayinv_derivative_star, xi, v, mu, out); }
static inline double wb_lie_group_residual(const wb_model *m, const double *q)
{ return WB_CALL(m, lie_group_residual, q); }
static inline void wb_lie_vector_field(const wb_model *m, const double *q,
                                       const double *mu, double *f1, double *f2)
{ WB_CALL(m, lie_vector_field, q, mu, f1, f2); }
static inline double wb_lie_lagrangian(const wb_model *m, const double *g,
                                       const double *xi)
{ return WB_CALL(m, lie_lagrangian, g, xi); }
static inline void wb_lie_momentum(const wb_model *m, const double *g, const double *xi,
                                   double *mu)
{ WB_CALL(m, lie_momentum, g, xi, mu); }
static inline void wb_lie_force(const wb_model *m, const double *g, const double *xi,
                                double *n)
{ WB_CALL(m, lie_force, g, xi, n); }
static inline void wb_lie_velocity(const wb_model *m, const double *g, const double *mu,
                                   double *xi)
{ WB_CALL(m, lie_velocity, g, mu, xi); }
static inline void wb_lie_momentum_jacobian_xi(const wb_model *m, const double *g,
                                               const double *xi, double *J)
{ WB_CALL(m, lie_momentum_jacobian_xi, g, xi, J); }
static inline void wb_lie_momentum_jacobian_g(const wb_model *m, const double *g,
                                              const double *xi, double *J)
{ WB_CALL(m, lie_momentum_jacobian_g, g, xi, J); }
static inline void wb_lie_force_jacobian_g(const wb_model *m, const double *g,
                                           const double *xi, double *J)
{ WB_CALL(m, lie_force_jacobian_g, g, xi, J); }

/* 1.4 */
/* True when the view (of any minor version) holds holonomic_point and the
 * model provides it. */
static inline int wb_has_holonomic_point(const wb_model *m)
{
    return WB_HAS_FIELD(m, wb_model, holonomic_point) &&
           (m->capabilities & WB_CAP_HOLONOMIC_POINT) && m->holonomic_point.fn;
}
static inline void wb_holonomic_point(const wb_model *m, const double *q, double *grad_V,
                                      double *g, double *G)
{ WB_CALL(m, holonomic_point, q, grad_V, g, G); }

/* True when the view (of any minor version) holds holonomic_projection and
 * the model provides it. */
static inline int wb_has_holonomic_projection(const wb_model *m)
{
    return WB_HAS_FIELD(m, wb_model, holonomic_projection) &&
           (m->capabilities & WB_CAP_HOLONOMIC_PROJECTION) && m->holonomic_projection.fn;
}
static inline int wb_holonomic_projection(const wb_model *m, const wb_projection_problem *problem,
                                          double *lambda, double *q, double *grad_V, double *g,
                                          double *G, wb_projection_report *report)
{ return WB_CALL(m, holonomic_projection, problem, lambda, q, grad_V, g, G, report); }

#endif
