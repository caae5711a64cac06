/* The outer solar system (Hairer-Lubich-Wanner, Geometric Numerical
 * Integration, 2nd ed., Sect. I.2.4, data of their Table 2.1).
 *
 *   Six bodies: the Sun (its mass increased by the inner planets'),
 *   Jupiter, Saturn, Uranus, Neptune and Pluto.  q in R^18, body i at
 *   q[3i .. 3i+2], p_i = m_i v_i, unconstrained,
 *   H = sum_i |p_i|^2 / (2 m_i) - G sum_{i<j} m_i m_j / |q_i - q_j|.
 *
 * Units as in HLW: masses relative to the Sun (m0 = 1.00000597682 to
 * account for the inner planets), distances in astronomical units, time in
 * Earth days, so G = 2.95912208286e-4.  The masses, positions and
 * velocities below are HLW's Table 2.1 with the Sun at rest at the origin;
 * the total momentum is therefore not zero and the centre of mass moves
 * uniformly, at about 7e-6 AU/day.
 *
 * Invariants: the total linear momentum P = sum_i p_i (momentum map of
 * translations; generator: the same unit vector e_k at every body) and
 * the total angular momentum L = sum_i q_i x p_i (momentum map of
 * rotations; generator: e_k x q_i at every body). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"
#include "wb_particles.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N_BODIES 6
#define NQ (3 * N_BODIES)

/* HLW Table 2.1: Sun (with the inner planets), Jupiter, Saturn, Uranus,
 * Neptune, Pluto. */
static const double body_mass[N_BODIES] = {
    1.00000597682, 0.000954786104043, 0.000285583733151,
    0.0000437273164546, 0.0000517759138449, 1.0 / 1.3e8,
};
static const double initial_position[N_BODIES][3] = { /* AU */
    {0.0, 0.0, 0.0},
    {-3.5023653, -3.8169847, -1.5507963},
    {9.0755314, -3.0458353, -1.6483708},
    {8.3101420, -16.2901086, -7.2521278},
    {11.4707666, -25.7294829, -10.8169456},
    {-15.5387357, -25.2225594, -3.1902382},
};
static const double initial_velocity[N_BODIES][3] = { /* AU / day */
    {0.0, 0.0, 0.0},
    {0.00565429, -0.00412490, -0.00190589},
    {0.00168318, 0.00483525, 0.00192462},
    {0.00354178, 0.00137102, 0.00055029},
    {0.00288930, 0.00114527, 0.00039677},
    {0.00276725, -0.00170702, -0.00136504},
};

typedef struct solar {
    double G;
} solar;

static const wb_param_spec params[] = {
    /* parameter names are lower-case identifiers, hence not plain "G" */
    {"newton_g", 2.95912208286e-4, 0.0, 1e12,
     "Newton's gravitational constant G in AU^3 / (solar mass day^2)"},
};

static const char *const invariant_names[] = {"P1", "P2", "P3", "L1", "L2", "L3"};
enum { INV_P1 = 0, INV_L1 = 3, N_INVARIANTS = 6 };

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    solar *s = malloc(sizeof *s);
    if (!s) {
        host->error(host, "outer_solar_system: out of memory");
        return WB_ERR_NOMEM;
    }
    s->G = values[0];
    *self = s;
    info->nq = info->nv = NQ;
    info->mass_constant = 1;
    info->n_invariants = N_INVARIANTS;
    info->invariant_names = invariant_names;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    memset(M, 0, NQ * NQ * sizeof(double));
    for (int i = 0; i < NQ; i++)
        M[i * NQ + i] = body_mass[i / 3];
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    (void)self, (void)q;
    for (int i = 0; i < NQ; i++)
        v[i] = p[i] / body_mass[i / 3];
}

/* d = q_i - q_j; returns |d|. */
static double separation(const double *q, int i, int j, double d[3])
{
    for (int k = 0; k < 3; k++)
        d[k] = q[3 * i + k] - q[3 * j + k];
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static double potential(void *self, const double *q)
{
    const solar *s = self;
    double V = 0, d[3];
    for (int i = 0; i < N_BODIES; i++)
        for (int j = i + 1; j < N_BODIES; j++)
            V -= body_mass[i] * body_mass[j] / separation(q, i, j, d);
    return s->G * V;
}

/* The pair (i, j) contributes f = G m_i m_j d / r^3 to grad_{q_i} V and -f
 * to grad_{q_j} V (the attraction pulls q_i towards q_j). */
static void potential_gradient(void *self, const double *q, double *grad)
{
    const solar *s = self;
    memset(grad, 0, NQ * sizeof(double));
    for (int i = 0; i < N_BODIES; i++)
        for (int j = i + 1; j < N_BODIES; j++) {
            double d[3], r = separation(q, i, j, d);
            double c = s->G * body_mass[i] * body_mass[j] / (r * r * r);
            for (int k = 0; k < 3; k++) {
                grad[3 * i + k] += c * d[k];
                grad[3 * j + k] -= c * d[k];
            }
        }
}

/* K = G m_i m_j (I / r^3 - 3 d d^T / r^5) = d/dq_i of the pair's force
 * term f above, a 3x3 symmetric block. */
static void pair_block(double Gmm, const double d[3], double r, double K[3][3])
{
    double r2 = r * r, r3 = r2 * r, r5 = r3 * r2;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            K[a][b] = Gmm * ((a == b ? 1.0 / r3 : 0.0) - 3.0 * d[a] * d[b] / r5);
}

/* H[body row, body col] += sign K. */
static void add_block(double *H, int row, int col, double sign, double K[3][3])
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            H[(3 * row + a) * NQ + 3 * col + b] += sign * K[a][b];
}

/* V_ij depends on q_i - q_j only, so its Hessian is [K -K; -K K]. */
static void potential_hessian(void *self, const double *q, double *H)
{
    const solar *s = self;
    memset(H, 0, NQ * NQ * sizeof(double));
    for (int i = 0; i < N_BODIES; i++)
        for (int j = i + 1; j < N_BODIES; j++) {
            double d[3], K[3][3], r = separation(q, i, j, d);
            pair_block(s->G * body_mass[i] * body_mass[j], d, r, K);
            add_block(H, i, i, 1.0, K);
            add_block(H, j, j, 1.0, K);
            add_block(H, i, j, -1.0, K);
            add_block(H, j, i, -1.0, K);
        }
}

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    particles_linear_momentum(N_BODIES, p, out + INV_P1);
    particles_angular_momentum(N_BODIES, q, p, out + INV_L1);
}

/* P_k = p . xi with xi = e_k at every body; L_k = p . xi with
 * xi = e_k x q_i at every body, since p_i . (e_k x q_i) = e_k . (q_i x p_i). */
static int generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index < 0 || index >= N_INVARIANTS)
        return -1;
    if (index < INV_L1)
        particles_translation_generator(N_BODIES, index - INV_P1, xi);
    else
        particles_rotation_generator(N_BODIES, index - INV_L1, q, xi);
    return 0;
}

static void initial(void *self, double *q, double *p)
{
    (void)self;
    for (int i = 0; i < N_BODIES; i++)
        for (int k = 0; k < 3; k++) {
            q[3 * i + k] = initial_position[i][k];
            p[3 * i + k] = body_mass[i] * initial_velocity[i][k];
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
    {WB_EXT_INVARIANTS, &invariants},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("outer_solar_system",
                "Sun and the five outer planets (HLW I.2.4), Newtonian gravity, P and L",
                "outer solar system, six-body gravitation, linear and angular momentum",
                params, create, destroy, extensions);
