/*
 * bench/chain_rattle.c -- sparse RATTLE on the planar pendulum chain:
 * ours through the ABI against a hand-written loop of the same algorithm.
 *
 * "ours"  classic.rattle (its default options: linear_solver = auto, which
 *         is sparse on pendulum_chain) on pendulum_chain.so (N links, the
 *         model's default parameters and state), both loaded through the
 *         host's loader, run by driver_run with every = steps: what
 *         wb.integrate{..., every = steps} does (bench/chain.lua).
 * "hand"  the same algorithm written for the chain in one static loop
 *         (plugins/classic/rattle.c, Hairer-Lubich-Wanner VII.1.4):
 *           p_{1/2} = p0 - h/2 (grad V(q0) + G(q0)^T lambda),
 *           q1 = q0 + h M^-1 p_{1/2},  g(q1) = 0 by Newton on lambda,
 *           p1 = p_{1/2} - h/2 (grad V(q1) + G(q1)^T mu),  G(q1) M^-1 p1 = 0,
 *         with the links e_k = x_k - x_(k-1) in place of G's values, the
 *         tridiagonal Newton matrix -h^2/2 G(q1) M^-1 G(q0)^T and
 *         G(q1) M^-1 G(q1)^T solved by Gaussian elimination with partial
 *         pivoting (LAPACK's dgtsv algorithm), and the host's Newton
 *         stopping rule (newton.c: each row's tolerance relative to the size
 *         of its terms, the round-off floor, max_iter) at the plugin's
 *         tolerances.
 *
 * For each N it prints seconds per step of both, their ratio, Newton
 * iterations per step of both and the largest difference of the final
 * states (round-off: the two solve the same tridiagonal systems in a
 * different order of operations; the chain is chaotic, so over the long
 * runs at small N that difference grows to the size of the state: 2e-14
 * after 200 steps at N = 10, O(1) after 2e5).  Best of `repeats` runs;
 * about `work` / N steps per run.
 *
 * Usage: bench_chain_rattle [work] [repeats] [--N N] [--only ours|hand]
 *                           [--classic PATH] [--chain PATH]
 *   work 2e6 and repeats 3 by default; --N runs one N (else 10, 100, 1000,
 *   10^4); --only runs one side once, for a whole-process timer or a
 *   profiler.
 */
#include "bench_host.h"
#include "run/driver.h"
#include "run/integrator_instance.h"
#include "run/model_instance.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef WB_BENCH_PLUGIN_DIR
#define WB_BENCH_PLUGIN_DIR "plugins"
#endif
#ifndef WB_BENCH_MODEL_DIR
#define WB_BENCH_MODEL_DIR "models"
#endif

static const double STEP_SIZE = 1e-3;
static const int DEFAULT_NS[] = {10, 100, 1000, 10000};

typedef struct bench_config {
    double work;
    int repeats;
    int N;            /* 0: every N of DEFAULT_NS */
    const char *only; /* "ours", "hand" or NULL */
    char classic_path[PATH_MAX];
    char chain_path[PATH_MAX];
} bench_config;

/* ---- the chain through the ABI ------------------------------------------------- */

typedef struct abi_chain {
    model_instance *model;
    method_config *method;
    integrator *integrator;
    const wb_model *view;
    int N, n;
    double mass, length, gravity, tol;
    int max_iter;
    double *q0, *p0, *lambda0; /* the default state and its multiplier */
} abi_chain;

static void abi_chain_destroy(abi_chain *c)
{
    integrator_destroy(c->integrator);
    method_config_destroy(c->method);
    model_instance_destroy(c->model);
    free(c->q0);
}

