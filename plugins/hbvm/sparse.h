/* linear_solver = sparse for HBVM(k, s) (hbvm.h), on a model that declares
 * its sparsity (wb.sparsity/1) with a constant diagonal mass.  Every m x n
 * array of a step (G(Y_l), rho_j, D_j, Newton's B_l) holds its values in
 * G's pattern: D_j = -h M^-1 sum_i X_ji rho_i^T keeps it only for a
 * diagonal M (wb_sparse_method.h says why no other).  The multiplier
 * system (51), S = -sum_j rho_j D_j^T, lives in the pattern of G G^T and is
 * factored by the host's sparse LU; the Newton matrix
 *
 *                 gamma_i                                   lambda
 *   gamma_j rows  delta_ji I + h^2 sum_l (XW)_jl I_li K_l   -D_j^T
 *   lambda rows   rho_i + h sum_l I_li B_l                  0
 *
 * (K_l = M^-1 (Hess V + T(.; lambda)) at Y_l, in the union of the two
 * Hessian patterns) is assembled block by block in its nonzeros and
 * factored by the host's sparse LU too (banded after reverse Cuthill-McKee).
 * For a chain of N links a fixed-point sweep, a Jacobian, its LU and the
 * memory are O(N).  Everything is allocated at create time; a step
 * allocates nothing. */
#ifndef HBVM_SPARSE_H
#define HBVM_SPARSE_H

#include "wb_sparse_method.h"

struct hbvm;

typedef struct hbvm_sparse {
    const wb_sparsity_ext *ext;   /* NULL: the dense path                          */
    void *self;                   /* the model instance                             */
    const wb_sparse_pattern *G;   /* the model's pattern of G, m x n                */
    wb_csr Gt;                    /* G^T; Gt_origin[e] = G's entry                  */
    int *Gt_origin;
    wb_csr S;                     /* G G^T and the diagonal: (51)'s matrix          */
    wb_sparse_lu *multiplier_lu;  /* S's (m > 0)                                    */
    int *mark;                    /* m ints of scratch for the products             */
    /* Newton's, when the iteration may be Newton (not fixed_point) */
    wb_block_matrix K;            /* Hess V + T(q; lambda): the union of patterns   */
    int K_hessian, K_contract;
    wb_block_matrix J;            /* the Newton matrix                              */
    int *blocks;                  /* J's block numbers, 3 s + s^2 ints:             */
    int *identity, *stage;        /*   s identities; s x s K blocks (-1: none)      */
    int *direction, *constraint;  /*   s blocks -D_j^T; s blocks rho_i + h I B      */
    wb_sparse_lu *jacobian_lu;    /* J's factors; auto keeps them across steps      */
    double *values;               /* one block for the arrays below                 */
    double *inverse_mass;         /* n: M^-1's diagonal                             */
    double *configuration;        /* n zeros: any q for the constant mass           */
    double *Dt;                   /* one D_j in G^T's order                         */
    double *Sv, *Sj;              /* S's values, and one j's term of them           */
    double *Hv, *Tv;              /* one stage's Hess V and T(Y_l; lambda)          */
    double *Kv;                   /* K_l in K's pattern, k of them                  */
    double *Jv;                   /* J's values                                     */
} hbvm_sparse;

/* The structure for it (host, model, n, m, s, k and the basis set): the
 * model's patterns checked, (51)'s pattern and LU, and with `newton` the
 * Newton matrix's (which needs the Hessian patterns).  Sets it->g_entries
 * to nnz(G).  WB_OK, or an error reported in hbvm's name. */
int hbvm_sparse_create(struct hbvm *it, int newton);
void hbvm_sparse_free(struct hbvm *it);
/* S = -sum_j rho_j D_j^T into sp.Sv, from it->rho and it->D. */
void hbvm_sparse_multiplier_matrix(struct hbvm *it);
/* The Newton matrix's values into sp.Jv at the unknowns x, at the stages
 * of the last evaluation (Y, rho and D are x's). */
void hbvm_sparse_newton_matrix(struct hbvm *it, const double *x);

#endif
