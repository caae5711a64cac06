/* The `nonholonomic` family: high-order methods for velocity constraints
 * (Martin de Diego and Sato Martin de Almagro, "High-order geometric
 * methods for nonholonomic mechanical systems", seed 001).
 *
 * Method `lobatto`: the nonholonomic Lobatto IIIA-IIIB partitioned
 * Runge-Kutta method, eq. (14) of the paper on a vector space and its
 * RKMK form of Appendix F on a Lie group (with the ABI's right
 * trivialisation, see nonholonomic.h), for s = 2..10 stages:
 *
 *   q1 = q0 + h sum b_i V^i          p1 = p0 + h sum b_i W^i
 *   Q^i = q0 + h sum_j a_ij V^j      P^i = p0 + h sum_j ah_ij W^j   (IIIB)
 *   W^i = -grad V(Q^i) - A(Q^i, V^i)^T nu^i      P^i = M V^i
 *   p^i = p0 + h sum_j a_ij W^j  (IIIA)          Psi(Q^i, p^i) = 0, i = 2..s
 *
 * The constraint force acts at every stage; the constraint is imposed on
 * the momenta built with the IIIA coefficients.  Stage 1 is the step's
 * start, where Psi = 0 already holds, so its multiplier nu^1 cannot be
 * solved for: it is the previous step's nu^s, carried as state (aux
 * "nu").  A wrong starting multiplier is never damped (|R_A(inf)| = 1):
 * start() computes the consistent one (the host's, from d/dt Phi = 0), and
 * refuses a given one that is far from it.  Stage s is the step's end, so
 * Psi(q1, p1) = 0 holds at every node to Newton's tolerance.
 *
 * Order 2s - 2 in (q, p); the multiplier has order s (s even) or s - 1
 * (s odd) (Cor. 5.2.1).  Newton on (V^1..V^s, nu^2..nu^s) with the
 * analytic Jacobian (system.c), the constraint rows scaled by 1/h so that
 * the multiplier block is O(1).
 *
 * When Newton stops: each residual row within tol of its terms
 * (lobatto_row_scales) is not enough, since a component of the step's
 * result can be a small difference of large terms: vertical_disc's turning
 * rate w = mu0 / Iz, its momentum mu0 made of terms T = h^2 |v| (|t| +
 * m |v w|) through dcay* and Ad* of the increment, moved by tol T / Iz a
 * step when the rows alone decide (2.9e-3 after 80 steps at Iz = 1e-12,
 * h = 0.01, s = 3).  So the unknowns are delivered too
 * (wb_newton_options.unknown_scale): the correction the last residual asks
 * for must move the step's result velocity vel(q1, p1) by at most tol of
 * the stage velocities' size V once applied (system.c: result_scales), or
 * the corrections must have stopped shrinking at the rows' round-off.  The
 * result then carries Newton's tol V and the round-off of the terms it is
 * made of, eps T / Iz a step for w: measured over 80 steps up to 0.62 of
 * n (tol V + eps T / Iz) at Iz = 1e-12 and m = 1e12, s = 2, 3, h = 1e-2 ..
 * 1e-5 (2.3e-8 and 2.8e-7 at Iz = 1e-12, h = 0.01, s = 2, 3, as with
 * tol = 1e-16; tests/nonholonomic/disc_turning_rate.lua).  That floor is
 * the discrete equations' own: w = mu0 / Iz cannot be computed closer from
 * terms of size T.  Where the result has no such cancellation the rule
 * costs nothing: at the five models' defaults it takes no more residuals
 * than the row test (the last correction is applied without one); at
 * Iz = 1e-12 it iterates to the floor (10 residuals a step instead of 6.6
 * at h = 1e-3, s = 3).
 *
 * Option `constraint` gives the variants section 5.1 rejects, for
 * ablation: "iiib" imposes the constraint with the IIIB stage momenta,
 * Psi(Q^i, P^i) = Phi(Q^i, V^i) = 0 at i = 1..s-1, and Psi(q1, p1) = 0 at
 * the node (all s multipliers solved for); "direct" imposes
 * Phi(Q^i, V^i) = 0 at i = 1..s-1 with no force at stage s, the discrete
 * velocities on the constraint and the momenta not (for s = 2 a discrete
 * Lagrange-d'Alembert scheme, A(q_k)(q_k+1 - q_k) = 0).  Both lose order
 * (measured on the particle: iiib s - 1 in (q, p); direct s - 1 in q and 1
 * in p, with |Phi| at the nodes O(h)).
 *
 * Step size on a group: with tau = cay and s = 2 the stage equations have a
 * fold: for the isotropic free rigid body they lose the solution that tends
 * to the flow at h |xi| = 0.754 (|xi| the rotation rate; the scalar equation
 * theta = u beta (1 - x beta u / 4), beta = 4 / (4 + x^2),
 * x = u (1 + beta^2) / 2, has its maximum there), and near it Newton fails
 * or finds a far branch.  Keep h |xi| below about 0.5 with cay at s = 2, or
 * use s >= 3 (no fold seen up to h |xi| = 2) or tau = exp. */
