/* The model view of a Lie-group model: the group's functions (the model's
 * own, or the host's transposes and inverses of them), its dynamics on
 * T*G from wb.lie_hamiltonian/1 or wb.lie_lagrangian/1, and the
 * Lagrangian's derivatives with finite differences along the group. */
#include "host/host.h"
#include "run/model_view_internal.h"
#include "wb_fd.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A linear map of the algebra at xi, bound to its context. */
typedef void (*algebra_map)(void *ctx, const double *xi, const double *v, double *out);

/* out_j = <mu, map(xi, e_j)>: the transpose of the map, nv calls; work
 * holds 2 nv. */
static void transpose_apply(int n, algebra_map map, void *ctx, const double *xi,
                            const double *mu, double *work, double *out)
{
    double *basis = work, *column = work + n;
    memset(basis, 0, (size_t)n * sizeof(double));
    for (int j = 0; j < n; j++) {
        basis[j] = 1.0;
        map(ctx, xi, basis, column);
        basis[j] = 0.0;
        out[j] = vec_dot(n, mu, column);
    }
}

#define VIEW_OF(ctx) (&((fallback_slot *)(ctx))->owner->view)
#define SCRATCH_OF(ctx) (((fallback_slot *)(ctx))->scratch)

static void fb_dexp_star(void *ctx, const double *xi, const double *mu, double *out)
{
    const wb_model *m = VIEW_OF(ctx);
    transpose_apply(m->nv, m->lie_dexp.fn, m->lie_dexp.ctx, xi, mu, SCRATCH_OF(ctx), out);
}

static void fb_dexpinv_star(void *ctx, const double *xi, const double *mu, double *out)
{
    const wb_model *m = VIEW_OF(ctx);
    transpose_apply(m->nv, m->lie_dexpinv.fn, m->lie_dexpinv.ctx, xi, mu, SCRATCH_OF(ctx),
                    out);
}

static void fb_dcay_star(void *ctx, const double *xi, const double *mu, double *out)
{
    const wb_model *m = VIEW_OF(ctx);
    transpose_apply(m->nv, m->lie_dcay.fn, m->lie_dcay.ctx, xi, mu, SCRATCH_OF(ctx), out);
}

static void fb_dcayinv_star(void *ctx, const double *xi, const double *mu, double *out)
{
    const wb_model *m = VIEW_OF(ctx);
    transpose_apply(m->nv, m->lie_dcayinv.fn, m->lie_dcayinv.ctx, xi, mu, SCRATCH_OF(ctx),
                    out);
}

/* dcay_xi v = (dcayinv_xi)^-1 v: the matrix of dcayinv, one LU solve.  A
 * singular dcayinv (cay's own singularity) gives NaN, never a silent value. */
static void fb_dcay(void *ctx, const double *xi, const double *v, double *out)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    const int n = m->nv;
    double *basis = s->scratch, *column = basis + n, *D = column + n;
    memset(basis, 0, (size_t)n * sizeof(double));
    for (int j = 0; j < n; j++) {
        basis[j] = 1.0;
        wb_lie_dcayinv(m, xi, basis, column);
        basis[j] = 0.0;
        for (int i = 0; i < n; i++)
            D[i * n + j] = column[i];
    }
    vec_copy(n, v, out);
    if (linalg_dense_solve(host_services(), n, 1, D, s->pivots, out) != WB_OK)
        for (int i = 0; i < n; i++)
            out[i] = NAN;
}

/* <out, w> = <mu, D_xi[dcayinv_xi v] w>: the transpose in w. */
static void fb_dcayinv_derivative_star(void *ctx, const double *xi, const double *v,
                                       const double *mu, double *out)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    const int n = m->nv;
    double *basis = s->scratch, *column = basis + n;
    memset(basis, 0, (size_t)n * sizeof(double));
    for (int j = 0; j < n; j++) {
        basis[j] = 1.0;
        wb_lie_dcayinv_derivative(m, xi, v, basis, column);
        basis[j] = 0.0;
        out[j] = vec_dot(n, mu, column);
    }
}

/* ---- the group's functions --------------------------------------------------------- */

