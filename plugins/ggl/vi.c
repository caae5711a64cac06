/* The GGL variational integrators: residuals and analytic Jacobians.
 *
 * Unknowns x = (q1, p1, v, lambda, gamma), 3n + 2m numbers; residual rows
 * R1 (n), R2 (n), R3 (n), R4 (m), R5 (m) in that order.  Constraints need
 * not be quadratic: the derivative of T(q; mu) w in q is the model's
 * third_contract (zero for quadratic constraints).
 *
 * linear_solver = sparse (quadratic constraints, wb.sparsity/1): the same
 * matrices assembled block by block in their nonzeros (identities, the
 * diagonal M and M^-1, T and Hess V in their patterns, G and B in G's and
 * their transposes), and the residuals' products in the patterns. */
#include "ggl.h"
#include "wb_array.h"
#include "wb_vec.h"

#include <string.h>

/* ---- VI-S (eq. 55), qbar = q0 + h v ---------------------------------------------
 *   R1 = q1 - q0 - h v - h M^-1 G(qbar)^T gamma
 *   R2 = p1 - p0 + h grad V(q0) + h G(q0)^T lambda + h T(qbar; gamma) M^-1 p1
 *   R3 = M v - p1 - h T(qbar; gamma) M^-1 p1          (discrete Legendre map)
 *   R4 = g(q1)
 *   R5 = G(qbar) M^-1 p1                              (g^v at qbar, not at q1) */

static void vi_s_start(ggl *g)
{
    wb_potential_gradient(g->model, g->q0, g->grad0);
    ggl_count_force(g, 1);
    ggl_constraint_jacobian(g, g->q0, g->G0);
}

/* qbar in qa, G(qbar) in Ga, w = M^-1 p1, T(qbar; gamma) in Ta. */
static void vi_s_points(ggl *g, const double *x)
{
    const int n = g->n;
    const double *v = x + g->off_v, *p1 = x + g->off_p, *gam = x + g->off_g;
    for (int i = 0; i < n; i++)
        g->qa[i] = g->q0[i] + g->h * v[i];
    ggl_constraint_jacobian(g, g->qa, g->Ga);
    ggl_inverse_mass_times(g, p1, g->w);
    ggl_hessian_contract(g, g->qa, gam, g->Ta);
}

static int vi_s_residual(void *user, const double *x, double *r)
{
    ggl *g = user;
    const int n = g->n, m = g->m;
    const double h = g->h;
    const double *q1 = x + g->off_q, *p1 = x + g->off_p, *v = x + g->off_v;
    const double *lam = x + g->off_l, *gam = x + g->off_g;
    double *r1 = r, *r2 = r + n, *r3 = r + 2 * n, *r4 = r + 3 * n, *r5 = r4 + m;
    vi_s_points(g, x);
    ggl_T_times(g, g->Ta, g->w, g->t1);     /* T(qbar; gamma) M^-1 p1 */
    ggl_Gt_times(g, g->Ga, gam, g->t2);     /* G(qbar)^T gamma */
    ggl_inverse_mass_times(g, g->t2, g->t3);
    ggl_Gt_times(g, g->G0, lam, g->u);      /* G(q0)^T lambda */
    ggl_mass_times(g, v, g->t2);            /* M v */
    for (int i = 0; i < n; i++) {
        r1[i] = q1[i] - g->q0[i] - h * v[i] - h * g->t3[i];
        r2[i] = p1[i] - g->p0[i] + h * g->grad0[i] + h * g->u[i] + h * g->t1[i];
        r3[i] = g->t2[i] - p1[i] - h * g->t1[i];
    }
    wb_constraints(g->model, q1, r4);
    ggl_G_times(g, g->Ga, g->w, r5);
    (void)m;
    return WB_OK;
}

/* Columns (q1, p1, v, lambda, gamma); with w = M^-1 p1, T = T(qbar; gamma),
 * B = B(qbar; w) and D = D_q[T(q; gamma) w] at qbar (qbar moves with v):
 *   R1: [ I,  0,             -h I - h^2 M^-1 T,  0,           -h M^-1 G(qbar)^T ]
 *   R2: [ 0,  I + h T M^-1,   h^2 D,             h G(q0)^T,    h B^T             ]
 *   R3: [ 0, -I - h T M^-1,   M - h^2 D,         0,           -h B^T             ]
 *   R4: [ G(q1), 0, 0, 0, 0 ]
 *   R5: [ 0,  G(qbar) M^-1,   h B,               0,            0                 ] */
