/* The paper's own solver (section 4): its Stage 4 system (Fig. 2, 12N + 5d
 * equations in 12N + 5d unknowns) iterated by (4.4) with the approximates
 * of Fig. 2 as corrected in the digest (section 2.7): S4.6a' with its
 * h alpha+- factors and a0 (the printed form diverges), S4.7a' with
 * h alpha- v2 (approximates = "printed" keeps both as printed, to show that
 * the iteration then diverges).  The approximates are affine, so (4.4) is the chord
 * iteration x <- x - A^-1 f(x) with A their linear part: the host's
 * Newton with a fixed matrix (simplified = 1) and A as the "Jacobian",
 * its columns scaled (column_scales).  A depends on w1 only (G0 = G(q1),
 * M0 = M, the projection approximates (4.8) at G0), so it is formed and
 * factored once per step.
 *
 * Unknowns, in this order: lambda-, mu, lambda+, lambdahat-, muhat1,
 * lambdahat+, muhat2 (N each), nu1-, nu2-, nu1+, nu2+ (d each), q1-, qbar,
 * q2+ (N each), theta+ (d), q2, v2 (N each).  The equations are
 * (S4.1)-(S4.8) with the exact P (foot point by Newton) and pull-backs
 * (4.7); the rows (S4.4a) and (S4.6a) are O(h) and divided by h, as in the
 * reduced form.  The solution is the reduced solver's: the equations are
 * the same (digest 2.8), only the unknowns differ.  The iteration's test
 * is relative to the size of each row's terms at the step's start, as the
 * reduced solver's (row_scales), and a layer, projection or field that
 * fails inside a residual keeps its own message. */
#include "variationalize.h"
#include "wb_vec.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { U_LM, U_MU, U_LP, U_LHM, U_MH1, U_LHP, U_MH2, U_N1M, U_N2M, U_N1P, U_N2P, U_Q1M, U_QB,
       U_Q2P, U_TH, U_Q2, U_V2, U_COUNT };
enum { R_F1, R_F2, R_F3A, R_F3B, R_F3C, R_F4A, R_F4B, R_F4C, R_F5A, R_F5B, R_F5C, R_F6A, R_F6B,
       R_F6C, R_F7A, R_F7B, R_F8, R_COUNT };

typedef struct vz_stage4 {
    int size;
    int at[U_COUNT];          /* offsets of the unknowns                    */
    int row[R_COUNT];         /* offsets of the equations                   */
    double *X, *f, *A;        /* unknowns, residual, approximate matrix     */
    double *Y, *column;       /* Newton's unknowns X / column, the columns' scales */
    double *scale;            /* size: each row's terms, Newton's test      */
    double *DP0;              /* n x n: DP of the projection approximate    */
    double *K0, *cols;        /* (n+m)^2, (n+m) x n scratch                 */
    int *pivots;
    double *G1, *B1, *G, *q2m, *th2m, *q2p, *th2p, *hat, *work; /* scratch */
    wb_newton *newton;
} vz_stage4;

static int is_n_unknown(int u) { return !(u >= U_N1M && u <= U_N2P) && u != U_TH; }
static int is_n_row(int r)
{
    return !(r == R_F3B || r == R_F4B || r == R_F5B || r == R_F6B || r == R_F7B);
}

int vz_stage4_create(vz_del *del)
{
    const int n = del->n, m = del->m;
    vz_stage4 *s = calloc(1, sizeof *s);
    if (!s)
        return WB_ERR_NOMEM;
    del->stage4 = s;
    int at = 0;
    for (int u = 0; u < U_COUNT; u++) {
        s->at[u] = at;
        at += is_n_unknown(u) ? n : m;
    }
    s->size = at;
    at = 0;
    for (int r = 0; r < R_COUNT; r++) {
        s->row[r] = at;
        at += is_n_row(r) ? n : m;
    }
    const size_t size = (size_t)s->size, N = (size_t)n, M = (size_t)m, k = N + M;
    const size_t total = 5 * size + size * size + N * N + k * k + k * N + 3 * M * N + 2 * N +
                         2 * M + N + 2 * N + 4;
    double *block = calloc(total, sizeof(double));
    s->pivots = calloc(k + 1, sizeof(int));
    s->newton = del->host->newton_create(del->host, s->size);
    if (!block || !s->pivots || !s->newton) {
        free(block);
        return WB_ERR_NOMEM;
    }
    s->X = block;
    s->f = s->X + size;
    s->Y = s->f + size;
    s->column = s->Y + size;
    s->scale = s->column + size;
    s->A = s->scale + size;
    s->DP0 = s->A + size * size;
    s->K0 = s->DP0 + N * N;
    s->cols = s->K0 + k * k;
    s->G1 = s->cols + k * N;
    s->B1 = s->G1 + M * N;
    s->G = s->B1 + M * N;
    s->q2m = s->G + M * N;
    s->q2p = s->q2m + N;
    s->th2m = s->q2p + N;
    s->th2p = s->th2m + M + 1;
    s->hat = s->th2p + M + 1;
    s->work = s->hat + N;
    return WB_OK;
}