static int check_required_group_functions(const model_instance *mi)
{
    const wb_lie_group_ext *g = mi->ext.lie_group;
    if (!g->identity || !g->compose || !g->inverse || !g->exp || !g->dexp || !g->dexpinv ||
        !g->ad || !g->ad_star || !g->Ad || !g->Ad_star) {
        host_error("model '%s': extension %s must provide identity, compose, inverse, exp, "
                   "dexp, dexpinv, ad, ad_star, Ad and Ad_star", mi->view.name,
                   WB_EXT_LIE_GROUP);
        return -1;
    }
    if (!g->cay != !g->dcayinv) {
        host_error("model '%s': extension %s gives %s without %s: the Cayley map needs both",
                   mi->view.name, WB_EXT_LIE_GROUP, g->cay ? "cay" : "dcayinv",
                   g->cay ? "dcayinv" : "cay");
        return -1;
    }
    return 0;
}

/* Bind the model's own function (required, or tested by the caller). */
#define OWN(member, own)                                \
    do {                                                \
        v->member.fn = (own);                           \
        v->member.ctx = mi->self;                       \
    } while (0)

static void bind_exponential(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_lie_group_ext *g = mi->ext.lie_group;
    OWN(lie_identity, g->identity);
    OWN(lie_compose, g->compose);
    OWN(lie_inverse, g->inverse);
    OWN(lie_exp, g->exp);
    OWN(lie_dexp, g->dexp);
    OWN(lie_dexpinv, g->dexpinv);
    OWN(lie_ad, g->ad);
    OWN(lie_ad_star, g->ad_star);
    OWN(lie_Ad, g->Ad);
    OWN(lie_Ad_star, g->Ad_star);
    BIND(lie_dexp_star, EXT_FN(g, wb_lie_group_ext, dexp_star), fb_dexp_star,
         SLOT_LIE_DEXP_STAR);
    BIND_HOST(lie_dexpinv_star, fb_dexpinv_star, SLOT_LIE_DEXPINV_STAR);
    if (g->log) {
        OWN(lie_log, g->log);
        v->capabilities |= WB_CAP_LIE_LOG;
    }
    double (*residual)(void *, const double *) = EXT_FN(g, wb_lie_group_ext, group_residual);
    if (residual) {
        OWN(lie_group_residual, residual);
        v->capabilities |= WB_CAP_GROUP_RESIDUAL;
    }
}

static void bind_cayley(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_lie_group_ext *g = mi->ext.lie_group;
    if (!g->cay)
        return;
    OWN(lie_cay, g->cay);
    OWN(lie_dcayinv, g->dcayinv);
    BIND(lie_dcay, EXT_FN(g, wb_lie_group_ext, dcay), fb_dcay, SLOT_LIE_DCAY);
    BIND_HOST(lie_dcay_star, fb_dcay_star, SLOT_LIE_DCAY_STAR);
    BIND_HOST(lie_dcayinv_star, fb_dcayinv_star, SLOT_LIE_DCAYINV_STAR);
    v->capabilities |= WB_CAP_LIE_CAYLEY;
    void (*derivative)(void *, const double *, const double *, const double *, double *) =
        EXT_FN(g, wb_lie_group_ext, dcayinv_derivative);
    if (derivative) {
        OWN(lie_dcayinv_derivative, derivative);
        BIND_HOST(lie_dcayinv_derivative_star, fb_dcayinv_derivative_star,
                  SLOT_LIE_DERIVATIVE_STAR);
        v->capabilities |= WB_CAP_LIE_CAYLEY_DERIVATIVE;
    }
}

/* ---- the Lagrangian ------------------------------------------------------------------ */

typedef struct legendre_problem {
    const wb_model *m;
    const double *g, *mu;
} legendre_problem;

static int legendre_residual(void *user, const double *xi, double *r)
{
    const legendre_problem *lp = user;
    wb_lie_momentum(lp->m, lp->g, xi, r);
    for (int i = 0; i < lp->m->nv; i++)
        r[i] -= lp->mu[i];
    return vec_all_finite(lp->m->nv, r) ? WB_OK : WB_ERR_NONFINITE;
}

