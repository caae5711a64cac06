/* Sparse LU through LAPACK's banded LU algorithm (dgbtf2/dgbtrs, written
 * out below): the unknowns are reordered by
 * reverse Cuthill-McKee (George and Liu), which gathers the nonzeros of a
 * matrix whose graph is long and thin (a chain, a rod, a stage-by-link
 * block system) into a narrow band, and dgbtrf/dgbtrs factor and solve
 * within it: O(n kl (kl + ku)) instead of O(n^3).  A matrix whose graph
 * is not thin (a 2-D mesh) keeps a band of about sqrt(n): still correct,
 * and no worse than dense. */
#include "host/host.h"
#include "wb_sparse.h"
#include "wb_vec.h"

#include <stdlib.h>
#include <string.h>

struct wb_sparse_lu {
    int n, nnz;
    int kl, ku, ldab;
    int *order;    /* order[new] = old unknown                         */
    int *place;    /* place[e]: where entry e lives in the band storage */
    double *band;  /* ldab x n, column-major (LAPACK band storage)      */
    double *work;  /* n: a right-hand side in the new order            */
    int *pivots;   /* n                                                 */
};

/* The graph of A + A^T without its diagonal, as adjacency lists. */
typedef struct graph {
    int *start, *next; /* n + 1 offsets, 2 nnz neighbours at most        */
} graph;

static void graph_free(graph *g)
{
    free(g->start);
    free(g->next);
}

static int graph_build(const wb_sparse_pattern *p, graph *g)
{
    const int n = p->rows;
    g->start = calloc((size_t)n + 2, sizeof(int));
    g->next = calloc(2 * (size_t)p->nnz + 1, sizeof(int));
    int *fill = calloc((size_t)n + 1, sizeof(int));
    if (!g->start || !g->next || !fill) {
        free(fill);
        return -1;
    }
    for (int i = 0; i < n; i++)
        for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++)
            if (p->columns[e] != i)
                g->start[i + 1]++, g->start[p->columns[e] + 1]++;
    for (int i = 0; i < n; i++)
        g->start[i + 1] += g->start[i];
    for (int i = 0; i < n; i++)
        for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++) {
            const int j = p->columns[e];
            if (j == i)
                continue;
            g->next[g->start[i] + fill[i]++] = j;
            g->next[g->start[j] + fill[j]++] = i;
        }
    /* drop the duplicates of symmetric entries, compacting in place */
    for (int i = 0; i < n; i++)
        fill[i] = -1;
    int at = 0;
    for (int i = 0; i < n; i++) {
        const int begin = g->start[i], end = g->start[i + 1];
        g->start[i] = at;
        for (int e = begin; e < end; e++) {
            const int j = g->next[e];
            if (fill[j] == i)
                continue;
            fill[j] = i;
            g->next[at++] = j;
        }
    }
    g->start[n] = at;
    free(fill);
    return 0;
}

static int degree(const graph *g, int v) { return g->start[v + 1] - g->start[v]; }

/* Breadth-first from root over the unvisited vertices (mark != stamp),
 * neighbours by increasing degree; writes the visit order to queue and
 * returns its length; *last_level the index where the last level starts,
 * *depth the number of levels. */
static int breadth_first(const graph *g, int root, int *mark, int stamp, int *queue,
                         int *last_level, int *depth)
{
    int head = 0, tail = 0, level_end = 1, levels = 1, level_start = 0;
    queue[tail++] = root;
    mark[root] = stamp;
    while (head < tail) {
        const int v = queue[head++];
        const int first = tail;
        for (int e = g->start[v]; e < g->start[v + 1]; e++) {
            const int w = g->next[e];
            if (mark[w] == stamp)
                continue;
            mark[w] = stamp;
            /* insert by degree among this vertex's new neighbours */
            int at = tail++;
            while (at > first && degree(g, queue[at - 1]) > degree(g, w)) {
                queue[at] = queue[at - 1];
                at--;
            }
            queue[at] = w;
        }
        if (head == level_end && head < tail) {
            level_start = head;
            level_end = tail;
            levels++;
        }
    }
    *last_level = level_start;
    *depth = levels;
    return tail;
}

