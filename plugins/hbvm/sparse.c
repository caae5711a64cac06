/* HBVM(k, s)'s sparse path (sparse.h): the structure, built at create
 * time, and the two matrices a step assembles in it. */
#include "hbvm.h"
#include "wb_vec.h"

#include <stdlib.h>
#include <string.h>

/* ---- the structure (create time) ------------------------------------------------------ */

void hbvm_sparse_free(hbvm *it)
{
    hbvm_sparse *sp = &it->sp;
    wb_csr_free(&sp->Gt);
    free(sp->Gt_origin);
    wb_csr_free(&sp->S);
    if (sp->multiplier_lu)
        it->host->sparse_lu_destroy(it->host, sp->multiplier_lu);
    if (sp->jacobian_lu)
        it->host->sparse_lu_destroy(it->host, sp->jacobian_lu);
    wb_block_matrix_free(&sp->K);
    wb_block_matrix_free(&sp->J);
    free(sp->mark);
    free(sp->blocks);
    free(sp->values);
    memset(sp, 0, sizeof *sp);
}

/* Block (j, i) of the gamma rows holds K: some stage l couples them. */
static int stages_couple(const hbvm *it, int j, int i)
{
    for (int l = 0; l < it->k; l++)
        if (it->basis.XW[j * it->k + l] * it->basis.I[l * it->s + i] != 0.0)
            return 1;
    return 0;
}

/* The Newton matrix's blocks (sparse.h's table) and its pattern; 0 or -1
 * (out of memory). */
static int place_newton_blocks(hbvm *it)
{
    hbvm_sparse *sp = &it->sp;
    const int n = it->n, s = it->s, lambda = s * n;
    const wb_sparse_pattern *K = &sp->K.csr.pattern;
    wb_block_matrix *J = &sp->J;
    sp->blocks = malloc(((size_t)s * (3 + (size_t)s)) * sizeof(int));
    if (!sp->blocks)
        return -1;
    sp->identity = sp->blocks, sp->direction = sp->identity + s;
    sp->constraint = sp->direction + s, sp->stage = sp->constraint + s;
    wb_block_matrix_init(J, it->size, it->size);
    int ok = 1;
    for (int j = 0; j < s; j++) {
        for (int i = 0; i < s; i++) {
            const int couple = stages_couple(it, j, i);
            int *block = &sp->stage[j * s + i];
            *block = couple ? wb_block_place(J, j * n, i * n, K, 0, 0) : -1;
            ok &= !couple || *block >= 0;
        }
        sp->identity[j] = wb_block_place(J, j * n, j * n, NULL, 0, n);
        sp->direction[j] = wb_block_place(J, j * n, lambda, sp->G, 1, 0);
        sp->constraint[j] = wb_block_place(J, lambda, j * n, sp->G, 0, 0);
        ok &= sp->identity[j] >= 0 && sp->direction[j] >= 0 && sp->constraint[j] >= 0;
    }
    return ok && wb_block_matrix_build(J) == 0 ? 0 : -1;
}

/* K = Hess V + T's union pattern and the Newton matrix's, and its LU. */
static int create_newton(hbvm *it)
{
    hbvm_sparse *sp = &it->sp;
    const wb_host *host = it->host;
    const wb_sparse_pattern *H = sp->ext->potential_hessian_pattern(sp->self);
    const wb_sparse_pattern *T = sp->ext->hessian_contract_pattern(sp->self);
    if (wb_sparse_check_pattern(host, it->model, H, it->n, it->n, "Hess V", "hbvm") != WB_OK ||
        wb_sparse_check_pattern(host, it->model, T, it->n, it->n, "T(q; mu)", "hbvm") != WB_OK)
        return WB_ERR_INVALID;
    wb_block_matrix_init(&sp->K, it->n, it->n);
    sp->K_hessian = wb_block_place(&sp->K, 0, 0, H, 0, 0);
    sp->K_contract = wb_block_place(&sp->K, 0, 0, T, 0, 0);
    if (sp->K_contract < 0 || wb_block_matrix_build(&sp->K) != 0 || place_newton_blocks(it) != 0)
        return WB_ERR_NOMEM;
    sp->jacobian_lu = host->sparse_lu_create(host, &sp->J.csr.pattern);
    return sp->jacobian_lu ? WB_OK : WB_ERR_NOMEM;
}

