/* wb.sparsity/1 in the model view: the model's patterns checked once, and
 * the view's own functions in O(nnz) when the model declares them: M^-1 p
 * for a diagonal mass (no nq x nq matrix, no Cholesky), the hidden
 * constraints G M^-1 p from G's nonzeros, and the consistent multiplier
 * from the sparse LU of G M^-1 G^T (constraint_view.c). */
#include "host/host.h"
#include "run/model_view_internal.h"
#include "wb_vec.h"

#include <math.h>
#include <stdlib.h>

static int pattern_problem(const model_instance *mi, const char *what,
                           const wb_sparse_pattern *p, int rows, int cols)
{
    char why[160];
    if (!wb_sparse_pattern_problem(p, rows, cols, why, sizeof why))
        return 0;
    host_error("model '%s': %s: the pattern of %s is malformed: %s", mi->view.name,
               WB_EXT_SPARSITY, what, why);
    return -1;
}

/* A pattern function and its values function come together. */
static int pair_problem(const model_instance *mi, const char *what, int has_pattern,
                        int has_values)
{
    if (has_pattern == has_values)
        return 0;
    host_error("model '%s': %s gives %s's %s without its %s", mi->view.name, WB_EXT_SPARSITY,
               what, has_pattern ? "pattern" : "values", has_pattern ? "values" : "pattern");
    return -1;
}

static int check_extension(const model_instance *mi)
{
    const wb_sparsity_ext *e = mi->ext.sparsity;
    const int n = mi->info.nq, m = mi->info.n_holonomic;
    if (mi->ext.lie_group || !mi->ext.mechanical) {
        host_error("model '%s': %s describes the matrices of a vector-space model with %s",
                   mi->view.name, WB_EXT_SPARSITY, WB_EXT_MECHANICAL);
        return -1;
    }
    if (pair_problem(mi, "G", e->jacobian_pattern != NULL, e->jacobian_values != NULL) ||
        pair_problem(mi, "T(q; mu)", e->hessian_contract_pattern != NULL,
                     e->hessian_contract_values != NULL) ||
        pair_problem(mi, "the Hessian of V", e->potential_hessian_pattern != NULL,
                     e->potential_hessian_values != NULL))
        return -1;
    if (e->hessian_vector_values && !e->jacobian_pattern) {
        host_error("model '%s': %s gives B(q; w) in G's pattern but no pattern of G",
                   mi->view.name, WB_EXT_SPARSITY);
        return -1;
    }
    if (e->jacobian_pattern && m == 0) {
        host_error("model '%s': %s gives G's pattern but the model has no holonomic "
                   "constraints", mi->view.name, WB_EXT_SPARSITY);
        return -1;
    }
    if (e->jacobian_pattern && pattern_problem(mi, "G", e->jacobian_pattern(mi->self), m, n))
        return -1;
    if (e->hessian_contract_pattern &&
        pattern_problem(mi, "T(q; mu)", e->hessian_contract_pattern(mi->self), n, n))
        return -1;
    if (e->potential_hessian_pattern &&
        pattern_problem(mi, "the Hessian of V", e->potential_hessian_pattern(mi->self), n, n))
        return -1;
    return 0;
}

/* A constant diagonal mass, checked positive (the dense path's Cholesky
 * check). */
static int constant_mass(model_instance *mi, sparse_state *sp)
{
    const int n = mi->info.nq;
    double *zero = calloc((size_t)n, sizeof(double));
    sp->mass = calloc((size_t)n, sizeof(double));
    if (!zero || !sp->mass) {
        free(zero);
        host_error("model '%s': out of memory", mi->view.name);
        return -1;
    }
    sp->ext->mass_diagonal(mi->self, zero, sp->mass);
    free(zero);
    for (int i = 0; i < n; i++)
        if (!(sp->mass[i] > 0) || !isfinite(sp->mass[i])) {
            host_error("model '%s': mass matrix: diagonal entry %d is %g, not positive",
                       mi->view.name, i + 1, sp->mass[i]);
            return -1;
        }
    return 0;
}

/* G's work arrays, and when the multiplier can be sparse (holonomic
 * constraints only, B(q; w) given, a diagonal mass) the pattern and LU of
 * G M^-1 G^T. */
