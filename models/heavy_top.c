/* The heavy (Lagrange) top as a rigid body in director form
 * (Betsch-Leyendecker; Kinon-Betsch-Schneider, Sect. 6.2).
 *
 *   q = (phi, d1, d2, d3) in R^12: centre of mass phi and the body-fixed
 *   orthonormal director frame along the principal axes,
 *   M = blockdiag(m I3, E1 I3, E2 I3, E3 I3),  E_i = (I_j + I_k - I_i) / 2
 *   for even permutations (i, j, k) of (1, 2, 3),
 *   V = m g phi_3 (gravity along -e3),
 *   9 constraints: internal (orthonormality, eq. 103)
 *     g1..3 = (d_i.d_i - 1)/2,  g4 = d1.d2,  g5 = d1.d3,  g6 = d2.d3,
 *   and external (the tip fixed at the origin, eq. 104)
 *     g7..9 = phi / l - d3.
 * All constraints are quadratic (constant Hessians; the external ones are
 * linear).  Rotations about e3 acting on all four vectors leave L, g and
 * g^v invariant: J3 = e3 . sum_i q_i x p_i is a momentum map (eq. 107).
 *
 * Default initial state (eqs. 108-112): nutation angle alpha0 about e1,
 * d_i = R(alpha0) e_i, phi = l d3, angular velocity w0 = omega_p e3 +
 * omega_s d3, v_i = w0 x q_i, p = M v; omega_s < 0 (the default) selects
 * the steady-precession spin of eq. (112),
 *   omega_s = m g l / (I3 omega_p) + (I1 + m l^2 - I3) / I3 omega_p cos(alpha0)
 * (135.6 for the paper's data), for which phi_3 = l cos(alpha0) = 0.0375
 * for all time.  The state lies on both constraint levels exactly. */
#include <workbench/workbench.h>

#include "wb_director_top.h"
#include "wb_model_plugin.h"
#include "wb_particles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NQ 12
#define NC 9

typedef struct heavy_top {
    double m, I[3], l, g, alpha0, omega_p, omega_s;
    double E[3]; /* director inertias */
} heavy_top;

enum { P_M, P_I1, P_I2, P_I3, P_L, P_G, P_ALPHA0, P_OMEGA_P, P_OMEGA_S };
static const wb_param_spec params[] = {
    {"m", 0.7069, 1e-12, 1e12, "total mass"},
    {"i1", 5.3014e-4, 1e-12, 1e12, "principal moment of inertia about d1 (centre of mass)"},
    {"i2", 5.3014e-4, 1e-12, 1e12, "principal moment of inertia about d2 (centre of mass)"},
    {"i3", 5.3014e-4, 1e-12, 1e12, "principal moment of inertia about the symmetry axis d3"},
    {"l", 0.075, 1e-12, 1e4,
     "distance of the centre of mass from the fixed tip along d3; at most 1e4: the director "
     "form mixes the position l d3 with unit directors, and at l = 1e5 (m l^2 / i = 1e13 at "
     "the defaults) the constrained methods' matrices are singular in double precision"},
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
    heavy_top *t = malloc(sizeof *t);
    if (!t) {
        host->error(host, "heavy_top: out of memory");
        return WB_ERR_NOMEM;
    }
    t->m = values[P_M];
    for (int i = 0; i < 3; i++)
        t->I[i] = values[P_I1 + i];
    t->l = values[P_L], t->g = values[P_G];
    t->alpha0 = values[P_ALPHA0], t->omega_p = values[P_OMEGA_P];
    t->omega_s = values[P_OMEGA_S];
    for (int i = 0; i < 3; i++) {
        const double Ij = t->I[(i + 1) % 3], Ik = t->I[(i + 2) % 3];
        t->E[i] = 0.5 * (Ij + Ik - t->I[i]);
        if (!(t->E[i] > 0)) {
            host->error(host, "heavy_top: the director inertia E%d = (I_j + I_k - I_i)/2 = %g "
                        "must be positive (the triangle inequality of the moments of inertia)",
                        i + 1, t->E[i]);
            free(t);
            return WB_ERR_INVALID;
        }
    }
    if (t->omega_s < 0 && t->omega_p == 0) {
        host->error(host, "heavy_top: the steady-precession spin (omega_s = -1) needs "
                    "omega_p != 0");
        free(t);
        return WB_ERR_INVALID;
    }
    /* eq. (112) is the steady precession of a symmetric top; an asymmetric
     * one has none, and would start from a state that only looks steady */
    if (t->omega_s < 0 && fabs(t->I[0] - t->I[1]) > 1e-12 * fmax(t->I[0], t->I[1])) {
        host->error(host, "heavy_top: the steady-precession spin (omega_s = -1) needs a "
                    "symmetric top, i1 == i2 (got i1 = %g, i2 = %g); give omega_s", t->I[0],
                    t->I[1]);
        free(t);
        return WB_ERR_INVALID;
    }
    *self = t;
    info->nq = info->nv = NQ;
    info->n_holonomic = NC;
    info->mass_constant = 1;
    info->n_invariants = 1;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

/* Mass of coordinate i: block 0 is phi, blocks 1..3 the directors. */
static double coordinate_mass(const heavy_top *t, int i)
{
    const int block = i / 3;
    return block == 0 ? t->m : t->E[block - 1];
}

static void mass(void *self, const double *q, double *M)
{
    const heavy_top *t = self;
    (void)q;
    memset(M, 0, NQ * NQ * sizeof(double));
    for (int i = 0; i < NQ; i++)
        M[i * NQ + i] = coordinate_mass(t, i);
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const heavy_top *t = self;
    (void)q;
    for (int i = 0; i < NQ; i++)
        v[i] = p[i] / coordinate_mass(t, i);
}

static double potential(void *self, const double *q)
{
    const heavy_top *t = self;
    return t->m * t->g * q[2];
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    const heavy_top *t = self;
    (void)q;
    memset(grad, 0, NQ * sizeof(double));
    grad[2] = t->m * t->g;
}

static void potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, NQ * NQ * sizeof(double));
}