void vz_stage4_destroy(vz_del *del)
{
    vz_stage4 *s = del->stage4;
    if (!s)
        return;
    if (s->newton)
        del->host->newton_destroy(del->host, s->newton);
    free(s->X);
    free(s->pivots);
    free(s);
    del->stage4 = NULL;
}

/* row of covector l times the first (q) or last (v) n columns of J (n x 2n) */
static void times_block(int n, const double *l, const double *J, int v_part, double *out)
{
    const int dim = 2 * n;
    for (int j = 0; j < n; j++)
        out[j] = 0.0;
    for (int i = 0; i < n; i++)
        if (l[i] != 0.0)
            vec_axpy(n, l[i], J + (size_t)i * dim + (v_part ? n : 0), out);
}

/* The w1 side, once per step: ends with derivatives, the projections of
 * dhat-+(w1) and the rows of DP^T there (in del's start-up buffers). */
static int w1_side(vz_del *del)
{
    vz_ends *e = &del->ends0;
    int status = vz_del_ends(del, e, del->h, del->q1, del->v1, 1);
    if (status == WB_OK)
        status = vz_project(&del->proj, e->qm, del->q0m, del->th0m, del->stats);
    if (status == WB_OK)
        status = vz_project(&del->proj, e->qp, del->q0p, del->th0p, del->stats);
    for (int pass = 0; pass < 2 && status == WB_OK; pass++) {
        const double *q = pass ? del->q0p : del->q0m, *th = pass ? del->th0p : del->th0m;
        double *rows = pass ? del->DPp : del->DPm;
        const int n = del->n;
        memset(rows, 0, (size_t)n * n * sizeof(double));
        for (int c = 0; c < n; c++)
            rows[c * n + c] = 1.0;
        status = vz_pull(&del->proj, q, th, n, rows, rows);
    }
    return status;
}

/* out (m values) = G W l: the gauge rows (S4.3b) .. (S4.5b) as the reduced
 * solver's E2 (S3.8 for W = I, the same bits there).  With W = M^-1 the
 * printed G l = 0 put the heavy momentum into a light point's components
 * of lambda, mu, lambda+ along a rod joining them, which the pull-backs
 * (S4.3c) .. (S4.6c) cancel again to eps of the heavy momentum: the light
 * rows stalled there, ~1e-16 against terms of 1e-17 (issue 13; m1 = 1e-6,
 * h = 3.5e-6), and the light velocity came out off by ~tol x the mass
 * ratio (4.5e-7 of its size at 1e6), or the iteration diverged (from a
 * ratio of 1e8: "the projection onto the constraints did not converge").
 * With G W l = 0 it converges in 2 .. 3 iterations to the weighted test. */
static void gauge_rows(const vz_del *del, const double *G, const double *l, double *out)
{
    const int n = del->n, m = del->m;
    for (int a = 0; a < m; a++) {
        double sum = 0.0;
        for (int c = 0; c < n; c++)
            sum += vz_weighted_normal(del, G, a, c) * l[c];
        out[a] = sum;
    }
}

