/* The dipole on a stick (Bogfjellmo-Marthinsen 2014, Sect. 6), the paper's
 * only test problem, on SO(3), right-trivialised:
 *
 *   a massless rod of length 1 hangs from a fixed pivot at the origin; at
 *   its far end the midpoint of a massless rod of length 2 alpha is
 *   attached perpendicular to it, carrying masses m/2 with charges +q and
 *   -q at its ends, y+-0 = (0, +-alpha, -1) in the body; gravity (g = 1)
 *   and a fixed charge beta at Z = (0, 0, z) (Coulomb constant 1) act.
 *
 *   q = R, body to space (9 numbers, row-major), p = mu the spatial
 *   angular momentum, I = m diag(1 + alpha^2, 1, alpha^2),
 *   H(R, mu) = 1/2 mu^T R I^-1 R^T mu + s m e3^T R e3
 *              + q beta (1/|R y+0 - Z| - 1/|R y-0 - Z|),
 *   f1 = xi = R I^-1 R^T mu,
 *   f2 = mu x xi + s m e3 x R e3 + q beta [Z x x+ / |x+ - Z|^3 - Z x x- / |x- - Z|^3],
 *   x+- = R y+-0, so mu' = f2 - mu x xi is the spatial torque.
 *
 * s = gravity_sign: the centre of mass sits at R (0, 0, -1), so gravity
 * along -e3 is V = -m e3^T R e3, s = -1 (the default).  The paper prints
 * +m e3^T R e3 (s = +1); its energy errors (Fig. 3) are reproduced only
 * with s = -1 (the digest, table 4.3).  Rotations about e3 leave V
 * invariant: Lz = mu_3 is conserved (generator e3).  Initial data (the
 * paper's): R0 = the rotation by +90 degrees about e1, mu0 = R0 I R0^T e2,
 * so that xi0 = e2; H(0) = -0.04623925371591653 for either sign. */
#include <workbench/workbench.h>
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct dipole {
    wb_group group;
    double m, q, beta, alpha, z, sign;
    double inertia[3];
} dipole;

enum { P_M, P_Q, P_BETA, P_ALPHA, P_Z, P_GRAVITY_SIGN };
static const wb_param_spec params[] = {
    {"m", 1.0, 1e-12, 1e12, "total mass (m/2 at each end of the short rod)"},
    {"q", 1.0, -1e12, 1e12, "charge at the ends of the short rod (+q and -q)"},
    {"beta", 1.0, -1e12, 1e12, "the fixed charge"},
    {"alpha", 0.1, 1e-9, 1e3, "half the length of the short rod"},
    {"z", -1.5, -1e12, 1e12,
     "height of the fixed charge on the e3 axis (the paper: -3/2; not within alpha of the "
     "unit sphere's reach)"},
    {"gravity_sign", -1.0, -1.0, 1.0,
     "V_gravity = gravity_sign m e3^T R e3: -1 physical (gravity along -e3, the default, as "
     "the paper's figures), +1 as printed in the paper, 0 none"},
};

