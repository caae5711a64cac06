/* The model view's velocity constraints: the nonholonomic functions of
 * either extension (wb.nonholonomic/1 on a vector space,
 * wb.lie_nonholonomic/1 on a group) with their finite-difference
 * fallbacks, the velocity of a state, and the consistent multipliers of
 * the index-1 formulation, holonomic and nonholonomic, from one system. */
#include "host/host.h"
#include "run/model_view_internal.h"
#include "wb_fd.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---- finite-difference fallbacks ---------------------------------------------- */

static void fb_nh_jacobian_v(void *ctx, const double *q, const double *v, double *A)
{
    fallback_slot *s = ctx;
    fd_nh_jacobian_v(&s->owner->view, s->scratch, q, v, A);
}

static void fb_nh_jacobian_q(void *ctx, const double *q, const double *v, double *B)
{
    fallback_slot *s = ctx;
    fd_nh_jacobian_q(&s->owner->view, s->scratch, q, v, B);
}

static void fb_nh_vv(void *ctx, const double *q, const double *v, const double *lam,
                     double *out)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    if (m->nonholonomic_flags & (WB_NONHOLONOMIC_LINEAR | WB_NONHOLONOMIC_AFFINE)) {
        memset(out, 0, (size_t)m->nv * m->nv * sizeof(double));
        return;
    }
    fd_nh_hessian_vv_contract(m, s->owner->levels.nh_jacobian_v, s->scratch, q, v, lam, out);
}

static void fb_nh_qv(void *ctx, const double *q, const double *v, const double *lam,
                     double *out)
{
    fallback_slot *s = ctx;
    fd_nh_hessian_qv_contract(&s->owner->view, s->owner->levels.nh_jacobian_v, s->scratch, q, v,
                              lam, out);
}

/* ---- the velocity of a state on a group --------------------------------------- */

/* f1 of the vector field; f2 goes to scratch. */
static void fb_group_velocity(void *ctx, const double *q, const double *p, double *v)
{
    fallback_slot *s = ctx;
    wb_lie_vector_field(&s->owner->view, q, p, v, s->scratch);
}

/* ---- directional derivatives of the group velocity ----------------------------
 * The consistent multiplier on a group needs D_mu f1 and the drift of f1
 * along g' = xi g.  A fourth-order central difference with step eps^(1/5)
 * leaves about eps^(4/5) ~ 3e-13 relative: enough for a multiplier that a
 * method carries from step to step. */

#define DIRECTIONAL_STEP 7.4009597974140505e-04 /* DBL_EPSILON^(1/5) */

typedef struct stencil {
    double *plus2, *plus1, *minus1, *minus2;
} stencil;

static void combine_stencil(int n, const stencil *st, double step, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (-st->plus2[i] + 8.0 * st->plus1[i] - 8.0 * st->minus1[i] + st->minus2[i]) /
                 (12.0 * step);
}

/* out = d/dt f1(q, mu + t u) at t = 0; work holds 6 nv. */
static void velocity_along_momentum(const wb_model *m, const double *q, const double *mu,
                                    const double *u, double *work, double *out)
{
    const int n = m->nv;
    double size = vec_max_abs(n, u), scale = fmax(1.0, vec_max_abs(n, mu));
    if (!(size > 0)) {
        memset(out, 0, (size_t)n * sizeof(double));
        return;
    }
    const double step = DIRECTIONAL_STEP * scale / size;
    double *shifted = work, *f2 = work + n;
    stencil st = {work + 2 * n, work + 3 * n, work + 4 * n, work + 5 * n};
    double *targets[4] = {st.plus2, st.plus1, st.minus1, st.minus2};
    const double factors[4] = {2, 1, -1, -2};
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < n; i++)
            shifted[i] = mu[i] + factors[k] * step * u[i];
        wb_lie_vector_field(m, q, shifted, targets[k], f2);
    }
    combine_stencil(n, &st, step, out);
}

/* out = d/dt f1(exp(t xi) q, mu) at t = 0; work holds 6 nv + 2 nq. */
static void velocity_along_flow(const wb_model *m, const double *q, const double *mu,
                                const double *xi, double *work, double *out)
{
    const int n = m->nv;
    double size = vec_max_abs(n, xi);
    if (!(size > 0)) {
        memset(out, 0, (size_t)n * sizeof(double));
        return;
    }
    const double step = DIRECTIONAL_STEP / size;
    double *eta = work, *f2 = work + n;
    stencil st = {work + 2 * n, work + 3 * n, work + 4 * n, work + 5 * n};
    double *element = work + 6 * n, *moved = element + m->nq;
    double *targets[4] = {st.plus2, st.plus1, st.minus1, st.minus2};
    const double factors[4] = {2, 1, -1, -2};
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < n; i++)
            eta[i] = factors[k] * step * xi[i];
        wb_lie_exp(m, eta, element);
        wb_lie_compose(m, element, q, moved);
        wb_lie_vector_field(m, moved, mu, targets[k], f2);
    }
    combine_stencil(n, &st, step, out);
}

