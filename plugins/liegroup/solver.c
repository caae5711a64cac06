/* The step shared by every method of the family: the starting guess (the
 * carried state), the nonlinear solve z = Phi(z) by fixed-point iteration
 * or Newton through the host, and the method callbacks. */
#include "algebra.h"
#include "liegroup.h"

#include "wb_iteration.h"
#include "wb_vec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

void liegroup_Ad_star_inverse(liegroup *lg, const double *g, const double *mu, double *out)
{
    wb_lie_inverse(lg->model, g, lg->g2);
    wb_lie_Ad_star(lg->model, lg->g2, mu, out);
}

int liegroup_strictly_lower(const wb_tableau *t)
{
    return mat_strictly_lower(t->s, t->a);
}

/* explicit rkmk runs its stages in order and solves nothing */
static int sequential(const liegroup_scheme *scheme, const wb_tableau *tableau)
{
    return scheme == &liegroup_rkmk_scheme && liegroup_strictly_lower(tableau);
}

int liegroup_guess_blocks(const liegroup_scheme *scheme, const wb_tableau *tableau)
{
    return sequential(scheme, tableau) ? 0 : scheme->n_blocks * tableau->s;
}

/* ---- set-up ------------------------------------------------------------------------------ */

void liegroup_destroy(void *inst)
{
    liegroup *lg = inst;
    if (!lg)
        return;
    if (lg->newton)
        lg->host->newton_destroy(lg->host, lg->newton);
    free(lg->z);
    free(lg);
}

int liegroup_create(const wb_host *host, const wb_model *model, const liegroup_config *config,
                    void **inst)
{
    if (!WB_HAS_FIELD(model, wb_model, lie_vector_field)) {
        host->error(host, "liegroup: needs a workbench host of ABI 1.1 or later");
        return WB_ERR_INVALID;
    }
    const wb_tableau *t = config->tableau;
    liegroup *lg = calloc(1, sizeof *lg);
    if (!lg) {
        host->error(host, "liegroup: out of memory");
        return WB_ERR_NOMEM;
    }
    const int s = t->s, nq = model->nq, nv = model->nv;
    lg->host = host, lg->model = model, lg->scheme = config->scheme;
    lg->nq = nq, lg->nv = nv, lg->s = s;
    lg->a = t->a, lg->b = t->b, lg->c = t->c;
    lg->cutoff = config->cutoff;
    lg->iteration = config->iteration, lg->tol = config->tol;
    lg->max_iter = config->max_iter, lg->warm_start = config->warm_start;
    lg->carries_guess = config->carries_guess;
    lg->sequential = sequential(config->scheme, t);
    lg->n_unknowns = liegroup_guess_blocks(config->scheme, t) * nv;

    const size_t N = (size_t)lg->n_unknowns, S = (size_t)s, Nq = (size_t)nq, Nv = (size_t)nv;
    const size_t total = 3 * N + 1                     /* z, z_next, guess    */
                         + 2 * Nq + Nv                 /* last_q, last_p      */
                         + 2 * Nv                      /* xi0, n0             */
                         + 2 * S * Nq                  /* E, Q                */
                         + S * (S + 1) * Nq            /* partial             */
                         + (S + 1) * Nq                /* node                */
                         + 5 * S * Nv                  /* xi, f2, D, W, F     */
                         + 6 * Nv + 2 * Nq             /* Y .. t3, g1, g2     */
                         + liegroup_algebra_work(lg->cutoff, nv);
    double *block = calloc(total, sizeof(double));
    if (!block) {
        free(lg);
        host->error(host, "liegroup: out of memory (%d stages, dimension %d)", s, nv);
        return WB_ERR_NOMEM;
    }
    double *p = block;
#define CARVE(field, count) (lg->field = p, p += (count))
    CARVE(z, N + 1); /* one more: never a zero-length block */
    CARVE(z_next, N);
    CARVE(guess, N);
    CARVE(last_q, Nq);
    CARVE(last_p, Nv);
    CARVE(xi0, Nv);
    CARVE(n0, Nv);
    CARVE(E, S * Nq);
    CARVE(Q, S * Nq);
    CARVE(partial, S * (S + 1) * Nq);
    CARVE(node, (S + 1) * Nq);
    CARVE(xi, S * Nv);
    CARVE(f2, S * Nv);
    CARVE(D, S * Nv);
    CARVE(W, S * Nv);
    CARVE(F, S * Nv);
    CARVE(Y, Nv);
    CARVE(S, Nv);
    CARVE(Lam, Nv);
    CARVE(t1, Nv);
    CARVE(t2, Nv);
    CARVE(t3, Nv);
    CARVE(g1, Nq);
    CARVE(g2, Nq);
    CARVE(algebra, liegroup_algebra_work(lg->cutoff, nv));
#undef CARVE
    if (lg->n_unknowns > 0 && lg->iteration != ITERATE_FIXED_POINT) {
        lg->newton = host->newton_create(host, lg->n_unknowns);
        if (!lg->newton) {
            liegroup_destroy(lg);
            return WB_ERR_NOMEM;
        }
    }
    *inst = lg;
    return WB_OK;
}

