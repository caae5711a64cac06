/* `workbench sweep`: the flags, into the mode wb.sweep reads. */
#include "cli/sweep_command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char sweep_usage[] =
    "usage: workbench [options] sweep [flags] SCRIPT.lua [ARGS...]\n"
    "\n"
    "Runs SCRIPT.lua, whose wb.sweep{cases =, run =, out =, ...} then runs its cases:\n"
    "  (no flag)          on every core of this machine (--jobs N to choose)\n"
    "  --list             print the cases (index, fields), save their keys in\n"
    "                     OUT.cases/list.tsv and stop\n"
    "  --case I           run case I only (1-based) and write its row, with the\n"
    "                     case's key, to OUT.cases/ (refused if the case list is\n"
    "                     not the one --list or --slurm saved)\n"
    "  --slurm            write OUT.slurm.sh, a job array running --case per task\n"
    "      --partition P  --time T  --mem M  --chunk K (cases per array task)\n"
    "      --submit       and submit it with sbatch\n"
    "  --merge            collect OUT.cases/ into OUT, each result for the case with\n"
    "                     its key; report missing, failed and stale result files\n"
    "      --resubmit     and write (--submit: submit) a job for those cases\n"
    "  --fresh            redo cases already in OUT\n"
    "  --out FILE         the results file when the script gives none\n"
    "\n"
    "math.random is seeded from the script's name and arguments: every process\n"
    "draws the same cases.\n"
    "\n"
    "GNU parallel:  workbench sweep --list s.lua | cut -f1 | parallel workbench sweep --case {} s.lua\n"
    "               workbench sweep --merge s.lua\n"
    "Slurm:         workbench sweep --slurm --submit s.lua; then workbench sweep --merge s.lua\n";

/* A whole positive number, or -1. */
static long long whole_number(const char *text)
{
    char *end = NULL;
    errno = 0;
    long long x = strtoll(text, &end, 10);
    if (errno || !end || *end || end == text || x < 1)
        return -1;
    return x;
}

typedef struct flag_value {
    const char *name;
    const char **target;
} flag_value;

int sweep_parse(int argc, char **argv, char *const *options, int n_options,
                lua_sweep_mode *mode)
{
    memset(mode, 0, sizeof *mode);
    mode->options = options, mode->n_options = n_options;
    const flag_value strings[] = {{"--partition", &mode->partition}, {"--time", &mode->time},
                                  {"--mem", &mode->mem}, {"--out", &mode->out}};
    int i = 0;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        int taken = 0;
        for (size_t k = 0; k < sizeof strings / sizeof strings[0]; k++)
            if (strcmp(flag, strings[k].name) == 0) {
                if (!value) {
                    fprintf(stderr, "workbench sweep: %s needs a value\n", flag);
                    return 2;
                }
                *strings[k].target = value, i++, taken = 1;
            }
        if (taken)
            continue;
        if (strcmp(flag, "--help") == 0) {
            fputs(sweep_usage, stdout);
            return 1;
        } else if (strcmp(flag, "--list") == 0) {
            mode->kind = LUA_SWEEP_LIST;
        } else if (strcmp(flag, "--slurm") == 0) {
            mode->kind = LUA_SWEEP_SLURM;
        } else if (strcmp(flag, "--merge") == 0) {
            mode->kind = LUA_SWEEP_MERGE;
        } else if (strcmp(flag, "--submit") == 0) {
            mode->submit = 1;
        } else if (strcmp(flag, "--resubmit") == 0) {
            mode->resubmit = 1;
        } else if (strcmp(flag, "--fresh") == 0) {
            mode->fresh = 1;
        } else if (strcmp(flag, "--case") == 0 || strcmp(flag, "--jobs") == 0 ||
                   strcmp(flag, "--chunk") == 0) {
            long long x = value ? whole_number(value) : -1;
            if (x < 1 || (strcmp(flag, "--case") != 0 && x > 100000)) {
                fprintf(stderr, "workbench sweep: %s needs a whole number >= 1, got '%s'\n",
                        flag, value ? value : "");
                return 2;
            }
            if (strcmp(flag, "--jobs") == 0)
                mode->jobs = (int)x;
            else if (strcmp(flag, "--chunk") == 0)
                mode->chunk = (int)x;
            else
                mode->kind = LUA_SWEEP_CASE, mode->case_index = x;
            i++;
        } else {
            fprintf(stderr, "workbench sweep: unknown flag '%s'\n\n%s", flag, sweep_usage);
            return 2;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "workbench sweep: which script?\n\n%s", sweep_usage);
        return 2;
    }
    mode->script = argv[i];
    mode->args = argv + i + 1, mode->n_args = argc - i - 1;
    return 0;
}
