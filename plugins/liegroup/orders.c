/* What the methods claim for a tableau: the order of the symplectic
 * partitioned pair every variational method reduces to on an abelian
 * group, the order a cutoff r allows, and the VCG conditions. */
#include "algebra.h"
#include "liegroup.h"

#include <math.h>
#include <stdlib.h>

#define HOLDS(x) (fabs(x) <= 1e-10)

int liegroup_weights_nonzero(const wb_tableau *t, int *which)
{
    for (int i = 0; i < t->s; i++)
        if (t->b[i] == 0.0) {
            if (which)
                *which = i + 1;
            return 0;
        }
    return 1;
}

int liegroup_cutoff_order(int r)
{
    return r >= 2 && r % 2 == 0 ? r + 3 : r + 2;
}

int liegroup_default_cutoff(int p)
{
    int r = 0;
    while (r < LIEGROUP_MAX_CUTOFF && liegroup_cutoff_order(r) < p)
        r++;
    return r;
}

/* ---- bicoloured trees ----------------------------------------------------------------------
 * The order conditions of a partitioned Runge-Kutta pair (a for the
 * positions, black vertices; ahat for the momenta, white ones; weights b
 * for both): sum_i b_i Phi_i(t) = 1 / gamma(t) for every bicoloured rooted
 * tree t, with Phi_i(t) = prod over the root's children u of
 * sum_j A(u)_ij Phi_j(u), A(u) = a for a black child, ahat for a white one.
 * The trees are generated order by order as a root colour and a
 * nondecreasing list of earlier trees. */

#define PAIR_MAX_ORDER 6
#define PAIR_MAX_TREES 1300 /* 2 + 4 + 14 + 52 + 214 + 916 = 1202 up to order 6 */

typedef struct tree_table {
    int s, count;
    const double *b;
    const double *matrix[2];  /* a (black), ahat (white)                    */
    int order[PAIR_MAX_TREES];
    double gamma[PAIR_MAX_TREES];
    double *child;            /* count x s: sum_j A(t)_ij Phi_j(t)          */
    double *scratch;          /* (PAIR_MAX_ORDER + 1) x s                   */
    int failed;               /* an order condition of this order fails     */
} tree_table;

/* Add every tree of the given root colour whose children, from index
 * `first` on, have orders summing to `remaining`; phi is the product so far. */
static void grow(tree_table *T, int color, int n, int remaining, int first, const double *phi,
                 double gamma, int depth)
{
    const int s = T->s;
    if (remaining == 0) {
        if (T->count >= PAIR_MAX_TREES)
            return;
        double sum = 0.0;
        for (int i = 0; i < s; i++)
            sum += T->b[i] * phi[i];
        const double g = gamma * n;
        if (!HOLDS(sum - 1.0 / g))
            T->failed = 1;
        const int k = T->count++;
        T->order[k] = n, T->gamma[k] = g;
        double *child = T->child + (size_t)k * s;
        const double *A = T->matrix[color];
        for (int i = 0; i < s; i++) {
            double v = 0.0;
            for (int j = 0; j < s; j++)
                v += A[i * s + j] * phi[j];
            child[i] = v;
        }
        return;
    }
    /* children of lower order only: the trees of order n come after them
     * and are skipped by their order */
    const int existing = T->count;
    double *next = T->scratch + (size_t)(depth + 1) * s;
    for (int k = first; k < existing; k++) {
        if (T->order[k] > remaining)
            continue;
        const double *child = T->child + (size_t)k * s;
        for (int i = 0; i < s; i++)
            next[i] = phi[i] * child[i];
        grow(T, color, n, remaining - T->order[k], k, next, gamma * T->gamma[k], depth + 1);
    }
}

int liegroup_pair_order(const wb_tableau *t)
{
    const int s = t->s;
    if (!liegroup_weights_nonzero(t, NULL))
        return 0;
    double *ahat = malloc(sizeof(double) * (size_t)s * s);
    if (!ahat)
        return 0;
    int conjugate_is_a = 1;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) {
            ahat[i * s + j] = t->b[j] - t->b[j] * t->a[j * s + i] / t->b[i];
            if (!HOLDS(ahat[i * s + j] - t->a[i * s + j]))
                conjugate_is_a = 0;
        }
    if (conjugate_is_a) { /* a symplectic tableau: the pair is the method itself */
        free(ahat);
        return t->order_first;
    }
    tree_table *T = calloc(1, sizeof *T);
    double *child = calloc((size_t)PAIR_MAX_TREES * s + (size_t)(PAIR_MAX_ORDER + 2) * s,
                           sizeof(double));
    int order = 0;
    if (T && child) {
        T->s = s, T->b = t->b, T->matrix[0] = t->a, T->matrix[1] = ahat;
        T->child = child, T->scratch = child + (size_t)PAIR_MAX_TREES * s;
        const int limit = t->order_first < PAIR_MAX_ORDER ? t->order_first : PAIR_MAX_ORDER;
        for (int i = 0; i < s; i++)
            T->scratch[i] = 1.0;
        for (int n = 1; n <= limit && !T->failed; n++) {
            grow(T, 0, n, n - 1, 0, T->scratch, 1.0, 0);
            grow(T, 1, n, n - 1, 0, T->scratch, 1.0, 0);
            if (!T->failed)
                order = n;
        }
    }
    free(child);
    free(T);
    free(ahat);
    return order;
}

/* ---- VCG ------------------------------------------------------------------------------- */

int liegroup_is_midpoint_composition(const wb_tableau *t)
{
    const int s = t->s;
    for (int i = 0; i < s; i++)
        for (int j = 0; j < s; j++) {
            const double want = j < i ? t->b[j] : j == i ? 0.5 * t->b[i] : 0.0;
            if (!HOLDS(t->a[i * s + j] - want))
                return 0;
        }
    return 1;
}

/* Order 1: sum b = 1; 2: sum b c = 1/2; 3 (stated without proof in the
 * paper): sum b c^2 = 1/3, sum b A c = 1/6, sum b c (sum_{j<i} b_j + b_i/2)
 * = 1/3, sum b chat^2 = 1/3, sum b chat (sum_{j<i} b_j + b_i/2) = 1/3,
 * sum b^3 = 0. */
int liegroup_vcg_conditions(const wb_tableau *t)
{
    const int s = t->s;
    double sb = 0, sbc = 0, sbc2 = 0, sbac = 0, scg = 0, sbch2 = 0, shg = 0, sb3 = 0, before = 0;
    for (int i = 0; i < s; i++) {
        const double b = t->b[i], c = t->c[i];
        double ac = 0, chat = 0;
        for (int j = 0; j < s; j++) {
            ac += t->a[i * s + j] * t->c[j];
            chat += b != 0.0 ? t->b[j] - t->b[j] * t->a[j * s + i] / b : 0.0;
        }
        const double cg = before + 0.5 * b;
        sb += b, sbc += b * c, sbc2 += b * c * c, sbac += b * ac;
        scg += b * c * cg, sbch2 += b * chat * chat, shg += b * chat * cg, sb3 += b * b * b;
        before += b;
    }
    if (!HOLDS(sb - 1))
        return 0;
    if (!HOLDS(sbc - 0.5))
        return 1;
    if (!liegroup_weights_nonzero(t, NULL) || !HOLDS(sbc2 - 1.0 / 3) || !HOLDS(sbac - 1.0 / 6) ||
        !HOLDS(scg - 1.0 / 3) || !HOLDS(sbch2 - 1.0 / 3) || !HOLDS(shg - 1.0 / 3) || !HOLDS(sb3))
        return 2;
    return 3;
}
