/*
 * workbench/groups/rn.h -- R^n under addition (header-only): q = xi = the
 * n-vector, exp = cay = the identity map, dexp = dcay = id, ad = 0,
 * Ad = id.  The abelian factor of products (positions next to
 * orientations) and the flat case where a Lie-group method must reduce to
 * its vector-space form.
 */
#ifndef WORKBENCH_GROUPS_RN_H
#define WORKBENCH_GROUPS_RN_H

#include <string.h>

static inline void wb_rn_copy(int n, const double *x, double *out)
{
    if (out != x)
        memmove(out, x, (size_t)n * sizeof(double));
}

static inline void wb_rn_zero(int n, double *out)
{
    memset(out, 0, (size_t)n * sizeof(double));
}

static inline void wb_rn_compose(int n, const double *a, const double *b, double *ab)
{
    for (int i = 0; i < n; i++)
        ab[i] = a[i] + b[i];
}

static inline void wb_rn_inverse(int n, const double *a, double *inverse)
{
    for (int i = 0; i < n; i++)
        inverse[i] = -a[i];
}

#endif
