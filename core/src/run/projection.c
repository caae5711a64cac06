/* The nearest consistent state: positions onto g(q) = 0, then momenta
 * onto the velocity constraints G(q) v = 0 and Phi(q, v) = 0. */
#include "host/host.h"
#include "run/projection.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- positions: min 1/2 |q - q0|^2_M(q0) subject to g(q) = 0 ----------------------
 * Unknowns x = (q, lambda): M0 (q - q0) + G(q)^T lambda = 0, g(q) = 0, with
 * the analytic Jacobian [[M0 + T(q; lambda), G^T], [G, 0]]. */

typedef struct position_problem {
    const wb_model *m;
    const double *q0;
    double *M0, *G, *T;
} position_problem;

static int position_residual(void *user, const double *x, double *r)
{
    const position_problem *pp = user;
    const wb_model *m = pp->m;
    const int n = m->nq, c = m->n_holonomic;
    const double *q = x, *lambda = x + n;
    wb_constraint_jacobian(m, q, pp->G);
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += pp->M0[i * n + j] * (q[j] - pp->q0[j]);
        for (int k = 0; k < c; k++)
            s += pp->G[k * n + i] * lambda[k];
        r[i] = s;
    }
    wb_constraints(m, q, r + n);
    return vec_all_finite(n + c, r) ? WB_OK : WB_ERR_NONFINITE;
}

static int position_jacobian(void *user, const double *x, double *J)
{
    const position_problem *pp = user;
    const wb_model *m = pp->m;
    const int n = m->nq, c = m->n_holonomic, N = n + c;
    wb_constraint_jacobian(m, x, pp->G);
    wb_constraint_hessian_contract(m, x, x + n, pp->T);
    memset(J, 0, (size_t)N * N * sizeof(double));
    mat_block_add(J, N, 0, 0, n, n, pp->M0, 1.0);
    mat_block_add(J, N, 0, 0, n, n, pp->T, 1.0);
    mat_block_add_t(J, N, 0, n, n, c, pp->G, 1.0);
    mat_block_add(J, N, n, 0, c, n, pp->G, 1.0);
    return WB_OK;
}

static int solve(int n, wb_residual_fn residual, wb_jacobian_fn jacobian, void *user,
                 double *x, double scale, const char *what)
{
    const wb_host *host = host_services();
    wb_newton *ws = newton_create(host, n);
    if (!ws) {
        host_error("project: out of memory");
        return WB_ERR_NOMEM;
    }
    wb_newton_options opt;
    newton_defaults(host, &opt);
    opt.tol = 1e-14 * fmax(1.0, scale);
    opt.step_tol = 4 * DBL_EPSILON;
    opt.settle_update = 1;
    int status = newton_solve(host, ws, residual, jacobian, user, x, &opt, NULL, NULL);
    newton_destroy(host, ws);
    if (status != WB_OK)
        host_error_prefix("project: %s: ", what);
    return status;
}

static int project_positions(const wb_model *m, const double *q0, double *q, double *work)
{
    const int n = m->nq, c = m->n_holonomic;
    position_problem pp = {m, q0, work, work + n * n, work + n * n + c * n};
    double *x = pp.T + n * n;
    wb_mass(m, q0, pp.M0);
    vec_copy(n, q0, x);
    memset(x + n, 0, (size_t)c * sizeof(double));
    int status = solve(n + c, position_residual, position_jacobian, &pp, x,
                       vec_max_abs(n, q0), "positions onto g(q) = 0");
    vec_copy(n, x, q);
    return status;
}

/* ---- momenta: p = p0 - C0^T nu with c(q, v(p)) = 0 ---------------------------------
 * C0 = D_v c at the given velocity: the projection is orthogonal in the
 * metric of the velocity map for constraints linear or affine in v, and
 * lands exactly on the constraints in any case. */

typedef struct momentum_problem {
    const wb_model *m;
    const double *q, *p0;
    double *C0, *p, *v;
} momentum_problem;

static int rows(const wb_model *m) { return m->n_holonomic + m->n_nonholonomic; }

static void momentum_at(const momentum_problem *mp, const double *nu)
{
    const int n = mp->m->nv;
    vec_copy(n, mp->p0, mp->p);
    for (int r = 0; r < rows(mp->m); r++)
        vec_axpy(n, -nu[r], mp->C0 + (size_t)r * n, mp->p);
    wb_velocity(mp->m, mp->q, mp->p, mp->v);
}

static int momentum_residual(void *user, const double *nu, double *r)
{
    const momentum_problem *mp = user;
    const wb_model *m = mp->m;
    const int n = m->nv, mh = m->n_holonomic;
    momentum_at(mp, nu);
    if (mh > 0) {
        double *gv = r;
        for (int k = 0; k < mh; k++) /* G(q) v, with G already in C0's first rows */
            gv[k] = vec_dot(n, mp->C0 + (size_t)k * n, mp->v);
    }
    if (m->n_nonholonomic > 0)
        wb_nh_constraints(m, mp->q, mp->v, r + mh);
    return vec_all_finite(rows(m), r) ? WB_OK : WB_ERR_NONFINITE;
}

static int project_momenta(const wb_model *m, const double *q, const double *p0, double *p,
                           double *work)
{
    const int n = m->nv, c = rows(m), mh = m->n_holonomic;
    momentum_problem mp = {m, q, p0, work, p, work + (size_t)c * n};
    double *nu = mp.v + n;
    if (mh > 0)
        wb_constraint_jacobian(m, q, mp.C0);
    if (m->n_nonholonomic > 0) {
        wb_velocity(m, q, p0, mp.v);
        wb_nh_jacobian_v(m, q, mp.v, mp.C0 + (size_t)mh * n);
    }
    memset(nu, 0, (size_t)c * sizeof(double));
    int status = solve(c, momentum_residual, NULL, &mp, nu, vec_max_abs(n, p0),
                       "momenta onto the velocity constraints");
    momentum_at(&mp, nu);
    return status;
}

int model_project(model_instance *mi, const double *q0, const double *p0, double *q,
                  double *p)
{
    const wb_model *m = model_instance_view(mi);
    const int N = m->nq + m->nv + rows(m) + 1;
    double *work = calloc((size_t)(4 * N * N + 4 * N), sizeof(double));
    if (!work) {
        host_error("project: out of memory");
        return WB_ERR_NOMEM;
    }
    int status = WB_OK;
    vec_copy(m->nq, q0, q);
    vec_copy(m->nv, p0, p);
    if (m->n_holonomic > 0)
        status = project_positions(m, q0, q, work);
    if (status == WB_OK && rows(m) > 0)
        status = project_momenta(m, q, p0, p, work);
    free(work);
    return status;
}
