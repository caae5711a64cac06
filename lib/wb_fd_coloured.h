/* A sparse Jacobian by central differences in a few evaluations (Curtis,
 * Powell and Reid 1974): columns that share no row of the known pattern
 * are perturbed together, so one pair of evaluations per colour gives all
 * their entries.  A chain's banded pattern needs a number of colours set
 * by its band, not by its length: O(1) evaluations for any N.  The steps
 * and the divisor are wb_central_jacobian's (wb_fd.h), column by column,
 * so the entries are those of the dense differences wherever F's row i
 * depends only on the columns of row i of the pattern.  Building the
 * colouring allocates (create time); evaluating does not. */
#ifndef WB_FD_COLOURED_H
#define WB_FD_COLOURED_H

#include "wb_fd.h"
#include "wb_sparse.h"

typedef struct wb_fd_colouring {
    int colours;
    int *colour_start;   /* colours + 1: the columns of colour c are       */
    int *columns;        /* columns[colour_start[c] .. colour_start[c+1]-1] */
    wb_csr by_column;    /* the pattern's transpose: the rows of column j  */
    int *origin;         /* its entries' indices in the pattern's values   */
} wb_fd_colouring;

static inline void wb_fd_colouring_free(wb_fd_colouring *c)
{
    free(c->colour_start);
    free(c->columns);
    free(c->origin);
    wb_csr_free(&c->by_column);
    memset(c, 0, sizeof *c);
}

/* Greedy colouring of p's columns (each column the smallest colour no
 * column sharing one of its rows has).  0, or -1 out of memory. */
static inline int wb_fd_colouring_build(const wb_sparse_pattern *p, wb_fd_colouring *c)
{
    memset(c, 0, sizeof *c);
    const int cols = p->cols;
    if (wb_csr_transpose(p, &c->by_column, &c->origin) != 0)
        return -1;
    int *colour = malloc(((size_t)cols + 1) * sizeof(int));
    int *stamp = malloc(((size_t)cols + 1) * sizeof(int));
    c->colour_start = calloc((size_t)cols + 2, sizeof(int));
    c->columns = malloc(((size_t)cols + 1) * sizeof(int));
    int status = colour && stamp && c->colour_start && c->columns ? 0 : -1;
    for (int j = 0; status == 0 && j < cols; j++)
        stamp[j] = -1;
    for (int j = 0; status == 0 && j < cols; j++) {
        const wb_csr *t = &c->by_column;
        for (int a = t->row_start[j]; a < t->row_start[j + 1]; a++) {
            const int i = t->columns[a];
            for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++)
                if (p->columns[e] < j)
                    stamp[colour[p->columns[e]]] = j;
        }
        int k = 0;
        while (stamp[k] == j)
            k++;
        colour[j] = k;
        if (k + 1 > c->colours)
            c->colours = k + 1;
    }
    if (status == 0) { /* group the columns by colour */
        for (int j = 0; j < cols; j++)
            c->colour_start[colour[j] + 1]++;
        for (int k = 0; k < c->colours; k++)
            c->colour_start[k + 1] += c->colour_start[k];
        memcpy(stamp, c->colour_start, (size_t)c->colours * sizeof(int));
        for (int j = 0; j < cols; j++)
            c->columns[stamp[colour[j]]++] = j;
    }
    free(colour);
    free(stamp);
    if (status != 0)
        wb_fd_colouring_free(c);
    return status;
}

/* values (in p's pattern, built into c) = dF/dx at x by central
 * differences, 2 c->colours evaluations of F (rows = p->rows values).
 * scratch holds 2 cols + 2 rows doubles. */
static inline void wb_central_jacobian_coloured(wb_vector_map F, void *ctx,
                                                const wb_sparse_pattern *p,
                                                const wb_fd_colouring *c, const double *x,
                                                double *scratch, double *values)
{
    const int cols = p->cols, rows = p->rows;
    double *shifted = scratch, *divisor = scratch + cols, *plus = divisor + cols;
    double *minus = plus + rows;
    const wb_csr *t = &c->by_column;
    memcpy(shifted, x, (size_t)cols * sizeof(double));
    for (int k = 0; k < c->colours; k++) {
        const int *first = c->columns + c->colour_start[k];
        const int *last = c->columns + c->colour_start[k + 1];
        for (const int *j = first; j < last; j++) {
            shifted[*j] = x[*j] + wb_fd_step(x[*j], 0);
            divisor[*j] = shifted[*j] - x[*j];
        }
        F(ctx, shifted, plus);
        for (const int *j = first; j < last; j++) {
            shifted[*j] = x[*j] - wb_fd_step(x[*j], 0);
            divisor[*j] += x[*j] - shifted[*j];
        }
        F(ctx, shifted, minus);
        for (const int *j = first; j < last; j++) {
            shifted[*j] = x[*j];
            for (int a = t->row_start[*j]; a < t->row_start[*j + 1]; a++) {
                const int i = t->columns[a];
                values[c->origin[a]] = (plus[i] - minus[i]) / divisor[*j];
            }
        }
    }
}

#endif
