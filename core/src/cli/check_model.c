/* Analytic derivatives against finite differences, and structural checks.
 *
 * Each check runs at the model's initial state and at two deterministic
 * perturbations of it.  The error is relative to the derivative's own size
 * over those points: max|analytic - fd| / max(|analytic|, |fd|), so that a
 * model in tiny units (the solar system's gradients are 1e-8) is judged as
 * strictly as one in units of 1, while a derivative that happens to vanish
 * at one point is still measured against its size at the others.  A
 * derivative that is zero at every point is judged absolutely. */
#include "cli/check_model.h"
#include "cli/check_model_internal.h"
#include "host/host.h"
#include "run/projection.h"
#include "wb_fd.h"
#include "wb_sparse.h"
#include "wb_vec.h"

#include <workbench/holonomic_projection.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- mechanical ------------------------------------------------------------ */

static void check_mass(checker *c)
{
    const int n = c->m->nq;
    double worst_sym = 0;
    gap solve = {0, 0}, constant = {0, 0};
    int spd = 1;
    for (int k = 0; k < N_POINTS; k++) {
        wb_mass(c->m, c->q[k], c->a);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                worst_sym = worse(worst_sym, fabs(c->a[i * n + j] - c->a[j * n + i]) /
                                                 fabs(c->a[i * n + i]));
        memcpy(c->b, c->a, (size_t)n * n * sizeof(double));
        if (linalg_cholesky_factor(host_services(), n, c->b) != WB_OK)
            spd = 0;
        /* M (M^-1 p) == p */
        wb_mass_solve(c->m, c->q[k], c->p[k], c->c);
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < n; j++)
                s += c->a[i * n + j] * c->c[j];
            c->d[i] = s;
        }
        gap_add(&solve, n, c->d, c->p[k]);
        if (c->m->mass_constant && k > 0) {
            wb_mass(c->m, c->q[0], c->b);
            gap_add(&constant, n * n, c->a, c->b);
        }
    }
    row(c, "mass: symmetric", worst_sym, NULL);
    row(c, "mass: positive definite", spd ? 0.0 : INFINITY, spd ? NULL : "Cholesky failed");
    row(c, "mass_solve: M (M^-1 p) = p", gap_error(&solve),
        c->ext->mechanical->mass_solve ? NULL : "(host Cholesky)");
    if (c->m->mass_constant)
        row(c, "mass: constant as declared", gap_error(&constant), NULL);
}

static void check_potential(checker *c)
{
    const wb_mechanical_ext *e = c->ext->mechanical;
    const int n = c->m->nq;
    if (!e->potential_gradient)
        skipped(c, "potential_gradient", "not provided: finite differences of V");
    else
        COMPARE("potential_gradient", 1, n, wb_potential_gradient(c->m, c->q[k], c->a),
                fd_potential_gradient(c->m, c->scratch, c->q[k], c->b));
    COMPARE("potential_hessian", e->potential_hessian, n * n,
            wb_potential_hessian(c->m, c->q[k], c->a),
            fd_potential_hessian(c->m, c->levels->gradient, c->scratch, c->q[k], c->b));
    if (e->kinetic_gradient)
        COMPARE("kinetic_gradient", 1, n, wb_kinetic_gradient(c->m, c->q[k], c->p[k], c->a),
                fd_kinetic_gradient(c->m, c->scratch, c->q[k], c->p[k], c->b));
}

/* ---- holonomic ------------------------------------------------------------- */


/* wb.holonomic_point/1 gives the values of the three separate functions
 * (methods switch between them and expect the same numbers). */
static void check_holonomic_point(checker *c)
{
    const int n = c->m->nq, m = c->m->n_holonomic;
    gap grad = {0, 0}, g = {0, 0}, G = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        wb_holonomic_point(c->m, c->q[k], c->a, c->b, c->c);
        wb_potential_gradient(c->m, c->q[k], c->d);
        gap_add(&grad, n, c->a, c->d);
        wb_constraints(c->m, c->q[k], c->d);
        gap_add(&g, m, c->b, c->d);
        wb_constraint_jacobian(c->m, c->q[k], c->d);
        gap_add(&G, m * n, c->c, c->d);
    }
    row(c, "holonomic_point: grad V", gap_error(&grad), NULL);
    row(c, "holonomic_point: g", gap_error(&g), NULL);
    row(c, "holonomic_point: G", gap_error(&G), NULL);
}

/* One projection problem at q, from q along G(q)^T with c = -1 / (2 |G|^2)
 * (any c gives the same iterates in q; this one keeps lambda of order g):
 * at the initial state, on g = 0, it stops at once; at the perturbed test
 * points it takes several updates, and max_iter = 1 stops it after one. */
