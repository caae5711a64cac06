/* What spark's two stage forms share (see spark_internal.h): the stage
 * forces and p1 from the stage positions, the constraint rows of the
 * residual, the Jacobian callback with the point of a kept Jacobian, and
 * the sparse path's patterns. */
#include "spark_internal.h"

#include "wb_mass.h"

#include <stdlib.h>
#include <string.h>

/* grad V(Q) into F and G(Q) into G (dense rows or G's values). */
static void point_values(const spark *k, const double *Q, double *F, double *G)
{
    wb_potential_gradient(k->model, Q, F);
    if (k->sp.ext)
        k->sp.ext->jacobian_values(k->sp.self, Q, G);
    else
        wb_constraint_jacobian(k->model, Q, G);
}

int spark_first_stage(spark *k, const double *q)
{
    const size_t bytes = (size_t)k->n * sizeof(double);
    if (k->first_valid && memcmp(k->first_q, q, bytes) == 0)
        return 0;
    point_values(k, q, k->first_grad, k->first_G);
    memcpy(k->first_q, q, bytes);
    k->first_valid = 1;
    return 1;
}

/* Stage 1's F and G, Q_1 = q0, from the cache.  Returns the model
 * evaluations made (0 or 1). */
static int first_stage_values(spark *k, double *F, double *G)
{
    const int evaluated = spark_first_stage(k, k->Q);
    memcpy(F, k->first_grad, (size_t)k->n * sizeof(double));
    memcpy(G, k->first_G, k->first_G_size * sizeof(double));
    return evaluated;
}

/* F_j = grad V(Q_j) + G(Q_j)^T L_j and G(Q_j) for all stages, and p1. */
static void forces(spark *k, const double *x)
{
    const int n = k->n, m = k->m, s = k->s;
    int evaluations = s - 1;
    for (int j = 0; j < s; j++) {
        const double *Qj = k->Q + (size_t)j * n;
        double *Fj = k->F + (size_t)j * n, *Gj = spark_stage_G(k, j);
        if (j == 0)
            evaluations += first_stage_values(k, Fj, Gj);
        else
            point_values(k, Qj, Fj, Gj);
        const double *L = spark_stage_L(k, (double *)x, j);
        if (k->sp.ext) {
            wb_csr_t_vec_add(k->sp.G, Gj, 1.0, L, Fj);
            continue;
        }
        for (int c = 0; c < m; c++)
            vec_axpy(n, L[c], Gj + (size_t)c * n, Fj);
    }
    k->stats->function_evals += (uint64_t)evaluations;
    vec_copy(n, k->p0, k->p1);
    for (int j = 0; j < s; j++)
        vec_axpy(n, -k->h * k->b[j], k->F + (size_t)j * n, k->p1);
}

/* Q_i, F_i (and G_i = G(Q_i)) for all stages, and p1, from the unknowns x. */
static void stages(spark *k, const double *x)
{
    k->form->positions(k, x);
    forces(k, x);
}

/* g(Q_i) / h for i >= 1 (O(1) sensitivity to the unknowns), then the
 * hidden constraint G(q1) M^-1 p1, q1 = Q_s. */
static void constraint_rows(spark *k, double *rc)
{
    const int n = k->n, m = k->m, s = k->s;
    for (int i = 1; i < s; i++) {
        wb_constraints(k->model, k->Q + (size_t)i * n, rc + (size_t)(i - 1) * m);
        for (int c = 0; c < m; c++)
            rc[(size_t)(i - 1) * m + c] /= k->h;
    }
    spark_inverse_mass_times(k, k->p1, k->v);
    if (k->sp.ext)
        wb_csr_mat_vec(k->sp.G, spark_stage_G(k, s - 1), k->v, rc + (size_t)(s - 1) * m);
    else
        mat_vec(m, n, spark_stage_G(k, s - 1), k->v, rc + (size_t)(s - 1) * m);
}

int spark_residual(void *user, const double *x, double *r)
{
    spark *k = user;
    stages(k, x);
    k->form->rows(k, x, r);
    constraint_rows(k, r + (size_t)k->blocks * k->n);
    return WB_OK;
}

/* iteration = auto: the point of the Jacobian about to be formed, whose
 * factors the workspace keeps: the iterate x, recorded with q0, p0 and h;
 * or, first after a resumed run, the point the original run kept (its q0
 * and p0 in place of the step's until the Jacobian is formed). */
static const double *jacobian_point(spark *k, const double *x)
{
    double *point = k->kept;
    k->kept_valid = 1;
    if (k->reform) {
        k->reform = 0;
        k->q0 = point + k->size, k->p0 = point + k->size + k->n;
        return point;
    }
    vec_copy(k->size, x, point);
    vec_copy(k->n, k->q0, point + k->size);
    vec_copy(k->n, k->p0, point + k->size + k->n);
    k->kept_h = k->h;
    return x;
}

int spark_jacobian(void *user, const double *x, double *J)
{
    spark *k = user;
    const double *q0 = k->q0, *p0 = k->p0;
    if (k->iteration == ITERATION_AUTO)
        x = jacobian_point(k, x);
    stages(k, x);
    if (k->sp.ext)
        k->form->sparse_jacobian(k, x, J);
    else
        k->form->dense_jacobian(k, x, J);
    k->q0 = q0, k->p0 = p0;
    return WB_OK;
}

/* ---- the sparse path ------------------------------------------------------------ */