static int stage4_residual(void *user, const double *X, double *f)
{
    vz_del *del = user;
    vz_stage4 *s = del->stage4;
    const int n = del->n, m = del->m;
    const double h = del->h;
    const wb_model *model = del->model;
#define U(u) (X + s->at[u])
#define F(r) (f + s->row[r])
    vz_ends *e1 = &del->ends0, *e2 = &del->ends;
    const double *q1 = del->q1, *v1 = del->v1, *q2 = U(U_Q2), *v2 = U(U_V2);
    double *t = s->work;
    int status = vz_del_ends(del, e2, h, q2, v2, 1);
    if (status == WB_OK)
        status = vz_project(&del->proj, e2->qp, s->q2p, s->th2p, del->stats);
    if (status == WB_OK)
        status = vz_project(&del->proj, e2->qm, s->q2m, s->th2m, del->stats);
    if (status != WB_OK) {
        del->evaluation_failed = 1;
        return status;
    }
    /* (S4.1), (S4.2) */
    for (int i = 0; i < n; i++) {
        F(R_F1)[i] = U(U_Q1M)[i] - del->q0m[i];
        F(R_F2)[i] = U(U_QB)[i] - del->q0p[i];
    }
    if (m > 0) {
        wb_constraint_jacobian(model, q1, s->G1);
        wb_constraint_hessian_vector(model, q1, v1, s->B1);
    }
    /* (S4.3a) lhat- Dq d-(w1) + nu1- G(q1) + muhat1 Dq d+(w1) + nu2- B(q1; v1) - Dq L_h(w1) */
    double *r = F(R_F3A);
    times_block(n, U(U_LHM), e1->Jm, 0, r);
    times_block(n, U(U_MH1), e1->Jp, 0, t);
    vec_axpy(n, 1.0, t, r);
    for (int a = 0; a < m; a++) {
        vec_axpy(n, U(U_N1M)[a], s->G1 + (size_t)a * n, r);
        vec_axpy(n, U(U_N2M)[a], s->B1 + (size_t)a * n, r);
    }
    for (int i = 0; i < n; i++)
        r[i] -= e1->dSp[i] - e1->dSm[i];
    /* (S4.4a) [muhat1 Dv d+(w1) + nu2- G(q1) + lhat- Dv d-(w1) - Dv L_h(w1)] / h */
    r = F(R_F4A);
    times_block(n, U(U_MH1), e1->Jp, 1, r);
    times_block(n, U(U_LHM), e1->Jm, 1, t);
    vec_axpy(n, 1.0, t, r);
    for (int a = 0; a < m; a++)
        vec_axpy(n, U(U_N2M)[a], s->G1 + (size_t)a * n, r);
    for (int i = 0; i < n; i++)
        r[i] = (r[i] - (e1->dSp[n + i] - e1->dSm[n + i])) / h;
    /* (S4.3c), (S4.4c): hats minus the pull-backs at the w1 projections */
    mat_t_vec(n, n, del->DPm, U(U_LM), t);
    for (int i = 0; i < n; i++)
        F(R_F3C)[i] = U(U_LHM)[i] - t[i];
    mat_t_vec(n, n, del->DPp, U(U_MU), t);
    for (int i = 0; i < n; i++)
        F(R_F4C)[i] = U(U_MH1)[i] - t[i];
    /* (S4.5a) lhat+ Dq d+(w2) + nu1+ G(q2) - muhat2 Dq d-(w2) + nu2+ B(q2; v2) - Dq L_h(w2) */
    if (m > 0) {
        wb_constraint_jacobian(model, q2, del->G2);
        wb_constraint_hessian_vector(model, q2, v2, del->B2);
    }
    r = F(R_F5A);
    times_block(n, U(U_LHP), e2->Jp, 0, r);
    times_block(n, U(U_MH2), e2->Jm, 0, t);
    vec_axpy(n, -1.0, t, r);
    for (int a = 0; a < m; a++) {
        vec_axpy(n, U(U_N1P)[a], del->G2 + (size_t)a * n, r);
        vec_axpy(n, U(U_N2P)[a], del->B2 + (size_t)a * n, r);
    }
    for (int i = 0; i < n; i++)
        r[i] -= e2->dSp[i] - e2->dSm[i];
    /* (S4.6a) [Dv L_h(w2) - nu2+ G(q2) - lhat+ Dv d+(w2) + muhat2 Dv d-(w2)] / h */
    r = F(R_F6A);
    times_block(n, U(U_LHP), e2->Jp, 1, t);
    for (int i = 0; i < n; i++)
        r[i] = e2->dSp[n + i] - e2->dSm[n + i] - t[i];
    times_block(n, U(U_MH2), e2->Jm, 1, t);
    vec_axpy(n, 1.0, t, r);
    for (int a = 0; a < m; a++)
        vec_axpy(n, -U(U_N2P)[a], del->G2 + (size_t)a * n, r);
    for (int i = 0; i < n; i++)
        r[i] /= h;
    /* (S4.5c), (S4.6c): pull-backs at the w2 projections */
    status = vz_pull(&del->proj, s->q2p, s->th2p, 1, U(U_LP), s->hat);
    if (status != WB_OK) {
        del->evaluation_failed = 1;
        return status;
    }
    for (int i = 0; i < n; i++)
        F(R_F5C)[i] = U(U_LHP)[i] - s->hat[i];
    status = vz_pull(&del->proj, s->q2m, s->th2m, 1, U(U_MU), s->hat);
    if (status != WB_OK) {
        del->evaluation_failed = 1;
        return status;
    }
    for (int i = 0; i < n; i++)
        F(R_F6C)[i] = U(U_MH2)[i] - s->hat[i];
    /* (S4.7a) dhat-(w2) = iota(qbar, theta+), (S4.8) q2+ = P dhat+(w2) */
    vz_normal_offset(&del->proj, U(U_QB), U(U_TH), t);
    for (int i = 0; i < n; i++) {
        F(R_F7A)[i] = e2->qm[i] - U(U_QB)[i] - t[i];
        F(R_F8)[i] = U(U_Q2P)[i] - s->q2p[i];
    }
    /* the d rows: (S4.3b), (S4.4b), (S4.5b), (S4.6b), (S4.7b) */
    if (m > 0) {
        wb_constraint_jacobian(model, U(U_Q1M), s->G);
        gauge_rows(del, s->G, U(U_LM), F(R_F3B));
        wb_constraint_jacobian(model, U(U_QB), s->G);
        gauge_rows(del, s->G, U(U_MU), F(R_F4B));
        wb_constraint_jacobian(model, U(U_Q2P), s->G);
        gauge_rows(del, s->G, U(U_LP), F(R_F5B));
        mat_vec(m, n, del->G2, v2, F(R_F6B));
        wb_constraints(model, q2, F(R_F7B));
    }
#undef U
#undef F
    if (!vec_all_finite(s->size, f)) {
        del->host->error(del->host, "vi (approximate): non-finite residual of Stage 4");
        del->evaluation_failed = 1;
        return WB_ERR_NONFINITE;
    }
    return WB_OK;
}

