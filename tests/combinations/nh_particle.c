/* Vector-space test models with velocity constraints, analytic
 * derivatives throughout.
 *
 * nh_particle (default): the nonholonomic particle of Martin de Diego and
 * Sato (seed 001, section 7.1), q = (x, y, z), M = I,
 *   V = (x^2 + y^2)/2,   Phi = vz - y vx   (linear in v),
 * so y is a decoupled oscillator (E_y = (vy^2 + y^2)/2 conserved) and the
 * consistent multiplier, in the host's sign (p' = ... - A^T nu), is
 * nu = -(vx vy - x y)/(1 + y^2): 0.208 at the digest's initial state
 * q0 = (1, 0.5, 0), v0 = (0.3, 0.8, 0.15).
 *
 * With -DWITH_HOLONOMIC (nh_both): a fourth coordinate w, the holonomic
 * constraint g = (x^2 + w^2 - 1)/2 and V += w, so the host's joint
 * multiplier system (one hidden holonomic row, one nonholonomic row) is
 * exercised; y still decouples. */
#include <workbench/workbench.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef WITH_HOLONOMIC
#define NAME "nh_both"
#define N 4
#else
#define NAME "nh_particle"
#define N 3
#endif

static int create(const wb_host *host, const double *values, void **self,
                  wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = N;
    info->n_nonholonomic = 1;
#ifdef WITH_HOLONOMIC
    info->n_holonomic = 1;
#endif
    info->mass_constant = 1;
    static const char *const names[] = {"Ey"};
    info->n_invariants = 1;
    info->invariant_names = names;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    memset(M, 0, N * N * sizeof(double));
    for (int i = 0; i < N; i++)
        M[i * N + i] = 1.0;
}

static double potential(void *self, const double *q)
{
    (void)self;
    double V = 0.5 * (q[0] * q[0] + q[1] * q[1]);
#ifdef WITH_HOLONOMIC
    V += q[3];
#endif
    return V;
}

static void gradient(void *self, const double *q, double *g)
{
    (void)self;
    memset(g, 0, N * sizeof(double));
    g[0] = q[0], g[1] = q[1];
#ifdef WITH_HOLONOMIC
    g[3] = 1.0;
#endif
}

static void hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, N * N * sizeof(double));
    H[0] = H[N + 1] = 1.0;
}

/* Phi = vz - y vx */
static void phi(void *self, const double *q, const double *v, double *out)
{
    (void)self;
    out[0] = v[2] - q[1] * v[0];
}

static void phi_v(void *self, const double *q, const double *v, double *A)
{
    (void)self, (void)v;
    memset(A, 0, N * sizeof(double));
    A[0] = -q[1], A[2] = 1.0;
}

static void phi_q(void *self, const double *q, const double *v, double *B)
{
    (void)self, (void)q;
    memset(B, 0, N * sizeof(double));
    B[1] = -v[0];
}

/* sum lam D_q D_v Phi: (i, j) = d^2 Phi / dv_i dq_j; only (x-velocity, y) */
static void phi_qv(void *self, const double *q, const double *v, const double *lam,
                   double *out)
{
    (void)self, (void)q, (void)v;
    memset(out, 0, N * N * sizeof(double));
    out[0 * N + 1] = -lam[0];
}

static void invariants(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    out[0] = 0.5 * (p[1] * p[1] + q[1] * q[1]);
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    memset(q, 0, N * sizeof(double));
    memset(p, 0, N * sizeof(double));
#ifdef WITH_HOLONOMIC
    q[0] = 0.6, q[1] = 0.5, q[3] = 0.8;
    p[0] = 0.4, p[1] = 0.7, p[3] = -0.3; /* x vx + w vw = 0 */
#else
    q[0] = 1.0, q[1] = 0.5;
    p[0] = 0.3, p[1] = 0.8;
#endif
    p[2] = q[1] * p[0]; /* Phi = 0 */
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
    .potential_gradient = gradient,
    .potential_hessian = hessian,
};

static const wb_nonholonomic_ext nonholonomic = {
    .struct_size = sizeof(wb_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_LINEAR,
    .constraints = phi,
    .jacobian_v = phi_v,
    .jacobian_q = phi_q,
    .hessian_qv_contract = phi_qv,
};

#ifdef WITH_HOLONOMIC
static void g_of(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = 0.5 * (q[0] * q[0] + q[3] * q[3] - 1.0);
}

static void G_of(void *self, const double *q, double *G)
{
    (void)self;
    G[0] = q[0], G[1] = G[2] = 0.0, G[3] = q[3];
}

static void g_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self, (void)q;
    memset(T, 0, N * N * sizeof(double));
    T[0] = T[3 * N + 3] = mu[0];
}

static void g_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self, (void)q;
    B[0] = w[0], B[1] = B[2] = 0.0, B[3] = w[3];
}

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = WB_HOLONOMIC_QUADRATIC,
    .constraints = g_of,
    .jacobian = G_of,
    .hessian_contract = g_contract,
    .hessian_vector = g_vector,
};
#endif

static const wb_invariants_ext invariant = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = invariants,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_NONHOLONOMIC) == 0)
        return &nonholonomic;
#ifdef WITH_HOLONOMIC
    if (strcmp(id, WB_EXT_HOLONOMIC) == 0)
        return &holonomic;
#endif
    if (strcmp(id, WB_EXT_INVARIANTS) == 0)
        return &invariant;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = NAME,
    .doc = "test: a particle with a velocity constraint (seed 001, section 7.1)",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
    .param_spec_size = sizeof(wb_param_spec),
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = NAME,
    .version = "test",
    .description = "test model with velocity constraints",
    .descriptor = &model_class,
};
