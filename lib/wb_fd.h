/* Central finite differences: the one definition of their steps, used by
 * the host's fallbacks and check-model (core/src/run/finite_diff.c) and by
 * the in-tree plugins' Jacobians where the model view offers a function but
 * not its derivative. */
#ifndef WB_FD_H
#define WB_FD_H

#include <math.h>
#include <string.h>

/* out (rows values) = F(x) */
typedef void (*wb_vector_map)(void *ctx, const double *x, double *out);

/* Relative central-difference steps, by the depth of the function
 * differentiated.  A central difference with step h of a function with
 * noise d errs by about h^2 + d/h, least at h = d^(1/3), leaving d^(2/3):
 * from eps = DBL_EPSILON, steps eps^(1/3) for a function accurate to eps
 * (analytic), eps^(2/9) for one that is itself such a difference, and
 * eps^(4/27) one level deeper, leaving about 1e-10, 1e-7, 2e-5 relative. */
#define WB_FD_CENTRAL_STEP 6.0554544523933429e-06  /* eps^(1/3)  */
#define WB_FD_CENTRAL_STEP_1 3.3222412113632265e-04 /* eps^(2/9)  */
#define WB_FD_CENTRAL_STEP_2 4.7968275719156676e-03 /* eps^(4/27) */

/* The step for a coordinate of size x of a function `depth` (0..2)
 * difference levels deep: the relative step times max(1, |x|). */
static inline double wb_fd_step(double x, int depth)
{
    static const double relative[3] = {WB_FD_CENTRAL_STEP, WB_FD_CENTRAL_STEP_1,
                                       WB_FD_CENTRAL_STEP_2};
    return relative[depth < 0 ? 0 : depth > 2 ? 2 : depth] * fmax(1.0, fabs(x));
}

/* J (rows x cols, row-major) = dF/dx at x (cols values) by central
 * differences, 2 cols evaluations of F.  scratch holds cols + 2 rows
 * doubles.  The divisor is the exactly representable step actually taken. */
static inline void wb_central_jacobian(wb_vector_map F, void *ctx, int rows, int cols,
                                       const double *x, double *scratch, double *J)
{
    double *shifted = scratch, *plus = scratch + cols, *minus = plus + rows;
    memcpy(shifted, x, (size_t)cols * sizeof(double));
    for (int j = 0; j < cols; j++) {
        const double step = wb_fd_step(x[j], 0);
        shifted[j] = x[j] + step;
        const double up = shifted[j] - x[j];
        F(ctx, shifted, plus);
        shifted[j] = x[j] - step;
        const double down = x[j] - shifted[j];
        F(ctx, shifted, minus);
        shifted[j] = x[j];
        for (int i = 0; i < rows; i++)
            J[(size_t)i * cols + j] = (plus[i] - minus[i]) / (up + down);
    }
}

#endif
