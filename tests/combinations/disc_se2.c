/* A vertical disc on a plane, with a spring, as a Lagrangian system on
 * SE(2) with a velocity constraint (the shape of seed 001's section 7.4),
 * written with only the required functions: every derivative, the inverse
 * Legendre transform, the Hamiltonian vector field and the consistent
 * multiplier come from the host.
 *
 * g = (R(theta), t), right-trivialised velocity xi = (w, u):
 *   theta' = w,  t' = u + w J t  (=: s, the velocity of the contact point),
 *   l(g, xi) = (m |s|^2 + Iz w^2)/2 - |t|^2/2,
 *   phi(g, xi) = s . R e2 = 0  (no sideways slip; linear in xi),
 *   mu = (m s . J t + Iz w, m s),
 *   <n, eta> = d/de l(exp(e eta) g, xi) = c . (eta_u + eta_w J t),
 *   c = -m w J s - t.
 * Energy E = (m |s|^2 + Iz w^2)/2 + |t|^2/2 is conserved (phi is linear),
 * and so is w (the disc turns freely about the vertical). */
#include <workbench/workbench.h>
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include <stdlib.h>
#include <string.h>

#define MASS 1.0
#define IZ 0.5

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)values;
    wb_group *g = malloc(sizeof *g);
    if (!g) {
        host->error(host, "disc_se2: out of memory");
        return WB_ERR_NOMEM;
    }
    wb_group_init(g);
    wb_group_add(g, WB_GROUP_SE2, 0);
    *self = g;
    static const char *const names[] = {"w"};
    info->nq = 6, info->nv = 3;
    info->n_nonholonomic = 1;
    info->n_invariants = 1;
    info->invariant_names = names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static const wb_group *group_of(void *self) { return self; }

WB_LIE_GROUP_EXTENSION(lie_group, group_of);

/* s = u + w J t */
static void contact_velocity(const double *g, const double *xi, double *s)
{
    s[0] = xi[1] - xi[0] * g[5];
    s[1] = xi[2] + xi[0] * g[4];
}

static double lagrangian(void *self, const double *g, const double *xi)
{
    double s[2];
    (void)self;
    contact_velocity(g, xi, s);
    return 0.5 * (MASS * (s[0] * s[0] + s[1] * s[1]) + IZ * xi[0] * xi[0]) -
           0.5 * (g[4] * g[4] + g[5] * g[5]);
}

static void momentum(void *self, const double *g, const double *xi, double *mu)
{
    double s[2];
    (void)self;
    contact_velocity(g, xi, s);
    /* J t = (-t2, t1) */
    mu[0] = MASS * (-s[0] * g[5] + s[1] * g[4]) + IZ * xi[0];
    mu[1] = MASS * s[0], mu[2] = MASS * s[1];
}

static void force(void *self, const double *g, const double *xi, double *n)
{
    double s[2];
    (void)self;
    contact_velocity(g, xi, s);
    /* c = -m w J s - t, J s = (-s2, s1) */
    const double c0 = MASS * xi[0] * s[1] - g[4], c1 = -MASS * xi[0] * s[0] - g[5];
    n[1] = c0, n[2] = c1;
    n[0] = -c0 * g[5] + c1 * g[4]; /* c . J t */
}

static void no_slip(void *self, const double *g, const double *xi, double *phi)
{
    double s[2];
    (void)self;
    contact_velocity(g, xi, s);
    phi[0] = s[0] * g[1] + s[1] * g[3]; /* R e2 = (R12, R22) */
}

static void invariants(void *self, const double *g, const double *mu, double *out)
{
    /* w = theta', from the velocity: the host's Legendre transform is not
     * reachable here, so solve the 3 x 3 momentum map in closed form */
    (void)self;
    const double t1 = g[4], t2 = g[5];
    /* mu1 = m (u1 - w t2), mu2 = m (u2 + w t1): the translational momentum
     * is m s, and mu0 = s . J t m + Iz w = -mu1 t2 + mu2 t1 + Iz w */
    out[0] = (mu[0] + mu[1] * t2 - mu[2] * t1) / IZ;
}

static void initial(void *self, double *g, double *mu)
{
    const double theta = 0.3, t[2] = {1.0, 0.0}, speed = 0.5, w = 1.0;
    wb_group_identity(self, g);
    g[0] = cos(theta), g[1] = -sin(theta), g[2] = sin(theta), g[3] = cos(theta);
    g[4] = t[0], g[5] = t[1];
    /* rolling forward: s along the heading R e1 */
    const double s[2] = {speed * g[0], speed * g[2]};
    const double xi[3] = {w, s[0] + w * t[1], s[1] - w * t[0]};
    momentum(self, g, xi, mu);
}

static const wb_lie_lagrangian_ext lie_lagrangian = {
    .struct_size = sizeof(wb_lie_lagrangian_ext),
    .lagrangian = lagrangian,
    .momentum = momentum,
    .force = force,
};

static const wb_lie_nonholonomic_ext lie_nonholonomic = {
    .struct_size = sizeof(wb_lie_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_LINEAR,
    .constraints = no_slip,
};

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
    if (strcmp(id, WB_EXT_LIE_GROUP) == 0)
        return &lie_group;
    if (strcmp(id, WB_EXT_LIE_LAGRANGIAN) == 0)
        return &lie_lagrangian;
    if (strcmp(id, WB_EXT_LIE_NONHOLONOMIC) == 0)
        return &lie_nonholonomic;
    if (strcmp(id, WB_EXT_INVARIANTS) == 0)
        return &invariant;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = "disc_se2",
    .doc = "test: a vertical disc on SE(2), Lagrangian with a no-slip constraint, "
           "required functions only",
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
    .name = "disc_se2",
    .version = "test",
    .description = "test: disc on SE(2)",
    .descriptor = &model_class,
};
