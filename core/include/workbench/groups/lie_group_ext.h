/*
 * workbench/groups/lie_group_ext.h -- a model's wb.lie_group/1 from a
 * wb_group (workbench/groups/group.h), header-only.
 *
 *   typedef struct my_model { wb_group group; ... } my_model;
 *   static const wb_group *group_of(void *self) { return &((my_model *)self)->group; }
 *   WB_LIE_GROUP_EXTENSION(lie_group, group_of);
 *   ... {WB_EXT_LIE_GROUP, &lie_group} in the model's extension table.
 *
 * defines `static const wb_lie_group_ext lie_group` with every member set
 * (identity ... dcayinv, and dcay, dcayinv_derivative, dexp_star,
 * group_residual of ABI 1.1), each forwarding to the library through
 * group_of(self).  The forwarding functions are prefixed with the
 * extension's name, so one file may write several.  A group with
 * opposite factors (wb_group_add_opposite: a left-trivialised model)
 * gives G^op's functions through the same macro.
 */
#ifndef WORKBENCH_GROUPS_LIE_GROUP_EXT_H
#define WORKBENCH_GROUPS_LIE_GROUP_EXT_H

#include <workbench/model.h>

#include "group.h"

#define WB_LIE_GROUP_EXTENSION(NAME, GROUP_OF)                                                \
    static void NAME##_identity(void *self, double *e) { wb_group_identity(GROUP_OF(self), e); } \
    static void NAME##_compose(void *self, const double *a, const double *b, double *ab)      \
    {                                                                                         \
        wb_group_compose(GROUP_OF(self), a, b, ab);                                           \
    }                                                                                         \
    static void NAME##_inverse(void *self, const double *a, double *ainv)                     \
    {                                                                                         \
        wb_group_inverse(GROUP_OF(self), a, ainv);                                            \
    }                                                                                         \
    static void NAME##_exp(void *self, const double *xi, double *g)                           \
    {                                                                                         \
        wb_group_exp(GROUP_OF(self), xi, g);                                                  \
    }                                                                                         \
    static void NAME##_log(void *self, const double *g, double *xi)                           \
    {                                                                                         \
        wb_group_log(GROUP_OF(self), g, xi);                                                  \
    }                                                                                         \
    static void NAME##_cay(void *self, const double *xi, double *g)                           \
    {                                                                                         \
        wb_group_cay(GROUP_OF(self), xi, g);                                                  \
    }                                                                                         \
    static double NAME##_residual(void *self, const double *q)                                \
    {                                                                                         \
        return wb_group_residual(GROUP_OF(self), q);                                          \
    }                                                                                         \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, dexp)                                                \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, dexpinv)                                             \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, dexp_star)                                           \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, ad)                                                  \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, ad_star)                                             \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, Ad)                                                  \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, Ad_star)                                             \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, dcay)                                                \
    WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, dcayinv)                                             \
    static void NAME##_dcayinv_derivative(void *self, const double *xi, const double *v,      \
                                          const double *w, double *out)                       \
    {                                                                                         \
        wb_group_dcayinv_derivative(GROUP_OF(self), xi, v, w, out);                           \
    }                                                                                         \
    static const wb_lie_group_ext NAME = {                                                    \
        .struct_size = sizeof(wb_lie_group_ext),                                              \
        .identity = NAME##_identity,                                                          \
        .compose = NAME##_compose,                                                            \
        .inverse = NAME##_inverse,                                                            \
        .exp = NAME##_exp,                                                                    \
        .log = NAME##_log,                                                                    \
        .dexp = NAME##_dexp,                                                                  \
        .dexpinv = NAME##_dexpinv,                                                            \
        .ad = NAME##_ad,                                                                      \
        .ad_star = NAME##_ad_star,                                                            \
        .Ad = NAME##_Ad,                                                                      \
        .Ad_star = NAME##_Ad_star,                                                            \
        .cay = NAME##_cay,                                                                    \
        .dcayinv = NAME##_dcayinv,                                                            \
        .dcay = NAME##_dcay,                                                                  \
        .dcayinv_derivative = NAME##_dcayinv_derivative,                                      \
        .dexp_star = NAME##_dexp_star,                                                        \
        .group_residual = NAME##_residual,                                                    \
    }

/* one forwarding function for a map (x, v) -> out of the library */
#define WB_LIE_GROUP_EXT_MAP(NAME, GROUP_OF, MAP)                                             \
    static void NAME##_##MAP(void *self, const double *x, const double *v, double *out)       \
    {                                                                                         \
        wb_group_##MAP(GROUP_OF(self), x, v, out);                                            \
    }

#endif
