/* Double spherical pendulum: two point masses in R^3 on rigid rods.
 *
 *   q = (x1, x2) in R^6, gravity along -e3, M = diag(m1 I3, m2 I3),
 *   H = |p1|^2 / (2 m1) + |p2|^2 / (2 m2) + g (m1 x1_3 + m2 x2_3),
 *   g1(q) = (|x1|^2 - l1^2) / 2,   g2(q) = (|x2 - x1|^2 - l2^2) / 2.
 *
 * Both constraints are quadratic, so their Hessians are constant:
 * D^2 g1 = [I 0; 0 0] and D^2 g2 = [I -I; -I I] (3x3 blocks).  Gravity and
 * both constraints are invariant under rotations about e3 acting on both
 * points at once, so the vertical angular momentum
 * Lz = (x1 x p1)_3 + (x2 x p2)_3 is a momentum map, with generator
 * xi(q) = (e3 x x1, e3 x x2).
 *
 * Default initial state: the first rod tilted by a = pi/3 in the (e1, e3)
 * plane, the second tilted by b = pi/4 in the (e2, e3) plane,
 *   x1 = l1 (sin a, 0, -cos a),   x2 = x1 + l2 (0, sin b, -cos b),
 *   v1 = l1 (0, 1, 0),            v2 = v1 + l2 (1.5, 0, 0),
 * p_i = m_i v_i.  Each rod's relative velocity is orthogonal to the rod
 * (v1 . x1 = 0, (v2 - v1) . (x2 - x1) = 0), so the state lies on both the
 * position and the velocity constraint for every l1, l2, m1, m2; the two
 * rods start in different vertical planes and (for the default parameters)
 * Lz != 0, so the motion is genuinely three-dimensional, not a planar or
 * conical special case. */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"
#include "wb_particles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NQ 6 /* two points in R^3 */
#define NC 2 /* two rods           */

typedef struct double_spherical {
    double m1, m2, l1, l2, g;
} double_spherical;

enum { P_M1, P_M2, P_L1, P_L2, P_G };
static const wb_param_spec params[] = {
    {"m1", 1.0, 1e-12, 1e12, "mass of the first (inner) point"},
    {"m2", 1.0, 1e-12, 1e12, "mass of the second (outer) point"},
    /* The second rod is x2 - x1, stored through positions of size max(l1,
     * l2): it is known to eps l1 / l2 of its length, 1e-4 at a ratio of
     * 1e12 (ggl.em_gonzalez's discrete gradient fails there at every step
     * size); the bounds keep that ratio to 1e10 (2e-6) with the other rod
     * at 1. */
    {"l1", 1.0, 1e-12, 1e10,
     "length of the rod from the origin to the first point (at most 1e10: the second rod, "
     "x2 - x1, is known to eps l1 / l2 of its length)"},
    {"l2", 1.0, 1e-10, 1e12,
     "length of the rod from the first to the second point (at least 1e-10: it is known to "
     "eps l1 / l2 of its length)"},
    {"g", 9.81, 0.0, 1e12, "gravitational acceleration"},
};

static const char *const invariant_names[] = {"Lz"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    double_spherical *d = malloc(sizeof *d);
    if (!d) {
        host->error(host, "double_spherical_pendulum: out of memory");
        return WB_ERR_NOMEM;
    }
    d->m1 = values[P_M1], d->m2 = values[P_M2];
    d->l1 = values[P_L1], d->l2 = values[P_L2];
    d->g = values[P_G];
    *self = d;
    info->nq = info->nv = NQ;
    info->n_holonomic = NC;
    info->mass_constant = 1;
    info->n_invariants = 1;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

/* Mass of the point that coordinate i (0..5) belongs to. */
static double point_mass(const double_spherical *d, int i) { return i < 3 ? d->m1 : d->m2; }

static void mass(void *self, const double *q, double *M)
{
    const double_spherical *d = self;
    (void)q;
    memset(M, 0, NQ * NQ * sizeof(double));
    for (int i = 0; i < NQ; i++)
        M[i * NQ + i] = point_mass(d, i);
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const double_spherical *d = self;
    (void)q;
    for (int i = 0; i < NQ; i++)
        v[i] = p[i] / point_mass(d, i);
}

static double potential(void *self, const double *q)
{
    const double_spherical *d = self;
    return d->g * (d->m1 * q[2] + d->m2 * q[5]);
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    const double_spherical *d = self;
    (void)q;
    memset(grad, 0, NQ * sizeof(double));
    grad[2] = d->g * d->m1;
    grad[5] = d->g * d->m2;
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, NQ * NQ * sizeof(double));
}

