/* check-model: every callback the model provides writes inside its output
 * arrays.  A callback that writes one value past its array corrupts
 * whatever the caller keeps there -- a method's next array, its Newton
 * matrix -- and a run may go on with the same numbers, so nothing else
 * shows it.  Here each output array is a fresh allocation with guard
 * values before and after it, and a callback that changed one fails a
 * row named after it. */
#include "cli/check_model_internal.h"
#include "wb_vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GUARDS 8      /* doubles each side */
#define MAX_OUTPUTS 5 /* holonomic_point project(): lambda, q, grad V, g, G */

/* A signalling NaN with a payload: no computed value looks like it. */
static const uint64_t guard_bits = 0x7ff4a5a5deadbeefULL;

typedef struct guarded {
    checker *c;
    int count;
    int n[MAX_OUTPUTS];
    const char *name[MAX_OUTPUTS];
    double *block[MAX_OUTPUTS];
    double *out[MAX_OUTPUTS]; /* block + GUARDS */
    int callbacks;            /* checked so far */
    int overruns;
} guarded;

static int is_guard(const double *x)
{
    uint64_t bits;
    memcpy(&bits, x, sizeof bits);
    return bits == guard_bits;
}

/* Output i of the next call: n values named `name`. */
static double *output(guarded *g, const char *name, int n)
{
    const int i = g->count++;
    const size_t total = (size_t)(n > 0 ? n : 0) + 2 * GUARDS;
    g->n[i] = n > 0 ? n : 0;
    g->name[i] = name;
    g->block[i] = malloc(total * sizeof(double));
    if (!g->block[i]) /* the check cannot run: no output array */
        return NULL;
    for (size_t k = 0; k < total; k++)
        memcpy(&g->block[i][k], &guard_bits, sizeof guard_bits);
    g->out[i] = g->block[i] + GUARDS;
    return g->out[i];
}

/* The guards of output i: the first changed, as an index into the array
 * (negative: before it), or INT32_MIN when all are intact. */
static int first_changed(const guarded *g, int i)
{
    for (int k = -GUARDS; k < 0; k++)
        if (!is_guard(&g->out[i][k]))
            return k;
    for (int k = g->n[i]; k < g->n[i] + GUARDS; k++)
        if (!is_guard(&g->out[i][k]))
            return k;
    return INT32_MIN;
}

/* After the call: a FAIL row per output written outside, then the arrays
 * are freed for the next call. */
static void judge(guarded *g, const char *callback)
{
    int allocated = 1;
    for (int i = 0; i < g->count; i++)
        allocated = allocated && g->block[i];
    for (int i = 0; i < g->count && allocated; i++) {
        const int k = first_changed(g, i);
        if (k == INT32_MIN)
            continue;
        char label[96], note[160];
        snprintf(label, sizeof label, "%s: writes outside its arrays", callback);
        snprintf(note, sizeof note, "%s[%d] written, %s %s %d value%s", g->name[i], k,
                 k < 0 ? "before" : "past", g->name[i], g->n[i], g->n[i] == 1 ? "" : "s");
        row(g->c, label, INFINITY, note);
        g->overruns++;
    }
    if (allocated)
        g->callbacks++;
    for (int i = 0; i < g->count; i++)
        free(g->block[i]);
    g->count = 0;
}

/* `call` run with the outputs declared before it, then judged; a callback
 * whose outputs could not be allocated is not called. */
#define GUARDED(g, callback, call)                                          \
    do {                                                                    \
        int ready_ = 1;                                                     \
        for (int i_ = 0; i_ < (g)->count; i_++)                             \
            ready_ = ready_ && (g)->block[i_];                              \
        if (ready_)                                                         \
            call;                                                           \
        judge((g), (callback));                                             \
    } while (0)

/* The model's own member, when its struct holds it and it is set. */
#define OWN(ext, type, field) ((ext) && WB_HAS_FIELD(ext, type, field) && (ext)->field)

static void mechanical(guarded *g, const double *q, const double *p)
{
    const wb_mechanical_ext *e = g->c->ext->mechanical;
    void *self = g->c->self;
    const int n = g->c->m->nq;
    double *a;
    a = output(g, "M", n * n);
    GUARDED(g, "mass", e->mass(self, q, a));
    if (OWN(e, wb_mechanical_ext, mass_solve)) {
        a = output(g, "v", n);
        GUARDED(g, "mass_solve", e->mass_solve(self, q, p, a));
    }
    if (OWN(e, wb_mechanical_ext, potential_gradient)) {
        a = output(g, "g", n);
        GUARDED(g, "potential_gradient", e->potential_gradient(self, q, a));
    }
    if (OWN(e, wb_mechanical_ext, potential_hessian)) {
        a = output(g, "H", n * n);
        GUARDED(g, "potential_hessian", e->potential_hessian(self, q, a));
    }
    if (OWN(e, wb_mechanical_ext, kinetic_gradient)) {
        a = output(g, "g", n);
        GUARDED(g, "kinetic_gradient", e->kinetic_gradient(self, q, p, a));
    }
}