/* DP0 = [I 0] K0^-1 [I; 0], K0 = [[I, W G0^T], [G0, 0]]: the projection
 * approximate (the paper's linearisation of g at qhat with G0 = G(q1)). */
static int projection_approximate(vz_del *del)
{
    vz_stage4 *s = del->stage4;
    const int n = del->n, m = del->m, k = n + m;
    memset(s->DP0, 0, (size_t)n * n * sizeof(double));
    if (m == 0) {
        for (int i = 0; i < n; i++)
            s->DP0[i * n + i] = 1.0;
        return WB_OK;
    }
    const double *W = del->proj.W;
    double *cols = s->cols;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            double value = 0.0;
            if (i < n && j < n)
                value = (i == j);
            else if (i < n)
                value = vec_dot(n, W + (size_t)i * n, s->G1 + (size_t)(j - n) * n);
            else if (j < n)
                value = s->G1[(i - n) * n + j];
            s->K0[i * k + j] = value;
        }
    for (int c = 0; c < n; c++)
        for (int i = 0; i < k; i++)
            cols[c * k + i] = (i == c);
    int status = del->host->dense_solve(del->host, k, n, s->K0, s->pivots, cols);
    if (status != WB_OK) {
        del->host->error(del->host, "vi (approximate): the projection approximate "
                                    "[[I, W G0^T], [G0, 0]] at G0 = G(q1) is singular (the "
                                    "constraints' gradients are dependent at q1)");
        del->evaluation_failed = 1;
        return status;
    }
    for (int i = 0; i < n; i++)
        for (int c = 0; c < n; c++)
            s->DP0[i * n + c] = cols[c * k + i];
    return WB_OK;
}

