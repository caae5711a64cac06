/*
 * bench/rattle_abi_overhead.c -- what does the plugin ABI cost?
 *
 * Times RATTLE (classic.rattle) on the planar pendulum (m = 1, l = 1,
 * g = 9.81, the model's default state) for N steps of h = 1e-3 along eight
 * paths and prints seconds, steps per second and the ratios:
 *
 *   ABI step loop   classic.so and pendulum.so loaded through the host's
 *                   loader; our own loop calls method->step exactly as the
 *                   driver's loop does (double buffers, finite check, no
 *                   recording).
 *                   At the defaults RATTLE hands its Newton iteration to
 *                   the model (wb.holonomic_point/1's project(), ABI 1.7):
 *                   one model call a step.
 *   ABI driver_run  the same through driver_run with every = N (the only
 *                   recorded rows are the start and the end).
 *   ABI driver_run, no projection
 *                   the same with model_projection = false: RATTLE's own
 *                   iteration on the model's point evaluation, one call
 *                   per Newton residual (two a step), as in ABI 1.4-1.6.
 *   ABI driver_run, separate calls
 *                   the same with combined_evaluation = false: the model's
 *                   grad V, g and G by three callbacks (five calls a step)
 *                   instead of its wb.holonomic_point/1 (two), as before
 *                   ABI 1.4.
 *   linked rattle.c the step loop of "ABI step loop", but with the very
 *                   source plugins/classic/rattle.c compiled into this
 *                   program (no dlopen, no PIC; the model still comes from
 *                   pendulum.so through the host's view): it separates the
 *                   cost of the shared-object boundary from that of the code.
 *   static inline   the same algorithm as plugins/classic/rattle.c, with
 *                   the pendulum's functions written inline, a scalar
 *                   Newton iteration for the one multiplier and a direct
 *                   1x1 solve for mu, in one static loop.
 *   static + host   the same static loop, but the multiplier comes from the
 *                   host's newton_solve and mu from the host's dense_solve
 *                   (LAPACK), as the plugin does: the difference to
 *                   "static inline" is the price of the generic solvers,
 *                   the difference to "ABI step loop" the price of the
 *                   generic-size plugin code and the model's indirect calls.
 *   static + view   the static inline loop, but each Newton residual (g,
 *                   G and grad V at the trial point) comes from
 *                   pendulum.so's wb.holonomic_point/1 through the host's
 *                   view, as the plugin gets it: two opaque calls a step,
 *                   everything else as "static inline".  Its ratio to
 *                   "static inline" is what the model boundary alone costs,
 *                   whatever the method's code; "ABI step loop" over it is
 *                   what the plugin adds.
 *
 * Measured 2026-11-28 (AMD EPYC, 2 cores, quiet, pinned with taskset -c 1,
 * `bench_rattle_abi 5000000`, best of 3): static inline 26.5 ns a step,
 * static + view 39.3 (1.48x), ABI without the projection 42.6 (1.61x; 1.09x
 * over static + view), ABI step loop 38.2 (1.44x).  Whole processes,
 * farm-bench, 11 pairs, pinned, 2e7 steps, CPU: --only abi / --only static
 * 1.43x (1.42 .. 1.46), --only point / --only static 1.60x.  The two calls a
 * step alone take 1.48x: each passes the trial point through memory into
 * code the compiler cannot see and its values back (a store-to-load round
 * trip each way on the step's critical path, and every live floating-point
 * register, all caller-saved, spilled around it).  No change inside the
 * method can bring two calls a step below static + view; the projection
 * makes it one, with the model's evaluation inlined into its own loop.
 *
 * All paths do the same floating-point operations in the same order, so
 * their final states agree to the last bit; the program prints them and
 * their largest difference.
 *
 * Usage: bench_rattle_abi [steps] [--classic PATH] [--pendulum PATH] [--only PATH]
 *   steps defaults to 10^7; the plugins default to <exe dir>/../plugins
 *   and <exe dir>/../models (the build tree), else the build directories
 *   known at compile time.  --only abi|driver|point|separate|linked|static|host|view runs that
 *   one path once, for a whole-process timer or a profiler (callgrind's
 *   instructions per step of one path, timings paired against another).
 */
#include "run/driver.h"
#include "host/host.h"
#include "run/integrator_instance.h"
#include "run/model_instance.h"
#include "host/plugins.h"

#include "bench_host.h"
#include "classic.h" /* plugins/classic/rattle.c, also linked into this program */

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef WB_BENCH_PLUGIN_DIR
#define WB_BENCH_PLUGIN_DIR "plugins"
#endif
#ifndef WB_BENCH_MODEL_DIR
#define WB_BENCH_MODEL_DIR "models"
#endif

