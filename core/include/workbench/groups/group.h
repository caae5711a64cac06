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
 *
 * Opposite groups: a model written LEFT-trivialised (body velocities,
 * g' = g xi; body momenta) adds its factors with wb_group_add_opposite.
 * Such a factor is G^op, the same set with a *op b = b a, and every
 * function here is G^op's in the ABI's right-trivialised conventions,
 * which on G^op are the left-trivialised ones on G:
 *   compose(a, b) = b a            identity, inverse, exp, log, cay: G's
 *   g' = xi *op g = g xi           xi is the body velocity, mu the body momentum
 *   [x, y]_op = -[x, y]            ad_op = -ad, ad*_op = -ad*
 *   Ad_op(g) = Ad(g^-1)            Ad*_op(g) = Ad*(g^-1)
 *   dexp_op(x) = dexp(-x)          d/dt exp(s) = exp(s) dexp_-s(s'), and so
 *                                  dexpinv, dexp*, dexpinv*, dcay, dcayinv,
 *                                  dcay*, dcayinv* at -x
 *   D_x[dcayinv_op(x) v] w = -D_y[dcayinv_y v] w at y = -x.
 * (g -> g^-1 is an isomorphism G^op -> G with derivative -1 at e; exp and
 * cay commute with it.)  A model's force, momentum and constraint
 * derivatives are then left-trivialised too: <n, eta> = d/de l(g exp(e
 * eta), xi).  Factors may be mixed (G1^op x G2); a group without opposite
 * factors is computed exactly as before.
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
    /* bit k: factor k is its opposite group (wb_group_add_opposite).
     * Appended, so the members above keep their offsets. */
    unsigned opposite;
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

/* Append a factor as its opposite group: the left-trivialised form (see
 * the top of this file).  0, or -1 as wb_group_add. */
static inline int wb_group_add_opposite(wb_group *g, int kind, int n)
{
    if (wb_group_add(g, kind, n) != 0)
        return -1;
    g->opposite |= 1u << (g->n_factors - 1);
    return 0;
}

static inline int wb_group_factor_is_opposite(const wb_group *g, int k)
{
    return (g->opposite >> k) & 1u;
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

/* On an opposite factor a *op b = b a. */
static inline void wb_group_compose(const wb_group *g, const double *a, const double *b,
                                    double *ab)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const int o = f->q_offset;
        const int swap = wb_group_factor_is_opposite(g, k);
        const double *x = (swap ? b : a) + o, *y = (swap ? a : b) + o;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_compose(f->n, x, y, ab + o); break;
        case WB_GROUP_SO3: wb_so3_compose(x, y, ab + o); break;
        case WB_GROUP_SE2: wb_se2_compose(x, y, ab + o); break;
        case WB_GROUP_SE3: wb_se3_compose(x, y, ab + o); break;
        }
    }
}

/* one factor's element a (at its offset) inverted into inverse */
static inline void wb_group_factor_inverse(const wb_group_factor *f, const double *a,
                                           double *inverse)
{
    switch (f->kind) {
    case WB_GROUP_RN: wb_rn_inverse(f->n, a, inverse); break;
    case WB_GROUP_SO3: wb_so3_inverse(a, inverse); break;
    case WB_GROUP_SE2: wb_se2_inverse(a, inverse); break;
    case WB_GROUP_SE3: wb_se3_inverse(a, inverse); break;
    }
}

static inline void wb_group_inverse(const wb_group *g, const double *a, double *inverse)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        wb_group_factor_inverse(f, a + f->q_offset, inverse + f->q_offset);
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

/* The largest non-R^n factor: SE(3)'s 12 numbers, 6 algebra coordinates. */
#define WB_GROUP_FACTOR_MAX_NQ 12

/* x of an opposite factor (not R^n) mapped to where G's map is taken:
 * g^-1 for the Ad family, -x for the maps of the algebra, written to
 * buffer (WB_GROUP_FACTOR_MAX_NQ). */
static inline const double *wb_group_opposite_point(const wb_group_factor *f, int x_in_group,
                                                    const double *x, double *buffer)
{
    if (x_in_group)
        wb_group_factor_inverse(f, x, buffer);
    else
        for (int i = 0; i < f->nv; i++)
            buffer[i] = -x[i];
    return buffer;
}

/* out = map(x, v); x is an algebra element or (the Ad family) a group
 * element, as the map takes it.  On an opposite factor G's map is taken at
 * g^-1 (Ad, Ad*) or at -x: the dexp and dcay families are G's at -x, and
 * ad, ad* are linear in x, so -ad(x) = ad(-x). */
static inline void wb_group_apply(const wb_group *g, const wb_group_map *map, int x_in_group,
                                  const double *x, const double *v, double *out)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const double *xk = x + (x_in_group ? f->q_offset : f->v_offset);
        const double *vk = v + f->v_offset;
        double *ok = out + f->v_offset;
        double opposite[WB_GROUP_FACTOR_MAX_NQ];
        if (f->kind != WB_GROUP_RN && wb_group_factor_is_opposite(g, k))
            xk = wb_group_opposite_point(f, x_in_group, xk, opposite);
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

/* D_xi[dcayinv_xi v] w (bilinear in v and w; 0 on R^n).  On an opposite
 * factor dcayinv_op(xi) = dcayinv(-xi), whose derivative along w is minus
 * G's at -xi. */
static inline void wb_group_dcayinv_derivative(const wb_group *g, const double *xi,
                                               const double *v, const double *w, double *out)
{
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        const int o = f->v_offset;
        const int opposite = f->kind != WB_GROUP_RN && wb_group_factor_is_opposite(g, k);
        double minus[WB_GROUP_FACTOR_MAX_NQ];
        const double *x = opposite ? wb_group_opposite_point(f, 0, xi + o, minus) : xi + o;
        switch (f->kind) {
        case WB_GROUP_RN: wb_rn_zero(f->n, out + o); break;
        case WB_GROUP_SO3: wb_so3_dcayinv_derivative(x, v + o, w + o, out + o); break;
        case WB_GROUP_SE2: wb_se2_dcayinv_derivative(x, v + o, w + o, out + o); break;
        case WB_GROUP_SE3: wb_se3_dcayinv_derivative(x, v + o, w + o, out + o); break;
        }
        if (opposite)
            for (int i = 0; i < f->nv; i++)
                out[o + i] = -out[o + i];
    }
}

#endif
