/* The driver's check of what a method claims (claims.h). */
#include "run/claims.h"
#include "host/host.h"
#include "run/model_view_internal.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct claims {
    model_instance *mi;
    const wb_model *m;
    uint32_t flags;          /* the WB_PROP_* claims checked on this model   */
    double tolerance;        /* relative, see claims.h                       */
    double tol;              /* the method's tol option, NAN without one     */
    char method[256];
    double energy_scale;     /* energy_error's scale; 0: absolute            */
    double energy_before;    /* at the last state checked                    */
    double group_before;     /* likewise                                     */
    /* each row's floor: its normwise size at the start (claims.h) */
    double *floor_g, *floor_gv, *floor_phi;
    /* work, sized once */
    double *v;               /* nv                                           */
    double *res, *terms, *norm; /* max(m, k) each                            */
    double *jac;             /* m x nq dense, nnz sparse, or k x nv          */
};

/* The largest ratio |r_i| / terms_i of a residual to its terms, the row
 * that has it in *row (a NaN counts as the worst). */
static double worst_ratio(int n, const double *r, const double *terms, int *row)
{
    double worst = 0.0;
    *row = 0;
    for (int i = 0; i < n; i++) {
        double ratio = terms[i] > 0 ? fabs(r[i]) / terms[i] : (r[i] == 0 ? 0.0 : INFINITY);
        if (isnan(ratio) || ratio > worst) {
            worst = isnan(ratio) ? NAN : ratio;
            *row = i;
            if (isnan(ratio))
                break;
        }
    }
    return worst;
}

/* Row i of a matrix applied to y, term by term: sum_j |a_ij y_j| into
 * elem, sum_j |a_ij| max|y| into norm. */
static void row_terms(int n, const double *row, const int *columns, const double *y,
                      double y_size, double *elem, double *norm)
{
    double e = 0.0, s = 0.0;
    for (int j = 0; j < n; j++) {
        const double a = fabs(row[j]);
        e += a * fabs(y[columns ? columns[j] : j]);
        s += a;
    }
    *elem = e, *norm = s * y_size;
}

/* G at q into c->jac: dense, or the nonzeros of wb.sparsity/1. */
static void evaluate_jacobian(claims *c, const double *q)
{
    const sparse_state *sp = c->mi->sparse;
    if (sp && sp->G)
        sp->ext->jacobian_values(c->mi->self, q, c->jac);
    else
        wb_constraint_jacobian(c->m, q, c->jac);
}

/* The terms of G(q) y row by row, from the Jacobian in c->jac. */
static void constraint_terms(claims *c, const double *y, int n, double *elem, double *norm)
{
    const sparse_state *sp = c->mi->sparse;
    const double y_size = vec_max_abs(n, y);
    if (sp && sp->G) {
        const wb_sparse_pattern *G = sp->G;
        for (int k = 0; k < G->rows; k++) {
            const int e = G->row_start[k];
            row_terms(G->row_start[k + 1] - e, c->jac + e, G->columns + e, y, y_size, &elem[k],
                      &norm[k]);
        }
        return;
    }
    for (int k = 0; k < c->m->n_holonomic; k++)
        row_terms(n, c->jac + (size_t)k * n, NULL, y, y_size, &elem[k], &norm[k]);
}

/* terms += floor (claims.h: the row's size at the start, never the state
 * being judged, which would set its own bound) */
static void add_floor(int n, const double *floor, double *terms)
{
    for (int i = 0; i < n; i++)
        terms[i] += floor[i];
}

static int refuse(const claims *c, const char *claim, const char *residual, int row, double r,
                  double terms, double ratio)
{
    char tol[64] = "";
    if (!isnan(c->tol))
        snprintf(tol, sizeof tol, " (tol = %g)", c->tol);
    host_error("%s accepted a state that breaks its claim %s: %s%d = %.3g is %.3g of the size of "
               "its terms (%.3g), above the claim's tolerance %.3g%s",
               c->method, claim, residual, row + 1, r, ratio, terms, c->tolerance, tol);
    return -1;
}

