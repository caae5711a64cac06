/* A model instance: the plugin's private state plus the host-built view
 * (workbench/model_view.h) with finite-difference fallbacks. */
#ifndef CORE_MODEL_INSTANCE_H
#define CORE_MODEL_INSTANCE_H

#include "host/plugins.h"

typedef struct model_instance model_instance;

/* The extension structs the model itself provides (NULL when absent). */
typedef struct model_extensions {
    const wb_mechanical_ext *mechanical;
    const wb_holonomic_ext *holonomic;
    const wb_nonholonomic_ext *nonholonomic;
    const wb_invariants_ext *invariants;
    const wb_initial_state_ext *initial;
    const wb_lie_group_ext *lie_group;
    const wb_lie_hamiltonian_ext *lie_hamiltonian;
    const wb_potential_invariants_ext *potential_invariants;
    const wb_lie_lagrangian_ext *lie_lagrangian;
    const wb_lie_nonholonomic_ext *lie_nonholonomic;
    const wb_sparsity_ext *sparsity;
    const wb_holonomic_point_ext *holonomic_point; /* 1.4 */
} model_extensions;

/* params: one value per class parameter, or NULL for the defaults.
 * NULL with host_last_error() on failure.  An instance is counted: the
 * creator holds one reference, whoever keeps a pointer to it (a solution)
 * takes another with model_instance_retain, and model_instance_destroy
 * gives one back; the last one frees it. */
model_instance *model_instance_create(const plugin *p, const double *params);
void model_instance_retain(model_instance *mi);
void model_instance_destroy(model_instance *mi);

const wb_model *model_instance_view(const model_instance *mi);
const plugin *model_instance_plugin(const model_instance *mi);
const double *model_instance_params(const model_instance *mi);
const model_extensions *model_instance_extensions(const model_instance *mi);
void *model_instance_self(const model_instance *mi);

/* How many finite-difference levels deep the view functions that others
 * are differentiated from are: 0 when the model provides one, else one more
 * than the function it differentiates.  A central difference of a function
 * that is itself a difference must take a larger step: its noise is larger
 * (see wb_fd_step in lib/wb_fd.h).  The deepest is contract, at most 2. */
typedef struct fd_levels {
    int gradient;      /* differentiated by the Hessian of V            */
    int jacobian;      /* by the constraint Hessian contractions        */
    int contract;      /* by the third-derivative contraction           */
    int nh_jacobian_v; /* by the nonholonomic second-derivative contractions */
} fd_levels;
const fd_levels *model_instance_fd_levels(const model_instance *mi);

/* Finite differences used both as fallbacks and by check-model.  Each
 * differentiates the view's own (possibly analytic) lower derivative;
 * `inner` is the FD level of that lower function.  scratch must hold
 * fd_scratch_size(view) doubles. */
size_t fd_scratch_size(const wb_model *m);
void fd_potential_gradient(const wb_model *m, double *scratch, const double *q, double *g);
void fd_potential_hessian(const wb_model *m, int inner, double *scratch, const double *q,
                          double *H);
void fd_kinetic_gradient(const wb_model *m, double *scratch, const double *q,
                         const double *p, double *g);
void fd_constraint_jacobian(const wb_model *m, double *scratch, const double *q, double *G);
void fd_constraint_hessian_contract(const wb_model *m, int inner, double *scratch,
                                    const double *q, const double *mu, double *T);
void fd_constraint_hessian_vector(const wb_model *m, int inner, double *scratch,
                                  const double *q, const double *w, double *B);
void fd_constraint_third_contract(const wb_model *m, int inner, double *scratch,
                                  const double *q, const double *mu, const double *w,
                                  double *D);
/* The host's central differences of a Lagrangian group model's second
 * derivatives, whether or not the model gives its own (check-model
 * compares the two); J is nv x nv. */
enum { FD_MOMENTUM_JACOBIAN_XI, FD_MOMENTUM_JACOBIAN_G, FD_FORCE_JACOBIAN_G };
void model_instance_fd_lagrangian(model_instance *mi, int which, const double *g,
                                  const double *xi, double *J);

/* J (k x n) = d/dq F(q) for a function of the configuration: n = nq
 * central differences on a vector space, n = nv right-trivialised ones
 * (column j = d/de F(exp(e E_j) q)) on a group. */
void fd_configuration_jacobian(const wb_model *m, int inner, double *scratch,
                               void (*F)(void *ctx, const double *q, double *out), void *ctx,
                               int k, const double *q, double *J);
void fd_nh_jacobian_v(const wb_model *m, double *scratch, const double *q,
                      const double *v, double *A);
void fd_nh_jacobian_q(const wb_model *m, double *scratch, const double *q,
                      const double *v, double *B);
void fd_nh_hessian_vv_contract(const wb_model *m, int inner, double *scratch,
                               const double *q, const double *v, const double *lam,
                               double *out);
void fd_nh_hessian_qv_contract(const wb_model *m, int inner, double *scratch,
                               const double *q, const double *v, const double *lam,
                               double *out);

#endif
