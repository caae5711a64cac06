/* Three tethered satellites around a central body (Brugnano-Gurioli-
 * Iavernaro-Weinmueller, Sect. 5.4, eqs. 77-80; after Cai-Li-Zhou): three
 * unit point masses q1, q2, q3 in R^3 joined in a triangle by massless
 * tethers of length l, treated as rigid bilateral constraints, orbiting a
 * body of gravitational parameter mu at the origin.
 *
 *   q = (q1, q2, q3) in R^9,  M = I,
 *   H = sum_i |p_i|^2 / 2 - mu / |q_i|,
 *   g(q) = (|q1 - q2|^2 - l^2, |q2 - q3|^2 - l^2, |q3 - q1|^2 - l^2),
 *
 * the constraints scaled exactly as the paper's (eq. 77), so that the
 * multipliers are theirs.  H is not a polynomial: HBVM(k, s) conserves it
 * to O(h^2k), round-off for the paper's k = 6.
 *
 * Default initial state (eqs. 79-80): the triangle in the plane x = 0 at
 * height z0 above the body,
 *   q1 = (0, l/2, z0),  q2 = (0, -l/2, z0),  q3 = (0, 0, z0 - sqrt(3) l / 2),
 *   p1 = p2 = 0,        p3 = (v0, 0, 0),
 * with v0 > 0 such that H(q0, p0) = 0 (for the paper's z0 = 20, l = mu = 1,
 * v0 = 0.55178224216018856; H0 is then zero to round-off, about 3e-17).
 * Satellites 1 and 2 then move in the planes y = +-l/2 and satellite 3
 * circles their tether in the plane y = 0.
 *
 * The potential and the constraints are invariant under rotations about
 * the origin, so the three components of the total angular momentum
 * L = sum_i q_i x p_i are momentum maps (Lx, Ly, Lz).
 *
 * wb.potential_invariants/1 writes V through the rotation invariants
 *   pi_i = |q_i|^2,  V_i(pi) = -mu / sqrt(pi),
 * for Greenspan's discrete gradient (the energy-momentum schemes); the
 * difference quotient has the closed form
 *   [V_i(b) - V_i(a)] / (b - a) = mu / (sqrt(a) sqrt(b) (sqrt(a) + sqrt(b))),
 * free of cancellation as b -> a. */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"
#include "wb_particles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NQ 9 /* three points in R^3 */
#define NC 3 /* three tethers        */
/* l / z0 below which the survey tests/fuzz/ranges.lua found methods that
 * fail at every step (1e-4: variationalize.vi; 1e-6: five of eleven) */
#define MIN_TETHER_RATIO 5e-4

typedef struct satellites {
    double mu, l, z0;
} satellites;

enum { P_MU, P_L, P_Z0 };
static const wb_param_spec params[] = {
    {"mu", 1.0, 1e-12, 1e12, "gravitational parameter of the central body (G times its mass)"},
    {"l", 1.0, 1e-2, 1e12,
     "tether length; at least 5e-4 z0 (so 1e-2 at the default z0): the tethers are "
     "differences of positions of size z0, round-off eps z0 l in |q_i - q_j|^2 - l^2 against "
     "l^2, and below that ratio some methods cannot meet the constraints at any step"},
    {"z0", 20.0, 1e-6, 2e3,
     "initial height of the tether 1-2 above the central body; at most l / 5e-4 (2e3 at the "
     "default l: see l)"},
};

static const char *const invariant_names[] = {"Lx", "Ly", "Lz"};

