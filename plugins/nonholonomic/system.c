/* The nonlinear system of one step of the nonholonomic Lobatto IIIA-IIIB
 * method, and its Jacobian.
 *
 * Unknowns x = (H^1 .. H^s, nu^j for the multipliers solved for), H^i in
 * the algebra (the stage velocities V^i on a vector space).  With
 * X_i = h sum_j a_ij H^j, G_i = tau(X_i) g0, eta_i = dtau_{X_i} H^i,
 * f_i = n(G_i, eta_i) - A(G_i, eta_i)^T nu^i, N^i = dtau_{X_i}^T f_i,
 * Pi^i = dtau_{X_i}^T mu(G_i, eta_i), K^i = D(dtauinv)_{X_i}(eta_i, .)^T Pi^i,
 * xi = X_s, S = dtauinv_xi, U_j = dtauinv_{-X_j}, AdS_X = Ad*_{tau(-X)}:
 *
 *   R1^i = S^T [Pi^i - h sum_j (b_j a_ji / b_i) K^j]
 *          - AdS_xi [p0 + h sum_j b_j (U_j^T - (a_ji / b_i) U_s^T) N^j]   (i = 1..s)
 *   mu^i = AdS_{X_i} [p0 + h sum_j a_ij U_j^T N^j]          (IIIA momenta)
 *   rows: phi(G_i, vel(G_i, mu^i)) / h   or   phi(G_i, eta_i)
 *
 * On a vector space R1^i = M V^i - p0 - h sum_j ah_ij W^j and
 * mu^i = p0 + h sum_j a_ij W^j: eq. (14) with W = -grad V - A^T nu.
 *
 * The Jacobian is propagated forward: every intermediate vector y of
 * dimension r carries its tangent dy, the r x N matrix of its derivatives
 * in the unknowns, built from the model's analytic second derivatives and
 * the retraction's derivatives by the chain rule. */
#include "nonholonomic.h"

#include "wb_residual_scale.h"
#include "wb_vec.h"

#include <math.h>
#include <string.h>

/* ---- small dense helpers ----------------------------------------------------- */

/* Tout (r x N) += coef op(Mat) Tin (c x N); op(Mat) is r x c: Mat itself
 * (r x c, row-major) or, with transpose, the transpose of a c x r Mat. */
static void tan_gemm(int r, int c, int N, const double *Mat, int transpose,
                     const double *Tin, double coef, double *Tout)
{
    for (int i = 0; i < r; i++) {
        double *out = Tout + (size_t)i * N;
        for (int e = 0; e < c; e++) {
            const double m = transpose ? Mat[(size_t)e * r + i] : Mat[(size_t)i * c + e];
            if (m != 0.0)
                vec_axpy(N, coef * m, Tin + (size_t)e * N, out);
        }
    }
}

static void tan_zero(int r, int N, double *T)
{
    memset(T, 0, (size_t)r * N * sizeof(double));
}

/* Q[r][c] = <m, D[r][c]> for a d x d x d tensor D */
static void tensor_contract(int d, const double *D, const double *m, double *Q)
{
    for (int r = 0; r < d; r++)
        for (int c = 0; c < d; c++)
            Q[r * d + c] = vec_dot(d, m, D + ((size_t)r * d + c) * d);
}

/* P[:, c] = sum_r v_r D[r][c]: the matrix of w -> D(v, w) */
static void tensor_first(int d, const double *D, const double *v, double *P)
{
    for (int e = 0; e < d; e++)
        for (int c = 0; c < d; c++) {
            double sum = 0.0;
            for (int r = 0; r < d; r++)
                sum += v[r] * D[((size_t)r * d + c) * d + e];
            P[e * d + c] = sum;
        }
}

/* C = A^T B for d x d matrices */
static void transpose_times(int d, const double *A, const double *B, double *C)
{
    for (int r = 0; r < d; r++)
        for (int c = 0; c < d; c++) {
            double sum = 0.0;
            for (int e = 0; e < d; e++)
                sum += A[e * d + r] * B[e * d + c];
            C[r * d + c] = sum;
        }
}

/* D[r][c] = D_X[dtauinv_X e_r] e_c at X */
int build_tensor(lobatto *L, const double *X, double *D)
{
    const int d = L->d;
    double *er = L->v3, *ec = L->v4;
    for (int r = 0; r < d; r++)
        for (int c = 0; c < d; c++) {
            memset(er, 0, (size_t)d * sizeof(double));
            memset(ec, 0, (size_t)d * sizeof(double));
            er[r] = 1.0, ec[c] = 1.0;
            int status = retraction_Dinv(L, X, er, ec, D + ((size_t)r * d + c) * d);
            if (status != WB_OK)
                return status;
        }
    return WB_OK;
}

/* ---- the model on either space --------------------------------------------------- */

static void model_momentum(lobatto *L, const double *g, const double *v, double *mu)
{
    if (L->flat)
        mat_vec(L->d, L->d, L->M, v, mu);
    else
        wb_lie_momentum(L->model, g, v, mu);
}

static void model_force(lobatto *L, const double *g, const double *v, double *n)
{
    if (L->flat) {
        wb_potential_gradient(L->model, g, n);
        for (int i = 0; i < L->d; i++)
            n[i] = -n[i];
    } else {
        wb_lie_force(L->model, g, v, n);
    }
}

static void model_velocity(lobatto *L, const double *g, const double *mu, double *v)
{
    if (L->flat)
        wb_mass_solve(L->model, g, mu, v);
    else
        wb_lie_velocity(L->model, g, mu, v);
}

