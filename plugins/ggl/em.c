/* The energy-momentum schemes: residuals and analytic Jacobians.
 *
 * EM, the GGL energy-momentum scheme (eq. 84) for L = 1/2 v.M v - V(q) and
 * quadratic constraints.  Then the midpoint derivatives of L's kinetic
 * part, of g and of the bilinear g^v are discrete derivatives in Gonzalez's
 * sense (directional and orthogonal), DG_v L = M v_m eliminates v
 * (v^n = M^-1 p^n at every node), and only grad V needs a genuine discrete
 * gradient DG V.  Unknowns x = (q1, p1, lambda, gamma):
 *   R1 = q1 - q0 - h M^-1 p_m - h M^-1 G(q_m)^T gamma
 *   R2 = p1 - p0 + h DG V(q0, q1) + h G(q_m)^T lambda + h T(q_m; gamma) M^-1 p_m
 *   R3 = g(q1)
 *   R4 = G(q1) M^-1 p1
 * (DG_q g^v = B(q_m; M^-1 p_m), DG_p g^v = G(q_m) M^-1, and
 * B(q_m; w)^T gamma = T(q_m; gamma) w.)
 *
 * EM-G, Gonzalez's 1999 scheme (position constraints only), x = (q1, p1,
 * lambda):  R1 = q1 - q0 - h M^-1 p_m,  R2 = p1 - p0 + h DG V + h G(q_m)^T
 * lambda,  R3 = g(q1).
 *
 * linear_solver = sparse (wb.sparsity/1, quadratic constraints): the same
 * matrices block by block in their nonzeros, as the VIs' (vi.c).  d DG/dq1
 * lies in Hess V's pattern but for Gonzalez's c I + dq (x) grad c: c on
 * an identity block, and the outer product, which would fill the matrix,
 * left to the host's Sherman-Morrison solve (newton_set_rank_one).
 * Greenspan's d DG/dq1 comes from differences of DG V grouped by a column
 * colouring of Hess V's pattern (2 evaluations per colour, whatever N). */
#include "ggl.h"
#include "wb_array.h"
#include "wb_vec.h"

#include <string.h>

/* q_m in qa, M^-1 p_m in w, G(q_m) in Ga, G(q1) in Gb, DG V in u, and
 * T(q_m; gamma) in Ta when the scheme has gamma. */
static void em_points(ggl *g, const double *x)
{
    const int n = g->n;
    const double *q1 = x + g->off_q, *p1 = x + g->off_p;
    for (int i = 0; i < n; i++) {
        g->qa[i] = 0.5 * (g->q0[i] + q1[i]);
        g->t1[i] = 0.5 * (g->p0[i] + p1[i]);
    }
    ggl_inverse_mass_times(g, g->t1, g->w);
    ggl_constraint_jacobian(g, g->qa, g->Ga);
    ggl_constraint_jacobian(g, q1, g->Gb);
    if (g->off_g >= 0)
        ggl_hessian_contract(g, g->qa, x + g->off_g, g->Ta);
}

static int em_residual(void *user, const double *x, double *r)
{
    ggl *g = user;
    const int n = g->n, m = g->m;
    const double h = g->h;
    const double *q1 = x + g->off_q, *p1 = x + g->off_p, *lam = x + g->off_l;
    double *r1 = r, *r2 = r + n, *r3 = r + 2 * n, *r4 = r3 + m;
    em_points(g, x);
    ggl_discrete_gradient(g, q1, g->u);
    ggl_Gt_times(g, g->Ga, lam, g->t2);                 /* G(q_m)^T lambda */
    for (int i = 0; i < n; i++) {
        r1[i] = q1[i] - g->q0[i] - h * g->w[i];
        r2[i] = p1[i] - g->p0[i] + h * g->u[i] + h * g->t2[i];
    }
    wb_constraints(g->model, q1, r3);
    if (g->off_g < 0)
        return WB_OK;
    const double *gam = x + g->off_g;
    ggl_Gt_times(g, g->Ga, gam, g->t2);
    ggl_inverse_mass_times(g, g->t2, g->t3);            /* M^-1 G(q_m)^T gamma */
    ggl_T_times(g, g->Ta, g->w, g->t2);                 /* T(q_m; gamma) M^-1 p_m */
    for (int i = 0; i < n; i++) {
        r1[i] -= h * g->t3[i];
        r2[i] += h * g->t2[i];
    }
    ggl_inverse_mass_times(g, p1, g->t1);
    ggl_G_times(g, g->Gb, g->t1, r4);
    (void)m;
    return WB_OK;
}