enum { REPEATS = 3 };
static const long long DEFAULT_STEPS = 10000000LL;
static const double STEP_SIZE = 1e-3;
/* The goal: the ABI path costs at most this much over the static loop
 * (issue 12: within 1.5 times the hand-specialised loop). */
static const double OVERHEAD_GOAL = 0.5;

/* ---- small utilities ------------------------------------------------------- */

/* The pendulum's phase-space point: q = (x, y), p = (px, py). */
typedef struct phase_state {
    double q[2], p[2];
} phase_state;

static double max_state_difference(const phase_state *a, const phase_state *b)
{
    double d = 0;
    for (int i = 0; i < 2; i++) {
        d = fmax(d, fabs(a->q[i] - b->q[i]));
        d = fmax(d, fabs(a->p[i] - b->p[i]));
    }
    return d;
}

/* ---- command line ---------------------------------------------------------- */

typedef struct bench_config {
    long long steps;
    double h;
    char classic_path[PATH_MAX];
    char pendulum_path[PATH_MAX];
    const char *only; /* one path's short name, or NULL: all of them */
} bench_config;

static int parse_steps(const char *text, long long *steps)
{
    char *end;
    double value = strtod(text, &end); /* accepts 1e7 as well as 10000000 */
    if (*end != '\0' || !(value >= 1 && value <= 1e12) || value != floor(value))
        return -1;
    *steps = (long long)value;
    return 0;
}

static int parse_arguments(int argc, char **argv, bench_config *cfg)
{
    cfg->steps = DEFAULT_STEPS;
    cfg->h = STEP_SIZE;
    cfg->only = NULL;
    bench_plugin_path("plugins", "classic.so", WB_BENCH_PLUGIN_DIR, cfg->classic_path,
                        sizeof cfg->classic_path);
    bench_plugin_path("models", "pendulum.so", WB_BENCH_MODEL_DIR, cfg->pendulum_path,
                        sizeof cfg->pendulum_path);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--classic") == 0 && i + 1 < argc) {
            snprintf(cfg->classic_path, sizeof cfg->classic_path, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--pendulum") == 0 && i + 1 < argc) {
            snprintf(cfg->pendulum_path, sizeof cfg->pendulum_path, "%s", argv[++i]);
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            cfg->only = argv[++i];
        } else if (parse_steps(argv[i], &cfg->steps) != 0) {
            fprintf(stderr, "usage: %s [steps] [--classic PATH] [--pendulum PATH] "
                            "[--only abi|driver|point|separate|linked|static|host|view]\n", argv[0]);
            return -1;
        }
    }
    return 0;
}

/* ---- the ABI path ------------------------------------------------------------ */

/* Everything the host builds for "classic.rattle on pendulum", as the CLI
 * and the Lua layer build it. */
typedef struct abi_setup {
    model_instance *model;
    method_config *method;
    integrator *integrator;
    method_config *separate_method; /* combined_evaluation = false */
    integrator *separate_integrator;
    method_config *point_method;    /* model_projection = false */
    integrator *point_integrator;
    method_config *linked_method;  /* classic_rattle linked into this program */
    integrator *linked_integrator;
    const wb_model *view;
    phase_state initial;
    double mass, length, gravity; /* the instance's parameter values */
    double tol;
    int max_iter;
} abi_setup;

static void abi_teardown(abi_setup *abi)
{
    integrator_destroy(abi->separate_integrator);
    method_config_destroy(abi->separate_method);
    integrator_destroy(abi->point_integrator);
    method_config_destroy(abi->point_method);
    integrator_destroy(abi->linked_integrator);
    method_config_destroy(abi->linked_method);
    integrator_destroy(abi->integrator);
    method_config_destroy(abi->method);
    model_instance_destroy(abi->model);
}

/* Value of the model parameter `name` in the instance (NAN if none). */
static double model_parameter(const model_instance *mi, const char *name)
{
    return bench_model_parameter(model_instance_plugin(mi)->model, model_instance_params(mi),
                                 name);
}

/* RATTLE with the boolean option `name` false, on the model. */
static int create_with_option_off(const plugin *family, const wb_method *method,
                                  model_instance *model, const char *name,
                                  method_config **cfg, integrator **it)
{
    *cfg = method_config_create(family, method);
    if (!*cfg || method_config_set_boolean(*cfg, method_config_find(*cfg, name), 0) != 0)
        return -1;
    *it = integrator_create(*cfg, model);
    return *it ? 0 : -1;
}

