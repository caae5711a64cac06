/* What the four GGL methods share: the instance, the unknown layout, the
 * Newton step with its initial guess, the aux unknowns, the discrete
 * gradients of V, and the products with M, G and T on the dense and the
 * sparse path (linear_solver). */
#include "ggl.h"
#include "wb_array.h"
#include "wb_fd.h"
#include "wb_mass.h"
#include "wb_residual_scale.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- discrete gradients of V ------------------------------------------------------ */

void ggl_discrete_gradient_start(ggl *g)
{
    if (g->gradient == GGL_DG_GONZALEZ)
        g->v0 = wb_potential(g->model, g->q0);
}

/* Gonzalez (1996): DG = grad V(qm) + c dq, c = [V1 - V0 - grad V(qm).dq] / |dq|^2.
 * The bracket is O(|dq|^3) and vanishes for V of degree <= 2 (then DG is the
 * midpoint gradient); below its own round-off level it is taken as zero, or
 * c would be noise amplified by 1/|dq|^2 at small steps.  Returns c (0 when
 * cut) and leaves qm in g->dq, grad V(qm) in g->da, dq in g->db. */
static double gonzalez_coefficient(ggl *g, const double *q1)
{
    const int n = g->n;
    const double *q0 = g->q0;
    double *qm = g->dq, *gm = g->da, *dq = g->db;
    for (int i = 0; i < n; i++) {
        qm[i] = 0.5 * (q0[i] + q1[i]);
        dq[i] = q1[i] - q0[i];
    }
    wb_potential_gradient(g->model, qm, gm);
    ggl_count_force(g, 1);
    const double v0 = g->v0, v1 = wb_potential(g->model, q1);
    double slope = 0, size = 0, dq2 = vec_dot(n, dq, dq);
    for (int i = 0; i < n; i++) {
        slope += gm[i] * dq[i];
        size += fabs(gm[i] * dq[i]);
    }
    const double bracket = v1 - v0 - slope;
    const double noise = 16 * DBL_EPSILON * (fabs(v0) + fabs(v1) + size);
    if (!(dq2 > 0) || !(fabs(bracket) > noise))
        return 0.0;
    return bracket / dq2;
}

void ggl_discrete_gradient(ggl *g, const double *q1, double *dg)
{
    if (g->gradient == GGL_DG_GREENSPAN) {
        wb_potential_discrete_gradient(g->model, g->q0, q1, dg);
        ggl_count_force(g, 1);
        return;
    }
    const double c = gonzalez_coefficient(g, q1);
    for (int i = 0; i < g->n; i++)
        dg[i] = g->da[i] + c * g->db[i];
}

/* d DG / d q1 of Gonzalez's form:
 *   1/2 H(qm) + c I + dq (x) grad c,
 *   grad c = [grad V(q1) - grad V(qm) - 1/2 H(qm) dq] / |dq|^2 - 2 c dq / |dq|^2.
 * H(qm) into g->dH (dense, or values in its pattern); returns c, with dq
 * in g->db and, when c != 0, grad c in g->dq. */
static double gonzalez_derivative(ggl *g, const double *q1)
{
    const int n = g->n;
    const double c = gonzalez_coefficient(g, q1);
    double *Hdq = g->fd; /* free outside Greenspan's differences */
    if (g->sparse.ext)
        g->sparse.ext->potential_hessian_values(g->sparse.self, g->dq, g->dH);
    else
        wb_potential_hessian(g->model, g->dq, g->dH);
    if (c == 0.0)
        return 0.0;
    const double *dq = g->db, *gm = g->da;
    const double dq2 = vec_dot(n, dq, dq);
    double *gc = g->dq; /* qm is no longer needed */
    if (g->sparse.ext)
        wb_csr_mat_vec(g->sparse.H, g->dH, dq, Hdq);
    else
        for (int i = 0; i < n; i++)
            Hdq[i] = vec_dot(n, g->dH + (size_t)i * n, dq);
    wb_potential_gradient(g->model, q1, gc);
    ggl_count_force(g, 1);
    for (int i = 0; i < n; i++)
        gc[i] = (gc[i] - gm[i] - 0.5 * Hdq[i]) / dq2 - 2 * c * dq[i] / dq2;
    return c;
}

