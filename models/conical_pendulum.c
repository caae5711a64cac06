/* The conical pendulum (Brugnano-Gurioli-Iavernaro-Weinmueller, Sect. 5.2):
 * a spherical pendulum started so that it circles in a horizontal plane.
 *
 *   q in R^3, gravity along -e3,
 *   H = |p|^2 / (2m) + m g q3,   g(q) = |q|^2 - l^2   (one constraint),
 *
 * the constraint scaled exactly as the paper's (eq. 70, g = q^T q - 1), so
 * that the multiplier is theirs.  Default initial state: the rod at the
 * half-angle a from the downward vertical, moving horizontally at the
 * angular velocity w = sqrt(g / (l cos a)) that keeps it on the cone:
 *
 *   q0 = (l sin a, 0, -l cos a),   p0 = m (0, w l sin a, 0).
 *
 * The motion is then exactly q(t) = (r cos wt, r sin wt, -l cos a),
 * r = l sin a, with the constant multiplier lambda = m g / (2 l cos a).
 * The defaults m = l = g = 1, a = pi/4 are the paper's (eqs. 71-73):
 * q0 = (2^-1/2, 0, -2^-1/2), p0 = (0, 2^-1/4, 0), period T = 2^(3/4) pi,
 * lambda = 2^-1/2.  The vertical angular momentum Lz = q1 p2 - q2 p1 is
 * the momentum map of rotations about e3. */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"
#include "wb_particles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct conical {
    double m, l, g, angle;
} conical;

enum { P_M, P_L, P_G, P_ANGLE };
static const wb_param_spec params[] = {
    {"m", 1.0, 1e-12, 1e12, "mass"},
    {"l", 1.0, 1e-12, 1e12, "rod length"},
    {"g", 1.0, 1e-12, 1e12, "gravitational acceleration (the paper normalises it to 1)"},
    {"angle", 0.78539816339744831, 1e-6, 1.5707953267948966,
     "half-angle of the cone from the downward vertical, radians (default pi/4)"},
};

static const char *const invariant_names[] = {"Lz"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    conical *c = malloc(sizeof *c);
    if (!c) {
        host->error(host, "conical_pendulum: out of memory");
        return WB_ERR_NOMEM;
    }
    c->m = values[P_M], c->l = values[P_L], c->g = values[P_G], c->angle = values[P_ANGLE];
    *self = c;
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
    const conical *c = self;
    (void)q;
    memset(M, 0, 9 * sizeof(double));
    M[0] = M[4] = M[8] = c->m;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const conical *c = self;
    (void)q;
    for (int i = 0; i < 3; i++)
        v[i] = p[i] / c->m;
}

static double potential(void *self, const double *q)
{
    const conical *c = self;
    return c->m * c->g * q[2];
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    const conical *c = self;
    (void)q;
    grad[0] = grad[1] = 0.0;
    grad[2] = c->m * c->g;
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, 9 * sizeof(double));
}

static void constraints(void *self, const double *q, double *g)
{
    const conical *c = self;
    g[0] = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - c->l * c->l;
}

static void jacobian(void *self, const double *q, double *G)
{
    (void)self;
    for (int i = 0; i < 3; i++)
        G[i] = 2.0 * q[i];
}

/* D^2 g = 2 I */
static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self, (void)q;
    memset(T, 0, 9 * sizeof(double));
    T[0] = T[4] = T[8] = 2.0 * mu[0];
}

static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self, (void)q;
    for (int i = 0; i < 3; i++)
        B[i] = 2.0 * w[i];
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
    const conical *c = self;
    const double radius = c->l * sin(c->angle), depth = c->l * cos(c->angle);
    const double omega = sqrt(c->g / depth);
    q[0] = radius, q[1] = 0.0, q[2] = -depth;
    p[0] = 0.0, p[1] = c->m * omega * radius, p[2] = 0.0;
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

WB_MODEL_PLUGIN("conical_pendulum",
                "conical pendulum in R^3, g(q) = |q|^2 - l^2, constant multiplier, momentum map Lz",
                "conical pendulum (line-integral paper, Sect. 5.2), one holonomic constraint",
                params, create, destroy, extensions);