static wb_projection_problem projection_problem(const checker *c, const double *q,
                                                double *direction, int max_iter)
{
    const int n = c->m->nq;
    wb_constraint_jacobian(c->m, q, direction);
    double size = 0, terms = 0;
    for (int i = 0; i < n; i++)
        size += direction[i] * direction[i], terms += fabs(direction[i] * q[i]);
    return (wb_projection_problem){.struct_size = sizeof(wb_projection_problem), .nq = n,
                                   .drift = q, .direction = direction,
                                   .c = size > 0 ? -0.5 / size : -1.0, .tol = 1e-13,
                                   .floor = 64.0 * DBL_EPSILON * (terms > 1 ? terms : 1),
                                   .max_iter = max_iter};
}

/* The same answer: status, outcome, counts and every value (lambda, g, q,
 * grad V, G: 3 n + 2 doubles) to the last bit. */
static int projection_same(int n, int status_a, const wb_projection_report *a,
                           const double *xa, int status_b, const wb_projection_report *b,
                           const double *xb)
{
    return status_a == status_b && a->outcome == b->outcome &&
           a->residuals == b->residuals && a->iterations == b->iterations &&
           a->jacobians == b->jacobians &&
           memcmp(xa, xb, (size_t)(3 * n + 2) * sizeof(double)) == 0;
}

/* wb.holonomic_point/1's project() is the iteration of model.h on the
 * model's own evaluate(): run both (the reference through the view's
 * holonomic_point, with the same template) at each test point, to
 * convergence and stopped after one update.  Methods rely on the same
 * numbers to the last bit, so the row asks for that: a fused multiply-add
 * in the model's copy (compiled without -ffp-contract=off) fails it. */
static void check_holonomic_projection(checker *c)
{
    const int n = c->m->nq;
    double *work = calloc((size_t)(2 * (3 * n + 2) + n), sizeof(double));
    if (!work) {
        skipped(c, "holonomic_point: project", "out of memory");
        return;
    }
    /* each side: lambda, g, q (n), grad V (n), G (n) contiguous */
    double *xa = work, *xb = xa + 3 * n + 2, *direction = xb + 3 * n + 2;
    int problems = 0, differing = 0;
    gap values = {0, 0};
    for (int k = 0; k < N_POINTS; k++)
        for (int max_iter = 1; max_iter <= 50; max_iter += 49) {
            const wb_projection_problem problem =
                projection_problem(c, c->q[k], direction, max_iter);
            wb_projection_report ra = {.struct_size = sizeof ra};
            wb_projection_report rb = {.struct_size = sizeof rb};
            int evaluated;
            memset(xa, 0, (size_t)(2 * (3 * n + 2)) * sizeof(double));
            const int sa = wb_holonomic_projection(c->m, &problem, xa, xa + 2, xa + 2 + n,
                                                   xa + 1, xa + 2 + 2 * n, &ra);
            const int sb = wb_projection_newton(c->m->holonomic_point.ctx, &problem, xb,
                                                xb + 2, xb + 2 + n, xb + 1, xb + 2 + 2 * n,
                                                &rb, 0, c->m->holonomic_point.fn, &evaluated);
            problems++;
            if (!projection_same(n, sa, &ra, xa, sb, &rb, xb)) {
                differing++;
                gap_add(&values, 3 * n + 2, xa, xb);
            }
        }
    char note[200] = "";
    const double largest = gap_error(&values);
    if (differing)
        snprintf(note, sizeof note, "%d of %d runs differ from the iteration on evaluate(), "
                 "values up to %.1e relative%s", differing, problems, largest,
                 largest < 1e-12 ? " (round-off: fused multiply-adds? compile with "
                                   "-ffp-contract=off)" : "");
    row(c, "holonomic_point: project", differing ? INFINITY : 0.0, differing ? note : NULL);
    free(work);
}

