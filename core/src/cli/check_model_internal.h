/* What the files of check-model share (check_model.c, check_lie.c): the
 * checker's state, the relative-gap measure, the report rows.  Private to
 * cli/. */
#ifndef CLI_CHECK_MODEL_INTERNAL_H
#define CLI_CHECK_MODEL_INTERNAL_H

#include "run/model_instance.h"

#include <math.h>
#include <stdio.h>

#define N_POINTS 3

typedef struct checker {
    FILE *out;
    double tol;
    int failures;
    model_instance *mi;
    const wb_model *m;
    const model_extensions *ext;
    const fd_levels *levels;
    void *self;
    double *q[N_POINTS], *p[N_POINTS];
    double *a, *b, *c, *d, *scratch; /* work arrays */
    double *mu, *w;                   /* fixed test vectors */
    double *x;                        /* a state or algebra element at work */
} checker;

/* The worst difference and the largest size seen over the check points. */
typedef struct gap {
    double diff, scale;
} gap;

static inline void gap_add(gap *g, int n, const double *analytic, const double *fd)
{
    for (int i = 0; i < n; i++) {
        double d = fabs(analytic[i] - fd[i]);
        if (!isfinite(analytic[i]) || !isfinite(fd[i]))
            d = INFINITY;
        g->diff = fmax(g->diff, d);
        g->scale = fmax(g->scale, fmax(fabs(analytic[i]), fabs(fd[i])));
    }
}

/* max(worst, x) that keeps a NaN (fmax drops it): a NaN must FAIL. */
static inline double worse(double worst, double x)
{
    return isnan(x) || x > worst ? x : worst;
}

static inline double gap_error(const gap *g)
{
    return g->scale > 0 ? g->diff / g->scale : g->diff;
}

static inline void row(checker *c, const char *what, double err, const char *note)
{
    int ok = err <= c->tol;
    if (!ok)
        c->failures++;
    fprintf(c->out, "  %-40s %10.2e   %s%s%s\n", what, err, ok ? "ok" : "FAIL",
            note ? "   " : "", note ? note : "");
}

static inline void skipped(checker *c, const char *what, const char *why)
{
    fprintf(c->out, "  %-40s %10s   %s\n", what, "-", why);
}

/* Compare an analytic function with its finite differences at every point. */
#define COMPARE(label, provided, count, analytic_call, fd_call)             \
    do {                                                                    \
        if (!(provided)) {                                                  \
            skipped(c, label, "not provided: finite differences");          \
            break;                                                          \
        }                                                                   \
        gap g = {0, 0};                                                     \
        for (int k = 0; k < N_POINTS; k++) {                                \
            analytic_call;                                                  \
            fd_call;                                                        \
            gap_add(&g, count, c->a, c->b);                                 \
        }                                                                   \
        row(c, label, gap_error(&g), NULL);                                 \
    } while (0)

/* Deterministic pseudo-random numbers in [-1, 1]. */
static inline double jitter(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return ((*state >> 8) & 0xffff) / 32767.5 - 1.0;
}


/* Every callback writes inside its output arrays (check_outputs.c). */
void check_output_bounds(checker *c);

/* The Lie-group rows (check_lie.c). */
void check_lie_group(checker *c);
void check_lie_hamiltonian(checker *c);
void check_lie_lagrangian(checker *c);

#endif