static int legendre_jacobian(void *user, const double *xi, double *J)
{
    const legendre_problem *lp = user;
    wb_lie_momentum_jacobian_xi(lp->m, lp->g, xi, J);
    return WB_OK;
}

/* xi with D2 l(g, xi) = mu, by Newton from xi = 0 (always from there: the
 * answer may not depend on earlier calls).  NaN when Newton fails. */
static void fb_lie_velocity(void *ctx, const double *g, const double *mu, double *xi)
{
    fallback_slot *s = ctx;
    model_instance *mi = s->owner;
    const wb_model *m = &mi->view;
    legendre_problem lp = {m, g, mu};
    wb_newton_options opt;
    newton_defaults(host_services(), &opt);
    opt.tol = 1e-14 * fmax(1.0, vec_max_abs(m->nv, mu));
    opt.step_tol = 4 * DBL_EPSILON;
    opt.settle_update = 1;
    memset(xi, 0, (size_t)m->nv * sizeof(double));
    if (newton_solve(host_services(), mi->legendre, legendre_residual, legendre_jacobian, &lp,
                     xi, &opt, NULL, NULL) != WB_OK)
        for (int i = 0; i < m->nv; i++)
            xi[i] = NAN;
}

/* The Lagrangian's functions of g at a fixed velocity. */
typedef struct at_velocity {
    const wb_model *m;
    const double *xi;
} at_velocity;

static void momentum_of_g(void *ctx, const double *g, double *mu)
{
    const at_velocity *at = ctx;
    wb_lie_momentum(at->m, g, at->xi, mu);
}

static void force_of_g(void *ctx, const double *g, double *n)
{
    const at_velocity *at = ctx;
    wb_lie_force(at->m, g, at->xi, n);
}

static void fb_momentum_jacobian_g(void *ctx, const double *g, const double *xi, double *J)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    at_velocity at = {m, xi};
    fd_configuration_jacobian(m, 0, s->scratch, momentum_of_g, &at, m->nv, g, J);
}

static void fb_force_jacobian_g(void *ctx, const double *g, const double *xi, double *J)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    at_velocity at = {m, xi};
    fd_configuration_jacobian(m, 0, s->scratch, force_of_g, &at, m->nv, g, J);
}

/* D_xi mu by central differences of the momentum in xi. */
static void fb_momentum_jacobian_xi(void *ctx, const double *g, const double *xi, double *J)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    const int n = m->nv;
    double *shifted = s->scratch, *plus = shifted + n, *minus = plus + n;
    vec_copy(n, xi, shifted);
    for (int j = 0; j < n; j++) {
        const double h = wb_fd_step(xi[j], 0);
        shifted[j] = xi[j] + h;
        const double up = shifted[j] - xi[j];
        wb_lie_momentum(m, g, shifted, plus);
        shifted[j] = xi[j] - h;
        const double down = xi[j] - shifted[j];
        wb_lie_momentum(m, g, shifted, minus);
        shifted[j] = xi[j];
        for (int i = 0; i < n; i++)
            J[i * n + j] = (plus[i] - minus[i]) / (up + down);
    }
}

void model_instance_fd_lagrangian(model_instance *mi, int which, const double *g,
                                  const double *xi, double *J)
{
    switch (which) {
    case FD_MOMENTUM_JACOBIAN_XI:
        fb_momentum_jacobian_xi(&mi->slots[SLOT_LIE_MOMENTUM_XI], g, xi, J);
        break;
    case FD_MOMENTUM_JACOBIAN_G:
        fb_momentum_jacobian_g(&mi->slots[SLOT_LIE_MOMENTUM_G], g, xi, J);
        break;
    default:
        fb_force_jacobian_g(&mi->slots[SLOT_LIE_FORCE_G], g, xi, J);
    }
}