void spark_sparse_stage_K(spark *k, const double *x, int from, const double *scale)
{
    spark_sparse *sp = &k->sp;
    const int n = k->n, nnz_K = sp->K.csr.pattern.nnz;
    for (int j = from; j < k->s; j++) {
        const double *Qj = k->Q + (size_t)j * n;
        double *Kj = sp->KM + (size_t)j * nnz_K;
        sp->ext->potential_hessian_values(sp->self, Qj, sp->Hv);
        sp->ext->hessian_contract_values(sp->self, Qj, spark_stage_L(k, (double *)x, j), sp->Tv);
        memset(Kj, 0, (size_t)nnz_K * sizeof(double));
        wb_block_add(&sp->K, sp->K_hessian, 1.0, sp->Hv, scale, Kj);
        wb_block_add(&sp->K, sp->K_contract, 1.0, sp->Tv, scale, Kj);
    }
}

void spark_sparse_GMGt(spark *k, int kk)
{
    spark_sparse *sp = &k->sp;
    const double *Gk = spark_stage_G(k, kk);
    for (int e = 0; e < sp->G->nnz; e++)
        sp->Gtv[e] = Gk[sp->Gt_origin[e]];
    memset(sp->GGv, 0, (size_t)sp->GG.pattern.nnz * sizeof(double));
    wb_csr_product_add(sp->G, spark_stage_G(k, k->s - 1), sp->inverse_mass, &sp->Gt.pattern,
                       sp->Gtv, &sp->GG.pattern, 1.0, sp->mark, sp->GGv);
}

void spark_free_sparse(spark *k)
{
    spark_sparse *sp = &k->sp;
    wb_block_matrix_free(&sp->K);
    wb_block_matrix_free(&sp->J);
    wb_csr_free(&sp->Gt);
    free(sp->Gt_origin);
    wb_csr_free(&sp->GK);
    wb_csr_free(&sp->GG);
    free(sp->mark);
    free(sp->values);
}

/* The sparse path's structure: the model's patterns (checked), K's union
 * pattern, the products' patterns, the Newton matrix and its workspace. */
int spark_create_sparse(spark *k)
{
    spark_sparse *sp = &k->sp;
    const wb_host *host = k->host;
    const wb_model *model = k->model;
    const int n = k->n, m = k->m, s = k->s;
    const char *missing;
    sp->ext = wb_sparse_usable(host, model, WB_SPARSE_NEEDS_HESSIANS, &missing);
    sp->self = model->model_self;
    sp->G = sp->ext->jacobian_pattern(sp->self);
    const wb_sparse_pattern *H = sp->ext->potential_hessian_pattern(sp->self);
    const wb_sparse_pattern *T = sp->T = sp->ext->hessian_contract_pattern(sp->self);
    if (wb_sparse_check_pattern(host, model, sp->G, m, n, "G", "spark") != WB_OK ||
        wb_sparse_check_pattern(host, model, H, n, n, "Hess V", "spark") != WB_OK ||
        wb_sparse_check_pattern(host, model, T, n, n, "T(q; mu)", "spark") != WB_OK)
        return WB_ERR_INVALID;
    wb_block_matrix_init(&sp->K, n, n);
    sp->K_hessian = wb_block_place(&sp->K, 0, 0, H, 0, 0);
    sp->K_contract = wb_block_place(&sp->K, 0, 0, T, 0, 0);
    if (sp->K_contract < 0 || wb_block_matrix_build(&sp->K) != 0 ||
        wb_csr_transpose(sp->G, &sp->Gt, &sp->Gt_origin) != 0 ||
        wb_csr_product_pattern(sp->G, &sp->K.csr.pattern, 0, &sp->GK) != 0 ||
        wb_csr_product_pattern(sp->G, &sp->Gt.pattern, 0, &sp->GG) != 0 ||
        k->form->place_blocks(k) != 0)
        return WB_ERR_NOMEM;
    const size_t nnz_G = (size_t)sp->G->nnz, nnz_K = (size_t)sp->K.csr.pattern.nnz;
    sp->mark = calloc((size_t)n + (size_t)m + 1, sizeof(int));
    sp->values = calloc(2 * (size_t)n + (s + 2) * nnz_G + s * nnz_K + (size_t)H->nnz +
                            (size_t)T->nnz + (size_t)sp->GK.pattern.nnz +
                            (size_t)sp->GG.pattern.nnz + 1,
                        sizeof(double));
    if (!sp->mark || !sp->values)
        return WB_ERR_NOMEM;
    double *p = sp->values;
    sp->inverse_mass = p, p += n;
    sp->mass = p, p += n;
    sp->Gv = p, p += s * nnz_G;
    sp->Bv = p, p += nnz_G;
    sp->Gtv = p, p += nnz_G;
    sp->KM = p, p += s * nnz_K;
    sp->Hv = p, p += H->nnz;
    sp->Tv = p, p += T->nnz;
    sp->GKv = p, p += sp->GK.pattern.nnz;
    sp->GGv = p;
    /* M is constant (wb_require_constant_mass): its diagonal at any q */
    if (wb_sparse_inverse_mass(host, model, sp->ext, k->Q, sp->inverse_mass, "spark") != WB_OK)
        return WB_ERR_INVALID;
    sp->ext->mass_diagonal(sp->self, k->Q, sp->mass); /* checked just above */
    k->newton = host->newton_create_sparse(host, &sp->J.csr.pattern);
    return k->newton ? WB_OK : WB_ERR_NOMEM;
}