static void check_holonomic(checker *c)
{
    const wb_holonomic_ext *e = c->ext->holonomic;
    const int n = c->m->nq, m = c->m->n_holonomic;
    COMPARE("constraint_jacobian", e->jacobian, m * n,
            wb_constraint_jacobian(c->m, c->q[k], c->a),
            fd_constraint_jacobian(c->m, c->scratch, c->q[k], c->b));
    COMPARE("constraint_hessian_contract", e->hessian_contract, n * n,
            wb_constraint_hessian_contract(c->m, c->q[k], c->mu, c->a),
            fd_constraint_hessian_contract(c->m, c->levels->jacobian, c->scratch, c->q[k], c->mu, c->b));
    COMPARE("constraint_hessian_vector", e->hessian_vector, m * n,
            wb_constraint_hessian_vector(c->m, c->q[k], c->w, c->a),
            fd_constraint_hessian_vector(c->m, c->levels->jacobian, c->scratch, c->q[k], c->w, c->b));
    if (e->third_contract) {
        COMPARE("constraint_third_contract", 1, n * n,
                wb_constraint_third_contract(c->m, c->q[k], c->mu, c->w, c->a),
                fd_constraint_third_contract(c->m, c->levels->contract, c->scratch, c->q[k], c->mu, c->w, c->b));
    } else if (e->flags & WB_HOLONOMIC_QUADRATIC) {
        /* the third derivatives vanish: judged against the second ones */
        double diff = 0, scale = 0;
        for (int k = 0; k < N_POINTS; k++) {
            fd_constraint_third_contract(c->m, c->levels->contract, c->scratch, c->q[k], c->mu,
                                         c->w, c->b);
            wb_constraint_hessian_contract(c->m, c->q[k], c->mu, c->a);
            for (int i = 0; i < n * n; i++)
                diff = worse(diff, fabs(c->b[i])), scale = worse(scale, fabs(c->a[i]));
        }
        row(c, "constraints quadratic (D^3 g = 0)", scale > 0 ? diff / scale : diff, NULL);
    } else {
        skipped(c, "constraint_third_contract", "not provided: finite differences");
    }
    if (wb_has_holonomic_point(c->m))
        check_holonomic_point(c);
    if (wb_has_holonomic_projection(c->m))
        check_holonomic_projection(c);
}

/* ---- sparsity ------------------------------------------------------------- */

static void diagonal_matrix(int n, const double *d, double *out)
{
    memset(out, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++)
        out[(size_t)i * n + i] = d[i];
}

/* Each matrix in its declared pattern against the dense callback (the
 * model's or the host's differences): equal values, and no nonzero of the
 * dense matrix outside the pattern (it would read as a difference). */
static void check_sparsity(checker *c)
{
    const wb_sparsity_ext *e = c->ext->sparsity;
    const int n = c->m->nq, m = c->m->n_holonomic;
    void *self = c->self;
    if (e->mass_diagonal)
        COMPARE("sparsity: mass diagonal", 1, n * n,
                (e->mass_diagonal(self, c->q[k], c->d), diagonal_matrix(n, c->d, c->a)),
                wb_mass(c->m, c->q[k], c->b));
    if (e->jacobian_pattern && m > 0) {
        const wb_sparse_pattern *G = e->jacobian_pattern(self);
        COMPARE("sparsity: G in its pattern", 1, m * n,
                (e->jacobian_values(self, c->q[k], c->d), wb_csr_to_dense(G, c->d, c->a)),
                wb_constraint_jacobian(c->m, c->q[k], c->b));
        COMPARE("sparsity: B(q; w) in G's pattern", e->hessian_vector_values, m * n,
                (e->hessian_vector_values(self, c->q[k], c->w, c->d),
                 wb_csr_to_dense(G, c->d, c->a)),
                wb_constraint_hessian_vector(c->m, c->q[k], c->w, c->b));
    }
    if (e->hessian_contract_pattern && m > 0)
        COMPARE("sparsity: T(q; mu) in its pattern", 1, n * n,
                (e->hessian_contract_values(self, c->q[k], c->mu, c->d),
                 wb_csr_to_dense(e->hessian_contract_pattern(self), c->d, c->a)),
                wb_constraint_hessian_contract(c->m, c->q[k], c->mu, c->b));
    if (e->potential_hessian_pattern)
        COMPARE("sparsity: Hessian of V in its pattern", 1, n * n,
                (e->potential_hessian_values(self, c->q[k], c->d),
                 wb_csr_to_dense(e->potential_hessian_pattern(self), c->d, c->a)),
                wb_potential_hessian(c->m, c->q[k], c->b));
}

/* Which nonholonomic derivatives the model gives itself, from either
 * extension. */
typedef struct own_nonholonomic {
    int jacobian_v, jacobian_q, hessian_vv, hessian_qv;
    uint32_t flags;
} own_nonholonomic;

static own_nonholonomic own_nonholonomic_of(const checker *c)
{
    own_nonholonomic o = {0};
    const wb_lie_nonholonomic_ext *g = c->ext->lie_nonholonomic;
    const wb_nonholonomic_ext *e = c->ext->nonholonomic;
    if (c->m->capabilities & WB_CAP_LIE_GROUP)
        o = (own_nonholonomic){g->jacobian_xi != NULL, g->jacobian_g != NULL,
                               g->hessian_xixi_contract != NULL,
                               g->hessian_gxi_contract != NULL, g->flags};
    else
        o = (own_nonholonomic){e->jacobian_v != NULL, e->jacobian_q != NULL,
                               e->hessian_vv_contract != NULL,
                               e->hessian_qv_contract != NULL, e->flags};
    return o;
}