/* Reverse Cuthill-McKee: each connected component from a pseudo-peripheral
 * vertex (repeated breadth-first searches from the last level's vertex of
 * least degree while the depth grows). */
static int reverse_cuthill_mckee(const graph *g, int n, int *order)
{
    int *mark = malloc((size_t)n * sizeof(int)), *queue = malloc((size_t)n * sizeof(int));
    int *done = calloc((size_t)n, sizeof(int));
    if (!mark || !queue || !done) {
        free(mark), free(queue), free(done);
        return -1;
    }
    for (int v = 0; v < n; v++)
        mark[v] = -1;
    int placed = 0, stamp = 0;
    for (int seed = 0; seed < n; seed++) {
        if (done[seed])
            continue;
        int root = seed, last, depth, count;
        /* the component's vertex of least degree, then the periphery */
        count = breadth_first(g, root, mark, stamp++, queue, &last, &depth);
        for (int k = 0; k < count; k++)
            if (degree(g, queue[k]) < degree(g, root))
                root = queue[k];
        for (int round = 0; round < 8; round++) {
            int new_last, new_depth;
            count = breadth_first(g, root, mark, stamp++, queue, &new_last, &new_depth);
            int candidate = queue[new_last];
            for (int k = new_last; k < count; k++)
                if (degree(g, queue[k]) < degree(g, candidate))
                    candidate = queue[k];
            if (round > 0 && new_depth <= depth)
                break;
            depth = new_depth;
            root = candidate;
        }
        count = breadth_first(g, root, mark, stamp++, queue, &last, &depth);
        for (int k = 0; k < count; k++) {
            done[queue[k]] = 1;
            order[placed + k] = queue[k];
        }
        placed += count;
    }
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        int swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
    free(mark), free(queue), free(done);
    return 0;
}

/* The band of p with unknown `old` moved to position where[old]. */
static void band_of(const wb_sparse_pattern *p, const int *where, int *kl, int *ku)
{
    *kl = 0, *ku = 0;
    for (int i = 0; i < p->rows; i++)
        for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++) {
            const int d = where[i] - where[p->columns[e]];
            if (d > *kl)
                *kl = d;
            if (-d > *ku)
                *ku = -d;
        }
}

void sparse_lu_destroy(const wb_host *host, wb_sparse_lu *lu)
{
    (void)host;
    if (!lu)
        return;
    free(lu->order);
    free(lu->place);
    free(lu->band);
    free(lu->work);
    free(lu->pivots);
    free(lu);
}

/* Chooses the order (reverse Cuthill-McKee, or the given one when its band
 * is no wider) and where each entry lands in the band. */
static int plan(wb_sparse_lu *lu, const wb_sparse_pattern *p)
{
    const int n = p->rows;
    int *where = malloc((size_t)n * sizeof(int)), *rcm = malloc((size_t)n * sizeof(int));
    graph g = {0};
    int status = (!where || !rcm || graph_build(p, &g) != 0 ||
                  reverse_cuthill_mckee(&g, n, rcm) != 0) ? -1 : 0;
    if (status == 0) {
        int kl_given, ku_given, kl_rcm, ku_rcm;
        for (int i = 0; i < n; i++)
            where[i] = i;
        band_of(p, where, &kl_given, &ku_given);
        for (int k = 0; k < n; k++)
            where[rcm[k]] = k;
        band_of(p, where, &kl_rcm, &ku_rcm);
        /* dgbtrf costs about n kl (kl + ku) */
        if ((double)kl_rcm * (kl_rcm + ku_rcm + 1) < (double)kl_given * (kl_given + ku_given + 1)) {
            memcpy(lu->order, rcm, (size_t)n * sizeof(int));
            lu->kl = kl_rcm, lu->ku = ku_rcm;
        } else {
            for (int i = 0; i < n; i++)
                lu->order[i] = where[i] = i;
            lu->kl = kl_given, lu->ku = ku_given;
        }
        lu->ldab = 2 * lu->kl + lu->ku + 1;
        for (int i = 0; i < n; i++)
            for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++)
                lu->place[e] = wb_band_index(lu->kl, lu->ku, lu->ldab, where[i],
                                             where[p->columns[e]]);
    }
    graph_free(&g);
    free(where);
    free(rcm);
    return status;
}

