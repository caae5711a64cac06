/*
 * bench/gni_irk2.c -- the yardstick for implicit Runge-Kutta speed: a plain
 * C implementation of the algorithm of Hairer's gni_irk2 (Hairer, Lubich,
 * Wanner, Geometric Numerical Integration, Sects. II.1 and VIII.6; E. and
 * M. Hairer, GniCodes), written in this project from the published method
 * and its published coefficients.
 *
 * The method: s-stage Gauss collocation (s = 2, 4, 6) applied to the
 * second-order equation q'' = f(q) in Nystrom form,
 *
 *   Z_i = h c_i v0 + h^2 sum_j (A^2)_ij f(q0 + Z_j),
 *   q1  = q0 + h v0 + h^2 sum_j b_j (1 - c_j) f(q0 + Z_j),
 *   v1  = v0 + h sum_j b_j f(q0 + Z_j),
 *
 * solved by fixed-point iteration, stopped when the root mean square of
 * the increment, each component divided by max(0.1, |q0_i|), falls below
 * 1e-16 (or, once below 1e-15, stops decreasing).  The first step starts
 * from Z_i = h c_i v0 + (h c_i)^2 / 2 f(q0); every later one from the
 * published starting approximation of order s: the previous step's stage
 * forces, f at the previous and the new step point, and f at one point
 * extrapolated beyond the step (two evaluations of f per step).  The update
 * is summed with compensation, component by component.
 *
 * Problems (each written inline, as a user of such a code writes f):
 *   kepler   q'' = -q / |q|^3, e = 0.5: q0 = (0.5, 0), v0 = (0, sqrt 3)
 *   solar    the outer solar system (HLW I.2.4, Table 2.1), 6 bodies in
 *            3-d, velocities in AU/day, G = 2.95912208286e-4
 *
 * Usage: bench_gni_irk2 kepler|solar S STEPS H
 * prints one line of `key value` pairs: the loop's seconds, the force
 * evaluations and sweeps per step, and the final state (q, then p = m v
 * as the workbench's models carry it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gni_coefficients.h"

enum { MAX_N = 18, MAX_ITER = 50 };
static const double UROUND = 1e-16;

/* ---- the problems, written inline --------------------------------------- */

typedef struct problem {
    const char *name;
    int n;
    double q0[MAX_N], v0[MAX_N];
    double mass[MAX_N];   /* per component, to report p = m v */
    void (*force)(const double *q, double *f);
} problem;

static void kepler_force(const double *q, double *f)
{
    const double r2 = q[0] * q[0] + q[1] * q[1], r = sqrt(r2), k = -1.0 / (r2 * r);
    f[0] = k * q[0];
    f[1] = k * q[1];
}

enum { BODIES = 6 };
static const double body_mass[BODIES] = {
    1.00000597682, 0.000954786104043, 0.000285583733151,
    0.0000437273164546, 0.0000517759138449, 1.0 / 1.3e8,
};
static const double newton_g = 2.95912208286e-4;

static void solar_force(const double *q, double *f)
{
    memset(f, 0, 3 * BODIES * sizeof(double));
    for (int i = 0; i < BODIES; i++)
        for (int j = i + 1; j < BODIES; j++) {
            const double d0 = q[3 * j] - q[3 * i], d1 = q[3 * j + 1] - q[3 * i + 1],
                         d2 = q[3 * j + 2] - q[3 * i + 2];
            const double r2 = d0 * d0 + d1 * d1 + d2 * d2, k = newton_g / (r2 * sqrt(r2));
            const double ki = k * body_mass[j], kj = k * body_mass[i];
            f[3 * i] += ki * d0, f[3 * i + 1] += ki * d1, f[3 * i + 2] += ki * d2;
            f[3 * j] -= kj * d0, f[3 * j + 1] -= kj * d1, f[3 * j + 2] -= kj * d2;
        }
}