static void gonzalez_jacobian(ggl *g, const double *q1, double *J)
{
    const int n = g->n;
    const double c = gonzalez_derivative(g, q1);
    for (int e = 0; e < n * n; e++)
        J[e] = 0.5 * g->dH[e];
    if (c == 0.0)
        return;
    const double *dq = g->db, *gc = g->dq;
    for (int i = 0; i < n; i++) {
        J[(size_t)i * n + i] += c;
        vec_axpy(n, dq[i], gc, J + (size_t)i * n);
    }
}

static void greenspan_at(void *ctx, const double *q1, double *dg)
{
    const ggl *g = ctx;
    wb_potential_discrete_gradient(g->model, g->q0, q1, dg);
    ggl_count_force(g, 1);
}

/* The view exposes Greenspan's discrete gradient but not its derivative:
 * central differences in q1 (2n evaluations, relative accuracy ~1e-10;
 * on the sparse path 2 per colour of Hess V's pattern). */
void ggl_discrete_gradient_jacobian(ggl *g, const double *q1, double *J)
{
    if (g->gradient == GGL_DG_GREENSPAN)
        wb_central_jacobian(greenspan_at, g, g->n, g->n, q1, g->fd, J);
    else
        gonzalez_jacobian(g, q1, J);
}

double ggl_discrete_gradient_sparse_jacobian(ggl *g, const double *q1, double *values,
                                             double *s)
{
    if (g->gradient == GGL_DG_GREENSPAN) {
        wb_central_jacobian_coloured(greenspan_at, g, g->sparse.H, &g->sparse.colouring, q1,
                                     g->fd, values);
        *s = 1.0;
        return 0.0;
    }
    const double c = gonzalez_derivative(g, q1);
    if (values != g->dH)
        memcpy(values, g->dH, (size_t)g->sparse.H->nnz * sizeof(double));
    *s = 0.5;
    return c;
}

/* ---- products on either path ------------------------------------------------------ */

void ggl_inverse_mass_times(const ggl *g, const double *x, double *y)
{
    if (!g->sparse.ext) {
        mat_vec(g->n, g->n, g->Minv, x, y);
        return;
    }
    for (int i = 0; i < g->n; i++)
        y[i] = g->Minv[i] * x[i];
}

void ggl_mass_times(const ggl *g, const double *x, double *y)
{
    if (!g->sparse.ext) {
        mat_vec(g->n, g->n, g->M, x, y);
        return;
    }
    for (int i = 0; i < g->n; i++)
        y[i] = g->M[i] * x[i];
}

void ggl_constraint_jacobian(const ggl *g, const double *q, double *G)
{
    if (g->sparse.ext)
        g->sparse.ext->jacobian_values(g->sparse.self, q, G);
    else
        wb_constraint_jacobian(g->model, q, G);
}

void ggl_hessian_contract(const ggl *g, const double *q, const double *mu, double *T)
{
    if (g->sparse.ext)
        g->sparse.ext->hessian_contract_values(g->sparse.self, q, mu, T);
    else
        wb_constraint_hessian_contract(g->model, q, mu, T);
}

void ggl_hessian_vector(const ggl *g, const double *q, const double *w, double *B)
{
    if (g->sparse.ext)
        g->sparse.ext->hessian_vector_values(g->sparse.self, q, w, B);
    else
        wb_constraint_hessian_vector(g->model, q, w, B);
}

void ggl_G_times(const ggl *g, const double *G, const double *x, double *y)
{
    if (g->sparse.ext)
        wb_csr_mat_vec(g->sparse.G, G, x, y);
    else
        mat_vec(g->m, g->n, G, x, y);
}

void ggl_Gt_times(const ggl *g, const double *G, const double *x, double *y)
{
    if (!g->sparse.ext) {
        mat_t_vec(g->m, g->n, G, x, y);
        return;
    }
    memset(y, 0, (size_t)g->n * sizeof(double));
    wb_csr_t_vec_add(g->sparse.G, G, 1.0, x, y);
}

void ggl_T_times(const ggl *g, const double *T, const double *x, double *y)
{
    if (g->sparse.ext)
        wb_csr_mat_vec(g->sparse.T, T, x, y);
    else
        mat_vec(g->n, g->n, T, x, y);
}