#include "nonholonomic.h"

#include "wb_integrator_plugin.h"
#include "wb_mass.h"
#include "wb_vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STAGES 10

enum {
    OPT_S,
    OPT_CONSTRAINT,
    OPT_RETRACTION,
    OPT_TOL,
    OPT_MAX_ITER,
    OPT_ITERATION,
    OPT_STEP_TOL,
    OPT_NU_CHECK,
    OPT_CHECK_JACOBIAN
};

static const wb_option_spec options[] = {
    {"s", WB_OPT_INTEGER, 3, 2, MAX_STAGES, NULL, NULL,
     "stages of the Lobatto IIIA-IIIB pair: order 2s-2 (the paper's Lobatto-s)"},
    {"constraint", WB_OPT_CHOICE, 0, 0, 0, "iiia", "iiia|iiib|direct",
     "where the velocity constraint is imposed: iiia = Psi(Q^i, p^i) with the IIIA momenta "
     "(eq. 14, the method); iiib = Psi with the IIIB stage momenta P^i and at the node; "
     "direct = Phi(Q^i, V^i) on the stage velocities (the two variants section 5.1 rejects)"},
    {"retraction", WB_OPT_CHOICE, 0, 0, 0, "cay", "cay|exp",
     "Lie-group models: the map tau from the algebra to the group (Cayley or exponential)"},
    {"tol", WB_OPT_NUMBER, 1e-12, 1e-16, 1e-3, NULL, NULL,
     "Newton tolerance: on the residuals (momenta, Psi/h) relative to their terms, and on "
     "the unknowns: the last correction moves the step's velocity by at most tol of its "
     "size, or the corrections have stopped shrinking at round-off"},
    {"max_iter", WB_OPT_INTEGER, 50, 1, 1000, NULL, NULL, "Newton iterations per step"},
    {"iteration", WB_OPT_CHOICE, 0, 0, 0, "auto", "auto|newton|simplified",
     "auto: simplified Newton (the step's first Jacobian), and full Newton from the same "
     "guess if that fails; newton: full Newton; simplified: simplified only"},
    {"step_tol", WB_OPT_NUMBER, 0, 0, 1e-3, NULL, NULL,
     "also converged when the Newton update is below step_tol (1 + |x|); 0: the residual "
     "test alone"},
    {"nu_check", WB_OPT_NUMBER, 0.1, 0, 1e300, NULL, NULL,
     "a starting multiplier given in aux0 must lie within nu_check (1 + |nu|) of the "
     "consistent one (an error in it is never damped); 0 accepts any"},
    {"check_jacobian", WB_OPT_BOOLEAN, 0, 0, 1, NULL, NULL,
     "at every step compare the analytic Jacobian with central differences of the "
     "residual and fail the step when they differ by more than 1e-6 (diagnostic, slow)"},
};

static const char *const requires[] = {WB_EXT_MECHANICAL "|" WB_EXT_LIE_LAGRANGIAN, NULL};

