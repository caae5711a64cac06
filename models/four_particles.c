/* Gonzalez's four-particle system (Gonzalez 1999; Kinon-Betsch-Schneider,
 * Sect. 6.3): four point masses in R^3, two nonlinear springs (1-3, 2-4)
 * and two rigid bars (1-2, 3-4).
 *
 *   q = (q1, q2, q3, q4) in R^12,  M = blockdiag(m_i I3),  no gravity,
 *   V = k13/2 (|q3 - q1|^2 - l13^2)^2 + k24/2 (|q4 - q2|^2 - l24^2)^2   (116),
 *   g1 = (|q2 - q1|^2 / l12^2 - 1)/2,  g2 = (|q4 - q3|^2 / l34^2 - 1)/2 (117).
 *
 * Translations and rotations of all four points are symmetries: the total
 * linear momentum L = sum p_i and angular momentum J = sum q_i x p_i are
 * momentum maps (eqs. 118, 121), published as L1..L3 and J1..J3 with
 * their generators.
 *
 * wb.potential_invariants/1 writes V through the quadratic invariants
 *   pi1 = |q3 - q1|^2,  pi2 = |q4 - q2|^2,
 *   V_i(pi) = k_i/2 (pi - l_i^2)^2,
 * for Greenspan's discrete gradient (126).  The paper's (122b) prints
 * pi2 = |q4 - q3|^2 and (125) uses d pi1/dq twice: both are typos, the
 * spring 2-4 of (116) needs pi2 = |q4 - q2|^2.  The difference quotient
 * of the quadratic V_i is exact in closed form,
 *   [V_i(b) - V_i(a)] / (b - a) = k_i ((a + b)/2 - l_i^2),
 * so there is no 0/0 when a spring's length does not change over a step.
 *
 * Default initial state (127): q1 = 0, q2 = e1, q3 = e2, q4 = e1 + e2,
 * v4 = (0, 0, 2/1.7), the others at rest, p_i = m_i v_i: springs at rest
 * length (for the paper's lengths), both constraint levels exact (for any
 * bar lengths: q2 = l12 e1, q4 = e2 + l34 e1). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"
#include "wb_particles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NQ 12
#define NC 2

typedef struct four_particles {
    double m[4];
    double k[2], rest2[2];  /* springs 1-3 and 2-4: stiffness, rest length^2 */
    double bar2[2];         /* bars 1-2 and 3-4: length^2                   */
} four_particles;

enum { P_M1, P_M2, P_M3, P_M4, P_K13, P_K24, P_L13, P_L24, P_L12, P_L34 };
static const wb_param_spec params[] = {
    {"m1", 1.0, 1e-6, 1e12,
     "mass of particle 1; each mass at least 1e-6: a mass 1e-9 times the others makes the "
     "constrained methods' matrices (G M^-1 G^T) too ill-conditioned to converge at any step"},
    {"m2", 3.0, 1e-6, 1e12, "mass of particle 2 (at least 1e-6: see m1)"},
    {"m3", 2.3, 1e-6, 1e12, "mass of particle 3 (at least 1e-6: see m1)"},
    {"m4", 1.7, 1e-6, 1e12, "mass of particle 4 (at least 1e-6: see m1)"},
    {"k13", 50.0, 0.0, 1e12, "stiffness of the spring between particles 1 and 3"},
    {"k24", 500.0, 0.0, 1e12, "stiffness of the spring between particles 2 and 4"},
    {"l13", 1.0, 1e-12, 1e12, "rest length of the spring 1-3"},
    {"l24", 1.0, 1e-12, 1e12, "rest length of the spring 2-4"},
    {"l12", 1.0, 1e-4, 1e12,
     "length of the rigid bar 1-2; at least 1e-4: the bar is a difference of positions of "
     "size 1, round-off eps against l^2 in its constraint, and at 1e-6 some methods fail at "
     "every step"},
    {"l34", 1.0, 1e-4, 1e12,
     "length of the rigid bar 3-4; at least 1e-4: the bar is a difference of positions of "
     "size 1, round-off eps against l^2 in its constraint, and at 1e-6 some methods fail at "
     "every step"},
};

static const char *const invariant_names[] = {"L1", "L2", "L3", "J1", "J2", "J3"};

/* The springs join particles spring_a[s] and spring_b[s], the bars
 * bar_a[k] and bar_b[k] (0-based). */
