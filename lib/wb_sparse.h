/* Compressed-row sparse matrices (workbench/host.h: wb_sparse_pattern):
 * validation, transposition, the pattern and values of products such as
 * G D G^T, and products with vectors.  Shared by the host (consistent
 * multipliers, hidden constraints, the sparse LU), the in-tree plugins
 * (RATTLE, SPARK) and check-model.  Building a pattern allocates (once, at
 * create time); computing values in a built pattern never does. */
#ifndef WB_SPARSE_H
#define WB_SPARSE_H

#include <workbench/host.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A pattern that owns its arrays. */
typedef struct wb_csr {
    wb_sparse_pattern pattern;
    int *row_start;
    int *columns;
} wb_csr;

static inline void wb_csr_free(wb_csr *a)
{
    free(a->row_start);
    free(a->columns);
    memset(a, 0, sizeof *a);
}

/* Space for a rows x cols pattern of nnz entries; 0 or -1 (out of memory). */
static inline int wb_csr_alloc(wb_csr *a, int rows, int cols, int nnz)
{
    memset(a, 0, sizeof *a);
    a->row_start = calloc((size_t)rows + 1, sizeof(int));
    a->columns = calloc(nnz > 0 ? (size_t)nnz : 1, sizeof(int));
    if (!a->row_start || !a->columns) {
        wb_csr_free(a);
        return -1;
    }
    a->pattern = (wb_sparse_pattern){.struct_size = sizeof(wb_sparse_pattern), .rows = rows,
                                     .cols = cols, .nnz = nnz, .row_start = a->row_start,
                                     .columns = a->columns};
    return 0;
}

/* NULL when p is a well-formed rows x cols pattern (rows or cols < 0: any),
 * else what is wrong, written into why. */
static inline const char *wb_sparse_pattern_problem(const wb_sparse_pattern *p, int rows,
                                                    int cols, char *why, size_t size)
{
    if (!p || p->struct_size < sizeof(wb_sparse_pattern)) {
        snprintf(why, size, "%s", p ? "struct_size smaller than wb_sparse_pattern" : "NULL");
        return why;
    }
    if ((rows >= 0 && p->rows != rows) || (cols >= 0 && p->cols != cols) || p->rows < 0 ||
        p->cols < 0) {
        snprintf(why, size, "it is %d x %d, expected %d x %d", p->rows, p->cols, rows, cols);
        return why;
    }
    if (!p->row_start || (p->nnz > 0 && !p->columns) || p->nnz < 0 || p->row_start[0] != 0 ||
        p->row_start[p->rows] != p->nnz) {
        snprintf(why, size, "row_start must run from 0 to nnz = %d", p->nnz);
        return why;
    }
    for (int i = 0; i < p->rows; i++) {
        if (p->row_start[i + 1] < p->row_start[i]) {
            snprintf(why, size, "row_start decreases at row %d", i);
            return why;
        }
        for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++) {
            const int j = p->columns[e];
            if (j < 0 || j >= p->cols || (e > p->row_start[i] && j <= p->columns[e - 1])) {
                snprintf(why, size, "row %d: columns must be increasing and in [0, %d)", i,
                         p->cols);
                return why;
            }
        }
    }
    return NULL;
}

/* The transpose's pattern, with origin[e] = the entry of p that entry e of
 * the transpose is (so values transpose as t[e] = v[origin[e]]).  origin
 * is allocated (nnz ints) and freed by the caller.  0 or -1. */
static inline int wb_csr_transpose(const wb_sparse_pattern *p, wb_csr *t, int **origin)
{
    *origin = NULL;
    if (wb_csr_alloc(t, p->cols, p->rows, p->nnz) != 0)
        return -1;
    *origin = calloc(p->nnz > 0 ? (size_t)p->nnz : 1, sizeof(int));
    if (!*origin) {
        wb_csr_free(t);
        return -1;
    }
    for (int e = 0; e < p->nnz; e++)
        t->row_start[p->columns[e] + 1]++;
    for (int j = 0; j < p->cols; j++)
        t->row_start[j + 1] += t->row_start[j];
    int *next = malloc(((size_t)p->cols + 1) * sizeof(int));
    if (!next) {
        free(*origin), *origin = NULL;
        wb_csr_free(t);
        return -1;
    }
    memcpy(next, t->row_start, ((size_t)p->cols + 1) * sizeof(int));
    for (int i = 0; i < p->rows; i++) /* rows in order: columns of t increase */
        for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++) {
            const int at = next[p->columns[e]]++;
            t->columns[at] = i;
            (*origin)[at] = e;
        }
    free(next);
    return 0;
}

/* The pattern of A B^T for A (r x n) and B (c x n) given as B's transpose
 * bt (n x c): entry (i, k) whenever a row i of A and a row k of B share a
 * column.  With `diagonal` every (i, i) for i < min(r, c) is included too
 * (an identity added later).  0 or -1. */
