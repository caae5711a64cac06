/* Model instances and the resolved view handed to integrators. */
#include "run/model_instance.h"
#include "run/model_view_internal.h"
#include "host/descriptor.h"
#include "host/host.h"
#include "wb_fd.h"
#include "wb_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const wb_model *model_instance_view(const model_instance *mi) { return &mi->view; }
const plugin *model_instance_plugin(const model_instance *mi) { return mi->plugin; }
const double *model_instance_params(const model_instance *mi) { return mi->params; }
const model_extensions *model_instance_extensions(const model_instance *mi) { return &mi->ext; }
void *model_instance_self(const model_instance *mi) { return mi->self; }
const fd_levels *model_instance_fd_levels(const model_instance *mi) { return &mi->levels; }

/* ---- fallbacks: ctx is a fallback_slot ------------------------------------ */

static void fb_mass_solve(void *ctx, const double *q, const double *p, double *v)
{
    fallback_slot *s = ctx;
    model_instance *mi = s->owner;
    const int n = mi->info.nq;
    memcpy(v, p, (size_t)n * sizeof(double));
    if (mi->mass_factor) {
        linalg_cholesky_solve(host_services(), n, 1, mi->mass_factor, v);
        return;
    }
    WB_CALL(&mi->view, mass, q, s->scratch);
    if (linalg_cholesky_factor(host_services(), n, s->scratch) != WB_OK) {
        for (int i = 0; i < n; i++)
            v[i] = NAN; /* surfaces as a non-finite step, never a silent value */
        return;
    }
    linalg_cholesky_solve(host_services(), n, 1, s->scratch, v);
}

static void fb_potential_gradient(void *ctx, const double *q, double *g)
{
    fallback_slot *s = ctx;
    fd_potential_gradient(&s->owner->view, s->scratch, q, g);
}

static void fb_potential_hessian(void *ctx, const double *q, double *H)
{
    fallback_slot *s = ctx;
    fd_potential_hessian(&s->owner->view, s->owner->levels.gradient, s->scratch, q, H);
}

static void fb_kinetic_gradient(void *ctx, const double *q, const double *p, double *g)
{
    fallback_slot *s = ctx;
    if (s->owner->info.mass_constant) {
        memset(g, 0, (size_t)s->owner->info.nq * sizeof(double));
        return;
    }
    fd_kinetic_gradient(&s->owner->view, s->scratch, q, p, g);
}

static double fb_energy(void *ctx, const double *q, const double *p)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    wb_mass_solve(m, q, p, s->scratch);
    return 0.5 * vec_dot(m->nq, p, s->scratch) + wb_potential(m, q);
}

static double fb_lie_energy(void *ctx, const double *q, const double *p)
{
    fallback_slot *s = ctx;
    model_instance *mi = s->owner;
    return mi->ext.lie_hamiltonian->hamiltonian(mi->self, q, p);
}

static void fb_constraint_jacobian(void *ctx, const double *q, double *G)
{
    fallback_slot *s = ctx;
    fd_constraint_jacobian(&s->owner->view, s->scratch, q, G);
}

static void fb_hessian_contract(void *ctx, const double *q, const double *mu, double *T)
{
    fallback_slot *s = ctx;
    fd_constraint_hessian_contract(&s->owner->view, s->owner->levels.jacobian, s->scratch, q,
                                   mu, T);
}

static void fb_hessian_vector(void *ctx, const double *q, const double *w, double *B)
{
    fallback_slot *s = ctx;
    fd_constraint_hessian_vector(&s->owner->view, s->owner->levels.jacobian, s->scratch, q, w,
                                 B);
}

static void fb_third_contract(void *ctx, const double *q, const double *mu,
                              const double *w, double *D)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    if (m->holonomic_flags & WB_HOLONOMIC_QUADRATIC) {
        memset(D, 0, (size_t)m->nq * m->nq * sizeof(double));
        return;
    }
    fd_constraint_third_contract(m, s->owner->levels.contract, s->scratch, q, mu, w, D);
}