static const int spring_a[2] = {0, 1}, spring_b[2] = {2, 3};
static const int bar_a[2] = {0, 2}, bar_b[2] = {1, 3};

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    four_particles *f = malloc(sizeof *f);
    if (!f) {
        host->error(host, "four_particles: out of memory");
        return WB_ERR_NOMEM;
    }
    for (int i = 0; i < 4; i++)
        f->m[i] = values[P_M1 + i];
    f->k[0] = values[P_K13], f->k[1] = values[P_K24];
    f->rest2[0] = values[P_L13] * values[P_L13];
    f->rest2[1] = values[P_L24] * values[P_L24];
    f->bar2[0] = values[P_L12] * values[P_L12];
    f->bar2[1] = values[P_L34] * values[P_L34];
    *self = f;
    info->nq = info->nv = NQ;
    info->n_holonomic = NC;
    info->mass_constant = 1;
    info->n_invariants = 6;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const four_particles *f = self;
    (void)q;
    memset(M, 0, NQ * NQ * sizeof(double));
    for (int i = 0; i < NQ; i++)
        M[i * NQ + i] = f->m[i / 3];
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const four_particles *f = self;
    (void)q;
    for (int i = 0; i < NQ; i++)
        v[i] = p[i] / f->m[i / 3];
}

/* r = q_b - q_a; returns |r|^2 */
static double separation_squared(const double *q, int a, int b, double *r)
{
    double s = 0;
    for (int c = 0; c < 3; c++) {
        r[c] = q[3 * b + c] - q[3 * a + c];
        s += r[c] * r[c];
    }
    return s;
}

/* ---- springs: V through the invariants pi_s = |q_b - q_a|^2 ------------------- */

static void spring_invariants(void *self, const double *q, double *pi)
{
    (void)self;
    double r[3];
    for (int s = 0; s < 2; s++)
        pi[s] = separation_squared(q, spring_a[s], spring_b[s], r);
}

static void spring_potentials(void *self, const double *pi, double *V, double *dV)
{
    const four_particles *f = self;
    for (int s = 0; s < 2; s++) {
        const double stretch = pi[s] - f->rest2[s];
        if (V)
            V[s] = 0.5 * f->k[s] * stretch * stretch;
        if (dV)
            dV[s] = f->k[s] * stretch;
    }
}

static void spring_quotient(void *self, const double *a, const double *b, double *out)
{
    const four_particles *f = self;
    for (int s = 0; s < 2; s++)
        out[s] = f->k[s] * (0.5 * (a[s] + b[s]) - f->rest2[s]);
}

/* d pi_s / dq: -2r on particle a, +2r on particle b. */
static void spring_invariants_gradient(void *self, const double *q, double *dpi)
{
    (void)self;
    double r[3];
    memset(dpi, 0, 2 * NQ * sizeof(double));
    for (int s = 0; s < 2; s++) {
        separation_squared(q, spring_a[s], spring_b[s], r);
        for (int c = 0; c < 3; c++) {
            dpi[s * NQ + 3 * spring_a[s] + c] = -2 * r[c];
            dpi[s * NQ + 3 * spring_b[s] + c] = 2 * r[c];
        }
    }
}

static int spring_count(void *self)
{
    (void)self;
    return 2;
}

static double potential(void *self, const double *q)
{
    double pi[2], V[2];
    spring_invariants(self, q, pi);
    spring_potentials(self, pi, V, NULL);
    return V[0] + V[1];
}

/* grad V = sum_s V_s'(pi_s) d pi_s / dq */
static void potential_gradient(void *self, const double *q, double *grad)
{
    double r[3], pi[2], dV[2];
    spring_invariants(self, q, pi);
    spring_potentials(self, pi, NULL, dV);
    memset(grad, 0, NQ * sizeof(double));
    for (int s = 0; s < 2; s++) {
        const double slope = dV[s];
        separation_squared(q, spring_a[s], spring_b[s], r);
        for (int c = 0; c < 3; c++) {
            grad[3 * spring_a[s] + c] -= 2 * slope * r[c];
            grad[3 * spring_b[s] + c] += 2 * slope * r[c];
        }
    }
}

/* Hess V = sum_s V_s'' dpi dpi^T + V_s' D^2 pi_s, on the blocks (a, b) of
 * spring s: with r = q_b - q_a, the (b, b) block is 4 k r r^T + 2 V' I,
 * (a, a) the same, (a, b) and (b, a) its negative. */
static void potential_hessian(void *self, const double *q, double *H)
{
    const four_particles *f = self;
    double r[3], pi[2], dV[2];
    spring_invariants(self, q, pi);
    spring_potentials(self, pi, NULL, dV);
    memset(H, 0, NQ * NQ * sizeof(double));
    for (int s = 0; s < 2; s++) {
        const int a = spring_a[s], b = spring_b[s];
        const double slope = dV[s];
        separation_squared(q, a, b, r);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                const double block = 4 * f->k[s] * r[i] * r[j] + (i == j ? 2 * slope : 0.0);
                H[(3 * a + i) * NQ + 3 * a + j] += block;
                H[(3 * b + i) * NQ + 3 * b + j] += block;
                H[(3 * a + i) * NQ + 3 * b + j] -= block;
                H[(3 * b + i) * NQ + 3 * a + j] -= block;
            }
    }
}