/* ---- the banded LU ---------------------------------------------------------------
 * Reference LAPACK's dgbtf2 (which dgbtrf calls for a band this narrow)
 * and dgbtrs, written out: the same pivots and the same floating-point
 * operations in the same order (so the same bits), without a BLAS call
 * (idamax, dswap, dscal, dger, dtbsv) per column, which costs several
 * times the arithmetic of a tridiagonal band.  AB is LAPACK's band storage
 * (column-major, ldab rows, the factor's rows kv = kl + ku above the
 * diagonal); indices below are 0-based. */

#define BAND(AB, ldab, row, col) ((AB)[(size_t)(col) * (size_t)(ldab) + (size_t)(row)])

/* dgbtf2 for an n x n band matrix: 0, or j + 1 for a zero pivot in column j
 * (the factorization still completes, as LAPACK's does). */
static int band_lu_factor(int n, int kl, int ku, double *AB, int ldab, int *ipiv)
{
    const int kv = ku + kl;
    int info = 0, ju = 0;
    /* fill-in of columns ku+1 .. kv-1 (the band was zeroed: kept for the
     * order of operations only where it matters, i.e. nowhere) */
    for (int j = 0; j < n; j++) {
        if (j + kv < n)
            for (int i = 0; i < kl; i++)
                BAND(AB, ldab, i, j + kv) = 0.0;
        const int km = kl < n - 1 - j ? kl : n - 1 - j;
        int jp = 0; /* idamax: the first largest |.| */
        double largest = fabs(BAND(AB, ldab, kv, j));
        for (int i = 1; i <= km; i++)
            if (fabs(BAND(AB, ldab, kv + i, j)) > largest)
                largest = fabs(BAND(AB, ldab, kv + i, j)), jp = i;
        ipiv[j] = jp + j + 1; /* 1-based, as LAPACK */
        if (BAND(AB, ldab, kv + jp, j) == 0.0) {
            if (info == 0)
                info = j + 1;
            continue;
        }
        const int reach = j + ku + jp < n - 1 ? j + ku + jp : n - 1;
        ju = ju > reach ? ju : reach;
        if (jp != 0) /* swap rows j and j + jp over columns j .. ju */
            for (int c = 0; c <= ju - j; c++) {
                double *a = &AB[(size_t)(j + c) * ldab + kv + jp - c];
                double *b = &AB[(size_t)(j + c) * ldab + kv - c];
                const double t = *a;
                *a = *b, *b = t;
            }
        if (km > 0) {
            const double r = 1.0 / BAND(AB, ldab, kv, j);
            for (int i = 1; i <= km; i++)
                BAND(AB, ldab, kv + i, j) = r * BAND(AB, ldab, kv + i, j);
            for (int c = 1; c <= ju - j; c++) { /* dger: column j + c, if y != 0 */
                const double y = BAND(AB, ldab, kv - c, j + c);
                if (y == 0.0)
                    continue;
                const double t = -1.0 * y;
                for (int i = 1; i <= km; i++)
                    BAND(AB, ldab, kv - c + i, j + c) += BAND(AB, ldab, kv + i, j) * t;
            }
        }
    }
    return info;
}