static void fb_hidden_constraints(void *ctx, const double *q, const double *p, double *gv)
{
    fallback_slot *s = ctx;
    const wb_model *m = &s->owner->view;
    double *v = s->scratch, *G = s->scratch + m->nq;
    wb_mass_solve(m, q, p, v);
    wb_constraint_jacobian(m, q, G);
    for (int k = 0; k < m->n_holonomic; k++)
        gv[k] = vec_dot(m->nq, G + (size_t)k * m->nq, v);
}

/* Greenspan: sum_i [V_i(pi_i(q1)) - V_i(pi_i(q0))] / [pi_i(q1) - pi_i(q0)]
 * grad pi_i(q_mid).  Where the two invariants nearly agree the quotient is
 * 0/0-prone and V_i' at their mean replaces it (to O(d^2)); the model may
 * supply the quotient in closed form instead. */
static int nearly_equal(double a, double b)
{
    return !(fabs(b - a) > 1e-9 * (1.0 + fabs(a)));
}

static void fb_potential_discrete_gradient(void *ctx, const double *q0, const double *q1,
                                           double *dg)
{
    model_instance *mi = ctx;
    const wb_potential_invariants_ext *e = mi->ext.potential_invariants;
    const int n = mi->info.nq, k = mi->view.n_potential_invariants;
    double *pi0 = mi->invariant_work, *pi1 = pi0 + k, *v0 = pi1 + k, *v1 = v0 + k;
    double *mean = v1 + k, *slope = mean + k, *quotient = slope + k, *qm = quotient + k;
    double *dpi = qm + n;
    e->invariants(mi->self, q0, pi0);
    e->invariants(mi->self, q1, pi1);
    if (EXT_FN(e, wb_potential_invariants_ext, difference_quotient)) {
        e->difference_quotient(mi->self, pi0, pi1, quotient);
    } else {
        e->potentials(mi->self, pi0, v0, NULL);
        e->potentials(mi->self, pi1, v1, NULL);
        int close = 0;
        for (int i = 0; i < k; i++)
            close |= nearly_equal(pi0[i], pi1[i]);
        if (close) { /* the quotient would cancel: V_i' at the mean instead */
            for (int i = 0; i < k; i++)
                mean[i] = 0.5 * (pi0[i] + pi1[i]);
            e->potentials(mi->self, mean, NULL, slope);
        }
        for (int i = 0; i < k; i++)
            quotient[i] = nearly_equal(pi0[i], pi1[i]) ? slope[i]
                                                       : (v1[i] - v0[i]) / (pi1[i] - pi0[i]);
    }
    for (int j = 0; j < n; j++)
        qm[j] = 0.5 * (q0[j] + q1[j]);
    e->invariants_gradient(mi->self, qm, dpi);
    mat_t_vec(k, n, dpi, quotient, dg);
}

static int bind_potential_invariants(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_potential_invariants_ext *e = mi->ext.potential_invariants;
    if (!e->count || !e->invariants || !e->invariants_gradient || !e->potentials) {
        host_error("model '%s': extension %s must provide count, invariants, "
                   "invariants_gradient and potentials", v->name, WB_EXT_POTENTIAL_INVARIANTS);
        return -1;
    }
    if (!mi->ext.mechanical) {
        host_error("model '%s': %s writes the potential of %s, which the model does not "
                   "provide", v->name, WB_EXT_POTENTIAL_INVARIANTS, WB_EXT_MECHANICAL);
        return -1;
    }
    int k = e->count(mi->self);
    if (k < 1) {
        host_error("model '%s': %s reports %d invariants", v->name, WB_EXT_POTENTIAL_INVARIANTS, k);
        return -1;
    }
    mi->invariant_work = calloc((size_t)k * (7 + (size_t)mi->info.nq) + (size_t)mi->info.nq,
                                sizeof(double));
    if (!mi->invariant_work) {
        host_error("model '%s': out of memory", v->name);
        return -1;
    }
    v->n_potential_invariants = k;
    v->potential_discrete_gradient.fn = fb_potential_discrete_gradient;
    v->potential_discrete_gradient.ctx = mi;
    v->capabilities |= WB_CAP_POTENTIAL_INVARIANTS;
    return 0;
}

