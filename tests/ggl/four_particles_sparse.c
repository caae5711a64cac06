/* Gonzalez's four-particle system (models/four_particles.c) declared sparse
 * (wb.sparsity/1), as the test of the GGL energy-momentum schemes' sparse
 * path on a model with potential invariants (Greenspan's discrete
 * gradient, its Jacobian by coloured differences) and a quartic V
 * (Gonzalez's rank-one term): the model's own source, built under the name
 * four_particles_sparse with this extension added.  The patterns are the
 * structural ones (G and T: the bars 1-2, 3-4; Hess V: the springs 1-3,
 * 2-4); their values are gathered from the dense callbacks (12
 * coordinates: cost is not the point here). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

static const wb_sparsity_ext sparsity; /* defined below, after the model */
#define FOUR_PARTICLES_NAME "four_particles_sparse"
#define FOUR_PARTICLES_MORE_EXTENSIONS {WB_EXT_SPARSITY, &sparsity},
#include "../../models/four_particles.c"

/* The patterns, built on first use (the same for every instance). */
static int G_start[NC + 1], G_columns[NC * 6];
static int T_start[NQ + 1], T_columns[NQ * 2];
static int H_start[NQ + 1], H_columns[NQ * 6];
static wb_sparse_pattern G_pattern, T_pattern, H_pattern;
static double dense[NQ * NQ];

/* Row r of a pattern whose rows are particle blocks: the 3 components (or,
 * with `diagonal`, the same component only) of particles a and b. */
static int pair_row(int a, int b, int component, int *columns)
{
    const int lo = a < b ? a : b, hi = a < b ? b : a, at = component;
    int count = 0;
    for (int c = 0; c < 3; c++)
        if (at < 0 || c == at)
            columns[count++] = 3 * lo + c;
    for (int c = 0; c < 3; c++)
        if (at < 0 || c == at)
            columns[count++] = 3 * hi + c;
    return count;
}

/* The particle joined to particle p by a bar (bars) or a spring. */
static int partner(const int *a, const int *b, int p)
{
    for (int k = 0; k < 2; k++) {
        if (a[k] == p)
            return b[k];
        if (b[k] == p)
            return a[k];
    }
    return p;
}

static void build_patterns(void)
{
    if (G_pattern.struct_size)
        return;
    for (int k = 0; k < NC; k++)
        G_start[k + 1] = G_start[k] + pair_row(bar_a[k], bar_b[k], -1, G_columns + G_start[k]);
    for (int r = 0; r < NQ; r++) {
        const int p = r / 3;
        T_start[r + 1] = T_start[r] + pair_row(p, partner(bar_a, bar_b, p), r % 3,
                                               T_columns + T_start[r]);
        H_start[r + 1] = H_start[r] + pair_row(p, partner(spring_a, spring_b, p), -1,
                                               H_columns + H_start[r]);
    }
    G_pattern = (wb_sparse_pattern){sizeof(wb_sparse_pattern), NC, NQ, G_start[NC], G_start,
                                    G_columns};
    T_pattern = (wb_sparse_pattern){sizeof(wb_sparse_pattern), NQ, NQ, T_start[NQ], T_start,
                                    T_columns};
    H_pattern = (wb_sparse_pattern){sizeof(wb_sparse_pattern), NQ, NQ, H_start[NQ], H_start,
                                    H_columns};
}

static void gather(const wb_sparse_pattern *p, const double *matrix, double *values)
{
    for (int i = 0; i < p->rows; i++)
        for (int e = p->row_start[i]; e < p->row_start[i + 1]; e++)
            values[e] = matrix[i * NQ + p->columns[e]];
}

static void mass_diagonal(void *self, const double *q, double *d)
{
    const four_particles *f = self;
    (void)q;
    for (int i = 0; i < NQ; i++)
        d[i] = f->m[i / 3];
}

static const wb_sparse_pattern *jacobian_pattern(void *self)
{
    (void)self;
    build_patterns();
    return &G_pattern;
}

static const wb_sparse_pattern *contract_pattern(void *self)
{
    (void)self;
    build_patterns();
    return &T_pattern;
}

static const wb_sparse_pattern *hessian_pattern(void *self)
{
    (void)self;
    build_patterns();
    return &H_pattern;
}

static void jacobian_values(void *self, const double *q, double *values)
{
    jacobian(self, q, dense);
    gather(jacobian_pattern(self), dense, values);
}

static void hessian_vector_values(void *self, const double *q, const double *w, double *values)
{
    hessian_vector(self, q, w, dense);
    gather(jacobian_pattern(self), dense, values);
}

static void contract_values(void *self, const double *q, const double *mu, double *values)
{
    hessian_contract(self, q, mu, dense);
    gather(contract_pattern(self), dense, values);
}

static void potential_hessian_values(void *self, const double *q, double *values)
{
    potential_hessian(self, q, dense);
    gather(hessian_pattern(self), dense, values);
}

static const wb_sparsity_ext sparsity = {
    .struct_size = sizeof(wb_sparsity_ext),
    .mass_diagonal = mass_diagonal,
    .jacobian_pattern = jacobian_pattern,
    .jacobian_values = jacobian_values,
    .hessian_vector_values = hessian_vector_values,
    .hessian_contract_pattern = contract_pattern,
    .hessian_contract_values = contract_values,
    .potential_hessian_pattern = hessian_pattern,
    .potential_hessian_values = potential_hessian_values,
};
