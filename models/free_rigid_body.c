/* The free rigid body on SO(3), right-trivialised (Bogfjellmo-Marthinsen's
 * conventions, seed 004):
 *
 *   q = R, the rotation from body to space (9 numbers, row-major),
 *   p = mu, the spatial angular momentum (3 numbers), Pi = R^T mu the body
 *   one,  H(R, mu) = 1/2 Pi^T I^-1 Pi,
 *   f1 = xi = R I^-1 R^T mu (the spatial angular velocity),
 *   f2 = mu x xi, so mu' = f2 - ad*_xi mu = mu x xi - mu x xi = 0.
 *
 * Both descriptions: wb.lie_hamiltonian/1 and the reduced Lagrangian
 * l(R, xi) = 1/2 xi^T R I R^T xi of wb.lie_lagrangian/1, with every second
 * derivative in closed form.  Invariants: |Pi|^2 (L2) and the spatial
 * momentum (Lx, Ly, Lz, momentum maps of left rotations, generator e_i).
 * Default data: Hairer-Lubich-Wanner's I = (2, 1, 2/3), R0 = identity,
 * Pi0 = (cos 1.1, 0, sin 1.1). */
#include <workbench/workbench.h>
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct rigid_body {
    wb_group group;
    double inertia[3];
} rigid_body;

enum { P_I1, P_I2, P_I3 };
static const wb_param_spec params[] = {
    {"I1", 2.0, 1e-9, 1e9, "principal moment of inertia about body axis 1"},
    {"I2", 1.0, 1e-9, 1e9, "principal moment of inertia about body axis 2"},
    {"I3", 2.0 / 3.0, 1e-9, 1e9, "principal moment of inertia about body axis 3"},
};

static const char *const invariant_names[] = {"L2", "Lx", "Ly", "Lz"};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    rigid_body *b = calloc(1, sizeof *b);
    if (!b) {
        host->error(host, "free_rigid_body: out of memory");
        return WB_ERR_NOMEM;
    }
    wb_group_init(&b->group);
    wb_group_add(&b->group, WB_GROUP_SO3, 0);
    for (int i = 0; i < 3; i++)
        b->inertia[i] = values[P_I1 + i];
    *self = b;
    info->nq = 9;
    info->nv = 3;
    info->n_invariants = 4;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static const wb_group *group_of(void *self) { return &((rigid_body *)self)->group; }

WB_LIE_GROUP_EXTENSION(lie_group, group_of);

/* the matrix R diag(d) R^T */
static void spatial_matrix(const double *R, const double *d, double *J)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            J[3 * i + j] = R[3 * i] * d[0] * R[3 * j] + R[3 * i + 1] * d[1] * R[3 * j + 1] +
                           R[3 * i + 2] * d[2] * R[3 * j + 2];
}

static void inverse_inertia(const rigid_body *b, double *d)
{
    for (int i = 0; i < 3; i++)
        d[i] = 1.0 / b->inertia[i];
}

/* ---- Hamiltonian ----------------------------------------------------------------------- */

static double hamiltonian(void *self, const double *R, const double *mu)
{
    const rigid_body *b = self;
    double Pi[3];
    wb_so3_rotate_back(R, mu, Pi);
    return 0.5 * (Pi[0] * Pi[0] / b->inertia[0] + Pi[1] * Pi[1] / b->inertia[1] +
                  Pi[2] * Pi[2] / b->inertia[2]);
}

static void vector_field(void *self, const double *R, const double *mu, double *f1, double *f2)
{
    double d[3];
    inverse_inertia(self, d);
    wb_so3_spatial_diagonal(R, d, mu, f1);
    wb_so3_cross(mu, f1, f2);
}

/* ---- Lagrangian ------------------------------------------------------------------------- */

static double lagrangian(void *self, const double *R, const double *xi)
{
    const rigid_body *b = self;
    double mu[3];
    wb_so3_spatial_diagonal(R, b->inertia, xi, mu);
    return 0.5 * (mu[0] * xi[0] + mu[1] * xi[1] + mu[2] * xi[2]);
}