/* ---- the consistent multipliers ------------------------------------------------
 * Velocity constraints c(q, v) = 0: the m hidden holonomic ones G(q) v and
 * the k nonholonomic Phi(q, v), stacked.  Along the flow
 *   v' = W (f - C^T nu) + w,   C = D_v c,
 * with W = M^-1 (D_mu f1 on a group), f the unconstrained force (on a group
 * f2 - ad*_v mu) and w the drift of the velocity at fixed momentum, so
 * d/dt c = 0 gives  (C W C^T) nu = B v + C (W f + w),  B = D_q c. */

typedef struct multiplier_system {
    int n, rows;           /* nv, m + k                          */
    double *v, *f, *Wf, *w, *rhs, *C, *WC, *S, *work;
} multiplier_system;

static multiplier_system split_system(const wb_model *m, double *scratch)
{
    multiplier_system x;
    x.n = m->nv;
    x.rows = m->n_holonomic + m->n_nonholonomic;
    const size_t n = (size_t)x.n, r = (size_t)x.rows;
    x.v = scratch;
    x.f = x.v + n;
    x.Wf = x.f + n;
    x.w = x.Wf + n;
    x.rhs = x.w + n;
    x.C = x.rhs + r;
    x.WC = x.C + r * n;
    x.S = x.WC + r * n;
    x.work = x.S + r * r; /* 6 n + 2 nq, or the B block (k x n) */
    return x;
}

/* v, f, W f and w on a vector space. */
static void vector_space_terms(const wb_model *m, const double *q, const double *p,
                               multiplier_system *x)
{
    const int n = x->n;
    wb_mass_solve(m, q, p, x->v);
    wb_potential_gradient(m, q, x->f);
    wb_kinetic_gradient(m, q, p, x->work);
    for (int i = 0; i < n; i++)
        x->f[i] = -(x->f[i] + x->work[i]);
    wb_mass_solve(m, q, x->f, x->Wf);
    memset(x->w, 0, (size_t)n * sizeof(double));
    if (m->mass_constant)
        return;
    /* w = D_q[M(q)^-1 p] v by a central difference along v */
    double speed = vec_max_abs(n, x->v);
    double eps = speed > 0 ? wb_fd_step(1.0, 0) / speed : 0;
    if (!(eps > 0))
        return;
    double *shifted = x->work, *plus = shifted + n, *minus = plus + n;
    for (int i = 0; i < n; i++)
        shifted[i] = q[i] + eps * x->v[i];
    wb_mass_solve(m, shifted, p, plus);
    for (int i = 0; i < n; i++)
        shifted[i] = q[i] - eps * x->v[i];
    wb_mass_solve(m, shifted, p, minus);
    for (int i = 0; i < n; i++)
        x->w[i] = (plus[i] - minus[i]) / (2 * eps);
}

/* v, f, W f and w on a group. */
static void group_terms(const wb_model *m, const double *q, const double *mu,
                        multiplier_system *x)
{
    const int n = x->n;
    double *f2 = x->work;
    wb_lie_vector_field(m, q, mu, x->v, f2);
    wb_lie_ad_star(m, x->v, mu, x->f);
    for (int i = 0; i < n; i++)
        x->f[i] = f2[i] - x->f[i];
    velocity_along_momentum(m, q, mu, x->f, x->work, x->Wf);
    velocity_along_flow(m, q, mu, x->v, x->work, x->w);
}

/* W u: M^-1 u, or D_mu f1 u on a group. */
static void apply_W(const wb_model *m, const double *q, const double *p, const double *u,
                    multiplier_system *x, double *out)
{
    if (m->capabilities & WB_CAP_LIE_GROUP)
        velocity_along_momentum(m, q, p, u, x->work, out);
    else
        wb_mass_solve(m, q, u, out);
}

/* The constraint rows C and their part B v of the right-hand side. */
static void constraint_rows(const wb_model *m, const double *q, multiplier_system *x)
{
    const int n = x->n, mh = m->n_holonomic, k = m->n_nonholonomic;
    if (mh > 0) {
        wb_constraint_jacobian(m, q, x->C);
        wb_constraint_hessian_vector(m, q, x->v, x->work); /* D_q[G v], m x n */
        for (int r = 0; r < mh; r++)
            x->rhs[r] = vec_dot(n, x->work + (size_t)r * n, x->v);
    }
    if (k > 0) {
        double *A = x->C + (size_t)mh * n;
        wb_nh_jacobian_v(m, q, x->v, A);
        wb_nh_jacobian_q(m, q, x->v, x->work); /* B, k x n */
        for (int r = 0; r < k; r++)
            x->rhs[mh + r] = vec_dot(n, x->work + (size_t)r * n, x->v);
    }
}

