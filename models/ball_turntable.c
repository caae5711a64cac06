/* A homogeneous ball rolling without slipping on a turntable that rotates
 * at the constant rate Omega (Martin de Diego and Sato Martin de Almagro,
 * seed 001, section 7.5), on SO(3) x R^2.
 *
 * g = (R, (x, y)): R the ball's attitude, (x, y) its centre over the
 * table; the right-trivialised velocity xi = (w, vx, vy), w the spatial
 * angular velocity (R' = hat(w) R).  Mass 1, a = I / r^2 the rescaled
 * moment of inertia (homogeneous: a = 2/5):
 *   l = (vx^2 + vy^2) / 2 + a r^2 |w|^2 / 2,
 *   phi1 = vx + Omega y - r w2,   phi2 = vy - Omega x + r w1   (affine in xi).
 * The ball is homogeneous (a = b = c in the paper), so l does not depend
 * on R and the constraints act on the spatial components of w, as the
 * paper writes them.  First integrals: w3 ("w_zeta"),
 *   Ix = r w1 - Omega x / (1 + a),   Iy = r w2 - Omega y / (1 + a),
 * and the moving energy
 *   Em = |v|^2 / 2 + a r^2 |w|^2 / 2 + r Omega (x w1 + y w2) - Omega^2 (x^2 + y^2);
 * the energy itself is not conserved (the constraints are affine).  The
 * contact force is the paper's lambda = (-a Omega vy, a Omega vx) / (1 + a).
 *
 * Initial data (the paper leaves them open; the digest's choice): r = 1,
 * a = 0.4, Omega = 1, R = I, w = (0.2, 0.3, 0.5), (x, y) = (1, 0.5), and v
 * from the constraints, (-0.2, 0.8). */
#include <workbench/workbench.h>
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include "wb_model_plugin.h"

#include <stdlib.h>
#include <string.h>

typedef struct ball {
    wb_group group;
    double r, a, Omega, w0[3], x0, y0;
} ball;

enum { P_R, P_A, P_OMEGA, P_W1, P_W2, P_W3, P_X0, P_Y0 };
static const wb_param_spec params[] = {
    {"r", 1.0, 1e-12, 1e12, "radius of the ball (mass 1)"},
    {"a", 0.4, 1e-12, 1e12, "moment of inertia / r^2 (2/5 for a solid ball)"},
    {"Omega", 1.0, -1e6, 1e6, "angular velocity of the turntable"},
    {"w1", 0.2, -1e6, 1e6, "initial spatial angular velocity, x"},
    {"w2", 0.3, -1e6, 1e6, "initial spatial angular velocity, y"},
    {"w3", 0.5, -1e6, 1e6, "initial spatial angular velocity, vertical"},
    {"x0", 1.0, -1e6, 1e6, "initial position of the centre, x"},
    {"y0", 0.5, -1e6, 1e6, "initial position of the centre, y"},
};

