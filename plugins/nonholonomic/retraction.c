/* The retraction tau (cay or exp) and the derivatives of its
 * right-trivialised tangent that the Lie-group method and its Jacobian
 * need.
 *
 * cay: tau, dtau, dtauinv and D_X[dtauinv_X v] w are the model's (the
 * host's bound lie_cay, lie_dcay, lie_dcayinv, lie_dcayinv_derivative);
 * dtauinv_X v = (I - X/2) v (I + X/2) is quadratic in X, so its derivative
 * is affine in X and the second derivative is the exact difference
 *   D_X[D_X[dtauinv_X v] w] u = D(u; v, w) - D(0; v, w).
 * exp: tau, dtau, dtauinv are the model's (lie_exp, lie_dexp,
 * lie_dexpinv); the ABI has no derivative of dexpinv, so it comes from
 * the series dexpinv_X = sum_k c_k ad_X^k, c_k = B_k / k! (the expansion
 * of z / (e^z - 1)), differentiated term by term through the recurrences
 *   p_k = ad_X p_{k-1},                 p_0 = v,
 *   d_k = ad_w p_{k-1} + ad_X d_{k-1},  d_0 = 0      (d_k = D[ad_X^k v] w),
 * and once more along u for the Jacobian.  The series converges for
 * |ad_X| < 2 pi; a step whose increment lies beyond that fails with a
 * message asking for a smaller step. */
#include "nonholonomic.h"

#include "wb_vec.h"

#include <math.h>
#include <string.h>

#define SERIES_TERMS 60

/* zeta(s) for s >= 2: the sum to M = 1000 and the Euler-Maclaurin tail */
static double zeta(int s)
{
    const double M = 1000.0;
    double sum = 0.0;
    for (int m = 999; m >= 1; m--)
        sum += pow((double)m, -s);
    sum += pow(M, 1.0 - s) / (s - 1) + 0.5 * pow(M, -s) + s * pow(M, -s - 1.0) / 12.0;
    return sum;
}

int retraction_setup(lobatto *L)
{
    /* c_0 = 1, c_1 = -1/2, c_2n = (-1)^(n+1) 2 zeta(2n) / (2 pi)^(2n), odd c = 0 */
    L->n_bern = SERIES_TERMS;
    L->bern[0] = 1.0;
    L->bern[1] = -0.5;
    for (int k = 2; k < SERIES_TERMS; k++) {
        if (k % 2) {
            L->bern[k] = 0.0;
            continue;
        }
        const int n = k / 2;
        L->bern[k] = (n % 2 ? 2.0 : -2.0) * zeta(k) * pow(2.0 * M_PI, -k);
    }
    return WB_OK;
}

void retraction_tau(lobatto *L, const double *X, double *g)
{
    if (L->retraction == RETRACTION_CAY)
        wb_lie_cay(L->model, X, g);
    else
        wb_lie_exp(L->model, X, g);
}

void retraction_dtau(lobatto *L, const double *X, const double *v, double *out)
{
    if (L->retraction == RETRACTION_CAY)
        wb_lie_dcay(L->model, X, v, out);
    else
        wb_lie_dexp(L->model, X, v, out);
}

void retraction_dtauinv(lobatto *L, const double *X, const double *v, double *out)
{
    if (L->retraction == RETRACTION_CAY)
        wb_lie_dcayinv(L->model, X, v, out);
    else
        wb_lie_dexpinv(L->model, X, v, out);
}

/* The exp series: out = sum_k c_k d_k (second = 0) or, along u as well,
 * sum_k c_k e_k (second = 1). */
