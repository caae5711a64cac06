/* The corrected start's coefficients (see corrected_start.h). */
#include "corrected_start.h"

#include <math.h>

/* The Lagrange basis polynomial l_j of the nodes c (degree s - 1), its
 * monomial coefficients into l[0 .. s). */
static void lagrange_coefficients(int st, const double *c, int j, double *l)
{
    double denominator = 1.0;
    for (int k = 0; k < st; k++)
        l[k] = k == 0;
    for (int m = 0, degree = 0; m < st; m++) {
        if (m == j)
            continue;
        for (int k = ++degree; k >= 0; k--) /* l <- l (t - c_m) */
            l[k] = (k > 0 ? l[k - 1] : 0.0) - c[m] * l[k];
        denominator *= c[j] - c[m];
    }
    for (int k = 0; k < st; k++)
        l[k] /= denominator;
}

/* int_0^t (t - tau) l(tau) dtau and int_0^t l for l of degree st - 1 */
static double twice_integrated(int st, const double *l, double t)
{
    double sum = 0.0;
    for (int k = st - 1; k >= 0; k--)
        sum = sum * t + l[k] / ((k + 1.0) * (k + 2.0));
    return sum * t * t;
}

static double integrated(int st, const double *l, double t)
{
    double sum = 0.0;
    for (int k = st - 1; k >= 0; k--)
        sum = sum * t + l[k] / (k + 1.0);
    return sum * t;
}

/* The derivation.  The last step's forces f_j = f(Q_j), f(q_last), f(q0)
 * and f(x), x on the polynomial u with u(t_last) = q_last, u'(t_last) =
 * v_last and u'' interpolating the f_j at the nodes,
 *   x = u(t_last + sigma h) = q_last + sigma h v_last + h^2 sum_j W_j(sigma) f_j,
 *   W_j(t) = int_0^t (t - tau) l_j(tau) dtau,
 * are all forces along the last step's solution; the start
 * Z_i = h c_i v0 + h^2 sum_m CE_im F_m should match the new stages
 * Z_i = h c_i v0 + h^2 sum_k AA_ik f(q0 + Z_k).  On the test equations
 * y'' = lambda y + g(t) (g a polynomial), whose error terms lambda^p g^(q)
 * carry h^(2 p + q), every term of weight up to s + 1 vanishes: with
 * lambda = 0, the weights integrate polynomials of degree s + 1 exactly
 * (s + 2 conditions), and one condition of order lambda^1 (the others up
 * to weight s + 1 then hold too: checked for Gauss 2, 4, 6 in
 * tests/unit/corrected_start_test.c).  These s + 3 conditions determine
 * the s + 3 weights of each row: for Gauss 2, 4, 6 with gni_irk2's sigma
 * (1.6, 1.65, 1.75) they are its published coefficients (to 1e-13, the
 * same test).  The start then misses the new stages by O(h^(s+4)) (s + 2
 * orders below Z ~ h v0; measured in that test), where the extrapolated
 * stage forces alone miss by O(h^(s+2)).  sigma is the one free choice:
 * the published one for 2, 4, 6 stages, 1.6 .. 1.75 between and beyond
 * (stage_solver.c).  A point that is a node (0 and 1 for Lobatto, 1 for
 * Radau IIA) is taken once, its column left 0, and one polynomial degree
 * fewer asked: the same construction with s + 2 points, order s + 3
 * (Radau IIA); with 0 and 1 both nodes (Lobatto) it would gain nothing
 * over the extrapolation and is refused. */
