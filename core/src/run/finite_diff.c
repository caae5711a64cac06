/* Central finite differences of the model view's functions.
 *
 * Each routine differentiates the next lower derivative the view offers
 * (which is analytic when the model provides it), so a fallback Hessian
 * of V differentiates the model's gradient when there is one.  The step
 * grows with the depth of the function differentiated (fd_step): for an
 * analytic one cbrt(eps) max(1, |x|), error about 1e-10 relative; each
 * further level trades some accuracy for robustness to the inner noise. */
#include "run/model_instance.h"
#include "wb_fd.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int max_dim(const wb_model *m)
{
    int n = m->nq;
    if (m->nv > n)
        n = m->nv;
    if (m->n_holonomic > n)
        n = m->n_holonomic;
    if (m->n_nonholonomic > n)
        n = m->n_nonholonomic;
    return n < 1 ? 1 : n;
}

size_t fd_scratch_size(const wb_model *m)
{
    size_t n = (size_t)max_dim(m);
    return 16 * n + 16 * n * n; /* the joint multiplier system is the largest user */
}

/* Scratch layout shared by the routines below. */
typedef struct fd_work {
    double *x;       /* perturbed point, nq        */
    double *plus;    /* F(x + h e_j), up to N      */
    double *minus;   /* F(x - h e_j), up to N      */
    double *matrix;  /* an N x N intermediate      */
    double *matrix2; /* a second N x N             */
    double *tangent; /* a group direction, nv      */
    double *element; /* exp(tangent), nq           */
} fd_work;

static fd_work split(const wb_model *m, double *scratch)
{
    size_t n = (size_t)max_dim(m);
    fd_work w = {scratch, scratch + n, scratch + 2 * n, scratch + 3 * n,
                 scratch + 3 * n + n * n, scratch + 3 * n + 2 * n * n,
                 scratch + 4 * n + 2 * n * n};
    return w;
}

/* J (k x n, row-major) = dF/dx by central differences; F writes k values. */
typedef void (*vector_map)(const wb_model *m, const void *arg, fd_work *w,
                           const double *x, double *out);

static void central_jacobian(const wb_model *m, vector_map F, const void *arg, int inner,
                             fd_work *w, int n, int k, const double *x, double *J)
{
    memcpy(w->x, x, (size_t)n * sizeof(double));
    for (int j = 0; j < n; j++) {
        const double h = wb_fd_step(x[j], inner);
        w->x[j] = x[j] + h;
        const double hp = w->x[j] - x[j];
        F(m, arg, w, w->x, w->plus);
        w->x[j] = x[j] - h;
        const double hm = x[j] - w->x[j];
        F(m, arg, w, w->x, w->minus);
        w->x[j] = x[j];
        for (int i = 0; i < k; i++)
            J[i * n + j] = (w->plus[i] - w->minus[i]) / (hp + hm);
    }
}

/* A caller's function of the configuration, as a vector_map. */
typedef struct user_map {
    void (*F)(void *ctx, const double *q, double *out);
    void *ctx;
} user_map;

static void map_user(const wb_model *m, const void *arg, fd_work *w, const double *x,
                     double *out)
{
    const user_map *call = arg;
    (void)m, (void)w;
    call->F(call->ctx, x, out);
}

/* The same along the group: column j = d/de F(exp(e E_j) q), nv columns
 * (the right-trivialised derivative). */
static void group_central_jacobian(const wb_model *m, vector_map F, const void *arg,
                                   int inner, fd_work *w, int k, const double *q, double *J)
{
    const int n = m->nv;
    const double h = wb_fd_step(1.0, inner);
    for (int j = 0; j < n; j++) {
        memset(w->tangent, 0, (size_t)n * sizeof(double));
        w->tangent[j] = h;
        wb_lie_exp(m, w->tangent, w->element);
        wb_lie_compose(m, w->element, q, w->x);
        F(m, arg, w, w->x, w->plus);
        w->tangent[j] = -h;
        wb_lie_exp(m, w->tangent, w->element);
        wb_lie_compose(m, w->element, q, w->x);
        F(m, arg, w, w->x, w->minus);
        for (int i = 0; i < k; i++)
            J[i * n + j] = (w->plus[i] - w->minus[i]) / (2 * h);
    }
}

/* d/dq in the model's tangent coordinates: nq columns on a vector space,
 * nv right-trivialised ones on a group. */