/* The approximate matrix: the linear part of (S4.1')-(S4.8'), corrected. */
static int approximate_matrix(vz_del *del, double *A)
{
    vz_stage4 *s = del->stage4;
    const int n = del->n, m = del->m, size = s->size;
    const double h = del->h, am = del->opt.alpha_minus, ap = del->opt.alpha_plus;
    const double *G0 = s->G1, *B1 = s->B1, *M0 = del->field.M, *W = del->proj.W;
    const int printed = del->opt.printed_approximates;
    int status = projection_approximate(del);
    if (status != WB_OK)
        return status;
    memset(A, 0, (size_t)size * size * sizeof(double));
#define AT(r, i, u, j) A[(size_t)(s->row[r] + (i)) * size + s->at[u] + (j)]
    for (int i = 0; i < n; i++) {
        AT(R_F1, i, U_Q1M, i) = 1.0;
        AT(R_F2, i, U_QB, i) = 1.0;
        /* (S4.3a') lambda- + mu + nu1- G0 + nu2- B(q1; v1) */
        AT(R_F3A, i, U_LM, i) = 1.0;
        AT(R_F3A, i, U_MU, i) = 1.0;
        /* (S4.4a') [h (alpha- lambda- + alpha+ mu) + nu2- G0] / h */
        AT(R_F4A, i, U_LM, i) = am;
        AT(R_F4A, i, U_MU, i) = ap;
        /* (S4.5a') lambda+ - mu + nu1+ G0 + nu2- B(q1; v1) */
        AT(R_F5A, i, U_LP, i) = 1.0;
        AT(R_F5A, i, U_MU, i) = -1.0;
        /* (S4.6a') [h v2 M0 - nu2+ G0 - h alpha+ lambda+ + h alpha- mu] / h; as
         * printed, without the h alpha+- factors: [... - lambda+ + mu] / h */
        for (int j = 0; j < n; j++)
            AT(R_F6A, i, U_V2, j) = M0[i * n + j];
        AT(R_F6A, i, U_LP, i) = printed ? -1.0 / h : -ap;
        AT(R_F6A, i, U_MU, i) = printed ? 1.0 / h : am;
        /* (4.8): hat - DP0^T (the unhatted) */
        AT(R_F3C, i, U_LHM, i) = 1.0;
        AT(R_F4C, i, U_MH1, i) = 1.0;
        AT(R_F5C, i, U_LHP, i) = 1.0;
        AT(R_F6C, i, U_MH2, i) = 1.0;
        for (int j = 0; j < n; j++) {
            const double dpt = s->DP0[j * n + i];
            AT(R_F3C, i, U_LM, j) = -dpt;
            AT(R_F4C, i, U_MU, j) = -dpt;
            AT(R_F5C, i, U_LP, j) = -dpt;
            AT(R_F6C, i, U_MU, j) = -dpt;
        }
        /* (S4.7a') q2 - qbar + h alpha- v2 - W G0^T theta+ (printed: h alpha+ v2) */
        AT(R_F7A, i, U_Q2, i) = 1.0;
        AT(R_F7A, i, U_QB, i) = -1.0;
        AT(R_F7A, i, U_V2, i) = h * (printed ? ap : am);
        /* (S4.8') q2+ - DP0 (q2 + h alpha+ v2) */
        AT(R_F8, i, U_Q2P, i) = 1.0;
        for (int j = 0; j < n; j++) {
            AT(R_F8, i, U_Q2, j) = -s->DP0[i * n + j];
            AT(R_F8, i, U_V2, j) = -h * ap * s->DP0[i * n + j];
        }
    }
    for (int a = 0; a < m; a++)
        for (int i = 0; i < n; i++) {
            const double g = G0[a * n + i], b = B1[a * n + i];
            AT(R_F3A, i, U_N1M, a) = g;
            AT(R_F3A, i, U_N2M, a) = b;
            AT(R_F4A, i, U_N2M, a) = g / h;
            AT(R_F5A, i, U_N1P, a) = g;
            AT(R_F5A, i, U_N2M, a) = b; /* the paper: nu2+ B(q2; v2) ~ nu2- B(q1; v1) */
            AT(R_F6A, i, U_N2P, a) = -g / h;
            AT(R_F7A, i, U_TH, a) = -vec_dot(n, W + (size_t)i * n, G0 + (size_t)a * n);
            /* the d rows */
            const double gw = vz_weighted_normal(del, G0, a, i);
            AT(R_F3B, a, U_LM, i) = gw;
            AT(R_F4B, a, U_MU, i) = gw;
            AT(R_F5B, a, U_LP, i) = gw;
            AT(R_F6B, a, U_V2, i) = g;
            AT(R_F7B, a, U_Q2, i) = g;
            AT(R_F7B, a, U_QB, i) = -g;
        }
#undef AT
    return WB_OK;
}