/* The values block, carved (Hv .. Jv empty without Newton). */
static int allocate_values(hbvm *it, int newton)
{
    hbvm_sparse *sp = &it->sp;
    const size_t n = (size_t)it->n, nnz = (size_t)sp->G->nnz;
    const size_t H = newton ? (size_t)sp->ext->potential_hessian_pattern(sp->self)->nnz : 0;
    const size_t T = newton ? (size_t)sp->ext->hessian_contract_pattern(sp->self)->nnz : 0;
    const size_t K = newton ? (size_t)sp->K.csr.pattern.nnz : 0;
    const size_t J = newton ? (size_t)sp->J.csr.pattern.nnz : 0;
    const size_t S = (size_t)sp->S.pattern.nnz;
    sp->values = calloc(2 * n + nnz + 2 * S + H + T + (size_t)it->k * K + J + 1, sizeof(double));
    sp->mark = calloc((size_t)it->m + 1, sizeof(int));
    if (!sp->values || !sp->mark)
        return WB_ERR_NOMEM;
    double *p = sp->values;
    sp->inverse_mass = p, p += n;
    sp->configuration = p, p += n;
    sp->Dt = p, p += nnz;
    sp->Sv = p, p += S;
    sp->Sj = p, p += S;
    sp->Hv = p, p += H;
    sp->Tv = p, p += T;
    sp->Kv = p, p += (size_t)it->k * K;
    sp->Jv = p;
    return WB_OK;
}

int hbvm_sparse_create(hbvm *it, int newton)
{
    hbvm_sparse *sp = &it->sp;
    const wb_host *host = it->host;
    const char *missing;
    sp->ext = wb_sparse_usable(host, it->model, newton ? WB_SPARSE_NEEDS_HESSIANS : 0, &missing);
    sp->self = it->model->model_self;
    sp->G = sp->ext->jacobian_pattern(sp->self);
    if (wb_sparse_check_pattern(host, it->model, sp->G, it->m, it->n, "G", "hbvm") != WB_OK)
        return WB_ERR_INVALID;
    it->g_entries = sp->G->nnz;
    if (wb_csr_transpose(sp->G, &sp->Gt, &sp->Gt_origin) != 0 ||
        wb_csr_product_pattern(sp->G, &sp->Gt.pattern, 1, &sp->S) != 0)
        return WB_ERR_NOMEM;
    int status = newton ? create_newton(it) : WB_OK;
    if (status == WB_OK)
        status = allocate_values(it, newton);
    if (status == WB_OK && it->m > 0 &&
        !(sp->multiplier_lu = host->sparse_lu_create(host, &sp->S.pattern)))
        status = WB_ERR_NOMEM;
    /* M is constant (wb_require_constant_mass): its diagonal at any q */
    if (status == WB_OK)
        status = wb_sparse_inverse_mass(host, it->model, sp->ext, sp->configuration,
                                        sp->inverse_mass, "hbvm");
    return status;
}

/* ---- the matrices of a step ------------------------------------------------------------ */

/* Term by term, -rho_j D_j^T into Sj, then added: the dense path's
 * sum -= rho_j . D_j in the same operations, so the same bits. */
void hbvm_sparse_multiplier_matrix(hbvm *it)
{
    hbvm_sparse *sp = &it->sp;
    const int nnz = sp->G->nnz, nnz_S = sp->S.pattern.nnz;
    memset(sp->Sv, 0, (size_t)nnz_S * sizeof(double));
    for (int j = 0; j < it->s; j++) {
        const double *D = it->D + (size_t)j * nnz;
        for (int e = 0; e < nnz; e++)
            sp->Dt[e] = D[sp->Gt_origin[e]];
        memset(sp->Sj, 0, (size_t)nnz_S * sizeof(double));
        wb_csr_product_add(sp->G, it->rho + (size_t)j * nnz, NULL, &sp->Gt.pattern, sp->Dt,
                           &sp->S.pattern, -1.0, sp->mark, sp->Sj);
        for (int e = 0; e < nnz_S; e++)
            sp->Sv[e] += sp->Sj[e];
    }
}