/* Phi(q, 2v) = 2 Phi(q, v) for constraints declared linear in v. */
static void check_linear_in_velocity(checker *c, double *v)
{
    const wb_model *m = c->m;
    const int n = m->nv, k_nh = m->n_nonholonomic;
    gap linear = {0, 0};
    for (int k = 0; k < N_POINTS; k++) {
        wb_velocity(m, c->q[k], c->p[k], v);
        wb_nh_constraints(m, c->q[k], v, c->a);
        for (int i = 0; i < n; i++)
            c->c[i] = 2 * v[i];
        wb_nh_constraints(m, c->q[k], c->c, c->b);
        for (int i = 0; i < k_nh; i++)
            c->a[i] *= 2;
        gap_add(&linear, k_nh, c->a, c->b);
    }
    row(c, "nonholonomic: linear in v", gap_error(&linear), NULL);
}

static void check_nonholonomic(checker *c)
{
    const own_nonholonomic own = own_nonholonomic_of(c);
    const int n = c->m->nv, k_nh = c->m->n_nonholonomic;
    double *v = c->d;
#define NH_COMPARE(label, provided, count, analytic, fd)                    \
    COMPARE(label, provided, count, (wb_velocity(c->m, c->q[k], c->p[k], v), analytic), fd)
    NH_COMPARE("nh_jacobian_v", own.jacobian_v, k_nh * n,
               wb_nh_jacobian_v(c->m, c->q[k], v, c->a),
               fd_nh_jacobian_v(c->m, c->scratch, c->q[k], v, c->b));
    NH_COMPARE("nh_jacobian_q", own.jacobian_q, k_nh * n,
               wb_nh_jacobian_q(c->m, c->q[k], v, c->a),
               fd_nh_jacobian_q(c->m, c->scratch, c->q[k], v, c->b));
    NH_COMPARE("nh_hessian_vv_contract", own.hessian_vv, n * n,
               wb_nh_hessian_vv_contract(c->m, c->q[k], v, c->mu, c->a),
               fd_nh_hessian_vv_contract(c->m, c->levels->nh_jacobian_v, c->scratch, c->q[k], v, c->mu, c->b));
    NH_COMPARE("nh_hessian_qv_contract", own.hessian_qv, n * n,
               wb_nh_hessian_qv_contract(c->m, c->q[k], v, c->mu, c->a),
               fd_nh_hessian_qv_contract(c->m, c->levels->nh_jacobian_v, c->scratch, c->q[k], v, c->mu, c->b));
#undef NH_COMPARE
    if (own.flags & WB_NONHOLONOMIC_LINEAR)
        check_linear_in_velocity(c, v);
}

/* ---- the initial state and the flow ------------------------------------------ */

/* Tangent coordinates of a state: nq position components on a vector
 * space, nv on a group (a shift is exp(e xi) q there), then nv momenta. */
static int tangent_size(const wb_model *m)
{
    return ((m->capabilities & WB_CAP_LIE_GROUP) ? m->nv : m->nq) + m->nv;
}

/* p' -= C^T nu for the velocity constraints' multipliers. */
static int constraint_forces(checker *c, const double *q, const double *p, const double *v,
                             double *dp)
{
    const wb_model *m = c->m;
    const int nv = m->nv;
    double *multiplier = c->scratch, *J = multiplier + m->n_holonomic + m->n_nonholonomic;
    if (m->n_holonomic > 0) {
        if (wb_index1_multiplier(m, q, p, multiplier) != WB_OK)
            return -1;
        wb_constraint_jacobian(m, q, J);
        for (int k = 0; k < m->n_holonomic; k++)
            vec_axpy(nv, -multiplier[k], J + (size_t)k * nv, dp);
    }
    if (m->n_nonholonomic > 0) {
        if (wb_nh_multiplier(m, q, p, multiplier) != WB_OK)
            return -1;
        wb_nh_jacobian_v(m, q, v, J);
        for (int k = 0; k < m->n_nonholonomic; k++)
            vec_axpy(nv, -multiplier[k], J + (size_t)k * nv, dp);
    }
    return 0;
}

/* The free flow: q' = M^-1 p, p' = -grad V - dT/dq on a vector space; on
 * a group xi = f1 and mu' = f2 - ad*_f1 mu. */
static void free_vector_field(checker *c, const double *q, const double *p, double *dq,
                              double *dp)
{
    const wb_model *m = c->m;
    if (m->capabilities & WB_CAP_LIE_GROUP) {
        double *f2 = c->c;
        wb_lie_vector_field(m, q, p, dq, f2);
        wb_lie_ad_star(m, dq, p, dp);
        for (int i = 0; i < m->nv; i++)
            dp[i] = f2[i] - dp[i];
    } else {
        double *tmp = c->c;
        wb_mass_solve(m, q, p, dq);
        wb_potential_gradient(m, q, dp);
        wb_kinetic_gradient(m, q, p, tmp);
        for (int i = 0; i < m->nq; i++)
            dp[i] = -(dp[i] + tmp[i]);
    }
}