/* Jxi = D_v mu, Jg = D_g mu (right-trivialised), Fg = D_g n at (g, v) */
static void model_second(lobatto *L, const double *g, const double *v, double *Jxi,
                         double *Jg, double *Fg)
{
    const int d = L->d;
    if (L->flat) {
        vec_copy(d * d, L->M, Jxi);
        if (Jg)
            memset(Jg, 0, (size_t)d * d * sizeof(double));
        if (Fg) {
            wb_potential_hessian(L->model, g, Fg);
            for (int i = 0; i < d * d; i++)
                Fg[i] = -Fg[i];
        }
        return;
    }
    wb_lie_momentum_jacobian_xi(L->model, g, v, Jxi);
    if (Jg)
        wb_lie_momentum_jacobian_g(L->model, g, v, Jg);
    if (Fg)
        wb_lie_force_jacobian_g(L->model, g, v, Fg);
}

/* ---- the stages ----------------------------------------------------------------- */

static const double *unknown_H(const lobatto *L, const double *x, int i)
{
    return x + (size_t)i * L->d;
}

/* The multiplier of stage i: an unknown, the carried one, or zero. */
static double *stage_nu(lobatto *L, const double *x, int i)
{
    const int last = L->nu_first + L->n_unknown_nu - 1;
    if (i >= L->nu_first && i <= last)
        return (double *)x + (size_t)L->s * L->d + (size_t)(i - L->nu_first) * L->k;
    if (i < L->nu_first)
        return L->nu0;
    return L->zero_nu;
}

/* Column of the first unknown of stage i's multiplier, or -1. */
static int nu_column(const lobatto *L, int i)
{
    const int last = L->nu_first + L->n_unknown_nu - 1;
    if (i >= L->nu_first && i <= last)
        return L->s * L->d + (i - L->nu_first) * L->k;
    return -1;
}

static void matrix_dtau(lobatto *L, const double *X, const double *v, double *out)
{
    retraction_dtau(L, X, v, out);
}

static void matrix_dtauinv(lobatto *L, const double *X, const double *v, double *out)
{
    retraction_dtauinv(L, X, v, out);
}

/* AdS = Ad*_g as a matrix, column by column */
static void matrix_Ad_star(lobatto *L, const double *g, double *AdS)
{
    const int d = L->d;
    for (int c = 0; c < d; c++) {
        memset(L->mo_e, 0, (size_t)d * sizeof(double));
        L->mo_e[c] = 1.0;
        wb_lie_Ad_star(L->model, g, L->mo_e, L->mo_col);
        for (int r = 0; r < d; r++)
            AdS[r * d + c] = L->mo_col[r];
    }
}

/* Everything of stage i the residual needs; with_jacobian adds the group
 * maps at -X, the tensors and the model's second derivatives. */
static int evaluate_stage(lobatto *L, const double *x, int i, int with_jacobian)
{
    const int d = L->d, k = L->k, s = L->s;
    stage *S = &L->st[i];
    const double h = L->h;
    memset(S->X, 0, (size_t)d * sizeof(double));
    for (int j = 0; j < s; j++) {
        const double a = h * L->a[i * s + j];
        if (a != 0.0)
            vec_axpy(d, a, unknown_H(L, x, j), S->X);
    }
    const double *H = unknown_H(L, x, i);
    S->nu = stage_nu(L, x, i);
    if (L->flat) {
        for (int c = 0; c < d; c++)
            S->G[c] = L->q0[c] + S->X[c];
        vec_copy(d, H, S->eta);
    } else {
        /* G = tau(X) g0 (tau(X) passes through tau_minus), then tau(-X) */
        retraction_tau(L, S->X, S->tau_minus);
        wb_lie_compose(L->model, S->tau_minus, L->q0, S->G);
        for (int c = 0; c < d; c++)
            S->Xm[c] = -S->X[c];
        retraction_tau(L, S->Xm, S->tau_minus);
        matrix_of(L, matrix_dtau, S->X, S->T);
        matrix_of(L, matrix_dtauinv, S->Xm, S->U);
        matrix_Ad_star(L, S->tau_minus, S->AdS);
        mat_vec(d, d, S->T, H, S->eta);
    }
    model_momentum(L, S->G, S->eta, S->mu);
    model_force(L, S->G, S->eta, S->f);
    if (k > 0) {
        wb_nh_jacobian_v(L->model, S->G, S->eta, S->A);
        for (int a = 0; a < k; a++)
            vec_axpy(d, -S->nu[a], S->A + (size_t)a * d, S->f);
    }
    L->stats->function_evals++;
    if (L->flat) {
        vec_copy(d, S->f, S->N);
        vec_copy(d, S->mu, S->Pi);
        memset(S->K, 0, (size_t)d * sizeof(double));
    } else {
        mat_t_vec(d, d, S->T, S->f, S->N);
        mat_t_vec(d, d, S->T, S->mu, S->Pi);
        int status = retraction_Dinv_star(L, S->X, S->eta, S->Pi, S->K);
        if (status != WB_OK)
            return status;
    }
    if (!with_jacobian)
        return WB_OK;
    model_second(L, S->G, S->eta, S->Jxi, S->Jg, S->Fg);
    if (k > 0) {
        wb_nh_jacobian_q(L->model, S->G, S->eta, S->B);
        wb_nh_hessian_vv_contract(L->model, S->G, S->eta, S->nu, S->Cxi);
        wb_nh_hessian_qv_contract(L->model, S->G, S->eta, S->nu, S->Cg);
    }
    if (!L->flat) {
        matrix_of(L, matrix_dtau, S->Xm, S->Tm);
        int status = build_tensor(L, S->X, S->Dp);
        if (status != WB_OK)
            return status;
        if (L->retraction == RETRACTION_CAY) {
            /* D(dtauinv) is affine in X for cay: D(-X) = 2 D(0) - D(X), exactly */
            const size_t n3 = (size_t)d * d * d;
            for (size_t e = 0; e < n3; e++)
                S->Dm[e] = 2.0 * L->D0[e] - S->Dp[e];
        } else {
            status = build_tensor(L, S->Xm, S->Dm);
            if (status != WB_OK)
                return status;
        }
    }
    return WB_OK;
}

/* IIIA momentum of stage i: mu^i = AdS_{X_i} [p0 + h sum_j a_ij U_j^T N^j];
 * y receives the bracket. */