static int exp_series(lobatto *L, const double *X, const double *v, const double *w,
                      const double *u, int second, double *out)
{
    const int d = L->d;
    const wb_model *m = L->model;
    double *p = L->series[0], *dk = L->series[1], *du = L->series[2], *ek = L->series[3];
    double *t1 = L->series[4], *t2 = L->series[5];
    vec_copy(d, v, p);
    memset(dk, 0, (size_t)d * sizeof(double));
    memset(du, 0, (size_t)d * sizeof(double));
    memset(ek, 0, (size_t)d * sizeof(double));
    memset(out, 0, (size_t)d * sizeof(double));
    double scale = 0.0;
    for (int k = 1; k < L->n_bern; k++) {
        /* e_k = ad_w du_{k-1} + ad_u d_{k-1} + ad_X e_{k-1} (before d, du move on) */
        if (second) {
            wb_lie_ad(m, X, ek, t1);
            wb_lie_ad(m, w, du, t2);
            vec_axpy(d, 1.0, t2, t1);
            wb_lie_ad(m, u, dk, t2);
            vec_axpy(d, 1.0, t2, t1);
            vec_copy(d, t1, ek);
            /* du_k = ad_u p_{k-1} + ad_X du_{k-1} */
            wb_lie_ad(m, X, du, t1);
            wb_lie_ad(m, u, p, t2);
            vec_axpy(d, 1.0, t2, t1);
            vec_copy(d, t1, du);
        }
        /* d_k = ad_w p_{k-1} + ad_X d_{k-1}, p_k = ad_X p_{k-1} */
        wb_lie_ad(m, X, dk, t1);
        wb_lie_ad(m, w, p, t2);
        vec_axpy(d, 1.0, t2, t1);
        vec_copy(d, t1, dk);
        wb_lie_ad(m, X, p, t1);
        vec_copy(d, t1, p);
        const double *term = second ? ek : dk;
        const double c = L->bern[k];
        if (c != 0.0)
            vec_axpy(d, c, term, out);
        const double size = fabs(c) * vec_max_abs(d, term);
        if (k <= 2)
            scale = fmax(scale, size);
        if (k >= 4 && k % 2 == 0 && size <= 1e-18 * fmax(scale, vec_max_abs(d, out)))
            return WB_OK;
        if (!isfinite(size))
            break;
    }
    L->host->error(L->host, "nonholonomic.lobatto: the exp retraction's dexpinv series does "
                            "not converge for the stage increment (|ad_Xi| near 2 pi or "
                            "beyond): use a smaller step or retraction = \"cay\"");
    return WB_ERR_NEWTON;
}

int retraction_Dinv(lobatto *L, const double *X, const double *v, const double *w,
                    double *out)
{
    if (L->retraction == RETRACTION_CAY) {
        wb_lie_dcayinv_derivative(L->model, X, v, w, out);
        return WB_OK;
    }
    return exp_series(L, X, v, w, NULL, 0, out);
}

int retraction_Dinv2(lobatto *L, const double *X, const double *v, const double *w,
                     const double *u, double *out)
{
    if (L->retraction == RETRACTION_CAY) {
        double *at_zero = L->series[0];
        wb_lie_dcayinv_derivative(L->model, u, v, w, out);
        wb_lie_dcayinv_derivative(L->model, L->zero_d, v, w, at_zero);
        vec_axpy(L->d, -1.0, at_zero, out);
        return WB_OK;
    }
    return exp_series(L, X, v, w, u, 1, out);
}

int retraction_Dinv_star(lobatto *L, const double *X, const double *v, const double *mu,
                         double *out)
{
    if (L->retraction == RETRACTION_CAY) {
        wb_lie_dcayinv_derivative_star(L->model, X, v, mu, out);
        return WB_OK;
    }
    const int d = L->d;
    for (int c = 0; c < d; c++) {
        memset(L->mo_e, 0, (size_t)d * sizeof(double));
        L->mo_e[c] = 1.0;
        int status = exp_series(L, X, v, L->mo_e, NULL, 0, L->mo_col);
        if (status != WB_OK)
            return status;
        out[c] = vec_dot(d, mu, L->mo_col);
    }
    return WB_OK;
}

void matrix_of(lobatto *L, void (*map)(lobatto *, const double *, const double *, double *),
               const double *X, double *Mat)
{
    const int d = L->d;
    for (int c = 0; c < d; c++) {
        memset(L->mo_e, 0, (size_t)d * sizeof(double));
        L->mo_e[c] = 1.0;
        map(L, X, L->mo_e, L->mo_col);
        for (int r = 0; r < d; r++)
            Mat[r * d + c] = L->mo_col[r];
    }
}