int liegroup_start(void *inst, double t, double h, const double *q, const double *p,
                   const double *aux)
{
    liegroup *lg = inst;
    (void)t, (void)h;
    lg->have_guess = 0;
    if (!aux || !lg->carries_guess)
        return WB_OK;
    /* aux: guess_valid (1 value), then guess (n_unknowns values) */
    if (aux[0] != 0.0 && aux[0] != 1.0) {
        lg->host->error(lg->host, "%s: the carried 'guess_valid' is %g, expected 0 or 1",
                        lg->scheme->name, aux[0]);
        return WB_ERR_INVALID;
    }
    if (aux[0] == 1.0 && lg->n_unknowns > 0) {
        vec_copy(lg->n_unknowns, aux + 1, lg->guess);
        vec_copy(lg->nq, q, lg->last_q);
        vec_copy(lg->nv, p, lg->last_p);
        lg->have_guess = 1;
    }
    return WB_OK;
}

int liegroup_reset(void *inst, double t, const double *q, const double *p)
{
    return liegroup_start(inst, t, 0.0, q, p, NULL);
}

void liegroup_aux_values(const void *inst, double *out)
{
    const liegroup *lg = inst;
    out[0] = lg->have_guess ? 1.0 : 0.0;
    for (int k = 0; k < lg->n_unknowns; k++)
        out[1 + k] = lg->have_guess ? lg->guess[k] : 0.0;
}

/* ---- the starting guess --------------------------------------------------------------- */

/* The value a block's stored guess is relative to (NULL: none). */
static const double *shift_of(const liegroup *lg, int kind)
{
    switch (kind) {
    case BLOCK_MOMENTUM: return lg->p0;
    case BLOCK_VELOCITY: return lg->xi0;
    }
    return NULL;
}

static void cold_guess(liegroup *lg, double *z)
{
    const int nv = lg->nv;
    for (int k = 0; k < lg->scheme->n_blocks; k++)
        for (int i = 0; i < lg->s; i++) {
            double *x = liegroup_block(lg, z, k, i);
            switch (lg->scheme->blocks[k]) {
            case BLOCK_ALGEBRA:
                for (int j = 0; j < nv; j++)
                    x[j] = lg->h * lg->c[i] * lg->xi0[j];
                break;
            case BLOCK_MOMENTUM: vec_copy(nv, lg->p0, x); break;
            case BLOCK_VELOCITY: vec_copy(nv, lg->xi0, x); break;
            case BLOCK_MULTIPLIER:
                for (int j = 0; j < nv; j++)
                    x[j] = -lg->h * lg->b[i] * lg->n0[j];
                break;
            }
        }
}

/* stored <-> z, shifting the blocks relative to the step's start */
static void shift_guess(liegroup *lg, const double *from, double *to, double sign)
{
    const int nv = lg->nv;
    for (int k = 0; k < lg->scheme->n_blocks; k++) {
        const double *shift = shift_of(lg, lg->scheme->blocks[k]);
        for (int i = 0; i < lg->s; i++) {
            const double *x = liegroup_cblock(lg, from, k, i);
            double *y = liegroup_block(lg, to, k, i);
            for (int j = 0; j < nv; j++)
                y[j] = shift ? x[j] + sign * shift[j] : x[j];
        }
    }
}

/* ---- the solve ------------------------------------------------------------------------ */