static const wb_aux_spec aux[] = {
    {.name = "nu", .size_kind = WB_AUX_NONHOLONOMIC, .time = WB_AUX_AT_NODE,
     .doc = "the nonholonomic multiplier carried to the next step: nu^s (constraint = "
            "direct: nu^(s-1), the last it solves for); the host's sign, p' = ... - A^T nu, "
            "the paper's lambda is -nu"},
};

/* ---- instance ------------------------------------------------------------------- */

static void destroy(void *inst)
{
    lobatto *L = inst;
    if (!L)
        return;
    if (L->newton)
        L->host->newton_destroy(L->host, L->newton);
    free(L->st);
    free(L->own);
    free(L->ipiv);
    free(L->x);
    free(L);
}

/* Carve the doubles of one block into the arrays. */
static double *carve(double **cursor, size_t count)
{
    double *p = *cursor;
    *cursor += count;
    return p;
}

static int allocate(lobatto *L)
{
    const size_t d = (size_t)L->d, k = (size_t)L->k, nq = (size_t)L->nq, s = (size_t)L->s;
    const size_t N = (size_t)L->N;
    const size_t per_stage = 8 * d + 2 * nq + 4 * d * d + 2 * d * d * d + 5 * d * d + 2 * k * d +
                             10 * d * N;
    const size_t global = 3 * d * d + 4 * d + 2 * d * d + 2 * k * d + k + 6 * d * N +
                          3 * d * d + 5 * d + 2 * d + 6 * d + d + 60 + 3 * k + 2 * N + 3 * N +
                          N * N + d * d * d + 2 * N + s * nq + 3 * nq + 2 * d + k;
    L->st = calloc(s, sizeof *L->st);
    L->own = calloc(2 * s, sizeof *L->own);
    L->ipiv = calloc(d + 1, sizeof(int));
    L->x = calloc(per_stage * s + global, sizeof(double));
    if (!L->st || !L->own || !L->ipiv || !L->x)
        return WB_ERR_NOMEM;
    L->last = L->own + s;
    double *c = L->x;
    L->x = carve(&c, N); /* x first: destroy() frees the block through it */
    L->guess = carve(&c, N);
    L->fd_x = carve(&c, N);
    L->fd_r1 = carve(&c, N);
    L->fd_r2 = carve(&c, N);
    L->fd_J = carve(&c, N * N);
    L->scale = carve(&c, N);
    L->unknown_scale = carve(&c, N);
    L->g_terms = carve(&c, s * nq), L->g_work = carve(&c, 3 * nq);
    L->fd_mu = carve(&c, d), L->fd_n = carve(&c, d), L->fd_phi = carve(&c, k);
    for (size_t i = 0; i < s; i++) {
        stage *S = &L->st[i];
        S->X = carve(&c, d), S->Xm = carve(&c, d), S->eta = carve(&c, d);
        S->mu = carve(&c, d), S->f = carve(&c, d), S->N = carve(&c, d);
        S->Pi = carve(&c, d), S->K = carve(&c, d);
        S->G = carve(&c, nq), S->tau_minus = carve(&c, nq);
        S->T = carve(&c, d * d), S->Tm = carve(&c, d * d), S->U = carve(&c, d * d);
        S->AdS = carve(&c, d * d);
        S->Dp = carve(&c, d * d * d), S->Dm = carve(&c, d * d * d);
        S->Jxi = carve(&c, d * d), S->Jg = carve(&c, d * d), S->Fg = carve(&c, d * d);
        S->Cxi = carve(&c, d * d), S->Cg = carve(&c, d * d);
        S->A = carve(&c, k * d), S->B = carve(&c, k * d);
        S->dX = carve(&c, d * N), S->zeta = carve(&c, d * N), S->deta = carve(&c, d * N);
        S->dmu = carve(&c, d * N), S->df = carve(&c, d * N), S->dN = carve(&c, d * N);
        S->dPi = carve(&c, d * N), S->dK = carve(&c, d * N);
        S->dUN = carve(&c, d * N), S->dUsN = carve(&c, d * N);
    }
    L->M = carve(&c, d * d), L->Minv = carve(&c, d * d), L->S = carve(&c, d * d);
    L->y = carve(&c, d), L->z = carve(&c, d), L->mu_row = carve(&c, d), L->eta_c = carve(&c, d);
    L->Jxi_c = carve(&c, d * d), L->Jg_c = carve(&c, d * d);
    L->A_c = carve(&c, k * d), L->B_c = carve(&c, k * d), L->phi = carve(&c, k);
    L->dy = carve(&c, d * N), L->dz = carve(&c, d * N), L->dmu_row = carve(&c, d * N);
    L->deta_c = carve(&c, d * N), L->tmp_t = carve(&c, d * N), L->tmp_t2 = carve(&c, d * N);
    L->m1 = carve(&c, d * d), L->m2 = carve(&c, d * d), L->m3 = carve(&c, d * d);
    L->v1 = carve(&c, d), L->v2 = carve(&c, d), L->v3 = carve(&c, d), L->v4 = carve(&c, d);
    L->e = carve(&c, d);
    L->mo_e = carve(&c, d), L->mo_col = carve(&c, d);
    for (int i = 0; i < 6; i++)
        L->series[i] = carve(&c, d);
    L->zero_d = carve(&c, d);
    L->bern = carve(&c, 60);
    L->nu0 = carve(&c, k), L->nu1 = carve(&c, k), L->zero_nu = carve(&c, k);
    L->D0 = carve(&c, d * d * d);
    L->newton = L->host->newton_create(L->host, L->N);
    return L->newton ? WB_OK : WB_ERR_NOMEM;
}

