/* The spherical pendulum (m = l = 1, gravity 9.81) that counts the calls
 * of its potential gradient and of its constraint Jacobian, and reports
 * the counts as two "invariants" (a test device: a real model's
 * invariants are functions of the state).  A method's
 * sol.stats.function_evals claims how often it evaluated the forces; the
 * difference of these columns between the first and the last recorded
 * row says how often it did.  tests/plugins/counting.lua compares them.
 *
 *   q in R^3, M = I, V = 9.81 z, g(q) = (|q|^2 - 1) / 2.
 *
 * Built with COUNTING_NONHOLONOMIC: counting_nonholonomic, the
 * nonholonomic particle of models/nonholonomic_particle.c (V = (x^2 +
 * y^2) / 2, Phi = v_z - y v_x) counting its gradient calls the same way
 * (its "jacobian_calls" are those of Phi's v-Jacobian). */
#include <workbench/workbench.h>

#include <stdlib.h>
#include <string.h>

#ifdef COUNTING_NONHOLONOMIC
#define MODEL_NAME "counting_nonholonomic"
#else
#define MODEL_NAME "counting_model"
#endif

typedef struct counts {
    double gradient, jacobian;
} counts;

static const char *const invariant_names[] = {"gradient_calls", "jacobian_calls"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)values;
    counts *c = calloc(1, sizeof *c);
    if (!c) {
        host->error(host, "counting_model: out of memory");
        return WB_ERR_NOMEM;
    }
    *self = c;
    info->nq = info->nv = 3;
#ifdef COUNTING_NONHOLONOMIC
    info->n_nonholonomic = 1;
#else
    info->n_holonomic = 1;
#endif
    info->mass_constant = 1;
    info->n_invariants = 2;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    memset(M, 0, 9 * sizeof(double));
    M[0] = M[4] = M[8] = 1.0;
}

#ifdef COUNTING_NONHOLONOMIC
static double potential(void *self, const double *q)
{
    (void)self;
    return 0.5 * (q[0] * q[0] + q[1] * q[1]);
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    counts *c = self;
    c->gradient += 1;
    grad[0] = q[0], grad[1] = q[1], grad[2] = 0.0;
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, 9 * sizeof(double));
    H[0] = H[4] = 1.0;
}

static void nh_constraint(void *self, const double *q, const double *v, double *phi)
{
    (void)self;
    phi[0] = v[2] - q[1] * v[0];
}

static void nh_jacobian_v(void *self, const double *q, const double *v, double *A)
{
    counts *c = self;
    (void)v;
    c->jacobian += 1;
    A[0] = -q[1], A[1] = 0.0, A[2] = 1.0;
}

static void nh_jacobian_q(void *self, const double *q, const double *v, double *B)
{
    (void)self, (void)q;
    B[0] = 0.0, B[1] = -v[0], B[2] = 0.0;
}

static void nh_hessian_vv(void *self, const double *q, const double *v, const double *lam,
                          double *out)
{
    (void)self, (void)q, (void)v, (void)lam;
    memset(out, 0, 9 * sizeof(double));
}

static void nh_hessian_qv(void *self, const double *q, const double *v, const double *lam,
                          double *out)
{
    (void)self, (void)q, (void)v;
    memset(out, 0, 9 * sizeof(double));
    out[1] = -lam[0];
}

static const wb_nonholonomic_ext nonholonomic = {
    .struct_size = sizeof(wb_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_LINEAR,
    .constraints = nh_constraint,
    .jacobian_v = nh_jacobian_v,
    .jacobian_q = nh_jacobian_q,
    .hessian_vv_contract = nh_hessian_vv,
    .hessian_qv_contract = nh_hessian_qv,
};
#else
static double potential(void *self, const double *q)
{
    (void)self;
    return 9.81 * q[2];
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    counts *c = self;
    (void)q;
    c->gradient += 1;
    grad[0] = grad[1] = 0.0, grad[2] = 9.81;
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, 9 * sizeof(double));
}

#ifndef COUNTING_NONHOLONOMIC
static void constraints(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 1.0);
}

static void jacobian(void *self, const double *q, double *G)
{
    counts *c = self;
    c->jacobian += 1;
    G[0] = q[0], G[1] = q[1], G[2] = q[2];
}

static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self, (void)q;
    memset(T, 0, 9 * sizeof(double));
    T[0] = T[4] = T[8] = mu[0];
}

static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self, (void)q;
    B[0] = w[0], B[1] = w[1], B[2] = w[2];
}

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = WB_HOLONOMIC_QUADRATIC,
    .constraints = constraints,
    .jacobian = jacobian,
    .hessian_contract = hessian_contract,
    .hessian_vector = hessian_vector,
};
#endif

#endif /* COUNTING_NONHOLONOMIC */

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    const counts *c = self;
    (void)q, (void)p;
    out[0] = c->gradient, out[1] = c->jacobian;
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
#ifdef COUNTING_NONHOLONOMIC
    q[0] = 1.0, q[1] = 0.5, q[2] = 0.0;
    p[0] = 0.3, p[1] = 0.8, p[2] = q[1] * p[0]; /* Phi = 0 */
#else
    q[0] = 1.0, q[1] = 0.0, q[2] = 0.0;
    p[0] = 0.0, p[1] = 1.0, p[2] = 0.0;
#endif
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
    .potential_gradient = potential_gradient,
    .potential_hessian = potential_hessian,
};

static const wb_invariants_ext invariants = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = evaluate,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
#ifdef COUNTING_NONHOLONOMIC
    if (strcmp(id, WB_EXT_NONHOLONOMIC) == 0)
        return &nonholonomic;
#else
    if (strcmp(id, WB_EXT_HOLONOMIC) == 0)
        return &holonomic;
#endif
    if (strcmp(id, WB_EXT_INVARIANTS) == 0)
        return &invariants;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = MODEL_NAME,
    .doc = "a model counting its gradient and Jacobian calls (test)",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    WB_ABI_MAJOR, WB_ABI_MINOR, sizeof(wb_plugin_entry), WB_KIND_MODEL, MODEL_NAME,
    "1", "a model counting its calls (test)", &model_class,
};