int ggl_place_blocks(ggl *g, const ggl_block_spec *spec, int count)
{
    const int n = g->n;
    /* residual block r has the size and place of the scheme's r-th unknown */
    const int col[] = {g->off_q, g->off_p, g->off_v, g->off_l, g->off_g};
    int row[6] = {0}, rows = 1;
    for (int u = 0; u < 5; u++)
        if (col[u] >= 0)
            row[rows++] = col[u];
    const ggl_sparse *sp = &g->sparse;
    const wb_sparse_pattern *pattern[] = {NULL, sp->G, sp->G, sp->T, sp->T, sp->H};
    for (int b = 0; b < count; b++) {
        const ggl_block_spec *s = &spec[b];
        const int transposed = s->pattern == GGL_PATTERN_G_T || s->pattern == GGL_PATTERN_T_T;
        g->sparse.block[s->id] = wb_block_place(&g->sparse.J, row[s->residual], col[s->unknown],
                                                pattern[s->pattern], transposed, n);
        if (g->sparse.block[s->id] < 0)
            return -1;
    }
    return 0;
}

void ggl_add(const ggl *g, double *J, int id, double s, const double *values,
             const double *scale)
{
    if (g->sparse.block[id] >= 0)
        wb_block_add(&g->sparse.J, g->sparse.block[id], s, values, scale, J);
}

/* ---- instance ---------------------------------------------------------------------- */

void ggl_destroy(void *inst)
{
    ggl *g = inst;
    if (!g)
        return;
    if (g->newton)
        g->host->newton_destroy(g->host, g->newton);
    ggl_sparse *sp = &g->sparse;
    wb_block_matrix_free(&sp->J);
    wb_fd_colouring_free(&sp->colouring);
    wb_csr_free(&sp->Gt);
    wb_csr_free(&sp->S);
    free(sp->Gt_origin);
    free(sp->mark);
    free(sp->Gt_values);
    if (sp->lu)
        g->host->sparse_lu_destroy(g->host, sp->lu);
    free(g->across);
    free(g->x);
    free(g);
}

/* x = [q1 (n), p1 (n), v (n, VIs), lambda (m), gamma (m, not EM-G)] */
static void layout(ggl *g)
{
    const int n = g->n, m = g->m;
    int at = 0;
    g->off_q = at;
    at += n;
    g->off_p = at;
    at += n;
    g->off_v = -1;
    if (g->scheme->has_velocity) {
        g->off_v = at;
        at += n;
    }
    g->off_l = at;
    at += m;
    g->off_g = -1;
    if (g->scheme->has_gamma) {
        g->off_g = at;
        at += m;
    }
    g->size = at;
}

/* One block of doubles carved into the named arrays: x first (it owns the
 * block), then the rest in the order of this table.  On the sparse path
 * the m x n arrays hold values in G's pattern, the n x n ones values in
 * T's or Hess V's, M and M^-1 their diagonals. */
static int allocate(ggl *g)
{
    const size_t n = (size_t)g->n, N = (size_t)g->size;
    const size_t m = (size_t)g->m;
    size_t mn = m * n, nn = n * n, mass = n * n;
    const ggl_sparse *sp = &g->sparse;
    if (sp->ext) {
        const int most = sp->T->nnz > sp->H->nnz ? sp->T->nnz : sp->H->nnz;
        mn = (size_t)sp->G->nnz;
        nn = (size_t)most > n ? (size_t)most : n;
        mass = n;
    }
    struct {
        double **array;
        size_t count;
    } parts[] = {
        {&g->x, N},       {&g->saved, N},  {&g->branch0, N}, {&g->branch1, N},
        {&g->scale, N},
        {&g->M, mass},
        {&g->Minv, mass}, {&g->grad0, n},  {&g->G0, mn},  {&g->g0, m},
        {&g->qa, n},      {&g->w, n},       {&g->u, n},       {&g->t1, n},
        {&g->t2, n},      {&g->t3, n},      {&g->Ga, mn},  {&g->Gb, mn},
        {&g->Bm, mn},  {&g->MGt, mn}, {&g->Ta, nn},     {&g->Tb, nn},
        {&g->K, nn},      {&g->N1, nn},     {&g->N2, nn},     {&g->dq, n},
        {&g->da, n},      {&g->db, n},      {&g->dH, nn},     {&g->fd, 4 * n},
    };
    const size_t count = WB_ARRAY_COUNT(parts);
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += parts[i].count;
    double *block = calloc(total, sizeof(double));
    if (!block)
        return WB_ERR_NOMEM;
    for (size_t i = 0; i < count; i++) {
        *parts[i].array = block;
        block += parts[i].count;
    }
    return WB_OK;
}