/* Which multipliers are unknowns and where the constraint rows act. */
static void layout(lobatto *L)
{
    const int s = L->s;
    L->n_rows = 0;
    if (L->k == 0) {
        L->nu_first = s, L->n_unknown_nu = 0;
        return;
    }
    switch (L->variant) {
    case CONSTRAINT_IIIA:
        L->nu_first = 1, L->n_unknown_nu = s - 1;
        for (int i = 1; i < s; i++)
            L->rows[L->n_rows++] = (constraint_row){i, 1};
        break;
    case CONSTRAINT_IIIB:
        L->nu_first = 0, L->n_unknown_nu = s;
        for (int i = 0; i < s - 1; i++)
            L->rows[L->n_rows++] = (constraint_row){i, 0};
        L->rows[L->n_rows++] = (constraint_row){s - 1, 1};
        break;
    default:
        L->nu_first = 0, L->n_unknown_nu = s - 1;
        for (int i = 0; i < s - 1; i++)
            L->rows[L->n_rows++] = (constraint_row){i, 0};
        break;
    }
}

static int refuse(const wb_host *host, const char *why, const wb_model *model)
{
    host->error(host, "nonholonomic.lobatto: model '%s' %s", model->name, why);
    return WB_ERR_INVALID;
}

static int create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                  void **inst)
{
    if (!WB_HAS_FIELD(model, wb_model, lie_force_jacobian_g))
        return refuse(host, "is served by a host older than ABI 1.1", model);
    if (host->abi_minor < 5) {
        host->error(host, "nonholonomic.lobatto: the host speaks ABI 1.%u; the method needs "
                          "1.5 (Newton's test on the unknowns, wb_newton_options.unknown_scale)",
                    (unsigned)host->abi_minor);
        return WB_ERR_INVALID;
    }
    const int flat = !(model->capabilities & WB_CAP_LIE_GROUP);
    const int retraction = opts[OPT_RETRACTION].string[0] == 'e' ? RETRACTION_EXP
                                                                 : RETRACTION_CAY;
    if (flat) {
        int status = wb_require_constant_mass(host, model, "nonholonomic.lobatto");
        if (status != WB_OK)
            return status;
    } else {
        if (!(model->capabilities & WB_CAP_LIE_LAGRANGIAN))
            return refuse(host, "has no wb.lie_lagrangian/1 (the method is Lagrangian)", model);
        const uint32_t cayley = WB_CAP_LIE_CAYLEY | WB_CAP_LIE_CAYLEY_DERIVATIVE;
        if (retraction == RETRACTION_CAY && (model->capabilities & cayley) != cayley)
            return refuse(host, "lacks cay, dcayinv or dcayinv_derivative in wb.lie_group/1, "
                                "which retraction = \"cay\" needs; use retraction = \"exp\"",
                          model);
    }
    const int s = (int)opts[OPT_S].number;
    const wb_tableau *pair = host->tableau_family(host, "lobatto_iiia_iiib", s);
    if (!pair)
        return WB_ERR_INVALID;
    if (pair->s != s || !pair->a2) {
        host->error(host, "nonholonomic.lobatto: the host's Lobatto IIIA-IIIB pair has %d "
                          "stages%s, expected a pair of %d", pair->s,
                    pair->a2 ? "" : " and no IIIB part", s);
        return WB_ERR_INVALID;
    }
    lobatto *L = calloc(1, sizeof *L);
    if (!L) {
        host->error(host, "nonholonomic.lobatto: out of memory");
        return WB_ERR_NOMEM;
    }
    L->host = host, L->model = model, L->flat = flat, L->s = s;
    L->nq = model->nq, L->d = model->nv, L->k = model->n_nonholonomic;
    const char *constraint = opts[OPT_CONSTRAINT].string;
    L->variant = strcmp(constraint, "iiia") == 0   ? CONSTRAINT_IIIA
                 : strcmp(constraint, "iiib") == 0 ? CONSTRAINT_IIIB
                                                   : CONSTRAINT_DIRECT;
    L->retraction = retraction;
    L->a = pair->a, L->ah = pair->a2, L->b = pair->b;
    L->nu_check = opts[OPT_NU_CHECK].number;
    L->check_jacobian = opts[OPT_CHECK_JACOBIAN].number != 0.0;
    layout(L);
    L->N = s * L->d + L->n_unknown_nu * L->k;
    host->newton_defaults(host, &L->newton_options);
    L->newton_options.tol = opts[OPT_TOL].number;
    L->newton_options.max_iter = (int)opts[OPT_MAX_ITER].number;
    L->iteration = opts[OPT_ITERATION].string[0] == 'n'   ? ITERATION_NEWTON
                   : opts[OPT_ITERATION].string[0] == 's' ? ITERATION_SIMPLIFIED
                                                          : ITERATION_AUTO;
    L->newton_options.simplified = L->iteration != ITERATION_NEWTON;
    L->newton_options.step_tol = opts[OPT_STEP_TOL].number;
    if (allocate(L) != WB_OK) {
        destroy(L);
        host->error(host, "nonholonomic.lobatto: out of memory");
        return WB_ERR_NOMEM;
    }
    L->newton_options.struct_size = sizeof L->newton_options; /* with the scales */
    L->newton_options.residual_scale = L->scale;
    L->newton_options.unknown_scale = L->unknown_scale;
    retraction_setup(L);
    if (!flat && retraction == RETRACTION_CAY)
        build_tensor(L, L->zero_d, L->D0);
    if (flat) {
        wb_mass(model, L->zero_d, L->M); /* constant: any q will do */
        wb_constant_inverse_mass(model, L->fd_x, L->Minv);
    }
    *inst = L;
    return WB_OK;
}

