/* Dense, Cholesky and banded solves through LAPACKE.
 *
 * Matrices arrive row-major.  LAPACKE's row-major entry points copy and
 * transpose into freshly allocated memory, which a step loop must not do,
 * so every call here uses the column-major _work routines: a row-major
 * matrix is the column-major storage of its transpose, and dgetrs with
 * trans = 'T' solves with the original matrix.  Symmetric matrices need
 * no transposition, but LAPACK reads one triangle only: the row-major
 * lower triangle that host.h promises is the column-major 'U' one. */
#include "host/host.h"
#include "wb_vec.h"

#include <lapacke.h>
#include <math.h>

_Static_assert(sizeof(lapack_int) == sizeof(int),
               "the host assumes 32-bit LAPACK integers (LP64)");

int linalg_lu_factor(const wb_host *host, int n, double *A, int *ipiv)
{
    if (!vec_all_finite(n * n, A)) {
        host->error(host, "lu_factor: the %dx%d matrix has a non-finite entry", n, n);
        return WB_ERR_NONFINITE;
    }
    if (n == 1) { /* what dgetrf does for 1x1, without its ~250 instructions */
        ipiv[0] = 1;
        if (A[0] == 0.0) {
            host->error(host, "lu_factor: the 1x1 matrix is singular (zero pivot 1)");
            return WB_ERR_SINGULAR;
        }
        return WB_OK;
    }
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A, n, ipiv);
    if (info > 0) {
        host->error(host, "lu_factor: the %dx%d matrix is singular (zero pivot %d)",
                    n, n, (int)info);
        return WB_ERR_SINGULAR;
    }
    if (info < 0) {
        host->error(host, "lu_factor: LAPACK rejected argument %d", (int)-info);
        return WB_ERR_INTERNAL;
    }
    return WB_OK;
}

int linalg_lu_solve(const wb_host *host, int n, int nrhs, const double *LU,
                    const int *ipiv, double *B)
{
    if (n == 1) { /* dgetrs for 1x1 divides by U(1,1): bitwise the same */
        for (int k = 0; k < nrhs; k++)
            B[k] = B[k] / LU[0];
    } else {
        lapack_int info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, nrhs, LU, n, ipiv, B, n);
        if (info != 0) {
            host->error(host, "lu_solve: LAPACK rejected argument %d", (int)-info);
            return WB_ERR_INTERNAL;
        }
    }
    if (!vec_all_finite(n * nrhs, B)) {
        host->error(host, "lu_solve: the solution is not finite (matrix nearly singular)");
        return WB_ERR_NONFINITE;
    }
    return WB_OK;
}

int linalg_dense_solve(const wb_host *host, int n, int nrhs, double *A,
                       int *ipiv, double *B)
{
    int status = linalg_lu_factor(host, n, A, ipiv);
    if (status != WB_OK)
        return status;
    return linalg_lu_solve(host, n, nrhs, A, ipiv, B);
}

int linalg_cholesky_factor(const wb_host *host, int n, double *A)
{
    if (!vec_all_finite(n * n, A)) {
        host->error(host, "cholesky_factor: the %dx%d matrix has a non-finite entry",
                    n, n);
        return WB_ERR_NONFINITE;
    }
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, A, n);
    if (info > 0) {
        host->error(host, "cholesky_factor: the %dx%d matrix is not positive definite "
                    "(leading minor %d)", n, n, (int)info);
        return WB_ERR_SINGULAR;
    }
    if (info < 0) {
        host->error(host, "cholesky_factor: LAPACK rejected argument %d", (int)-info);
        return WB_ERR_INTERNAL;
    }
    return WB_OK;
}

int linalg_cholesky_solve(const wb_host *host, int n, int nrhs,
                          const double *L, double *B)
{
    lapack_int info = LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', n, nrhs, L, n,
                                          B, n);
    if (info != 0) {
        host->error(host, "cholesky_solve: LAPACK rejected argument %d", (int)-info);
        return WB_ERR_INTERNAL;
    }
    return WB_OK;
}

int linalg_banded_solve(const wb_host *host, int n, int kl, int ku, double *AB,
                        int ldab, int *ipiv, int nrhs, double *B)
{
    if (ldab < 2 * kl + ku + 1) {
        host->error(host, "banded_solve: ldab %d < 2*kl+ku+1 = %d", ldab,
                    2 * kl + ku + 1);
        return WB_ERR_INVALID;
    }
    lapack_int info = LAPACKE_dgbsv_work(LAPACK_COL_MAJOR, n, kl, ku, nrhs, AB,
                                         ldab, ipiv, B, n);
    if (info > 0) {
        host->error(host, "banded_solve: the banded %dx%d matrix is singular "
                    "(zero pivot %d)", n, n, (int)info);
        return WB_ERR_SINGULAR;
    }
    if (info < 0) {
        host->error(host, "banded_solve: LAPACK rejected argument %d", (int)-info);
        return WB_ERR_INTERNAL;
    }
    if (!vec_all_finite(n * nrhs, B)) {
        host->error(host, "banded_solve: the solution is not finite");
        return WB_ERR_NONFINITE;
    }
    return WB_OK;
}
