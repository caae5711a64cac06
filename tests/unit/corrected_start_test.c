/* rk's corrected start (plugins/rk/corrected_start.c), checked
 *   1. against the published coefficients of gni_irk2 for Gauss 2, 4, 6
 *      (bench/gni_coefficients.h; written from HLW VIII.6, independent of
 *      the derivation): the weights e of the start, and the point beyond
 *      the step (am) on the same data;
 *   2. by the order of the start, measured: on the pendulum q'' = -sin q
 *      (q0 = 1, v0 = 0.5), one converged collocation step of size h, then
 *      the start for the next step against that step's converged stages;
 *      the error's slope in log-log over four halvings of h, against the
 *      theory's s + 4 (and s + 2 for the extrapolated stage forces alone,
 *      start = "extrapolate");
 *   3. a tableau whose nodes include 1 (Radau IIA 3: order s + 3); those
 *      with 0 and 1 (Lobatto IIIA 3) and not collocation (Radau IA 3)
 *      refused. */
#include "host/host.h"
#include "host/tableau.h"
#include "test_check.h"
#include "../../bench/gni_coefficients.h"
#include "../../plugins/rk/corrected_start.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { S_MAX = 8, COLUMNS_MAX = S_MAX + CORRECTED_POINTS };

typedef struct nystrom {
    int s;
    double c[S_MAX], a[S_MAX * S_MAX], b[S_MAX], AA[S_MAX * S_MAX], wq[S_MAX], bp[S_MAX];
    double CE[S_MAX * COLUMNS_MAX], CW[S_MAX];
    double X[S_MAX * S_MAX]; /* the extrapolated start's l_j(1 + c_k) */
} nystrom;

static int nystrom_from(const wb_host *host, const wb_tableau *t, double sigma, nystrom *m)
{
    const int s = t->s;
    memset(m, 0, sizeof *m);
    m->s = s;
    memcpy(m->a, t->a, sizeof(double) * (size_t)(s * s));
    memcpy(m->b, t->b, sizeof(double) * (size_t)s);
    for (int i = 0; i < s; i++) {
        m->c[i] = 0;
        for (int j = 0; j < s; j++)
            m->c[i] += t->a[i * s + j];
        m->bp[i] = t->b[i];
    }
    for (int i = 0; i < s; i++)
        for (int k = 0; k < s; k++) {
            double sum = 0;
            for (int j = 0; j < s; j++)
                sum += t->a[i * s + j] * t->a[j * s + k];
            m->AA[i * s + k] = sum;
            m->wq[k] += t->b[i] * t->a[i * s + k];
        }
    for (int k = 0; k < s; k++)
        for (int j = 0; j < s; j++) {
            double l = 1;
            for (int r = 0; r < s; r++)
                if (r != j)
                    l *= (1 + m->c[k] - m->c[r]) / (m->c[j] - m->c[r]);
            m->X[k * s + j] = l;
        }
    return corrected_start_coefficients(host, s, m->c, m->a, m->b, m->AA, m->wq, m->bp, sigma,
                                        m->CE, m->CW);
}

/* ---- 1. the published coefficients ------------------------------------- */

static void against_published(const wb_host *host, const gauss_coefficients *k)
{
    const int s = k->s, columns = s + CORRECTED_POINTS;
    nystrom m;
    const int ok = nystrom_from(host, tableau_family("gauss", s), k->sigma, &m);
    CHECK(ok, "gauss%d: corrected start derived", s);
    if (!ok)
        return;
    double worst = 0, largest = 0;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < columns; j++) {
            worst = fmax(worst, fabs(m.CE[i * columns + j] - k->e[i][j]));
            largest = fmax(largest, fabs(k->e[i][j]));
        }
    printf("gauss%d: derived start weights against gni_irk2's e: max difference %.2e "
           "(largest weight %.2f)\n", s, worst, largest);
    CHECK(worst <= 1e-12 * largest, "gauss%d: e differs by %.3e (largest %.3f)", s, worst,
          largest);
    /* the point beyond: published x = q1 + sum am_j Z_j + am_s h v_last + am_s+1 h v1,
     * ours x = q1 + (sigma - 1) h v1 + h^2 sum CW_j f_j, on a step's data (h = 1) */
    double worst_x = 0;
    for (int trial = 0; trial < 3; trial++) {
        double f[S_MAX], v_last = 0.3 - 0.7 * trial, q1 = 0.1 + v_last, v1 = v_last;
        for (int j = 0; j < s; j++) {
            f[j] = cos(1.0 + 2.3 * j + 0.9 * trial);
            q1 += m.wq[j] * f[j], v1 += m.bp[j] * f[j];
        }
        double published = q1 + k->am[s] * v_last + k->am[s + 1] * v1,
               ours = q1 + (k->sigma - 1) * v1;
        for (int j = 0; j < s; j++) {
            double Z = m.c[j] * v_last;
            for (int l = 0; l < s; l++)
                Z += m.AA[j * s + l] * f[l];
            published += k->am[j] * Z;
            ours += m.CW[j] * f[j];
        }
        worst_x = fmax(worst_x, fabs(published - ours));
    }
    printf("gauss%d: point beyond the step against gni_irk2's am: max difference %.2e\n", s,
           worst_x);
    CHECK(worst_x <= 1e-10, "gauss%d: point beyond differs by %.3e", s, worst_x);
}

/* ---- 2. the order of the start, measured -------------------------------- */

static double force(double q) { return -sin(q); }