static int problem_named(const char *name, problem *pb)
{
    memset(pb, 0, sizeof *pb);
    if (strcmp(name, "kepler") == 0) {
        *pb = (problem){.name = "kepler", .n = 2, .q0 = {0.5, 0.0}, .v0 = {0.0, sqrt(3.0)},
                        .mass = {1.0, 1.0}, .force = kepler_force};
        return 0;
    }
    if (strcmp(name, "solar") == 0) {
        static const double x[BODIES][3] = {
            {0.0, 0.0, 0.0},
            {-3.5023653, -3.8169847, -1.5507963},
            {9.0755314, -3.0458353, -1.6483708},
            {8.3101420, -16.2901086, -7.2521278},
            {11.4707666, -25.7294829, -10.8169456},
            {-15.5387357, -25.2225594, -3.1902382},
        };
        static const double v[BODIES][3] = {
            {0.0, 0.0, 0.0},
            {0.00565429, -0.00412490, -0.00190589},
            {0.00168318, 0.00483525, 0.00192462},
            {0.00354178, 0.00137102, 0.00055029},
            {0.00288930, 0.00114527, 0.00039677},
            {0.00276725, -0.00170702, -0.00136504},
        };
        pb->name = "solar", pb->n = 3 * BODIES, pb->force = solar_force;
        for (int i = 0; i < BODIES; i++)
            for (int k = 0; k < 3; k++) {
                pb->q0[3 * i + k] = x[i][k];
                pb->v0[3 * i + k] = v[i][k];
                pb->mass[3 * i + k] = body_mass[i];
            }
        return 0;
    }
    return -1;
}

/* ---- the integrator ---------------------------------------------------- */

typedef struct run_result {
    double q[MAX_N], v[MAX_N];
    long long evals, sweeps;
    double seconds;
} run_result;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a += x with the rounding error carried in *err (Kahan) */
static inline void add_compensated(double *a, double *err, double x)
{
    const double old = *a;
    *err += x;
    *a = old + *err;
    *err += old - *a;
}

