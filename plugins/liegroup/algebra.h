/* The truncated inverse derivative of the exponential and the operator
 * P*_(r) of Bogfjellmo-Marthinsen, for any Lie group through the model's
 * ad and ad* (one implementation, not one per group).
 *
 *   dexpinv_(r),x v = sum_{k=0}^{r} c_k ad_x^k v,
 *       c_0 = 1, c_1 = -1/2, c_k = B_k / k! (Bernoulli numbers; zero for
 *       odd k >= 3, so r = 2m and r = 2m + 1 are the same map for m >= 1),
 *   (dexpinv_(r),x)* mu = sum_k c_k (ad*_x)^k mu,
 *   P*_(r)(x, xi) w, the adjoint of dx -> D_x[dexpinv_(r),x xi] dx:
 *       <P*_(r)(x, xi) w, dx> = <w, D_x[dexpinv_(r),x xi] dx>,
 *       P*_(r)(x, xi) = -sum_{k=1}^{r} c_k sum_{i=0}^{k-1}
 *                         ad*_{ad_x^i xi} (ad*_x)^{k-1-i}.
 *
 * Vectors have model->nv entries; `work` is caller memory of
 * liegroup_algebra_work(r, nv) doubles (no allocation).  Outputs may not
 * alias inputs. */
#ifndef LIEGROUP_ALGEBRA_H
#define LIEGROUP_ALGEBRA_H

#include <workbench/workbench.h>

#include <stddef.h>

/* The largest cutoff r: c_k is tabulated for k <= LIEGROUP_MAX_CUTOFF. */
#define LIEGROUP_MAX_CUTOFF 16

/* c_k above, for 0 <= k <= LIEGROUP_MAX_CUTOFF. */
double liegroup_dexpinv_coefficient(int k);

/* Doubles of work memory the functions below need for cutoff r. */
size_t liegroup_algebra_work(int r, int nv);

void liegroup_dexpinv_truncated(const wb_model *m, int r, const double *x, const double *v,
                                double *out, double *work);
void liegroup_dexpinv_truncated_star(const wb_model *m, int r, const double *x,
                                     const double *mu, double *out, double *work);
void liegroup_pstar(const wb_model *m, int r, const double *x, const double *xi,
                    const double *w, double *out, double *work);

#endif