static inline int wb_csr_product_pattern(const wb_sparse_pattern *a, const wb_sparse_pattern *bt,
                                         int diagonal, wb_csr *out)
{
    const int r = a->rows, c = bt->cols;
    int *mark = malloc(((size_t)c + 1) * sizeof(int));
    if (!mark)
        return -1;
    for (int k = 0; k < c; k++)
        mark[k] = -1;
    long total = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            if (total > 0x7fffffffL || wb_csr_alloc(out, r, c, (int)total) != 0) {
                free(mark);
                return -1;
            }
            for (int k = 0; k < c; k++)
                mark[k] = -1;
        }
        long count = 0;
        for (int i = 0; i < r; i++) {
            const long row_begin = count;
            if (diagonal && i < c) {
                mark[i] = i;
                if (pass)
                    out->columns[count] = i;
                count++;
            }
            for (int e = a->row_start[i]; e < a->row_start[i + 1]; e++) {
                const int j = a->columns[e];
                for (int f = bt->row_start[j]; f < bt->row_start[j + 1]; f++) {
                    const int k = bt->columns[f];
                    if (mark[k] == i)
                        continue;
                    mark[k] = i;
                    if (pass)
                        out->columns[count] = k;
                    count++;
                }
            }
            if (pass) {
                out->row_start[i + 1] = (int)count;
                /* sort the row's columns (insertion: rows are short) */
                int *cols = out->columns + row_begin;
                for (long x = 1; x < count - row_begin; x++)
                    for (long y = x; y > 0 && cols[y - 1] > cols[y]; y--) {
                        int swap = cols[y];
                        cols[y] = cols[y - 1];
                        cols[y - 1] = swap;
                    }
            }
        }
        total = count;
    }
    free(mark);
    return 0;
}

/* The entry of row i, column j of p (binary search), or -1. */
static inline int wb_csr_find(const wb_sparse_pattern *p, int i, int j)
{
    int lo = p->row_start[i], hi = p->row_start[i + 1] - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (p->columns[mid] == j)
            return mid;
        if (p->columns[mid] < j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* out (values of the product pattern `prod` of A B^T, from
 * wb_csr_product_pattern) += s A diag(d) B^T, d NULL for the identity;
 * a and av are A's pattern and values, bt and btv B's transpose's.  mark
 * holds prod->cols ints of scratch. */
static inline void wb_csr_product_add(const wb_sparse_pattern *a, const double *av,
                                      const double *d, const wb_sparse_pattern *bt,
                                      const double *btv, const wb_sparse_pattern *prod,
                                      double s, int *mark, double *out)
{
    for (int i = 0; i < a->rows; i++) {
        for (int e = prod->row_start[i]; e < prod->row_start[i + 1]; e++)
            mark[prod->columns[e]] = e;
        for (int e = a->row_start[i]; e < a->row_start[i + 1]; e++) {
            const int j = a->columns[e];
            const double x = s * av[e] * (d ? d[j] : 1.0);
            for (int f = bt->row_start[j]; f < bt->row_start[j + 1]; f++)
                out[mark[bt->columns[f]]] += x * btv[f];
        }
    }
}

/* y = A x, or y += s A x (csr_mat_vec_add). */
static inline void wb_csr_mat_vec(const wb_sparse_pattern *a, const double *av, const double *x,
                                  double *y)
{
    for (int i = 0; i < a->rows; i++) {
        double sum = 0;
        for (int e = a->row_start[i]; e < a->row_start[i + 1]; e++)
            sum += av[e] * x[a->columns[e]];
        y[i] = sum;
    }
}

static inline void wb_csr_mat_vec_add(const wb_sparse_pattern *a, const double *av, double s,
                                      const double *x, double *y)
{
    for (int i = 0; i < a->rows; i++) {
        double sum = 0;
        for (int e = a->row_start[i]; e < a->row_start[i + 1]; e++)
            sum += av[e] * x[a->columns[e]];
        y[i] += s * sum;
    }
}

/* y += s A^T x (y has A's cols entries). */
static inline void wb_csr_t_vec_add(const wb_sparse_pattern *a, const double *av, double s,
                                    const double *x, double *y)
{
    for (int i = 0; i < a->rows; i++) {
        const double xi = s * x[i];
        for (int e = a->row_start[i]; e < a->row_start[i + 1]; e++)
            y[a->columns[e]] += av[e] * xi;
    }
}

/* The dense rows x cols matrix of values in pattern p. */
static inline void wb_csr_to_dense(const wb_sparse_pattern *p, const double *v, double *dense)
{
    memset(dense, 0, (size_t)p->rows * (size_t)p->cols * sizeof(double));
    for (int i = 0; i < p->rows; i++)
        for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++)
            dense[(size_t)i * p->cols + p->columns[e]] = v[e];
}

#endif