static int fixed_point(liegroup *lg, double t)
{
    const int N = lg->n_unknowns;
    /* the increments of the last two iterations: a Jacobi sweep over two
     * coupled blocks (VCG's xi and M) moves them in turn, so the increment
     * repeats once on its way down and "stopped decreasing" compares with
     * the one two iterations back */
    double previous = INFINITY, older = INFINITY, norm = 0.0;
    int rising = 0;
    for (int it = 0; it < lg->max_iter; it++) {
        int status = lg->scheme->map(lg, lg->z, lg->z_next);
        lg->stats->newton_iterations++;
        lg->stats->residual_evals++;
        if (status != WB_OK)
            return status;
        norm = vec_max_abs_diff(N, lg->z, lg->z_next);
        const double scale = vec_max_abs(N, lg->z_next);
        vec_copy(N, lg->z_next, lg->z);
        if (!isfinite(norm) || !isfinite(scale)) {
            lg->host->error(lg->host, "%s: the fixed-point iteration produced a non-finite "
                            "value at t = %.17g after %d iterations (h = %g too large?)",
                            lg->scheme->name, t, it + 1, lg->h);
            return WB_ERR_NONFINITE;
        }
        if (wb_iteration_settled(it > 0 ? it - 1 : 0, norm, older, lg->tol, scale))
            return WB_OK;
        /* a contraction can oscillate on its way down, but not rise for long */
        rising = norm > previous ? rising + 1 : 0;
        if (rising >= 25 && norm > 1e-6 * (1.0 + scale)) {
            lg->host->error(lg->host, "%s: the fixed-point iteration diverges at t = %.17g "
                            "(h = %g): the increment rose for 25 sweeps to %.3e after %d; "
                            "reduce h or use iteration = \"newton\"", lg->scheme->name, t,
                            lg->h, norm, it + 1);
            return WB_ERR_NEWTON;
        }
        older = previous, previous = norm;
    }
    lg->host->error(lg->host, "%s: the fixed-point iteration did not converge at t = %.17g "
                    "(h = %g): increment %.3e after %d iterations (tol %g%s); reduce h, raise "
                    "max_iter or use iteration = \"newton\"", lg->scheme->name, t, lg->h, norm,
                    lg->max_iter, lg->tol, lg->tol == 0 ? ": machine precision" : "");
    return WB_ERR_NEWTON;
}

/* Newton's residual z - Phi(z) */
static int residual(void *user, const double *z, double *r)
{
    liegroup *lg = user;
    int status = lg->scheme->map(lg, z, lg->z_next);
    if (status != WB_OK)
        return status;
    for (int k = 0; k < lg->n_unknowns; k++)
        r[k] = z[k] - lg->z_next[k];
    return WB_OK;
}

static int newton(liegroup *lg, double t)
{
    wb_newton_options opt;
    lg->host->newton_defaults(lg->host, &opt);
    opt.max_iter = lg->max_iter;
    opt.simplified = lg->iteration == ITERATE_SIMPLIFIED;
    if (lg->tol > 0) {
        opt.tol = lg->tol;
        opt.settle_update = 1;
    } else {
        /* to machine precision: until the update is at round-off */
        opt.tol = 0.0;
        opt.step_tol = 64 * DBL_EPSILON;
    }
    int status = lg->host->newton_solve(lg->host, lg->newton, residual, NULL, lg, lg->z, &opt,
                                        lg->stats, NULL);
    if (status != WB_OK) {
        lg->host->error(lg->host, "%s: Newton's method failed at t = %.17g (h = %g); reduce h "
                        "or raise max_iter", lg->scheme->name, t, lg->h);
        return status;
    }
    /* the stage values finish() uses, at the solution (not at a difference point) */
    status = lg->scheme->map(lg, lg->z, lg->z_next);
    lg->stats->residual_evals++;
    return status;
}

int liegroup_step(void *inst, double t, double h, const double *q0, const double *p0,
                  double *q1, double *p1, wb_step_stats *stats)
{
    liegroup *lg = inst;
    lg->h = h, lg->q0 = q0, lg->p0 = p0, lg->stats = stats;
    int status;
    if (lg->sequential) {
        status = lg->scheme->map(lg, NULL, NULL);
        if (status != WB_OK)
            return status;
        lg->scheme->finish(lg, q1, p1);
        return vec_all_finite(lg->nq, q1) && vec_all_finite(lg->nv, p1) ? WB_OK
                                                                          : WB_ERR_NONFINITE;
    }
    liegroup_field(lg, q0, p0, lg->xi0, lg->n0);
    if (lg->warm_start && lg->have_guess && vec_equal(lg->nq, q0, lg->last_q) &&
        vec_equal(lg->nv, p0, lg->last_p))
        shift_guess(lg, lg->guess, lg->z, 1.0);
    else
        cold_guess(lg, lg->z);
    status = lg->iteration == ITERATE_FIXED_POINT ? fixed_point(lg, t) : newton(lg, t);
    if (status != WB_OK)
        return status;
    lg->scheme->finish(lg, q1, p1);
    if (!vec_all_finite(lg->nq, q1) || !vec_all_finite(lg->nv, p1)) {
        lg->host->error(lg->host, "%s: non-finite state at t = %.17g", lg->scheme->name, t + h);
        return WB_ERR_NONFINITE;
    }
    if (lg->warm_start) {
        shift_guess(lg, lg->z, lg->guess, -1.0);
        vec_copy(lg->nq, q1, lg->last_q);
        vec_copy(lg->nv, p1, lg->last_p);
        lg->have_guess = 1;
    }
    return WB_OK;
}