static int vi_s_jacobian(void *user, const double *x, double *J)
{
    ggl *g = user;
    const int n = g->n, m = g->m, N = g->size;
    const double h = g->h;
    const int Q = g->off_q, P = g->off_p, V = g->off_v, L = g->off_l, C = g->off_g;
    const int R1 = 0, R2 = n, R3 = 2 * n, R4 = 3 * n, R5 = 3 * n + m;
    const double *gam = x + g->off_g;
    memset(J, 0, (size_t)N * N * sizeof(double));
    vi_s_points(g, x);
    mat_mul(n, n, n, g->Minv, g->Ta, g->N1);                             /* M^-1 T */
    mat_mul(n, n, n, g->Ta, g->Minv, g->N2);                             /* T M^-1 */
    mat_mul_bt(n, n, m, g->Minv, g->Ga, g->MGt);                         /* M^-1 G(qbar)^T */
    wb_constraint_hessian_vector(g->model, g->qa, g->w, g->Bm);          /* B(qbar; w) */
    wb_constraint_third_contract(g->model, g->qa, gam, g->w, g->K);      /* D_q[T w] */
    wb_constraint_jacobian(g->model, x + Q, g->Gb);                      /* G(q1) */

    mat_block_add_identity(J, N, R1, Q, n, 1.0);
    mat_block_add_identity(J, N, R1, V, n, -h);
    mat_block_add(J, N, R1, V, n, n, g->N1, -h * h);
    mat_block_add(J, N, R1, C, n, m, g->MGt, -h);

    mat_block_add_identity(J, N, R2, P, n, 1.0);
    mat_block_add(J, N, R2, P, n, n, g->N2, h);
    mat_block_add(J, N, R2, V, n, n, g->K, h * h);
    mat_block_add_t(J, N, R2, L, n, m, g->G0, h);
    mat_block_add_t(J, N, R2, C, n, m, g->Bm, h);

    mat_block_add_identity(J, N, R3, P, n, -1.0);
    mat_block_add(J, N, R3, P, n, n, g->N2, -h);
    mat_block_add(J, N, R3, V, n, n, g->M, 1.0);
    mat_block_add(J, N, R3, V, n, n, g->K, -h * h);
    mat_block_add_t(J, N, R3, C, n, m, g->Bm, -h);

    mat_block_add(J, N, R4, Q, m, n, g->Gb, 1.0);

    mat_block_add_t(J, N, R5, P, m, n, g->MGt, 1.0); /* G(qbar) M^-1 = (M^-1 G^T)^T */
    mat_block_add(J, N, R5, V, m, n, g->Bm, h);
    return WB_OK;
}

/* The sparse path's blocks, named by block row and column (Gt: G's
 * transpose, T, B in their patterns, I the identity). */
enum {
    VS_R1_Q_I, VS_R1_V_I, VS_R1_V_T, VS_R1_C_Gt,
    VS_R2_P_I, VS_R2_P_T, VS_R2_L_Gt, VS_R2_C_Bt,
    VS_R3_P_I, VS_R3_P_T, VS_R3_V_M, VS_R3_C_Bt,
    VS_R4_Q_G, VS_R5_P_G, VS_R5_V_B
};

static const ggl_block_spec vi_s_blocks[] = {
    {VS_R1_Q_I, 1, GGL_Q, GGL_IDENTITY},   {VS_R1_V_I, 1, GGL_V, GGL_IDENTITY},
    {VS_R1_V_T, 1, GGL_V, GGL_PATTERN_T_T}, {VS_R1_C_Gt, 1, GGL_C, GGL_PATTERN_G_T},
    {VS_R2_P_I, 2, GGL_P, GGL_IDENTITY},   {VS_R2_P_T, 2, GGL_P, GGL_PATTERN_T},
    {VS_R2_L_Gt, 2, GGL_L, GGL_PATTERN_G_T}, {VS_R2_C_Bt, 2, GGL_C, GGL_PATTERN_G_T},
    {VS_R3_P_I, 3, GGL_P, GGL_IDENTITY},   {VS_R3_P_T, 3, GGL_P, GGL_PATTERN_T},
    {VS_R3_V_M, 3, GGL_V, GGL_IDENTITY},   {VS_R3_C_Bt, 3, GGL_C, GGL_PATTERN_G_T},
    {VS_R4_Q_G, 4, GGL_Q, GGL_PATTERN_G},  {VS_R5_P_G, 5, GGL_P, GGL_PATTERN_G},
    {VS_R5_V_B, 5, GGL_V, GGL_PATTERN_G},
};

