/* What the in-tree constrained methods (RATTLE/SHAKE, SPARK, the GGL
 * variational integrators) share to step in O(nnz) on a model that
 * declares its sparsity (wb.sparsity/1):
 *   - option linear_solver = auto|dense|sparse, one contract for all: the
 *     decision and the refusal of "sparse" where it cannot work;
 *   - the inverse of the model's constant diagonal mass, checked;
 *   - block assembly: a Newton matrix made of blocks (identities, the
 *     model's patterns, their transposes, products) placed at offsets, its
 *     pattern built once at create time and each block's values added
 *     through a precomputed map, so that assembling it costs its nonzeros.
 * Building allocates (create time); adding values never does.
 *
 * Why a diagonal mass only: the Newton matrices hold M^-1 (G M^-1 G^T,
 * K M^-1, G M^-1 K M^-1), and the inverse of a sparse non-diagonal M (a
 * banded one included) is dense in general, so they would fill in.  A
 * constant sparse M needs M kept on the matrix side instead (the saddle
 * point [M G^T; G 0] for RATTLE, V_j = M^-1 P_j as unknowns with rows
 * M V_j - P_j for SPARK) and M's pattern and values from the model, which
 * wb.sparsity/1 does not declare (mass_diagonal only). */
#ifndef WB_SPARSE_METHOD_H
#define WB_SPARSE_METHOD_H

#include <workbench/workbench.h>

#include "wb_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- linear_solver = auto|dense|sparse ---------------------------------------- */

/* What a method needs beyond G's pattern and a diagonal mass: the Hessian
 * terms of a Newton matrix that differentiates G^T lambda and grad V. */
enum { WB_SPARSE_NEEDS_HESSIANS = 1 };

