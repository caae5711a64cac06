/* A rotor on SO(2), the group stored as its 2 x 2 matrix (nq = 4, nv = 1):
 * the shape of model that once crashed the host (a Lie-group model with a
 * velocity constraint and no wb.mechanical/1).
 *
 *   H(R, mu) = mu^2 / (2 I) - k R11    (a pendulum: R11 = cos theta)
 *   f1 = mu / I,  f2 = -(D1 H) R^-1 = -k R21  (= -k sin theta)
 *
 * Variants (-DVARIANT=...):
 *   ROTOR_FREE        unconstrained                               supported
 *   ROTOR_DRIVEN      driven at speed omega: phi = xi - omega,
 *                     affine, by wb.lie_nonholonomic/1            supported
 *   ROTOR_VECTOR_NH   the same constraint by wb.nonholonomic/1    refused
 *   ROTOR_MECHANICAL  with wb.mechanical/1 as well                refused
 *   ROTOR_HOLONOMIC   with wb.holonomic/1                         refused
 *   ROTOR_NO_DYNAMICS wb.lie_group/1 alone                        refused
 * The driven rotor's consistent torque is nu = f2 = -k sin theta (it
 * cancels gravity), so mu stays I omega. */
#include <workbench/workbench.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROTOR_FREE 1
#define ROTOR_DRIVEN 2
#define ROTOR_VECTOR_NH 3
#define ROTOR_MECHANICAL 4
#define ROTOR_HOLONOMIC 5
#define ROTOR_NO_DYNAMICS 6

#ifndef VARIANT
#define VARIANT ROTOR_FREE
#endif
#ifndef NAME
#define NAME "rotor_free"
#endif

#define INERTIA 2.0
#define STIFFNESS 3.0
#define OMEGA 1.5