/* M and M^-1 once: the mass matrix is constant (the diagonals on the
 * sparse path). */
static int mass_matrices(ggl *g)
{
    const ggl_sparse *sp = &g->sparse;
    if (sp->ext) {
        int status = wb_sparse_inverse_mass(g->host, g->model, sp->ext, g->x, g->Minv,
                                            g->scheme->label);
        for (int i = 0; i < g->n; i++)
            g->M[i] = 1.0 / g->Minv[i];
        return status;
    }
    wb_mass(g->model, g->x, g->M); /* any q will do */
    wb_constant_inverse_mass(g->model, g->saved, g->Minv); /* saved: 2n, free until a step */
    return WB_OK;
}

/* 1 sparse, 0 dense, -1 (reported) when linear_solver = sparse cannot be. */
static int choose_sparse(const wb_host *host, const wb_model *model, const ggl_scheme *scheme,
                         const char *choice)
{
    const char *why = NULL;
    if (!scheme->place_blocks)
        why = "its Newton matrix has no sparse form";
    else if (scheme->sparse_rank_one && !WB_HAS_FIELD(host, wb_host, newton_set_rank_one))
        why = "its Newton matrix is sparse plus rank one, which needs a host with "
              "newton_set_rank_one (ABI 1.4)";
    else if (!(model->holonomic_flags & WB_HOLONOMIC_QUADRATIC))
        why = "the sparse Newton matrix needs quadratic constraints (WB_HOLONOMIC_QUADRATIC): "
              "it has no place for D_q[T(q; gamma) v], zero only then";
    if (!why)
        return wb_sparse_choose(host, model, choice, WB_SPARSE_NEEDS_HESSIANS, scheme->label);
    if (choice[0] != 's')
        return 0;
    host->error(host, "%s: linear_solver = \"sparse\" is not available on model '%s': %s",
                scheme->label, model->name, why);
    return -1;
}

/* The sparse path's patterns (checked) and Newton matrix. */
static int create_sparse(ggl *g)
{
    ggl_sparse *sp = &g->sparse;
    const char *missing;
    const wb_host *host = g->host;
    const char *who = g->scheme->label;
    sp->ext = wb_sparse_usable(host, g->model, WB_SPARSE_NEEDS_HESSIANS, &missing);
    sp->self = g->model->model_self;
    sp->G = sp->ext->jacobian_pattern(sp->self);
    sp->T = sp->ext->hessian_contract_pattern(sp->self);
    sp->H = sp->ext->potential_hessian_pattern(sp->self);
    if (wb_sparse_check_pattern(host, g->model, sp->G, g->m, g->n, "G", who) != WB_OK ||
        wb_sparse_check_pattern(host, g->model, sp->T, g->n, g->n, "T(q; mu)", who) != WB_OK ||
        wb_sparse_check_pattern(host, g->model, sp->H, g->n, g->n, "Hess V", who) != WB_OK)
        return WB_ERR_INVALID;
    for (int b = 0; b < GGL_MAX_BLOCKS; b++)
        sp->block[b] = -1;
    if (g->gradient == GGL_DG_GREENSPAN && wb_fd_colouring_build(sp->H, &sp->colouring) != 0)
        return WB_ERR_NOMEM;
    wb_block_matrix_init(&sp->J, g->size, g->size);
    return g->scheme->place_blocks(g) == 0 && wb_block_matrix_build(&sp->J) == 0 ? WB_OK
                                                                                 : WB_ERR_NOMEM;
}

