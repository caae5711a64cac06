/* The order bookkeeping of plugins/liegroup/orders.c on the paper's
 * tableaux (the digest's table of section 2.6):
 *   - the VCG order conditions through order 3: met by the triple jump and
 *     Yoshida's 6th-order composition (sum b^3 = 0), not by the midpoint
 *     rule, Kutta 3, Gauss 4 or Gauss 6 (sum b^3 = 1, 0.306, 1/4, 0.131),
 *     which all meet those of order 2;
 *   - the order of the symplectic partitioned pair (a, ahat): 3 for Kutta
 *     3 (every SPRK condition of order 3 holds), 4 for RK4, 2 for Heun's
 *     method, 2 for Ralston's third-order method (its pair fails
 *     sum b chat^2 = 1/3: 11/24), the tableau's own for Gauss (ahat = a);
 *   - the cutoff: order r + 2, r + 3 for even r >= 2, and the smallest r
 *     for orders 2..8: 0, 1, 2, 2, 4, 4, 6;
 *   - the DIRK form of compositions of the midpoint rule recognised. */
#include "algebra.h"
#include "liegroup.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void expect(int got, int want, const char *what)
{
    printf("  %-4s %-60s %d (want %d)\n", got == want ? "ok" : "FAIL", what, got, want);
    failures += got != want;
}

#define MAX_S 7
typedef struct owned {
    wb_tableau t;
    double a[MAX_S * MAX_S], b[MAX_S], c[MAX_S];
} owned;

static void finish(owned *o, int s, int order)
{
    o->t.struct_size = sizeof o->t;
    o->t.s = s;
    for (int i = 0; i < s; i++) {
        o->c[i] = 0;
        for (int j = 0; j < s; j++)
            o->c[i] += o->a[i * s + j];
    }
    o->t.a = o->a, o->t.b = o->b, o->t.c = o->c;
    o->t.order = o->t.order_first = order;
    o->t.name = "test";
}

/* the DIRK form of the composition of midpoint steps with weights w */
static void composition(owned *o, int s, const double *w, int order)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < s; i++) {
        o->b[i] = w[i];
        for (int j = 0; j < i; j++)
            o->a[i * s + j] = w[j];
        o->a[i * s + i] = 0.5 * w[i];
    }
    finish(o, s, order);
}

static void explicit_tableau(owned *o, int s, const double *a, const double *b, int order)
{
    memset(o, 0, sizeof *o);
    memcpy(o->a, a, sizeof(double) * (size_t)(s * s));
    memcpy(o->b, b, sizeof(double) * (size_t)s);
    finish(o, s, order);
}