static int abi_setup_create(const bench_config *cfg, abi_setup *abi)
{
    memset(abi, 0, sizeof *abi);
    const plugin *family = plugins_load_file(cfg->classic_path);
    const plugin *model = family ? plugins_load_file(cfg->pendulum_path) : NULL;
    const wb_method *method = model ? bench_family_method(family, "rattle") : NULL;
    if (!method)
        goto fail;
    if (model->entry->kind != WB_KIND_MODEL || strcmp(model->entry->name, "pendulum") != 0) {
        host_error("'%s' is not the pendulum model", model->path);
        goto fail;
    }
    abi->model = model_instance_create(model, NULL); /* the class defaults */
    abi->method = abi->model ? method_config_create(family, method) : NULL;
    abi->integrator = abi->method ? integrator_create(abi->method, abi->model) : NULL;
    /* the same method object, taken from this program instead of classic.so */
    abi->linked_method = abi->integrator ? method_config_create(family, &classic_rattle) : NULL;
    abi->linked_integrator =
        abi->linked_method ? integrator_create(abi->linked_method, abi->model) : NULL;
    if (!abi->linked_integrator ||
        create_with_option_off(family, method, abi->model, "combined_evaluation",
                               &abi->separate_method, &abi->separate_integrator) != 0 ||
        create_with_option_off(family, method, abi->model, "model_projection",
                               &abi->point_method, &abi->point_integrator) != 0)
        goto fail;
    abi->view = model_instance_view(abi->model);
    wb_initial(abi->view, abi->initial.q, abi->initial.p);
    abi->mass = model_parameter(abi->model, "m");
    abi->length = model_parameter(abi->model, "l");
    abi->gravity = model_parameter(abi->model, "g");
    abi->tol = bench_option_number(abi->method, "tol");
    abi->max_iter = (int)bench_option_number(abi->method, "max_iter");
    return 0;
fail:
    fprintf(stderr, "bench_rattle_abi: %s\n", host_last_error());
    abi_teardown(abi);
    return -1;
}

static int state_is_finite(const double *q, const double *p)
{
    return isfinite(q[0]) && isfinite(q[1]) && isfinite(p[0]) && isfinite(p[1]);
}

/* The ABI step loop (for classic.so's method and for the linked-in copy):
 * the driver's per-step work without the recording -- step into the other
 * buffer pair, check it is finite, count, swap. */
static int run_method_step_loop(const integrator *it, const phase_state *initial,
                                long long steps, double h, phase_state *final,
                                wb_step_stats *stats)
{
    const wb_method *m = it->cfg->method;
    void *inst = it->inst;
    phase_state buffers[2] = {*initial, *initial};
    double *qa = buffers[0].q, *pa = buffers[0].p, *qb = buffers[1].q, *pb = buffers[1].p;
    if (m->reset(inst, 0.0, qa, pa) != WB_OK)
        return -1;
    for (long long n = 0; n < steps; n++) {
        const double t = (double)n * h;
        int status = m->step(inst, t, h, qa, pa, qb, pb, stats);
        if (status == WB_OK && !state_is_finite(qb, pb))
            status = WB_ERR_NONFINITE;
        if (status != WB_OK) {
            fprintf(stderr, "step %lld failed: %s\n", n + 1, host_last_error());
            return -1;
        }
        stats->steps++;
        double *swap = qa;
        qa = qb, qb = swap;
        swap = pa, pa = pb, pb = swap;
    }
    memcpy(final->q, qa, sizeof final->q);
    memcpy(final->p, pa, sizeof final->p);
    return 0;
}

/* The host's own loop, recording only the first and last rows. */
static int run_abi_driver(integrator *it, const abi_setup *abi, long long steps, double h,
                          phase_state *final, wb_step_stats *stats)
{
    run_options opt = {.t0 = 0.0, .h = h, .steps = steps, .every = steps,
                       .stream_path = NULL, .progress = 0, .stop_on_failure = 0};
    solution *s = driver_run(it, &opt, abi->initial.q, abi->initial.p);
    if (!s) {
        fprintf(stderr, "driver_run failed: %s\n", host_last_error());
        return -1;
    }
    memcpy(final->q, s->final_state, sizeof final->q);
    memcpy(final->p, s->final_state + 2, sizeof final->p);
    stats->steps += s->stats.steps;
    stats->newton_iterations += s->stats.newton_iterations;
    solution_destroy(s);
    return 0;
}

/* ---- the static path: rattle.c's algorithm with the pendulum inline ------- */

/* Pendulum and method constants, taken from the loaded instance so that
 * both paths integrate the very same problem. */
typedef struct static_problem {
    double mass, length, gravity;
    double inverse_mass; /* 1 / mass, once, as rattle.c takes M^-1 once */
    double tol;
    int max_iter;
    phase_state initial;
} static_problem;