static int bind_lagrangian(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_lie_lagrangian_ext *e = mi->ext.lie_lagrangian;
    if (!EXT_FN(e, wb_lie_lagrangian_ext, lagrangian) ||
        !EXT_FN(e, wb_lie_lagrangian_ext, momentum) || !EXT_FN(e, wb_lie_lagrangian_ext, force)) {
        host_error("model '%s': extension %s must provide lagrangian, momentum and force",
                   v->name, WB_EXT_LIE_LAGRANGIAN);
        return -1;
    }
    OWN(lie_lagrangian, e->lagrangian);
    OWN(lie_momentum, e->momentum);
    OWN(lie_force, e->force);
    BIND(lie_momentum_jacobian_xi, EXT_FN(e, wb_lie_lagrangian_ext, momentum_jacobian_xi),
         fb_momentum_jacobian_xi, SLOT_LIE_MOMENTUM_XI);
    BIND(lie_momentum_jacobian_g, EXT_FN(e, wb_lie_lagrangian_ext, momentum_jacobian_g),
         fb_momentum_jacobian_g, SLOT_LIE_MOMENTUM_G);
    BIND(lie_force_jacobian_g, EXT_FN(e, wb_lie_lagrangian_ext, force_jacobian_g),
         fb_force_jacobian_g, SLOT_LIE_FORCE_G);
    void (*velocity)(void *, const double *, const double *, double *) =
        EXT_FN(e, wb_lie_lagrangian_ext, velocity);
    if (!velocity && !(mi->legendre = newton_create(host_services(), v->nv))) {
        host_error("model '%s': out of memory", v->name);
        return -1;
    }
    BIND(lie_velocity, velocity, fb_lie_velocity, SLOT_LIE_VELOCITY);
    /* check-model differences these whether or not the model gives them */
    mi->slot_bound[SLOT_LIE_MOMENTUM_XI] = mi->slot_bound[SLOT_LIE_MOMENTUM_G] = 1;
    mi->slot_bound[SLOT_LIE_FORCE_G] = 1;
    v->capabilities |= WB_CAP_LIE_LAGRANGIAN;
    return 0;
}

/* ---- dynamics on T*G --------------------------------------------------------------- */

/* f1 = xi(g, mu), f2 = n(g, f1) */
static void fb_lagrangian_field(void *ctx, const double *g, const double *mu, double *f1,
                                double *f2)
{
    const wb_model *m = VIEW_OF(ctx);
    wb_lie_velocity(m, g, mu, f1);
    wb_lie_force(m, g, f1, f2);
}

/* E = <mu, xi> - l(g, xi) */
static double fb_lagrangian_energy(void *ctx, const double *g, const double *mu)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    double *xi = s->scratch;
    wb_lie_velocity(m, g, mu, xi);
    return vec_dot(m->nv, mu, xi) - wb_lie_lagrangian(m, g, xi);
}

static void bind_dynamics(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_lie_hamiltonian_ext *h = mi->ext.lie_hamiltonian;
    if (h) {
        OWN(lie_vector_field, h->vector_field);
    } else if (mi->ext.lie_lagrangian) {
        BIND_HOST(lie_vector_field, fb_lagrangian_field, SLOT_LIE_FIELD);
        BIND_HOST(energy, fb_lagrangian_energy, SLOT_ENERGY); /* unless the model has its own */
    } else {
        return;
    }
    v->capabilities |= WB_CAP_LIE_DYNAMICS;
}

int bind_lie(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_lie_hamiltonian_ext *h = mi->ext.lie_hamiltonian;
    v->lie_self = mi->self;
    if (!mi->ext.lie_group)
        return 0;
    if (check_required_group_functions(mi) != 0)
        return -1;
    v->lie_group = mi->ext.lie_group;
    v->capabilities |= WB_CAP_LIE_GROUP;
    bind_exponential(mi);
    bind_cayley(mi);
    if (h) {
        if (!h->hamiltonian || !h->vector_field) {
            host_error("model '%s': extension %s must provide hamiltonian and vector_field",
                       v->name, WB_EXT_LIE_HAMILTONIAN);
            return -1;
        }
        v->lie_hamiltonian = h;
        v->capabilities |= WB_CAP_LIE_HAMILTONIAN;
    }
    if (mi->ext.lie_lagrangian && bind_lagrangian(mi) != 0)
        return -1;
    bind_dynamics(mi);
    return 0;
}

void release_lie(model_instance *mi)
{
    if (mi->legendre)
        newton_destroy(host_services(), mi->legendre);
    mi->legendre = NULL;
}
