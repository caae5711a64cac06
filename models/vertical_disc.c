/* A vertical disc rolling without slipping on a plane, tied to the origin
 * by a spring (Martin de Diego and Sato Martin de Almagro, seed 001,
 * section 7.4), as a Lagrangian system on SE(2) with every derivative in
 * closed form.
 *
 * g = (R(theta), t), t = (x, y) the contact point; the right-trivialised
 * velocity xi = (w, u) gives theta' = w and t' = s = u + w J t, so
 *   l(g, xi) = (m |s|^2 + Iz w^2) / 2 - |t|^2 / 2,
 *   phi(g, xi) = s . R e2 = vy cos(theta) - vx sin(theta) = 0,
 *   mu = (m s . J t + Iz w, m s),
 *   <n, eta> = d/de l(exp(e eta) g, xi) = c . (eta_u + eta_w J t),
 *   c = -m w J s - t,  J = [[0, -1], [1, 0]].
 * The paper writes l and phi left-trivialised (body velocities v1, v2:
 * phi = v2); the system is the same.  The energy
 * E = (m |s|^2 + Iz w^2) / 2 + |t|^2 / 2 and the turning rate w are first
 * integrals (theta(t) = theta0 + w0 t).
 *
 * Initial data (the paper leaves them open; the digest's choice):
 * (x, y, theta) = (1, 0, 0.3), rolling forward at v0 = 0.5 along the
 * heading R e1, turning at w0 = 1; m = 1, Iz = 0.5.
 *
 * A round-off floor of the formulation at large m |t|^2 / Iz (issue 13):
 * the state's momentum mu0 = m s . J t + Iz w holds the spin Iz w beside
 * the orbital part, so w = (mu0 + mu1 t2 - mu2 t1) / Iz is a difference of
 * terms m |t|^2 / Iz times its size (1e12 at Iz = 1e-12 or m = 1e12, |t| =
 * 1).  Rounding the state (g, mu) to doubles at each step moves w by up to
 * a unit eps (|mu0| + |mu1 t2| + |mu2 t1|) / Iz: 6.6e-5 at Iz = 1e-12,
 * 1.3e-4 at m = 1e12, 3.5e-16 at the defaults.  Measured over 80 steps at
 * h = 1e-2 .. 1e-10 with classic.rkmk4 and nonholonomic.lobatto (s = 2, 3):
 * w, a first integral, changes by 0.14 .. 0.92 of that unit per step on
 * average (mostly 0.2 .. 0.5; the same at the defaults for h <= 1e-5),
 * so |w(T) - 1| reaches up to 2e-3 after 80 steps there (<= 2e-14 at
 * the defaults), growing with the number of steps and not with h.  No method that carries (g, mu) in
 * doubles does better (a body-frame momentum, whose first component is
 * Iz w alone, would not have the floor; the ABI's momenta are
 * right-trivialised); the positions are not touched (theta's error is w's
 * times t). */
#include <workbench/workbench.h>
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct disc {
    wb_group group;
    double m, Iz, x0, y0, theta0, v0, w0;
} disc;

enum { P_M, P_IZ, P_X0, P_Y0, P_THETA0, P_V0, P_W0 };
static const wb_param_spec params[] = {
    {"m", 1.0, 1e-12, 1e12, "mass of the disc"},
    {"Iz", 0.5, 1e-12, 1e12, "moment of inertia about the vertical"},
    {"x0", 1.0, -1e6, 1e6, "initial contact point x"},
    {"y0", 0.0, -1e6, 1e6, "initial contact point y"},
    {"theta0", 0.3, -1e6, 1e6, "initial heading angle"},
    {"v0", 0.5, -1e6, 1e6, "initial rolling speed along the heading"},
    {"w0", 1.0, -1e6, 1e6, "turning rate theta' (a first integral)"},
};