/* Dot product of 2-vectors in the order of wb_vec.h's vec_dot (which
 * starts from 0), so that every rounding matches the plugin's. */
static inline double dot2(const double a[2], const double b[2])
{
    double s = 0;
    s += a[0] * b[0];
    s += a[1] * b[1];
    return s;
}

/* The model's index-1 multiplier as the host's fallback computes it
 * (model_instance.c: fb_index1_multiplier) for a constant mass, constant
 * gravity and g = |q|^2 - l^2: RATTLE's reset takes it as the first guess. */
static double pendulum_index1_multiplier(const static_problem *pb, const phase_state *x)
{
    const double v[2] = {x->p[0] / pb->mass, x->p[1] / pb->mass};
    const double u[2] = {0.0 / pb->mass, (pb->mass * pb->gravity + 0.0) / pb->mass};
    const double G[2] = {2.0 * x->q[0], 2.0 * x->q[1]};
    const double B[2] = {2.0 * v[0], 2.0 * v[1]};
    const double w[2] = {0.0, 0.0};
    const double Y[2] = {G[0] / pb->mass, G[1] / pb->mass};
    const double rhs = dot2(B, v) + dot2(G, w) - dot2(G, u);
    return rhs / dot2(G, Y);
}

/* The per-step quantities before the position solve:
 * drift = q0 + h M^-1 (p0 - h/2 grad V(q0)),  W = M^-1 G(q0)^T. */
typedef struct step_start {
    double drift[2], W[2];
} step_start;

static inline step_start start_of_step(const static_problem *pb, double h,
                                       const double q0[2], const double p0[2],
                                       const double grad0[2], const double G0[2])
{
    step_start s;
    for (int i = 0; i < 2; i++) {
        const double kicked = p0[i] - 0.5 * h * grad0[i];
        s.drift[i] = q0[i] + h * (pb->inverse_mass * kicked);
        s.W[i] = pb->inverse_mass * G0[i];
    }
    return s;
}

/* q1(lambda) = drift - h^2/2 W lambda, as rattle.c's trial_position. */
static inline void trial_position(const step_start *s, double c, double lambda, double q1[2])
{
    const double a = c * lambda;
    q1[0] = s->drift[0] + a * s->W[0];
    q1[1] = s->drift[1] + a * s->W[1];
}

static inline double pendulum_constraint(const static_problem *pb, const double q[2])
{
    return q[0] * q[0] + q[1] * q[1] - pb->length * pb->length;
}

/* The end of the step once lambda is known: p_{1/2}, the FSAL values at
 * q1 (grad1, G1: they replace grad0, G0), the velocity multiplier mu (1x1
 * solve) and p1.  host_solve = 1 solves for mu with the host's dense_solve
 * (LAPACK) as the plugin does, 0 with a division (which is what LAPACK
 * computes for 1x1).  Returns 0, or -1 when the solve is singular or not
 * finite (the plugin's failures). */
static inline int finish_step_at(const static_problem *pb, double h, const double p0[2],
                                 double lambda, const double grad1[2], const double G1[2],
                                 double grad0[2], double G0[2], double p1[2], double *mu_out,
                                 int host_solve)
{
    double half[2], tmp[2], GW[2];
    for (int i = 0; i < 2; i++)
        half[i] = p0[i] - 0.5 * h * grad0[i];
    for (int i = 0; i < 2; i++)
        half[i] += -0.5 * h * lambda * G0[i];
    grad0[0] = grad1[0], grad0[1] = grad1[1];
    G0[0] = G1[0], G0[1] = G1[1];
    for (int i = 0; i < 2; i++)
        half[i] += -0.5 * h * grad0[i];
    tmp[0] = pb->inverse_mass * half[0], tmp[1] = pb->inverse_mass * half[1];
    double mu = (2.0 / h) * dot2(G0, tmp);
    GW[0] = pb->inverse_mass * G0[0], GW[1] = pb->inverse_mass * G0[1];
    double S = dot2(G0, GW);
    if (host_solve) {
        int pivot;
        if (linalg_dense_solve(host_services(), 1, 1, &S, &pivot, &mu) != WB_OK)
            return -1;
    } else {
        if (!isfinite(S) || S == 0.0)
            return -1;
        mu = mu / S;
        if (!isfinite(mu))
            return -1;
    }
    for (int i = 0; i < 2; i++)
        p1[i] = half[i] + -0.5 * h * mu * G0[i];
    *mu_out = mu;
    return 0;
}