static int velocity_constraint_multipliers(fallback_slot *s, const double *q, const double *p,
                                           double *out)
{
    const wb_model *m = &s->owner->view;
    multiplier_system x = split_system(m, s->scratch);
    const int n = x.n, rows = x.rows;
    if (m->capabilities & WB_CAP_LIE_GROUP)
        group_terms(m, q, p, &x);
    else
        vector_space_terms(m, q, p, &x);
    constraint_rows(m, q, &x);
    for (int i = 0; i < n; i++)
        x.Wf[i] += x.w[i];
    for (int r = 0; r < rows; r++) {
        const double *Cr = x.C + (size_t)r * n;
        out[r] = x.rhs[r] + vec_dot(n, Cr, x.Wf);
        apply_W(m, q, p, Cr, &x, x.WC + (size_t)r * n);
    }
    for (int a = 0; a < rows; a++)
        for (int b = 0; b < rows; b++)
            x.S[a * rows + b] = vec_dot(n, x.C + (size_t)a * n, x.WC + (size_t)b * n);
    return linalg_dense_solve(host_services(), rows, 1, x.S, s->pivots, out);
}

/* The same for holonomic constraints alone and a diagonal mass, in the
 * nonzeros of G (wb.sparsity/1): rhs from B(q; v) v and G (W f + w), the
 * matrix G W G^T through the host's sparse LU.  O(nnz) for a chain. */
int sparse_index1_multiplier(model_instance *mi, const double *q, const double *p,
                             double *lambda)
{
    const wb_model *m = &mi->view;
    sparse_state *sp = mi->sparse;
    const int n = m->nq;
    const wb_sparse_pattern *G = sp->G;
    multiplier_system x = {.n = n, .rows = m->n_holonomic};
    x.v = sp->work;
    x.f = x.v + n;
    x.Wf = x.f + n;
    x.w = x.Wf + n;
    x.work = x.w + n; /* 3 n */
    double *inverse = x.work + 3 * n;
    vector_space_terms(m, q, p, &x);
    for (int i = 0; i < n; i++)
        x.Wf[i] += x.w[i];
    sp->ext->jacobian_values(mi->self, q, sp->Gv);
    sp->ext->hessian_vector_values(mi->self, q, x.v, sp->Bv);
    for (int r = 0; r < G->rows; r++) {
        double sum = 0;
        for (int e = G->row_start[r]; e < G->row_start[r + 1]; e++)
            sum += sp->Bv[e] * x.v[G->columns[e]] + sp->Gv[e] * x.Wf[G->columns[e]];
        lambda[r] = sum;
    }
    sparse_inverse_mass(mi, q, inverse);
    for (int e = 0; e < G->nnz; e++)
        sp->Gtv[e] = sp->Gv[sp->Gt_origin[e]];
    memset(sp->Sv, 0, (size_t)sp->S.pattern.nnz * sizeof(double));
    wb_csr_product_add(G, sp->Gv, inverse, &sp->Gt.pattern, sp->Gtv, &sp->S.pattern, 1.0,
                       sp->mark, sp->Sv);
    const wb_host *host = host_services();
    int status = sparse_lu_factor(host, sp->S_lu, sp->Sv);
    return status != WB_OK ? status : sparse_lu_solve(host, sp->S_lu, 1, lambda);
}

static int fb_sparse_index1_multiplier(void *ctx, const double *q, const double *p,
                                       double *lambda)
{
    fallback_slot *s = ctx;
    return sparse_index1_multiplier(s->owner, q, p, lambda);
}

/* The holonomic part of the joint solution, or the nonholonomic part. */
static int fb_index1_multiplier(void *ctx, const double *q, const double *p, double *lambda)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    double *joint = s->scratch + fd_scratch_size(m) - (m->n_holonomic + m->n_nonholonomic);
    int status = velocity_constraint_multipliers(s, q, p, joint);
    vec_copy(m->n_holonomic, joint, lambda);
    return status;
}

static int fb_nh_multiplier(void *ctx, const double *q, const double *p, double *nu)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    double *joint = s->scratch + fd_scratch_size(m) - (m->n_holonomic + m->n_nonholonomic);
    int status = velocity_constraint_multipliers(s, q, p, joint);
    vec_copy(m->n_nonholonomic, joint + m->n_holonomic, nu);
    return status;
}

/* ---- binding ---------------------------------------------------------------------- */

/* The nh_* functions from either extension: the same shapes with v = xi and
 * right-trivialised q-derivatives on a group. */