static int vi_s_place(ggl *g)
{
    return ggl_place_blocks(g, vi_s_blocks, (int)WB_ARRAY_COUNT(vi_s_blocks));
}

/* vi_s_jacobian's matrix in its nonzeros (D = 0: quadratic constraints);
 * T is symmetric, so its transpose scaled along columns is M^-1 T. */
static int vi_s_sparse_jacobian(void *user, const double *x, double *J)
{
    ggl *g = user;
    const double h = g->h, *Minv = g->Minv;
    memset(J, 0, (size_t)g->sparse.J.csr.pattern.nnz * sizeof(double));
    vi_s_points(g, x);
    ggl_hessian_vector(g, g->qa, g->w, g->Bm);                  /* B(qbar; w) */
    ggl_constraint_jacobian(g, x + g->off_q, g->Gb);            /* G(q1) */
    ggl_add(g, J, VS_R1_Q_I, 1.0, NULL, NULL);
    ggl_add(g, J, VS_R1_V_I, -h, NULL, NULL);
    ggl_add(g, J, VS_R1_V_T, -h * h, g->Ta, Minv);
    ggl_add(g, J, VS_R1_C_Gt, -h, g->Ga, Minv);
    ggl_add(g, J, VS_R2_P_I, 1.0, NULL, NULL);
    ggl_add(g, J, VS_R2_P_T, h, g->Ta, Minv);
    ggl_add(g, J, VS_R2_L_Gt, h, g->G0, NULL);
    ggl_add(g, J, VS_R2_C_Bt, h, g->Bm, NULL);
    ggl_add(g, J, VS_R3_P_I, -1.0, NULL, NULL);
    ggl_add(g, J, VS_R3_P_T, -h, g->Ta, Minv);
    ggl_add(g, J, VS_R3_V_M, 1.0, NULL, g->M);
    ggl_add(g, J, VS_R3_C_Bt, -h, g->Bm, NULL);
    ggl_add(g, J, VS_R4_Q_G, 1.0, g->Gb, NULL);
    ggl_add(g, J, VS_R5_P_G, 1.0, g->Ga, Minv);
    ggl_add(g, J, VS_R5_V_B, h, g->Bm, NULL);
    return WB_OK;
}

const ggl_scheme ggl_vi_s_scheme = {
    .label = "VI-S",
    .has_velocity = 1,
    .has_gamma = 1,
    .residual = vi_s_residual,
    .jacobian = vi_s_jacobian,
    .start_values = vi_s_start,
    .place_blocks = vi_s_place,
    .sparse_jacobian = vi_s_sparse_jacobian,
};

/* ---- theta-VI (eqs. 76-82), q_th = (1 - theta) q0 + theta q1 ------------------
 *   R1 = q1 - q0 - h v - h M^-1 G(q_th)^T gamma
 *   R2 = p1 - p0 + h grad V(q_th) + h Gl^T lambda + h T(q_th; gamma) v
 *   R3 = M v - (theta p0 + (1 - theta) p1) + h Gv^T lambda
 *   R4 = g(q_th)                                   (option A, eq. 79)
 *      = (1 - vartheta) g(q0) + vartheta g(q1)     (option B, eq. 82)
 *   R5 = G(q_th) v
 * with, from (D1 g_d + D2 g_d) and (theta D1 g_d - (1 - theta) D2 g_d),
 *   option A:  Gl = G(q_th),  Gv = 0 (the lambda terms cancel in (76c));
 *   option B:  Gl = (1 - vartheta) G(q0) + vartheta G(q1),
 *              Gv = theta (1 - vartheta) G(q0) - (1 - theta) vartheta G(q1).
 * The paper's (79b) "D1 L_d(q_th, v)" is h D1 L = -h grad V(q_th). */

static void theta_start(ggl *g)
{
    ggl_constraint_jacobian(g, g->q0, g->G0);
    wb_constraints(g->model, g->q0, g->g0);
}

/* q_th in qa, G(q_th) in Ga, T(q_th; gamma) in Ta, and, for option B,
 * G(q1) in Gb. */
static void theta_points(ggl *g, const double *x)
{
    const int n = g->n;
    const double th = g->theta, *q1 = x + g->off_q;
    for (int i = 0; i < n; i++)
        g->qa[i] = (1 - th) * g->q0[i] + th * q1[i];
    ggl_constraint_jacobian(g, g->qa, g->Ga);
    ggl_hessian_contract(g, g->qa, x + g->off_g, g->Ta);
    if (g->trapezoidal)
        ggl_constraint_jacobian(g, q1, g->Gb);
}

