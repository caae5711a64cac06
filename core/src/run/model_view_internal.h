/* What the files that build the model view share (model_instance.c,
 * constraint_view.c, lie_view.c): the instance's layout, the fallback
 * slots and the binding macros.  Private to run/. */
#ifndef RUN_MODEL_VIEW_INTERNAL_H
#define RUN_MODEL_VIEW_INTERNAL_H

#include "run/model_instance.h"
#include "wb_sparse.h"

/* Every fallback owns a scratch region, so fallbacks may nest (an FD
 * Hessian calling an FD gradient, a multiplier calling an FD Jacobian)
 * without sharing memory. */
enum slot_id {
    SLOT_MASS_SOLVE, SLOT_GRADIENT, SLOT_HESSIAN, SLOT_KINETIC, SLOT_ENERGY,
    SLOT_JACOBIAN, SLOT_CONTRACT, SLOT_HVECTOR, SLOT_THIRD, SLOT_HIDDEN,
    SLOT_INDEX1, SLOT_NH_JV, SLOT_NH_JQ, SLOT_NH_VV, SLOT_NH_QV, SLOT_NH_MULTIPLIER,
    SLOT_VELOCITY, SLOT_LIE_DEXP_STAR, SLOT_LIE_DEXPINV_STAR, SLOT_LIE_DCAY,
    SLOT_LIE_DCAY_STAR, SLOT_LIE_DCAYINV_STAR, SLOT_LIE_DERIVATIVE_STAR,
    SLOT_LIE_FIELD, SLOT_LIE_VELOCITY, SLOT_LIE_MOMENTUM_XI, SLOT_LIE_MOMENTUM_G,
    SLOT_LIE_FORCE_G, SLOT_COUNT
};

typedef struct fallback_slot {
    model_instance *owner;
    double *scratch;   /* slot_scratch_size() doubles: fd_scratch_size(view)
                          for a finite difference, less for the host's
                          own functions, none when nothing is bound to it */
    int *pivots;       /* m + k + nq + nv + 1 ints, or NULL likewise     */
} fallback_slot;

/* wb.sparsity/1 as the view uses it (sparse_view.c): the model's
 * patterns and the host's work in them, so that the view's own functions
 * (M^-1 p for a diagonal mass, the hidden constraints, the consistent
 * multiplier) cost O(nnz) and nothing nq x nq is ever formed. */
typedef struct sparse_state {
    const wb_sparsity_ext *ext;
    double *mass;              /* nq: a constant diagonal mass, or NULL     */
    const wb_sparse_pattern *G; /* the model's pattern of G (m x nq), or NULL */
    wb_csr Gt;                 /* its transpose, Gt_origin[e] = G's entry   */
    int *Gt_origin;
    wb_csr S;                  /* G M^-1 G^T                                */
    wb_sparse_lu *S_lu;        /* its LU: the consistent multiplier is
                                  sparse when this is set                  */
    int *mark;                 /* m                                         */
    double *Gv, *Gtv, *Bv, *Sv; /* values in G's, Gt's, G's and S's patterns */
    double *hidden_G;          /* G's values for the hidden constraints     */
    double *work;              /* 9 nq: the multiplier 8, the hidden 1      */
} sparse_state;

struct model_instance {
    long refs;              /* model_instance_retain / _destroy          */
    const plugin *plugin;
    void *self;
    wb_model_info info;
    double *params;
    model_extensions ext;
    wb_model view;
    fallback_slot slots[SLOT_COUNT];
    double *arena;
    int *pivot_arena;
    double *mass_factor;    /* Cholesky factor of a constant mass matrix */
    double *invariant_work; /* the discrete gradient's scratch           */
    wb_newton *legendre;    /* Newton for the inverse Legendre transform */
    fd_levels levels;
    unsigned char slot_bound[SLOT_COUNT]; /* a host function uses the slot */
    sparse_state *sparse;   /* wb.sparsity/1, or NULL                    */
};

/* The model's own member when its struct holds it and it is set, else NULL. */
#define EXT_FN(ext, type, field) \
    (((ext) && WB_HAS_FIELD(ext, type, field)) ? (ext)->field : NULL)

/* Bind the model's own function when it has one, else the fallback with
 * its slot as context.  Expects `mi` and `v` (the view) in scope. */
#define BIND(member, own, fallback, slot)              \
    do {                                               \
        if (own) {                                     \
            v->member.fn = (own);                      \
            v->member.ctx = mi->self;                  \
        } else {                                       \
            v->member.fn = (fallback);                 \
            v->member.ctx = &mi->slots[slot];          \
            mi->slot_bound[slot] = 1;                  \
        }                                              \
    } while (0)

/* Bind the host's own function (no model member) with its slot. */
#define BIND_HOST(member, fallback, slot)              \
    do {                                               \
        v->member.fn = (fallback);                     \
        v->member.ctx = &mi->slots[slot];              \
        mi->slot_bound[slot] = 1;                      \
    } while (0)

/* The binding steps of build_view that live in their own files; each
 * returns 0, or -1 with the reason in host_last_error(). */
int bind_velocity_constraints(model_instance *mi); /* constraint_view.c */
int bind_lie(model_instance *mi);                  /* lie_view.c        */
void release_lie(model_instance *mi);
int bind_sparsity(model_instance *mi);             /* sparse_view.c     */
void release_sparsity(model_instance *mi);
/* The consistent multiplier in O(nnz) (constraint_view.c), when
 * mi->sparse->S_lu is set. */
int sparse_index1_multiplier(model_instance *mi, const double *q, const double *p,
                             double *lambda);
/* 1 / M_ii(q) of a diagonal mass (sparse_view.c). */
void sparse_inverse_mass(model_instance *mi, const double *q, double *inverse);
/* The view's functions in O(nnz) (sparse_view.c): M^-1 p for a diagonal
 * mass, G M^-1 p from G's nonzeros. */
void sparse_mass_solve(void *ctx, const double *q, const double *p, double *v);
void sparse_hidden_constraints(void *ctx, const double *q, const double *p, double *gv);

#endif
