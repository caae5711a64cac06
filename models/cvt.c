/* The pendulum-driven continuously variable transmission (Martin de Diego
 * and Sato Martin de Almagro, seed 001, section 7.2, after Modin and
 * Verdier):
 *
 *   q = (x, y, z),  L = |v|^2 / 2 - (x^2 + z^2 - 2 cos y + eps sin 2y) / 2,
 *   Phi = vz + sin(y) vx = 0.
 *
 * The driver (y, vy) is a pendulum the constraint does not touch
 * (dPhi/dvy = 0), the passenger (x, z, vx, vz) a pair of oscillators
 * coupled through the constraint; both subsystem energies
 *   Ed = vy^2 / 2 - cos y + (eps / 2) sin 2y,
 *   Ep = (vx^2 + vz^2 + x^2 + z^2) / 2
 * are first integrals, besides the total energy E = Ed + Ep.
 *
 * Initial data (the paper's): q0 = (1, 0, 1), v0 = (0, vy0, 0); the
 * default vy0 = 3 sqrt(10) / 5 is the oscillating regime (E = 9/5,
 * Ed = 4/5, Ep = 1), vy0 = sqrt(8) the rotating one (E = 4, Ed = 3).
 * The consistent multiplier is lambda0 = 1 in both (the host's nu = -1). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cvt {
    double eps, vy0;
} cvt;

enum { P_EPS, P_VY0 };
static const wb_param_spec params[] = {
    {"eps", 0.5, 0.0, 1e6, "asymmetry of the driver's potential, eps sin(2y) / 2"},
    {"vy0", 1.8973665961010275, -1e6, 1e6,
     "initial driver speed: 3 sqrt(10)/5 oscillating (E = 9/5), sqrt(8) rotating (E = 4)"},
};

static const char *const invariant_names[] = {"Ed", "Ep"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    cvt *c = malloc(sizeof *c);
    if (!c) {
        host->error(host, "cvt: out of memory");
        return WB_ERR_NOMEM;
    }
    c->eps = values[P_EPS], c->vy0 = values[P_VY0];
    *self = c;
    info->nq = info->nv = 3;
    info->n_nonholonomic = 1;
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

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    (void)self, (void)q;
    memcpy(v, p, 3 * sizeof(double));
}

static double potential(void *self, const double *q)
{
    const cvt *c = self;
    return 0.5 * (q[0] * q[0] + q[2] * q[2]) - cos(q[1]) + 0.5 * c->eps * sin(2.0 * q[1]);
}

static void gradient(void *self, const double *q, double *g)
{
    const cvt *c = self;
    g[0] = q[0], g[1] = sin(q[1]) + c->eps * cos(2.0 * q[1]), g[2] = q[2];
}

static void hessian(void *self, const double *q, double *H)
{
    const cvt *c = self;
    memset(H, 0, 9 * sizeof(double));
    H[0] = H[8] = 1.0;
    H[4] = cos(q[1]) - 2.0 * c->eps * sin(2.0 * q[1]);
}

/* Phi = vz + sin(y) vx */
static void constraint(void *self, const double *q, const double *v, double *phi)
{
    (void)self;
    phi[0] = v[2] + sin(q[1]) * v[0];
}

static void constraint_v(void *self, const double *q, const double *v, double *A)
{
    (void)self, (void)v;
    A[0] = sin(q[1]), A[1] = 0.0, A[2] = 1.0;
}

static void constraint_q(void *self, const double *q, const double *v, double *B)
{
    (void)self;
    B[0] = 0.0, B[1] = cos(q[1]) * v[0], B[2] = 0.0;
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
    (void)self, (void)v;
    memset(out, 0, 9 * sizeof(double));
    out[1] = lam[0] * cos(q[1]);
}

static void invariants(void *self, const double *q, const double *p, double *out)
{
    const cvt *c = self;
    out[0] = 0.5 * p[1] * p[1] - cos(q[1]) + 0.5 * c->eps * sin(2.0 * q[1]);
    out[1] = 0.5 * (p[0] * p[0] + p[2] * p[2] + q[0] * q[0] + q[2] * q[2]);
}

static void initial(void *self, double *q, double *p)
{
    const cvt *c = self;
    q[0] = 1.0, q[1] = 0.0, q[2] = 1.0;
    p[0] = 0.0, p[1] = c->vy0, p[2] = 0.0;
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

WB_MODEL_PLUGIN("cvt", "pendulum-driven continuously variable transmission (seed 001, section 7.2)",
                "pendulum-driven CVT", params, create, destroy, extensions);