int ggl_create(const wb_host *host, const wb_model *model, const ggl_scheme *scheme,
               const ggl *proto, const char *linear_solver, void **inst)
{
    /* as the paper: its discrete Legendre maps and energy schemes use a constant M */
    int status = wb_require_constant_mass(host, model, scheme->label);
    if (status != WB_OK)
        return status;
    const int sparse = choose_sparse(host, model, scheme, linear_solver);
    if (sparse < 0)
        return WB_ERR_INVALID;
    ggl *g = malloc(sizeof *g);
    if (!g) {
        host->error(host, "%s: out of memory", scheme->label);
        return WB_ERR_NOMEM;
    }
    *g = *proto;
    g->host = host, g->model = model, g->scheme = scheme;
    g->n = model->nq, g->m = model->n_holonomic;
    g->x = NULL, g->newton = NULL;
    g->across = g->kappa = g->S = NULL;
    memset(&g->sparse, 0, sizeof g->sparse);
    layout(g);
    status = sparse ? create_sparse(g) : WB_OK;
    if (status == WB_OK)
        status = allocate(g);
    if (status == WB_OK && (status = mass_matrices(g)) == WB_OK) {
        g->newton = sparse ? host->newton_create_sparse(host, &g->sparse.J.csr.pattern)
                           : host->newton_create(host, g->size);
        status = g->newton ? WB_OK : WB_ERR_NOMEM;
        if (g->newton && sparse && scheme->sparse_rank_one)
            host->newton_set_rank_one(host, g->newton, scheme->sparse_rank_one);
    }
    if (status == WB_OK && scheme->finish_create && scheme->finish_create(g) != 0)
        status = WB_ERR_NOMEM;
    if (status != WB_OK) {
        ggl_destroy(g);
        if (status == WB_ERR_NOMEM)
            host->error(host, "%s: out of memory", scheme->label);
        return status;
    }
    /* Newton's test relative to each row's terms (ABI 1.2) */
    g->newton_options.struct_size = sizeof g->newton_options;
    g->newton_options.residual_scale = g->scale;
    *inst = g;
    return WB_OK;
}

/* First guesses: q1 = q, p1 = p, v = M^-1 p, lambda from the index-1
 * formulation (0 if that is singular), gamma = 0 (its exact value). */
int ggl_reset(void *inst, double t, const double *q, const double *p)
{
    ggl *g = inst;
    const int n = g->n, m = g->m;
    (void)t;
    memset(g->x, 0, (size_t)g->size * sizeof(double));
    vec_copy(n, q, g->x + g->off_q);
    vec_copy(n, p, g->x + g->off_p);
    if (g->off_v >= 0)
        ggl_inverse_mass_times(g, p, g->x + g->off_v);
    if (wb_index1_multiplier(g->model, q, p, g->x + g->off_l) != WB_OK)
        memset(g->x + g->off_l, 0, (size_t)m * sizeof(double));
    return WB_OK;
}

/* "simple": the known values at t^n; "advanced": q^{n+1} = q^n + h v^n with
 * v^n the latest velocity known at t^n (the carried interval velocity of
 * the VIs, M^-1 p^n for the EM schemes).  Multipliers and v keep their
 * previous values. */
static void initial_guess(ggl *g, double h, const double *q0, const double *p0)
{
    const int n = g->n;
    double *q1 = g->x + g->off_q;
    vec_copy(n, q0, q1);
    if (g->advanced_guess) {
        const double *v = g->off_v >= 0 ? g->x + g->off_v : g->t1;
        if (g->off_v < 0)
            ggl_inverse_mass_times(g, p0, g->t1);
        vec_axpy(n, h, v, q1);
    }
    vec_copy(n, p0, g->x + g->off_p);
}

/* Newton to tol; with convergence = "step" also until the last update is
 * below tol (newton_options.settle_update): the host's Newton stops as soon
 * as |R| <= tol, typically at |R| ~ 1e-11 after an update of ~1e-6, and
 * one more update brings the residual to round-off, which the paper's
 * round-off claims rely on. */
static int solve(ggl *g, wb_step_stats *stats, wb_newton_report *report)
{
    const wb_host *host = g->host;
    wb_jacobian_fn jacobian = g->sparse.ext ? g->scheme->sparse_jacobian : g->scheme->jacobian;
    return host->newton_solve(host, g->newton, g->scheme->residual, jacobian, g,
                              g->x, &g->newton_options, stats, report);
}