/* dgbtrs ('N', one right-hand side) with the factors of band_lu_factor. */
static void band_lu_solve(int n, int kl, int ku, const double *AB, int ldab, const int *ipiv,
                          double *b)
{
    const int kd = ku + kl; /* the diagonal's row in AB */
    if (kl > 0)
        for (int j = 0; j < n - 1; j++) {
            const int lm = kl < n - 1 - j ? kl : n - 1 - j;
            const int l = ipiv[j] - 1;
            if (l != j) {
                const double t = b[l];
                b[l] = b[j], b[j] = t;
            }
            if (b[j] != 0.0) { /* dger with y = b_j */
                const double t = -1.0 * b[j];
                for (int i = 1; i <= lm; i++)
                    b[j + i] += BAND(AB, ldab, kd + i, j) * t;
            }
        }
    const int k = kl + ku; /* dtbsv: upper, k superdiagonals, not unit */
    for (int j = n - 1; j >= 0; j--) {
        if (b[j] == 0.0)
            continue;
        b[j] = b[j] / BAND(AB, ldab, kd, j);
        const double t = b[j];
        for (int i = j - 1; i >= 0 && i >= j - k; i--)
            b[i] = b[i] - t * BAND(AB, ldab, kd - (j - i), j);
    }
}

wb_sparse_lu *sparse_lu_create(const wb_host *host, const wb_sparse_pattern *p)
{
    char why[160];
    if (wb_sparse_pattern_problem(p, -1, -1, why, sizeof why) || p->rows != p->cols ||
        p->rows < 1) {
        host->error(host, "sparse_lu_create: the pattern is not that of a square matrix (%s)",
                    wb_sparse_pattern_problem(p, -1, -1, why, sizeof why)
                        ? why
                        : "its rows and columns differ or it is empty");
        return NULL;
    }
    const int n = p->rows;
    wb_sparse_lu *lu = calloc(1, sizeof *lu);
    if (lu) {
        lu->n = n, lu->nnz = p->nnz;
        lu->order = malloc((size_t)n * sizeof(int));
        lu->place = malloc(((size_t)p->nnz + 1) * sizeof(int));
        lu->work = malloc((size_t)n * sizeof(double));
        lu->pivots = malloc((size_t)n * sizeof(int));
    }
    if (!lu || !lu->order || !lu->place || !lu->work || !lu->pivots || plan(lu, p) != 0 ||
        !(lu->band = calloc((size_t)lu->ldab * (size_t)n, sizeof(double)))) {
        sparse_lu_destroy(host, lu);
        host->error(host, "sparse_lu_create: out of memory for a %dx%d matrix with %d nonzeros",
                    n, n, p->nnz);
        return NULL;
    }
    return lu;
}

void sparse_lu_band(const wb_host *host, const wb_sparse_lu *lu, int *kl, int *ku)
{
    (void)host;
    *kl = lu->kl;
    *ku = lu->ku;
}

int sparse_lu_factor(const wb_host *host, wb_sparse_lu *lu, const double *values)
{
    if (!vec_all_finite(lu->nnz, values)) {
        host->error(host, "sparse_lu_factor: the %dx%d matrix has a non-finite entry", lu->n,
                    lu->n);
        return WB_ERR_NONFINITE;
    }
    memset(lu->band, 0, (size_t)lu->ldab * (size_t)lu->n * sizeof(double));
    for (int e = 0; e < lu->nnz; e++)
        lu->band[lu->place[e]] = values[e];
    const int info = band_lu_factor(lu->n, lu->kl, lu->ku, lu->band, lu->ldab, lu->pivots);
    if (info > 0) {
        host->error(host, "sparse_lu_factor: the %dx%d matrix is singular (zero pivot %d)",
                    lu->n, lu->n, info);
        return WB_ERR_SINGULAR;
    }
    return WB_OK;
}

int sparse_lu_solve(const wb_host *host, wb_sparse_lu *lu, int nrhs, double *B)
{
    const int n = lu->n;
    for (int k = 0; k < nrhs; k++) {
        double *b = B + (size_t)k * n;
        for (int i = 0; i < n; i++)
            lu->work[i] = b[lu->order[i]];
        band_lu_solve(n, lu->kl, lu->ku, lu->band, lu->ldab, lu->pivots, lu->work);
        for (int i = 0; i < n; i++)
            b[lu->order[i]] = lu->work[i];
    }
    if (!vec_all_finite(n * nrhs, B)) {
        host->error(host, "sparse_lu_solve: the solution is not finite (matrix nearly singular)");
        return WB_ERR_NONFINITE;
    }
    return WB_OK;
}
