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

enum { MAX_S = 6, EXTRA = 3, MAX_N = 18, MAX_ITER = 50 };
static const double UROUND = 1e-16;

/* ---- the published coefficients (HLW VIII.6; gni_irk2's tables) ---------- */

typedef struct gauss_coefficients {
    int s;
    double c[MAX_S], b[MAX_S], bc[MAX_S];   /* nodes, weights, b_j (1 - c_j)  */
    double aa[MAX_S][MAX_S];                /* A^2                             */
    /* starting approximation: columns 0..s-1 the old stage forces, then f
     * at the old step point, at the new one, at the extrapolated point */
    double e[MAX_S][MAX_S + EXTRA];
    double sigma;                           /* the extrapolated point: t0 + sigma h */
    double am[MAX_S + 2];                   /* its position from Z, h v_old, h v_new */
} gauss_coefficients;

static const gauss_coefficients gauss2 = {
    .s = 2,
    .c = {0.21132486540518711775, 0.78867513459481288225},
    .b = {0.5, 0.5},
    .bc = {0.39433756729740644113, 0.10566243270259355887},
    .aa = {{0.41666666666666666667e-1, -0.19337567297406441127e-1},
           {0.26933756729740644113e+0, 0.41666666666666666667e-1}},
    .e = {{-0.28457905077110526160e-02, -0.63850024471784160410e-01, 0.48526095198694517563e-02,
           0.11305688530429939012e+00, -0.28884580475413403312e-01},
          {0.41122751744511433137e-01, -0.18654814888622834132e+00, -0.18110185277445209332e-01,
           0.36674109449368040786e+00, 0.10779872188955481745e+00}},
    .sigma = 1.6,
    .am = {0.25279583039343438291e+02, -0.86907830393434382912e+01, -0.80640000000000000000e+00,
           0.29184000000000000000e+01},
};

static const gauss_coefficients gauss4 = {
    .s = 4,
    .c = {0.69431844202973712388e-01, 0.33000947820757186760e+00, 0.66999052179242813240e+00,
          0.93056815579702628761e+00},
    .b = {0.17392742256872692869e+00, 0.32607257743127307131e+00, 0.32607257743127307131e+00,
          0.17392742256872692869e+00},
    .bc = {0.16185132086231030665e+00, 0.21846553629538057030e+00, 0.10760704113589250101e+00,
           0.12076101706416622036e-01},
    .aa = {{0.40381914508467311298e-02, -0.32958609449446961650e-02, 0.26447829520668538006e-02,
            -0.97672296325588161023e-03},
           {0.43563580902396261254e-01, 0.13818951406296126013e-01, -0.43401341944349953440e-02,
            0.14107297391595337720e-02},
           {0.10586435263357640763e+00, 0.10651836096505307395e+00, 0.13818951406296126013e-01,
            -0.17580153590805494993e-02},
           {0.14879849619263780300e+00, 0.19847049885237718995e+00, 0.81671359795877570687e-01,
            0.40381914508467311298e-02}},
    .e = {{-0.21272768296134340207e-1, 0.11059138674756969912e-1, 0.38999255049973564023e-2,
           -0.43986226789008967612e-1, 0.13581590305438849621e-1, 0.39922421675314269059e-1,
           -0.79369058065113002021e-3},
          {-0.75671119283734809953e-02, 0.10209394000843457002e-01, -0.12880197817980892596e-01,
           -0.56381316813776501277e-01, 0.37440782682669799960e-02, 0.11522469441011273193e+00,
           0.21035877343246316334e-02},
          {-0.39890571772473709759e+00, 0.26819725655216894347e+00, -0.82551711648854471247e-01,
           -0.85516559106259630212e+00, 0.24433810515772642570e+00, 0.10234155624049009806e+01,
           0.25115745967236579242e-01},
          {-0.40964796048052939224e+00, 0.29949323098224574487e+00, -0.13867460566101912494e+00,
           -0.98859300714628940382e+00, 0.24671351779481625627e+00, 0.12912760231350872304e+01,
           0.13241134766742798418e+00}},
    .sigma = 1.65,
    .am = {0.10806374869244001787e+04, -0.66008818661284690206e+03, 0.61810154357557529566e+03,
           -0.31341427826212857229e+03, -0.10187174765625000000e+02, 0.31173050390625000000e+02},
};