/* finish_step_at with the pendulum's values at q1 written inline. */
static inline int finish_step(const static_problem *pb, double h, const double p0[2],
                              double lambda, const double q1[2], double grad0[2],
                              double G0[2], double p1[2], double *mu_out, int host_solve)
{
    const double grad1[2] = {0.0, pb->mass * pb->gravity};
    const double G1[2] = {2.0 * q1[0], 2.0 * q1[1]};
    return finish_step_at(pb, h, p0, lambda, grad1, G1, grad0, G0, p1, mu_out, host_solve);
}

/* Newton for g(q1(lambda)) = 0 exactly as the host's newton_solve runs it
 * for n = 1: stop when |g| <= tol, else J = c G(q1) W, lambda -= g / J. */
static inline int scalar_newton(const static_problem *pb, const step_start *s, double c,
                                double *lambda, double q1[2], uint64_t *iterations)
{
    double x = *lambda;
    for (int it = 0;; it++) {
        trial_position(s, c, x, q1);
        const double r = pendulum_constraint(pb, q1);
        if (!isfinite(r))
            return -1;
        if (fabs(r) <= pb->tol)
            break;
        if (it >= pb->max_iter)
            return -1;
        const double G1[2] = {2.0 * q1[0], 2.0 * q1[1]};
        const double J = c * dot2(G1, s->W);
        if (!isfinite(J) || J == 0.0)
            return -1;
        const double update = r / J;
        if (!isfinite(update))
            return -1;
        x -= update;
        ++*iterations;
    }
    *lambda = x;
    return 0;
}

/* "static inline": the whole run in one loop; every function of the model
 * and the solver is inlined and the FSAL cache is carried in locals.  The
 * products with 1/m stay (as rattle.c scales by M^-1's diagonal) although
 * m = 1: dropping them would change nothing but the work being compared. */
static int run_static_inline(const static_problem *pb, long long steps, double h,
                             phase_state *final, wb_step_stats *stats)
{
    const double c = -0.5 * h * h;
    double q[2] = {pb->initial.q[0], pb->initial.q[1]};
    double p[2] = {pb->initial.p[0], pb->initial.p[1]};
    double lambda = pendulum_index1_multiplier(pb, &pb->initial), mu = lambda;
    double grad0[2] = {0.0, pb->mass * pb->gravity};
    double G0[2] = {2.0 * q[0], 2.0 * q[1]};
    uint64_t iterations = 0;
    for (long long n = 0; n < steps; n++) {
        const step_start s = start_of_step(pb, h, q, p, grad0, G0);
        double q1[2], p1[2];
        if (scalar_newton(pb, &s, c, &lambda, q1, &iterations) != 0 ||
            finish_step(pb, h, p, lambda, q1, grad0, G0, p1, &mu, 0) != 0 ||
            !state_is_finite(q1, p1)) {
            fprintf(stderr, "static step %lld failed\n", n + 1);
            return -1;
        }
        q[0] = q1[0], q[1] = q1[1], p[0] = p1[0], p[1] = p1[1];
    }
    memcpy(final->q, q, sizeof q);
    memcpy(final->p, p, sizeof p);
    stats->steps += (uint64_t)steps;
    stats->newton_iterations += iterations;
    return 0;
}

/* ---- the static path with the model through the view ----------------------- */

/* Newton of scalar_newton with each residual from the model's
 * holonomic_point through the view (g, and G and grad V at the trial):
 * the model's two calls a step, everything else as "static inline". */
static inline int scalar_newton_view(const wb_model *view, const static_problem *pb,
                                     const step_start *s, double c, double *lambda,
                                     double q1[2], double G1[2], double grad1[2],
                                     uint64_t *iterations)
{
    double x = *lambda;
    for (int it = 0;; it++) {
        trial_position(s, c, x, q1);
        double r;
        wb_holonomic_point(view, q1, grad1, &r, G1);
        if (!isfinite(r))
            return -1;
        if (fabs(r) <= pb->tol)
            break;
        if (it >= pb->max_iter)
            return -1;
        const double J = c * dot2(G1, s->W);
        if (!isfinite(J) || J == 0.0)
            return -1;
        const double update = r / J;
        if (!isfinite(update))
            return -1;
        x -= update;
        ++*iterations;
    }
    *lambda = x;
    return 0;
}

/* "static + view": "static inline" with the pendulum's values from the
 * model plugin through the host's view (wb.holonomic_point/1), two calls a
 * step as the plugin makes them: the cost of the model boundary alone. */