/* ---- a run ---------------------------------------------------------------------- */

/* |Phi(q, v(q, p))| against the size of v */
static int check_on_constraint(lobatto *L, const double *q, const double *p)
{
    double *v = L->v1, *phi = L->phi;
    wb_velocity(L->model, q, p, v);
    wb_nh_constraints(L->model, q, v, phi);
    const double off = vec_max_abs(L->k, phi), scale = fmax(1.0, vec_max_abs(L->d, v));
    if (off <= 1e-8 * scale)
        return WB_OK;
    L->host->error(L->host, "nonholonomic.lobatto: the state is off the velocity constraint "
                            "by |Phi| = %.3e; the method needs Psi(q0, p0) = 0 (make the "
                            "state consistent, e.g. with m:project)", off);
    return WB_ERR_INVALID;
}

static int start(void *inst, double t, double h, const double *q, const double *p,
                 const double *carried)
{
    lobatto *L = inst;
    (void)t, (void)h;
    const int k = L->k;
    if (k == 0)
        return WB_OK;
    if ((!carried || L->variant != CONSTRAINT_DIRECT) && check_on_constraint(L, q, p) != WB_OK)
        return WB_ERR_INVALID;
    if (carried && L->nu_check == 0.0) {
        vec_copy(k, carried, L->nu0);
        return WB_OK;
    }
    if (wb_nh_multiplier(L->model, q, p, L->nu1) != WB_OK) {
        L->host->error(L->host, "nonholonomic.lobatto: no consistent multiplier at the "
                                "starting state (A W A^T is singular)");
        return WB_ERR_SINGULAR;
    }
    if (!carried || L->variant == CONSTRAINT_DIRECT) {
        vec_copy(k, carried ? carried : L->nu1, L->nu0);
        return WB_OK;
    }
    const double gap = vec_max_abs_diff(k, carried, L->nu1);
    const double allowed = L->nu_check * (1.0 + vec_max_abs(k, L->nu1));
    if (!(gap <= allowed)) {
        L->host->error(L->host, "nonholonomic.lobatto: the starting multiplier nu = %.6g "
                                "(aux0) differs from the consistent %.6g by %.3e, more than "
                                "nu_check (1 + |nu|) = %.3e: an error in it is never damped; "
                                "leave aux0 out to start from the consistent one, or set "
                                "nu_check = 0 to keep it", carried[0], L->nu1[0], gap, allowed);
        return WB_ERR_INVALID;
    }
    vec_copy(k, carried, L->nu0);
    return WB_OK;
}