static int fb_no_generator(void *ctx, int index, const double *q, double *xi)
{
    (void)ctx, (void)index, (void)q, (void)xi;
    return -1;
}

/* ---- building the view ------------------------------------------------------ */

static int bind_mechanical(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_mechanical_ext *e = mi->ext.mechanical;
    if (!EXT_FN(e, wb_mechanical_ext, mass) || !EXT_FN(e, wb_mechanical_ext, potential)) {
        host_error("model '%s': extension %s must provide mass() and potential()",
                   v->name, WB_EXT_MECHANICAL);
        return -1;
    }
    v->capabilities |= WB_CAP_MECHANICAL;
    v->mass.fn = e->mass, v->mass.ctx = mi->self;
    v->potential.fn = e->potential, v->potential.ctx = mi->self;
    const int diagonal = mi->sparse && mi->sparse->ext->mass_diagonal;
    BIND(mass_solve, EXT_FN(e, wb_mechanical_ext, mass_solve),
         diagonal ? sparse_mass_solve : fb_mass_solve, SLOT_MASS_SOLVE);
    BIND(potential_gradient, EXT_FN(e, wb_mechanical_ext, potential_gradient),
         fb_potential_gradient, SLOT_GRADIENT);
    BIND(potential_hessian, EXT_FN(e, wb_mechanical_ext, potential_hessian),
         fb_potential_hessian, SLOT_HESSIAN);
    BIND(kinetic_gradient, EXT_FN(e, wb_mechanical_ext, kinetic_gradient),
         fb_kinetic_gradient, SLOT_KINETIC);
    mi->levels.gradient = EXT_FN(e, wb_mechanical_ext, potential_gradient) ? 0 : 1;
    if (mi->info.mass_constant && !diagonal) { /* a diagonal one: sparse_view.c */
        const int n = mi->info.nq;
        mi->mass_factor = calloc((size_t)n * (n + 1), sizeof(double));
        if (!mi->mass_factor) {
            host_error("model '%s': out of memory", v->name);
            return -1;
        }
        double *zero = mi->mass_factor + (size_t)n * n;
        e->mass(mi->self, zero, mi->mass_factor);
        if (linalg_cholesky_factor(host_services(), n, mi->mass_factor) != WB_OK) {
            host_error_prefix("model '%s': mass matrix: ", v->name);
            return -1;
        }
    }
    return 0;
}

/* wb.holonomic_point/1 with project() (1.7) */
static int has_projection(const model_extensions *e)
{
    return e->holonomic_point && WB_HAS_FIELD(e->holonomic_point, wb_holonomic_point_ext,
                                              project_nq) && e->holonomic_point->project;
}

static int bind_holonomic(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_holonomic_ext *e = mi->ext.holonomic;
    if (!EXT_FN(e, wb_holonomic_ext, constraints)) {
        host_error("model '%s': extension %s must provide constraints()", v->name,
                   WB_EXT_HOLONOMIC);
        return -1;
    }
    v->holonomic_flags = e->flags;
    v->constraints.fn = e->constraints, v->constraints.ctx = mi->self;
    BIND(constraint_jacobian, EXT_FN(e, wb_holonomic_ext, jacobian),
         fb_constraint_jacobian, SLOT_JACOBIAN);
    BIND(constraint_hessian_contract, EXT_FN(e, wb_holonomic_ext, hessian_contract),
         fb_hessian_contract, SLOT_CONTRACT);
    BIND(constraint_hessian_vector, EXT_FN(e, wb_holonomic_ext, hessian_vector),
         fb_hessian_vector, SLOT_HVECTOR);
    BIND(constraint_third_contract, EXT_FN(e, wb_holonomic_ext, third_contract),
         fb_third_contract, SLOT_THIRD);
    fd_levels *l = &mi->levels;
    l->jacobian = EXT_FN(e, wb_holonomic_ext, jacobian) ? 0 : 1;
    l->contract = EXT_FN(e, wb_holonomic_ext, hessian_contract) ? 0 : l->jacobian + 1;
    if (mi->sparse && mi->sparse->G)
        BIND_HOST(hidden_constraints, sparse_hidden_constraints, SLOT_HIDDEN);
    else
        BIND_HOST(hidden_constraints, fb_hidden_constraints, SLOT_HIDDEN);
    v->capabilities |= WB_CAP_HOLONOMIC;
    /* the model's combined evaluation, called directly; no fallback (three
     * host calls would save nothing), so methods test the capability */
    const wb_holonomic_point_ext *point = mi->ext.holonomic_point;
    if (EXT_FN(point, wb_holonomic_point_ext, evaluate)) {
        v->holonomic_point.fn = point->evaluate;
        v->holonomic_point.ctx = mi->self;
        v->capabilities |= WB_CAP_HOLONOMIC_POINT;
        /* the projection iterates on evaluate(): only beside it, and for
         * one constraint (check_projection) */
        if (has_projection(&mi->ext) && mi->info.n_holonomic == 1) {
            v->holonomic_projection.fn = point->project;
            v->holonomic_projection.ctx = mi->self;
            v->capabilities |= WB_CAP_HOLONOMIC_PROJECTION;
        }
    }
    return 0;
}