int corrected_start_coefficients(const wb_host *host, int st, const double *c, const double *a,
                                 const double *b, const double *AA, const double *wq,
                                 const double *bp, double sigma, double *CE, double *CW)
{
    enum { MAX_STAGES = 16, MAX_COLUMNS = MAX_STAGES + CORRECTED_POINTS };
    const int columns = st + CORRECTED_POINTS;
    if (st > MAX_STAGES)
        return 0;
    /* collocation: a_ik = int_0^c_i l_k, b_k = int_0^1 l_k; W_j(sigma) */
    double l[MAX_STAGES], W_sigma[MAX_STAGES];
    for (int k = 0; k < st; k++) {
        for (int m = 0; m < k; m++)
            if (fabs(c[k] - c[m]) < 1e-10)
                return 0;
        lagrange_coefficients(st, c, k, l);
        if (fabs(integrated(st, l, 1.0) - b[k]) > 1e-10)
            return 0;
        for (int i = 0; i < st; i++)
            if (fabs(integrated(st, l, c[i]) - a[i * st + k]) > 1e-10)
                return 0;
        W_sigma[k] = twice_integrated(st, l, sigma);
    }
    /* the points: the nodes, then 0, 1, sigma unless one is a node already
     * (its column then stays 0 and one condition fewer is asked) */
    double point[MAX_COLUMNS];
    int used[MAX_COLUMNS], unknowns = 0;
    const double extra[CORRECTED_POINTS] = {0.0, 1.0, sigma};
    for (int m = 0; m < columns; m++) {
        point[m] = m < st ? c[m] : extra[m - st];
        used[m] = 1;
        for (int k = 0; k < m && used[m]; k++)
            used[m] = fabs(point[m] - point[k]) >= 1e-10;
        unknowns += used[m];
    }
    /* The conditions, on y'' = lambda y + g(t), g a polynomial, whose
     * terms lambda^p g^(q) weigh h^(2p+q): the start errs only in terms of
     * weight above unknowns - 2 (s + 1 for Gauss).  Up to that weight
     * they are g alone (lambda^0: the forces' interpolation exact for
     * degree unknowns - 2) and one independent lambda^1 condition, here
     * g = (t - 1/2)^(unknowns - 4) from q0 = v0 = 0 (the rest follow).
     * The equations' columns are the used points, the right-hand sides
     * one per stage row i. */
    double S[MAX_COLUMNS * MAX_COLUMNS], rhs[MAX_STAGES * MAX_COLUMNS];
    int pivots[MAX_COLUMNS];
    double g_nodes[MAX_STAGES], g_new[MAX_STAGES];
    for (int r = 0; r < unknowns; r++) {
        const int lambda1 = r == unknowns - 1, q = lambda1 ? unknowns - 4 : r;
        for (int k = 0; k < st; k++) {
            g_nodes[k] = q >= 0 ? pow(c[k] - 0.5, q) : 0.0;
            g_new[k] = q >= 0 ? pow(c[k] + 0.5, q) : 0.0;
        }
        if (!lambda1) {
            for (int m = 0, col = 0; m < columns; m++)
                if (used[m])
                    S[r * unknowns + col++] = pow(point[m] - 0.5, q);
            for (int i = 0; i < st; i++) {
                double sum = 0.0;
                for (int k = 0; k < st; k++)
                    sum += AA[i * st + k] * g_new[k];
                rhs[i * unknowns + r] = sum;
            }
            continue;
        }
        /* lambda^1: the forces lambda (stage, q1, point beyond) at their
         * lambda^0 values, against AA lambda Q_new */
        double q1 = 0.0, v1 = 0.0, beyond = 0.0, stage[MAX_STAGES], stage_new[MAX_STAGES];
        for (int k = 0; k < st; k++) {
            q1 += wq[k] * g_nodes[k], v1 += bp[k] * g_nodes[k];
            beyond += W_sigma[k] * g_nodes[k];
            stage[k] = 0.0;
            for (int j = 0; j < st; j++)
                stage[k] += AA[k * st + j] * g_nodes[j];
        }
        for (int k = 0; k < st; k++) {
            stage_new[k] = q1 + c[k] * v1;
            for (int j = 0; j < st; j++)
                stage_new[k] += AA[k * st + j] * g_new[j];
        }
        for (int m = 0, col = 0; m < columns; m++)
            if (used[m])
                S[r * unknowns + col++] = m < st ? stage[m] : m == st ? 0.0 : m == st + 1 ? q1 : beyond;
        for (int i = 0; i < st; i++) {
            double sum = 0.0;
            for (int k = 0; k < st; k++)
                sum += AA[i * st + k] * stage_new[k];
            rhs[i * unknowns + r] = sum;
        }
    }
    /* both step points nodes (Lobatto): the point beyond alone is new, and
     * the start's order stays the extrapolation's (s + 2, measured) at two
     * more evaluations a step: no corrected start */
    if (unknowns < st + 2 || unknowns < 4 || host->dense_solve(host, unknowns, st, S, pivots, rhs) != WB_OK)
        return 0;
    for (int i = 0; i < st; i++)
        for (int m = 0, col = 0; m < columns; m++)
            CE[i * columns + m] = used[m] ? rhs[i * unknowns + col++] : 0.0;
    /* the point beyond on u (u'' interpolating the forces at the nodes):
     * u(t_last + sigma h) = q_last + sigma h v_last + h^2 sum_j W_j(sigma) f_j,
     * with q_last = q0 - h v_last - h^2 sum_j (b^T a2)_j f_j and
     * v_last = v0 - h sum_j b2_j f_j (the update just made) */
    for (int j = 0; j < st; j++)
        CW[j] = W_sigma[j] - wq[j] - (sigma - 1.0) * bp[j];
    return 1;
}

