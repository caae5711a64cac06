/*
 * workbench/groups/group.h -- Lie groups for models, header-only: SO(3),
 * SE(2), SE(3), R^n and direct products of up to eight of them, with
 * every function wb.lie_group/1 asks for (workbench/model.h), in its
 * conventions (right trivialisation, the algebra and its dual identified
 * with R^nv through the dot product).  No allocation, libm only.
 *
 *   wb_group g;
 *   wb_group_init(&g);
 *   wb_group_add(&g, WB_GROUP_SO3, 0);      // a body's orientation
 *   wb_group_add(&g, WB_GROUP_RN, 2);       // and its position in a plane
 *   // g.nq == 11 numbers per element, g.nv == 5 algebra coordinates
 *
 * A product's element is its factors' elements one after another (each
 * factor's own representation: see so3.h, se2.h, se3.h, rn.h), and so is
 * an algebra element.  Outputs may not alias inputs unless a function says
 * so.  workbench/groups/lie_group_ext.h writes a model's wb.lie_group/1
 * from a wb_group.
 */
#ifndef WORKBENCH_GROUPS_GROUP_H
#define WORKBENCH_GROUPS_GROUP_H

#include "rn.h"
#include "se2.h"
#include "se3.h"
#include "so3.h"

enum { WB_GROUP_RN = 1, WB_GROUP_SO3 = 2, WB_GROUP_SE2 = 3, WB_GROUP_SE3 = 4 };

#define WB_GROUP_MAX_FACTORS 8

typedef struct wb_group_factor {
    int kind;           /* WB_GROUP_*                                    */
    int n;              /* the dimension of R^n, 0 for the others        */
    int q_offset, nq;   /* where its element lives in q, and its size    */
    int v_offset, nv;   /* where its algebra coordinates live in xi      */
} wb_group_factor;

typedef struct wb_group {
    int n_factors;
    int nq, nv;
    wb_group_factor factors[WB_GROUP_MAX_FACTORS];
} wb_group;

static inline void wb_group_init(wb_group *g)
{
    memset(g, 0, sizeof *g);
}

/* Append a factor (n: the dimension of R^n; ignored for the others).
 * 0, or -1 for a full product, an unknown kind or n < 1 for R^n. */
static inline int wb_group_add(wb_group *g, int kind, int n)
{
    static const int sizes[][2] = {{0, 0}, {0, 0}, {9, 3}, {6, 3}, {12, 6}};
    if (g->n_factors >= WB_GROUP_MAX_FACTORS || kind < WB_GROUP_RN || kind > WB_GROUP_SE3 ||
        (kind == WB_GROUP_RN && n < 1))
        return -1;
    wb_group_factor *f = &g->factors[g->n_factors++];
    f->kind = kind;
    f->n = kind == WB_GROUP_RN ? n : 0;
    f->nq = kind == WB_GROUP_RN ? n : sizes[kind][0];
    f->nv = kind == WB_GROUP_RN ? n : sizes[kind][1];
    f->q_offset = g->nq, f->v_offset = g->nv;
    g->nq += f->nq, g->nv += f->nv;
    return 0;
}

/* ---- elements -------------------------------------------------------------------- */

static inline void wb_group_identity(const wb_group *g, double *e)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        double *x = e + f->q_offset;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_zero(f->n, x); break;
        case WB_GROUP_SO3: wb_so3_identity(x); break;
        case WB_GROUP_SE2: wb_se2_identity(x); break;
        case WB_GROUP_SE3: wb_se3_identity(x); break;
        }
    }
}

static inline void wb_group_compose(const wb_group *g, const double *a, const double *b,
                                    double *ab)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const int o = f->q_offset;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_compose(f->n, a + o, b + o, ab + o); break;
        case WB_GROUP_SO3: wb_so3_compose(a + o, b + o, ab + o); break;
        case WB_GROUP_SE2: wb_se2_compose(a + o, b + o, ab + o); break;
        case WB_GROUP_SE3: wb_se3_compose(a + o, b + o, ab + o); break;
        }
    }
}

static inline void wb_group_inverse(const wb_group *g, const double *a, double *inverse)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const int o = f->q_offset;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_inverse(f->n, a + o, inverse + o); break;
        case WB_GROUP_SO3: wb_so3_inverse(a + o, inverse + o); break;
        case WB_GROUP_SE2: wb_se2_inverse(a + o, inverse + o); break;
        case WB_GROUP_SE3: wb_se3_inverse(a + o, inverse + o); break;
        }
    }
}

/* How far q is from the group: the worst factor (a NaN is kept). */
static inline double wb_group_residual(const wb_group *g, const double *q)
{
    double worst = 0.0;
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const double *x = q + f->q_offset;
        double r = 0.0;
        switch (f->kind) {
        case WB_GROUP_RN:
            for (int i = 0; i < f->n; i++)
                if (isnan(x[i]))
                    r = NAN;
            break;
        case WB_GROUP_SO3: r = wb_so3_residual(x); break;
        case WB_GROUP_SE2: r = wb_se2_residual(x); break;
        case WB_GROUP_SE3: r = wb_se3_residual(x); break;
        }
        if (isnan(r) || r > worst)
            worst = r;
    }
    return worst;
}

/* ---- maps from the algebra to the group ---------------------------------------------- */

static inline void wb_group_exp(const wb_group *g, const double *xi, double *q)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const double *x = xi + f->v_offset;
        double *out = q + f->q_offset;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_copy(f->n, x, out); break;
        case WB_GROUP_SO3: wb_so3_exp(x, out); break;
        case WB_GROUP_SE2: wb_se2_exp(x, out); break;
        case WB_GROUP_SE3: wb_se3_exp(x, out); break;
        }
    }
}