static int bind_invariants_and_energy(model_instance *mi)
{
    wb_model *v = &mi->view;
    const wb_invariants_ext *e = mi->ext.invariants;
    if (mi->info.n_invariants > 0) {
        if (!EXT_FN(e, wb_invariants_ext, evaluate) || !mi->info.invariant_names) {
            host_error("model '%s' declares %d invariants but no %s evaluate() or names",
                       v->name, mi->info.n_invariants, WB_EXT_INVARIANTS);
            return -1;
        }
        for (int i = 0; i < mi->info.n_invariants; i++) {
            const char *name = mi->info.invariant_names[i];
            const char *problem = name ? descriptor_column_name_problem(name, 0) : NULL;
            if (!name) {
                host_error("model '%s': invariant %d has no name", v->name, i + 1);
                return -1;
            }
            if (problem) {
                host_error("model '%s': invariant %d is named '%.64s', %s", v->name, i + 1,
                           name, problem);
                return -1;
            }
            for (int j = 0; j < i; j++)
                if (strcmp(name, mi->info.invariant_names[j]) == 0) {
                    host_error("model '%s': two invariants are named '%s'", v->name, name);
                    return -1;
                }
        }
        v->invariants.fn = e->evaluate, v->invariants.ctx = mi->self;
        BIND(invariant_generator, EXT_FN(e, wb_invariants_ext, generator), fb_no_generator,
             SLOT_ENERGY);
        v->capabilities |= WB_CAP_INVARIANTS;
    }
    double (*own_energy)(void *, const double *, const double *) =
        EXT_FN(e, wb_invariants_ext, energy);
    if (own_energy) {
        v->energy.fn = own_energy, v->energy.ctx = mi->self;
    } else if (mi->ext.mechanical) {
        BIND_HOST(energy, fb_energy, SLOT_ENERGY);
    } else if (mi->ext.lie_group && mi->ext.lie_hamiltonian) {
        BIND_HOST(energy, fb_lie_energy, SLOT_ENERGY);
    } /* a Lagrangian group model: bind_lie's <mu, xi> - l */
    return 0;
}

/* The scratch a slot's bound function needs: none when nothing is bound
 * to it, little for the host's own functions that need no difference, and
 * fd_scratch_size (O(N^2), the dense joint multiplier system) only for a
 * real finite-difference fallback or a dense multiplier.  So a model that
 * gives its derivatives (and its sparsity) gets no N^2 scratch. */
