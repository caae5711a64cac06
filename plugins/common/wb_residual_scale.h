/* The sizes of the terms the residual rows of a constrained step are made
 * of, for wb_newton_options.residual_scale (ABI 1.2): with them one Newton
 * tolerance means the same relative accuracy for a pendulum of length 1e-6
 * and of 1e6, where an absolute one is either unreachable (round-off of
 * g = |q|^2 - l^2 is eps l^2) or meaningless.  Rough sizes suffice: they
 * place the test near each row's round-off floor, nothing more. */
#ifndef WB_RESIDUAL_SCALE_H
#define WB_RESIDUAL_SCALE_H

#include <workbench/workbench.h>

#include <math.h>

/* s, or 1 when s is no positive finite number (a state at rest, no
 * potential: the absolute test is all there is). */
static inline double wb_scale_or_one(double s)
{
    return s > 0.0 && isfinite(s) ? s : 1.0;
}

static inline double wb_scale_max_abs(int n, const double *x)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* Momentum balances p1 - p0 + h F: |p0| + h |grad V(q0)| (max norms), for
 * a gradient at hand. */
static inline double wb_momentum_scale_of(const wb_model *m, const double *p0, double h,
                                          const double *grad)
{
    return wb_scale_or_one(wb_scale_max_abs(m->nv, p0) + fabs(h) * wb_scale_max_abs(m->nq, grad));
}

/* The same, evaluating grad V(q0) into `work` (nq doubles).  The gradient
 * is a force evaluation like any other: counted in stats (when given), so
 * that function_evals is what the model was asked. */
static inline double wb_momentum_scale(const wb_model *m, const double *q0, const double *p0,
                                       double h, double *work, wb_step_stats *stats)
{
    wb_potential_gradient(m, q0, work);
    if (stats)
        stats->function_evals++;
    return wb_momentum_scale_of(m, p0, h, work);
}

/* Rows G_k(q) . y of a constraint Jacobian G (m x n, row-major) applied to
 * vectors of size y_size: sum_j |G_kj| y_size / divisor each.  With y_size
 * = |q| these are the sizes of g_k(q) itself (|q|^2 for |q|^2 - l^2), with
 * y_size = |v| those of the hidden constraint G(q) v. */
static inline void wb_constraint_row_scales(int m, int n, const double *G, double y_size,
                                            double divisor, double *out)
{
    for (int k = 0; k < m; k++) {
        double row = 0.0;
        for (int j = 0; j < n; j++)
            row += fabs(G[(size_t)k * n + j]);
        out[k] = wb_scale_or_one(row * y_size / divisor);
    }
}

/* The same for G given as its values in a sparse pattern (wb.sparsity/1). */
static inline void wb_sparse_row_scales(const wb_sparse_pattern *G, const double *values,
                                        double y_size, double divisor, double *out)
{
    for (int k = 0; k < G->rows; k++) {
        double row = 0.0;
        for (int e = G->row_start[k]; e < G->row_start[k + 1]; e++)
            row += fabs(values[e]);
        out[k] = wb_scale_or_one(row * y_size / divisor);
    }
}

#endif