static int run_static_view(const static_problem *pb, const wb_model *view, long long steps,
                           double h, phase_state *final, wb_step_stats *stats)
{
    const double c = -0.5 * h * h;
    double q[2] = {pb->initial.q[0], pb->initial.q[1]};
    double p[2] = {pb->initial.p[0], pb->initial.p[1]};
    double lambda = pendulum_index1_multiplier(pb, &pb->initial), mu = lambda;
    double grad0[2], G0[2], g0;
    wb_holonomic_point(view, q, grad0, &g0, G0);
    uint64_t iterations = 0;
    for (long long n = 0; n < steps; n++) {
        const step_start s = start_of_step(pb, h, q, p, grad0, G0);
        double q1[2], p1[2], G1[2], grad1[2];
        if (scalar_newton_view(view, pb, &s, c, &lambda, q1, G1, grad1, &iterations) != 0 ||
            finish_step_at(pb, h, p, lambda, grad1, G1, grad0, G0, p1, &mu, 0) != 0 ||
            !state_is_finite(q1, p1)) {
            fprintf(stderr, "static step %lld failed\n", n + 1);
            return -1;
        }
        q[0] = q1[0], q[1] = q1[1], p[0] = p1[0], p[1] = p1[1];
    }
    memcpy(final->q, q, sizeof q);
    memcpy(final->p, p, sizeof p);
    stats->steps += (uint64_t)steps;
    stats->newton_iterations += iterations;
    return 0;
}

/* What the host's Newton callbacks need: the step's drift and W, the
 * trial position and the pendulum. */
typedef struct position_system {
    const static_problem *problem;
    step_start start;
    double c;
    double q1[2];
} position_system;

static int position_residual(void *user, const double *lambda, double *res)
{
    position_system *ps = user;
    trial_position(&ps->start, ps->c, lambda[0], ps->q1);
    res[0] = pendulum_constraint(ps->problem, ps->q1);
    return WB_OK;
}

static int position_jacobian(void *user, const double *lambda, double *J)
{
    position_system *ps = user;
    trial_position(&ps->start, ps->c, lambda[0], ps->q1);
    const double G1[2] = {2.0 * ps->q1[0], 2.0 * ps->q1[1]};
    J[0] = ps->c * dot2(G1, ps->start.W);
    return WB_OK;
}

/* "static + host": as "static inline", but lambda from the host's newton_solve and mu from
 * its dense_solve (both called directly: this binary links the host). */
static int run_static_host_solvers(const static_problem *pb, long long steps, double h,
                                   phase_state *final, wb_step_stats *stats)
{
    const wb_host *host = host_services();
    wb_newton *newton = newton_create(host, 1);
    if (!newton)
        return -1;
    wb_newton_options options;
    newton_defaults(host, &options);
    options.tol = pb->tol, options.max_iter = pb->max_iter;
    position_system ps = {.problem = pb, .c = -0.5 * h * h};
    double q[2] = {pb->initial.q[0], pb->initial.q[1]};
    double p[2] = {pb->initial.p[0], pb->initial.p[1]};
    double lambda = pendulum_index1_multiplier(pb, &pb->initial), mu = lambda;
    double grad0[2] = {0.0, pb->mass * pb->gravity};
    double G0[2] = {2.0 * q[0], 2.0 * q[1]};
    int failed = 0;
    for (long long n = 0; n < steps && !failed; n++) {
        ps.start = start_of_step(pb, h, q, p, grad0, G0);
        double p1[2];
        failed = newton_solve(host, newton, position_residual, position_jacobian, &ps,
                              &lambda, &options, stats, NULL) != WB_OK;
        if (!failed) {
            trial_position(&ps.start, ps.c, lambda, ps.q1);
            failed = finish_step(pb, h, p, lambda, ps.q1, grad0, G0, p1, &mu, 1) != 0 ||
                     !state_is_finite(ps.q1, p1);
        }
        if (failed) {
            fprintf(stderr, "static step %lld failed: %s\n", n + 1, host_last_error());
            break;
        }
        q[0] = ps.q1[0], q[1] = ps.q1[1], p[0] = p1[0], p[1] = p1[1];
        stats->steps++;
    }
    newton_destroy(host, newton);
    memcpy(final->q, q, sizeof q);
    memcpy(final->p, p, sizeof p);
    return failed ? -1 : 0;
}

/* ---- timing ---------------------------------------------------------------- */

typedef struct path_result {
    const char *name;
    double best_seconds;
    phase_state final;
    wb_step_stats stats; /* of the last repetition */
} path_result;

typedef struct bench_context {
    const bench_config *config;
    const abi_setup *abi;
    const static_problem *problem;
} bench_context;

typedef int (*path_runner)(const bench_context *ctx, phase_state *final, wb_step_stats *stats);

static int abi_step_loop_runner(const bench_context *ctx, phase_state *final, wb_step_stats *stats)
{
    return run_method_step_loop(ctx->abi->integrator, &ctx->abi->initial, ctx->config->steps,
                                ctx->config->h, final, stats);
}