static int theta_residual(void *user, const double *x, double *r)
{
    ggl *g = user;
    const int n = g->n, m = g->m;
    const double h = g->h, th = g->theta, vt = g->vartheta;
    const double *q1 = x + g->off_q, *p1 = x + g->off_p, *v = x + g->off_v;
    const double *lam = x + g->off_l, *gam = x + g->off_g;
    double *r1 = r, *r2 = r + n, *r3 = r + 2 * n, *r4 = r + 3 * n, *r5 = r4 + m;
    theta_points(g, x);
    wb_potential_gradient(g->model, g->qa, g->u);
    ggl_count_force(g, 1);
    ggl_Gt_times(g, g->Ga, gam, g->t1);
    ggl_inverse_mass_times(g, g->t1, g->t2);   /* M^-1 G(q_th)^T gamma */
    ggl_T_times(g, g->Ta, v, g->w);            /* T(q_th; gamma) v */
    ggl_mass_times(g, v, g->t3);               /* M v */
    for (int i = 0; i < n; i++) {
        r1[i] = q1[i] - g->q0[i] - h * v[i] - h * g->t2[i];
        r2[i] = p1[i] - g->p0[i] + h * g->u[i] + h * g->w[i];
        r3[i] = g->t3[i] - th * g->p0[i] - (1 - th) * p1[i];
    }
    if (!g->trapezoidal) {
        ggl_Gt_times(g, g->Ga, lam, g->t1);
        vec_axpy(n, h, g->t1, r2);
        wb_constraints(g->model, g->qa, r4);
    } else {
        ggl_Gt_times(g, g->G0, lam, g->t1);    /* G(q0)^T lambda */
        ggl_Gt_times(g, g->Gb, lam, g->t2);    /* G(q1)^T lambda */
        vec_axpy(n, h * (1 - vt), g->t1, r2);
        vec_axpy(n, h * vt, g->t2, r2);
        vec_axpy(n, h * th * (1 - vt), g->t1, r3);
        vec_axpy(n, -h * (1 - th) * vt, g->t2, r3);
        wb_constraints(g->model, q1, r4);
        for (int k = 0; k < m; k++)
            r4[k] = (1 - vt) * g->g0[k] + vt * r4[k];
    }
    ggl_G_times(g, g->Ga, v, r5);
    return WB_OK;
}

/* Columns (q1, p1, v, lambda, gamma); q_th moves with theta q1.  With
 * T_g = T(q_th; gamma), C = B(q_th; v), D = D_q[T(q; gamma) v] at q_th:
 *   R1: [ I - h theta M^-1 T_g,  0, -h I, 0, -h M^-1 G(q_th)^T ]
 *   R2: [ h theta (Hess V + D) + dGl^T lambda/dq1,  I,  h T_g,  h Gl^T,  h C^T ]
 *   R3: [ dGv^T lambda/dq1 (B only),  -(1 - theta) I,  M,  h Gv^T,  0 ]
 *   R4: [ theta G(q_th) (A) or vartheta G(q1) (B), 0, 0, 0, 0 ]
 *   R5: [ theta C,  0,  G(q_th),  0,  0 ]
 * dGl^T lambda/dq1 = h theta T(q_th; lambda) (A), h vartheta T(q1; lambda)
 * (B); dGv^T lambda/dq1 = -h (1 - theta) vartheta T(q1; lambda) (B), whose
 * sign the authors' code has reversed (harmless for their theta = 1). */