/* Columns (q1, p1, lambda, gamma); with T_g = T(q_m; gamma), T_l =
 * T(q_m; lambda), B_m = B(q_m; M^-1 p_m), J_DG = d DG V / d q1:
 *   R1: [ I - h/2 M^-1 T_g,      -h/2 M^-1,         0,             -h M^-1 G(q_m)^T ]
 *   R2: [ h J_DG + h/2 T_l,       I + h/2 T_g M^-1,  h G(q_m)^T,     h B_m^T          ]
 *   R3: [ G(q1),                   0,                 0,              0                ]
 *   R4: [ B(q1; M^-1 p1),          G(q1) M^-1,        0,              0                ]
 * (constant Hessians: no third derivatives).  EM-G keeps the first three
 * block rows and columns without the gamma terms. */
static int em_jacobian(void *user, const double *x, double *J)
{
    ggl *g = user;
    const int n = g->n, m = g->m, N = g->size;
    const double h = g->h;
    const int Q = g->off_q, P = g->off_p, L = g->off_l, C = g->off_g;
    const int R1 = 0, R2 = n, R3 = 2 * n, R4 = 2 * n + m;
    const double *q1 = x + g->off_q, *p1 = x + g->off_p, *lam = x + g->off_l;
    memset(J, 0, (size_t)N * N * sizeof(double));
    em_points(g, x);
    ggl_discrete_gradient_jacobian(g, q1, g->K);
    wb_constraint_hessian_contract(g->model, g->qa, lam, g->Tb);     /* T(q_m; lambda) */

    mat_block_add_identity(J, N, R1, Q, n, 1.0);
    mat_block_add(J, N, R1, P, n, n, g->Minv, -0.5 * h);

    mat_block_add(J, N, R2, Q, n, n, g->K, h);
    mat_block_add(J, N, R2, Q, n, n, g->Tb, 0.5 * h);
    mat_block_add_identity(J, N, R2, P, n, 1.0);
    mat_block_add_t(J, N, R2, L, n, m, g->Ga, h);

    mat_block_add(J, N, R3, Q, m, n, g->Gb, 1.0);
    if (C < 0)
        return WB_OK;

    mat_mul(n, n, n, g->Minv, g->Ta, g->N1);                        /* M^-1 T_gamma */
    mat_mul(n, n, n, g->Ta, g->Minv, g->N2);                        /* T_gamma M^-1 */
    mat_mul_bt(n, n, m, g->Minv, g->Ga, g->MGt);                    /* M^-1 G(q_m)^T */
    wb_constraint_hessian_vector(g->model, g->qa, g->w, g->Bm);     /* B(q_m; M^-1 p_m) */
    mat_block_add(J, N, R1, Q, n, n, g->N1, -0.5 * h);
    mat_block_add(J, N, R1, C, n, m, g->MGt, -h);
    mat_block_add(J, N, R2, P, n, n, g->N2, 0.5 * h);
    mat_block_add_t(J, N, R2, C, n, m, g->Bm, h);

    mat_vec(n, n, g->Minv, p1, g->t1);
    wb_constraint_hessian_vector(g->model, q1, g->t1, g->Bm);       /* B(q1; M^-1 p1) */
    mat_mul_bt(n, n, m, g->Minv, g->Gb, g->MGt);                    /* M^-1 G(q1)^T */
    mat_block_add(J, N, R4, Q, m, n, g->Bm, 1.0);
    mat_block_add_t(J, N, R4, P, m, n, g->MGt, 1.0);                /* G(q1) M^-1 */
    return WB_OK;
}

