/* Central-difference Jacobians for the in-tree plugins, where the model
 * view offers a function but not its derivative. */
#ifndef WB_FD_H
#define WB_FD_H

#include <math.h>
#include <string.h>

/* out (rows values) = F(x) */
typedef void (*wb_vector_map)(void *ctx, const double *x, double *out);

/* cbrt(DBL_EPSILON): a central difference of a function accurate to eps
 * errs by about step^2 + eps/step, least at this relative step, leaving a
 * relative error near 1e-10 (the host's finite-difference fallbacks use
 * the same). */
#define WB_FD_CENTRAL_STEP 6.0554544523933395e-06

/* J (rows x cols, row-major) = dF/dx at x (cols values) by central
 * differences, 2 cols evaluations of F.  scratch holds cols + 2 rows
 * doubles.  The divisor is the exactly representable step actually taken. */
static inline void wb_central_jacobian(wb_vector_map F, void *ctx, int rows, int cols,
                                       const double *x, double *scratch, double *J)
{
    double *shifted = scratch, *plus = scratch + cols, *minus = plus + rows;
    memcpy(shifted, x, (size_t)cols * sizeof(double));
    for (int j = 0; j < cols; j++) {
        const double step = WB_FD_CENTRAL_STEP * fmax(1.0, fabs(x[j]));
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