static int theta_jacobian(void *user, const double *x, double *J)
{
    ggl *g = user;
    const int n = g->n, m = g->m, N = g->size;
    const double h = g->h, th = g->theta, vt = g->vartheta;
    const int Q = g->off_q, P = g->off_p, V = g->off_v, L = g->off_l, C = g->off_g;
    const int R1 = 0, R2 = n, R3 = 2 * n, R4 = 3 * n, R5 = 3 * n + m;
    const double *q1 = x + g->off_q, *v = x + g->off_v;
    const double *lam = x + g->off_l, *gam = x + g->off_g;
    memset(J, 0, (size_t)N * N * sizeof(double));
    theta_points(g, x);
    mat_mul(n, n, n, g->Minv, g->Ta, g->N1);                          /* M^-1 T_gamma */
    mat_mul_bt(n, n, m, g->Minv, g->Ga, g->MGt);                      /* M^-1 G(q_th)^T */
    wb_constraint_hessian_vector(g->model, g->qa, v, g->Bm);          /* B(q_th; v) */
    wb_potential_hessian(g->model, g->qa, g->K);
    wb_constraint_third_contract(g->model, g->qa, gam, v, g->N2);     /* D_q[T_gamma v] */

    mat_block_add_identity(J, N, R1, Q, n, 1.0);
    mat_block_add(J, N, R1, Q, n, n, g->N1, -h * th);
    mat_block_add_identity(J, N, R1, V, n, -h);
    mat_block_add(J, N, R1, C, n, m, g->MGt, -h);

    mat_block_add(J, N, R2, Q, n, n, g->K, h * th);
    mat_block_add(J, N, R2, Q, n, n, g->N2, h * th);
    mat_block_add_identity(J, N, R2, P, n, 1.0);
    mat_block_add(J, N, R2, V, n, n, g->Ta, h);
    mat_block_add_t(J, N, R2, C, n, m, g->Bm, h);

    mat_block_add_identity(J, N, R3, P, n, -(1 - th));
    mat_block_add(J, N, R3, V, n, n, g->M, 1.0);

    if (!g->trapezoidal) {
        wb_constraint_hessian_contract(g->model, g->qa, lam, g->Tb);  /* T(q_th; lambda) */
        mat_block_add(J, N, R2, Q, n, n, g->Tb, h * th);
        mat_block_add_t(J, N, R2, L, n, m, g->Ga, h);
        mat_block_add(J, N, R4, Q, m, n, g->Ga, th);
    } else {
        wb_constraint_hessian_contract(g->model, q1, lam, g->Tb);     /* T(q1; lambda) */
        mat_block_add(J, N, R2, Q, n, n, g->Tb, h * vt);
        mat_block_add_t(J, N, R2, L, n, m, g->G0, h * (1 - vt));
        mat_block_add_t(J, N, R2, L, n, m, g->Gb, h * vt);
        mat_block_add(J, N, R3, Q, n, n, g->Tb, -h * (1 - th) * vt);
        mat_block_add_t(J, N, R3, L, n, m, g->G0, h * th * (1 - vt));
        mat_block_add_t(J, N, R3, L, n, m, g->Gb, -h * (1 - th) * vt);
        mat_block_add(J, N, R4, Q, m, n, g->Gb, vt);
    }

    mat_block_add(J, N, R5, Q, m, n, g->Bm, th);
    mat_block_add(J, N, R5, V, m, n, g->Ga, 1.0);
    return WB_OK;
}

enum {
    TH_R1_Q_I, TH_R1_Q_T, TH_R1_V_I, TH_R1_C_Gt,
    TH_R2_Q_H, TH_R2_Q_T, TH_R2_P_I, TH_R2_V_T, TH_R2_L_Gt, TH_R2_L_Gbt, TH_R2_C_Bt,
    TH_R3_Q_T, TH_R3_P_I, TH_R3_V_M, TH_R3_L_Gt, TH_R3_L_Gbt,
    TH_R4_Q_G, TH_R5_Q_B, TH_R5_V_G
};

static const ggl_block_spec theta_blocks[] = {
    {TH_R1_Q_I, 1, GGL_Q, GGL_IDENTITY},    {TH_R1_Q_T, 1, GGL_Q, GGL_PATTERN_T_T},
    {TH_R1_V_I, 1, GGL_V, GGL_IDENTITY},    {TH_R1_C_Gt, 1, GGL_C, GGL_PATTERN_G_T},
    {TH_R2_Q_H, 2, GGL_Q, GGL_PATTERN_H},   {TH_R2_Q_T, 2, GGL_Q, GGL_PATTERN_T},
    {TH_R2_P_I, 2, GGL_P, GGL_IDENTITY},    {TH_R2_V_T, 2, GGL_V, GGL_PATTERN_T},
    {TH_R2_L_Gt, 2, GGL_L, GGL_PATTERN_G_T}, {TH_R2_C_Bt, 2, GGL_C, GGL_PATTERN_G_T},
    {TH_R3_P_I, 3, GGL_P, GGL_IDENTITY},    {TH_R3_V_M, 3, GGL_V, GGL_IDENTITY},
    {TH_R4_Q_G, 4, GGL_Q, GGL_PATTERN_G},   {TH_R5_Q_B, 5, GGL_Q, GGL_PATTERN_G},
    {TH_R5_V_G, 5, GGL_V, GGL_PATTERN_G},
};

