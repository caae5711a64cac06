/* Legendre basis and Gauss quadrature tables of HBVM(k, s) (see basis.h). */
#include "basis.h"

#include <math.h>
#include <stdlib.h>

/* xi_j of Lemma 2 */
static double hbvm_xi(int j)
{
    return 0.5 / sqrt(fabs(4.0 * j * j - 1.0));
}

/* P_0(c) .. P_count-1(c) through the three-term recurrence of L_j. */
static void legendre_values(int count, double c, double *out)
{
    const double x = 2.0 * c - 1.0;
    for (int j = 0; j < count; j++) /* L_j(x) first */
        out[j] = j == 0 ? 1.0
                 : j == 1 ? x
                          : ((2.0 * j - 1.0) * x * out[j - 1] - (j - 1.0) * out[j - 2]) / j;
    for (int j = 0; j < count; j++)
        out[j] *= sqrt(2.0 * j + 1.0);
}

/* L_k(x) and L_k'(x) by the three-term recurrence. */
static void legendre_and_derivative(int k, double x, double *value, double *slope)
{
    double previous = 1.0, current = x;
    if (k == 0) {
        *value = 1.0, *slope = 0.0;
        return;
    }
    for (int j = 2; j <= k; j++) {
        const double next = ((2.0 * j - 1.0) * x * current - (j - 1.0) * previous) / j;
        previous = current;
        current = next;
    }
    *value = current;
    *slope = k * (x * current - previous) / (x * x - 1.0);
}

/* The root of L_k near x: Newton converges quadratically from the
 * classical first guess, so once the update is below 1e-10 one more lands
 * on the root to round-off. */
static double legendre_root(int k, double x)
{
    for (int iteration = 0; iteration < 100; iteration++) {
        double value, slope;
        legendre_and_derivative(k, x, &value, &slope);
        const double dx = value / slope;
        x -= dx;
        if (fabs(dx) < 1e-10) {
            legendre_and_derivative(k, x, &value, &slope);
            return x - value / slope;
        }
    }
    return x;
}

/* The k Gauss-Legendre nodes and weights on [0, 1], nodes increasing:
 * roots of L_k from the first guesses cos(pi (i + 3/4) / (k + 1/2)),
 * weights 2 / ((1 - x^2) L_k'(x)^2) halved for [0, 1], the node set exactly
 * symmetric about 1/2.  (The host's Gauss tableaux stop at 16 stages;
 * HBVM(6s, s) needs more nodes.) */
static void gauss_legendre(int k, double *c, double *b)
{
    const double pi = acos(-1.0);
    for (int i = 0; i < (k + 1) / 2; i++) {
        const double x = 2 * i + 1 == k ? 0.0 /* the middle node of an odd rule */
                                        : legendre_root(k, cos(pi * (i + 0.75) / (k + 0.5)));
        double value, slope;
        legendre_and_derivative(k, x, &value, &slope);
        c[k - 1 - i] = 0.5 + 0.5 * x, c[i] = 0.5 - 0.5 * x;
        b[k - 1 - i] = b[i] = 1.0 / ((1.0 - x * x) * slope * slope);
    }
}

/* int_0^c P_j = c for j = 0 and xi_{j+1} P_{j+1}(c) - xi_j P_{j-1}(c)
 * otherwise (from (2j+1) L_j = L'_{j+1} - L'_{j-1}); values holds
 * P_0(c) .. P_s(c). */
static double integral_to(int j, double c, const double *values)
{
    if (j == 0)
        return c;
    return hbvm_xi(j + 1) * values[j + 1] - hbvm_xi(j) * values[j - 1];
}

static void fill_X(hbvm_basis *basis)
{
    const int s = basis->s;
    for (int e = 0; e < s * s; e++)
        basis->X[e] = 0.0;
    basis->X[0] = hbvm_xi(0);
    for (int j = 1; j < s; j++) {
        basis->X[j * s + j - 1] = hbvm_xi(j);
        basis->X[(j - 1) * s + j] = -hbvm_xi(j);
    }
}

void hbvm_basis_free(hbvm_basis *basis)
{
    free(basis->I); /* the head of the one block */
    basis->I = basis->W = basis->X = basis->XW = basis->c = basis->b = NULL;
}

int hbvm_basis_init(hbvm_basis *basis, const wb_host *host, int s, int k)
{
    basis->s = s, basis->k = k;
    const size_t ks = (size_t)k * s;
    basis->I = malloc(sizeof(double) * (3 * ks + (size_t)s * s + (size_t)s + 1 + 2 * (size_t)k));
    if (!basis->I) {
        host->error(host, "hbvm: out of memory for the quadrature tables (k = %d, s = %d)", k, s);
        return WB_ERR_NOMEM;
    }
    basis->W = basis->I + ks;
    basis->XW = basis->W + ks;
    basis->X = basis->XW + ks;
    basis->c = basis->X + (size_t)s * s;
    basis->b = basis->c + k;
    double *values = basis->b + k; /* P_0 .. P_s at one node */
    gauss_legendre(k, basis->c, basis->b);
    for (int l = 0; l < k; l++) {
        legendre_values(s + 1, basis->c[l], values);
        for (int j = 0; j < s; j++) {
            basis->I[l * s + j] = integral_to(j, basis->c[l], values);
            basis->W[j * k + l] = basis->b[l] * values[j];
        }
    }
    fill_X(basis);
    for (int j = 0; j < s; j++)
        for (int l = 0; l < k; l++) {
            double sum = 0.0;
            for (int i = 0; i < s; i++)
                sum += basis->X[j * s + i] * basis->W[i * k + l];
            basis->XW[j * k + l] = sum;
        }
    return WB_OK;
}