/* The stage velocities of the motion g(t) = tau(X(t)) g0 at the constant
 * velocity xi0 = v(q0, p0): X' = dtauinv_X xi0, collocated by the IIIA
 * stages, H^j = dtauinv_{X^j} xi0 with X^j = h sum_l a_jl H^l (a few
 * fixed-point sweeps; xi0 itself on a vector space).  Where tau winds the
 * rotation angle (|cay^-1| = 2 tan(angle / 2)) this is far closer to the
 * solution than H^j = xi0. */
static void guess_stages(lobatto *L, const double *q0, const double *p0, double h)
{
    const int d = L->d, s = L->s;
    double *xi0 = L->v1, *X = L->v2;
    wb_velocity(L->model, q0, p0, xi0);
    for (int i = 0; i < s; i++)
        vec_copy(d, xi0, L->x + (size_t)i * d);
    if (L->flat)
        return;
    for (int sweep = 0; sweep < 3; sweep++) {
        vec_copy(s * d, L->x, L->guess); /* the sweep's input */
        for (int i = 0; i < s; i++) {
            memset(X, 0, (size_t)d * sizeof(double));
            for (int j = 0; j < s; j++)
                vec_axpy(d, h * L->a[i * s + j], L->guess + (size_t)j * d, X);
            retraction_dtauinv(L, X, xi0, L->x + (size_t)i * d);
        }
    }
}

/* Newton from the guess in x: simplified first under `auto`, and full
 * Newton from the same guess when the simplified iteration does not
 * converge (it contracts only for steps small against the Jacobian's
 * variation). */
static int solve(lobatto *L, wb_step_stats *stats)
{
    const wb_host *host = L->host;
    int status = host->newton_solve(host, L->newton, lobatto_residual, lobatto_jacobian, L, L->x,
                                    &L->newton_options, stats, NULL);
    if (L->iteration != ITERATION_AUTO ||
        (status != WB_ERR_NEWTON && status != WB_ERR_NONFINITE && status != WB_ERR_SINGULAR))
        return status;
    vec_copy(L->N, L->guess, L->x);
    L->newton_options.simplified = 0;
    status = host->newton_solve(host, L->newton, lobatto_residual, lobatto_jacobian, L, L->x,
                                &L->newton_options, stats, NULL);
    L->newton_options.simplified = 1;
    return status;
}