static void iiia_momentum(lobatto *L, int i, double *y, double *mu)
{
    const int d = L->d, s = L->s;
    vec_copy(d, L->p0, y);
    for (int j = 0; j < s; j++) {
        const double w = L->h * L->a[i * s + j];
        if (w == 0.0)
            continue;
        if (L->flat) {
            vec_axpy(d, w, L->st[j].N, y);
        } else {
            mat_t_vec(d, d, L->st[j].U, L->st[j].N, L->v2);
            vec_axpy(d, w, L->v2, y);
        }
    }
    if (L->flat)
        vec_copy(d, y, mu);
    else
        mat_vec(d, d, L->st[i].AdS, y, mu);
}

/* z_i = p0 + h sum_j b_j (U_j^T - (a_ji / b_i) U_s^T) N^j (on a vector space
 * p0 + h sum_j ah_ij N^j, the IIIB coefficients themselves) */
static void iiib_bracket(lobatto *L, int i, double *z)
{
    const int d = L->d, s = L->s;
    vec_copy(d, L->p0, z);
    for (int j = 0; j < s; j++) {
        if (L->flat) {
            const double w = L->h * L->ah[i * s + j];
            if (w != 0.0)
                vec_axpy(d, w, L->st[j].N, z);
            continue;
        }
        const double bj = L->h * L->b[j], ratio = L->a[j * s + i] / L->b[i];
        mat_t_vec(d, d, L->st[j].U, L->st[j].N, L->v2);
        vec_axpy(d, bj, L->v2, z);
        if (ratio != 0.0) {
            mat_t_vec(d, d, L->st[s - 1].U, L->st[j].N, L->v2);
            vec_axpy(d, -bj * ratio, L->v2, z);
        }
    }
}

/* ---- residual ------------------------------------------------------------------- */

static int evaluate_all(lobatto *L, const double *x, int with_jacobian)
{
    for (int i = 0; i < L->s; i++) {
        int status = evaluate_stage(L, x, i, with_jacobian);
        if (status != WB_OK)
            return status;
    }
    if (!L->flat)
        matrix_of(L, matrix_dtauinv, L->st[L->s - 1].X, L->S);
    return WB_OK;
}

int lobatto_residual(void *user, const double *x, double *r)
{
    lobatto *L = user;
    const int d = L->d, s = L->s, k = L->k;
    int status = evaluate_all(L, x, 0);
    if (status != WB_OK)
        return status;
    for (int i = 0; i < s; i++) {
        double *ri = r + (size_t)i * d;
        /* left: S^T [Pi^i - h sum_j c_ij K^j] */
        vec_copy(d, L->st[i].Pi, L->y);
        if (!L->flat)
            for (int j = 0; j < s; j++) {
                const double c = L->h * L->b[j] * L->a[j * s + i] / L->b[i];
                if (c != 0.0)
                    vec_axpy(d, -c, L->st[j].K, L->y);
            }
        iiib_bracket(L, i, L->z);
        if (L->flat) {
            for (int c = 0; c < d; c++)
                ri[c] = L->y[c] - L->z[c];
        } else {
            mat_t_vec(d, d, L->S, L->y, ri);
            mat_vec(d, d, L->st[s - 1].AdS, L->z, L->v2);
            for (int c = 0; c < d; c++)
                ri[c] -= L->v2[c];
        }
    }
    double *rc = r + (size_t)s * d;
    for (int b = 0; b < L->n_rows; b++) {
        const constraint_row *row = &L->rows[b];
        const stage *S = &L->st[row->stage];
        double *out = rc + (size_t)b * k;
        if (row->on_momentum) {
            iiia_momentum(L, row->stage, L->y, L->mu_row);
            model_velocity(L, S->G, L->mu_row, L->eta_c);
            wb_nh_constraints(L->model, S->G, L->eta_c, out);
            for (int a = 0; a < k; a++)
                out[a] /= L->h;
        } else {
            wb_nh_constraints(L->model, S->G, S->eta, out);
        }
    }
    return WB_OK;
}

/* out = |op(Mat)| v (op as in tan_gemm: Mat, r x c, or the transpose of a
 * c x r Mat): with v bounding the terms a vector y is made of, a bound of
 * the terms of op(Mat) y. */
static void abs_mat_vec(int r, int c, const double *Mat, int transpose, const double *v,
                        double *out)
{
    for (int i = 0; i < r; i++) {
        double sum = 0.0;
        for (int e = 0; e < c; e++)
            sum += fabs(transpose ? Mat[(size_t)e * r + i] : Mat[(size_t)i * c + e]) * v[e];
        out[i] = sum;
    }
}

/* The sizes of the terms G_i's numbers are made of, into Gt (nq): on a
 * vector space |q0| + |X_i|; on a group compose(|tau(X_i)|, |g0|), which
 * bounds them where compose is bilinear in the numbers (the matrix groups
 * of workbench/groups).  A number near zero made of large terms (SE(2)'s
 * t2 = sin(theta) x at x = 1e6) carries their round-off, not its own. */
static void coordinate_sizes(lobatto *L, int i, double *Gt)
{
    const int nq = L->nq;
    const stage *S = &L->st[i];
    if (L->flat) {
        for (int c = 0; c < nq; c++)
            Gt[c] = fabs(L->q0[c]) + fabs(S->X[c]);
        return;
    }
    double *tau = L->g_work, *g0 = L->g_work + nq;
    retraction_tau(L, S->X, tau);
    for (int c = 0; c < nq; c++)
        tau[c] = fabs(tau[c]), g0[c] = fabs(L->q0[c]);
    wb_lie_compose(L->model, tau, g0, Gt);
    for (int c = 0; c < nq; c++)
        Gt[c] = fabs(Gt[c]);
}

/* A copy of G with number c moved by a small part of its terms' size
 * (into g_work's third block), and the factor that turns a change of a
 * value into the size of the terms that number brings into it. */