static int check_rows(const claims *c, const char *claim, const char *residual, int n,
                      const double *r)
{
    int row;
    double ratio = worst_ratio(n, r, c->terms, &row);
    if (ratio <= c->tolerance)
        return 0;
    return refuse(c, claim, residual, row, r[row], c->terms[row], ratio);
}

/* Whether every |r_i| is within the tolerance of its floor alone: the
 * terms are at least the floor, so the residual then keeps its claim and
 * the terms need not be formed (a Jacobian saved on almost every check). */
static int within_floor(const claims *c, int n, const double *r, const double *floor)
{
    for (int i = 0; i < n; i++)
        if (!(fabs(r[i]) <= c->tolerance * floor[i]) || !(floor[i] > 0))
            return 0;
    return 1;
}

static int check_holonomic(claims *c, const double *q, const double *p,
                           const row_residuals *known)
{
    const wb_model *m = c->m;
    const int mh = m->n_holonomic;
    int have_jacobian = 0;
    if (c->flags & WB_PROP_POSITION_CONSTRAINT) {
        const double *g = known ? known->g : c->res;
        if (!known)
            wb_constraints(m, q, c->res);
        if (!within_floor(c, mh, g, c->floor_g)) {
            evaluate_jacobian(c, q);
            have_jacobian = 1;
            constraint_terms(c, q, m->nq, c->terms, c->norm);
            add_floor(mh, c->floor_g, c->terms);
            if (check_rows(c, "g(q) = 0", "g", mh, g) != 0)
                return -1;
        }
    }
    if (c->flags & WB_PROP_VELOCITY_CONSTRAINT) {
        const double *gv = known ? known->gv : c->res;
        if (!known)
            wb_hidden_constraints(m, q, p, c->res);
        if (!within_floor(c, mh, gv, c->floor_gv)) {
            if (!have_jacobian)
                evaluate_jacobian(c, q);
            wb_velocity(m, q, p, c->v);
            constraint_terms(c, c->v, m->nv, c->terms, c->norm);
            add_floor(mh, c->floor_gv, c->terms);
            if (check_rows(c, "G(q) M^-1 p = 0", "gv", mh, gv) != 0)
                return -1;
        }
    }
    return 0;
}

/* Phi's terms: A v term by term and its part a(q) = Phi - A v, which an
 * affine (or any other) constraint has besides A v. */
static int check_nonholonomic(claims *c, const double *q, const double *p,
                              const row_residuals *known)
{
    const wb_model *m = c->m;
    const int k = m->n_nonholonomic, n = m->nv;
    const double *phi = known ? known->phi : c->res, *v = known ? known->v : c->v;
    if (!known) {
        wb_velocity(m, q, p, c->v);
        wb_nh_constraints(m, q, c->v, c->res);
    }
    if (within_floor(c, k, phi, c->floor_phi))
        return 0;
    wb_nh_jacobian_v(m, q, v, c->jac);
    const double speed = vec_max_abs(n, v);
    for (int a = 0; a < k; a++) {
        const double *row = c->jac + (size_t)a * n;
        row_terms(n, row, NULL, v, speed, &c->terms[a], &c->norm[a]);
        c->terms[a] += fabs(phi[a] - vec_dot(n, row, v));
    }
    add_floor(k, c->floor_phi, c->terms);
    return check_rows(c, "Phi(q, v) = 0", "phi", k, phi);
}

/* A residual that may grow by round-off over a run (energy, distance from
 * the group): its change since the last check, at most `tolerance` of its
 * scale a step. */
static int check_growth(claims *c, const char *claim, const char *what, double now,
                        double *before, double scale, long long steps)
{
    const double change = fabs(now - *before);
    const double allowed = c->tolerance * (double)(steps > 0 ? steps : 1) * scale;
    if (!(change <= allowed)) {
        char tol[64] = "";
        if (!isnan(c->tol))
            snprintf(tol, sizeof tol, " (tol = %g)", c->tol);
        host_error("%s accepted a state that breaks its claim %s: %s went from %s to %s "
                   "in %lld step%s, %.3g of its scale (%.3g) a step, above the claim's tolerance "
                   "%.3g%s",
                   c->method, claim, what, host_number(*before).text, host_number(now).text,
                   steps, steps == 1 ? "" : "s",
                   change / (double)(steps > 0 ? steps : 1) / scale, scale, c->tolerance, tol);
        return -1;
    }
    *before = now;
    return 0;
}