static int linked_step_loop_runner(const bench_context *ctx, phase_state *final,
                                   wb_step_stats *stats)
{
    return run_method_step_loop(ctx->abi->linked_integrator, &ctx->abi->initial,
                                ctx->config->steps, ctx->config->h, final, stats);
}

static int abi_driver_runner(const bench_context *ctx, phase_state *final, wb_step_stats *stats)
{
    return run_abi_driver(ctx->abi->integrator, ctx->abi, ctx->config->steps, ctx->config->h,
                          final, stats);
}

static int point_driver_runner(const bench_context *ctx, phase_state *final,
                               wb_step_stats *stats)
{
    return run_abi_driver(ctx->abi->point_integrator, ctx->abi, ctx->config->steps,
                          ctx->config->h, final, stats);
}

static int separate_driver_runner(const bench_context *ctx, phase_state *final,
                                  wb_step_stats *stats)
{
    return run_abi_driver(ctx->abi->separate_integrator, ctx->abi, ctx->config->steps,
                          ctx->config->h, final, stats);
}

static int static_inline_runner(const bench_context *ctx, phase_state *final,
                                wb_step_stats *stats)
{
    return run_static_inline(ctx->problem, ctx->config->steps, ctx->config->h, final, stats);
}

static int static_view_runner(const bench_context *ctx, phase_state *final, wb_step_stats *stats)
{
    return run_static_view(ctx->problem, ctx->abi->view, ctx->config->steps, ctx->config->h,
                           final, stats);
}

static int static_host_runner(const bench_context *ctx, phase_state *final, wb_step_stats *stats)
{
    return run_static_host_solvers(ctx->problem, ctx->config->steps, ctx->config->h, final,
                                   stats);
}

typedef struct path_plan {
    const char *name;
    const char *short_name; /* for --only */
    path_runner run;
} path_plan;

/* One timed run of one path; keeps the best time.  Returns 0 or -1. */
static int time_once(const bench_context *ctx, const path_plan *plan, path_result *out)
{
    wb_step_stats stats = {.struct_size = sizeof stats};
    const double start = bench_now_seconds();
    if (plan->run(ctx, &out->final, &stats) != 0)
        return -1;
    const double seconds = bench_now_seconds() - start;
    out->best_seconds = fmin(out->best_seconds, seconds);
    out->stats = stats;
    return 0;
}

/* Best of REPEATS rounds, each round running every path once: the minimum
 * is the run least disturbed by the rest of the machine, and interleaving
 * the paths spreads slow phases (frequency ramps, neighbours) over all of
 * them instead of penalising whichever happens to run first. */
static int time_paths(const bench_context *ctx, const path_plan *plan, int count,
                      path_result *results)
{
    for (int i = 0; i < count; i++)
        results[i] = (path_result){.name = plan[i].name, .best_seconds = INFINITY};
    const int rounds = ctx->config->only ? 1 : REPEATS;
    for (int round = 0; round < rounds; round++)
        for (int i = 0; i < count; i++)
            if (time_once(ctx, &plan[i], &results[i]) != 0)
                return -1;
    return 0;
}

/* ---- report ---------------------------------------------------------------- */

static void print_timings(const path_result *paths, int count, long long steps)
{
    printf("\n%-34s %12s %10s %14s %9s %12s\n", "path (best of 3)", "steps", "seconds",
           "steps/s", "ns/step", "Newton/step");
    for (int i = 0; i < count; i++) {
        const path_result *r = &paths[i];
        printf("%-34s %12lld %10.4f %14.4e %9.2f %12.7f\n", r->name, steps, r->best_seconds,
               (double)steps / r->best_seconds, 1e9 * r->best_seconds / (double)steps,
               (double)r->stats.newton_iterations / (double)steps);
    }
}

static void print_ratio(const path_result *abi, const path_result *reference)
{
    const double ratio = abi->best_seconds / reference->best_seconds;
    printf("  %-32s / %-33s = %7.4f  (%+7.1f %%)  %s\n", abi->name, reference->name, ratio,
           100.0 * (ratio - 1.0), ratio <= 1.0 + OVERHEAD_GOAL ? "within 1.5x" : "OVER 1.5x");
}

static void print_share(const path_result *a, const path_result *b, const char *what)
{
    printf("  %-32s / %-33s = %7.4f  (%s)\n", a->name, b->name,
           a->best_seconds / b->best_seconds, what);
}

