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
 * lambda,  R3 = g(q1). */
#include "ggl.h"
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
    mat_vec(n, n, g->Minv, g->t1, g->w);
    wb_constraint_jacobian(g->model, g->qa, g->Ga);
    wb_constraint_jacobian(g->model, q1, g->Gb);
    if (g->off_g >= 0)
        wb_constraint_hessian_contract(g->model, g->qa, x + g->off_g, g->Ta);
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
    mat_t_vec(m, n, g->Ga, lam, g->t2);                 /* G(q_m)^T lambda */
    for (int i = 0; i < n; i++) {
        r1[i] = q1[i] - g->q0[i] - h * g->w[i];
        r2[i] = p1[i] - g->p0[i] + h * g->u[i] + h * g->t2[i];
    }
    wb_constraints(g->model, q1, r3);
    if (g->off_g < 0)
        return WB_OK;
    const double *gam = x + g->off_g;
    mat_t_vec(m, n, g->Ga, gam, g->t2);
    mat_vec(n, n, g->Minv, g->t2, g->t3);               /* M^-1 G(q_m)^T gamma */
    mat_vec(n, n, g->Ta, g->w, g->t2);                  /* T(q_m; gamma) M^-1 p_m */
    for (int i = 0; i < n; i++) {
        r1[i] -= h * g->t3[i];
        r2[i] += h * g->t2[i];
    }
    mat_vec(n, n, g->Minv, p1, g->t1);
    mat_vec(m, n, g->Gb, g->t1, r4);
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

const ggl_scheme ggl_em_scheme = {
    .label = "EM",
    .has_velocity = 0,
    .has_gamma = 1,
    .residual = em_residual,
    .jacobian = em_jacobian,
    .start_values = ggl_discrete_gradient_start,
};

const ggl_scheme ggl_em_gonzalez_scheme = {
    .label = "EM-G",
    .has_velocity = 0,
    .has_gamma = 0,
    .residual = em_residual,
    .jacobian = em_jacobian,
    .start_values = ggl_discrete_gradient_start,
};