int claims_check(claims *c, const double *q, const double *p, long long steps,
                 const row_residuals *known)
{
    const wb_model *m = c->m;
    if (m->n_holonomic > 0 && check_holonomic(c, q, p, known) != 0)
        return -1;
    if ((c->flags & WB_PROP_NONHOLONOMIC_CONSTRAINT) && check_nonholonomic(c, q, p, known) != 0)
        return -1;
    if ((c->flags & WB_PROP_LIE_GROUP) &&
        check_growth(c, "q on the group", "the group residual", wb_lie_group_residual(m, q),
                     &c->group_before, 1.0, steps) != 0)
        return -1;
    if ((c->flags & WB_PROP_ENERGY_CONSERVING) &&
        check_growth(c, "energy conserved", "the energy", wb_energy(m, q, p), &c->energy_before,
                     c->energy_scale > 0 ? c->energy_scale : 1.0, steps) != 0)
        return -1;
    return 0;
}

/* max(2^-26, min(1000 tol, sqrt(tol))): the tolerance the user asked for,
 * with room for a residual measured at q1 where the method measured it at
 * q0, and never as much as the residual's own size (tol = 1e-3 would
 * otherwise let Phi be all of its terms). */
static double claim_tolerance(double tol)
{
    double t = 0x1p-26;
    if (tol > 0) {
        double loose = fmin(1000.0 * tol, sqrt(tol));
        if (loose > t)
            t = loose;
    }
    return t;
}

/* The speed the start's energy allows a vector-space model, sqrt(2 E
 * max (M^-1 1)): the velocities' scale of a start at rest, where a
 * hanging pendulum's round-off of G M^-1 p has nothing else to be judged
 * against.  0 on a group or without an energy scale. */
static double energy_speed(const claims *c, const double *q0)
{
    const wb_model *m = c->m;
    if (!(m->capabilities & WB_CAP_MECHANICAL) || !(c->energy_scale > 0))
        return 0.0;
    double *ones = calloc(2 * (size_t)m->nv + 1, sizeof(double));
    if (!ones)
        return 0.0;
    double *inverse = ones + m->nv;
    for (int i = 0; i < m->nv; i++)
        ones[i] = 1.0;
    wb_mass_solve(m, q0, ones, inverse);
    double speed = sqrt(2.0 * c->energy_scale * vec_max_abs(m->nv, inverse));
    free(ones);
    return isfinite(speed) ? speed : 0.0;
}

/* Each row's floor from the start (q0, p0): its normwise size, sum_j |a_kj|
 * times max|q0| (g) or the start's speed, max(max|v0|, energy_speed) (the
 * hidden constraint, Phi). */
static int start_floors(claims *c, const double *q0, const double *p0)
{
    const wb_model *m = c->m;
    wb_velocity(m, q0, p0, c->v);
    const double speed = fmax(vec_max_abs(m->nv, c->v), energy_speed(c, q0));
    if (m->n_holonomic > 0 && (c->flags & (WB_PROP_POSITION_CONSTRAINT |
                                           WB_PROP_VELOCITY_CONSTRAINT))) {
        evaluate_jacobian(c, q0);
        /* the row sums sum_j |G_kj|: the terms of G against a vector of ones */
        double *ones = calloc((size_t)m->nq + 1, sizeof(double));
        if (!ones) {
            host_error("out of memory");
            return -1;
        }
        for (int i = 0; i < m->nq; i++)
            ones[i] = 1.0;
        constraint_terms(c, ones, m->nq, c->terms, c->norm);
        free(ones);
        const double size = vec_max_abs(m->nq, q0);
        for (int k = 0; k < m->n_holonomic; k++) {
            c->floor_g[k] = c->norm[k] * size;
            c->floor_gv[k] = c->norm[k] * speed;
        }
    }
    if (c->flags & WB_PROP_NONHOLONOMIC_CONSTRAINT) {
        wb_nh_jacobian_v(m, q0, c->v, c->jac);
        for (int a = 0; a < m->n_nonholonomic; a++) {
            double rowsum = 0.0;
            for (int j = 0; j < m->nv; j++)
                rowsum += fabs(c->jac[(size_t)a * m->nv + j]);
            c->floor_phi[a] = rowsum * speed;
        }
    }
    return 0;
}

