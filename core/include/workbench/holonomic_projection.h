/*
 * workbench/holonomic_projection.h -- wb.holonomic_point/1's project(),
 * written for a model by one macro (ABI 1.7).
 *
 * In the model's source, after its evaluate function:
 *
 *   #include <workbench/holonomic_projection.h>
 *   WB_HOLONOMIC_PROJECTION(project, point_values, 2)
 *   static const wb_holonomic_point_ext holonomic_point = {
 *       .struct_size = sizeof(wb_holonomic_point_ext),
 *       .evaluate = point_values,
 *       .project = project,
 *       .project_nq = project_nq,
 *   };
 *
 * defines `static int project(...)`: the iteration that model.h specifies
 * (wb_projection_problem), with point_values called directly, so that the
 * compiler inlines it into the loop.  NQ is the model's nq as a constant
 * (the loops then unroll) or 0 for an nq known only at run time; the
 * macro's enum constant project_nq (name##_nq) says which, for the
 * extension (the host checks it against the instance's nq).  For models
 * with one holonomic constraint (bound only for instances with m = 1).
 *
 * Compile the model with -ffp-contract=off (`pkg-config --cflags
 * workbench-plugin` has it): a fused multiply-add in the model's copy of
 * the iteration would change the last bits, and check-model says so.
 *
 * The iteration is the contract (method results must not depend on
 * whether a model has project()): change it here and in model.h together,
 * never in one model.
 */
#ifndef WORKBENCH_HOLONOMIC_PROJECTION_H
#define WORKBENCH_HOLONOMIC_PROJECTION_H

#include "model.h"

#include <math.h>
#include <stddef.h>

/* a * b + c stays two roundings, as in the method's own iteration (GCC:
 * -ffp-contract=off, which the workbench's build flags carry) */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#if defined(__GNUC__) || defined(__clang__)
#define WB_PROJECTION_INLINE static inline __attribute__((always_inline))
#else
#define WB_PROJECTION_INLINE static inline
#endif

/* The report's members up to `jacobian` (1.7): a caller's struct smaller
 * than that gets nothing written. */
#define WB_PROJECTION_REPORT_SIZE_1_7 \
    (offsetof(wb_projection_report, jacobian) + sizeof(double))

/* Member by member, never the whole struct: the caller's may be older and
 * smaller than this header's. */
WB_PROJECTION_INLINE void wb_projection_write_report(wb_projection_report *report, int outcome,
                                                     int residuals, int iterations,
                                                     int jacobians, double residual,
                                                     double jacobian)
{
    report->outcome = outcome;
    report->residuals = residuals;
    report->iterations = iterations;
    report->jacobians = jacobians;
    report->residual = residual;
    report->jacobian = jacobian;
}

/* The body of every project(): evaluate is a constant at each use of the
 * macro, so the compiler calls (and inlines) the model's function.  The
 * outputs overlap nothing (model.h), and restrict says so: the compiler
 * keeps the point and its values in registers instead of reading back what
 * it has just stored.  The report is written once, at the end.  Returns
 * the status; *evaluated says whether the outputs hold a point. */