/* y' = f(y): the free flow minus the constraint forces. */
static int vector_field(checker *c, const double *q, const double *p, double *dq, double *dp)
{
    free_vector_field(c, q, p, dq, dp);
    return constraint_forces(c, q, p, dq, dp);
}

/* The quantities constant along the flow at a state: the invariants, the
 * energy, then the velocity constraints (hidden holonomic G v, then Phi),
 * which stay zero for the consistent multipliers. */
static int flow_quantities(const wb_model *m)
{
    return m->n_invariants + 1 + m->n_holonomic + m->n_nonholonomic;
}

static void quantities_at(checker *c, const double *q, const double *p, double *out)
{
    const wb_model *m = c->m;
    double *v = c->c, *after = out + m->n_invariants + 1;
    if (m->n_invariants)
        wb_invariants(m, q, p, out);
    out[m->n_invariants] = wb_energy(m, q, p);
    if (m->n_holonomic > 0)
        wb_hidden_constraints(m, q, p, after);
    if (m->n_nonholonomic > 0) {
        wb_velocity(m, q, p, v);
        wb_nh_constraints(m, q, v, after + m->n_holonomic);
    }
}

/* The quantities at y + e f, f restricted to tangent component `only`
 * (all when only < 0), y = (q, p). */
static void shifted_quantities(checker *c, const double *q, const double *p, const double *f,
                               double e, int only, double *out)
{
    const wb_model *m = c->m;
    const int nt = tangent_size(m) - m->nv;
    double *qs = c->b, *ps = c->b + m->nq, *eta = ps + m->nv, *E = eta + m->nv;
    for (int i = 0; i < nt; i++)
        eta[i] = (only < 0 || only == i) ? e * f[i] : 0.0;
    if (m->capabilities & WB_CAP_LIE_GROUP) {
        wb_lie_exp(m, eta, E);
        wb_lie_compose(m, E, q, qs);
    } else {
        for (int i = 0; i < nt; i++)
            qs[i] = q[i] + eta[i];
    }
    for (int i = 0; i < m->nv; i++)
        ps[i] = p[i] + ((only < 0 || only == nt + i) ? e * f[nt + i] : 0.0);
    quantities_at(c, qs, ps, out);
}

/* Add to terms[k] |dI/dy . f| for the direction f (all of y moving). */
static void add_direction_terms(checker *c, const double *q, const double *p, const double *f,
                                double e, double *plus, double *minus, double *terms)
{
    shifted_quantities(c, q, p, f, e, -1, plus);
    shifted_quantities(c, q, p, f, -e, -1, minus);
    for (int k = 0; k < flow_quantities(c->m); k++)
        terms[k] = worse(terms[k], fabs(plus[k] - minus[k]) / (2 * e));
}

/* At (q, p): for each quantity add to rate[k] the size of dI/dt = sum_i
 * dI/dy_i f_i when it rises above the differences' noise, and to terms[k]
 * the sizes of the terms that must cancel: |dI/dy_i f_i| coordinate by
 * coordinate, and, under constraints, the free flow's and the constraint
 * forces' shares |dI/dy . f_free| and |dI/dy . f_forces| (a constraint
 * that one coordinate carries alone, phi = v2, cancels there and nowhere
 * in the coordinates).  -1 when the multipliers cannot be formed. */
static int flow_balance(checker *c, const double *q, const double *p, double *rate,
                        double *terms)
{
    const wb_model *m = c->m;
    const int nt = tangent_size(m), count = flow_quantities(m);
    double *f = c->a, *f_free = f + nt, *f_forces = f_free + nt;
    double *plus = c->d + 2 * count, *minus = plus + count, *noise = minus + count;
    if (vector_field(c, q, p, f, f + nt - m->nv) != 0)
        return -1;
    const int constrained = m->n_holonomic + m->n_nonholonomic > 0;
    if (constrained) {
        free_vector_field(c, q, p, f_free, f_free + nt - m->nv);
        for (int i = 0; i < nt; i++)
            f_forces[i] = f[i] - f_free[i];
    }
    double speed = 0;
    for (int i = 0; i < nt; i++)
        speed = worse(speed, fabs(f[i]));
    if (speed == 0)
        return 0; /* an equilibrium: nothing moves, nothing to balance */
    const double e = 1e-5 / speed;
    shifted_quantities(c, q, p, f, 0.0, -1, plus);
    for (int k = 0; k < count; k++)
        noise[k] = 16 * DBL_EPSILON * fabs(plus[k]) / e;
    for (int i = -1; i < nt; i++) {
        shifted_quantities(c, q, p, f, e, i, plus);
        shifted_quantities(c, q, p, f, -e, i, minus);
        for (int k = 0; k < count; k++) {
            double r = fabs(plus[k] - minus[k]) / (2 * e);
            if (i >= 0)
                terms[k] = worse(terms[k], r);
            else if (!(r <= noise[k]))
                rate[k] = worse(rate[k], r);
        }
    }
    if (constrained) {
        add_direction_terms(c, q, p, f_free, e, plus, minus, terms);
        add_direction_terms(c, q, p, f_forces, e, plus, minus, terms);
    }
    return 0;
}