static size_t slot_scratch_size(const model_instance *mi, int slot)
{
    const wb_model *v = &mi->view;
    const size_t nq = (size_t)mi->info.nq, m = (size_t)mi->info.n_holonomic;
    const int group = (v->capabilities & WB_CAP_LIE_GROUP) != 0;
    if (!mi->slot_bound[slot])
        return 0;
    switch (slot) {
    case SLOT_MASS_SOLVE:
        return mi->mass_factor || (mi->sparse && mi->sparse->mass) ? 0
               : mi->sparse && mi->sparse->ext->mass_diagonal ? nq
                                                               : fd_scratch_size(v);
    case SLOT_KINETIC:
        return mi->info.mass_constant ? 0 : fd_scratch_size(v);
    case SLOT_THIRD:
        return (v->holonomic_flags & WB_HOLONOMIC_QUADRATIC) ? 0 : fd_scratch_size(v);
    case SLOT_ENERGY:
        return group ? fd_scratch_size(v) : nq;
    case SLOT_HIDDEN:
        return mi->sparse && mi->sparse->G ? 0 : nq + m * nq;
    case SLOT_INDEX1:
        return mi->sparse && mi->sparse->S_lu ? 0 : fd_scratch_size(v);
    default:
        return fd_scratch_size(v);
    }
}

static int allocate_slots(model_instance *mi)
{
    size_t total = 0, at = 0;
    int pivots = mi->info.n_holonomic + mi->info.n_nonholonomic + mi->info.nq + mi->info.nv + 1;
    int bound = 0;
    for (int i = 0; i < SLOT_COUNT; i++) {
        total += slot_scratch_size(mi, i);
        bound += mi->slot_bound[i];
    }
    mi->arena = calloc(total + 1, sizeof(double));
    mi->pivot_arena = calloc((size_t)pivots * (size_t)bound + 1, sizeof(int));
    if (!mi->arena || !mi->pivot_arena) {
        host_error("model '%s': out of memory", mi->view.name);
        return -1;
    }
    for (int i = 0, used = 0; i < SLOT_COUNT; i++) {
        const size_t size = slot_scratch_size(mi, i);
        mi->slots[i].scratch = size ? mi->arena + at : NULL;
        mi->slots[i].pivots = mi->slot_bound[i] ? mi->pivot_arena + (size_t)pivots * used++
                                                : NULL;
        at += size;
    }
    return 0;
}

/* A combination of extensions the host refuses, with the reason. */
typedef struct refusal {
    int applies;
    const char *why;
} refusal;

static int refuse_first(const model_instance *mi, const refusal *rules, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (rules[i].applies) {
            host_error("model '%s': %s", mi->plugin->entry->name, rules[i].why);
            return -1;
        }
    return 0;
}

/* On a group: its own dynamics and constraints, never the vector-space
 * extensions (whose q-derivatives and M^-1 p assume nv == nq coordinates). */
static int check_group_combination(const model_instance *mi)
{
    const model_extensions *e = &mi->ext;
    const refusal rules[] = {
        {e->mechanical != NULL,
         "a Lie-group model (" WB_EXT_LIE_GROUP ") cannot use " WB_EXT_MECHANICAL
         ", which describes a vector space: give its dynamics by " WB_EXT_LIE_HAMILTONIAN
         " or " WB_EXT_LIE_LAGRANGIAN},
        {e->holonomic != NULL || mi->info.n_holonomic > 0,
         "holonomic constraints on a Lie-group model are not supported (" WB_EXT_HOLONOMIC
         " describes a vector space); write the constraint into the group or as velocity "
         "constraints (" WB_EXT_LIE_NONHOLONOMIC ")"},
        {e->nonholonomic != NULL,
         "a Lie-group model gives its velocity constraints by " WB_EXT_LIE_NONHOLONOMIC
         " (phi(g, xi), right-trivialised), not " WB_EXT_NONHOLONOMIC
         " (which needs " WB_EXT_MECHANICAL " and nq velocities)"},
        {mi->info.n_nonholonomic > 0 && !e->lie_nonholonomic,
         "it reports nonholonomic constraints but has no " WB_EXT_LIE_NONHOLONOMIC
         " extension"},
        {!e->lie_hamiltonian && !e->lie_lagrangian,
         "a Lie-group model needs " WB_EXT_LIE_HAMILTONIAN " or " WB_EXT_LIE_LAGRANGIAN
         ": nothing to integrate"},
    };
    return refuse_first(mi, rules, sizeof rules / sizeof rules[0]);
}