/* K_l = M^-1 (Hess V(Y_l) + T(Y_l; lambda)): the sum, then its rows scaled
 * (the dense path's M^-1 (hess + T), the same operations). */
static void stage_K(hbvm *it, int l, const double *lambda)
{
    hbvm_sparse *sp = &it->sp;
    const wb_sparse_pattern *K = &sp->K.csr.pattern;
    const double *Yl = it->Y + (size_t)l * it->n;
    double *Kl = sp->Kv + (size_t)l * K->nnz;
    memset(Kl, 0, (size_t)K->nnz * sizeof(double));
    sp->ext->potential_hessian_values(sp->self, Yl, sp->Hv);
    wb_block_add(&sp->K, sp->K_hessian, 1.0, sp->Hv, NULL, Kl);
    if (it->m > 0) {
        sp->ext->hessian_contract_values(sp->self, Yl, lambda, sp->Tv);
        wb_block_add(&sp->K, sp->K_contract, 1.0, sp->Tv, NULL, Kl);
    }
    for (int r = 0; r < K->rows; r++)
        for (int e = K->row_start[r]; e < K->row_start[r + 1]; e++)
            Kl[e] = sp->inverse_mass[r] * Kl[e];
}

/* B_l = D_q[G(q) w_l] at Y_l in G's pattern, w_l = sum_j W_jl gamma_j. */
static void stage_B(hbvm *it, int l, const double *x)
{
    const int n = it->n, k = it->k;
    double *w = it->work;
    for (int e = 0; e < n; e++)
        w[e] = 0.0;
    for (int j = 0; j < it->s; j++)
        vec_axpy(n, it->basis.W[j * k + l], x + (size_t)j * n, w);
    it->sp.ext->hessian_vector_values(it->sp.self, it->Y + (size_t)l * n, w,
                                      it->B + (size_t)l * it->g_entries);
}

/* As the dense assemble(): each block's terms in the same order. */
void hbvm_sparse_newton_matrix(hbvm *it, const double *x)
{
    hbvm_sparse *sp = &it->sp;
    const int s = it->s, k = it->k, nnz_K = sp->K.csr.pattern.nnz, nnz = it->g_entries;
    const double h = it->h, *lambda = x + (size_t)s * it->n;
    for (int l = 0; l < k; l++) {
        stage_K(it, l, lambda);
        if (it->m > 0)
            stage_B(it, l, x);
    }
    double *J = sp->Jv;
    memset(J, 0, (size_t)sp->J.csr.pattern.nnz * sizeof(double));
    for (int j = 0; j < s; j++) {
        for (int i = 0; i < s; i++)
            for (int l = 0; l < k && sp->stage[j * s + i] >= 0; l++) {
                const double w = h * h * it->basis.XW[j * k + l] * it->basis.I[l * s + i];
                if (w != 0.0)
                    wb_block_add(&sp->J, sp->stage[j * s + i], w, sp->Kv + (size_t)l * nnz_K,
                                 NULL, J);
            }
        wb_block_add(&sp->J, sp->identity[j], 1.0, NULL, NULL, J);
        wb_block_add(&sp->J, sp->direction[j], -1.0, it->D + (size_t)j * nnz, NULL, J);
    }
    for (int i = 0; i < s; i++) {
        wb_block_add(&sp->J, sp->constraint[i], 1.0, it->rho + (size_t)i * nnz, NULL, J);
        for (int l = 0; l < k && it->m > 0; l++)
            wb_block_add(&sp->J, sp->constraint[i], h * it->basis.I[l * s + i],
                         it->B + (size_t)l * nnz, NULL, J);
    }
}