static void print_final_states(const path_result *paths, int count, double t_end)
{
    printf("\nfinal states at t = %.6g\n", t_end);
    printf("%-34s %24s %24s %24s %24s\n", "path", "x", "y", "px", "py");
    for (int i = 0; i < count; i++) {
        const phase_state *s = &paths[i].final;
        printf("%-34s %24.17g %24.17g %24.17g %24.17g\n", paths[i].name, s->q[0], s->q[1],
               s->p[0], s->p[1]);
    }
    if (count > 1)
        printf("max |difference| against \"%s\":\n", paths[0].name);
    for (int i = 1; i < count; i++) {
        const double d = max_state_difference(&paths[i].final, &paths[0].final);
        printf("  %-34s %.3e%s\n", paths[i].name, d, d == 0.0 ? "  (bitwise identical)" : "");
    }
}

static static_problem problem_from_instance(const abi_setup *abi)
{
    static_problem pb = {.mass = abi->mass, .inverse_mass = 1.0 / abi->mass,
                         .length = abi->length, .gravity = abi->gravity,
                         .tol = abi->tol, .max_iter = abi->max_iter, .initial = abi->initial};
    return pb;
}

int main(int argc, char **argv)
{
    bench_config config;
    if (parse_arguments(argc, argv, &config) != 0)
        return 2;
    abi_setup abi;
    if (abi_setup_create(&config, &abi) != 0)
        return 1;
    const static_problem problem = problem_from_instance(&abi);
    const bench_context ctx = {&config, &abi, &problem};

    printf("RATTLE on the planar pendulum: %lld steps of h = %g (t = 0 .. %g)\n", config.steps,
           config.h, (double)config.steps * config.h);
    printf("model  %s  (m = %g, l = %g, g = %g; q0 = (%g, %g), p0 = (%.17g, %g))\n",
           config.pendulum_path, problem.mass, problem.length, problem.gravity,
           problem.initial.q[0], problem.initial.q[1], problem.initial.p[0],
           problem.initial.p[1]);
    printf("method %s  classic.rattle (tol = %g, max_iter = %d)\n", config.classic_path,
           problem.tol, problem.max_iter);
    fflush(stdout);

    enum { ABI, DRIVER, POINT, SEPARATE, LINKED, STATIC, HOST, VIEW };
    static const path_plan plan[] = {
        [ABI] = {"ABI: method->step loop", "abi", abi_step_loop_runner},
        [DRIVER] = {"ABI: driver_run (every = steps)", "driver", abi_driver_runner},
        [POINT] = {"ABI: driver_run, no projection", "point", point_driver_runner},
        [SEPARATE] = {"ABI: driver_run, separate calls", "separate", separate_driver_runner},
        [LINKED] = {"linked rattle.c: step loop", "linked", linked_step_loop_runner},
        [STATIC] = {"static: inline Newton, 1x1 solve", "static", static_inline_runner},
        [HOST] = {"static: host newton/dense_solve", "host", static_host_runner},
        [VIEW] = {"static: model through the view", "view", static_view_runner},
    };
    enum { PATHS = sizeof plan / sizeof plan[0] };
    path_result results[PATHS];
    if (config.only) {
        int status = -1;
        for (int i = 0; i < PATHS; i++)
            if (strcmp(plan[i].short_name, config.only) == 0 &&
                (status = time_paths(&ctx, &plan[i], 1, results)) == 0) {
                print_timings(results, 1, config.steps);
                print_final_states(results, 1, (double)config.steps * config.h);
            }
        if (status != 0 && !host_has_error())
            fprintf(stderr, "bench_rattle_abi: no path '%s' (abi, driver, point, separate, "
                            "linked, static, host, view)\n", config.only);
        abi_teardown(&abi);
        plugins_unload_all();
        return status == 0 ? 0 : 1;
    }
    int status = time_paths(&ctx, plan, PATHS, results);
    if (status == 0) {
        print_timings(results, PATHS, config.steps);
        printf("\nratios ABI / static (goal: at most %.1fx the static loop)\n",
               1.0 + OVERHEAD_GOAL);
        for (int a = ABI; a <= LINKED; a++)
            for (int s = STATIC; s <= HOST; s++)
                print_ratio(&results[a], &results[s]);
        printf("where the time goes\n");
        print_share(&results[VIEW], &results[STATIC], "two model calls a step, nothing else");
        print_share(&results[POINT], &results[VIEW], "the plugin's own cost over them");
        print_share(&results[ABI], &results[POINT], "one call a step: the model's projection");
        print_share(&results[ABI], &results[LINKED], "the shared-object boundary alone");
        print_final_states(results, PATHS, (double)config.steps * config.h);
    }
    abi_teardown(&abi);
    plugins_unload_all();
    return status == 0 ? 0 : 1;
}