/* Option B's (the trapezoidal g_d's G(q0), G(q1), T(q1; lambda)), placed
 * only with it. */
static const ggl_block_spec theta_trapezoidal_blocks[] = {
    {TH_R2_L_Gbt, 2, GGL_L, GGL_PATTERN_G_T}, {TH_R3_Q_T, 3, GGL_Q, GGL_PATTERN_T},
    {TH_R3_L_Gt, 3, GGL_L, GGL_PATTERN_G_T},  {TH_R3_L_Gbt, 3, GGL_L, GGL_PATTERN_G_T},
};

static int theta_place(ggl *g)
{
    int status = ggl_place_blocks(g, theta_blocks, (int)WB_ARRAY_COUNT(theta_blocks));
    if (status == 0 && g->trapezoidal)
        status = ggl_place_blocks(g, theta_trapezoidal_blocks,
                                  (int)WB_ARRAY_COUNT(theta_trapezoidal_blocks));
    return status;
}

/* theta_jacobian's matrix in its nonzeros (D = 0: quadratic constraints). */
static int theta_sparse_jacobian(void *user, const double *x, double *J)
{
    ggl *g = user;
    const double h = g->h, th = g->theta, vt = g->vartheta, *Minv = g->Minv;
    const double *q1 = x + g->off_q, *v = x + g->off_v, *lam = x + g->off_l;
    memset(J, 0, (size_t)g->sparse.J.csr.pattern.nnz * sizeof(double));
    theta_points(g, x);
    ggl_hessian_vector(g, g->qa, v, g->Bm);                     /* B(q_th; v) */
    g->sparse.ext->potential_hessian_values(g->sparse.self, g->qa, g->K);
    ggl_add(g, J, TH_R1_Q_I, 1.0, NULL, NULL);
    ggl_add(g, J, TH_R1_Q_T, -h * th, g->Ta, Minv);
    ggl_add(g, J, TH_R1_V_I, -h, NULL, NULL);
    ggl_add(g, J, TH_R1_C_Gt, -h, g->Ga, Minv);
    ggl_add(g, J, TH_R2_Q_H, h * th, g->K, NULL);
    ggl_add(g, J, TH_R2_P_I, 1.0, NULL, NULL);
    ggl_add(g, J, TH_R2_V_T, h, g->Ta, NULL);
    ggl_add(g, J, TH_R2_C_Bt, h, g->Bm, NULL);
    ggl_add(g, J, TH_R3_P_I, -(1 - th), NULL, NULL);
    ggl_add(g, J, TH_R3_V_M, 1.0, NULL, g->M);
    if (!g->trapezoidal) {
        ggl_hessian_contract(g, g->qa, lam, g->Tb);             /* T(q_th; lambda) */
        ggl_add(g, J, TH_R2_Q_T, h * th, g->Tb, NULL);
        ggl_add(g, J, TH_R2_L_Gt, h, g->Ga, NULL);
        ggl_add(g, J, TH_R4_Q_G, th, g->Ga, NULL);
    } else {
        ggl_hessian_contract(g, q1, lam, g->Tb);                /* T(q1; lambda) */
        ggl_add(g, J, TH_R2_Q_T, h * vt, g->Tb, NULL);
        ggl_add(g, J, TH_R2_L_Gt, h * (1 - vt), g->G0, NULL);
        ggl_add(g, J, TH_R2_L_Gbt, h * vt, g->Gb, NULL);
        ggl_add(g, J, TH_R3_Q_T, -h * (1 - th) * vt, g->Tb, NULL);
        ggl_add(g, J, TH_R3_L_Gt, h * th * (1 - vt), g->G0, NULL);
        ggl_add(g, J, TH_R3_L_Gbt, -h * (1 - th) * vt, g->Gb, NULL);
        ggl_add(g, J, TH_R4_Q_G, vt, g->Gb, NULL);
    }
    ggl_add(g, J, TH_R5_Q_B, th, g->Bm, NULL);
    ggl_add(g, J, TH_R5_V_G, 1.0, g->Ga, NULL);
    return WB_OK;
}

const ggl_scheme ggl_vi_theta_scheme = {
    .label = "theta-VI",
    .has_velocity = 1,
    .has_gamma = 1,
    .residual = theta_residual,
    .jacobian = theta_jacobian,
    .start_values = theta_start,
    .place_blocks = theta_place,
    .sparse_jacobian = theta_sparse_jacobian,
};