/* The option, word for word the same in every method that has it. */
#define WB_LINEAR_SOLVER_OPTION(doc_tail)                                                 \
    {"linear_solver", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|dense|sparse",                \
     "the linear systems: auto = sparse when the model declares its sparsity "            \
     "(wb.sparsity/1: " doc_tail "; O(N) a step for a chain of N links), else dense "     \
     "LAPACK LU"}

/* The model's wb.sparsity/1 when it declares what `needs` asks for (always
 * G's pattern and values and a diagonal mass) and the host has the sparse
 * services; else NULL with what is missing in *missing. */
static inline const wb_sparsity_ext *wb_sparse_usable(const wb_host *host, const wb_model *model,
                                                      int needs, const char **missing)
{
    const wb_sparsity_ext *e = WB_HAS_FIELD(model, wb_model, extension)
                                   ? wb_extension(model, WB_EXT_SPARSITY)
                                   : NULL;
    *missing = NULL;
    if (!WB_HAS_FIELD(host, wb_host, newton_create_sparse))
        *missing = "a host with sparse LU (ABI 1.3)";
    else if (!e)
        *missing = "the extension";
    else if (!WB_HAS_FIELD(e, wb_sparsity_ext, potential_hessian_values) || !e->mass_diagonal ||
             !e->jacobian_pattern || !e->jacobian_values)
        *missing = "G's pattern and a diagonal mass";
    else if ((needs & WB_SPARSE_NEEDS_HESSIANS) &&
             (!e->hessian_vector_values || !e->hessian_contract_pattern ||
              !e->hessian_contract_values || !e->potential_hessian_pattern ||
              !e->potential_hessian_values))
        *missing = "the Hessian patterns (hessian_vector_values, hessian_contract_*, "
                   "potential_hessian_*)";
    return *missing ? NULL : e;
}

/* The decision for option value `choice`: 1 sparse, 0 dense, -1 (error
 * reported in the name of `who`) when sparse is asked for and the model or
 * host lacks what `needs` names. */
static inline int wb_sparse_choose(const wb_host *host, const wb_model *model, const char *choice,
                                   int needs, const char *who)
{
    const char *missing;
    const wb_sparsity_ext *e = wb_sparse_usable(host, model, needs, &missing);
    if (choice[0] == 's' && !e) {
        host->error(host, "%s: linear_solver = \"sparse\" needs the model to declare %s (%s); "
                          "model '%s' does not", who, missing, WB_EXT_SPARSITY, model->name);
        return -1;
    }
    return choice[0] == 's' || (choice[0] == 'a' && e);
}

/* 1 / M_ii of the model's constant diagonal mass into inverse (nq values);
 * q is any configuration.  WB_ERR_INVALID (reported) for an entry that is
 * not a positive number. */
static inline int wb_sparse_inverse_mass(const wb_host *host, const wb_model *model,
                                         const wb_sparsity_ext *e, const double *q,
                                         double *inverse, const char *who)
{
    e->mass_diagonal(model->model_self, q, inverse);
    for (int i = 0; i < model->nq; i++) {
        if (!(inverse[i] > 0.0) || !isfinite(inverse[i])) {
            host->error(host, "%s: model '%s': mass_diagonal entry %d = %g is not a positive "
                              "number", who, model->name, i, inverse[i]);
            return WB_ERR_INVALID;
        }
        inverse[i] = 1.0 / inverse[i];
    }
    return WB_OK;
}

/* The model's pattern `p` checked against its expected shape (WB_OK, or
 * WB_ERR_INVALID reported with what is wrong). */
static inline int wb_sparse_check_pattern(const wb_host *host, const wb_model *model,
                                          const wb_sparse_pattern *p, int rows, int cols,
                                          const char *what, const char *who)
{
    char why[160];
    if (!wb_sparse_pattern_problem(p, rows, cols, why, sizeof why))
        return WB_OK;
    host->error(host, "%s: model '%s': the pattern of %s (%s): %s", who, model->name, what,
                WB_EXT_SPARSITY, why);
    return WB_ERR_INVALID;
}

/* ---- block assembly ------------------------------------------------------------- */

typedef struct wb_block {
    const wb_sparse_pattern *pattern; /* NULL: the size x size identity          */
    int size;
    int row, col;                     /* where its (0, 0) entry goes              */
    int transposed;                   /* the pattern's transpose is placed        */
    int map;                          /* its entries' slots start at maps[map]    */
} wb_block;

typedef struct wb_block_matrix {
    int rows, cols;
    int n_blocks, capacity;
    wb_block *blocks;
    int *maps;    /* per block entry: its index in the matrix's values        */
    wb_csr csr;   /* the matrix's pattern, once built: csr.pattern            */
} wb_block_matrix;

static inline void wb_block_matrix_init(wb_block_matrix *a, int rows, int cols)
{
    memset(a, 0, sizeof *a);
    a->rows = rows, a->cols = cols;
}

static inline void wb_block_matrix_free(wb_block_matrix *a)
{
    free(a->blocks);
    free(a->maps);
    wb_csr_free(&a->csr);
    memset(a, 0, sizeof *a);
}

static inline int wb_block_entries(const wb_block *b)
{
    return b->pattern ? b->pattern->nnz : b->size;
}

/* Place pattern p (or its transpose; p NULL: the size x size identity) with
 * its (0, 0) entry at (row, col).  Returns the block's number for
 * wb_block_add, -1 when out of memory.  p must outlive the matrix. */
static inline int wb_block_place(wb_block_matrix *a, int row, int col,
                                 const wb_sparse_pattern *p, int transposed, int size)
{
    if (a->n_blocks == a->capacity) {
        const int capacity = a->capacity ? 2 * a->capacity : 16;
        wb_block *grown = realloc(a->blocks, (size_t)capacity * sizeof *grown);
        if (!grown)
            return -1;
        a->blocks = grown, a->capacity = capacity;
    }
    a->blocks[a->n_blocks] = (wb_block){.pattern = p, .size = p ? 0 : size, .row = row,
                                        .col = col, .transposed = transposed};
    return a->n_blocks++;
}

/* Entry e of block b: its row and column in the matrix. */
static inline void wb_block_entry(const wb_block *b, int e, int *row, int *col)
{
    int i = e, j = e;
    if (b->pattern) {
        j = b->pattern->columns[e];
        int lo = 0, hi = b->pattern->rows - 1; /* the row holding e */
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            if (b->pattern->row_start[mid] <= e)
                lo = mid;
            else
                hi = mid - 1;
        }
        i = lo;
    }
    if (b->transposed) {
        const int swap = i;
        i = j, j = swap;
    }
    *row = b->row + i, *col = b->col + j;
}