/* The sparse path's blocks (Gt: G's transpose, T, B in their patterns,
 * H Hess V's, I the identity; M the diagonal of M^-1 on an identity);
 * those of gamma and of R4 only for EM. */
enum {
    EM_R1_Q_I, EM_R1_Q_T, EM_R1_P_M, EM_R1_C_Gt,
    EM_R2_Q_H, EM_R2_Q_I, EM_R2_Q_T, EM_R2_P_I, EM_R2_P_T, EM_R2_L_Gt, EM_R2_C_Bt,
    EM_R3_Q_G, EM_R4_Q_B, EM_R4_P_G
};

static const ggl_block_spec em_blocks[] = {
    {EM_R1_Q_I, 1, GGL_Q, GGL_IDENTITY},    {EM_R1_P_M, 1, GGL_P, GGL_IDENTITY},
    {EM_R2_Q_H, 2, GGL_Q, GGL_PATTERN_H},   {EM_R2_Q_I, 2, GGL_Q, GGL_IDENTITY},
    {EM_R2_Q_T, 2, GGL_Q, GGL_PATTERN_T},   {EM_R2_P_I, 2, GGL_P, GGL_IDENTITY},
    {EM_R2_L_Gt, 2, GGL_L, GGL_PATTERN_G_T}, {EM_R3_Q_G, 3, GGL_Q, GGL_PATTERN_G},
};

static const ggl_block_spec em_gamma_blocks[] = {
    {EM_R1_Q_T, 1, GGL_Q, GGL_PATTERN_T_T}, {EM_R1_C_Gt, 1, GGL_C, GGL_PATTERN_G_T},
    {EM_R2_P_T, 2, GGL_P, GGL_PATTERN_T},   {EM_R2_C_Bt, 2, GGL_C, GGL_PATTERN_G_T},
    {EM_R4_Q_B, 4, GGL_Q, GGL_PATTERN_G},   {EM_R4_P_G, 4, GGL_P, GGL_PATTERN_G},
};

static int em_place(ggl *g)
{
    int status = ggl_place_blocks(g, em_blocks, (int)WB_ARRAY_COUNT(em_blocks));
    if (status == 0 && g->off_g >= 0)
        status = ggl_place_blocks(g, em_gamma_blocks, (int)WB_ARRAY_COUNT(em_gamma_blocks));
    return status;
}

/* em_jacobian's matrix in its nonzeros, but for Gonzalez's outer product
 * h dq (x) grad c (em_rank_one).  T is symmetric, so its transpose scaled
 * along columns is M^-1 T. */