static double moved_coordinate(lobatto *L, const double *G, const double *Gt, int c,
                               double **moved)
{
    double *Gm = L->g_work + 2 * (size_t)L->nq;
    const double step = 0x1p-24 * Gt[c];
    vec_copy(L->nq, G, Gm);
    Gm[c] += step;
    *moved = Gm;
    return Gt[c] / (Gm[c] - G[c]); /* the step as represented */
}

/* The terms of stage i's transported momentum Pi = T^T mu and force
 * N = T^T (n - A^T nu), into Pt and Nt (d each): mu's terms |Jxi| |eta|
 * (SE(2) at a distance t: m t^2 w, cancelling to a momentum of m t |v|),
 * the force's |n| and |A^T| |nu| apart (a spring and a constraint force
 * that cancel: the CVT's passenger at rest, z - lambda = 0, made of terms
 * of 1), and what G's own round-off brings in: |Hess V| (|q0| + |X|) on a
 * vector space (a stiff spring far from the origin), on a group the
 * change of mu and n under each of G's numbers moved across its terms'
 * size (SE(2) at x = 1e6: mu1 = m (u1 - w t2) with t2 of terms 1e6). */
static void stage_term_sizes(lobatto *L, int i, double *Pt, double *Nt)
{
    const int d = L->d, k = L->k, nq = L->nq;
    stage *S = &L->st[i];
    double *mu_terms = L->v1, *f_terms = L->v2, *Gt = L->g_terms + (size_t)i * nq;
    model_second(L, S->G, S->eta, S->Jxi, L->flat ? NULL : S->Jg, L->flat ? S->Fg : NULL);
    for (int c = 0; c < d; c++) {
        double size = fabs(S->mu[c]), force = S->f[c], constraint = 0.0;
        for (int e = 0; e < d; e++)
            size += fabs(S->Jxi[c * d + e] * S->eta[e]);
        for (int a = 0; a < k; a++) {
            const double term = S->A[(size_t)a * d + c] * S->nu[a];
            force += term; /* n = f + A^T nu */
            constraint += fabs(term);
        }
        mu_terms[c] = size;
        f_terms[c] = fabs(force) + constraint;
    }
    coordinate_sizes(L, i, Gt);
    if (L->flat) {
        abs_mat_vec(d, d, S->Fg, 0, Gt, L->v3); /* M is constant: mu has no q terms */
        vec_axpy(d, 1.0, L->v3, f_terms);
        vec_copy(d, mu_terms, Pt);
        vec_copy(d, f_terms, Nt);
        return;
    }
    /* n's own terms in eta: D_eta n = Jg^T (the gyroscopic m w J s) */
    for (int c = 0; c < d; c++)
        L->v4[c] = fabs(S->eta[c]);
    abs_mat_vec(d, d, S->Jg, 1, L->v4, L->v3);
    vec_axpy(d, 1.0, L->v3, f_terms);
    /* n = f + A^T nu at G, for its change */
    vec_copy(d, S->f, L->v3);
    for (int a = 0; a < k; a++)
        vec_axpy(d, S->nu[a], S->A + (size_t)a * d, L->v3);
    for (int c = 0; c < nq; c++) {
        if (!(Gt[c] > 0.0))
            continue;
        double *Gm;
        const double factor = moved_coordinate(L, S->G, Gt, c, &Gm);
        model_momentum(L, Gm, S->eta, L->fd_mu);
        model_force(L, Gm, S->eta, L->fd_n);
        for (int e = 0; e < d; e++) {
            mu_terms[e] += fabs(L->fd_mu[e] - S->mu[e]) * factor;
            f_terms[e] += fabs(L->fd_n[e] - L->v3[e]) * factor;
        }
    }
    abs_mat_vec(d, d, S->T, 1, mu_terms, Pt);
    abs_mat_vec(d, d, S->T, 1, f_terms, Nt);
}

/* The terms of K = D(dtauinv)_X(eta, .)^T Pi: sum_r sum_e |eta_r|
 * |D[r][c][e]| Pt_e, Pt the terms of Pi (zero on a vector space). */
static int stage_K_sizes(lobatto *L, int i, const double *Pt, double *Kt)
{
    const int d = L->d;
    stage *S = &L->st[i];
    if (L->flat) {
        memset(Kt, 0, (size_t)d * sizeof(double));
        return WB_OK;
    }
    int status = build_tensor(L, S->X, S->Dp);
    if (status != WB_OK)
        return status;
    for (int c = 0; c < d; c++) {
        double size = 0.0;
        for (int r = 0; r < d; r++)
            for (int e = 0; e < d; e++)
                size += fabs(S->eta[r] * S->Dp[((size_t)r * d + c) * d + e]) * Pt[e];
        Kt[c] = size;
    }
    return WB_OK;
}

/* The terms of the momentum mu^i = AdS_{X_i} [p0 + h sum_j a_ij U_j^T N^j]
 * (IIIA), from Nt, into mt; zt is scratch. */
static void iiia_momentum_sizes(lobatto *L, int i, const double *Nt, double *zt, double *mt)
{
    const int d = L->d, s = L->s;
    for (int c = 0; c < d; c++)
        zt[c] = fabs(L->p0[c]);
    for (int j = 0; j < s; j++) {
        const double w = fabs(L->h * L->a[i * s + j]);
        if (w == 0.0)
            continue;
        if (L->flat) {
            vec_axpy(d, w, Nt + (size_t)j * d, zt);
        } else {
            abs_mat_vec(d, d, L->st[j].U, 1, Nt + (size_t)j * d, L->v4);
            vec_axpy(d, w, L->v4, zt);
        }
    }
    if (L->flat)
        vec_copy(d, zt, mt);
    else
        abs_mat_vec(d, d, L->st[i].AdS, 0, zt, mt);
}

/* W = A Jxi^-1 (k x d) at (g, eta): how a change of the momentum reaches
 * the constraint through the velocity map (on a vector space A M^-1). */
