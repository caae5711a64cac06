/* rk's start = "auto" (see start_choice.h). */
#include "start_choice.h"

int start_choice_next(start_choice *choice, int started, int hard, double evals)
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
    const double extrapolated = choice->evals[START_EXTRAPOLATED] / choice->steps[START_EXTRAPOLATED],
                 corrected = choice->evals[START_CORRECTED] / choice->steps[START_CORRECTED];
    return corrected < extrapolated ? START_CORRECTED : START_EXTRAPOLATED;
}