static const char *const invariant_names[] = {"Lz"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    dipole *d = calloc(1, sizeof *d);
    if (!d) {
        host->error(host, "dipole: out of memory");
        return WB_ERR_NOMEM;
    }
    wb_group_init(&d->group);
    wb_group_add(&d->group, WB_GROUP_SO3, 0);
    d->m = values[P_M], d->q = values[P_Q], d->beta = values[P_BETA];
    d->alpha = values[P_ALPHA], d->z = values[P_Z], d->sign = values[P_GRAVITY_SIGN];
    const double a2 = d->alpha * d->alpha;
    d->inertia[0] = d->m * (1.0 + a2), d->inertia[1] = d->m, d->inertia[2] = d->m * a2;
    *self = d;
    info->nq = 9;
    info->nv = 3;
    info->n_invariants = 1;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static const wb_group *group_of(void *self) { return &((dipole *)self)->group; }

WB_LIE_GROUP_EXTENSION(lie_group, group_of);

/* the charges' positions x+ and x- */
static void charges(const dipole *d, const double *R, double *plus, double *minus)
{
    const double yp[3] = {0, d->alpha, -1}, ym[3] = {0, -d->alpha, -1};
    wb_so3_rotate(R, yp, plus);
    wb_so3_rotate(R, ym, minus);
}

static double distance_to_charge(const dipole *d, const double *x)
{
    const double dz = x[2] - d->z;
    return sqrt(x[0] * x[0] + x[1] * x[1] + dz * dz);
}

static double hamiltonian(void *self, const double *R, const double *mu)
{
    const dipole *d = self;
    const double inverse[3] = {1 / d->inertia[0], 1 / d->inertia[1], 1 / d->inertia[2]};
    double xi[3], plus[3], minus[3];
    wb_so3_spatial_diagonal(R, inverse, mu, xi);
    charges(d, R, plus, minus);
    return 0.5 * wb_so3_dot(mu, xi) + d->sign * d->m * R[8] +
           d->q * d->beta * (1.0 / distance_to_charge(d, plus) -
                             1.0 / distance_to_charge(d, minus));
}

/* Z x x / |x - Z|^3 with Z = (0, 0, z): (-z x2, z x1, 0) / |x - Z|^3 */
static void coulomb_torque(const dipole *d, const double *x, double scale, double *torque)
{
    const double r = distance_to_charge(d, x), f = scale / (r * r * r);
    torque[0] += -f * d->z * x[1];
    torque[1] += f * d->z * x[0];
}

static void vector_field(void *self, const double *R, const double *mu, double *f1, double *f2)
{
    const dipole *d = self;
    const double inverse[3] = {1 / d->inertia[0], 1 / d->inertia[1], 1 / d->inertia[2]};
    static const double e3[3] = {0, 0, 1};
    double Re3[3], plus[3], minus[3];
    wb_so3_spatial_diagonal(R, inverse, mu, f1);
    wb_so3_cross(mu, f1, f2);
    Re3[0] = R[2], Re3[1] = R[5], Re3[2] = R[8];
    double gravity[3];
    wb_so3_cross(e3, Re3, gravity);
    for (int i = 0; i < 3; i++)
        f2[i] += d->sign * d->m * gravity[i];
    charges(d, R, plus, minus);
    coulomb_torque(d, plus, d->q * d->beta, f2);
    coulomb_torque(d, minus, -d->q * d->beta, f2);
}

static void invariants(void *self, const double *R, const double *mu, double *out)
{
    (void)self, (void)R;
    out[0] = mu[2];
}

static int generator(void *self, int index, const double *R, double *xi)
{
    (void)self, (void)R;
    if (index != 0)
        return -1;
    xi[0] = xi[1] = 0.0, xi[2] = 1.0;
    return 0;
}

/* R0: +90 degrees about e1; mu0 = R0 I R0^T e2 */
static void initial(void *self, double *R, double *mu)
{
    const dipole *d = self;
    static const double R0[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0};
    static const double e2[3] = {0, 1, 0};
    memcpy(R, R0, sizeof R0);
    wb_so3_spatial_diagonal(R0, d->inertia, e2, mu);
}

static const wb_lie_hamiltonian_ext lie_hamiltonian = {
    .struct_size = sizeof(wb_lie_hamiltonian_ext),
    .hamiltonian = hamiltonian,
    .vector_field = vector_field,
};

static const wb_invariants_ext invariant = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = invariants,
    .energy = hamiltonian,
    .generator = generator,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_LIE_GROUP, &lie_group},
    {WB_EXT_LIE_HAMILTONIAN, &lie_hamiltonian},
    {WB_EXT_INVARIANTS, &invariant},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("dipole",
                "the dipole on a stick on SO(3) (Bogfjellmo-Marthinsen): q = R (body to space, "
                "row-major), p = the spatial angular momentum; gravity_sign -1 physical",
                "dipole on a stick on SO(3), the Lie-group paper's test problem", params, create,
                destroy, extensions);