static const char *const invariant_names[] = {"w"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    disc *D = calloc(1, sizeof *D);
    if (!D) {
        host->error(host, "vertical_disc: out of memory");
        return WB_ERR_NOMEM;
    }
    wb_group_init(&D->group);
    wb_group_add(&D->group, WB_GROUP_SE2, 0);
    D->m = values[P_M], D->Iz = values[P_IZ];
    D->x0 = values[P_X0], D->y0 = values[P_Y0], D->theta0 = values[P_THETA0];
    D->v0 = values[P_V0], D->w0 = values[P_W0];
    *self = D;
    info->nq = 6, info->nv = 3;
    info->n_nonholonomic = 1;
    info->n_invariants = 1;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static const wb_group *group_of(void *self) { return &((disc *)self)->group; }

WB_LIE_GROUP_EXTENSION(lie_group, group_of);

/* g = (R11, R12, R21, R22, t1, t2): s = u + w J t, and r = R e2 = (R12, R22) */
static void contact_velocity(const double *g, const double *xi, double *s)
{
    s[0] = xi[1] - xi[0] * g[5];
    s[1] = xi[2] + xi[0] * g[4];
}

static double lagrangian(void *self, const double *g, const double *xi)
{
    const disc *D = self;
    double s[2];
    contact_velocity(g, xi, s);
    return 0.5 * (D->m * (s[0] * s[0] + s[1] * s[1]) + D->Iz * xi[0] * xi[0]) -
           0.5 * (g[4] * g[4] + g[5] * g[5]);
}

static void momentum(void *self, const double *g, const double *xi, double *mu)
{
    const disc *D = self;
    double s[2];
    contact_velocity(g, xi, s);
    mu[0] = D->m * (-s[0] * g[5] + s[1] * g[4]) + D->Iz * xi[0];
    mu[1] = D->m * s[0], mu[2] = D->m * s[1];
}

/* c = -m w J s - t */
static void spring_and_turning(const disc *D, const double *g, const double *xi,
                               const double *s, double *c)
{
    c[0] = D->m * xi[0] * s[1] - g[4];
    c[1] = -D->m * xi[0] * s[0] - g[5];
}

static void force(void *self, const double *g, const double *xi, double *n)
{
    const disc *D = self;
    double s[2], c[2];
    contact_velocity(g, xi, s);
    spring_and_turning(D, g, xi, s, c);
    n[0] = -c[0] * g[5] + c[1] * g[4]; /* c . J t */
    n[1] = c[0], n[2] = c[1];
}

static void velocity(void *self, const double *g, const double *mu, double *xi)
{
    const disc *D = self;
    const double s0 = mu[1] / D->m, s1 = mu[2] / D->m;
    const double w = (mu[0] + mu[1] * g[5] - mu[2] * g[4]) / D->Iz;
    xi[0] = w, xi[1] = s0 + w * g[5], xi[2] = s1 - w * g[4];
}

static void momentum_jacobian_xi(void *self, const double *g, const double *xi, double *J)
{
    const disc *D = self;
    const double m = D->m, t1 = g[4], t2 = g[5];
    (void)xi;
    J[0] = m * (t1 * t1 + t2 * t2) + D->Iz, J[1] = -m * t2, J[2] = m * t1;
    J[3] = -m * t2, J[4] = m, J[5] = 0.0;
    J[6] = m * t1, J[7] = 0.0, J[8] = m;
}

/* columns: along E_w (delta t = J t), E_u1 (e1), E_u2 (e2); delta s = w J delta t */
static void momentum_jacobian_g(void *self, const double *g, const double *xi, double *J)
{
    const disc *D = self;
    const double m = D->m, w = xi[0], t1 = g[4], t2 = g[5];
    double s[2];
    contact_velocity(g, xi, s);
    J[0] = -m * (s[0] * t1 + s[1] * t2), J[1] = m * (w * t1 + s[1]), J[2] = m * (w * t2 - s[0]);
    J[3] = -m * w * t1, J[4] = 0.0, J[5] = -m * w;
    J[6] = -m * w * t2, J[7] = m * w, J[8] = 0.0;
}

/* delta c = (m w^2 - 1) delta t, delta n0 = delta c . J t + c . J delta t */
static void force_jacobian_g(void *self, const double *g, const double *xi, double *J)
{
    const disc *D = self;
    const double w = xi[0], t1 = g[4], t2 = g[5], k = D->m * w * w - 1.0;
    double s[2], c[2];
    contact_velocity(g, xi, s);
    spring_and_turning(D, g, xi, s, c);
    J[0] = k * (t1 * t1 + t2 * t2) - (c[0] * t1 + c[1] * t2);
    J[1] = -k * t2 + c[1];
    J[2] = k * t1 - c[0];
    J[3] = -k * t2, J[4] = k, J[5] = 0.0;
    J[6] = k * t1, J[7] = 0.0, J[8] = k;
}

/* phi = s . r, r = R e2 */
static void no_slip(void *self, const double *g, const double *xi, double *phi)
{
    double s[2];
    (void)self;
    contact_velocity(g, xi, s);
    phi[0] = s[0] * g[1] + s[1] * g[3];
}

static void no_slip_xi(void *self, const double *g, const double *xi, double *A)
{
    (void)self, (void)xi;
    const double r0 = g[1], r1 = g[3];
    A[0] = -g[5] * r0 + g[4] * r1; /* J t . r */
    A[1] = r0, A[2] = r1;
}

/* along E_w: delta s = -w t, delta r = J r; along E_u: delta s = w J e_u */
static void no_slip_g(void *self, const double *g, const double *xi, double *B)
{
    (void)self;
    const double r0 = g[1], r1 = g[3], w = xi[0];
    double s[2];
    contact_velocity(g, xi, s);
    B[0] = -w * (g[4] * r0 + g[5] * r1) + (-s[0] * r1 + s[1] * r0);
    B[1] = w * r1, B[2] = -w * r0;
}

static void no_slip_xixi(void *self, const double *g, const double *xi, const double *lam,
                         double *out)
{
    (void)self, (void)g, (void)xi, (void)lam;
    memset(out, 0, 9 * sizeof(double));
}

/* (i, j) = lam d/de [d phi / d xi_i](exp(e E_j) g) */
static void no_slip_gxi(void *self, const double *g, const double *xi, const double *lam,
                        double *out)
{
    (void)self, (void)xi;
    const double r0 = g[1], r1 = g[3], l = lam[0];
    out[0] = 0.0, out[1] = l * r1, out[2] = -l * r0;
    out[3] = -l * r1, out[4] = 0.0, out[5] = 0.0;
    out[6] = l * r0, out[7] = 0.0, out[8] = 0.0;
}

static void invariants(void *self, const double *g, const double *mu, double *out)
{
    double xi[3];
    velocity(self, g, mu, xi);
    out[0] = xi[0];
}

static void initial(void *self, double *g, double *mu)
{
    const disc *D = self;
    const double c = cos(D->theta0), sn = sin(D->theta0);
    g[0] = c, g[1] = -sn, g[2] = sn, g[3] = c, g[4] = D->x0, g[5] = D->y0;
    const double s[2] = {D->v0 * c, D->v0 * sn}; /* along the heading R e1 */
    const double xi[3] = {D->w0, s[0] + D->w0 * D->y0, s[1] - D->w0 * D->x0};
    momentum(self, g, xi, mu);
}

static const wb_lie_lagrangian_ext lie_lagrangian = {
    .struct_size = sizeof(wb_lie_lagrangian_ext),
    .lagrangian = lagrangian,
    .momentum = momentum,
    .force = force,
    .velocity = velocity,
    .momentum_jacobian_xi = momentum_jacobian_xi,
    .momentum_jacobian_g = momentum_jacobian_g,
    .force_jacobian_g = force_jacobian_g,
};

static const wb_lie_nonholonomic_ext lie_nonholonomic = {
    .struct_size = sizeof(wb_lie_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_LINEAR,
    .constraints = no_slip,
    .jacobian_xi = no_slip_xi,
    .jacobian_g = no_slip_g,
    .hessian_xixi_contract = no_slip_xixi,
    .hessian_gxi_contract = no_slip_gxi,
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
    {WB_EXT_LIE_GROUP, &lie_group},
    {WB_EXT_LIE_LAGRANGIAN, &lie_lagrangian},
    {WB_EXT_LIE_NONHOLONOMIC, &lie_nonholonomic},
    {WB_EXT_INVARIANTS, &invariant},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("vertical_disc",
                "vertical rolling disc with a spring on SE(2), no sideways slip "
                "(seed 001, section 7.4)",
                "vertical disc on SE(2)", params, create, destroy, extensions);