/* Newton iterates on Y = X / column: column j of the approximate matrix
 * scaled by a power of two to a largest entry in [1/2, 1), then all of
 * them by one power of two so that the largest scale is 1.  The raw
 * columns span h alpha (v2's in (S4.7a'), (S4.8')) to g / h (nu2's in
 * (S4.4a'), (S4.6a')), 1e-20 .. 6e19 at four_particles l12 = 1e12,
 * h = 1.6e-20, and the host's LU, which pivots among the columns of a row
 * (it factors the transpose), gave chord updates off by 2.5e-4 .. 7e-2 of
 * the unknowns' sizes there and at l34 = 1e12 and heavy_top m = 1e12: the
 * iteration cycled with (S4.4a) at 4e-2 .. 8e-2 of its terms, or grew,
 * though its contraction factor is 0.019 .. 0.18 (issue 13).  Scaled, the
 * updates are exact to 1e-17 of them.  Powers of two round nothing: the
 * residual sees X = column Y bit for bit.  With every scale at most 1,
 * Newton's update test |dY_j| <= tol max(1, |Y_j|) is |dX_j| <= tol
 * max(column_j, |X_j|), no looser than tol max(1, |X_j|) on X. */
enum { VZ_COLUMN_SHIFT_LIMIT = 500 }; /* Y stays finite for |X| < 1e150 */

static int column_exponent(const vz_stage4 *s, int j)
{
    double largest = 0.0;
    for (int i = 0; i < s->size; i++)
        largest = fmax(largest, fabs(s->A[(size_t)i * s->size + j]));
    int exponent = 0;
    if (largest > 0.0 && isfinite(largest))
        frexp(largest, &exponent);
    return exponent;
}

static void column_scales(vz_stage4 *s)
{
    int smallest = INT_MAX;
    for (int j = 0; j < s->size; j++) {
        const int exponent = column_exponent(s, j);
        s->column[j] = exponent; /* exact: the shift is taken below */
        if (exponent < smallest)
            smallest = exponent;
    }
    for (int j = 0; j < s->size; j++) {
        const int shift = smallest - (int)s->column[j];
        s->column[j] = ldexp(1.0, shift > -VZ_COLUMN_SHIFT_LIMIT ? shift : -VZ_COLUMN_SHIFT_LIMIT);
    }
}

/* Newton's residual at Y: Stage 4's at X = column Y. */
static int scaled_residual(void *user, const double *Y, double *f)
{
    vz_del *del = user;
    vz_stage4 *s = del->stage4;
    for (int j = 0; j < s->size; j++)
        s->X[j] = s->column[j] * Y[j];
    return stage4_residual(del, s->X, f);
}

/* Newton's (chord) matrix: the step's approximate matrix, columns scaled. */
static int scaled_matrix(void *user, const double *Y, double *J)
{
    vz_del *del = user;
    vz_stage4 *s = del->stage4;
    const int size = s->size;
    (void)Y;
    for (int i = 0; i < size; i++)
        for (int j = 0; j < size; j++)
            J[(size_t)i * size + j] = s->A[(size_t)i * size + j] * s->column[j];
    return WB_OK;
}

/* The size of each Stage 4 row's terms, from the reduced rows' at w1
 * (vz_del_residual_scales): the momentum rows (S4.3a) .. (S4.6a) and the
 * hats (S4.3c) .. (S4.6c) balance momenta, coordinate i's in its own units
 * as the reduced E1's (with W = M^-1 its mass relative to the largest:
 * mass_weights in del.c; with W = I all alike), (S4.3b) .. (S4.5b) are
 * G W times a momentum, (S4.6b) G v2, (S4.7b) g(q2), and (S4.1), (S4.2),
 * (S4.7a), (S4.8) join positions. */