/* project() iterates on evaluate() at the nq it was compiled for (0: any);
 * it is for one constraint, and with another m it is simply not bound (a
 * model whose m depends on its parameters keeps it where m = 1). */
static int check_projection(const model_instance *mi)
{
    const model_extensions *e = &mi->ext;
    if (!has_projection(e))
        return 0;
    const wb_holonomic_point_ext *point = e->holonomic_point;
    const char *name = mi->plugin->entry->name;
    if (!point->evaluate) {
        host_error("model '%s': " WB_EXT_HOLONOMIC_POINT " has project() but no evaluate(), "
                   "the function it iterates on", name);
        return -1;
    }
    if (point->project_nq < 0 || (point->project_nq != 0 && point->project_nq != mi->info.nq)) {
        host_error("model '%s': " WB_EXT_HOLONOMIC_POINT "'s project() was compiled for nq = "
                   "%d (project_nq), the instance has nq = %d: give WB_HOLONOMIC_PROJECTION "
                   "the model's nq, or 0 for any, and set project_nq to its name_nq", name,
                   point->project_nq, mi->info.nq);
        return -1;
    }
    return 0;
}

static int check_vector_combination(const model_instance *mi)
{
    const model_extensions *e = &mi->ext;
    const refusal rules[] = {
        {e->lie_hamiltonian || e->lie_lagrangian || e->lie_nonholonomic,
         "the Lie-group extensions (" WB_EXT_LIE_HAMILTONIAN ", " WB_EXT_LIE_LAGRANGIAN ", "
         WB_EXT_LIE_NONHOLONOMIC ") need " WB_EXT_LIE_GROUP},
        {mi->info.n_holonomic > 0 && !e->holonomic,
         "it reports holonomic constraints but has no " WB_EXT_HOLONOMIC " extension"},
        {mi->info.n_holonomic > 0 && !e->mechanical,
         "holonomic constraints need the " WB_EXT_MECHANICAL " extension too"},
        {mi->info.n_nonholonomic > 0 && !e->nonholonomic,
         "it reports nonholonomic constraints but has no " WB_EXT_NONHOLONOMIC " extension"},
        {e->holonomic_point && !e->holonomic,
         WB_EXT_HOLONOMIC_POINT " evaluates grad V, g and G together: it needs "
         WB_EXT_HOLONOMIC " (and " WB_EXT_MECHANICAL ")"},
        {mi->info.n_nonholonomic > 0 && !e->mechanical,
         "nonholonomic constraints Phi(q, v) need " WB_EXT_MECHANICAL
         " (the velocity is M^-1 p)"},
        {!e->mechanical, "it provides neither " WB_EXT_MECHANICAL " nor " WB_EXT_LIE_GROUP
                         " with " WB_EXT_LIE_HAMILTONIAN " or " WB_EXT_LIE_LAGRANGIAN
                         ": nothing to integrate"},
    };
    return refuse_first(mi, rules, sizeof rules / sizeof rules[0]) ? -1 : check_projection(mi);
}

static int check_info(model_instance *mi)
{
    const wb_model_info *in = &mi->info;
    const char *name = mi->plugin->entry->name;
    if (in->nq < 1 || in->nv < 1 || in->n_holonomic < 0 || in->n_nonholonomic < 0 ||
        in->n_invariants < 0) {
        host_error("model '%s' reported impossible dimensions (nq %d, nv %d, m %d, k %d, "
                   "invariants %d)", name, in->nq, in->nv, in->n_holonomic,
                   in->n_nonholonomic, in->n_invariants);
        return -1;
    }
    if (!mi->ext.lie_group && in->nv != in->nq) {
        host_error("model '%s': nv (%d) must equal nq (%d) on a vector space", name, in->nv,
                   in->nq);
        return -1;
    }
    return mi->ext.lie_group ? check_group_combination(mi) : check_vector_combination(mi);
}

/* Every member up to an extension's last ABI 1.0 member is read directly
 * (members a later minor version appends will be tested with WB_HAS_FIELD
 * where they are used), so a struct_size short of it is refused here. */