static void momentum(void *self, const double *R, const double *xi, double *mu)
{
    wb_so3_spatial_diagonal(R, ((const rigid_body *)self)->inertia, xi, mu);
}

/* n = (J xi) x xi, J = R I R^T */
static void force(void *self, const double *R, const double *xi, double *n)
{
    double mu[3];
    momentum(self, R, xi, mu);
    wb_so3_cross(mu, xi, n);
}

static void velocity(void *self, const double *R, const double *mu, double *xi)
{
    double d[3];
    inverse_inertia(self, d);
    wb_so3_spatial_diagonal(R, d, mu, xi);
}

static void momentum_jacobian_xi(void *self, const double *R, const double *xi, double *J)
{
    (void)xi;
    spatial_matrix(R, ((const rigid_body *)self)->inertia, J);
}

/* column j: d/de J(exp(e E_j) R) xi = E_j x (J xi) - J (E_j x xi) */
static void momentum_column(void *self, const double *R, const double *xi, int j, double *out)
{
    double e[3] = {0, 0, 0}, Jxi[3], exi[3], Jexi[3];
    e[j] = 1.0;
    momentum(self, R, xi, Jxi);
    wb_so3_cross(e, Jxi, out);
    wb_so3_cross(e, xi, exi);
    momentum(self, R, exi, Jexi);
    for (int i = 0; i < 3; i++)
        out[i] -= Jexi[i];
}

static void momentum_jacobian_g(void *self, const double *R, const double *xi, double *J)
{
    for (int j = 0; j < 3; j++) {
        double column[3];
        momentum_column(self, R, xi, j, column);
        for (int i = 0; i < 3; i++)
            J[3 * i + j] = column[i];
    }
}

/* column j: d/de n = (d/de J xi) x xi */
static void force_jacobian_g(void *self, const double *R, const double *xi, double *J)
{
    for (int j = 0; j < 3; j++) {
        double column[3], n[3];
        momentum_column(self, R, xi, j, column);
        wb_so3_cross(column, xi, n);
        for (int i = 0; i < 3; i++)
            J[3 * i + j] = n[i];
    }
}

/* ---- invariants and initial state ---------------------------------------------------- */

static void invariants(void *self, const double *R, const double *mu, double *out)
{
    (void)self, (void)R;
    out[0] = mu[0] * mu[0] + mu[1] * mu[1] + mu[2] * mu[2];
    out[1] = mu[0], out[2] = mu[1], out[3] = mu[2];
}

/* L_i = <mu, e_i>: the momentum map of left rotations about e_i */
static int generator(void *self, int index, const double *R, double *xi)
{
    (void)self, (void)R;
    if (index == 0)
        return -1;
    xi[0] = xi[1] = xi[2] = 0.0;
    xi[index - 1] = 1.0;
    return 0;
}

static void initial(void *self, double *R, double *mu)
{
    (void)self;
    memset(R, 0, 9 * sizeof(double));
    R[0] = R[4] = R[8] = 1.0;
    mu[0] = cos(1.1), mu[1] = 0.0, mu[2] = sin(1.1);
}

static const wb_lie_hamiltonian_ext lie_hamiltonian = {
    .struct_size = sizeof(wb_lie_hamiltonian_ext),
    .hamiltonian = hamiltonian,
    .vector_field = vector_field,
};

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

static const wb_invariants_ext invariant = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = invariants,
    .generator = generator,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_LIE_GROUP, &lie_group},
    {WB_EXT_LIE_HAMILTONIAN, &lie_hamiltonian},
    {WB_EXT_LIE_LAGRANGIAN, &lie_lagrangian},
    {WB_EXT_INVARIANTS, &invariant},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("free_rigid_body",
                "the free rigid body on SO(3): q = R (body to space, row-major), p = the "
                "spatial angular momentum, H = Pi^T I^-1 Pi / 2",
                "free rigid body on SO(3) (right-trivialised, Hamiltonian and Lagrangian)",
                params, create, destroy, extensions);