static int constraint_in_momenta(lobatto *L, const double *g, const double *eta,
                                 const double *A, double *W)
{
    const int d = L->d, k = L->k;
    if (L->flat) {
        for (int a = 0; a < k; a++)
            mat_vec(d, d, L->Minv, A + (size_t)a * d, W + (size_t)a * d); /* M^-1 symmetric */
        return WB_OK;
    }
    model_second(L, g, eta, L->Jxi_c, NULL, NULL);
    for (int r = 0; r < d; r++)
        for (int c = 0; c < d; c++)
            L->m1[r * d + c] = L->Jxi_c[c * d + r];
    vec_copy(k * d, A, W);
    return L->host->dense_solve(L->host, d, k, L->m1, L->ipiv, W);
}

/* Adds to raw (k) the terms G's round-off brings into a constraint row:
 * |D_q phi| (|q0| + |X|) on a vector space (the velocity map M^-1 mu has
 * no q in it), on a group the change of phi(G, eta) or, on the momenta,
 * of phi(G, vel(G, mu^i)) (mu^i in L->mu_row) under each of G's numbers
 * moved across its terms' size. */
static void constraint_coordinate_sizes(lobatto *L, const constraint_row *row,
                                        const double *eta, double *raw)
{
    const int d = L->d, k = L->k, nq = L->nq;
    const stage *S = &L->st[row->stage];
    const double *Gt = L->g_terms + (size_t)row->stage * nq;
    if (L->flat) {
        wb_nh_jacobian_q(L->model, S->G, eta, L->B_c);
        for (int a = 0; a < k; a++)
            for (int c = 0; c < d; c++)
                raw[a] += fabs(L->B_c[(size_t)a * d + c]) * Gt[c];
        return;
    }
    double *phi0 = L->A_c; /* k <= k d */
    wb_nh_constraints(L->model, S->G, eta, phi0);
    for (int c = 0; c < nq; c++) {
        if (!(Gt[c] > 0.0))
            continue;
        double *Gm;
        const double factor = moved_coordinate(L, S->G, Gt, c, &Gm);
        const double *eta_m = eta;
        if (row->on_momentum) {
            model_velocity(L, Gm, L->mu_row, L->v4);
            eta_m = L->v4;
        }
        wb_nh_constraints(L->model, Gm, eta_m, L->fd_phi);
        for (int a = 0; a < k; a++)
            raw[a] += fabs(L->fd_phi[a] - phi0[a]) * factor;
    }
}

void lobatto_row_scales(lobatto *L, const double *x)
{
    const int d = L->d, s = L->s, k = L->k;
    const double h = fabs(L->h);
    /* the Jacobian's scratch: per stage the terms of Pi, N and K (s d each) */
    double *Pt = L->dy, *Nt = L->dz, *Kt = L->dmu_row;
    double *yt = L->tmp_t, *zt = L->tmp_t + d, *mt = L->tmp_t2, *W = L->tmp_t2 + d;
    int status = evaluate_all(L, x, 0);
    for (int i = 0; status == WB_OK && i < s; i++) {
        stage_term_sizes(L, i, Pt + (size_t)i * d, Nt + (size_t)i * d);
        status = stage_K_sizes(L, i, Pt + (size_t)i * d, Kt + (size_t)i * d);
    }
    if (status != WB_OK) {
        for (int r = 0; r < L->N; r++)
            L->scale[r] = 1.0; /* the absolute test; the solve reports the failure */
        return;
    }
    /* momentum rows r_i = S^T y - AdS_xi z (on a vector space y - z):
     * y = Pi^i - h sum_j c_ij K^j, z = p0 + h sum_j (...) N^j; Pi's terms
     * the largest of any stage's (the sizes are taken at the guess) */
    for (int i = 0; i < s; i++) {
        double *si = L->scale + (size_t)i * d;
        for (int c = 0; c < d; c++) {
            double size = 0.0;
            for (int j = 0; j < s; j++)
                size = fmax(size, Pt[(size_t)j * d + c]);
            yt[c] = size;
            zt[c] = fabs(L->p0[c]);
        }
        for (int j = 0; j < s; j++) {
            const double *Ntj = Nt + (size_t)j * d;
            if (L->flat) {
                vec_axpy(d, fabs(h * L->ah[i * s + j]), Ntj, zt);
                continue;
            }
            const double c_ij = fabs(h * L->b[j] * L->a[j * s + i] / L->b[i]);
            vec_axpy(d, c_ij, Kt + (size_t)j * d, yt);
            const double bj = fabs(h * L->b[j]), ratio = fabs(L->a[j * s + i] / L->b[i]);
            abs_mat_vec(d, d, L->st[j].U, 1, Ntj, L->v4);
            vec_axpy(d, bj, L->v4, zt);
            if (ratio != 0.0) {
                abs_mat_vec(d, d, L->st[s - 1].U, 1, Ntj, L->v4);
                vec_axpy(d, bj * ratio, L->v4, zt);
            }
        }
        if (L->flat) {
            for (int c = 0; c < d; c++)
                si[c] = wb_scale_or_one(yt[c] + zt[c]);
            continue;
        }
        /* the maps spread each row's terms; both spread the sum of the
         * sizes, which errs large, as the round-off of the s-stage sums
         * does (measured: vertical_disc m = 1e12, s = 4, h = 0.01 stalls
         * at 2e-14 of its stage-4 rows' terms with each map on its own part) */
        for (int c = 0; c < d; c++)
            yt[c] += zt[c];
        abs_mat_vec(d, d, L->S, 1, yt, L->v3);
        abs_mat_vec(d, d, L->st[s - 1].AdS, 0, yt, L->v4);
        for (int c = 0; c < d; c++)
            si[c] = wb_scale_or_one(L->v3[c] + L->v4[c]);
    }
    /* constraint rows phi(G_i, eta): |A| |eta|; on the IIIA momenta
     * (phi(G_i, vel(G_i, mu^i)) / h) also the round-off of mu^i's terms
     * carried through the velocity map, |A Jxi^-1| (terms of mu^i) */
    double *sc = L->scale + (size_t)s * d, *raw = L->phi;
    for (int b = 0; b < L->n_rows; b++) {
        const constraint_row *row = &L->rows[b];
        const stage *S = &L->st[row->stage];
        const double *eta = S->eta;
        if (row->on_momentum) {
            iiia_momentum(L, row->stage, L->y, L->mu_row);
            model_velocity(L, S->G, L->mu_row, L->eta_c);
            eta = L->eta_c;
        }
        const double eta_size = wb_scale_max_abs(d, eta);
        for (int a = 0; a < k; a++) {
            double size = 0.0;
            for (int c = 0; c < d; c++)
                size += fabs(S->A[(size_t)a * d + c]);
            raw[a] = size * eta_size;
        }
        if (row->on_momentum) {
            iiia_momentum_sizes(L, row->stage, Nt, zt, mt);
            if (constraint_in_momenta(L, S->G, eta, S->A, W) == WB_OK)
                for (int a = 0; a < k; a++)
                    for (int e = 0; e < d; e++)
                        raw[a] += fabs(W[(size_t)a * d + e]) * mt[e];
        }
        constraint_coordinate_sizes(L, row, eta, raw);
        for (int a = 0; a < k; a++)
            sc[(size_t)b * k + a] = wb_scale_or_one(row->on_momentum ? raw[a] / h : raw[a]);
    }
}