static int abi_chain_create(const bench_config *cfg, int N, abi_chain *c)
{
    memset(c, 0, sizeof *c);
    const plugin *family = plugins_load_file(cfg->classic_path);
    const plugin *model = family ? plugins_load_file(cfg->chain_path) : NULL;
    const wb_method *method = model ? bench_family_method(family, "rattle") : NULL;
    if (!method)
        goto fail;
    const wb_model_class *cls = model->model;
    if (model->entry->kind != WB_KIND_MODEL || strcmp(model->entry->name, "pendulum_chain")) {
        host_error("'%s' is not the pendulum_chain model", model->path);
        goto fail;
    }
    double values[16];
    if (cls->n_params > 16) {
        host_error("pendulum_chain has %u parameters, more than expected", cls->n_params);
        goto fail;
    }
    for (uint32_t i = 0; i < cls->n_params; i++)
        values[i] = strcmp(cls->params[i].name, "N") == 0 ? N : cls->params[i].default_value;
    if (bench_model_parameter(cls, values, "spatial") != 0.0) {
        host_error("the hand-written loop is the planar chain's");
        goto fail;
    }
    c->model = model_instance_create(model, values);
    c->method = c->model ? method_config_create(family, method) : NULL;
    c->integrator = c->method ? integrator_create(c->method, c->model) : NULL;
    if (!c->integrator)
        goto fail;
    c->view = model_instance_view(c->model);
    c->N = N, c->n = c->view->nq;
    c->mass = bench_model_parameter(cls, values, "m");
    c->length = bench_model_parameter(cls, values, "l");
    c->gravity = bench_model_parameter(cls, values, "g");
    c->tol = bench_option_number(c->method, "tol");
    c->max_iter = (int)bench_option_number(c->method, "max_iter");
    c->q0 = calloc(2 * (size_t)c->n + (size_t)N, sizeof(double));
    if (!c->q0) {
        host_error("out of memory");
        goto fail;
    }
    c->p0 = c->q0 + c->n, c->lambda0 = c->p0 + c->n;
    wb_initial(c->view, c->q0, c->p0);
    /* RATTLE's reset(): the continuous multiplier is the first guess */
    if (wb_index1_multiplier(c->view, c->q0, c->p0, c->lambda0) != WB_OK)
        memset(c->lambda0, 0, (size_t)N * sizeof(double));
    return 0;
fail:
    fprintf(stderr, "bench_chain_rattle: %s\n", host_last_error());
    abi_chain_destroy(c);
    return -1;
}

typedef struct run_result {
    double seconds_per_step;
    double newton_per_step;
    double *final; /* q then p, 2 n values */
} run_result;

static int run_ours(const abi_chain *c, long long steps, run_result *out)
{
    run_options opt = {.t0 = 0.0, .h = STEP_SIZE, .steps = steps, .every = steps,
                       .stream_path = NULL, .progress = 0, .stop_on_failure = 0};
    const double start = bench_now_seconds();
    solution *s = driver_run(c->integrator, &opt, c->q0, c->p0);
    const double seconds = bench_now_seconds() - start;
    if (!s || !s->ok) {
        fprintf(stderr, "ours: driver_run failed: %s\n", host_last_error());
        solution_destroy(s);
        return -1;
    }
    out->seconds_per_step = seconds / (double)steps;
    out->newton_per_step = (double)s->stats.newton_iterations / (double)steps;
    memcpy(out->final, s->final_state, 2 * (size_t)c->n * sizeof(double));
    solution_destroy(s);
    return 0;
}

/* ---- the hand-written loop ---------------------------------------------------- */

/* The chain's state and every per-step array, allocated once. */
typedef struct hand_chain {
    int N, n;
    double minv, weight, length2, tol; /* 1/m, m g, l^2 */
    int max_iter;
    double *q, *p, *q1, *drift, *half, *tmp;       /* n each           */
    double *e0x, *e0y, *e1x, *e1y;                 /* links: N each    */
    double *lambda, *mu, *residual, *row_scale;    /* N each           */
    double *diag, *sub, *super, *super2, *rhs;     /* tridiagonal LU   */
    double *block;
} hand_chain;

static void hand_chain_destroy(hand_chain *hc) { free(hc->block); }

