/* `workbench sweep`: a script's wb.sweep from the command line, for GNU
 * parallel and Slurm as well as locally. */
#ifndef CLI_SWEEP_COMMAND_H
#define CLI_SWEEP_COMMAND_H

#include "lua/lua_api.h"

extern const char sweep_usage[];

/* Parse `sweep [flags] SCRIPT [ARGS...]` (argv after "sweep") into mode;
 * options are the host's own options (replayed by Slurm tasks).  0, or 2
 * after printing what is wrong (1 after printing the help for --help). */
int sweep_parse(int argc, char **argv, char *const *options, int n_options,
                lua_sweep_mode *mode);

#endif