static void holonomic(guarded *g, const double *q, const double *mu, const double *w)
{
    const wb_holonomic_ext *e = g->c->ext->holonomic;
    void *self = g->c->self;
    const int n = g->c->m->nq, m = g->c->m->n_holonomic;
    double *a, *b, *d;
    a = output(g, "g", m);
    GUARDED(g, "constraints", e->constraints(self, q, a));
    if (OWN(e, wb_holonomic_ext, jacobian)) {
        a = output(g, "G", m * n);
        GUARDED(g, "constraint jacobian", e->jacobian(self, q, a));
    }
    if (OWN(e, wb_holonomic_ext, hessian_contract)) {
        a = output(g, "T", n * n);
        GUARDED(g, "constraint hessian_contract", e->hessian_contract(self, q, mu, a));
    }
    if (OWN(e, wb_holonomic_ext, hessian_vector)) {
        a = output(g, "B", m * n);
        GUARDED(g, "constraint hessian_vector", e->hessian_vector(self, q, w, a));
    }
    if (OWN(e, wb_holonomic_ext, third_contract)) {
        a = output(g, "D", n * n);
        GUARDED(g, "constraint third_contract", e->third_contract(self, q, mu, w, a));
    }
    const wb_holonomic_point_ext *point = g->c->ext->holonomic_point;
    if (OWN(point, wb_holonomic_point_ext, evaluate)) {
        a = output(g, "grad_V", n);
        b = output(g, "g", m);
        d = output(g, "G", m * n);
        GUARDED(g, "holonomic_point evaluate", point->evaluate(self, q, a, b, d));
    }
}

/* project() on a problem it must iterate on: from a point off g = 0
 * along G(q)^T, a few updates. */
static void holonomic_projection(guarded *g, const double *q)
{
    const wb_model *m = g->c->m;
    const int n = m->nq;
    if (!wb_has_holonomic_projection(m))
        return;
    double *direction = g->c->x;
    wb_constraint_jacobian(m, q, direction);
    const double size = vec_dot(n, direction, direction);
    const wb_projection_problem problem = {
        .struct_size = sizeof problem, .nq = n, .drift = q, .direction = direction,
        .c = size > 0 ? -0.5 / size : -1.0, .tol = 1e-13, .floor = 1e-13, .max_iter = 3};
    wb_projection_report report = {.struct_size = sizeof report};
    double *lambda = output(g, "lambda", 1);
    double *qs = output(g, "q", n), *grad = output(g, "grad_V", n);
    double *value = output(g, "g", 1), *G = output(g, "G", n);
    if (lambda)
        *lambda = 0;
    GUARDED(g, "holonomic_point project",
            wb_holonomic_projection(m, &problem, lambda, qs, grad, value, G, &report));
}

static void nonholonomic(guarded *g, const double *q, const double *v, const double *lam)
{
    const wb_nonholonomic_ext *e = g->c->ext->nonholonomic;
    void *self = g->c->self;
    const int n = g->c->m->nq, k = g->c->m->n_nonholonomic;
    double *a;
    a = output(g, "phi", k);
    GUARDED(g, "nonholonomic constraints", e->constraints(self, q, v, a));
    if (OWN(e, wb_nonholonomic_ext, jacobian_v)) {
        a = output(g, "A", k * n);
        GUARDED(g, "nonholonomic jacobian_v", e->jacobian_v(self, q, v, a));
    }
    if (OWN(e, wb_nonholonomic_ext, jacobian_q)) {
        a = output(g, "B", k * n);
        GUARDED(g, "nonholonomic jacobian_q", e->jacobian_q(self, q, v, a));
    }
    if (OWN(e, wb_nonholonomic_ext, hessian_vv_contract)) {
        a = output(g, "out", n * n);
        GUARDED(g, "nonholonomic hessian_vv_contract", e->hessian_vv_contract(self, q, v, lam, a));
    }
    if (OWN(e, wb_nonholonomic_ext, hessian_qv_contract)) {
        a = output(g, "out", n * n);
        GUARDED(g, "nonholonomic hessian_qv_contract", e->hessian_qv_contract(self, q, v, lam, a));
    }
}