/* solver = "newton" failed from the guess: say how, and name the solver
 * that finds a step Newton from the guess misses (at h omega >> 1 the guess
 * q^n can lie outside Newton's reach of a step that exists: EM at h =
 * 0.675 on the four particles, scripts/ggl/stability.lua).  Other failures
 * (an evaluation, EM-G's finish) keep their own message. */
static void name_continuation(ggl *g, int status, const wb_newton_report *report)
{
    const char *how = status == WB_ERR_NEWTON      ? "did not converge in"
                      : status == WB_ERR_SINGULAR  ? "met a singular matrix after"
                      : status == WB_ERR_NONFINITE ? "met a non-finite iterate after"
                                                   : NULL;
    if (!how)
        return;
    g->host->error(g->host, "%s: Newton from the guess %s %d iterations (max |residual| %.3e, "
                   "tolerance %.1e relative to each row's terms where they are below 1); the step "
                   "may exist beyond its reach: solver = 'continuation' (the default) follows it from "
                   "h = 0",
                   g->scheme->label, how, report->iterations, report->residual_norm,
                   g->newton_options.tol);
}

/* The same step equations at the step sizes s h, s from 0 to 1, each solve
 * started from the secant through the last two solutions: the branch of
 * solutions that leaves (q^n, p^n) at h = 0.  Newton from the guess at
 * the full h can miss a step that exists (at h omega >> 1 the guess q^n is
 * far from q^{n+1}); this follows the solution from where it is known.
 * The increment of s halves on a failed solve and grows after an easy
 * one; below 2^-20 the branch is taken to end (a fold: no step of this
 * size continues it) and the step fails with that reason. */
static int solve_by_continuation(ggl *g, double h, const double *start, wb_step_stats *stats)
{
    const int N = g->size;
    const double smallest = 0x1p-20;
    double s_old = 0.0, s = 0.0, ds = 1.0 / 32;
    int points = 0, status = WB_OK;
    vec_copy(N, start, g->branch1); /* the solution at s = 0 in q, p */
    while (s < 1.0) {
        const double s_new = fmin(1.0, s + ds);
        vec_copy(N, g->branch1, g->x);
        if (points >= 2) /* secant predictor through (s_old, branch0), (s, branch1) */
            for (int i = 0; i < N; i++)
                g->x[i] += (s_new - s) / (s - s_old) * (g->branch1[i] - g->branch0[i]);
        g->h = s_new * h;
        const uint64_t before = stats ? stats->newton_iterations : 0;
        status = solve(g, stats, NULL);
        if (status == WB_OK) {
            vec_copy(N, g->branch1, g->branch0);
            vec_copy(N, g->x, g->branch1);
            s_old = s, s = s_new, points++;
            if (!stats || stats->newton_iterations - before <= 4)
                ds = fmin(2 * ds, 0.25);
        } else if ((ds *= 0.5) < smallest) {
            break;
        }
    }
    g->h = h;
    if (s < 1.0) {
        g->host->error(g->host, "%s: Newton fails from the guess, and the continuation of the "
                       "step in h from 0 stops at h = %.6g of %.6g (the solution branch folds "
                       "or the solves fail)", g->scheme->label, s * h, h);
        return status != WB_OK ? status : WB_ERR_NEWTON;
    }
    return WB_OK;
}

/* The size of each residual row's terms at (q0, p0); the rows follow the
 * unknowns' blocks: q rows |q0| + h |M^-1 p0|, momentum rows (p and v)
 * |p0| + h |grad V|, g rows G(q0) |q0|, g^v rows G(q0) |M^-1| times the
 * momentum size.  (t1 and Gb are free until the Newton solve.) */
