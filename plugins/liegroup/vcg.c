/* Variational Crouch-Grossman (Bogfjellmo-Marthinsen eq. 18).  Unknowns
 * per stage: xi_i and M_i; for the iterate,
 *
 *   q^0 = q0,  q^j = exp(h b_j xi_j) q^{j-1},  q1 = q^s,
 *   Q_{i0} = q0,  Q_{ij} = exp(h a_ij xi_j) Q_{i,j-1},  Q_i = Q_{is},
 *   (xi_i, n_i) <- f(Q_i, M_i),  nbar_i = Ad*_{Q_i} n_i,
 *   mubar1 = Ad*_{q0} mu0 + h sum_j b_j nbar_j,
 *   M_i <- dexp*_{h b_i xi_i} Ad*_{(q^i)^-1} mubar1
 *          - h sum_j (b_j a_ji / b_i) dexp*_{h a_ji xi_i} Ad*_{Q_ji^-1} nbar_j,
 * and mu1 = Ad*_{q1^-1} mubar1.  Q_ji is stage j's partial product up to
 * its factor i; factors with a_ij = 0 are the identity and skipped (a
 * DIRK tableau, such as a composition of midpoint steps, has many), and a
 * row's leading factors equal to the weights' are the nodes' (a
 * composition's rows). */
#include "liegroup.h"

#include "wb_vec.h"

enum { XI_BLOCK, M_BLOCK };

/* partial product Q_{ij}, j = 0..s */
static double *partial(liegroup *lg, int i, int j)
{
    return lg->partial + ((size_t)i * (lg->s + 1) + (size_t)j) * lg->nq;
}

static int vcg_map(liegroup *lg, const double *z, double *z_next)
{
    const wb_model *m = lg->model;
    const int nv = lg->nv, nq = lg->nq, s = lg->s;
    const double h = lg->h;
    /* the nodes q^j and every stage's partial products */
    vec_copy(nq, lg->q0, lg->node);
    for (int j = 0; j < s; j++) {
        const double *xi = liegroup_cblock(lg, z, XI_BLOCK, j);
        for (int k = 0; k < nv; k++)
            lg->t1[k] = h * lg->b[j] * xi[k];
        wb_lie_exp(m, lg->t1, lg->g1);
        wb_lie_compose(m, lg->g1, lg->node + (size_t)j * nq, lg->node + (size_t)(j + 1) * nq);
    }
    for (int i = 0; i < s; i++) {
        /* where row i begins as b (a_ij = b_j for j < k), its partial
         * products are the nodes: a composition of midpoint steps has
         * k = i, and only its diagonal factor is new */
        int k = 0;
        while (k < s && lg->a[i * s + k] == lg->b[k])
            k++;
        for (int j = 0; j <= k; j++)
            vec_copy(nq, lg->node + (size_t)j * nq, partial(lg, i, j));
        for (int j = k; j < s; j++) {
            const double a_ij = lg->a[i * s + j];
            if (a_ij == 0.0) {
                vec_copy(nq, partial(lg, i, j), partial(lg, i, j + 1));
                continue;
            }
            const double *xi = liegroup_cblock(lg, z, XI_BLOCK, j);
            for (int k = 0; k < nv; k++)
                lg->t1[k] = h * a_ij * xi[k];
            wb_lie_exp(m, lg->t1, lg->g1);
            wb_lie_compose(m, lg->g1, partial(lg, i, j), partial(lg, i, j + 1));
        }
    }
    /* the stage fields and the body momentum mubar1 (in S) */
    wb_lie_Ad_star(m, lg->q0, lg->p0, lg->S);
    for (int i = 0; i < s; i++) {
        const double *Q = partial(lg, i, s);
        double *xi_next = liegroup_block(lg, z_next, XI_BLOCK, i);
        double *n = lg->f2 + (size_t)i * nv, *nbar = lg->F + (size_t)i * nv;
        liegroup_field(lg, Q, liegroup_cblock(lg, z, M_BLOCK, i), xi_next, n);
        wb_lie_Ad_star(m, Q, n, nbar);
        vec_axpy(nv, h * lg->b[i], nbar, lg->S);
    }
    for (int i = 0; i < s; i++) {
        const double *xi = liegroup_cblock(lg, z, XI_BLOCK, i);
        double *M_next = liegroup_block(lg, z_next, M_BLOCK, i);
        liegroup_Ad_star_inverse(lg, lg->node + (size_t)(i + 1) * nq, lg->S, lg->t2);
        for (int k = 0; k < nv; k++)
            lg->t1[k] = h * lg->b[i] * xi[k];
        wb_lie_dexp_star(m, lg->t1, lg->t2, M_next);
        for (int j = 0; j < s; j++) {
            const double a_ji = lg->a[j * s + i];
            if (a_ji == 0.0)
                continue;
            liegroup_Ad_star_inverse(lg, partial(lg, j, i + 1), lg->F + (size_t)j * nv, lg->t2);
            for (int k = 0; k < nv; k++)
                lg->t1[k] = h * a_ji * xi[k];
            wb_lie_dexp_star(m, lg->t1, lg->t2, lg->t3);
            vec_axpy(nv, -h * lg->b[j] * a_ji / lg->b[i], lg->t3, M_next);
        }
    }
    return WB_OK;
}

/* q1 = q^s, mu1 = Ad*_{q1^-1} mubar1 */
static void vcg_finish(liegroup *lg, double *q1, double *p1)
{
    const double *node = lg->node + (size_t)lg->s * lg->nq;
    vec_copy(lg->nq, node, q1);
    liegroup_Ad_star_inverse(lg, node, lg->S, p1);
}

static const int vcg_blocks[] = {BLOCK_VELOCITY, BLOCK_MOMENTUM};

const liegroup_scheme liegroup_vcg_scheme = {
    .name = "vcg",
    .n_blocks = 2,
    .blocks = vcg_blocks,
    .map = vcg_map,
    .finish = vcg_finish,
};
