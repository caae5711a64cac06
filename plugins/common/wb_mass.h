/* For the in-tree integrators that assume a constant mass matrix
 * (Stormer-Verlet, SHAKE, RATTLE, SPARK, HBVM and the GGL schemes): the
 * refusal of any other model, and M^-1 as a matrix, built once at create
 * time for the matrix products of Jacobians (a vector is cheaper through
 * the model's own solve, O(n) for a diagonal M). */
#ifndef WB_MASS_H
#define WB_MASS_H

#include <workbench/workbench.h>

/* WB_OK, or WB_ERR_INVALID reported in the name of the method `who` when
 * the model's mass matrix depends on q. */
static inline int wb_require_constant_mass(const wb_host *host, const wb_model *model,
                                           const char *who)
{
    if (model->mass_constant)
        return WB_OK;
    host->error(host, "%s needs a constant mass matrix; model '%s' has a "
                      "configuration-dependent one", who, model->name);
    return WB_ERR_INVALID;
}

/* Column j of M^-1 (M constant) into scratch + n, through the model's
 * solve; scratch holds 2 n doubles (n = model->nq).  Any q will do, since M
 * is constant: the unit vector being solved for serves as one. */
static inline const double *wb_inverse_mass_column(const wb_model *model, int j,
                                                   double *scratch)
{
    const int n = model->nq;
    double *unit = scratch, *column = scratch + n;
    for (int i = 0; i < n; i++)
        unit[i] = (i == j);
    wb_mass_solve(model, unit, unit, column);
    return column;
}

/* Minv (n x n row-major) = M^-1, column by column. */
static inline void wb_constant_inverse_mass(const wb_model *model, double *scratch,
                                            double *Minv)
{
    const int n = model->nq;
    for (int j = 0; j < n; j++) {
        const double *column = wb_inverse_mass_column(model, j, scratch);
        for (int i = 0; i < n; i++)
            Minv[(size_t)i * n + j] = column[i];
    }
}

/* When the constant mass is diagonal, the diagonal of M^-1 (n = model->nq
 * values) into `diagonal` and 1; else 0.  Probed column by column through
 * the model's solve in O(n) memory (scratch: 2 n doubles) and O(n^2) time,
 * once at create time: a step then scales by it instead of calling the
 * model, and multiplies where the model's solve divides (p (1/m) against
 * p / m: at most one rounding apart, identical for m = 1). */
static inline int wb_constant_inverse_mass_diagonal(const wb_model *model, double *scratch,
                                                    double *diagonal)
{
    const int n = model->nq;
    for (int j = 0; j < n; j++) {
        const double *column = wb_inverse_mass_column(model, j, scratch);
        for (int i = 0; i < n; i++)
            if (i != j && column[i] != 0.0)
                return 0;
        diagonal[j] = column[j];
    }
    return 1;
}

#endif