static int step(void *inst, double t, double h, const double *q0, const double *p0, double *q1,
                double *p1, wb_step_stats *stats)
{
    lobatto *L = inst;
    (void)t;
    const int d = L->d, k = L->k, s = L->s;
    L->h = h, L->q0 = q0, L->p0 = p0, L->stats = stats;
    /* guess: the stages of the motion at the frozen starting velocity, every
     * multiplier the carried one */
    guess_stages(L, q0, p0, h);
    for (int j = 0; j < L->n_unknown_nu; j++)
        vec_copy(k, L->nu0, L->x + (size_t)s * d + (size_t)j * k);
    vec_copy(L->N, L->x, L->guess);
    lobatto_row_scales(L, L->x);
    lobatto_unknown_scales(L, L->x);
    if (L->check_jacobian) {
        int row, col;
        const double gap = lobatto_jacobian_gap(L, L->x, &row, &col);
        if (!(gap <= 1e-6)) {
            L->host->error(L->host, "nonholonomic.lobatto: the analytic Jacobian differs from "
                                    "central differences of the residual by %.3e (relative) "
                                    "at row %d, column %d of %d",
                           gap, row, col, L->N);
            return WB_ERR_MODEL;
        }
    }
    int status = solve(L, stats);
    if (status == WB_OK)
        status = lobatto_outputs(L, L->x, q1, p1);
    if (status == WB_OK && !(vec_all_finite(L->nq, q1) && vec_all_finite(d, p1))) {
        L->host->error(L->host, "nonholonomic.lobatto: the step produced a non-finite state");
        status = WB_ERR_NONFINITE;
    }
    if (status != WB_OK)
        return status;
    if (k > 0) {
        const int last = L->variant == CONSTRAINT_DIRECT ? s - 2 : s - 1;
        vec_copy(k, L->x + (size_t)s * d + (size_t)(last - L->nu_first) * k, L->nu0);
    }
    return WB_OK;
}

static void aux_values(const void *inst, double *out)
{
    const lobatto *L = inst;
    vec_copy(L->k, L->nu0, out);
}

static int describe(const wb_option_value *opts, wb_method_props *out)
{
    const int s = (int)opts[OPT_S].number;
    const char *constraint = opts[OPT_CONSTRAINT].string;
    if (strcmp(constraint, "iiia") == 0) {
        out->order = 2 * s - 2;
        out->multiplier_order = s % 2 ? s - 1 : s;
        out->flags = WB_PROP_NONHOLONOMIC_CONSTRAINT | WB_PROP_LIE_GROUP;
    } else if (strcmp(constraint, "iiib") == 0) {
        /* measured (scripts/nonholonomic/ablation.lua): s - 1 */
        out->order = s - 1;
        out->flags = WB_PROP_NONHOLONOMIC_CONSTRAINT | WB_PROP_LIE_GROUP;
    } else {
        /* measured: q of order s - 1, p of order 1 */
        out->order = 1;
        out->flags = WB_PROP_LIE_GROUP;
    }
    return WB_OK;
}

static const wb_method lobatto_method = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "lobatto",
    .doc = "nonholonomic Lobatto IIIA-IIIB (Martin de Diego-Sato eq. 14; Lie groups: App. F): "
           "order 2s-2, the velocity constraint at every node, the multiplier carried",
    .options = options,
    .n_options = WB_ARRAY_COUNT(options),
    .requires = requires,
    .handles = WB_HANDLES_UNCONSTRAINED | WB_HANDLES_NONHOLONOMIC | WB_HANDLES_LIE_GROUP,
    .order_doc = "2s-2 (multiplier s, s even; s-1, s odd)",
    .property_flags = WB_PROP_NONHOLONOMIC_CONSTRAINT | WB_PROP_LIE_GROUP,
    .aux = aux,
    .n_aux = WB_ARRAY_COUNT(aux),
    .describe = describe,
    .create = create,
    .destroy = destroy,
    .start = start,
    .step = step,
    .aux_values = aux_values,
};

static const wb_method *const methods[] = {&lobatto_method};

WB_INTEGRATOR_PLUGIN("nonholonomic",
                     "high-order methods for velocity constraints (Martin de Diego-Sato)",
                     "nonholonomic Lobatto IIIA-IIIB on vector spaces and Lie groups", methods);
