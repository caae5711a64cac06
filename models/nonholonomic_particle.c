/* The nonholonomic particle in a harmonic potential (Martin de Diego and
 * Sato Martin de Almagro, seed 001, section 7.1; the classic example of
 * Bloch's book):
 *
 *   q = (x, y, z),  L = |v|^2 / 2 - (x^2 + y^2) / 2,  Phi = vz - y vx = 0.
 *
 * M = I and the constraint is linear in v, so the energy is conserved, and
 * y is a decoupled oscillator: Ey = (vy^2 + y^2) / 2 is conserved too.
 * Equations: x'' = -x - lambda y, y'' = -y, z'' = lambda with the paper's
 * lambda = (vx vy - x y) / (1 + y^2); the host's multiplier is nu = -lambda.
 *
 * The paper leaves the initial data open; the default is the digest's
 * choice, q0 = (1, 0.5, 0), v0 = (0.3, 0.8, 0.15) (Phi = 0), where
 * lambda0 = -0.208. */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <string.h>

static const char *const invariant_names[] = {"Ey"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = 3;
    info->n_nonholonomic = 1;
    info->mass_constant = 1;
    info->n_invariants = 1;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    memset(M, 0, 9 * sizeof(double));
    M[0] = M[4] = M[8] = 1.0;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    (void)self, (void)q;
    memcpy(v, p, 3 * sizeof(double));
}

static double potential(void *self, const double *q)
{
    (void)self;
    return 0.5 * (q[0] * q[0] + q[1] * q[1]);
}

static void gradient(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = q[0], g[1] = q[1], g[2] = 0.0;
}

static void hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, 9 * sizeof(double));
    H[0] = H[4] = 1.0;
}

/* Phi = vz - y vx */
static void constraint(void *self, const double *q, const double *v, double *phi)
{
    (void)self;
    phi[0] = v[2] - q[1] * v[0];
}

static void constraint_v(void *self, const double *q, const double *v, double *A)
{
    (void)self, (void)v;
    A[0] = -q[1], A[1] = 0.0, A[2] = 1.0;
}

static void constraint_q(void *self, const double *q, const double *v, double *B)
{
    (void)self, (void)q;
    B[0] = 0.0, B[1] = -v[0], B[2] = 0.0;
}

static void constraint_vv(void *self, const double *q, const double *v, const double *lam,
                          double *out)
{
    (void)self, (void)q, (void)v, (void)lam;
    memset(out, 0, 9 * sizeof(double));
}

/* (i, j) = lam d^2 Phi / dv_i dq_j: only (vx, y) */
static void constraint_qv(void *self, const double *q, const double *v, const double *lam,
                          double *out)
{
    (void)self, (void)q, (void)v;
    memset(out, 0, 9 * sizeof(double));
    out[1] = -lam[0];
}

static void invariants(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    out[0] = 0.5 * (p[1] * p[1] + q[1] * q[1]);
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    q[0] = 1.0, q[1] = 0.5, q[2] = 0.0;
    p[0] = 0.3, p[1] = 0.8, p[2] = q[1] * p[0]; /* Phi = 0: vz = y vx = 0.15 */
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = mass_solve,
    .potential = potential,
    .potential_gradient = gradient,
    .potential_hessian = hessian,
};

static const wb_nonholonomic_ext nonholonomic = {
    .struct_size = sizeof(wb_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_LINEAR,
    .constraints = constraint,
    .jacobian_v = constraint_v,
    .jacobian_q = constraint_q,
    .hessian_vv_contract = constraint_vv,
    .hessian_qv_contract = constraint_qv,
};

static const wb_invariants_ext invariant = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = invariants,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_NONHOLONOMIC, &nonholonomic},
    {WB_EXT_INVARIANTS, &invariant},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("nonholonomic_particle",
                "particle in a harmonic potential with Phi = vz - y vx (seed 001, section 7.1)",
                "nonholonomic particle", NULL, create, destroy, extensions);