static void report_flow(checker *c, const double *rate, const double *terms)
{
    const wb_model *m = c->m;
    const int ni = m->n_invariants;
    int energy_kept = m->n_nonholonomic == 0 || (m->nonholonomic_flags & WB_NONHOLONOMIC_LINEAR);
    for (int k = 0; k < flow_quantities(m); k++) {
        char label[96];
        if (k < ni)
            snprintf(label, sizeof label, "flow: d%s/dt = 0", m->invariant_names[k]);
        else if (k == ni)
            snprintf(label, sizeof label, "flow: dE/dt = 0");
        else if (k <= ni + m->n_holonomic)
            snprintf(label, sizeof label, "flow: d(G v)_%d/dt = 0 (multiplier)", k - ni);
        else
            snprintf(label, sizeof label, "flow: dPhi_%d/dt = 0 (multiplier)",
                     k - ni - m->n_holonomic);
        if (k == ni && !energy_kept) {
            skipped(c, label, "not an integral: the constraints are not linear in v");
            continue;
        }
        row(c, label, terms[k] > 0 ? rate[k] / terms[k] : rate[k], NULL);
    }
}

/* The energy, each invariant and the velocity constraints are constant
 * along the flow with the host's consistent multipliers: |dI/dt| relative
 * to the largest term of the sum that must cancel, over the check points
 * made consistent (m:project) when there are constraints; several points,
 * because at a minimum of V every term vanishes. */
static void check_flow(checker *c)
{
    const wb_model *m = c->m;
    const int count = flow_quantities(m), constrained = m->n_holonomic + m->n_nonholonomic;
    if (!(m->capabilities & (WB_CAP_MECHANICAL | WB_CAP_LIE_DYNAMICS)))
        return;
    double *rate = c->d, *terms = c->d + count, *q = c->x, *p = c->x + m->nq;
    for (int k = 0; k < 2 * count; k++)
        c->d[k] = 0;
    for (int point = 0; point < N_POINTS; point++) {
        vec_copy(m->nq, c->q[point], q);
        vec_copy(m->nv, c->p[point], p);
        if (constrained && model_project(c->mi, c->q[point], c->p[point], q, p) != WB_OK) {
            skipped(c, "flow: first integrals", host_last_error());
            return;
        }
        if (flow_balance(c, q, p, rate, terms) != 0) {
            row(c, "flow: consistent multipliers", INFINITY, host_last_error());
            return;
        }
    }
    report_flow(c, rate, terms);
}

static void check_generators(checker *c)
{
    const wb_model *m = c->m;
    if (!c->ext->invariants || !c->ext->invariants->generator)
        return;
    for (int i = 0; i < m->n_invariants; i++) {
        gap g = {0, 0};
        int is_map = 1;
        for (int k = 0; k < N_POINTS && is_map; k++) {
            if (WB_CALL(m, invariant_generator, i, c->q[k], c->a) != 0) {
                is_map = 0;
                break;
            }
            const int n = (m->capabilities & WB_CAP_LIE_GROUP) ? m->nv : m->nq;
            double j = vec_dot(n, c->p[k], c->a);
            wb_invariants(m, c->q[k], c->p[k], c->b);
            gap_add(&g, 1, &j, c->b + i);
        }
        if (is_map) {
            char label[96];
            snprintf(label, sizeof label, "momentum map %s = p.xi(q)", m->invariant_names[i]);
            row(c, label, gap_error(&g), NULL);
        }
    }
}

static void check_initial_state(checker *c)
{
    const wb_model *m = c->m;
    if (m->n_holonomic > 0) {
        wb_constraints(m, c->q[0], c->a);
        row(c, "initial state: g(q0) = 0", vec_max_abs(m->n_holonomic, c->a), NULL);
        wb_hidden_constraints(m, c->q[0], c->p[0], c->a);
        row(c, "initial state: G M^-1 p0 = 0", vec_max_abs(m->n_holonomic, c->a), NULL);
    }
    if (m->n_nonholonomic > 0) {
        wb_velocity(m, c->q[0], c->p[0], c->c);
        wb_nh_constraints(m, c->q[0], c->c, c->a);
        row(c, "initial state: Phi(q0, v0) = 0", vec_max_abs(m->n_nonholonomic, c->a), NULL);
    }
}