static int constraint_structure(model_instance *mi, sparse_state *sp)
{
    const int n = mi->info.nq, m = mi->info.n_holonomic;
    sp->G = sp->ext->jacobian_pattern(mi->self);
    const size_t nnz = (size_t)sp->G->nnz + 1;
    sp->Gv = calloc(nnz, sizeof(double));
    sp->hidden_G = calloc(nnz, sizeof(double));
    sp->work = calloc(9 * (size_t)n, sizeof(double));
    if (!sp->Gv || !sp->hidden_G || !sp->work)
        return -1;
    if (mi->info.n_nonholonomic > 0 || !sp->ext->hessian_vector_values || !sp->ext->mass_diagonal)
        return 0;
    if (wb_csr_transpose(sp->G, &sp->Gt, &sp->Gt_origin) != 0 ||
        wb_csr_product_pattern(sp->G, &sp->Gt.pattern, 1, &sp->S) != 0)
        return -1;
    sp->mark = calloc((size_t)m, sizeof(int));
    sp->Gtv = calloc(nnz, sizeof(double));
    sp->Bv = calloc(nnz, sizeof(double));
    sp->Sv = calloc((size_t)sp->S.pattern.nnz + 1, sizeof(double));
    if (!sp->mark || !sp->Gtv || !sp->Bv || !sp->Sv)
        return -1;
    sp->S_lu = sparse_lu_create(host_services(), &sp->S.pattern);
    return sp->S_lu ? 0 : -1;
}

int bind_sparsity(model_instance *mi)
{
    if (!mi->ext.sparsity)
        return 0;
    if (check_extension(mi) != 0)
        return -1;
    sparse_state *sp = calloc(1, sizeof *sp);
    if (!sp) {
        host_error("model '%s': out of memory", mi->view.name);
        return -1;
    }
    mi->sparse = sp;
    sp->ext = mi->ext.sparsity;
    if (sp->ext->mass_diagonal && mi->info.mass_constant && constant_mass(mi, sp) != 0)
        return -1;
    if (mi->info.n_holonomic > 0 && sp->ext->jacobian_pattern &&
        constraint_structure(mi, sp) != 0) {
        host_error("model '%s': out of memory for the sparse constraint structure",
                   mi->view.name);
        return -1;
    }
    return 0;
}

void release_sparsity(model_instance *mi)
{
    sparse_state *sp = mi->sparse;
    if (!sp)
        return;
    free(sp->mass);
    wb_csr_free(&sp->Gt);
    free(sp->Gt_origin);
    wb_csr_free(&sp->S);
    sparse_lu_destroy(host_services(), sp->S_lu);
    free(sp->mark);
    free(sp->Gv);
    free(sp->Gtv);
    free(sp->Bv);
    free(sp->Sv);
    free(sp->hidden_G);
    free(sp->work);
    free(sp);
    mi->sparse = NULL;
}

void sparse_inverse_mass(model_instance *mi, const double *q, double *inverse)
{
    const sparse_state *sp = mi->sparse;
    const int n = mi->info.nq;
    if (sp->mass)
        vec_copy(n, sp->mass, inverse);
    else
        sp->ext->mass_diagonal(mi->self, q, inverse);
    for (int i = 0; i < n; i++)
        inverse[i] = 1.0 / inverse[i]; /* 0 gives Inf: a non-finite step, never silent */
}

/* v = M^-1 p for a diagonal mass; the slot holds nq doubles when M varies. */
void sparse_mass_solve(void *ctx, const double *q, const double *p, double *v)
{
    fallback_slot *s = ctx;
    model_instance *mi = s->owner;
    const int n = mi->info.nq;
    const double *mass = mi->sparse->mass;
    if (!mass) {
        mi->sparse->ext->mass_diagonal(mi->self, q, s->scratch);
        mass = s->scratch;
    }
    for (int i = 0; i < n; i++)
        v[i] = p[i] / mass[i];
}

/* G(q) M^-1 p from G's nonzeros. */
void sparse_hidden_constraints(void *ctx, const double *q, const double *p, double *gv)
{
    fallback_slot *s = ctx;
    model_instance *mi = s->owner;
    sparse_state *sp = mi->sparse;
    double *v = sp->work + 8 * (size_t)mi->info.nq; /* after the multiplier's 8 nq */
    wb_mass_solve(&mi->view, q, p, v);
    sp->ext->jacobian_values(mi->self, q, sp->hidden_G);
    wb_csr_mat_vec(sp->G, sp->hidden_G, v, gv);
}