void lobatto_unknown_scales(lobatto *L, const double *x)
{
    const int velocities = L->s * L->d;
    L->velocity_size = vec_max_abs(velocities, x);
    L->multiplier_size = vec_max_abs(L->N - velocities, x + velocities);
    for (int i = 0; i < L->N; i++)
        L->unknown_scale[i] = i < velocities ? L->velocity_size : L->multiplier_size;
}

int lobatto_outputs(lobatto *L, const double *x, double *q1, double *p1)
{
    int status = evaluate_all(L, x, 0);
    if (status != WB_OK)
        return status;
    vec_copy(L->nq, L->st[L->s - 1].G, q1);
    iiia_momentum(L, L->s - 1, L->y, p1);
    return WB_OK;
}

/* ---- Jacobian ------------------------------------------------------------------- */

/* the tangents of stage i's quantities */
static void stage_tangents(lobatto *L, int i)
{
    const int d = L->d, k = L->k, s = L->s, N = L->N;
    stage *S = &L->st[i];
    const double h = L->h;
    tan_zero(d, N, S->dX);
    for (int l = 0; l < s; l++) {
        const double a = h * L->a[i * s + l];
        if (a != 0.0)
            for (int c = 0; c < d; c++)
                S->dX[(size_t)c * N + l * d + c] += a;
    }
    tan_zero(d, N, S->zeta);
    tan_zero(d, N, S->deta);
    if (L->flat) {
        vec_copy(d * N, S->dX, S->zeta);
        for (int c = 0; c < d; c++)
            S->deta[(size_t)c * N + i * d + c] = 1.0;
    } else {
        tan_gemm(d, d, N, S->T, 0, S->dX, 1.0, S->zeta);
        /* deta = -T P dX + T dH^i, P[:, c] = D(eta, e_c) */
        tensor_first(d, S->Dp, S->eta, L->m1);
        mat_mul(d, d, d, S->T, L->m1, L->m2);
        tan_gemm(d, d, N, L->m2, 0, S->dX, -1.0, S->deta);
        for (int r = 0; r < d; r++)
            for (int c = 0; c < d; c++)
                S->deta[(size_t)r * N + i * d + c] += S->T[r * d + c];
    }
    /* dmu = Jg zeta + Jxi deta */
    tan_zero(d, N, S->dmu);
    tan_gemm(d, d, N, S->Jg, 0, S->zeta, 1.0, S->dmu);
    tan_gemm(d, d, N, S->Jxi, 0, S->deta, 1.0, S->dmu);
    /* df = (Fg - Cg) zeta + (Jg^T - Cxi) deta - A^T dnu */
    tan_zero(d, N, S->df);
    tan_gemm(d, d, N, S->Fg, 0, S->zeta, 1.0, S->df);
    if (!L->flat)
        tan_gemm(d, d, N, S->Jg, 1, S->deta, 1.0, S->df);
    if (k > 0) {
        tan_gemm(d, d, N, S->Cg, 0, S->zeta, -1.0, S->df);
        tan_gemm(d, d, N, S->Cxi, 0, S->deta, -1.0, S->df);
        const int col = nu_column(L, i);
        if (col >= 0)
            for (int r = 0; r < d; r++)
                for (int a = 0; a < k; a++)
                    S->df[(size_t)r * N + col + a] -= S->A[(size_t)a * d + r];
    }
    if (L->flat) {
        vec_copy(d * N, S->df, S->dN);
        vec_copy(d * N, S->dmu, S->dPi);
        tan_zero(d, N, S->dK);
        return;
    }
    /* dN = T^T df - T^T Q(Dp, N) dX, dPi likewise */
    tan_zero(d, N, S->dN);
    tan_gemm(d, d, N, S->T, 1, S->df, 1.0, S->dN);
    tensor_contract(d, S->Dp, S->N, L->m1);
    transpose_times(d, S->T, L->m1, L->m2);
    tan_gemm(d, d, N, L->m2, 0, S->dX, -1.0, S->dN);
    tan_zero(d, N, S->dPi);
    tan_gemm(d, d, N, S->T, 1, S->dmu, 1.0, S->dPi);
    tensor_contract(d, S->Dp, S->Pi, L->m1); /* Q(Dp, Pi), kept for dK */
    transpose_times(d, S->T, L->m1, L->m2);
    tan_gemm(d, d, N, L->m2, 0, S->dX, -1.0, S->dPi);
    /* dK = Q(Dp, Pi)^T deta + P^T dPi + Z dX */
    tan_zero(d, N, S->dK);
    tan_gemm(d, d, N, L->m1, 1, S->deta, 1.0, S->dK);
    tensor_first(d, S->Dp, S->eta, L->m2);
    tan_gemm(d, d, N, L->m2, 1, S->dPi, 1.0, S->dK);
    /* Z[c][e] = <Pi, D2(X; eta, e_c, e_e)> */
    double *ec = L->v3, *ee = L->v4;
    for (int c = 0; c < d; c++)
        for (int e = 0; e < d; e++) {
            memset(ec, 0, (size_t)d * sizeof(double));
            memset(ee, 0, (size_t)d * sizeof(double));
            ec[c] = 1.0, ee[e] = 1.0;
            retraction_Dinv2(L, S->X, S->eta, ec, ee, L->v2);
            L->m3[c * d + e] = vec_dot(d, S->Pi, L->v2);
        }
    tan_gemm(d, d, N, L->m3, 0, S->dX, 1.0, S->dK);
}