static void row_scales(vz_del *del)
{
    vz_stage4 *s = del->stage4;
    const int n = del->n, m = del->m, dim = del->dim;
    vz_del_residual_scales(del, del->h, del->q1, del->v1);
    const double *reduced = del->residual_scale;
    const double position = reduced[dim + m];
    const double *G_momentum = reduced + dim, *G_position = reduced + dim + m + n,
                 *G_velocity = reduced + dim + 2 * m + n;
    for (int r = 0; r < R_COUNT; r++) {
        double *out = s->scale + s->row[r];
        if (!is_n_row(r)) {
            const double *from = r == R_F6B ? G_velocity : r == R_F7B ? G_position : G_momentum;
            vec_copy(m, from, out);
            continue;
        }
        const int joins = r == R_F1 || r == R_F2 || r == R_F7A || r == R_F8;
        for (int i = 0; i < n; i++)
            out[i] = joins ? position : reduced[i]; /* E1's q half: row i */
    }
}

int vz_stage4_step(vz_del *del, double *q2, double *v2)
{
    vz_stage4 *s = del->stage4;
    const int n = del->n, m = del->m;
    const wb_host *host = del->host;
    int status = w1_side(del);
    if (status != WB_OK)
        return status;
    if (m > 0) {
        wb_constraint_jacobian(del->model, del->q1, s->G1);
        wb_constraint_hessian_vector(del->model, del->q1, del->v1, s->B1);
    }
    /* the guess: the carried mu and qbar, the layer's predictor for w2 */
    double *X = s->X;
#define U(u) (X + s->at[u])
    memset(X, 0, (size_t)s->size * sizeof(double));
    status = vz_del_predict(del, del->h, del->q1, del->v1, U(U_Q2), U(U_V2));
    if (status != WB_OK)
        return status;
    for (int i = 0; i < n; i++) {
        U(U_MU)[i] = U(U_MH1)[i] = U(U_MH2)[i] = del->mu[i];
        U(U_LM)[i] = U(U_LHM)[i] = -del->mu[i];
        U(U_LP)[i] = U(U_LHP)[i] = 2.0 * del->mu[i] - del->mu_prev[i];
        U(U_QB)[i] = del->qbar[i];
        U(U_Q1M)[i] = del->q1[i] + del->h * del->opt.alpha_minus * del->v1[i];
        U(U_Q2P)[i] = U(U_Q2)[i] + del->h * del->opt.alpha_plus * U(U_V2)[i];
    }
    vec_copy(m, del->nu1, U(U_N1P));
    vec_copy(m, del->nu2, U(U_N2P));
    vec_copy(m, del->theta, U(U_TH));
    row_scales(del);
    status = approximate_matrix(del, s->A);
    if (status != WB_OK)
        return status;
    column_scales(s);
    for (int j = 0; j < s->size; j++)
        s->Y[j] = X[j] / s->column[j];
    wb_newton_options options = {0}; /* the members newton_defaults leaves (1.2, 1.5) */
    host->newton_defaults(host, &options);
    options.tol = del->opt.tol;
    options.max_iter = del->opt.max_iter;
    options.simplified = 1;
    options.settle_update = 1;
    options.struct_size = sizeof options;
    options.residual_scale = s->scale;
    wb_newton_report report = {.struct_size = sizeof report};
    del->evaluation_failed = 0;
    status = host->newton_solve(host, s->newton, scaled_residual, scaled_matrix, del, s->Y,
                                &options, del->stats, &report);
    if (status == WB_ERR_NEWTON && !del->evaluation_failed)
        host->error(host, "vi (approximate): the paper's iteration on Stage 4 did not converge "
                          "(max |residual| %.3e after %d iterations, tolerance %.1e relative "
                          "to each row's terms where they are below 1); try a smaller h or "
                          "solver = 'newton'",
                    report.residual_norm, report.iterations, options.tol);
    if (status != WB_OK) /* else the message of what failed: a layer, the projection */
        return status;
    for (int j = 0; j < s->size; j++)
        X[j] = s->column[j] * s->Y[j];
    vec_copy(n, U(U_Q2), q2);
    vec_copy(n, U(U_V2), v2);
    vec_copy(n, del->mu, del->mu_prev);
    vec_copy(n, U(U_LP), del->mu);
    vec_copy(n, U(U_Q2P), del->qbar);
    vec_copy(m, U(U_N1P), del->nu1);
    vec_copy(m, U(U_N2P), del->nu2);
    vec_copy(m, U(U_TH), del->theta);
#undef U
    return WB_OK;
}