typedef struct nonholonomic_functions {
    uint32_t flags;
    void (*constraints)(void *, const double *, const double *, double *);
    void (*jacobian_v)(void *, const double *, const double *, double *);
    void (*jacobian_q)(void *, const double *, const double *, double *);
    void (*hessian_vv)(void *, const double *, const double *, const double *, double *);
    void (*hessian_qv)(void *, const double *, const double *, const double *, double *);
} nonholonomic_functions;

static nonholonomic_functions nonholonomic_of(const model_instance *mi)
{
    nonholonomic_functions f = {0};
    const wb_nonholonomic_ext *e = mi->ext.nonholonomic;
    const wb_lie_nonholonomic_ext *g = mi->ext.lie_nonholonomic;
    if (mi->ext.lie_group && g) {
        f.flags = g->flags;
        f.constraints = EXT_FN(g, wb_lie_nonholonomic_ext, constraints);
        f.jacobian_v = EXT_FN(g, wb_lie_nonholonomic_ext, jacobian_xi);
        f.jacobian_q = EXT_FN(g, wb_lie_nonholonomic_ext, jacobian_g);
        f.hessian_vv = EXT_FN(g, wb_lie_nonholonomic_ext, hessian_xixi_contract);
        f.hessian_qv = EXT_FN(g, wb_lie_nonholonomic_ext, hessian_gxi_contract);
    } else if (!mi->ext.lie_group && e) {
        f.flags = e->flags;
        f.constraints = EXT_FN(e, wb_nonholonomic_ext, constraints);
        f.jacobian_v = EXT_FN(e, wb_nonholonomic_ext, jacobian_v);
        f.jacobian_q = EXT_FN(e, wb_nonholonomic_ext, jacobian_q);
        f.hessian_vv = EXT_FN(e, wb_nonholonomic_ext, hessian_vv_contract);
        f.hessian_qv = EXT_FN(e, wb_nonholonomic_ext, hessian_qv_contract);
    }
    return f;
}

static int bind_nonholonomic(model_instance *mi)
{
    wb_model *v = &mi->view;
    nonholonomic_functions f = nonholonomic_of(mi);
    const char *id = mi->ext.lie_group ? WB_EXT_LIE_NONHOLONOMIC : WB_EXT_NONHOLONOMIC;
    if (!f.constraints) {
        host_error("model '%s': extension %s must provide constraints()", v->name, id);
        return -1;
    }
    v->nonholonomic_flags = f.flags;
    v->nh_constraints.fn = f.constraints, v->nh_constraints.ctx = mi->self;
    BIND(nh_jacobian_v, f.jacobian_v, fb_nh_jacobian_v, SLOT_NH_JV);
    BIND(nh_jacobian_q, f.jacobian_q, fb_nh_jacobian_q, SLOT_NH_JQ);
    BIND(nh_hessian_vv_contract, f.hessian_vv, fb_nh_vv, SLOT_NH_VV);
    BIND(nh_hessian_qv_contract, f.hessian_qv, fb_nh_qv, SLOT_NH_QV);
    mi->levels.nh_jacobian_v = f.jacobian_v ? 0 : 1;
    BIND_HOST(nh_multiplier, fb_nh_multiplier, SLOT_NH_MULTIPLIER);
    v->capabilities |= WB_CAP_NONHOLONOMIC;
    return 0;
}

static void bind_velocity(model_instance *mi)
{
    wb_model *v = &mi->view;
    if (v->capabilities & WB_CAP_MECHANICAL) {
        v->velocity.fn = v->mass_solve.fn, v->velocity.ctx = v->mass_solve.ctx;
    } else if (v->capabilities & WB_CAP_LIE_LAGRANGIAN) {
        v->velocity.fn = v->lie_velocity.fn, v->velocity.ctx = v->lie_velocity.ctx;
    } else if (v->capabilities & WB_CAP_LIE_DYNAMICS) {
        BIND_HOST(velocity, fb_group_velocity, SLOT_VELOCITY);
    } else {
        return;
    }
    v->capabilities |= WB_CAP_VELOCITY;
}

int bind_velocity_constraints(model_instance *mi)
{
    wb_model *v = &mi->view;
    bind_velocity(mi);
    if (mi->info.n_nonholonomic > 0 && bind_nonholonomic(mi) != 0)
        return -1;
    if (mi->info.n_holonomic > 0 && mi->sparse && mi->sparse->S_lu)
        BIND_HOST(index1_multiplier, fb_sparse_index1_multiplier, SLOT_INDEX1);
    else if (mi->info.n_holonomic > 0)
        BIND_HOST(index1_multiplier, fb_index1_multiplier, SLOT_INDEX1);
    return 0;
}