static int hand_chain_create(const abi_chain *c, hand_chain *hc)
{
    const int N = c->N, n = c->n;
    *hc = (hand_chain){.N = N, .n = n, .minv = 1.0 / c->mass, .weight = c->mass * c->gravity,
                       .length2 = c->length * c->length, .tol = c->tol,
                       .max_iter = c->max_iter};
    hc->block = calloc(6 * (size_t)n + 13 * (size_t)N, sizeof(double));
    if (!hc->block)
        return -1;
    double *b = hc->block;
    hc->q = b, b += n;
    hc->p = b, b += n;
    hc->q1 = b, b += n;
    hc->drift = b, b += n;
    hc->half = b, b += n;
    hc->tmp = b, b += n;
    hc->e0x = b, b += N;
    hc->e0y = b, b += N;
    hc->e1x = b, b += N;
    hc->e1y = b, b += N;
    hc->lambda = b, b += N;
    hc->mu = b, b += N;
    hc->residual = b, b += N;
    hc->row_scale = b, b += N;
    hc->diag = b, b += N;
    hc->sub = b, b += N;
    hc->super = b, b += N;
    hc->super2 = b, b += N;
    hc->rhs = b;
    return 0;
}

/* The links e_k = x_k - x_(k-1) (x_0 = 0) of the planar chain q. */
static void chain_links(int N, const double *q, double *ex, double *ey)
{
    ex[0] = q[0], ey[0] = q[1];
    for (int k = 1; k < N; k++) {
        ex[k] = q[2 * k] - q[2 * k - 2];
        ey[k] = q[2 * k + 1] - q[2 * k - 1];
    }
}

/* x += s G^T y with G's rows given by the links (row k: -e_k on x_(k-1),
 * e_k on x_k) and a factor w (1/m: then W^T y). */
static void add_links_transpose(int N, const double *ex, const double *ey, double s,
                                const double *y, double w, double *x)
{
    for (int k = 0; k < N; k++) {
        const double a = s * y[k];
        if (k > 0) {
            x[2 * k - 2] += w * -ex[k] * a;
            x[2 * k - 1] += w * -ey[k] * a;
        }
        x[2 * k] += w * ex[k] * a;
        x[2 * k + 1] += w * ey[k] * a;
    }
}

/* Solve the tridiagonal system (sub, diag, super) x = b in place of b, by
 * Gaussian elimination with partial pivoting (LAPACK's dgtsv; super2 takes
 * the fill of a row interchange).  Returns 0, or -1 when a pivot is zero. */
static int tridiagonal_solve(int n, double *sub, double *diag, double *super, double *super2,
                             double *b)
{
    for (int i = 0; i < n - 1; i++) {
        if (fabs(diag[i]) >= fabs(sub[i])) { /* no interchange */
            if (diag[i] == 0.0)
                return -1;
            const double factor = sub[i] / diag[i];
            diag[i + 1] -= factor * super[i];
            b[i + 1] -= factor * b[i];
            super2[i] = 0.0;
        } else { /* interchange rows i and i + 1 */
            const double factor = diag[i] / sub[i];
            diag[i] = sub[i];
            const double d = diag[i + 1];
            diag[i + 1] = super[i] - factor * d;
            if (i < n - 2) {
                super2[i] = super[i + 1];
                super[i + 1] = -factor * super2[i];
            } else {
                super2[i] = 0.0;
            }
            super[i] = d;
            const double bi = b[i];
            b[i] = b[i + 1];
            b[i + 1] = bi - factor * b[i + 1];
        }
    }
    if (diag[n - 1] == 0.0)
        return -1;
    b[n - 1] /= diag[n - 1];
    if (n > 1)
        b[n - 2] = (b[n - 2] - super[n - 2] * b[n - 1]) / diag[n - 2];
    for (int i = n - 3; i >= 0; i--)
        b[i] = (b[i] - super[i] * b[i + 1] - super2[i] * b[i + 2]) / diag[i];
    return 0;
}

/* The tridiagonal s G(a) M^-1 G(b)^T from the links a and b of two points:
 * row k of G(a) (-a_k on x_(k-1), a_k on x_k) against rows k-1, k, k+1. */