#define EXT_TOO_SMALL(ext, type, last) ((ext) && !WB_HAS_FIELD(ext, type, last))

static int check_extension_sizes(const model_instance *mi)
{
    const model_extensions *e = &mi->ext;
    const struct {
        const char *id;
        int too_small;
    } rows[] = {
        {WB_EXT_MECHANICAL, EXT_TOO_SMALL(e->mechanical, wb_mechanical_ext, kinetic_gradient)},
        {WB_EXT_HOLONOMIC, EXT_TOO_SMALL(e->holonomic, wb_holonomic_ext, third_contract)},
        {WB_EXT_NONHOLONOMIC,
         EXT_TOO_SMALL(e->nonholonomic, wb_nonholonomic_ext, hessian_qv_contract)},
        {WB_EXT_INVARIANTS, EXT_TOO_SMALL(e->invariants, wb_invariants_ext, generator)},
        {WB_EXT_INITIAL_STATE, EXT_TOO_SMALL(e->initial, wb_initial_state_ext, initial)},
        {WB_EXT_LIE_GROUP, EXT_TOO_SMALL(e->lie_group, wb_lie_group_ext, dcayinv)},
        {WB_EXT_LIE_HAMILTONIAN,
         EXT_TOO_SMALL(e->lie_hamiltonian, wb_lie_hamiltonian_ext, vector_field)},
        {WB_EXT_POTENTIAL_INVARIANTS, EXT_TOO_SMALL(e->potential_invariants,
                                                    wb_potential_invariants_ext,
                                                    difference_quotient)},
        /* defined in 1.1: their first layout */
        {WB_EXT_LIE_LAGRANGIAN,
         EXT_TOO_SMALL(e->lie_lagrangian, wb_lie_lagrangian_ext, force_jacobian_g)},
        {WB_EXT_LIE_NONHOLONOMIC,
         EXT_TOO_SMALL(e->lie_nonholonomic, wb_lie_nonholonomic_ext, hessian_gxi_contract)},
        /* defined in 1.3 */
        {WB_EXT_SPARSITY,
         EXT_TOO_SMALL(e->sparsity, wb_sparsity_ext, potential_hessian_values)},
        /* defined in 1.4 */
        {WB_EXT_HOLONOMIC_POINT,
         EXT_TOO_SMALL(e->holonomic_point, wb_holonomic_point_ext, evaluate)},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].too_small) {
            host_error("model '%s': extension %s declares a struct_size smaller than its "
                       "ABI 1.0 layout (set struct_size = sizeof the struct)",
                       mi->plugin->entry->name, rows[i].id);
            return -1;
        }
    return 0;
}

static void query_extensions(model_instance *mi)
{
    const wb_model_class *c = mi->plugin->model;
    mi->ext.mechanical = c->get_extension(WB_EXT_MECHANICAL);
    mi->ext.holonomic = c->get_extension(WB_EXT_HOLONOMIC);
    mi->ext.nonholonomic = c->get_extension(WB_EXT_NONHOLONOMIC);
    mi->ext.invariants = c->get_extension(WB_EXT_INVARIANTS);
    mi->ext.initial = c->get_extension(WB_EXT_INITIAL_STATE);
    mi->ext.lie_group = c->get_extension(WB_EXT_LIE_GROUP);
    mi->ext.lie_hamiltonian = c->get_extension(WB_EXT_LIE_HAMILTONIAN);
    mi->ext.potential_invariants = c->get_extension(WB_EXT_POTENTIAL_INVARIANTS);
    mi->ext.lie_lagrangian = c->get_extension(WB_EXT_LIE_LAGRANGIAN);
    mi->ext.lie_nonholonomic = c->get_extension(WB_EXT_LIE_NONHOLONOMIC);
    mi->ext.sparsity = c->get_extension(WB_EXT_SPARSITY);
    mi->ext.holonomic_point = c->get_extension(WB_EXT_HOLONOMIC_POINT);
}

/* Any extension by id, for plugins that know ids this host does not. */
static const void *view_extension(void *ctx, const char *id)
{
    const model_instance *mi = ctx;
    return id ? mi->plugin->model->get_extension(id) : NULL;
}