/* ---- potential invariants ----------------------------------------------------- */

/* V = sum_i V_i(pi_i), the invariants' gradients and the V_i' against finite
 * differences, the closed-form quotient if any, and the defining property of
 * the discrete gradient: DG V(q0, q1) . (q1 - q0) = V(q1) - V(q0). */
static void check_potential_invariants(checker *c)
{
    const wb_model *m = c->m;
    const wb_potential_invariants_ext *e = c->ext->potential_invariants;
    void *self = c->self;
    const int n = m->nq, k = m->n_potential_invariants;
    double *pi = c->c, *V = pi + k, *dV = V + k, *pp = dV + k, *fd = pp + k, *x = fd + k * n;
    gap sum = {0, 0}, grad = {0, 0}, slope = {0, 0}, quotient = {0, 0}, direction = {0, 0};
    gap midpoint = {0, 0}; /* pi(q1) - pi(q0) = grad pi(q_mid) (q1 - q0)? */
    for (int point = 0; point < N_POINTS; point++) {
        const double *q = c->q[point];
        e->invariants(self, q, pi);
        e->potentials(self, pi, V, dV);
        double total = 0;
        for (int i = 0; i < k; i++)
            total += V[i];
        double v = wb_potential(m, q);
        gap_add(&sum, 1, &total, &v);
        e->invariants_gradient(self, q, c->a);
        for (int j = 0; j < n; j++) { /* d pi / d q_j, column j */
            double h = wb_fd_step(q[j], 0);
            memcpy(x, q, (size_t)n * sizeof(double));
            x[j] = q[j] + h;
            e->invariants(self, x, pp);
            x[j] = q[j] - h;
            e->invariants(self, x, fd);
            for (int i = 0; i < k; i++)
                c->b[i * n + j] = (pp[i] - fd[i]) / (2 * h);
        }
        gap_add(&grad, k * n, c->a, c->b);
        for (int i = 0; i < k; i++) { /* V_i' */
            double h = wb_fd_step(pi[i], 0), vp[2];
            memcpy(pp, pi, (size_t)k * sizeof(double));
            pp[i] = pi[i] + h;
            e->potentials(self, pp, fd, NULL);
            vp[0] = fd[i];
            pp[i] = pi[i] - h;
            e->potentials(self, pp, fd, NULL);
            vp[1] = (vp[0] - fd[i]) / (2 * h);
            gap_add(&slope, 1, &dV[i], &vp[1]);
        }
        const double *q1 = c->q[(point + 1) % N_POINTS];
        if (e->difference_quotient) {
            e->invariants(self, q1, pp);
            e->difference_quotient(self, pi, pp, c->a);
            e->potentials(self, pp, fd, NULL);
            for (int i = 0; i < k; i++)
                c->b[i] = (fd[i] - V[i]) / (pp[i] - pi[i]);
            gap_add(&quotient, k, c->a, c->b);
        }
        WB_CALL(m, potential_discrete_gradient, q, q1, c->a);
        double change = 0, predicted = wb_potential(m, q1) - v;
        for (int j = 0; j < n; j++)
            change += c->a[j] * (q1[j] - q[j]);
        gap_add(&direction, 1, &change, &predicted);
        for (int j = 0; j < n; j++)
            x[j] = 0.5 * (q[j] + q1[j]);
        e->invariants_gradient(self, x, c->b);
        e->invariants(self, q1, pp);
        for (int i = 0; i < k; i++) {
            double rule = 0;
            for (int j = 0; j < n; j++)
                rule += c->b[i * n + j] * (q1[j] - q[j]);
            c->d[i] = pp[i] - pi[i];
            c->d[k + i] = rule;
        }
        gap_add(&midpoint, k, c->d + k, c->d);
    }
    row(c, "potential = sum V_i(pi_i)", gap_error(&sum), NULL);
    row(c, "invariants_gradient", gap_error(&grad), NULL);
    row(c, "potentials: V_i'", gap_error(&slope), NULL);
    if (e->difference_quotient)
        row(c, "difference_quotient", gap_error(&quotient), NULL);
    /* Greenspan's DG is a discrete gradient only when the midpoint rule is
     * exact for the invariants, i.e. when they are quadratic */
    if (gap_error(&midpoint) <= c->tol)
        row(c, "discrete gradient: DG.dq = dV", gap_error(&direction),
            "(the invariants are quadratic)");
    else
        skipped(c, "discrete gradient: DG.dq = dV",
                "invariants not quadratic: Greenspan's DG is not exact for them");
}