static void links_product(const hand_chain *hc, const double *ax, const double *ay,
                          const double *bx, const double *by, double s)
{
    const double w = s * hc->minv;
    for (int k = 0; k < hc->N; k++) {
        const double same = ax[k] * bx[k] + ay[k] * by[k];
        hc->diag[k] = w * (k > 0 ? 2.0 * same : same);
        if (k + 1 < hc->N) /* (k, k+1): a_k on x_k against -b_(k+1) */
            hc->super[k] = -w * (ax[k] * bx[k + 1] + ay[k] * by[k + 1]);
        if (k > 0) /* (k, k-1): -a_k on x_(k-1) against b_(k-1); LAPACK's sub[k-1] */
            hc->sub[k - 1] = -w * (ax[k] * bx[k - 1] + ay[k] * by[k - 1]);
    }
}

/* One RATTLE step from (hc->q, hc->p) with the links at q in e0: the new
 * state replaces it.  Returns the Newton iterations, or -1. */
static int hand_step(hand_chain *hc, double h)
{
    const int N = hc->N, n = hc->n;
    const double c = -0.5 * h * h;
    double *q = hc->q, *p = hc->p, *q1 = hc->q1;
    /* the size of g_k's terms, sum |G_k.| max|q| (wb_sparse_row_scales):
     * row k's tolerance is tol relative to it where it is below 1 */
    double size = 0.0;
    for (int i = 0; i < n; i++)
        size = fabs(q[i]) > size ? fabs(q[i]) : size;
    for (int k = 0; k < N; k++) {
        const double row = (k > 0 ? 2.0 : 1.0) * (fabs(hc->e0x[k]) + fabs(hc->e0y[k]));
        const double scale = row * size;
        hc->row_scale[k] = scale > 0.0 && isfinite(scale) ? scale : 1.0;
    }
    /* drift = q0 + h M^-1 (p0 - h/2 grad V(q0)); grad V = (0, m g) a point */
    for (int i = 0; i < n; i++) {
        const double force = (i & 1) ? hc->weight : 0.0;
        hc->drift[i] = q[i] + h * (hc->minv * (p[i] - 0.5 * h * force));
    }
    /* Newton on g(q1(lambda)) = 0, q1 = drift + c M^-1 G(q0)^T lambda */
    double before = INFINITY;
    int iterations = 0;
    for (;;) {
        memcpy(q1, hc->drift, (size_t)n * sizeof(double));
        add_links_transpose(N, hc->e0x, hc->e0y, c, hc->lambda, hc->minv, q1);
        chain_links(N, q1, hc->e1x, hc->e1y);
        double measure = 0.0; /* max_k |g_k| / tol_k (newton.c) */
        for (int k = 0; k < N; k++) {
            const double r2 = hc->e1x[k] * hc->e1x[k] + hc->e1y[k] * hc->e1y[k];
            const double g = 0.5 * (r2 - hc->length2), s = hc->row_scale[k];
            hc->residual[k] = g;
            const double v = fabs(g) / (hc->tol * (s < 1.0 ? s : 1.0));
            if (v != v || v > measure)
                measure = v;
        }
        if (!isfinite(measure))
            return -1;
        if (measure <= 1.0)
            break;
        if (iterations > 0 && !(measure < 0.5 * before)) { /* at the round-off floor? */
            int floor = 1;
            for (int k = 0; k < N && floor; k++)
                floor = fabs(hc->residual[k]) <= 64.0 * DBL_EPSILON * hc->row_scale[k];
            if (floor)
                break;
        }
        if (iterations >= hc->max_iter)
            return -1;
        links_product(hc, hc->e1x, hc->e1y, hc->e0x, hc->e0y, c);
        if (tridiagonal_solve(N, hc->sub, hc->diag, hc->super, hc->super2, hc->residual) != 0)
            return -1;
        for (int k = 0; k < N; k++)
            hc->lambda[k] -= hc->residual[k];
        before = measure;
        iterations++;
    }
    /* p_{1/2} = p0 - h/2 grad V(q0) - h/2 G(q0)^T lambda, then the end point */
    for (int i = 0; i < n; i++)
        hc->half[i] = p[i] - 0.5 * h * ((i & 1) ? hc->weight : 0.0);
    add_links_transpose(N, hc->e0x, hc->e0y, -0.5 * h, hc->lambda, 1.0, hc->half);
    memcpy(hc->e0x, hc->e1x, (size_t)N * sizeof(double));
    memcpy(hc->e0y, hc->e1y, (size_t)N * sizeof(double));
    for (int i = 1; i < n; i += 2)
        hc->half[i] += -0.5 * h * hc->weight;
    /* mu: G(q1) M^-1 (half - h/2 G(q1)^T mu) = 0 */
    for (int i = 0; i < n; i++)
        hc->tmp[i] = hc->minv * hc->half[i];
    for (int k = 0; k < N; k++) {
        double dot = hc->e0x[k] * hc->tmp[2 * k] + hc->e0y[k] * hc->tmp[2 * k + 1];
        if (k > 0)
            dot -= hc->e0x[k] * hc->tmp[2 * k - 2] + hc->e0y[k] * hc->tmp[2 * k - 1];
        hc->mu[k] = (2.0 / h) * dot;
    }
    links_product(hc, hc->e0x, hc->e0y, hc->e0x, hc->e0y, 1.0);
    if (tridiagonal_solve(N, hc->sub, hc->diag, hc->super, hc->super2, hc->mu) != 0)
        return -1;
    memcpy(q, q1, (size_t)n * sizeof(double));
    memcpy(p, hc->half, (size_t)n * sizeof(double));
    add_links_transpose(N, hc->e0x, hc->e0y, -0.5 * h, hc->mu, 1.0, p);
    for (int i = 0; i < n; i++)
        if (!isfinite(q[i]) || !isfinite(p[i]))
            return -1;
    return iterations;
}