/* converged stages Z (fixed point to round-off) and the update */
static void collocation_step(const nystrom *m, double h, double q0, double v0, double *Z,
                             double *F, double *q1, double *v1)
{
    const int s = m->s;
    for (int i = 0; i < s; i++)
        Z[i] = m->c[i] * h * v0;
    double previous = INFINITY;
    for (int it = 0; it < 200; it++) {
        for (int i = 0; i < s; i++)
            F[i] = force(q0 + Z[i]);
        double increment = 0;
        for (int i = 0; i < s; i++) {
            double z = m->c[i] * h * v0;
            for (int k = 0; k < s; k++)
                z += h * h * m->AA[i * s + k] * F[k];
            increment = fmax(increment, fabs(z - Z[i]));
            Z[i] = z;
        }
        if (increment == 0 || (increment >= previous && increment < 1e-14))
            break;
        previous = increment;
    }
    for (int i = 0; i < s; i++)
        F[i] = force(q0 + Z[i]);
    *q1 = q0 + h * v0, *v1 = v0;
    for (int k = 0; k < s; k++)
        *q1 += h * h * m->wq[k] * F[k], *v1 += h * m->bp[k] * F[k];
}

/* max |start - converged| for the second step, corrected or extrapolated */
static double start_error(const nystrom *m, double sigma, double h, int corrected)
{
    const int s = m->s, columns = s + CORRECTED_POINTS;
    double Z[S_MAX], F[S_MAX], Z2[S_MAX], F2[S_MAX], q1, v1, q2, v2;
    const double q0 = 1.0, v0 = 0.5;
    collocation_step(m, h, q0, v0, Z, F, &q1, &v1);
    collocation_step(m, h, q1, v1, Z2, F2, &q2, &v2);
    double x = q1 + (sigma - 1) * h * v1;
    for (int j = 0; j < s; j++)
        x += h * h * m->CW[j] * F[j];
    const double f_last = force(q0), f_now = force(q1), f_beyond = force(x);
    double worst = 0;
    for (int i = 0; i < s; i++) {
        double start = m->c[i] * h * v1;
        if (corrected) {
            const double *E = m->CE + i * columns;
            start += h * h * (E[s] * f_last + E[s + 1] * f_now + E[s + 2] * f_beyond);
            for (int j = 0; j < s; j++)
                start += h * h * E[j] * F[j];
        } else {
            for (int k = 0; k < s; k++)
                for (int j = 0; j < s; j++)
                    start += h * h * m->AA[i * s + k] * m->X[k * s + j] * F[j];
        }
        worst = fmax(worst, fabs(start - Z2[i]));
    }
    return worst;
}

/* the least-squares slope of log(error) against log(h) */
static double fitted_order(const nystrom *m, double sigma, double h0, int corrected)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    const int points = 4;
    for (int k = 0; k < points; k++) {
        const double h = h0 / (1 << k), e = start_error(m, sigma, h, corrected);
        const double x = log(h), y = log(e);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    return (points * sxy - sx * sy) / (points * sxx - sx * sx);
}

static void order_of_start(const wb_host *host, const char *family, int s, double sigma,
                           double h_corrected, double h_extrapolated, double expected_corrected,
                           double expected_extrapolated)
{
    nystrom m;
    const int ok = nystrom_from(host, tableau_family(family, s), sigma, &m);
    CHECK(ok, "%s%d: corrected start derived", family, s);
    if (!ok)
        return;
    const double corrected = fitted_order(&m, sigma, h_corrected, 1),
                 extrapolated = fitted_order(&m, sigma, h_extrapolated, 0);
    printf("%s%d: order of the start: corrected %.2f (theory %.0f; h = %g .. %g, error at "
           "the smallest %.2e), extrapolated %.2f (theory %.0f; h = %g .. %g, %.2e)\n", family,
           s, corrected, expected_corrected, h_corrected, h_corrected / 8,
           start_error(&m, sigma, h_corrected / 8, 1), extrapolated, expected_extrapolated,
           h_extrapolated, h_extrapolated / 8, start_error(&m, sigma, h_extrapolated / 8, 0));
    CHECK(fabs(corrected - expected_corrected) < 0.35, "%s%d: corrected start order %.2f, "
          "expected %.0f", family, s, corrected, expected_corrected);
    CHECK(fabs(extrapolated - expected_extrapolated) < 0.35, "%s%d: extrapolated start order "
          "%.2f, expected %.0f", family, s, extrapolated, expected_extrapolated);
}

int main(void)
{
    const wb_host *host = host_services();
    against_published(host, &gauss2);
    against_published(host, &gauss4);
    against_published(host, &gauss6);
    /* h where the slope has settled (halving by halving it drifts towards
     * the theory's, within 0.1 to 0.3 from the first halving on) */
    order_of_start(host, "gauss", 2, 1.6, 0.05, 0.1, 6, 4);
    order_of_start(host, "gauss", 3, 1.625, 0.1, 0.1, 7, 5);
    order_of_start(host, "gauss", 4, 1.65, 0.4, 0.05, 8, 6);
    order_of_start(host, "gauss", 6, 1.75, 0.8, 0.2, 10, 8);
    /* one point fewer (1 is a node): s + 3 */
    order_of_start(host, "radau_iia", 3, 1.625, 0.05, 0.1, 6, 5);
    nystrom m;
    /* Lobatto (0 and 1 nodes): measured before it was refused, order s + 2
     * (4.92 for s = 3), the extrapolation's (4.98), at two evaluations more */
    CHECK(!nystrom_from(host, tableau_family("lobatto_iiia", 3), 1.625, &m),
          "lobatto_iiia3 (0 and 1 nodes): no corrected start");
    CHECK(!nystrom_from(host, tableau_family("radau_ia", 3), 1.625, &m),
          "radau_ia3 (not collocation): no corrected start");
    tableau_release_all();
    return test_summary("corrected_start_test");
}