/* ---- driver --------------------------------------------------------------------- */

static int setup_points(checker *c)
{
    const wb_model *m = c->m;
    const int nq = m->nq, nv = m->nv;
    unsigned seed = 12345u;
    if (m->capabilities & WB_CAP_INITIAL_STATE) {
        wb_initial(m, c->q[0], c->p[0]);
    } else if (m->capabilities & WB_CAP_LIE_GROUP) {
        wb_lie_identity(m, c->q[0]);
        for (int i = 0; i < nv; i++)
            c->p[0][i] = 0.5 + 0.1 * i;
    } else {
        for (int i = 0; i < nq; i++)
            c->q[0][i] = 0.3 + 0.1 * i;
        for (int i = 0; i < nv; i++)
            c->p[0][i] = 0.2 - 0.05 * i;
    }
    for (int k = 1; k < N_POINTS; k++) {
        if (m->capabilities & WB_CAP_LIE_GROUP) {
            for (int i = 0; i < nv; i++)
                c->a[i] = 0.3 * jitter(&seed);
            wb_lie_exp(m, c->a, c->b);
            wb_lie_compose(m, c->b, c->q[0], c->q[k]);
        } else {
            for (int i = 0; i < nq; i++)
                c->q[k][i] = c->q[0][i] + 0.1 * jitter(&seed) * fmax(1, fabs(c->q[0][i]));
        }
        for (int i = 0; i < nv; i++)
            c->p[k][i] = c->p[0][i] + 0.1 * jitter(&seed) * fmax(1, fabs(c->p[0][i]));
    }
    int nmax = nq > nv ? nq : nv;
    for (int i = 0; i < nmax; i++) {
        c->mu[i] = 0.5 + 0.4 * jitter(&seed);
        c->w[i] = jitter(&seed);
    }
    return 0;
}

int check_model(model_instance *mi, FILE *out, double tol)
{
    const wb_model *m = model_instance_view(mi);
    checker c = {.out = out, .tol = tol, .mi = mi, .m = m, .ext = model_instance_extensions(mi),
                 .levels = model_instance_fd_levels(mi), .self = model_instance_self(mi)};
    int n = m->nq + m->nv + m->n_holonomic + m->n_nonholonomic + m->n_invariants +
            m->n_potential_invariants + 4;
    size_t big = (size_t)n * n + 4 * (size_t)n;
    double *block = calloc(2 * N_POINTS * (size_t)n + 4 * big + fd_scratch_size(m) + 3 * (size_t)n,
                           sizeof(double));
    if (!block) {
        fprintf(out, "out of memory\n");
        return 1;
    }
    double *p = block;
    for (int k = 0; k < N_POINTS; k++) {
        c.q[k] = p, p += n;
        c.p[k] = p, p += n;
    }
    c.a = p, p += big;
    c.b = p, p += big;
    c.c = p, p += big;
    c.d = p, p += big;
    c.mu = p, p += n;
    c.w = p, p += n;
    c.x = p, p += n;
    c.scratch = p;
    setup_points(&c);
    fprintf(out, "model %s: nq %d, nv %d, holonomic %d, nonholonomic %d, invariants %d, %s\n",
            m->name, m->nq, m->nv, m->n_holonomic, m->n_nonholonomic, m->n_invariants,
            (m->capabilities & WB_CAP_LIE_GROUP) ? "on a Lie group"
            : m->mass_constant                  ? "mass constant"
                                                : "mass configuration-dependent");
    fprintf(out, "  %-40s %10s   %s\n", "check", "rel. error", "status");
    check_output_bounds(&c);
    if (m->capabilities & WB_CAP_MECHANICAL) {
        check_mass(&c);
        check_potential(&c);
    }
    if (m->n_holonomic > 0)
        check_holonomic(&c);
    if (c.ext->sparsity)
        check_sparsity(&c);
    if (m->n_nonholonomic > 0)
        check_nonholonomic(&c);
    if (m->capabilities & WB_CAP_INITIAL_STATE)
        check_initial_state(&c);
    check_flow(&c);
    check_generators(&c);
    if (m->capabilities & WB_CAP_POTENTIAL_INVARIANTS)
        check_potential_invariants(&c);
    if (m->capabilities & WB_CAP_LIE_GROUP)
        check_lie_group(&c);
    if (m->capabilities & WB_CAP_LIE_HAMILTONIAN)
        check_lie_hamiltonian(&c);
    if (m->capabilities & WB_CAP_LIE_LAGRANGIAN)
        check_lie_lagrangian(&c);
    fprintf(out, "%s: %d check(s) failed (tolerance %.1e)\n", m->name, c.failures, tol);
    free(block);
    return c.failures;
}
