/* The heavy (Lagrange) top on SO(3), right-trivialised, with the physical
 * data of the director-form `heavy_top` (Kinon-Betsch-Schneider, Sect. 6.2),
 * so that the same system runs under the GGL schemes and the Lie-group
 * methods:
 *
 *   q = R, body to space (9 numbers, row-major): its columns are heavy_top's
 *   directors d1, d2, d3, the centre of mass phi = l R e3;
 *   p = mu, the spatial angular momentum about the fixed tip;
 *   J = diag(I1 + m l^2, I2 + m l^2, I3), the inertia about the tip,
 *   H(R, mu) = 1/2 mu^T R J^-1 R^T mu + m g l e3^T R e3,
 *   f1 = xi = R J^-1 R^T mu,  f2 = mu x xi + m g l e3 x R e3.
 *
 * Invariants: J3 = mu_3 (rotations about e3, generator e3), as heavy_top's
 * J3.  Default state as heavy_top's (eqs. 108-112): R0 the rotation by
 * alpha0 about e1, spatial angular velocity w0 = omega_p e3 + omega_s d3,
 * mu0 = R0 J R0^T w0, omega_s < 0 selecting the steady-precession spin. */
#include <workbench/workbench.h>
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct heavy_top {
    wb_group group;
    double m, I[3], l, g, alpha0, omega_p, omega_s;
    double J[3]; /* inertia about the tip */
} heavy_top;

/* the parameters of models/heavy_top.c, same names, defaults and meaning */
enum { P_M, P_I1, P_I2, P_I3, P_L, P_G, P_ALPHA0, P_OMEGA_P, P_OMEGA_S };
static const wb_param_spec params[] = {
    {"m", 0.7069, 1e-12, 1e12, "total mass"},
    {"i1", 5.3014e-4, 1e-12, 1e12, "principal moment of inertia about d1 (centre of mass)"},
    {"i2", 5.3014e-4, 1e-12, 1e12, "principal moment of inertia about d2 (centre of mass)"},
    {"i3", 5.3014e-4, 1e-12, 1e12, "principal moment of inertia about the symmetry axis d3"},
    {"l", 0.075, 1e-12, 1e8,
     "distance of the centre of mass from the fixed tip along d3; at most 1e8: the "
     "steady-precession spin grows with m g l / (i3 omega_p), and at l = 1e12 (spin ~1e15) "
     "no step of the Lie-group methods stays finite"},
    {"g", 9.81, 0.0, 1e12, "gravitational acceleration"},
    {"alpha0", 1.0471975511965976, -10.0, 10.0, "initial nutation angle (rotation about e1)"},
    {"omega_p", 10.0, -1e6, 1e6, "initial precession rate (about e3)"},
    {"omega_s", -1.0, -1.0, 1e6,
     "initial spin rate about d3; negative (default -1): the steady-precession rate of eq. (112) "
     "(symmetric top, i1 == i2)"},
};

static const char *const invariant_names[] = {"J3"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    heavy_top *t = calloc(1, sizeof *t);
    if (!t) {
        host->error(host, "heavy_top_so3: out of memory");
        return WB_ERR_NOMEM;
    }
    wb_group_init(&t->group);
    wb_group_add(&t->group, WB_GROUP_SO3, 0);
    t->m = values[P_M];
    for (int i = 0; i < 3; i++)
        t->I[i] = values[P_I1 + i];
    t->l = values[P_L], t->g = values[P_G];
    t->alpha0 = values[P_ALPHA0], t->omega_p = values[P_OMEGA_P], t->omega_s = values[P_OMEGA_S];
    const double ml2 = t->m * t->l * t->l;
    t->J[0] = t->I[0] + ml2, t->J[1] = t->I[1] + ml2, t->J[2] = t->I[2];
    if (t->omega_s < 0 && t->omega_p == 0) {
        host->error(host, "heavy_top_so3: the steady-precession spin (omega_s = -1) needs "
                    "omega_p != 0");
        free(t);
        return WB_ERR_INVALID;
    }
    if (t->omega_s < 0 && fabs(t->I[0] - t->I[1]) > 1e-12 * fmax(t->I[0], t->I[1])) {
        host->error(host, "heavy_top_so3: the steady-precession spin (omega_s = -1) needs a "
                    "symmetric top, i1 == i2 (got i1 = %g, i2 = %g); give omega_s", t->I[0],
                    t->I[1]);
        free(t);
        return WB_ERR_INVALID;
    }
    *self = t;
    info->nq = 9;
    info->nv = 3;
    info->n_invariants = 1;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static const wb_group *group_of(void *self) { return &((heavy_top *)self)->group; }

WB_LIE_GROUP_EXTENSION(lie_group, group_of);

static double hamiltonian(void *self, const double *R, const double *mu)
{
    const heavy_top *t = self;
    const double inverse[3] = {1 / t->J[0], 1 / t->J[1], 1 / t->J[2]};
    double xi[3];
    wb_so3_spatial_diagonal(R, inverse, mu, xi);
    return 0.5 * wb_so3_dot(mu, xi) + t->m * t->g * t->l * R[8];
}

static void vector_field(void *self, const double *R, const double *mu, double *f1, double *f2)
{
    const heavy_top *t = self;
    const double inverse[3] = {1 / t->J[0], 1 / t->J[1], 1 / t->J[2]};
    const double mgl = t->m * t->g * t->l;
    wb_so3_spatial_diagonal(R, inverse, mu, f1);
    wb_so3_cross(mu, f1, f2);
    /* e3 x R e3 = (-(R e3)_2, (R e3)_1, 0) */
    f2[0] -= mgl * R[5];
    f2[1] += mgl * R[2];
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

/* heavy_top's eq. (112) */
static double steady_spin(const heavy_top *t)
{
    const double I1 = t->I[0], I3 = t->I[2], ml2 = t->m * t->l * t->l;
    return t->m * t->g * t->l / (I3 * t->omega_p) +
           (I1 + ml2 - I3) / I3 * t->omega_p * cos(t->alpha0);
}

static void initial(void *self, double *R, double *mu)
{
    const heavy_top *t = self;
    const double c = cos(t->alpha0), s = sin(t->alpha0);
    const double R0[9] = {1, 0, 0, 0, c, -s, 0, s, c};
    memcpy(R, R0, sizeof R0);
    const double spin = t->omega_s < 0 ? steady_spin(t) : t->omega_s;
    double w[3];
    for (int r = 0; r < 3; r++)
        w[r] = spin * R0[3 * r + 2]; /* omega_s d3 */
    w[2] += t->omega_p;
    wb_so3_spatial_diagonal(R0, t->J, w, mu);
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

WB_MODEL_PLUGIN("heavy_top_so3",
                "heavy top on SO(3) with heavy_top's data: q = R (columns the directors d1, d2, "
                "d3, row-major), p = the spatial angular momentum about the tip",
                "heavy (Lagrange) top on SO(3), right-trivialised, J3", params, create, destroy,
                extensions);
