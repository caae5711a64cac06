/* Truncated dexpinv, its adjoint and P*_(r) through ad and ad* (see
 * algebra.h). */
#include "algebra.h"

#include "wb_vec.h"

/* B_k / k!: B_0 = 1, B_1 = -1/2, B_2 = 1/6, B_4 = -1/30, B_6 = 1/42,
 * B_8 = -1/30, B_10 = 5/66, B_12 = -691/2730, B_14 = 7/6, B_16 = -3617/510;
 * the odd ones from B_3 on are zero. */
static const double coefficients[LIEGROUP_MAX_CUTOFF + 1] = {
    1.0,
    -0.5,
    1.0 / 12.0,
    0.0,
    -1.0 / 720.0,
    0.0,
    1.0 / 30240.0,
    0.0,
    -1.0 / 1209600.0,
    0.0,
    1.0 / 47900160.0,
    0.0,
    -691.0 / 1307674368000.0,
    0.0,
    1.0 / 74724249600.0,
    0.0,
    -3617.0 / 10670622842880000.0,
};

double liegroup_dexpinv_coefficient(int k)
{
    return k >= 0 && k <= LIEGROUP_MAX_CUTOFF ? coefficients[k] : 0.0;
}

size_t liegroup_algebra_work(int r, int nv)
{
    return (size_t)(2 * (r > 0 ? r : 1) + 2) * (size_t)nv;
}

/* out = sum_{k<=r} c_k T^k v with T = ad_x (star = 0) or ad*_x (star = 1). */
static void series(const wb_model *m, int r, int star, const double *x, const double *v,
                   double *out, double *work)
{
    const int n = m->nv;
    double *power = work, *next = work + n;
    vec_copy(n, v, power);
    vec_copy(n, v, out);
    for (int k = 1; k <= r; k++) {
        if (star)
            wb_lie_ad_star(m, x, power, next);
        else
            wb_lie_ad(m, x, power, next);
        vec_copy(n, next, power);
        if (coefficients[k] != 0.0)
            vec_axpy(n, coefficients[k], power, out);
    }
}

void liegroup_dexpinv_truncated(const wb_model *m, int r, const double *x, const double *v,
                                double *out, double *work)
{
    series(m, r, 0, x, v, out, work);
}

void liegroup_dexpinv_truncated_star(const wb_model *m, int r, const double *x,
                                     const double *mu, double *out, double *work)
{
    series(m, r, 1, x, mu, out, work);
}

/* y_i = ad_x^i xi and z_j = (ad*_x)^j w for i, j < r, then
 * out = -sum_k c_k sum_{i<k} ad*_{y_i} z_{k-1-i}. */
void liegroup_pstar(const wb_model *m, int r, const double *x, const double *xi,
                    const double *w, double *out, double *work)
{
    const int n = m->nv;
    double *y = work, *z = work + (size_t)r * n, *term = z + (size_t)r * n;
    for (int i = 0; i < n; i++)
        out[i] = 0.0;
    if (r <= 0)
        return;
    vec_copy(n, xi, y);
    vec_copy(n, w, z);
    for (int i = 1; i < r; i++) {
        wb_lie_ad(m, x, y + (size_t)(i - 1) * n, y + (size_t)i * n);
        wb_lie_ad_star(m, x, z + (size_t)(i - 1) * n, z + (size_t)i * n);
    }
    for (int k = 1; k <= r; k++) {
        if (coefficients[k] == 0.0)
            continue;
        for (int i = 0; i < k; i++) {
            wb_lie_ad_star(m, y + (size_t)i * n, z + (size_t)(k - 1 - i) * n, term);
            vec_axpy(n, -coefficients[k], term, out);
        }
    }
}
