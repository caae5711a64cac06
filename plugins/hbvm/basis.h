/* The polynomial machinery of HBVM(k, s) (Brugnano-Iavernaro-Trigiante;
 * the line-integral paper of Brugnano-Gurioli-Iavernaro-Weinmueller,
 * Sect. 3-4): the shifted and scaled Legendre basis on [0, 1],
 *
 *   P_j(c) = sqrt(2j + 1) L_j(2c - 1),   int_0^1 P_i P_j = delta_ij,
 *
 * sampled at the k Gauss-Legendre nodes c_l (weights b_l) of the
 * quadrature that replaces the line integrals, k >= s:
 *
 *   I[l][j] = int_0^{c_l} P_j          k x s   (the paper's \hat I_s)
 *   W[j][l] = b_l P_j(c_l)             s x k   (\hat P_s^T \hat Omega)
 *   X[j][i] = int_0^1 P_j int_0^c P_i  s x s   (X_s, Lemma 2: tridiagonal,
 *             X[0][0] = xi_0, X[j][j-1] = xi_j, X[j-1][j] = -xi_j,
 *             xi_j = 1 / (2 sqrt(|4 j^2 - 1|)))
 *   XW = X W                           s x k
 *
 * For k >= s, W I = X exactly (the integrands have degree <= 2s - 1), so
 * the discrete Legendre coefficients of the momentum polynomial need X
 * only; the Runge-Kutta matrix of the method is A = I W (k x k, rank s),
 * which for k = s is s-stage Gauss. */
#ifndef HBVM_BASIS_H
#define HBVM_BASIS_H

#include <workbench/workbench.h>

typedef struct hbvm_basis {
    int s, k;
    double *c, *b;        /* the k Gauss nodes and weights on [0, 1]              */
    double *I, *W, *X, *XW;
} hbvm_basis;

/* Fill *basis for given s and k (k >= s); WB_OK, or a status reported
 * through host->error.  The only allocation. */
int hbvm_basis_init(hbvm_basis *basis, const wb_host *host, int s, int k);
void hbvm_basis_free(hbvm_basis *basis);

#endif
