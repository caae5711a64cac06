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

/* Minv (n x n row-major, n = model->nq) = M^-1, column by column through
 * the model's solve; scratch holds 2 n doubles.  Any q will do, since M is
 * constant: the unit vector being solved for serves as one. */
static inline void wb_constant_inverse_mass(const wb_model *model, double *scratch,
                                            double *Minv)
{
    const int n = model->nq;
    double *unit = scratch, *column = scratch + n;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++)
            unit[i] = (i == j);
        wb_mass_solve(model, unit, unit, column);
        for (int i = 0; i < n; i++)
            Minv[(size_t)i * n + j] = column[i];
    }
}

#endif