/* Tether k joins points first[k] and second[k]: g_k = |q_a - q_b|^2 - l^2. */
static const int first[NC] = {0, 1, 2};
static const int second[NC] = {1, 2, 0};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    satellites *s = malloc(sizeof *s);
    if (!s) {
        host->error(host, "tethered_satellites: out of memory");
        return WB_ERR_NOMEM;
    }
    s->mu = values[P_MU], s->l = values[P_L], s->z0 = values[P_Z0];
    if (s->z0 - sqrt(3.0) * s->l / 2 <= 0.0) {
        host->error(host, "tethered_satellites: z0 = %g puts satellite 3 at or below the "
                          "central body (need z0 > sqrt(3) l / 2 = %g)",
                    s->z0, sqrt(3.0) * s->l / 2);
        free(s);
        return WB_ERR_INVALID;
    }
    if (s->l < MIN_TETHER_RATIO * s->z0) {
        host->error(host, "tethered_satellites: l = %g is below %g z0 = %g: a tether that "
                          "short against its positions is round-off (see parameter l)",
                    s->l, MIN_TETHER_RATIO, MIN_TETHER_RATIO * s->z0);
        free(s);
        return WB_ERR_INVALID;
    }
    *self = s;
    info->nq = info->nv = NQ;
    info->n_holonomic = NC;
    info->mass_constant = 1;
    info->n_invariants = 3;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    memset(M, 0, NQ * NQ * sizeof(double));
    for (int i = 0; i < NQ; i++)
        M[i * NQ + i] = 1.0;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    (void)self, (void)q;
    memcpy(v, p, NQ * sizeof(double));
}

static double norm3(const double *x) { return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); }

static double potential(void *self, const double *q)
{
    const satellites *s = self;
    double V = 0;
    for (int i = 0; i < 3; i++)
        V -= s->mu / norm3(q + 3 * i);
    return V;
}

/* grad_{q_i} V = mu q_i / |q_i|^3 */
static void potential_gradient(void *self, const double *q, double *grad)
{
    const satellites *s = self;
    for (int i = 0; i < 3; i++) {
        const double r = norm3(q + 3 * i), c = s->mu / (r * r * r);
        for (int k = 0; k < 3; k++)
            grad[3 * i + k] = c * q[3 * i + k];
    }
}

/* Block-diagonal: mu (I / r^3 - 3 q_i q_i^T / r^5) per point. */
static void potential_hessian(void *self, const double *q, double *H)
{
    const satellites *s = self;
    memset(H, 0, NQ * NQ * sizeof(double));
    for (int i = 0; i < 3; i++) {
        const double *x = q + 3 * i;
        const double r = norm3(x), r3 = r * r * r, r5 = r3 * r * r;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                H[(3 * i + a) * NQ + 3 * i + b] =
                    s->mu * ((a == b) / r3 - 3.0 * x[a] * x[b] / r5);
    }
}

static void constraints(void *self, const double *q, double *g)
{
    const satellites *s = self;
    for (int k = 0; k < NC; k++) {
        const double *a = q + 3 * first[k], *b = q + 3 * second[k];
        double d2 = 0;
        for (int c = 0; c < 3; c++)
            d2 += (a[c] - b[c]) * (a[c] - b[c]);
        g[k] = d2 - s->l * s->l;
    }
}

/* Row k: 2 (q_a - q_b) in the columns of point a, its negative in those of b. */
static void jacobian(void *self, const double *q, double *G)
{
    (void)self;
    memset(G, 0, NC * NQ * sizeof(double));
    for (int k = 0; k < NC; k++) {
        const int a = first[k], b = second[k];
        for (int c = 0; c < 3; c++) {
            const double d = 2.0 * (q[3 * a + c] - q[3 * b + c]);
            G[k * NQ + 3 * a + c] = d;
            G[k * NQ + 3 * b + c] = -d;
        }
    }
}

/* D^2 g_k = 2 [I -I; -I I] on the blocks of points a and b (constant). */
static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    (void)self, (void)q;
    memset(T, 0, NQ * NQ * sizeof(double));
    for (int k = 0; k < NC; k++) {
        const int a = first[k], b = second[k];
        const double w = 2.0 * mu[k];
        for (int c = 0; c < 3; c++) {
            T[(3 * a + c) * NQ + 3 * a + c] += w;
            T[(3 * b + c) * NQ + 3 * b + c] += w;
            T[(3 * a + c) * NQ + 3 * b + c] -= w;
            T[(3 * b + c) * NQ + 3 * a + c] -= w;
        }
    }
}