static void invariants_and_state(guarded *g, const double *q, const double *p)
{
    const wb_model *m = g->c->m;
    const wb_invariants_ext *e = g->c->ext->invariants;
    void *self = g->c->self;
    double *a, *b;
    if (OWN(e, wb_invariants_ext, evaluate) && m->n_invariants > 0) {
        a = output(g, "out", m->n_invariants);
        GUARDED(g, "invariants evaluate", e->evaluate(self, q, p, a));
    }
    if (OWN(e, wb_invariants_ext, generator))
        for (int i = 0; i < m->n_invariants; i++) {
            a = output(g, "xi", (m->capabilities & WB_CAP_LIE_GROUP) ? m->nv : m->nq);
            GUARDED(g, "invariants generator", e->generator(self, i, q, a));
        }
    const wb_initial_state_ext *init = g->c->ext->initial;
    if (OWN(init, wb_initial_state_ext, initial)) {
        a = output(g, "q", m->nq);
        b = output(g, "p", m->nv);
        GUARDED(g, "initial", init->initial(self, a, b));
    }
}

static void potential_invariants(guarded *g, const double *q0, const double *q1)
{
    const wb_potential_invariants_ext *e = g->c->ext->potential_invariants;
    void *self = g->c->self;
    const int n = g->c->m->nq, k = g->c->m->n_potential_invariants;
    double *pi0 = g->c->d, *pi1 = pi0 + k, *a, *b;
    e->invariants(self, q0, pi0);
    e->invariants(self, q1, pi1);
    a = output(g, "pi", k);
    GUARDED(g, "potential invariants", e->invariants(self, q0, a));
    a = output(g, "dpi", k * n);
    GUARDED(g, "potential invariants_gradient", e->invariants_gradient(self, q0, a));
    a = output(g, "V", k);
    b = output(g, "dV", k);
    GUARDED(g, "potential potentials", e->potentials(self, pi0, a, b));
    if (OWN(e, wb_potential_invariants_ext, difference_quotient)) {
        a = output(g, "out", k);
        GUARDED(g, "potential difference_quotient", e->difference_quotient(self, pi0, pi1, a));
    }
}

/* The nonzeros of a pattern the model gives, 0 without one. */
static int nonzeros(const wb_sparse_pattern *pattern)
{
    return pattern ? pattern->nnz : 0;
}

static void sparsity(guarded *g, const double *q, const double *mu, const double *w)
{
    const wb_sparsity_ext *e = g->c->ext->sparsity;
    void *self = g->c->self;
    const int m = g->c->m->n_holonomic;
    double *a;
    if (OWN(e, wb_sparsity_ext, mass_diagonal)) {
        a = output(g, "d", g->c->m->nq);
        GUARDED(g, "sparsity mass_diagonal", e->mass_diagonal(self, q, a));
    }
    if (OWN(e, wb_sparsity_ext, jacobian_pattern) && e->jacobian_values && m > 0) {
        const int nnz = nonzeros(e->jacobian_pattern(self));
        a = output(g, "values", nnz);
        GUARDED(g, "sparsity jacobian_values", e->jacobian_values(self, q, a));
        if (e->hessian_vector_values) {
            a = output(g, "values", nnz);
            GUARDED(g, "sparsity hessian_vector_values", e->hessian_vector_values(self, q, w, a));
        }
    }
    if (OWN(e, wb_sparsity_ext, hessian_contract_pattern) && e->hessian_contract_values && m > 0) {
        a = output(g, "values", nonzeros(e->hessian_contract_pattern(self)));
        GUARDED(g, "sparsity hessian_contract_values",
                e->hessian_contract_values(self, q, mu, a));
    }
    if (OWN(e, wb_sparsity_ext, potential_hessian_pattern) && e->potential_hessian_values) {
        a = output(g, "values", nonzeros(e->potential_hessian_pattern(self)));
        GUARDED(g, "sparsity potential_hessian_values", e->potential_hessian_values(self, q, a));
    }
}

/* The group's functions at an element q and algebra elements x, y and a
 * covector mu (nv values each). */