static int em_sparse_jacobian(void *user, const double *x, double *J)
{
    ggl *g = user;
    const double h = g->h, *Minv = g->Minv;
    const double *q1 = x + g->off_q, *p1 = x + g->off_p, *lam = x + g->off_l;
    double s;
    memset(J, 0, (size_t)g->sparse.J.csr.pattern.nnz * sizeof(double));
    em_points(g, x);
    g->dg_c = ggl_discrete_gradient_sparse_jacobian(g, q1, g->K, &s);
    ggl_hessian_contract(g, g->qa, lam, g->Tb);                 /* T(q_m; lambda) */
    ggl_add(g, J, EM_R1_Q_I, 1.0, NULL, NULL);
    ggl_add(g, J, EM_R1_P_M, -0.5 * h, NULL, Minv);
    ggl_add(g, J, EM_R2_Q_H, h * s, g->K, NULL);
    ggl_add(g, J, EM_R2_Q_I, h * g->dg_c, NULL, NULL);
    ggl_add(g, J, EM_R2_Q_T, 0.5 * h, g->Tb, NULL);
    ggl_add(g, J, EM_R2_P_I, 1.0, NULL, NULL);
    ggl_add(g, J, EM_R2_L_Gt, h, g->Ga, NULL);
    ggl_add(g, J, EM_R3_Q_G, 1.0, g->Gb, NULL);
    if (g->off_g < 0)
        return WB_OK;
    ggl_hessian_vector(g, g->qa, g->w, g->Bm);                  /* B(q_m; M^-1 p_m) */
    ggl_add(g, J, EM_R1_Q_T, -0.5 * h, g->Ta, Minv);
    ggl_add(g, J, EM_R1_C_Gt, -h, g->Ga, Minv);
    ggl_add(g, J, EM_R2_P_T, 0.5 * h, g->Ta, Minv);
    ggl_add(g, J, EM_R2_C_Bt, h, g->Bm, NULL);
    ggl_inverse_mass_times(g, p1, g->t1);
    ggl_hessian_vector(g, q1, g->t1, g->Bm);                    /* B(q1; M^-1 p1) */
    ggl_add(g, J, EM_R4_Q_B, 1.0, g->Bm, NULL);
    ggl_add(g, J, EM_R4_P_G, 1.0, g->Gb, Minv);
    return WB_OK;
}

/* The rest of the Newton matrix at the x of the last em_sparse_jacobian:
 * h dq (x) grad c in the R2 rows and q1 columns (zero where c was cut). */
static int em_rank_one(void *user, const double *x, double *u, double *v)
{
    ggl *g = user;
    const int n = g->n;
    (void)x;
    memset(u, 0, (size_t)g->size * sizeof(double));
    memset(v, 0, (size_t)g->size * sizeof(double));
    if (g->dg_c == 0.0)
        return WB_OK;
    for (int i = 0; i < n; i++) {
        u[g->off_p + i] = g->h * g->db[i]; /* the R2 rows lie where p1 does */
        v[g->off_q + i] = g->dq[i];
    }
    return WB_OK;
}

/* EM-G's velocity across g = 0 at round-off (issue 13).  EM-G pins it by
 * g(q1) = 0 alone: G(q_m) M^-1 p_m = G(q_m)(q1 - q0)/h = (g(q1) - g(q0))/h
 * for quadratic g, zero in exact arithmetic.  In floating point q0 lies off
 * g = 0 by its round-off, eps |q| across the constraint, which the solve
 * removes within the step through q1 - q0 = h M^-1 p_m: a velocity error
 * of c eps |q| / h (c ~ 1 .. 10 over 20 .. 80 steps, measured), which grows
 * as h shrinks (0.2 of the light point's velocity at m2 = 1e12, h = 3.5e-9,
 * on double_spherical_pendulum).  So the solution is finished by removing
 * that component: p1 -= G(q_m)^T kappa with G(q_m) M^-1 G(q_m)^T kappa =
 * 2 G(q_m) M^-1 p_m, so that G(q_m) M^-1 p_m = 0 as in exact arithmetic,
 * and lambda += kappa / h keeps R2.  The finished step solves EM-G's
 * equations with R1 = q1 - q0 - h M^-1 p_m - h/2 M^-1 G(q_m)^T kappa: the
 * positions' round-off is taken up by a displacement across g = 0 instead
 * of a velocity.  With g(q0) = 0 exactly, kappa = 0 and the step is EM-G's;
 * the Newton system (2d + m unknowns, the paper's) and its iterations are
 * unchanged, at one m x m solve a step. */
