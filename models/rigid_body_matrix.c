/* The free rigid body in 3x3-matrix coordinates with six orthogonality
 * constraints: the example of Patrick, Cuell, Spiteri and Zhang (seed 003,
 * section 1), in the constrained formalism of SHAKE and RATTLE.
 *
 *   q = A, the rotation from body to space, 9 numbers row-major
 *   (q[3 i + j] = A_ij), Lagrangian L = 1/2 tr(A' Jd A'^T) with
 *   Jd = tr(I)/2 1 - I, I = diag(I1, I2, I3) the body's principal moments:
 *   on SO(3), A' = A hat(Omega) and L = 1/2 Omega . I Omega.  The mass
 *   matrix is constant and diagonal: the entry of A'_ij is Jd_jj, positive
 *   exactly when each I_j is below the sum of the other two (a physical
 *   body; refused otherwise).
 *   g = the upper triangle of A A^T - 1 (the paper's choice): with a_i the
 *   rows of A, g_ii = (a_i . a_i - 1) / 2 and g_ij = a_i . a_j (i < j),
 *   six quadratic constraints.
 *
 * L is invariant under A -> R A (rotations in space), and so is the zero
 * set of g with a linear action on its multipliers, so the spatial angular
 * momentum pi = A I Omega is a momentum map: with the columns of A and p
 * as points and momenta, pi = sum_l col_l(A) x col_l(p), generator
 * xi_k(A) = hat(e_k) A.  Invariants Lx, Ly, Lz (pi) and Pi2 = |pi|^2 =
 * |I Omega|^2 (a Casimir of the body's motion).
 *
 * Default initial state: A = 1, body momentum I Omega = (cos 1.1, 0,
 * sin 1.1) (Hairer-Lubich-Wanner's data, which the free_rigid_body model
 * uses), with physical moments I = (2, 1.5, 1). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NQ 9
#define NC 6

typedef struct rigid_body_matrix {
    double inertia[3];
    double jd[3]; /* tr(I)/2 - I_j */
} rigid_body_matrix;

enum { P_I1, P_I2, P_I3 };
static const wb_param_spec params[] = {
    {"I1", 2.0, 1e-9, 1e9, "principal moment of inertia about body axis 1"},
    {"I2", 1.5, 1e-9, 1e9, "principal moment of inertia about body axis 2"},
    {"I3", 1.0, 1e-9, 1e9, "principal moment of inertia about body axis 3"},
};

static const char *const invariant_names[] = {"Lx", "Ly", "Lz", "Pi2"};

/* the constraint pairs (i, j), i <= j, in the order of g */
static const int pair_i[NC] = {0, 0, 0, 1, 1, 2};
static const int pair_j[NC] = {0, 1, 2, 1, 2, 2};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    const double I1 = values[P_I1], I2 = values[P_I2], I3 = values[P_I3];
    const double half = 0.5 * (I1 + I2 + I3);
    if (!(half - I1 > 0 && half - I2 > 0 && half - I3 > 0)) {
        host->error(host, "rigid_body_matrix: the moments (%g, %g, %g) are not those of a "
                          "body: each must be below the sum of the other two, or the matrix "
                          "Lagrangian's Jd = tr(I)/2 - I is not positive (the mass matrix)",
                    I1, I2, I3);
        return WB_ERR_INVALID;
    }
    rigid_body_matrix *b = malloc(sizeof *b);
    if (!b) {
        host->error(host, "rigid_body_matrix: out of memory");
        return WB_ERR_NOMEM;
    }
    b->inertia[0] = I1, b->inertia[1] = I2, b->inertia[2] = I3;
    for (int j = 0; j < 3; j++)
        b->jd[j] = half - b->inertia[j];
    *self = b;
    info->nq = info->nv = NQ;
    info->n_holonomic = NC;
    info->mass_constant = 1;
    info->n_invariants = 4;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const rigid_body_matrix *b = self;
    (void)q;
    memset(M, 0, NQ * NQ * sizeof(double));
    for (int k = 0; k < NQ; k++)
        M[k * NQ + k] = b->jd[k % 3];
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const rigid_body_matrix *b = self;
    (void)q;
    for (int k = 0; k < NQ; k++)
        v[k] = p[k] / b->jd[k % 3];
}

static double potential(void *self, const double *q)
{
    (void)self, (void)q;
    return 0.0;
}