static void lie_group(guarded *g, const double *q, const double *x, const double *y,
                      const double *mu)
{
    const wb_lie_group_ext *e = g->c->ext->lie_group;
    void *self = g->c->self;
    const int nq = g->c->m->nq, nv = g->c->m->nv;
    double *a;
#define GROUP(field, size, call)                         \
    if (OWN(e, wb_lie_group_ext, field)) {               \
        a = output(g, "out", size);                      \
        GUARDED(g, "lie_group " #field, call);           \
    }
    GROUP(identity, nq, e->identity(self, a))
    GROUP(compose, nq, e->compose(self, q, q, a))
    GROUP(inverse, nq, e->inverse(self, q, a))
    GROUP(exp, nq, e->exp(self, x, a))
    GROUP(log, nv, e->log(self, q, a))
    GROUP(dexp, nv, e->dexp(self, x, y, a))
    GROUP(dexpinv, nv, e->dexpinv(self, x, y, a))
    GROUP(ad, nv, e->ad(self, x, y, a))
    GROUP(ad_star, nv, e->ad_star(self, x, mu, a))
    GROUP(Ad, nv, e->Ad(self, q, x, a))
    GROUP(Ad_star, nv, e->Ad_star(self, q, mu, a))
    GROUP(cay, nq, e->cay(self, x, a))
    GROUP(dcayinv, nv, e->dcayinv(self, x, y, a))
    GROUP(dcay, nv, e->dcay(self, x, y, a))
    GROUP(dcayinv_derivative, nv, e->dcayinv_derivative(self, x, y, mu, a))
    GROUP(dexp_star, nv, e->dexp_star(self, x, mu, a))
#undef GROUP
}

static void lie_dynamics(guarded *g, const double *q, const double *xi, const double *mu,
                         const double *lam)
{
    void *self = g->c->self;
    const int nv = g->c->m->nv, k = g->c->m->n_nonholonomic;
    double *a, *b;
    const wb_lie_hamiltonian_ext *h = g->c->ext->lie_hamiltonian;
    if (OWN(h, wb_lie_hamiltonian_ext, vector_field)) {
        a = output(g, "f1", nv);
        b = output(g, "f2", nv);
        GUARDED(g, "lie_hamiltonian vector_field", h->vector_field(self, q, mu, a, b));
    }
    const wb_lie_lagrangian_ext *l = g->c->ext->lie_lagrangian;
#define LAGRANGIAN(field, size, call)                    \
    if (OWN(l, wb_lie_lagrangian_ext, field)) {          \
        a = output(g, "out", size);                      \
        GUARDED(g, "lie_lagrangian " #field, call);      \
    }
    LAGRANGIAN(momentum, nv, l->momentum(self, q, xi, a))
    LAGRANGIAN(force, nv, l->force(self, q, xi, a))
    LAGRANGIAN(velocity, nv, l->velocity(self, q, mu, a))
    LAGRANGIAN(momentum_jacobian_xi, nv * nv, l->momentum_jacobian_xi(self, q, xi, a))
    LAGRANGIAN(momentum_jacobian_g, nv * nv, l->momentum_jacobian_g(self, q, xi, a))
    LAGRANGIAN(force_jacobian_g, nv * nv, l->force_jacobian_g(self, q, xi, a))
#undef LAGRANGIAN
    const wb_lie_nonholonomic_ext *nh = g->c->ext->lie_nonholonomic;
#define CONSTRAINT(field, size, call)                    \
    if (OWN(nh, wb_lie_nonholonomic_ext, field)) {       \
        a = output(g, "out", size);                      \
        GUARDED(g, "lie_nonholonomic " #field, call);    \
    }
    CONSTRAINT(constraints, k, nh->constraints(self, q, xi, a))
    CONSTRAINT(jacobian_xi, k * nv, nh->jacobian_xi(self, q, xi, a))
    CONSTRAINT(jacobian_g, k * nv, nh->jacobian_g(self, q, xi, a))
    CONSTRAINT(hessian_xixi_contract, nv * nv, nh->hessian_xixi_contract(self, q, xi, lam, a))
    CONSTRAINT(hessian_gxi_contract, nv * nv, nh->hessian_gxi_contract(self, q, xi, lam, a))
#undef CONSTRAINT
}

void check_output_bounds(checker *c)
{
    const wb_model *m = c->m;
    guarded g = {.c = c};
    const double *q = c->q[1], *p = c->p[1];
    /* the fixed test vectors hold at least max(nq, nv) values; c->b is
     * the velocity, c->c a second algebra element */
    const double *mu = c->mu, *w = c->w;
    if (c->ext->mechanical)
        mechanical(&g, q, p);
    if (c->ext->holonomic && m->n_holonomic > 0) {
        holonomic(&g, q, mu, w);
        holonomic_projection(&g, q);
    }
    if (c->ext->nonholonomic && m->n_nonholonomic > 0) {
        wb_velocity(m, q, p, c->b);
        nonholonomic(&g, q, c->b, mu);
    }
    invariants_and_state(&g, q, p);
    if (c->ext->potential_invariants && m->n_potential_invariants > 0)
        potential_invariants(&g, q, c->q[2]);
    if (c->ext->sparsity)
        sparsity(&g, q, mu, w);
    if (c->ext->lie_group) {
        for (int i = 0; i < m->nv; i++)
            c->c[i] = 0.3 * w[i];
        lie_group(&g, q, c->c, w, p);
        if (m->capabilities & WB_CAP_LIE_DYNAMICS)
            wb_velocity(m, q, p, c->b);
        else
            vec_copy(m->nv, c->c, c->b);
        lie_dynamics(&g, q, c->b, p, mu);
    }
    if (!g.overruns) {
        char label[96];
        snprintf(label, sizeof label, "outputs inside their arrays (%d calls)", g.callbacks);
        row(c, label, 0.0, NULL);
    }
}