static int integrate(const problem *pb, const gauss_coefficients *k, long long steps, double h,
                     run_result *out)
{
    const int n = pb->n, s = k->s;
    double q[MAX_N], v[MAX_N], eq[MAX_N] = {0}, ev[MAX_N] = {0};
    double z[MAX_S][MAX_N], f[MAX_S][MAX_N], f_old_point[MAX_N], f_new_point[MAX_N],
        f_extra[MAX_N], v_old[MAX_N], stage[MAX_N];
    /* the coefficients with their powers of h, once */
    double c[MAX_S], b[MAX_S], bc[MAX_S], aa[MAX_S][MAX_S], e[MAX_S][MAX_S + EXTRA],
        am[MAX_S + 2];
    for (int i = 0; i < s; i++) {
        c[i] = h * k->c[i], b[i] = h * k->b[i], bc[i] = h * h * k->bc[i];
        for (int j = 0; j < s; j++)
            aa[i][j] = h * h * k->aa[i][j];
        for (int j = 0; j < s + EXTRA; j++)
            e[i][j] = h * h * k->e[i][j];
        am[i] = k->am[i];
    }
    am[s] = h * k->am[s], am[s + 1] = h * k->am[s + 1];
    memcpy(q, pb->q0, sizeof q);
    memcpy(v, pb->v0, sizeof v);
    long long evals = 0, sweeps = 0;
    const double start = now_seconds();
    pb->force(q, f_old_point), evals++;
    for (int i = 0; i < s; i++)
        for (int c0 = 0; c0 < n; c0++)
            z[i][c0] = c[i] * v[c0] + 0.5 * c[i] * c[i] * f_old_point[c0];
    memcpy(v_old, v, sizeof v);
    for (long long step = 0; step < steps; step++) {
        if (step > 0) {
            /* the starting approximation from the step just taken */
            double extra_point[MAX_N];
            for (int c0 = 0; c0 < n; c0++) {
                double y = q[c0] + am[s] * v_old[c0] + am[s + 1] * v[c0];
                for (int j = 0; j < s; j++)
                    y += am[j] * z[j][c0];
                extra_point[c0] = y;
            }
            pb->force(q, f_new_point);
            pb->force(extra_point, f_extra);
            evals += 2;
            for (int i = 0; i < s; i++)
                for (int c0 = 0; c0 < n; c0++) {
                    double sum = e[i][s] * f_old_point[c0] + e[i][s + 1] * f_new_point[c0] +
                                 e[i][s + 2] * f_extra[c0];
                    for (int j = 0; j < s; j++)
                        sum += e[i][j] * f[j][c0];
                    z[i][c0] = sum + c[i] * v[c0];
                }
            memcpy(f_old_point, f_new_point, sizeof f_new_point);
            memcpy(v_old, v, sizeof v);
        }
        /* fixed-point iteration */
        double previous = 0.0, increment = 1.0;
        int iterations = 0;
        while (increment > UROUND) {
            for (int j = 0; j < s; j++) {
                for (int c0 = 0; c0 < n; c0++)
                    stage[c0] = q[c0] + z[j][c0];
                pb->force(stage, f[j]);
            }
            evals += s;
            double sum2 = 0.0;
            for (int c0 = 0; c0 < n; c0++) {
                const double scale = fmax(0.1, fabs(q[c0]));
                for (int i = 0; i < s; i++) {
                    double znew = c[i] * v[c0];
                    for (int j = 0; j < s; j++)
                        znew += aa[i][j] * f[j][c0];
                    const double d = (znew - z[i][c0]) / scale;
                    sum2 += d * d;
                    z[i][c0] = znew;
                }
            }
            increment = sqrt(sum2 / (double)(s * n));
            iterations++;
            if (previous < increment && increment < 10.0 * UROUND)
                break;
            if (iterations >= MAX_ITER) {
                fprintf(stderr, "gni_irk2: no convergence at step %lld (increment %.3e)\n",
                        step + 1, increment);
                return -1;
            }
            previous = increment;
        }
        sweeps += iterations;
        /* the update, compensated component by component */
        for (int c0 = 0; c0 < n; c0++) {
            add_compensated(&q[c0], &eq[c0], h * v[c0]);
            for (int j = 0; j < s; j++)
                add_compensated(&q[c0], &eq[c0], bc[j] * f[j][c0]);
            for (int j = 0; j < s / 2; j++)
                add_compensated(&v[c0], &ev[c0], b[j] * (f[j][c0] + f[s - 1 - j][c0]));
        }
    }
    out->seconds = now_seconds() - start;
    memcpy(out->q, q, sizeof q);
    memcpy(out->v, v, sizeof v);
    out->evals = evals, out->sweeps = sweeps;
    return 0;
}

int main(int argc, char **argv)
{
    problem pb;
    const int s = argc == 5 ? atoi(argv[2]) : 0;
    const gauss_coefficients *k = s == 2 ? &gauss2 : s == 4 ? &gauss4 : s == 6 ? &gauss6 : NULL;
    const long long steps = argc == 5 ? (long long)strtod(argv[3], NULL) : 0;
    const double h = argc == 5 ? strtod(argv[4], NULL) : 0.0;
    if (argc != 5 || problem_named(argv[1], &pb) != 0 || !k || steps < 1 || !(h > 0)) {
        fprintf(stderr, "usage: %s kepler|solar 2|4|6 STEPS H\n", argv[0]);
        return 2;
    }
    run_result r;
    if (integrate(&pb, k, steps, h, &r) != 0)
        return 1;
    printf("problem %s s %d steps %lld h %.17g seconds %.6f us_per_step %.5f evals_per_step "
           "%.4f sweeps_per_step %.4f",
           pb.name, s, steps, h, r.seconds, 1e6 * r.seconds / (double)steps,
           (double)r.evals / (double)steps, (double)r.sweeps / (double)steps);
    for (int i = 0; i < pb.n; i++)
        printf(" q%d %.17g", i + 1, r.q[i]);
    for (int i = 0; i < pb.n; i++)
        printf(" p%d %.17g", i + 1, pb.mass[i] * r.v[i]);
    printf("\n");
    return 0;
}