/* The claims this model lets the driver check. */
static uint32_t checkable(uint32_t flags, const wb_model *m)
{
    uint32_t keep = 0;
    if (m->n_holonomic > 0)
        keep |= flags & (WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT);
    if (m->n_nonholonomic > 0 && (m->capabilities & WB_CAP_VELOCITY))
        keep |= flags & WB_PROP_NONHOLONOMIC_CONSTRAINT;
    if (m->capabilities & WB_CAP_GROUP_RESIDUAL)
        keep |= flags & WB_PROP_LIE_GROUP;
    if (m->energy.fn)
        keep |= flags & WB_PROP_ENERGY_CONSERVING;
    return keep;
}

static size_t jacobian_size(const model_instance *mi, const wb_model *m)
{
    size_t dense = (size_t)m->n_nonholonomic * (size_t)m->nv;
    if (mi->sparse && mi->sparse->G)
        return dense > (size_t)mi->sparse->G->nnz ? dense : (size_t)mi->sparse->G->nnz;
    size_t holonomic = (size_t)m->n_holonomic * (size_t)m->nq;
    return dense > holonomic ? dense : holonomic;
}

claims *claims_create(const integrator *it, const double *q0, const double *p0, double energy0,
                      double energy_scale)
{
    claims *c = calloc(1, sizeof *c);
    if (!c) {
        host_error("out of memory");
        return NULL;
    }
    c->mi = it->model;
    c->m = model_instance_view(it->model);
    c->flags = checkable(method_config_props_for(it->cfg, it->model).flags, c->m);
    c->tol = method_config_number(it->cfg, "tol");
    c->tolerance = claim_tolerance(c->tol);
    method_config_name(it->cfg, c->method, sizeof c->method);
    c->energy_scale = energy_scale;
    c->energy_before = energy0;
    if (!c->flags)
        return c;
    const wb_model *m = c->m;
    const int rows = m->n_holonomic > m->n_nonholonomic ? m->n_holonomic : m->n_nonholonomic;
    c->v = calloc((size_t)m->nv + 1, sizeof(double));
    c->res = calloc((size_t)rows + 1, sizeof(double));
    c->terms = calloc((size_t)rows + 1, sizeof(double));
    c->norm = calloc((size_t)rows + 1, sizeof(double));
    c->floor_g = calloc((size_t)m->n_holonomic + 1, sizeof(double));
    c->floor_gv = calloc((size_t)m->n_holonomic + 1, sizeof(double));
    c->floor_phi = calloc((size_t)m->n_nonholonomic + 1, sizeof(double));
    c->jac = calloc(jacobian_size(c->mi, m) + 1, sizeof(double));
    if (!c->v || !c->res || !c->terms || !c->norm || !c->floor_g || !c->floor_gv ||
        !c->floor_phi || !c->jac) {
        claims_destroy(c);
        host_error("out of memory");
        return NULL;
    }
    if (c->flags & WB_PROP_LIE_GROUP)
        c->group_before = wb_lie_group_residual(m, q0);
    if (start_floors(c, q0, p0) != 0) {
        claims_destroy(c);
        return NULL;
    }
    return c;
}

void claims_destroy(claims *c)
{
    if (!c)
        return;
    free(c->v);
    free(c->res);
    free(c->terms);
    free(c->norm);
    free(c->floor_g);
    free(c->floor_gv);
    free(c->floor_phi);
    free(c->jac);
    free(c);
}

int claims_any(const claims *c) { return c->flags != 0; }
