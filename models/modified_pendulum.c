/* The "modified pendulum" of Brugnano-Gurioli-Iavernaro-Weinmueller
 * (Sect. 5.3, eqs. 75-76): polynomial, but not quadratic, Hamiltonian and
 * constraint, chosen to exercise the quadrature of HBVM(k, s).
 *
 *   q = (x, y, z) in R^3,  M = I,
 *   H = |p|^2 / 2 + z^4,   g(q) = x^6 + y^4 + z^2 - 0.625   (one constraint).
 *
 * H has degree 4 and g degree 6, so HBVM(k, s) conserves both exactly when
 * 2k/s >= 6, e.g. HBVM(3s, s).  The multiplier is not constant (it ranges
 * over about [-1.17, 1.05] on [0, 10]).
 *
 * Default initial state: the conical pendulum's, q0 = (2^-1/2, 0, -2^-1/2),
 * p0 = (0, 2^-1/4, 0), consistent because 1/8 + 1/2 = 0.625 and
 * grad g(q0) . p0 = 4 y0^3 p0_y = 0.  There are no parameters: the
 * constant 0.625 is tied to that state. */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <string.h>

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL; /* nothing to keep: the model has no parameters */
    info->nq = info->nv = 3;
    info->n_holonomic = 1;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    memset(M, 0, 9 * sizeof(double));
    M[0] = M[4] = M[8] = 1.0;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    (void)self, (void)q;
    memcpy(v, p, 3 * sizeof(double));
}

static double potential(void *self, const double *q)
{
    (void)self;
    const double z2 = q[2] * q[2];
    return z2 * z2;
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    (void)self;
    grad[0] = grad[1] = 0.0;
    grad[2] = 4.0 * q[2] * q[2] * q[2];
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self;
    memset(H, 0, 9 * sizeof(double));
    H[8] = 12.0 * q[2] * q[2];
}

static void constraints(void *self, const double *q, double *g)
{
    (void)self;
    const double x2 = q[0] * q[0], y2 = q[1] * q[1];
    g[0] = x2 * x2 * x2 + y2 * y2 + q[2] * q[2] - 0.625;
}

static void jacobian(void *self, const double *q, double *G)
{
    (void)self;
    const double x2 = q[0] * q[0];
    G[0] = 6.0 * x2 * x2 * q[0];
    G[1] = 4.0 * q[1] * q[1] * q[1];
    G[2] = 2.0 * q[2];
}

/* D^2 g is diagonal: (30 x^4, 12 y^2, 2). */
static void second_derivatives(const double *q, double *d2)
{
    const double x2 = q[0] * q[0];
    d2[0] = 30.0 * x2 * x2;
    d2[1] = 12.0 * q[1] * q[1];
    d2[2] = 2.0;
}

static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self;
    double d2[3];
    second_derivatives(q, d2);
    memset(T, 0, 9 * sizeof(double));
    for (int i = 0; i < 3; i++)
        T[i * 3 + i] = mu[0] * d2[i];
}

static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self;
    double d2[3];
    second_derivatives(q, d2);
    for (int i = 0; i < 3; i++)
        B[i] = d2[i] * w[i];
}

/* D^3 g is diagonal too: d^3 g / dx^3 = 120 x^3, d^3 g / dy^3 = 24 y. */
static void third_contract(void *self, const double *q, const double *mu, const double *w,
                           double *D)
{
    (void)self;
    memset(D, 0, 9 * sizeof(double));
    D[0] = mu[0] * 120.0 * q[0] * q[0] * q[0] * w[0];
    D[4] = mu[0] * 24.0 * q[1] * w[1];
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    const double r = sqrt(0.5);
    q[0] = r, q[1] = 0.0, q[2] = -r;
    p[0] = 0.0, p[1] = pow(2.0, -0.25), p[2] = 0.0;
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
    .flags = 0, /* degree 6: not quadratic */
    .constraints = constraints,
    .jacobian = jacobian,
    .hessian_contract = hessian_contract,
    .hessian_vector = hessian_vector,
    .third_contract = third_contract,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_HOLONOMIC, &holonomic},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("modified_pendulum",
                "H = |p|^2/2 + z^4 with g = x^6 + y^4 + z^2 - 0.625 (line-integral paper, Sect. 5.3)",
                "modified pendulum (line-integral paper, Sect. 5.3), polynomial H and g",
                NULL, create, destroy, extensions);
