/* libFuzzer harness of the tableau-file parser (coverage-guided; built with
 * -DWB_LIBFUZZER=ON and clang, see tests/fuzz/README.md):
 *   build-fuzz/tests/fuzz/fuzz_tableau_parser -max_total_time=60 CORPUS_DIR
 * Every input is a tableau file's text; an accepted tableau must hold
 * finite numbers of at most 64 stages. */
#include "host/host.h"
#include "host/tableau.h"
#include "host/tableau_file.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char warning[512];
    host_clear_error();
    const wb_tableau *t = tableau_parse_text((const char *)data, size, "fuzz", warning,
                                             sizeof warning);
    if (!t) {
        if (!host_has_error())
            abort(); /* a refusal always says why */
        return 0;
    }
    if (t->s < 1 || t->s > TABLEAU_MAX_STAGES)
        abort();
    for (int i = 0; i < t->s * t->s; i++)
        if (!isfinite(t->a[i]) || (t->a2 && !isfinite(t->a2[i])))
            abort();
    for (int i = 0; i < t->s; i++)
        if (!isfinite(t->b[i]) || !isfinite(t->c[i]))
            abort();
    tableau_release(t);
    return 0;
}
