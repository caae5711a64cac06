/* rk's start = "auto": which start begins the next step, the last step's
 * collocation polynomial extrapolated or the corrected start
 * (corrected_start.h), chosen from the run's own cost.
 *
 * The extrapolated start is the cheaper while it lets the iteration stop
 * after one sweep (s force evaluations, where the corrected start costs at
 * least s + 2); on a step where it needs more (a "hard" step) the corrected
 * start may save a sweep or not, depending on the problem, s and h.  So:
 * after a step that the extrapolated start finished, or would have finished
 * (known without a force evaluation after a corrected step: the extrapolation
 * against the converged stages), in one sweep, the next step extrapolates;
 * after a hard step, the next step takes the start whose hard steps have
 * cost fewer evaluations on average so far in the run (the extrapolated one
 * on a tie), each tried on START_TRIALS hard steps first.
 *
 * Measured on Kepler (e = 0.5, h = 0.01, 20000 steps) and the outer solar
 * system (h = 10 d, 5000 steps), Gauss s = 2 .. 6 and Radau IIA s = 2 .. 5,
 * evaluations per step against the better fixed start: within 0.1 %
 * (the trials), but on Kepler with Gauss 5, 6 and Radau IIA 5, where the
 * steps near the pericentre are hard and the others not, and auto changes
 * start twice an orbit: Gauss 5 6.60 (extrapolate 8.43, corrected 7.29),
 * Gauss 6 6.64 (7.84, 8.02), Radau IIA 5 8.26 (8.37, 8.97).  Against the
 * hindsight of both starts' counts at every step (the cheaper one each
 * step), auto spends 0.3 % (Kepler Gauss 6) to 3.5 % (Kepler Gauss 3: the
 * steps where the corrected start saves no sweep look like the others)
 * more.  A trial of each start after the reset, kept for the run, would
 * gain nothing over the better fixed start, and depends on where it runs:
 * on Kepler with Gauss 2, 32 steps extrapolated then 32 corrected from the
 * pericentre pick the corrected start, 17 % dearer (the second trial meets
 * easier steps).  tests/lua/start_corrected.lua checks the picks and costs.
 * Two small biases, left: the force evaluation that hands over to the
 * corrected start (its start value at the step's beginning) is charged to
 * neither average, and a step retried from the plain guess counts under
 * the start it began with. */
#ifndef START_CHOICE_H
#define START_CHOICE_H

/* The starts (START_PLAIN: no last step to start from). */
enum { START_EXTRAPOLATED = 0, START_CORRECTED = 1, START_PLAIN = 2 };

/* Hard steps begun by each start before the averages decide. */
enum { START_TRIALS = 8 };

typedef struct start_choice {
    double evals[2];  /* force evaluations of the hard steps each start began */
    double steps[2];  /* and their number                                     */
} start_choice;

/* After a step begun by `started` (extrapolated or corrected) that took
 * `evals` evaluations, `hard` when the extrapolated start needed (or would
 * have needed) more than one sweep: the start of the next step.  Inline,
 * and the averages compared without dividing: it runs every step. */
static inline int start_choice_next(start_choice *choice, int started, int hard, double evals)
{
    if (!hard) /* one sweep: nothing to save, two evaluations to lose */
        return START_EXTRAPOLATED;
    choice->evals[started] += evals;
    choice->steps[started] += 1.0;
    const int other = 1 - started;
    if (choice->steps[other] < START_TRIALS)
        return other;
    if (choice->steps[started] < START_TRIALS)
        return started;
    /* corrected's mean below extrapolated's (both counts positive) */
    return choice->evals[START_CORRECTED] * choice->steps[START_EXTRAPOLATED] <
                   choice->evals[START_EXTRAPOLATED] * choice->steps[START_CORRECTED]
               ? START_CORRECTED
               : START_EXTRAPOLATED;
}

#endif