static void configuration_jacobian(const wb_model *m, vector_map F, const void *arg, int inner,
                                   fd_work *w, int k, const double *q, double *J)
{
    if (m->capabilities & WB_CAP_LIE_GROUP)
        group_central_jacobian(m, F, arg, inner, w, k, q, J);
    else
        central_jacobian(m, F, arg, inner, w, m->nq, k, q, J);
}

void fd_configuration_jacobian(const wb_model *m, int inner, double *scratch,
                               void (*F)(void *ctx, const double *q, double *out), void *ctx,
                               int k, const double *q, double *J)
{
    fd_work w = split(m, scratch);
    user_map call = {F, ctx};
    configuration_jacobian(m, map_user, &call, inner, &w, k, q, J);
}

/* ---- mechanical ------------------------------------------------------------ */

void fd_potential_gradient(const wb_model *m, double *scratch, const double *q, double *g)
{
    fd_work w = split(m, scratch);
    memcpy(w.x, q, (size_t)m->nq * sizeof(double));
    for (int j = 0; j < m->nq; j++) {
        const double h = wb_fd_step(q[j], 0);
        w.x[j] = q[j] + h;
        const double hp = w.x[j] - q[j];
        const double vp = wb_potential(m, w.x);
        w.x[j] = q[j] - h;
        const double hm = q[j] - w.x[j];
        const double vm = wb_potential(m, w.x);
        w.x[j] = q[j];
        g[j] = (vp - vm) / (hp + hm);
    }
}

static void map_gradient(const wb_model *m, const void *arg, fd_work *w,
                         const double *x, double *out)
{
    (void)arg, (void)w;
    wb_potential_gradient(m, x, out);
}

void fd_potential_hessian(const wb_model *m, int inner, double *scratch, const double *q,
                          double *H)
{
    fd_work w = split(m, scratch);
    central_jacobian(m, map_gradient, NULL, inner, &w, m->nq, m->nq, q, H);
    for (int i = 0; i < m->nq; i++) /* symmetrise: the exact Hessian is */
        for (int j = 0; j < i; j++) {
            double s = 0.5 * (H[i * m->nq + j] + H[j * m->nq + i]);
            H[i * m->nq + j] = H[j * m->nq + i] = s;
        }
}

static void map_kinetic(const wb_model *m, const void *arg, fd_work *w,
                        const double *x, double *out)
{
    const double *p = arg;
    wb_mass_solve(m, x, p, w->matrix);
    double t = 0;
    for (int i = 0; i < m->nq; i++)
        t += p[i] * w->matrix[i];
    out[0] = 0.5 * t;
}

void fd_kinetic_gradient(const wb_model *m, double *scratch, const double *q,
                         const double *p, double *g)
{
    fd_work w = split(m, scratch);
    central_jacobian(m, map_kinetic, p, 0, &w, m->nq, 1, q, g);
}

/* ---- holonomic --------------------------------------------------------------- */

static void map_constraints(const wb_model *m, const void *arg, fd_work *w,
                            const double *x, double *out)
{
    (void)arg, (void)w;
    wb_constraints(m, x, out);
}

void fd_constraint_jacobian(const wb_model *m, double *scratch, const double *q, double *G)
{
    fd_work w = split(m, scratch);
    central_jacobian(m, map_constraints, NULL, 0, &w, m->nq, m->n_holonomic, q, G);
}

/* out = G(x)^T mu */
static void map_jacobian_transpose(const wb_model *m, const void *arg, fd_work *w,
                                   const double *x, double *out)
{
    const double *mu = arg;
    wb_constraint_jacobian(m, x, w->matrix);
    for (int j = 0; j < m->nq; j++) {
        double s = 0;
        for (int k = 0; k < m->n_holonomic; k++)
            s += mu[k] * w->matrix[k * m->nq + j];
        out[j] = s;
    }
}

void fd_constraint_hessian_contract(const wb_model *m, int inner, double *scratch,
                                    const double *q, const double *mu, double *T)
{
    fd_work w = split(m, scratch);
    central_jacobian(m, map_jacobian_transpose, mu, inner, &w, m->nq, m->nq, q, T);
}

/* out = G(x) w */
static void map_jacobian_times(const wb_model *m, const void *arg, fd_work *w,
                               const double *x, double *out)
{
    const double *v = arg;
    wb_constraint_jacobian(m, x, w->matrix);
    for (int k = 0; k < m->n_holonomic; k++) {
        double s = 0;
        for (int j = 0; j < m->nq; j++)
            s += w->matrix[k * m->nq + j] * v[j];
        out[k] = s;
    }
}