WB_PROJECTION_INLINE int wb_projection_newton(
    void *self, const wb_projection_problem *pr, double *lambda, double *restrict q,
    double *restrict grad_V, double *restrict g, double *restrict G,
    wb_projection_report *report, int nq_constant,
    void (*evaluate)(void *self, const double *q, double *grad_V, double *g, double *G),
    int *evaluated)
{
    *evaluated = 0;
    if (!report || report->struct_size < WB_PROJECTION_REPORT_SIZE_1_7)
        return WB_ERR_INVALID;
    if (!pr || pr->struct_size < offsetof(wb_projection_problem, max_iter) + sizeof(int) ||
        pr->nq < 1 || (nq_constant > 0 && pr->nq != nq_constant)) {
        wb_projection_write_report(report, WB_PROJECTION_INVALID, 0, 0, 0, 0.0, 0.0);
        return WB_ERR_INVALID;
    }
    const int nq = nq_constant > 0 ? nq_constant : pr->nq;
    const double *restrict drift = pr->drift, *restrict direction = pr->direction;
    const double c = pr->c, tol = pr->tol, floor_bound = pr->floor;
    const int max_iter = pr->max_iter;
    double x = *lambda, before = INFINITY, size, J = 0.0;
    int k = 0, jacobians = 0, outcome = WB_PROJECTION_CONVERGED, status = WB_OK;
    for (;; k++) {
        const double a = c * x;
        for (int i = 0; i < nq; i++)
            q[i] = drift[i] + a * direction[i];
        evaluate(self, q, grad_V, g, G);
        size = fabs(g[0]);
        if (!isfinite(g[0])) {
            outcome = WB_PROJECTION_RESIDUAL_NONFINITE, status = WB_ERR_NONFINITE;
            break;
        }
        if (size <= tol)
            break;
        if (k > 0 && size <= floor_bound && !(size / tol < 0.5 * (before / tol)))
            break;
        if (k >= max_iter) {
            outcome = WB_PROJECTION_NOT_CONVERGED, status = WB_ERR_NEWTON;
            break;
        }
        double dot = 0;
        for (int i = 0; i < nq; i++)
            dot += G[i] * direction[i];
        J = c * dot;
        jacobians++;
        if (!isfinite(J) || J == 0.0) {
            outcome = J == 0.0 ? WB_PROJECTION_SINGULAR : WB_PROJECTION_JACOBIAN_NONFINITE;
            status = J == 0.0 ? WB_ERR_SINGULAR : WB_ERR_NONFINITE;
            break;
        }
        const double update = g[0] / J;
        if (!isfinite(update)) {
            outcome = WB_PROJECTION_UPDATE_NONFINITE, status = WB_ERR_NONFINITE;
            break;
        }
        x -= update;
        before = size;
    }
    /* evaluation k was the last: k updates of lambda before it */
    wb_projection_write_report(report, outcome, k + 1, k, jacobians, size, J);
    *evaluated = 1;
    if (status == WB_OK)
        *lambda = x;
    return status;
}

/* The caller's copies of the last point and its values. */
WB_PROJECTION_INLINE void wb_projection_copy_out(int nq, const double *q_, const double *grad_,
                                                 const double *g_, const double *G_, double *q,
                                                 double *grad_V, double *g, double *G)
{
    for (int i = 0; i < nq; i++)
        q[i] = q_[i], grad_V[i] = grad_[i], G[i] = G_[i];
    g[0] = g_[0];
}

/* static int name(self, problem, lambda, q, grad_V, g, G, report) for the
 * model function evaluate and nq = NQ (0: the problem's nq), and the
 * constant name##_nq = NQ for the extension's project_nq.  With NQ > 0
 * the iteration works on arrays of its own (no pointer of the caller's can
 * reach them, so they live in registers) and copies them out at the end. */
#define WB_HOLONOMIC_PROJECTION(name, evaluate, NQ)                                             \
    enum { name##_nq = (NQ) };                                                                 \
    static int name(void *self, const wb_projection_problem *problem, double *lambda,         \
                    double *q, double *grad_V, double *g, double *G,                          \
                    wb_projection_report *report)                                             \
    {                                                                                          \
        enum { wb_nq_ = (NQ) > 0 ? (NQ) : 1 };                                                 \
        int evaluated;                                                                         \
        if ((NQ) > 0) {                                                                        \
            double q_[wb_nq_], grad_[wb_nq_], g_[1], G_[wb_nq_];                               \
            const int status = wb_projection_newton(self, problem, lambda, q_, grad_, g_, G_,  \
                                                    report, (NQ), evaluate, &evaluated);       \
            if (evaluated)                                                                     \
                wb_projection_copy_out(wb_nq_, q_, grad_, g_, G_, q, grad_V, g, G);            \
            return status;                                                                     \
        }                                                                                      \
        return wb_projection_newton(self, problem, lambda, q, grad_V, g, G, report, 0,        \
                                    evaluate, &evaluated);                                     \
    }

#endif