static const char *const invariant_names[] = {"w_zeta", "Ix", "Iy", "moving_energy"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    ball *B = calloc(1, sizeof *B);
    if (!B) {
        host->error(host, "ball_turntable: out of memory");
        return WB_ERR_NOMEM;
    }
    wb_group_init(&B->group);
    wb_group_add(&B->group, WB_GROUP_SO3, 0);
    wb_group_add(&B->group, WB_GROUP_RN, 2);
    B->r = values[P_R], B->a = values[P_A], B->Omega = values[P_OMEGA];
    for (int i = 0; i < 3; i++)
        B->w0[i] = values[P_W1 + i];
    B->x0 = values[P_X0], B->y0 = values[P_Y0];
    *self = B;
    info->nq = 11, info->nv = 5;
    info->n_nonholonomic = 2;
    info->n_invariants = 4;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static const wb_group *group_of(void *self) { return &((ball *)self)->group; }

WB_LIE_GROUP_EXTENSION(lie_group, group_of);

/* the locked inertia: a r^2 for the three angular components, 1 for v */
static double inertia(const ball *B, int i) { return i < 3 ? B->a * B->r * B->r : 1.0; }

static double lagrangian(void *self, const double *g, const double *xi)
{
    const ball *B = self;
    double l = 0.0;
    (void)g;
    for (int i = 0; i < 5; i++)
        l += 0.5 * inertia(B, i) * xi[i] * xi[i];
    return l;
}

static void momentum(void *self, const double *g, const double *xi, double *mu)
{
    (void)g;
    for (int i = 0; i < 5; i++)
        mu[i] = inertia(self, i) * xi[i];
}

static void force(void *self, const double *g, const double *xi, double *n)
{
    (void)self, (void)g, (void)xi;
    memset(n, 0, 5 * sizeof(double));
}

static void velocity(void *self, const double *g, const double *mu, double *xi)
{
    (void)g;
    for (int i = 0; i < 5; i++)
        xi[i] = mu[i] / inertia(self, i);
}

static void momentum_jacobian_xi(void *self, const double *g, const double *xi, double *J)
{
    (void)g, (void)xi;
    memset(J, 0, 25 * sizeof(double));
    for (int i = 0; i < 5; i++)
        J[i * 5 + i] = inertia(self, i);
}

static void zero_jacobian(void *self, const double *g, const double *xi, double *J)
{
    (void)self, (void)g, (void)xi;
    memset(J, 0, 25 * sizeof(double));
}

/* g = (R (9), x, y), xi = (w1, w2, w3, vx, vy) */
static void rolling(void *self, const double *g, const double *xi, double *phi)
{
    const ball *B = self;
    phi[0] = xi[3] + B->Omega * g[10] - B->r * xi[1];
    phi[1] = xi[4] - B->Omega * g[9] + B->r * xi[0];
}

static void rolling_xi(void *self, const double *g, const double *xi, double *A)
{
    const ball *B = self;
    (void)g, (void)xi;
    memset(A, 0, 10 * sizeof(double));
    A[1] = -B->r, A[3] = 1.0;
    A[5 + 0] = B->r, A[5 + 4] = 1.0;
}

/* right-trivialised along the R^2 factor: translations, d/dx and d/dy */
static void rolling_g(void *self, const double *g, const double *xi, double *Bm)
{
    const ball *B = self;
    (void)g, (void)xi;
    memset(Bm, 0, 10 * sizeof(double));
    Bm[4] = B->Omega;
    Bm[5 + 3] = -B->Omega;
}

static void rolling_second(void *self, const double *g, const double *xi, const double *lam,
                           double *out)
{
    (void)self, (void)g, (void)xi, (void)lam;
    memset(out, 0, 25 * sizeof(double));
}

static void invariants(void *self, const double *g, const double *mu, double *out)
{
    const ball *B = self;
    double xi[5];
    velocity(self, g, mu, xi);
    const double x = g[9], y = g[10], r = B->r, a = B->a, Om = B->Omega;
    out[0] = xi[2];
    out[1] = r * xi[0] - Om * x / (1.0 + a);
    out[2] = r * xi[1] - Om * y / (1.0 + a);
    out[3] = 0.5 * (xi[3] * xi[3] + xi[4] * xi[4]) +
             0.5 * a * r * r * (xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]) +
             r * Om * (x * xi[0] + y * xi[1]) - Om * Om * (x * x + y * y);
}

static void initial(void *self, double *g, double *mu)
{
    const ball *B = self;
    wb_group_identity(&B->group, g);
    g[9] = B->x0, g[10] = B->y0;
    double xi[5] = {B->w0[0], B->w0[1], B->w0[2], 0.0, 0.0};
    xi[3] = -B->Omega * B->y0 + B->r * B->w0[1]; /* phi1 = 0 */
    xi[4] = B->Omega * B->x0 - B->r * B->w0[0];  /* phi2 = 0 */
    momentum(self, g, xi, mu);
}

static const wb_lie_lagrangian_ext lie_lagrangian = {
    .struct_size = sizeof(wb_lie_lagrangian_ext),
    .lagrangian = lagrangian,
    .momentum = momentum,
    .force = force,
    .velocity = velocity,
    .momentum_jacobian_xi = momentum_jacobian_xi,
    .momentum_jacobian_g = zero_jacobian,
    .force_jacobian_g = zero_jacobian,
};

static const wb_lie_nonholonomic_ext lie_nonholonomic = {
    .struct_size = sizeof(wb_lie_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_AFFINE,
    .constraints = rolling,
    .jacobian_xi = rolling_xi,
    .jacobian_g = rolling_g,
    .hessian_xixi_contract = rolling_second,
    .hessian_gxi_contract = rolling_second,
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

WB_MODEL_PLUGIN("ball_turntable",
                "homogeneous ball rolling on a rotating turntable, on SO(3) x R^2 "
                "(seed 001, section 7.5)",
                "ball on a turntable", params, create, destroy, extensions);