void fd_constraint_hessian_vector(const wb_model *m, int inner, double *scratch,
                                  const double *q, const double *v, double *B)
{
    fd_work w = split(m, scratch);
    central_jacobian(m, map_jacobian_times, v, inner, &w, m->nq, m->n_holonomic, q, B);
}

typedef struct mu_w {
    const double *mu, *w;
} mu_w;

/* out = T(x; mu) w */
static void map_contract_times(const wb_model *m, const void *arg, fd_work *w,
                               const double *x, double *out)
{
    const mu_w *a = arg;
    wb_constraint_hessian_contract(m, x, a->mu, w->matrix);
    for (int i = 0; i < m->nq; i++) {
        double s = 0;
        for (int j = 0; j < m->nq; j++)
            s += w->matrix[i * m->nq + j] * a->w[j];
        out[i] = s;
    }
}

void fd_constraint_third_contract(const wb_model *m, int inner, double *scratch,
                                  const double *q, const double *mu, const double *v, double *D)
{
    fd_work w = split(m, scratch);
    mu_w arg = {mu, v};
    central_jacobian(m, map_contract_times, &arg, inner, &w, m->nq, m->nq, q, D);
}

/* ---- nonholonomic --------------------------------------------------------- */

typedef struct fixed_point {
    const double *q, *v;
    const double *lam;
} fixed_point;

static void map_phi_of_v(const wb_model *m, const void *arg, fd_work *w,
                         const double *x, double *out)
{
    const fixed_point *a = arg;
    (void)w;
    wb_nh_constraints(m, a->q, x, out);
}

static void map_phi_of_q(const wb_model *m, const void *arg, fd_work *w,
                         const double *x, double *out)
{
    const fixed_point *a = arg;
    (void)w;
    wb_nh_constraints(m, x, a->v, out);
}

void fd_nh_jacobian_v(const wb_model *m, double *scratch, const double *q,
                      const double *v, double *A)
{
    fd_work w = split(m, scratch);
    fixed_point arg = {q, v, NULL};
    central_jacobian(m, map_phi_of_v, &arg, 0, &w, m->nv, m->n_nonholonomic, v, A);
}

void fd_nh_jacobian_q(const wb_model *m, double *scratch, const double *q,
                      const double *v, double *B)
{
    fd_work w = split(m, scratch);
    fixed_point arg = {q, v, NULL};
    configuration_jacobian(m, map_phi_of_q, &arg, 0, &w, m->n_nonholonomic, q, B);
}

/* out = D_v Phi(q, v)^T lam, as a function of v (vv) or of q (qv). */
static void transpose_times(const wb_model *m, const double *A, const double *lam,
                            double *out)
{
    for (int i = 0; i < m->nv; i++) {
        double s = 0;
        for (int a = 0; a < m->n_nonholonomic; a++)
            s += lam[a] * A[a * m->nv + i];
        out[i] = s;
    }
}

static void map_jv_of_v(const wb_model *m, const void *arg, fd_work *w,
                        const double *x, double *out)
{
    const fixed_point *a = arg;
    wb_nh_jacobian_v(m, a->q, x, w->matrix);
    transpose_times(m, w->matrix, a->lam, out);
}

static void map_jv_of_q(const wb_model *m, const void *arg, fd_work *w,
                        const double *x, double *out)
{
    const fixed_point *a = arg;
    wb_nh_jacobian_v(m, x, a->v, w->matrix);
    transpose_times(m, w->matrix, a->lam, out);
}

void fd_nh_hessian_vv_contract(const wb_model *m, int inner, double *scratch, const double *q,
                               const double *v, const double *lam, double *out)
{
    fd_work w = split(m, scratch);
    fixed_point arg = {q, v, lam};
    central_jacobian(m, map_jv_of_v, &arg, inner, &w, m->nv, m->nv, v, out);
}

void fd_nh_hessian_qv_contract(const wb_model *m, int inner, double *scratch, const double *q,
                               const double *v, const double *lam, double *out)
{
    fd_work w = split(m, scratch);
    fixed_point arg = {q, v, lam};
    configuration_jacobian(m, map_jv_of_q, &arg, inner, &w, m->nv, q, out);
}
