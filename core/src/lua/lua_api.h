/* The Lua module `workbench` (also the global `wb`).  Each object kind has
 * its own file: lua_model.c, lua_method.c, lua_solution.c, lua_tableau.c;
 * lua_module.c assembles the module and holds wb.integrate. */
#ifndef CORE_LUA_API_H
#define CORE_LUA_API_H

#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>

#include "run/driver.h"

#define LUA_MODEL_TYPE "workbench.model"
#define LUA_METHOD_TYPE "workbench.method"
#define LUA_SOLUTION_TYPE "workbench.solution"
#define LUA_TABLEAU_TYPE "workbench.tableau"

typedef struct lua_model {
    model_instance *instance;
} lua_model;

typedef struct lua_method {
    method_config *config;
} lua_method;

typedef struct lua_solution {
    solution *sol;
} lua_solution;

typedef struct lua_tableau {
    const wb_tableau *tableau;
} lua_tableau;

/* How `workbench sweep` runs a script's wb.sweep (lua_sweep.c); NULL
 * fields and zeros are "not given". */
typedef enum lua_sweep_mode_kind {
    LUA_SWEEP_LOCAL = 0, /* a pool of worker processes here (the default)     */
    LUA_SWEEP_LIST,      /* print the cases and stop                          */
    LUA_SWEEP_CASE,      /* run case `case_index` only, write its row file     */
    LUA_SWEEP_SLURM,     /* write (and submit) a Slurm job-array script        */
    LUA_SWEEP_MERGE      /* collect the per-case files, then go on             */
} lua_sweep_mode_kind;

typedef struct lua_sweep_mode {
    int kind;                 /* lua_sweep_mode_kind                         */
    long long case_index;     /* LUA_SWEEP_CASE, 1-based                     */
    int jobs, fresh, resubmit, submit, chunk;
    const char *out, *partition, *time, *mem;
    char *const *options;     /* the host's options, replayed by Slurm tasks */
    int n_options;
    const char *script;
    char *const *args;
    int n_args;
} lua_sweep_mode;

/* Set wb._sweep_mode for the script about to run. */
void lua_sweep_set_mode(lua_State *L, const lua_sweep_mode *mode);

/* Open the module (leaves it on the stack) and set the global `wb`. */
int luaopen_workbench(lua_State *L);
/* Run the embedded Lua part of the module (checks, order, plot, ...). */
int lua_workbench_prelude(lua_State *L);

/* Registration of each object kind into the module table at -1. */
void lua_model_register(lua_State *L);
void lua_method_register(lua_State *L);
void lua_solution_register(lua_State *L);
void lua_tableau_register(lua_State *L);
void lua_sweep_register(lua_State *L);
/* wb.define_model and wb.ad (lua_model_definition.c); after
 * lua_model_register. */
void lua_model_definition_register(lua_State *L);
/* wb.compile_model (lua_compile.c); after lua_model_definition_register. */
void lua_compile_register(lua_State *L);

/* A Lua-defined model's function cannot raise through the C code that
 * called it: the first failure is kept.  Clear before calling into a
 * model, then raise it (a no-op when there is none) or take it. */
void lua_model_definition_clear_error(void);
void lua_model_definition_raise_pending(lua_State *L);
const char *lua_model_definition_take_error(void);

/* wb.check_model calls the command line's model checker (cli/), which the
 * host hands in: it prints the table to out and returns the failures. */
struct model_instance;
typedef int (*lua_model_checker)(struct model_instance *mi, FILE *out, double tol);
void lua_set_model_checker(lua_model_checker checker);

/* Helpers shared by the files. */
lua_model *lua_check_model(lua_State *L, int idx);
lua_method *lua_check_method(lua_State *L, int idx);
lua_tableau *lua_test_tableau(lua_State *L, int idx);
void lua_push_tableau(lua_State *L, const wb_tableau *t);
/* An empty solution object (filled by the caller) that keeps the model and
 * method at the given stack slots alive. */
lua_solution *lua_push_solution(lua_State *L, int model_idx, int method_idx);
/* Read a table of exactly n numbers at idx into out; `what` names it. */
void lua_read_vector(lua_State *L, int idx, int n, double *out, const char *what);
void lua_push_vector(lua_State *L, int n, const double *x);
/* The same for a state (q or p) the workbench hands out: wb.integrate takes
 * it back as it is while its values are unchanged. */
void lua_push_state_vector(lua_State *L, int n, const double *x);
void lua_push_matrix(lua_State *L, int rows, int cols, const double *A);
/* The file name at arg, refused with a message starting with `what` when
 * empty or holding a NUL byte; and the output path (run/output.h) for it. */
const char *lua_check_file_name(lua_State *L, int arg, const char *what);
const char *lua_check_output_path(lua_State *L, int arg, const char *what);
/* Write data_path.json, the metadata of the solution at sol_idx (model,
 * parameters, method, options, steps, versions, date); 0, or -1 with the
 * reason in host_last_error(). */
int lua_solution_write_metadata(lua_State *L, int sol_idx, const char *data_path);
/* Raise the host's last error as a Lua error. */
int lua_host_error(lua_State *L);
/* luaL_error with printf formats (lua_pushfstring knows no %g). */
int lua_raise_error(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