static const gauss_coefficients gauss6 = {
    .s = 6,
    .c = {0.33765242898423986094e-01, 0.16939530676686774317e+00, 0.38069040695840154568e+00,
          0.61930959304159845432e+00, 0.83060469323313225683e+00, 0.96623475710157601391e+00},
    .b = {0.85662246189585172520e-01, 0.18038078652406930378e+00, 0.23395696728634552369e+00,
          0.23395696728634552369e+00, 0.18038078652406930378e+00, 0.85662246189585172520e-01},
    .bc = {0.82769839639769234611e-01, 0.14982512785597570103e+00, 0.14489179419935320895e+00,
           0.89065173086992314743e-01, 0.30555658668093602753e-01, 0.28924065498159379092e-02},
    .aa = {{0.90625420195651151857e-03, -0.72859711612531400024e-03, 0.79102695861167691135e-03,
            -0.70675390218535384182e-03, 0.45647714224056921122e-03, -0.14836147050330408643e-03},
           {0.11272367531794365387e-01, 0.39083482447840698486e-02, -0.14724868010943911900e-02,
            0.10992669056588431310e-02, -0.67689040729401428165e-03, 0.21677950347174141516e-03},
           {0.30008019623627547434e-01, 0.36978289259468146662e-01, 0.65490339168957822692e-02,
            -0.16615098173008262274e-02, 0.84753461862041607649e-03, -0.25877462623437421721e-03},
           {0.49900269650650898941e-01, 0.82003427445271620462e-01, 0.54165111295060067982e-01,
            0.65490339168957822692e-02, -0.11352871017627472322e-02, 0.28963081055952389031e-03},
           {0.68475836671617248304e-01, 0.11859257878058808400e+00, 0.10635984886129551097e+00,
            0.47961474042181382443e-01, 0.39083482447840698486e-02, -0.34600839001342442657e-03},
           {0.79729071619449992615e-01, 0.14419100392702230613e+00, 0.13628542646896576408e+00,
            0.81956586217401900627e-01, 0.23736460480774324642e-01, 0.90625420195651151857e-03}},
    .e = {{-0.16761132335280609813e-01, 0.10201050166615899799e-01, -0.58593121685075943100e-02,
           -0.11907383391366998251e-03, 0.10615611118132982241e-01, -0.30692054230989138447e-01,
           0.10615182045216224925e-01, 0.22586707045496892369e-01, -0.16931992776201068110e-04},
          {0.10671755276327262128e-01, -0.51098203653251450913e-02, 0.16062647299186369205e-03,
           0.64818802653621866868e-02, -0.12132386914873895089e-01, -0.99709737725909584834e-02,
           -0.70287093442894942752e-02, 0.31243249755879001843e-01, 0.31763603839792897936e-04},
          {-0.40875203230945019464e+00, 0.28214948905763253599e+00, -0.22612660499718519054e+00,
           0.13640993962985420478e+00, 0.15888529591697266925e+00, -0.11667863471317749710e+01,
           0.25224964119340060668e+00, 0.10440940643938620983e+01, 0.33914722176493324285e-03},
          {-0.29437531285359759661e+01, 0.20017220470127690267e+01, -0.15383035791443948798e+01,
           0.78114323215109899716e+00, 0.13930345104184182146e+01, -0.75958281612589849630e+01,
           0.18220129530415584951e+01, 0.62663163493155487560e+01, 0.54279630166374655267e-02},
          {-0.79572842006457093076e+01, 0.53527892762707449170e+01, -0.40049139768467199697e+01,
           0.18326058141135591515e+01, 0.39753886181058367500e+01, -0.19423696478604790213e+02,
           0.49362128400107292627e+01, 0.15601708062381928560e+02, 0.32142123424873719685e-01},
          {-0.78463118056075171475e+01, 0.53580869574441241664e+01, -0.41476905275607763365e+01,
           0.21275912797813913113e+01, 0.37642416878253538582e+01, -0.20329681631523484613e+02,
           0.48515418060343387549e+01, 0.16604467346259915039e+02, 0.84559690262225766975e-01}},
    .sigma = 1.75,
    .am = {0.58080578375796358720e+05, -0.33214989339522861968e+05, 0.28376088288312020853e+05,
           -0.27923430684614999462e+05, 0.29743005589491042677e+05, -0.15525927919158826444e+05,
           -0.27700591278076171875e+03, 0.73086943817138671875e+03},
};

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