/* The internal constraints pair director blocks: constraint k (0..5)
 * involves blocks a[k] and b[k] (a == b: (d.d - 1)/2). */
static const int pair_a[6] = {1, 2, 3, 1, 1, 2};
static const int pair_b[6] = {1, 2, 3, 2, 3, 3};

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void constraints(void *self, const double *q, double *g)
{
    const heavy_top *t = self;
    for (int k = 0; k < 6; k++) {
        const double *a = q + 3 * pair_a[k], *b = q + 3 * pair_b[k];
        g[k] = pair_a[k] == pair_b[k] ? 0.5 * (dot3(a, a) - 1.0) : dot3(a, b);
    }
    for (int i = 0; i < 3; i++)
        g[6 + i] = q[i] / t->l - q[9 + i];
}

/* Internal row k: d_b in block a and d_a in block b (d_a in block a when
 * a == b); external row 6 + i: e_i / l in the phi block, -e_i in d3's. */
static void jacobian(void *self, const double *q, double *G)
{
    const heavy_top *t = self;
    memset(G, 0, NC * NQ * sizeof(double));
    for (int k = 0; k < 6; k++) {
        const int a = pair_a[k], b = pair_b[k];
        for (int c = 0; c < 3; c++) {
            G[k * NQ + 3 * a + c] += q[3 * b + c];
            if (a != b)
                G[k * NQ + 3 * b + c] += q[3 * a + c];
        }
    }
    for (int i = 0; i < 3; i++) {
        G[(6 + i) * NQ + i] = 1.0 / t->l;
        G[(6 + i) * NQ + 9 + i] = -1.0;
    }
}

/* sum_k mu_k D^2 g_k: mu_k I on the block pair (a, b) of each internal
 * constraint (both off-diagonal blocks when a != b); constant. */
static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self, (void)q;
    memset(T, 0, NQ * NQ * sizeof(double));
    for (int k = 0; k < 6; k++) {
        const int a = pair_a[k], b = pair_b[k];
        for (int c = 0; c < 3; c++) {
            T[(3 * a + c) * NQ + 3 * b + c] += mu[k];
            if (a != b)
                T[(3 * b + c) * NQ + 3 * a + c] += mu[k];
        }
    }
}

/* Row k = (D^2 g_k w)^T: w's block b in block a and w's block a in block b. */
static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self, (void)q;
    memset(B, 0, NC * NQ * sizeof(double));
    for (int k = 0; k < 6; k++) {
        const int a = pair_a[k], b = pair_b[k];
        for (int c = 0; c < 3; c++) {
            B[k * NQ + 3 * a + c] += w[3 * b + c];
            if (a != b)
                B[k * NQ + 3 * b + c] += w[3 * a + c];
        }
    }
}

/* J3 = e3 . sum_i q_i x p_i */
static void evaluate(void *self, const double *q, const double *p, double *out)
{
    double L[3];
    (void)self;
    particles_angular_momentum(NQ / 3, q, p, L);
    out[0] = L[2];
}

/* Rotation about e3 of all four vectors: xi_i = e3 x q_i. */
static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index != 0)
        return -1;
    particles_rotation_generator(NQ / 3, 2, q, xi);
    return 0;
}

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* Eq. (112): the spin of steady precession at nutation alpha0. */
static double steady_spin(const heavy_top *t)
{
    const double I1 = t->I[0], I3 = t->I[2], ml2 = t->m * t->l * t->l;
    return t->m * t->g * t->l / (I3 * t->omega_p) +
           (I1 + ml2 - I3) / I3 * t->omega_p * cos(t->alpha0);
}

static void initial(void *self, double *q, double *p)
{
    const heavy_top *t = self;
    const double c = cos(t->alpha0), s = sin(t->alpha0);
    const double R[3][3] = {{1, 0, 0}, {0, c, -s}, {0, s, c}};
    for (int i = 0; i < 3; i++)      /* d_i = R e_i: column i of R */
        for (int r = 0; r < 3; r++)
            q[3 * (i + 1) + r] = R[r][i];
    for (int r = 0; r < 3; r++)      /* phi = R (0, 0, l) = l d3 */
        q[r] = t->l * R[r][2];
    const double spin = t->omega_s < 0 ? steady_spin(t) : t->omega_s;
    double w[3];
    for (int r = 0; r < 3; r++)
        w[r] = spin * q[9 + r];
    w[2] += t->omega_p;
    for (int i = 0; i < NQ; i += 3) {
        cross(w, q + i, p + i);
        for (int r = 0; r < 3; r++)
            p[i + r] *= coordinate_mass(t, i + r);
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

/* the layout above, for methods of the top (ggl.bs99) */
static const wb_director_top_ext director_top = {
    .struct_size = sizeof(wb_director_top_ext),
    .phi = 0,
    .director = {3, 6, 9},
    .tip = 6,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_HOLONOMIC, &holonomic},
    {WB_EXT_INVARIANTS, &invariants},
    {WB_EXT_INITIAL_STATE, &initial_state},
    {WB_EXT_DIRECTOR_TOP, &director_top},
};

WB_MODEL_PLUGIN("heavy_top",
                "heavy top as a rigid body in director form: 12 coordinates, 6 internal + 3 "
                "external constraints, momentum map J3",
                "heavy top (Lagrange top) in director form, nine holonomic constraints, J3",
                params, create, destroy, extensions);