static int run_hand(const abi_chain *c, hand_chain *hc, long long steps, run_result *out)
{
    memcpy(hc->q, c->q0, (size_t)c->n * sizeof(double));
    memcpy(hc->p, c->p0, (size_t)c->n * sizeof(double));
    memcpy(hc->lambda, c->lambda0, (size_t)c->N * sizeof(double));
    const double start = bench_now_seconds();
    chain_links(c->N, hc->q, hc->e0x, hc->e0y);
    long long iterations = 0;
    for (long long s = 0; s < steps; s++) {
        int its = hand_step(hc, STEP_SIZE);
        if (its < 0) {
            fprintf(stderr, "hand: step %lld failed (Newton or a singular matrix)\n", s + 1);
            return -1;
        }
        iterations += its;
    }
    out->seconds_per_step = (bench_now_seconds() - start) / (double)steps;
    out->newton_per_step = (double)iterations / (double)steps;
    memcpy(out->final, hc->q, (size_t)c->n * sizeof(double));
    memcpy(out->final + c->n, hc->p, (size_t)c->n * sizeof(double));
    return 0;
}

/* ---- the comparison ----------------------------------------------------------- */

static int parse_arguments(int argc, char **argv, bench_config *cfg)
{
    *cfg = (bench_config){.work = 2e6, .repeats = 3};
    bench_plugin_path("plugins", "classic.so", WB_BENCH_PLUGIN_DIR, cfg->classic_path,
                      sizeof cfg->classic_path);
    bench_plugin_path("models", "pendulum_chain.so", WB_BENCH_MODEL_DIR, cfg->chain_path,
                      sizeof cfg->chain_path);
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (strcmp(argv[i], "--N") == 0 && i + 1 < argc) {
            cfg->N = atoi(argv[++i]);
            if (cfg->N < 2 || cfg->N > 10000)
                goto usage;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            cfg->only = argv[++i];
            if (strcmp(cfg->only, "ours") && strcmp(cfg->only, "hand"))
                goto usage;
        } else if (strcmp(argv[i], "--classic") == 0 && i + 1 < argc) {
            snprintf(cfg->classic_path, sizeof cfg->classic_path, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--chain") == 0 && i + 1 < argc) {
            snprintf(cfg->chain_path, sizeof cfg->chain_path, "%s", argv[++i]);
        } else if (positional == 0 && (cfg->work = strtod(argv[i], &end)) >= 1 && !*end) {
            positional++;
        } else if (positional == 1 && (cfg->repeats = atoi(argv[i])) >= 1) {
            positional++;
        } else {
            goto usage;
        }
    }
    return 0;
usage:
    fprintf(stderr, "usage: %s [work] [repeats] [--N 2..10000] [--only ours|hand] "
                    "[--classic PATH] [--chain PATH]\n", argv[0]);
    return -1;
}