/* The tangent of U_u^T N^j, u = j or the last stage: U_u^T dN_j -
 * Q(Dm_u, N_j) dX_u (dN_j itself on a vector space), into T. */
static void transported_tangent(lobatto *L, int j, int u, double *T)
{
    const int d = L->d, N = L->N;
    const stage *Sj = &L->st[j], *Su = &L->st[u];
    tan_zero(d, N, T);
    tan_gemm(d, d, N, Su->U, 1, Sj->dN, 1.0, T);
    tensor_contract(d, Su->Dm, Sj->N, L->m1);
    tan_gemm(d, d, N, L->m1, 0, Su->dX, -1.0, T);
}

/* Every stage's transported force tangents, once per Jacobian: own[j] for
 * U_j^T N^j, last[j] for U_s^T N^j (on a vector space both are dN_j). */
static void transported_tangents(lobatto *L)
{
    const int s = L->s;
    for (int j = 0; j < s; j++) {
        if (L->flat) {
            L->own[j] = L->last[j] = L->st[j].dN;
            continue;
        }
        L->own[j] = L->st[j].dUN;
        L->last[j] = L->st[j].dUsN;
        transported_tangent(L, j, j, L->st[j].dUN);
        transported_tangent(L, j, s - 1, L->st[j].dUsN);
    }
}

/* T += d(AdS_{X_i} y) = AdS dy - AdS Y(y) Tm dX_i */
static void add_coadjoint(lobatto *L, int i, const double *y, const double *dy, double *T)
{
    const int d = L->d, N = L->N;
    const stage *S = &L->st[i];
    tan_gemm(d, d, N, S->AdS, 0, dy, 1.0, T);
    /* Y(y)[:, c] = ad*_{e_c} y */
    for (int c = 0; c < d; c++) {
        memset(L->e, 0, (size_t)d * sizeof(double));
        L->e[c] = 1.0;
        wb_lie_ad_star(L->model, L->e, y, L->v2);
        for (int r = 0; r < d; r++)
            L->m1[r * d + c] = L->v2[r];
    }
    mat_mul(d, d, d, L->m1, S->Tm, L->m2);
    mat_mul(d, d, d, S->AdS, L->m2, L->m3);
    tan_gemm(d, d, N, L->m3, 0, S->dX, -1.0, T);
}

/* The IIIA momentum of stage i, mu^i (into mu_row), the velocity it
 * gives, eta_c = vel(G_i, mu^i), and their tangents dmu_row and deta_c;
 * after transported_tangents. */
static int iiia_velocity_tangent(lobatto *L, int i)
{
    const int d = L->d, s = L->s, N = L->N;
    const stage *S = &L->st[i];
    tan_zero(d, N, L->dy);
    for (int j = 0; j < s; j++) {
        const double w = L->h * L->a[i * s + j];
        if (w != 0.0)
            vec_axpy(d * N, w, L->own[j], L->dy);
    }
    iiia_momentum(L, i, L->y, L->mu_row);
    tan_zero(d, N, L->dmu_row);
    if (L->flat)
        vec_copy(d * N, L->dy, L->dmu_row);
    else
        add_coadjoint(L, i, L->y, L->dy, L->dmu_row);
    /* eta_c = vel(G_i, mu^i): deta_c = Jxi_c^-1 (dmu^i - Jg_c zeta_i) */
    model_velocity(L, S->G, L->mu_row, L->eta_c);
    model_second(L, S->G, L->eta_c, L->Jxi_c, L->Jg_c, NULL);
    vec_copy(d * N, L->dmu_row, L->deta_c);
    tan_gemm(d, d, N, L->Jg_c, 0, S->zeta, -1.0, L->deta_c);
    if (L->flat) {
        vec_copy(d * N, L->deta_c, L->tmp_t);
        tan_zero(d, N, L->deta_c);
        tan_gemm(d, d, N, L->Minv, 0, L->tmp_t, 1.0, L->deta_c);
    } else {
        /* N right-hand sides of length d: solve column-wise on a transposed copy */
        for (int r = 0; r < d; r++)
            for (int c = 0; c < N; c++)
                L->tmp_t[(size_t)c * d + r] = L->deta_c[(size_t)r * N + c];
        vec_copy(d * d, L->Jxi_c, L->m1);
        int status = L->host->dense_solve(L->host, d, N, L->m1, L->ipiv, L->tmp_t);
        if (status != WB_OK)
            return status;
        for (int r = 0; r < d; r++)
            for (int c = 0; c < N; c++)
                L->deta_c[(size_t)r * N + c] = L->tmp_t[(size_t)c * d + r];
    }
    return WB_OK;
}

/* unknown_scale: each unknown's vector size (lobatto_unknown_scales)
 * times rho = min(1, V / max_c sum_j |D_cj| size_j), with D = d xi1 / dx
 * the tangent of the step's result velocity xi1 = vel(q1, p1) = vel(G_s,
 * mu^s) and V the stage velocities' size: a correction within tol of
 * every scale then moves each component of xi1 by at most tol V.  Where
 * a component of the result is a small difference of large terms, rho
 * is small: vertical_disc at Iz = 1e-12, whose w = mu0 / Iz comes from
 * terms h^2 |v| (|t| + m |v w|) through Ad* and dcay*, has rho = 2e-10 at
 * h = 0.01 (2e-9 at h = 1e-3; 1e-10 at m = 1e12; 1 at the defaults), and
 * its unknowns are then iterated to their round-off. */