static int create(const wb_host *host, const double *values, void **self,
                  wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = 4;
    info->nv = 1;
#if VARIANT == ROTOR_DRIVEN || VARIANT == ROTOR_VECTOR_NH
    info->n_nonholonomic = 1;
#endif
#if VARIANT == ROTOR_HOLONOMIC
    info->n_holonomic = 1;
#endif
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

/* ---- SO(2) ------------------------------------------------------------------------ */

static void rotation(double theta, double *R)
{
    R[0] = cos(theta), R[1] = -sin(theta), R[2] = sin(theta), R[3] = cos(theta);
}

static void identity(void *self, double *e)
{
    (void)self;
    rotation(0.0, e);
}

static void compose(void *self, const double *a, const double *b, double *ab)
{
    (void)self;
    ab[0] = a[0] * b[0] + a[1] * b[2];
    ab[1] = a[0] * b[1] + a[1] * b[3];
    ab[2] = a[2] * b[0] + a[3] * b[2];
    ab[3] = a[2] * b[1] + a[3] * b[3];
}

static void inverse(void *self, const double *a, double *ainv)
{
    (void)self;
    ainv[0] = a[0], ainv[1] = a[2], ainv[2] = a[1], ainv[3] = a[3];
}

static void exponential(void *self, const double *xi, double *g)
{
    (void)self;
    rotation(xi[0], g);
}

static void logarithm(void *self, const double *g, double *xi)
{
    (void)self;
    xi[0] = atan2(g[2], g[0]);
}

/* abelian: dexp = dexpinv = Ad = Ad* = id, ad = ad* = 0 */
static void identity_map(void *self, const double *x, const double *v, double *out)
{
    (void)self, (void)x;
    out[0] = v[0];
}

static void zero_map(void *self, const double *x, const double *v, double *out)
{
    (void)self, (void)x, (void)v;
    out[0] = 0.0;
}

static void cayley(void *self, const double *xi, double *g)
{
    (void)self;
    const double t = xi[0], d = 4.0 + t * t;
    g[0] = g[3] = (4.0 - t * t) / d;
    g[2] = 4.0 * t / d;
    g[1] = -g[2];
}

/* (I - xi/2) v (I + xi/2) = v (1 + t^2/4) on so(2) */
static void dcayinv(void *self, const double *xi, const double *v, double *out)
{
    (void)self;
    out[0] = v[0] * (1.0 + 0.25 * xi[0] * xi[0]);
}

static void dcay(void *self, const double *xi, const double *v, double *out)
{
    (void)self;
    out[0] = v[0] / (1.0 + 0.25 * xi[0] * xi[0]);
}

static void dcayinv_derivative(void *self, const double *xi, const double *v,
                               const double *w, double *out)
{
    (void)self;
    out[0] = 0.5 * xi[0] * v[0] * w[0];
}

static double residual(void *self, const double *q)
{
    (void)self;
    double r = fabs(q[0] * q[0] + q[2] * q[2] - 1.0);
    r = fmax(r, fabs(q[1] * q[1] + q[3] * q[3] - 1.0));
    r = fmax(r, fabs(q[0] * q[1] + q[2] * q[3]));
    r = fmax(r, fabs(q[0] - q[3]));
    r = fmax(r, fabs(q[1] + q[2]));
    return isnan(q[0] + q[1] + q[2] + q[3]) ? NAN : r;
}

static const wb_lie_group_ext group = {
    .struct_size = sizeof(wb_lie_group_ext),
    .identity = identity,
    .compose = compose,
    .inverse = inverse,
    .exp = exponential,
    .log = logarithm,
    .dexp = identity_map,
    .dexpinv = identity_map,
    .ad = zero_map,
    .ad_star = zero_map,
    .Ad = identity_map,
    .Ad_star = identity_map,
    .cay = cayley,
    .dcayinv = dcayinv,
    .dcay = dcay,
    .dcayinv_derivative = dcayinv_derivative,
    .group_residual = residual,
};

/* ---- dynamics --------------------------------------------------------------------- */

static double hamiltonian(void *self, const double *q, const double *mu)
{
    (void)self;
    return 0.5 * mu[0] * mu[0] / INERTIA - STIFFNESS * q[0];
}

static void vector_field(void *self, const double *q, const double *mu, double *f1,
                         double *f2)
{
    (void)self;
    f1[0] = mu[0] / INERTIA;
    f2[0] = -STIFFNESS * q[2];
}

static const wb_lie_hamiltonian_ext dynamics = {
    .struct_size = sizeof(wb_lie_hamiltonian_ext),
    .hamiltonian = hamiltonian,
    .vector_field = vector_field,
};

/* ---- the drive: phi = xi - omega ---------------------------------------------------- */

static void drive(void *self, const double *g, const double *xi, double *phi)
{
    (void)self, (void)g;
    phi[0] = xi[0] - OMEGA;
}

static void drive_xi(void *self, const double *g, const double *xi, double *A)
{
    (void)self, (void)g, (void)xi;
    A[0] = 1.0;
}

static void drive_g(void *self, const double *g, const double *xi, double *B)
{
    (void)self, (void)g, (void)xi;
    B[0] = 0.0;
}

static void drive_second(void *self, const double *g, const double *xi, const double *lam,
                         double *out)
{
    (void)self, (void)g, (void)xi, (void)lam;
    out[0] = 0.0;
}

static const wb_lie_nonholonomic_ext lie_drive = {
    .struct_size = sizeof(wb_lie_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_AFFINE,
    .constraints = drive,
    .jacobian_xi = drive_xi,
    .jacobian_g = drive_g,
    .hessian_xixi_contract = drive_second,
    .hessian_gxi_contract = drive_second,
};

/* the same function through the vector-space extension: refused */
static const wb_nonholonomic_ext vector_drive = {
    .struct_size = sizeof(wb_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_AFFINE,
    .constraints = drive,
};

static void initial(void *self, double *q, double *p)
{
    (void)self;
    rotation(0.3, q);
    p[0] = INERTIA * OMEGA;
}

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

/* for the refused variants */
static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    memset(M, 0, 16 * sizeof(double));
    for (int i = 0; i < 4; i++)
        M[i * 5] = 1.0;
}

static double potential(void *self, const double *q)
{
    (void)self;
    return -STIFFNESS * q[0];
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
};

static void unit_circle(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = q[0] * q[0] + q[2] * q[2] - 1.0;
}

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .constraints = unit_circle,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_LIE_GROUP) == 0)
        return &group;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
#if VARIANT != ROTOR_NO_DYNAMICS
    if (strcmp(id, WB_EXT_LIE_HAMILTONIAN) == 0)
        return &dynamics;
#endif
#if VARIANT == ROTOR_DRIVEN
    if (strcmp(id, WB_EXT_LIE_NONHOLONOMIC) == 0)
        return &lie_drive;
#endif
#if VARIANT == ROTOR_VECTOR_NH
    if (strcmp(id, WB_EXT_NONHOLONOMIC) == 0)
        return &vector_drive;
#endif
#if VARIANT == ROTOR_MECHANICAL
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
#endif
#if VARIANT == ROTOR_HOLONOMIC
    if (strcmp(id, WB_EXT_HOLONOMIC) == 0)
        return &holonomic;
#endif
    (void)lie_drive, (void)vector_drive, (void)mechanical, (void)holonomic, (void)dynamics;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = NAME,
    .doc = "test: a rotor on SO(2) stored as its 2 x 2 matrix (nq 4, nv 1)",
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
    .name = NAME,
    .version = "test",
    .description = "test rotor on SO(2)",
    .descriptor = &model_class,
};
