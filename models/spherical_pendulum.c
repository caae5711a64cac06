/* Spherical pendulum in R^3 (the GGL paper's "3-D mathematical pendulum").
 *
 *   q in R^3, gravity along -e3,
 *   H = |p|^2 / (2m) + m g q3,   g(q) = (|q|^2 / l^2 - 1) / 2,
 *
 * the constraint scaled as in Kinon-Betsch-Schneider (eq. 93), so that the
 * multipliers match theirs.  The vertical angular momentum
 * Lz = q1 p2 - q2 p1 is the momentum map of rotations about e3.
 * Default initial state (their Sect. 6.1): q0 = (l, 0, 0), v0 = (0, 1, 0). */
#include <workbench/workbench.h>
#include <workbench/holonomic_projection.h>

#include "wb_model_plugin.h"
#include "wb_particles.h"

#include <stdlib.h>
#include <string.h>

typedef struct spherical {
    double m, l, g;
} spherical;

enum { P_M, P_L, P_G };
static const wb_param_spec params[] = {
    {"m", 1.0, 1e-12, 1e12, "mass"},
    {"l", 1.0, 1e-12, 1e12, "rod length"},
    {"g", 9.81, 0.0, 1e12, "gravitational acceleration"},
};

static const char *const invariant_names[] = {"Lz"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    spherical *s = malloc(sizeof *s);
    if (!s) {
        host->error(host, "spherical_pendulum: out of memory");
        return WB_ERR_NOMEM;
    }
    s->m = values[P_M], s->l = values[P_L], s->g = values[P_G];
    *self = s;
    info->nq = info->nv = 3;
    info->n_holonomic = 1;
    info->mass_constant = 1;
    info->n_invariants = 1;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const spherical *s = self;
    (void)q;
    memset(M, 0, 9 * sizeof(double));
    M[0] = M[4] = M[8] = s->m;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const spherical *s = self;
    (void)q;
    for (int i = 0; i < 3; i++)
        v[i] = p[i] / s->m;
}

static double potential(void *self, const double *q)
{
    const spherical *s = self;
    return s->m * s->g * q[2];
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    const spherical *s = self;
    (void)q;
    grad[0] = grad[1] = 0.0;
    grad[2] = s->m * s->g;
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, 9 * sizeof(double));
}

static void constraints(void *self, const double *q, double *g)
{
    const spherical *s = self;
    g[0] = 0.5 * ((q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) / (s->l * s->l) - 1.0);
}

static void jacobian(void *self, const double *q, double *G)
{
    const spherical *s = self;
    for (int i = 0; i < 3; i++)
        G[i] = q[i] / (s->l * s->l);
}

/* grad V, g and G at once, for RATTLE (the expressions of the three
 * functions above) */
static void point_values(void *self, const double *q, double *grad, double *g, double *G)
{
    const spherical *s = self;
    grad[0] = grad[1] = 0.0;
    grad[2] = s->m * s->g;
    g[0] = 0.5 * ((q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) / (s->l * s->l) - 1.0);
    for (int i = 0; i < 3; i++)
        G[i] = q[i] / (s->l * s->l);
}

static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    const spherical *s = self;
    (void)q;
    memset(T, 0, 9 * sizeof(double));
    T[0] = T[4] = T[8] = mu[0] / (s->l * s->l);
}

static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    const spherical *s = self;
    (void)q;
    for (int i = 0; i < 3; i++)
        B[i] = w[i] / (s->l * s->l);
}

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    double L[3];
    (void)self;
    particles_angular_momentum(1, q, p, L);
    out[0] = L[2];
}

static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index != 0)
        return -1;
    particles_rotation_generator(1, 2, q, xi);
    return 0;
}

static void initial(void *self, double *q, double *p)
{
    const spherical *s = self;
    q[0] = s->l, q[1] = 0.0, q[2] = 0.0;
    p[0] = 0.0, p[1] = s->m, p[2] = 0.0;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = mass_solve,
    .potential = potential,
    .potential_gradient = potential_gradient,
    .potential_hessian = potential_hessian,
};

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = WB_HOLONOMIC_QUADRATIC,
    .constraints = constraints,
    .jacobian = jacobian,
    .hessian_contract = hessian_contract,
    .hessian_vector = hessian_vector,
};

static const wb_invariants_ext invariants = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = evaluate,
    .generator = generator,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

/* RATTLE's Newton iteration on point_values, compiled here: one call a
 * step from the method instead of one per residual */
WB_HOLONOMIC_PROJECTION(project, point_values, 3)

static const wb_holonomic_point_ext holonomic_point = {
    .struct_size = sizeof(wb_holonomic_point_ext),
    .evaluate = point_values,
    .project = project,
    .project_nq = project_nq,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_HOLONOMIC, &holonomic},
    {WB_EXT_HOLONOMIC_POINT, &holonomic_point},
    {WB_EXT_INVARIANTS, &invariants},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("spherical_pendulum",
                "spherical pendulum in R^3, g(q) = (|q|^2/l^2 - 1)/2, momentum map Lz",
                "spherical pendulum, one holonomic constraint, vertical angular momentum",
                params, create, destroy, extensions);