static int result_scales(lobatto *L)
{
    const int s = L->s, d = L->d, N = L->N, velocities = s * d;
    const int last = L->n_rows - 1;
    if (!(last >= 0 && L->rows[last].on_momentum && L->rows[last].stage == s - 1)) {
        int status = iiia_velocity_tangent(L, s - 1);
        if (status != WB_OK)
            return status;
    }
    double worst = 0.0;
    for (int c = 0; c < d; c++) {
        const double *row = L->deta_c + (size_t)c * N;
        double sum = 0.0;
        for (int j = 0; j < N; j++)
            sum += fabs(row[j]) * (j < velocities ? L->velocity_size : L->multiplier_size);
        worst = fmax(worst, sum);
    }
    const double V = L->velocity_size, rho = worst > V ? V / worst : 1.0;
    for (int j = 0; j < N; j++)
        L->unknown_scale[j] = rho * (j < velocities ? L->velocity_size : L->multiplier_size);
    return WB_OK;
}

int lobatto_jacobian(void *user, const double *x, double *J)
{
    lobatto *L = user;
    const int d = L->d, s = L->s, k = L->k, N = L->N;
    int status = evaluate_all(L, x, 1);
    if (status != WB_OK)
        return status;
    for (int i = 0; i < s; i++)
        stage_tangents(L, i);
    transported_tangents(L);
    const stage *Ss = &L->st[s - 1];
    for (int i = 0; i < s; i++) {
        double *Ji = J + (size_t)i * d * N;
        tan_zero(d, N, Ji);
        /* left */
        tan_zero(d, N, L->dy);
        vec_copy(d * N, L->st[i].dPi, L->dy);
        vec_copy(d, L->st[i].Pi, L->y);
        if (!L->flat)
            for (int j = 0; j < s; j++) {
                const double c = L->h * L->b[j] * L->a[j * s + i] / L->b[i];
                if (c != 0.0) {
                    vec_axpy(d * N, -c, L->st[j].dK, L->dy);
                    vec_axpy(d, -c, L->st[j].K, L->y);
                }
            }
        if (L->flat) {
            vec_copy(d * N, L->dy, Ji);
        } else {
            tan_gemm(d, d, N, L->S, 1, L->dy, 1.0, Ji);
            tensor_contract(d, Ss->Dp, L->y, L->m1);
            tan_gemm(d, d, N, L->m1, 0, Ss->dX, 1.0, Ji);
        }
        /* right */
        tan_zero(d, N, L->dz);
        for (int j = 0; j < s; j++) {
            if (L->flat) {
                const double w = L->h * L->ah[i * s + j];
                if (w != 0.0)
                    vec_axpy(d * N, w, L->own[j], L->dz);
                continue;
            }
            const double bj = L->h * L->b[j], ratio = L->a[j * s + i] / L->b[i];
            vec_axpy(d * N, bj, L->own[j], L->dz);
            if (ratio != 0.0)
                vec_axpy(d * N, -bj * ratio, L->last[j], L->dz);
        }
        if (L->flat) {
            vec_axpy(d * N, -1.0, L->dz, Ji);
        } else {
            iiib_bracket(L, i, L->z);
            tan_zero(d, N, L->tmp_t);
            add_coadjoint(L, s - 1, L->z, L->dz, L->tmp_t);
            vec_axpy(d * N, -1.0, L->tmp_t, Ji);
        }
    }
    double *Jc = J + (size_t)s * d * N;
    for (int b = 0; b < L->n_rows; b++) {
        const constraint_row *row = &L->rows[b];
        const int i = row->stage;
        const stage *S = &L->st[i];
        double *out = Jc + (size_t)b * k * N;
        tan_zero(k, N, out);
        if (!row->on_momentum) {
            tan_gemm(k, d, N, S->B, 0, S->zeta, 1.0, out);
            tan_gemm(k, d, N, S->A, 0, S->deta, 1.0, out);
            continue;
        }
        status = iiia_velocity_tangent(L, i);
        if (status != WB_OK)
            return status;
        wb_nh_jacobian_q(L->model, S->G, L->eta_c, L->B_c);
        wb_nh_jacobian_v(L->model, S->G, L->eta_c, L->A_c);
        tan_gemm(k, d, N, L->B_c, 0, S->zeta, 1.0 / L->h, out);
        tan_gemm(k, d, N, L->A_c, 0, L->deta_c, 1.0 / L->h, out);
    }
    return result_scales(L);
}

/* ---- the Jacobian against differences of the residual ------------------------------ */

double lobatto_jacobian_gap(lobatto *L, const double *x, int *worst_row, int *worst_col)
{
    const int N = L->N;
    double *xs = L->fd_x, *rp = L->fd_r1, *rm = L->fd_r2, *J = L->fd_J;
    double worst = 0.0;
    *worst_row = *worst_col = -1;
    if (lobatto_jacobian(L, x, J) != WB_OK)
        return INFINITY;
    vec_copy(N, x, xs);
    for (int c = 0; c < N; c++) {
        const double step = 1e-6 * fmax(1.0, fabs(x[c]));
        xs[c] = x[c] + step;
        int status = lobatto_residual(L, xs, rp);
        xs[c] = x[c] - step;
        status |= lobatto_residual(L, xs, rm);
        xs[c] = x[c];
        if (status != WB_OK)
            return INFINITY;
        for (int r = 0; r < N; r++) {
            const double fd = (rp[r] - rm[r]) / (2.0 * step);
            const double an = J[(size_t)r * N + c];
            const double gap = fabs(fd - an) / fmax(1.0, fabs(an));
            if (!(gap <= worst)) {
                worst = gap;
                *worst_row = r, *worst_col = c;
            }
        }
    }
    return worst;
}