static void bind_initial_state(model_instance *mi)
{
    wb_model *v = &mi->view;
    if (!EXT_FN(mi->ext.initial, wb_initial_state_ext, initial))
        return;
    v->initial.fn = mi->ext.initial->initial;
    v->initial.ctx = mi->self;
    v->capabilities |= WB_CAP_INITIAL_STATE;
}

/* Order matters: the velocity constraints need the mechanical or Lie
 * dynamics bound, and the model's own energy (invariants) overrides the
 * host's. */
static int build_view(model_instance *mi)
{
    wb_model *v = &mi->view;
    v->struct_size = sizeof *v;
    v->name = mi->plugin->entry->name;
    v->nq = mi->info.nq;
    v->nv = mi->info.nv;
    v->n_holonomic = mi->info.n_holonomic;
    v->n_nonholonomic = mi->info.n_nonholonomic;
    v->n_invariants = mi->info.n_invariants;
    v->mass_constant = mi->info.mass_constant;
    v->invariant_names = mi->info.invariant_names;
    v->extension.fn = view_extension, v->extension.ctx = mi;
    v->model_self = mi->self;
    for (int i = 0; i < SLOT_COUNT; i++)
        mi->slots[i].owner = mi;
    if (bind_sparsity(mi) != 0)
        return -1;
    if (mi->ext.mechanical && bind_mechanical(mi) != 0)
        return -1;
    if (mi->info.n_holonomic > 0 && bind_holonomic(mi) != 0)
        return -1;
    if (bind_lie(mi) != 0 || bind_velocity_constraints(mi) != 0 ||
        bind_invariants_and_energy(mi) != 0)
        return -1;
    if (mi->ext.potential_invariants && bind_potential_invariants(mi) != 0)
        return -1;
    bind_initial_state(mi);
    return allocate_slots(mi); /* once every function is bound: sized by what is */
}

model_instance *model_instance_create(const plugin *p, const double *params)
{
    const wb_model_class *c = p->model;
    model_instance *mi = calloc(1, sizeof *mi);
    if (!mi || !(mi->params = calloc(c->n_params + 1, sizeof(double)))) {
        free(mi);
        host_error("model '%s': out of memory", p->entry->name);
        return NULL;
    }
    mi->plugin = p;
    mi->refs = 1;
    query_extensions(mi);
    if (check_extension_sizes(mi) != 0) {
        free(mi->params);
        free(mi);
        return NULL;
    }
    for (uint32_t i = 0; i < c->n_params; i++) {
        const wb_param_spec *s = descriptor_param(c, i);
        double value = params ? params[i] : s->default_value;
        if (!(value >= s->min && value <= s->max)) {
            host_error("model '%s': parameter '%s' = %s is outside [%s, %s] (%s)", c->name,
                       s->name, host_number(value).text, host_number(s->min).text,
                       host_number(s->max).text, s->doc ? s->doc : "");
            free(mi->params);
            free(mi);
            return NULL;
        }
        mi->params[i] = value;
    }
    mi->info.struct_size = sizeof mi->info;
    host_clear_error();
    int status = c->create(host_services(), mi->params, &mi->self, &mi->info);
    if (status != WB_OK) {
        host_error_prefix("model '%s' could not be created: ", c->name);
        free(mi->params);
        free(mi);
        return NULL;
    }
    if (check_info(mi) != 0 || build_view(mi) != 0) {
        model_instance_destroy(mi);
        return NULL;
    }
    return mi;
}

void model_instance_retain(model_instance *mi)
{
    if (mi)
        mi->refs++;
}

void model_instance_destroy(model_instance *mi)
{
    if (!mi || --mi->refs > 0)
        return;
    if (mi->self)
        mi->plugin->model->destroy(mi->self);
    free(mi->arena);
    free(mi->pivot_arena);
    free(mi->mass_factor);
    free(mi->invariant_work);
    release_lie(mi);
    release_sparsity(mi);
    free(mi->params);
    free(mi);
}