static double max_difference(int n, const double *a, const double *b)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) {
        const double e = fabs(a[i] - b[i]);
        d = e != e || e > d ? e : d;
    }
    return d;
}

/* One N: both sides `repeats` times in turn, the best of each. */
static int compare_at(const bench_config *cfg, int N)
{
    abi_chain c;
    if (abi_chain_create(cfg, N, &c) != 0)
        return -1;
    hand_chain hc;
    double *finals = calloc(4 * (size_t)c.n, sizeof(double));
    if (!finals || hand_chain_create(&c, &hc) != 0) {
        fprintf(stderr, "bench_chain_rattle: out of memory\n");
        free(finals);
        abi_chain_destroy(&c);
        return -1;
    }
    const long long steps = (long long)fmax(3.0, floor(cfg->work / N));
    run_result best_ours = {INFINITY, 0, finals}, best_hand = {INFINITY, 0, finals + 2 * c.n};
    const int repeats = cfg->only ? 1 : cfg->repeats;
    int status = 0;
    for (int r = 0; r < repeats && status == 0; r++) {
        run_result ours = best_ours, hand = best_hand;
        if (!cfg->only || strcmp(cfg->only, "ours") == 0) {
            status = run_ours(&c, steps, &ours);
            if (status == 0 && ours.seconds_per_step < best_ours.seconds_per_step)
                best_ours = ours;
        }
        if (status == 0 && (!cfg->only || strcmp(cfg->only, "hand") == 0)) {
            status = run_hand(&c, &hc, steps, &hand);
            if (status == 0 && hand.seconds_per_step < best_hand.seconds_per_step)
                best_hand = hand;
        }
    }
    if (status == 0 && cfg->only) {
        const run_result *r = strcmp(cfg->only, "ours") == 0 ? &best_ours : &best_hand;
        printf("%8d %10lld %14.4e %12.3f  (%s only)\n", N, steps, r->seconds_per_step,
               r->newton_per_step, cfg->only);
    } else if (status == 0) {
        printf("%8d %10lld %14.4e %14.4e %8.2f %10.3f %10.3f %12.3e\n", N, steps,
               best_ours.seconds_per_step, best_hand.seconds_per_step,
               best_ours.seconds_per_step / best_hand.seconds_per_step,
               best_ours.newton_per_step, best_hand.newton_per_step,
               max_difference(2 * c.n, best_ours.final, best_hand.final));
    }
    hand_chain_destroy(&hc);
    free(finals);
    abi_chain_destroy(&c);
    return status;
}

int main(int argc, char **argv)
{
    bench_config cfg;
    if (parse_arguments(argc, argv, &cfg) != 0)
        return 2;
    printf("sparse RATTLE on the planar pendulum_chain (its default state), h = %g, "
           "about %g / N steps, best of %d\n", STEP_SIZE, cfg.work, cfg.only ? 1 : cfg.repeats);
    printf("ours: %s (classic.rattle, default options) through driver_run; "
           "hand: the same algorithm written for the chain\n", cfg.classic_path);
    if (cfg.only)
        printf("%8s %10s %14s %12s\n", "N", "steps", "s / step", "Newton/step");
    else
        printf("%8s %10s %14s %14s %8s %10s %10s %12s\n", "N", "steps", "ours s/step",
               "hand s/step", "ours/hand", "Newton ours", "Newton hand", "max |state diff|");
    int status = 0;
    if (cfg.N)
        status = compare_at(&cfg, cfg.N);
    else
        for (size_t i = 0; i < sizeof DEFAULT_NS / sizeof DEFAULT_NS[0] && status == 0; i++) {
            status = compare_at(&cfg, DEFAULT_NS[i]);
            fflush(stdout);
        }
    plugins_unload_all();
    return status == 0 ? 0 : 1;
}