static void em_gonzalez_products(ggl *g)
{
    const int n = g->n, m = g->m;
    ggl_sparse *sp = &g->sparse;
    if (!sp->ext) {
        mat_mul_bt(n, n, m, g->Minv, g->Ga, g->MGt);   /* M^-1 G(q_m)^T */
        mat_mul(m, n, m, g->Ga, g->MGt, g->S);
        return;
    }
    for (int e = 0; e < sp->Gt.pattern.nnz; e++)
        sp->Gt_values[e] = g->Ga[sp->Gt_origin[e]];
    memset(g->S, 0, (size_t)sp->S.pattern.nnz * sizeof(double));
    wb_csr_product_add(sp->G, g->Ga, g->Minv, &sp->Gt.pattern, sp->Gt_values, &sp->S.pattern,
                       1.0, sp->mark, g->S);
}

static int em_gonzalez_finish(ggl *g)
{
    const int n = g->n, m = g->m;
    const wb_host *host = g->host;
    double *p1 = g->x + g->off_p, *lam = g->x + g->off_l;
    em_points(g, g->x); /* q_m, M^-1 p_m in w, G(q_m) in Ga */
    ggl_G_times(g, g->Ga, g->w, g->across);
    for (int k = 0; k < m; k++)
        g->kappa[k] = 2.0 * g->across[k];
    em_gonzalez_products(g);
    int status = g->sparse.ext
                     ? host->sparse_lu_factor(host, g->sparse.lu, g->S)
                     : host->cholesky_factor(host, m, g->S);
    if (status == WB_OK)
        status = g->sparse.ext ? host->sparse_lu_solve(host, g->sparse.lu, 1, g->kappa)
                               : host->cholesky_solve(host, m, 1, g->S, g->kappa);
    if (status != WB_OK) {
        host->error(host, "EM-G: G(q_m) M^-1 G(q_m)^T is singular or not finite at the step's "
                    "solution (constraints dependent there)");
        return status;
    }
    ggl_Gt_times(g, g->Ga, g->kappa, g->t2);
    for (int i = 0; i < n; i++)
        p1[i] -= g->t2[i];
    for (int k = 0; k < m; k++)
        lam[k] += g->kappa[k] / g->h;
    return WB_OK;
}

/* r, kappa and S; on the sparse path G G^T's pattern and its LU. */
static int em_gonzalez_finish_create(ggl *g)
{
    const int m = g->m;
    ggl_sparse *sp = &g->sparse;
    size_t square = (size_t)m * m;
    if (sp->ext) {
        if (wb_csr_transpose(sp->G, &sp->Gt, &sp->Gt_origin) != 0 ||
            wb_csr_product_pattern(sp->G, &sp->Gt.pattern, 1, &sp->S) != 0)
            return -1;
        sp->mark = calloc((size_t)m + 1, sizeof(int));
        sp->Gt_values = calloc((size_t)sp->Gt.pattern.nnz + 1, sizeof(double));
        sp->lu = g->host->sparse_lu_create(g->host, &sp->S.pattern);
        if (!sp->mark || !sp->Gt_values || !sp->lu)
            return -1;
        square = (size_t)sp->S.pattern.nnz;
    }
    g->across = calloc(2 * (size_t)m + square + 1, sizeof(double));
    if (!g->across)
        return -1;
    g->kappa = g->across + m;
    g->S = g->kappa + m;
    return 0;
}

const ggl_scheme ggl_em_scheme = {
    .label = "EM",
    .has_velocity = 0,
    .has_gamma = 1,
    .residual = em_residual,
    .jacobian = em_jacobian,
    .start_values = ggl_discrete_gradient_start,
    .place_blocks = em_place,
    .sparse_jacobian = em_sparse_jacobian,
    .sparse_rank_one = em_rank_one,
};

const ggl_scheme ggl_em_gonzalez_scheme = {
    .label = "EM-G",
    .has_velocity = 0,
    .has_gamma = 0,
    .residual = em_residual,
    .jacobian = em_jacobian,
    .start_values = ggl_discrete_gradient_start,
    .place_blocks = em_place,
    .sparse_jacobian = em_sparse_jacobian,
    .sparse_rank_one = em_rank_one,
    .finish = em_gonzalez_finish,
    .finish_create = em_gonzalez_finish_create,
};