static void row_scales(ggl *g, double h, const double *q0, const double *p0)
{
    const int n = g->n, m = g->m;
    double momentum = wb_momentum_scale(g->model, q0, p0, h, g->t1, g->stats);
    ggl_inverse_mass_times(g, p0, g->t1);
    double position = wb_scale_or_one(wb_scale_max_abs(n, q0) + fabs(h) * wb_scale_max_abs(n, g->t1));
    double minv = 0.0;
    if (g->sparse.ext)
        minv = wb_scale_max_abs(n, g->Minv) * n;
    else
        for (int i = 0; i < n; i++)
            minv = fmax(minv, wb_scale_max_abs(n, g->Minv + (size_t)i * n) * n);
    for (int i = 0; i < n; i++) {
        g->scale[g->off_q + i] = position;
        g->scale[g->off_p + i] = momentum;
        if (g->off_v >= 0)
            g->scale[g->off_v + i] = momentum;
    }
    ggl_constraint_jacobian(g, q0, g->Gb);
    double *position_rows = g->scale + g->off_l, *velocity_rows = g->scale + g->off_g;
    if (g->sparse.ext) {
        wb_sparse_row_scales(g->sparse.G, g->Gb, wb_scale_max_abs(n, q0), 1.0, position_rows);
        if (g->off_g >= 0)
            wb_sparse_row_scales(g->sparse.G, g->Gb, minv * momentum, 1.0, velocity_rows);
        return;
    }
    wb_constraint_row_scales(m, n, g->Gb, wb_scale_max_abs(n, q0), 1.0, position_rows);
    if (g->off_g >= 0)
        wb_constraint_row_scales(m, n, g->Gb, minv * momentum, 1.0, velocity_rows);
}

static int step_counted(ggl *g, double h, const double *q0, const double *p0, double *q1,
                        double *p1, wb_step_stats *stats)
{
    g->h = h, g->q0 = q0, g->p0 = p0;
    if (g->scheme->start_values)
        g->scheme->start_values(g);
    vec_copy(g->size, g->x, g->saved);
    initial_guess(g, h, q0, p0);
    row_scales(g, h, q0, p0);
    if (g->continuation)
        vec_copy(g->size, g->x, g->branch0); /* the guess, kept for a continuation */
    wb_newton_report report = {.struct_size = sizeof report};
    int status = solve(g, stats, &report);
    if (status != WB_OK && !g->continuation)
        name_continuation(g, status, &report);
    if (status != WB_OK && g->continuation) {
        /* the s = 0 point: q0, p0, the carried unknowns (the simple guess) */
        vec_copy(g->size, g->branch0, g->x);
        vec_copy(g->n, q0, g->x + g->off_q);
        vec_copy(g->n, p0, g->x + g->off_p);
        vec_copy(g->size, g->x, g->branch0);
        status = solve_by_continuation(g, h, g->branch0, stats);
    }
    if (status == WB_OK && g->scheme->finish)
        status = g->scheme->finish(g);
    if (status != WB_OK) {
        vec_copy(g->size, g->saved, g->x); /* the carried unknowns stay those of q0, p0 */
        return status;
    }
    vec_copy(g->n, g->x + g->off_q, q1);
    vec_copy(g->n, g->x + g->off_p, p1);
    return WB_OK;
}

int ggl_step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
             double *p1, wb_step_stats *stats)
{
    ggl *g = inst;
    (void)t;
    g->stats = stats;
    const int status = step_counted(g, h, q0, p0, q1, p1, stats);
    g->stats = NULL;
    return status;
}

/* The carried unknowns are the Newton vector past (q, p): the step only
 * replaces its (q, p) part by the guess from (q0, p0). */
int ggl_start(void *inst, double t, double h, const double *q, const double *p,
              const double *aux)
{
    ggl *g = inst;
    (void)h;
    if (!aux)
        return ggl_reset(inst, t, q, p);
    memset(g->x, 0, (size_t)g->size * sizeof(double));
    vec_copy(g->n, q, g->x + g->off_q);
    vec_copy(g->n, p, g->x + g->off_p);
    if (g->off_v >= 0) {
        vec_copy(g->n, aux, g->x + g->off_v);
        aux += g->n;
    }
    vec_copy(g->m, aux, g->x + g->off_l);
    if (g->off_g >= 0)
        vec_copy(g->m, aux + g->m, g->x + g->off_g);
    return WB_OK;
}

/* aux order: v (VIs), lambda, gamma (all but EM-G) */
void ggl_aux_values(const void *inst, double *out)
{
    const ggl *g = inst;
    if (g->off_v >= 0) {
        vec_copy(g->n, g->x + g->off_v, out);
        out += g->n;
    }
    vec_copy(g->m, g->x + g->off_l, out);
    if (g->off_g >= 0)
        vec_copy(g->m, g->x + g->off_g, out + g->m);
}