static void constraints(void *self, const double *q, double *g)
{
    const double_spherical *d = self;
    double r1 = 0, r2 = 0;
    for (int k = 0; k < 3; k++) {
        double rod2 = q[3 + k] - q[k];
        r1 += q[k] * q[k];
        r2 += rod2 * rod2;
    }
    g[0] = 0.5 * (r1 - d->l1 * d->l1);
    g[1] = 0.5 * (r2 - d->l2 * d->l2);
}

/* Row 1: (x1, 0);  row 2: (-(x2 - x1), x2 - x1). */
static void jacobian(void *self, const double *q, double *G)
{
    (void)self;
    for (int k = 0; k < 3; k++) {
        double rod2 = q[3 + k] - q[k];
        G[k] = q[k];
        G[3 + k] = 0.0;
        G[NQ + k] = -rod2;
        G[NQ + 3 + k] = rod2;
    }
}

/* mu1 [I 0; 0 0] + mu2 [I -I; -I I]: constant, diagonal blocks only. */
static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self, (void)q;
    memset(T, 0, NQ * NQ * sizeof(double));
    for (int k = 0; k < 3; k++) {
        T[k * NQ + k] = mu[0] + mu[1];
        T[(3 + k) * NQ + 3 + k] = mu[1];
        T[k * NQ + 3 + k] = -mu[1];
        T[(3 + k) * NQ + k] = -mu[1];
    }
}

/* Row 1: D^2 g1 w = (w1, 0);  row 2: D^2 g2 w = (w1 - w2, w2 - w1). */
static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self, (void)q;
    for (int k = 0; k < 3; k++) {
        double rel = w[3 + k] - w[k];
        B[k] = w[k];
        B[3 + k] = 0.0;
        B[NQ + k] = -rel;
        B[NQ + 3 + k] = rel;
    }
}

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    double L[3];
    (void)self;
    particles_angular_momentum(2, q, p, L);
    out[0] = L[2];
}

/* Rotation about e3 of both points: xi = (e3 x x1, e3 x x2). */
static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index != 0)
        return -1;
    particles_rotation_generator(2, 2, q, xi);
    return 0;
}

static void initial(void *self, double *q, double *p)
{
    const double_spherical *d = self;
    const double pi = acos(-1.0), a = pi / 3.0, b = pi / 4.0;
    q[0] = d->l1 * sin(a), q[1] = 0.0, q[2] = -d->l1 * cos(a);
    q[3] = q[0], q[4] = d->l2 * sin(b), q[5] = q[2] - d->l2 * cos(b);
    /* velocities in proportion to the rods: the same angular rates (1 and
     * 1.5 rad per unit time) at every length, where absolute speeds of 1
     * would spin a rod of 1e-12 at 1e12 rad per unit time */
    const double v[NQ] = {0.0, d->l1, 0.0, 1.5 * d->l2, d->l1, 0.0};
    for (int i = 0; i < NQ; i++)
        p[i] = point_mass(d, i) * v[i];
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

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_HOLONOMIC, &holonomic},
    {WB_EXT_INVARIANTS, &invariants},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("double_spherical_pendulum",
                "double spherical pendulum in R^6, two rod constraints, momentum map Lz",
                "double spherical pendulum, two holonomic constraints, vertical angular momentum",
                params, create, destroy, extensions);