/* Row k: D^2 g_k w = 2 (w_a - w_b) on point a, its negative on point b. */
static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    (void)self, (void)q;
    memset(B, 0, NC * NQ * sizeof(double));
    for (int k = 0; k < NC; k++) {
        const int a = first[k], b = second[k];
        for (int c = 0; c < 3; c++) {
            const double d = 2.0 * (w[3 * a + c] - w[3 * b + c]);
            B[k * NQ + 3 * a + c] = d;
            B[k * NQ + 3 * b + c] = -d;
        }
    }
}

/* ---- potential through the invariants pi_i = |q_i|^2 --------------------------- */

static int invariant_count(void *self)
{
    (void)self;
    return 3;
}

static void radius_invariants(void *self, const double *q, double *pi)
{
    (void)self;
    for (int i = 0; i < 3; i++) {
        const double *x = q + 3 * i;
        pi[i] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
    }
}

/* d pi_i / dq = 2 q_i in the columns of point i. */
static void radius_invariants_gradient(void *self, const double *q, double *dpi)
{
    (void)self;
    memset(dpi, 0, 3 * NQ * sizeof(double));
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++)
            dpi[i * NQ + 3 * i + c] = 2.0 * q[3 * i + c];
}

static void radius_potentials(void *self, const double *pi, double *V, double *dV)
{
    const satellites *s = self;
    for (int i = 0; i < 3; i++) {
        const double r = sqrt(pi[i]);
        if (V)
            V[i] = -s->mu / r;
        if (dV)
            dV[i] = 0.5 * s->mu / (r * pi[i]);
    }
}

static void radius_quotient(void *self, const double *a, const double *b, double *out)
{
    const satellites *s = self;
    for (int i = 0; i < 3; i++) {
        const double ra = sqrt(a[i]), rb = sqrt(b[i]);
        out[i] = s->mu / (ra * rb * (ra + rb));
    }
}

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    particles_angular_momentum(3, q, p, out);
}

/* Rotation about the axis e_index acting on every point: xi_i = e x q_i. */
static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index < 0 || index > 2)
        return -1;
    particles_rotation_generator(3, index, q, xi);
    return 0;
}

static void initial(void *self, double *q, double *p)
{
    const satellites *s = self;
    memset(q, 0, NQ * sizeof(double));
    memset(p, 0, NQ * sizeof(double));
    q[1] = 0.5 * s->l, q[2] = s->z0;
    q[4] = -0.5 * s->l, q[5] = s->z0;
    q[8] = s->z0 - 0.5 * sqrt(3.0) * s->l;
    /* H = v0^2 / 2 + V(q0) = 0 */
    p[6] = sqrt(-2.0 * potential(self, q));
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

static const wb_potential_invariants_ext potential_invariants = {
    .struct_size = sizeof(wb_potential_invariants_ext),
    .count = invariant_count,
    .invariants = radius_invariants,
    .invariants_gradient = radius_invariants_gradient,
    .potentials = radius_potentials,
    .difference_quotient = radius_quotient,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_HOLONOMIC, &holonomic},
    {WB_EXT_INVARIANTS, &invariants},
    {WB_EXT_INITIAL_STATE, &initial_state},
    {WB_EXT_POTENTIAL_INVARIANTS, &potential_invariants},
};

WB_MODEL_PLUGIN("tethered_satellites",
                "triangle of three tethered satellites around a central body, R^9, three tethers, "
                "potential invariants |q_i|^2",
                "three tethered satellites (line-integral paper, Sect. 5.4), 3 holonomic constraints",
                params, create, destroy, extensions);