int main(void)
{
    owned mid, tj, y6, kutta3, rk4, heun, ralston3, gauss2, gauss3;
    const double one = 1.0;
    composition(&mid, 1, &one, 2);
    const double g1 = 1 / (2 - cbrt(2.0));
    const double w3[3] = {g1, 1 - 2 * g1, g1};
    composition(&tj, 3, w3, 4);
    const double y[3] = {0.78451361047755726381949763, 0.23557321335935813368479318,
                         -1.17767998417887100694641568};
    const double w7[7] = {y[0], y[1], y[2], 1 - 2 * (y[0] + y[1] + y[2]), y[2], y[1], y[0]};
    composition(&y6, 7, w7, 6);
    const double k3a[9] = {0, 0, 0, 0.5, 0, 0, -1, 2, 0}, k3b[3] = {1.0 / 6, 2.0 / 3, 1.0 / 6};
    explicit_tableau(&kutta3, 3, k3a, k3b, 3);
    const double rk4a[16] = {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0};
    const double rk4b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    explicit_tableau(&rk4, 4, rk4a, rk4b, 4);
    const double heuna[4] = {0, 0, 1, 0}, heunb[2] = {0.5, 0.5};
    explicit_tableau(&heun, 2, heuna, heunb, 2);
    /* Ralston's third-order method: sum b chat^2 = sum d^2 / b = 11/24, not 1/3 */
    const double ra[9] = {0, 0, 0, 0.5, 0, 0, 0, 0.75, 0}, rb[3] = {2.0 / 9, 1.0 / 3, 4.0 / 9};
    explicit_tableau(&ralston3, 3, ra, rb, 3);
    const double r3 = sqrt(3.0), r15 = sqrt(15.0);
    const double g2a[4] = {0.25, 0.25 - r3 / 6, 0.25 + r3 / 6, 0.25}, g2b[2] = {0.5, 0.5};
    explicit_tableau(&gauss2, 2, g2a, g2b, 4);
    const double g3a[9] = {5.0 / 36, 2.0 / 9 - r15 / 15, 5.0 / 36 - r15 / 30,
                           5.0 / 36 + r15 / 24, 2.0 / 9, 5.0 / 36 - r15 / 24,
                           5.0 / 36 + r15 / 30, 2.0 / 9 + r15 / 15, 5.0 / 36};
    const double g3b[3] = {5.0 / 18, 4.0 / 9, 5.0 / 18};
    explicit_tableau(&gauss3, 3, g3a, g3b, 6);

    expect(liegroup_vcg_conditions(&mid.t), 2, "VCG conditions: midpoint (sum b^3 = 1)");
    expect(liegroup_vcg_conditions(&kutta3.t), 2, "VCG conditions: Kutta 3 (sum b^3 = 0.306)");
    expect(liegroup_vcg_conditions(&gauss2.t), 2, "VCG conditions: Gauss 4 (sum b^3 = 1/4)");
    expect(liegroup_vcg_conditions(&gauss3.t), 2, "VCG conditions: Gauss 6 (sum b^3 = 0.131)");
    expect(liegroup_vcg_conditions(&tj.t), 3, "VCG conditions: triple jump (sum b^3 = 0)");
    expect(liegroup_vcg_conditions(&y6.t), 3, "VCG conditions: Yoshida 6 (sum b^3 = 0)");

    expect(liegroup_pair_order(&kutta3.t), 3, "pair (a, ahat) order: Kutta 3");
    expect(liegroup_pair_order(&rk4.t), 4, "pair (a, ahat) order: RK4");
    expect(liegroup_pair_order(&heun.t), 2, "pair (a, ahat) order: Heun");
    expect(liegroup_pair_order(&ralston3.t), 2, "pair (a, ahat) order: Ralston 3 (of order 3)");
    expect(liegroup_pair_order(&gauss2.t), 4, "pair (a, ahat) order: Gauss 4 (ahat = a)");
    expect(liegroup_pair_order(&gauss3.t), 6, "pair (a, ahat) order: Gauss 6 (ahat = a)");
    expect(liegroup_pair_order(&mid.t), 2, "pair (a, ahat) order: midpoint");

    const int cutoff_orders[6][2] = {{0, 2}, {1, 3}, {2, 5}, {3, 5}, {4, 7}, {5, 7}};
    for (int k = 0; k < 6; k++) {
        char what[64];
        snprintf(what, sizeof what, "cutoff r = %d allows order", cutoff_orders[k][0]);
        expect(liegroup_cutoff_order(cutoff_orders[k][0]), cutoff_orders[k][1], what);
    }
    const int defaults[7] = {0, 1, 2, 2, 4, 4, 6};
    for (int p = 2; p <= 8; p++) {
        char what[64];
        snprintf(what, sizeof what, "smallest cutoff for order %d", p);
        expect(liegroup_default_cutoff(p), defaults[p - 2], what);
    }
    expect(liegroup_is_midpoint_composition(&tj.t), 1, "the triple jump is a midpoint composition");
    expect(liegroup_is_midpoint_composition(&y6.t), 1, "Yoshida 6 is a midpoint composition");
    expect(liegroup_is_midpoint_composition(&gauss2.t), 0, "Gauss 4 is not");
    int which = 0;
    expect(liegroup_weights_nonzero(&heun.t, &which), 1, "Heun's weights are nonzero");
    const double ema[4] = {0, 0, 0.5, 0}, emb[2] = {0, 1};
    owned em;
    explicit_tableau(&em, 2, ema, emb, 2);
    expect(liegroup_weights_nonzero(&em.t, &which) == 0 && which == 1, 1,
           "the explicit midpoint rule's b_1 = 0 found");
    printf("%d failed\n", failures);
    return failures != 0;
}