static void potential_gradient(void *self, const double *q, double *g)
{
    (void)self, (void)q;
    memset(g, 0, NQ * sizeof(double));
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, NQ * NQ * sizeof(double));
}

static double row_dot(const double *a, int i, int j)
{
    return a[3 * i] * a[3 * j] + a[3 * i + 1] * a[3 * j + 1] + a[3 * i + 2] * a[3 * j + 2];
}

static void constraints(void *self, const double *q, double *g)
{
    (void)self;
    for (int c = 0; c < NC; c++) {
        const int i = pair_i[c], j = pair_j[c];
        g[c] = i == j ? 0.5 * (row_dot(q, i, i) - 1.0) : row_dot(q, i, j);
    }
}

/* Row c of D_w[g_c] = (D^2 g_c w)^T for a constraint of rows i, j: the
 * entries of row i are w's row j, those of row j are w's row i (once each
 * for i = j, where g carries the factor 1/2). */
static void pair_derivative(int c, const double *w, double *row)
{
    const int i = pair_i[c], j = pair_j[c];
    memset(row, 0, NQ * sizeof(double));
    for (int l = 0; l < 3; l++) {
        row[3 * i + l] += w[3 * j + l];
        if (i != j)
            row[3 * j + l] += w[3 * i + l];
    }
}

static void jacobian(void *self, const double *q, double *G)
{
    (void)self;
    for (int c = 0; c < NC; c++)
        pair_derivative(c, q, G + c * NQ);
}

static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self, (void)q;
    for (int c = 0; c < NC; c++)
        pair_derivative(c, w, B + c * NQ);
}

/* T = sum_c mu_c D^2 g_c: the block (row i, row j) of a pair gets mu_c on
 * the diagonal of each 3x3 element block it couples. */
static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self, (void)q;
    memset(T, 0, NQ * NQ * sizeof(double));
    for (int c = 0; c < NC; c++) {
        const int i = pair_i[c], j = pair_j[c];
        for (int l = 0; l < 3; l++) {
            T[(3 * i + l) * NQ + 3 * j + l] += mu[c];
            if (i != j)
                T[(3 * j + l) * NQ + 3 * i + l] += mu[c];
        }
    }
}

/* pi = sum_l col_l(A) x col_l(p) */
static void spatial_momentum(const double *q, const double *p, double *pi)
{
    pi[0] = pi[1] = pi[2] = 0.0;
    for (int l = 0; l < 3; l++) {
        const double a[3] = {q[l], q[3 + l], q[6 + l]}, m[3] = {p[l], p[3 + l], p[6 + l]};
        pi[0] += a[1] * m[2] - a[2] * m[1];
        pi[1] += a[2] * m[0] - a[0] * m[2];
        pi[2] += a[0] * m[1] - a[1] * m[0];
    }
}

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    spatial_momentum(q, p, out);
    out[3] = out[0] * out[0] + out[1] * out[1] + out[2] * out[2];
}

/* xi_k(A) = hat(e_k) A: each column a of A goes to e_k x a */
static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index < 0 || index > 2)
        return -1;
    const int k = index, a = (k + 1) % 3, b = (k + 2) % 3;
    for (int l = 0; l < 3; l++) {
        xi[3 * k + l] = 0.0;
        xi[3 * a + l] = -q[3 * b + l];
        xi[3 * b + l] = q[3 * a + l];
    }
    return 0;
}

/* A = 1, Omega = I^-1 (cos 1.1, 0, sin 1.1), A' = A hat(Omega), p_ij = Jd_jj A'_ij */
static void initial(void *self, double *q, double *p)
{
    const rigid_body_matrix *b = self;
    const double body[3] = {cos(1.1), 0.0, sin(1.1)};
    double w[3];
    for (int k = 0; k < 3; k++)
        w[k] = body[k] / b->inertia[k];
    const double hat[9] = {0.0, -w[2], w[1], w[2], 0.0, -w[0], -w[1], w[0], 0.0};
    for (int k = 0; k < NQ; k++) {
        q[k] = (k % 4 == 0);
        p[k] = b->jd[k % 3] * hat[k];
    }
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

WB_MODEL_PLUGIN("rigid_body_matrix",
                "free rigid body as a 3x3 matrix A with the six constraints A A^T = 1 "
                "(Patrick-Cuell-Spiteri-Zhang), spatial momentum Lx, Ly, Lz",
                "free rigid body in matrix coordinates, six holonomic constraints", params,
                create, destroy, extensions);