static inline void wb_group_log(const wb_group *g, const double *q, double *xi)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const double *x = q + f->q_offset;
        double *out = xi + f->v_offset;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_copy(f->n, x, out); break;
        case WB_GROUP_SO3: wb_so3_log(x, out); break;
        case WB_GROUP_SE2: wb_se2_log(x, out); break;
        case WB_GROUP_SE3: wb_se3_log(x, out); break;
        }
    }
}

static inline void wb_group_cay(const wb_group *g, const double *xi, double *q)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const double *x = xi + f->v_offset;
        double *out = q + f->q_offset;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_copy(f->n, x, out); break;
        case WB_GROUP_SO3: wb_so3_cay(x, out); break;
        case WB_GROUP_SE2: wb_se2_cay(x, out); break;
        case WB_GROUP_SE3: wb_se3_cay(x, out); break;
        }
    }
}

/* ---- linear maps of the algebra, factor by factor ---------------------------------------
 * Each is a table of one function per kind (R^n: the identity or zero,
 * by the map's nature); wb_group_apply runs it on every factor. */

typedef void (*wb_group_kind_map)(const double *x, const double *v, double *out);

typedef struct wb_group_map {
    int rn_identity;                 /* R^n: 1 the identity, 0 the zero map */
    wb_group_kind_map so3, se2, se3;
} wb_group_map;

/* out = map(x, v); x is an algebra element or (the Ad family) a group
 * element, as the map takes it. */
static inline void wb_group_apply(const wb_group *g, const wb_group_map *map, int x_in_group,
                                  const double *x, const double *v, double *out)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const double *xk = x + (x_in_group ? f->q_offset : f->v_offset);
        const double *vk = v + f->v_offset;
        double *ok = out + f->v_offset;
        switch (f->kind) {
        case WB_GROUP_RN:
            if (map->rn_identity)
                wb_rn_copy(f->n, vk, ok);
            else
                wb_rn_zero(f->n, ok);
            break;
        case WB_GROUP_SO3: map->so3(xk, vk, ok); break;
        case WB_GROUP_SE2: map->se2(xk, vk, ok); break;
        case WB_GROUP_SE3: map->se3(xk, vk, ok); break;
        }
    }
}

#define WB_GROUP_ALGEBRA_MAP(name, rn_identity, so3, se2, se3)                             \
    static inline void wb_group_##name(const wb_group *g, const double *x, const double *v, \
                                       double *out)                                         \
    {                                                                                       \
        static const wb_group_map map = {rn_identity, so3, se2, se3};                       \
        wb_group_apply(g, &map, 0, x, v, out);                                              \
    }

WB_GROUP_ALGEBRA_MAP(dexp, 1, wb_so3_dexp, wb_se2_dexp, wb_se3_dexp)
WB_GROUP_ALGEBRA_MAP(dexpinv, 1, wb_so3_dexpinv, wb_se2_dexpinv, wb_se3_dexpinv)
WB_GROUP_ALGEBRA_MAP(dexp_star, 1, wb_so3_dexp_star, wb_se2_dexp_star, wb_se3_dexp_star)
WB_GROUP_ALGEBRA_MAP(dexpinv_star, 1, wb_so3_dexpinv_star, wb_se2_dexpinv_star,
                     wb_se3_dexpinv_star)
WB_GROUP_ALGEBRA_MAP(ad, 0, wb_so3_ad, wb_se2_ad, wb_se3_ad)
WB_GROUP_ALGEBRA_MAP(ad_star, 0, wb_so3_ad_star, wb_se2_ad_star, wb_se3_ad_star)
WB_GROUP_ALGEBRA_MAP(dcay, 1, wb_so3_dcay, wb_se2_dcay, wb_se3_dcay)
WB_GROUP_ALGEBRA_MAP(dcayinv, 1, wb_so3_dcayinv, wb_se2_dcayinv, wb_se3_dcayinv)
WB_GROUP_ALGEBRA_MAP(dcay_star, 1, wb_so3_dcay_star, wb_se2_dcay_star, wb_se3_dcay_star)
WB_GROUP_ALGEBRA_MAP(dcayinv_star, 1, wb_so3_dcayinv_star, wb_se2_dcayinv_star,
                     wb_se3_dcayinv_star)

#undef WB_GROUP_ALGEBRA_MAP

static inline void wb_group_Ad(const wb_group *g, const double *q, const double *x, double *out)
{
    static const wb_group_map map = {1, wb_so3_Ad, wb_se2_Ad, wb_se3_Ad};
    wb_group_apply(g, &map, 1, q, x, out);
}

static inline void wb_group_Ad_star(const wb_group *g, const double *q, const double *mu,
                                    double *out)
{
    static const wb_group_map map = {1, wb_so3_Ad_star, wb_se2_Ad_star, wb_se3_Ad_star};
    wb_group_apply(g, &map, 1, q, mu, out);
}

/* D_xi[dcayinv_xi v] w (bilinear in v and w; 0 on R^n) */
static inline void wb_group_dcayinv_derivative(const wb_group *g, const double *xi,
                                               const double *v, const double *w, double *out)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const int o = f->v_offset;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_zero(f->n, out + o); break;
        case WB_GROUP_SO3: wb_so3_dcayinv_derivative(xi + o, v + o, w + o, out + o); break;
        case WB_GROUP_SE2: wb_se2_dcayinv_derivative(xi + o, v + o, w + o, out + o); break;
        case WB_GROUP_SE3: wb_se3_dcayinv_derivative(xi + o, v + o, w + o, out + o); break;
        }
    }
}

#endif