/* The matrix's pattern (the union of its blocks') and every block entry's
 * slot in it.  0, or -1 when out of memory or a block leaves the matrix. */
static inline int wb_block_matrix_build(wb_block_matrix *a)
{
    long total = 0;
    for (int b = 0; b < a->n_blocks; b++) {
        a->blocks[b].map = (int)total;
        total += wb_block_entries(&a->blocks[b]);
    }
    if (total > 0x7fffffffL)
        return -1;
    int *count = calloc((size_t)a->rows + 1, sizeof(int));
    int *cols = malloc(((size_t)total + 1) * sizeof(int));
    int *origin = malloc(((size_t)total + 1) * sizeof(int));
    a->maps = malloc(((size_t)total + 1) * sizeof(int));
    int status = count && cols && origin && a->maps ? 0 : -1;
    for (int b = 0; status == 0 && b < a->n_blocks; b++) /* entries per row */
        for (int e = 0, i, j; e < wb_block_entries(&a->blocks[b]); e++) {
            wb_block_entry(&a->blocks[b], e, &i, &j);
            if (i < 0 || i >= a->rows || j < 0 || j >= a->cols) {
                status = -1;
                break;
            }
            count[i + 1]++;
        }
    if (status == 0) {
        for (int i = 0; i < a->rows; i++)
            count[i + 1] += count[i];
        for (int b = 0; b < a->n_blocks; b++) /* bucket by row, then sort each row */
            for (int e = 0, i, j; e < wb_block_entries(&a->blocks[b]); e++) {
                wb_block_entry(&a->blocks[b], e, &i, &j);
                const int at = count[i]++;
                cols[at] = j, origin[at] = a->blocks[b].map + e;
            }
        for (int i = a->rows; i > 0; i--)
            count[i] = count[i - 1];
        count[0] = 0;
        long nnz = 0;
        for (int i = 0, begin = 0; i < a->rows; i++) {
            const int end = count[i + 1];
            for (int x = begin + 1; x < end; x++) /* insertion sort: rows are short */
                for (int y = x; y > begin && cols[y - 1] > cols[y]; y--) {
                    int c = cols[y], o = origin[y];
                    cols[y] = cols[y - 1], origin[y] = origin[y - 1];
                    cols[y - 1] = c, origin[y - 1] = o;
                }
            for (int x = begin, last = -1; x < end; x++) { /* merge repeats, in place */
                if (cols[x] != last)
                    last = cols[nnz++] = cols[x];
                a->maps[origin[x]] = (int)nnz - 1;
            }
            count[i + 1] = (int)nnz;
            begin = end;
        }
        if (wb_csr_alloc(&a->csr, a->rows, a->cols, (int)nnz) != 0)
            status = -1;
        else {
            memcpy(a->csr.row_start, count, ((size_t)a->rows + 1) * sizeof(int));
            memcpy(a->csr.columns, cols, (size_t)nnz * sizeof(int));
        }
    }
    free(count);
    free(cols);
    free(origin);
    return status;
}

/* out (the matrix's values) += s * values * scale[column of the entry in
 * block b's own pattern]; values NULL: ones (the identity), scale NULL:
 * ones.  So with scale = diag(D), a block holds X D, or D X^T when
 * transposed. */
static inline void wb_block_add(const wb_block_matrix *a, int b, double s, const double *values,
                                const double *scale, double *out)
{
    const wb_block *blk = &a->blocks[b];
    const int *map = a->maps + blk->map;
    const int count = wb_block_entries(blk);
    const int *columns = blk->pattern ? blk->pattern->columns : NULL;
    for (int e = 0; e < count; e++) {
        double v = s;
        if (values)
            v *= values[e];
        if (scale)
            v *= scale[columns ? columns[e] : e];
        out[map[e]] += v;
    }
}

#endif