/* ---- bars --------------------------------------------------------------------- */

static void constraints(void *self, const double *q, double *g)
{
    const four_particles *f = self;
    double r[3];
    for (int k = 0; k < NC; k++)
        g[k] = 0.5 * (separation_squared(q, bar_a[k], bar_b[k], r) / f->bar2[k] - 1.0);
}

/* Row k: -r / l^2 on particle a, r / l^2 on particle b. */
static void jacobian(void *self, const double *q, double *G)
{
    const four_particles *f = self;
    double r[3];
    memset(G, 0, NC * NQ * sizeof(double));
    for (int k = 0; k < NC; k++) {
        separation_squared(q, bar_a[k], bar_b[k], r);
        for (int c = 0; c < 3; c++) {
            G[k * NQ + 3 * bar_a[k] + c] = -r[c] / f->bar2[k];
            G[k * NQ + 3 * bar_b[k] + c] = r[c] / f->bar2[k];
        }
    }
}

/* D^2 g_k = [[I, -I], [-I, I]] / l^2 on the blocks (a, b) of bar k. */
static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    const four_particles *f = self;
    (void)q;
    memset(T, 0, NQ * NQ * sizeof(double));
    for (int k = 0; k < NC; k++) {
        const int a = bar_a[k], b = bar_b[k];
        const double s = mu[k] / f->bar2[k];
        for (int c = 0; c < 3; c++) {
            T[(3 * a + c) * NQ + 3 * a + c] += s;
            T[(3 * b + c) * NQ + 3 * b + c] += s;
            T[(3 * a + c) * NQ + 3 * b + c] -= s;
            T[(3 * b + c) * NQ + 3 * a + c] -= s;
        }
    }
}

/* Row k = (D^2 g_k w)^T: -(w_b - w_a)/l^2 on a, (w_b - w_a)/l^2 on b. */
static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    const four_particles *f = self;
    (void)q;
    memset(B, 0, NC * NQ * sizeof(double));
    for (int k = 0; k < NC; k++) {
        const int a = bar_a[k], b = bar_b[k];
        for (int c = 0; c < 3; c++) {
            const double rel = (w[3 * b + c] - w[3 * a + c]) / f->bar2[k];
            B[k * NQ + 3 * a + c] = -rel;
            B[k * NQ + 3 * b + c] = rel;
        }
    }
}

/* ---- momentum maps -------------------------------------------------------------- */

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    particles_linear_momentum(4, p, out);
    particles_angular_momentum(4, q, p, out + 3);
}

/* L_c: translation along e_c of every particle; J_c: rotation about e_c,
 * xi_i = e_c x q_i. */
static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index < 0 || index > 5)
        return -1;
    if (index < 3)
        particles_translation_generator(4, index, xi);
    else
        particles_rotation_generator(4, index - 3, q, xi);
    return 0;
}

/* The paper's layout (127) with the bars stretched to l12 and l34 along e1,
 * so that g(q0) = 0 for any bar lengths; v4 is the paper's velocity, normal
 * to the bar 3-4, so G M^-1 p0 = 0 too. */
static void initial(void *self, double *q, double *p)
{
    const four_particles *f = self;
    const double l12 = sqrt(f->bar2[0]), l34 = sqrt(f->bar2[1]);
    const double q0[NQ] = {0, 0, 0, l12, 0, 0, 0, 1, 0, l34, 1, 0};
    memcpy(q, q0, sizeof q0);
    memset(p, 0, NQ * sizeof(double));
    p[11] = f->m[3] * (2.0 / 1.7); /* v4 = (0, 0, 2/1.7) */
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
    .count = spring_count,
    .invariants = spring_invariants,
    .invariants_gradient = spring_invariants_gradient,
    .potentials = spring_potentials,
    .difference_quotient = spring_quotient,
};

/* tests/ggl/four_particles_sparse.c builds this file again under another
 * name with one more extension (wb.sparsity/1) */
#ifndef FOUR_PARTICLES_NAME
#define FOUR_PARTICLES_NAME "four_particles"
#define FOUR_PARTICLES_MORE_EXTENSIONS
#endif

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_HOLONOMIC, &holonomic},
    {WB_EXT_INVARIANTS, &invariants},
    {WB_EXT_INITIAL_STATE, &initial_state},
    {WB_EXT_POTENTIAL_INVARIANTS, &potential_invariants},
    FOUR_PARTICLES_MORE_EXTENSIONS
};

WB_MODEL_PLUGIN(FOUR_PARTICLES_NAME,
                "Gonzalez's four-particle system: two nonlinear springs, two rigid bars, linear "
                "and angular momentum, potential invariants",
                "four-particle system (Gonzalez 1999): springs, rigid bars, L and J",
                params, create, destroy, extensions);
