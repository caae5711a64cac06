/* The time loop and the recorded solution.
 *
 * A solution row holds, in this order: t, q (nq), p (nv), the method's
 * recorded aux unknowns, energy, energy_error ((E - E0) / energy_scale,
 * energy_scale = max(|E0|, |T0| + |V0|) with T0 = E0 - V0 the kinetic
 * energy at t0 when the model has a potential; absolute when the scale
 * is 0), energy_error_abs, then -- when the model has them --
 * constraint (max_k |g_k(q)|), hidden_constraint (max_k |(G M^-1 p)_k|),
 * nonholonomic_constraint (max_a |Phi_a(q, v)|, v the state's velocity),
 * group_residual (how far q is from the group), then the model's
 * invariants.  Derived columns g1.., gv1.., phi1.. are computed on demand
 * from the stored q and p.  Aux unknowns declared WB_AUX_UNRECORDED have
 * no column; with the others they make the final carried state. */
#ifndef CORE_DRIVER_H
#define CORE_DRIVER_H

#include "run/atomic_file.h"
#include "run/claims.h"

#include <stdio.h>
#include "run/integrator_instance.h"

typedef struct run_options {
    double t0;
    double h;
    long long steps;
    long long every;          /* record every `every` steps (>= 1)           */
    const char *stream_path;  /* non-NULL: stream rows to this TSV file     */
    int progress;             /* 1 on, 0 off, -1 when stderr is a terminal  */
    int stop_on_failure;      /* 1: keep the rows so far and report failure */
    int ignore_claims;        /* 1: accept a step that breaks the method's
                                 claims (claims.h), for measuring a method
                                 that makes false ones (check-method)      */
    const double *aux0;       /* NULL: the method computes its carried
                                 unknowns; else all of them (the aux layout):
                                 continue a run from them exactly          */
} run_options;

typedef struct column_info {
    char *name;
    int offset;      /* into a row, or -1 for a derived column  */
    int derived;     /* 0 stored, 1 g_k, 2 gv_k, 3 phi_k        */
    int index;       /* component of a derived or aux column    */
    int aux_time;    /* wb_aux_time for aux columns, else 0     */
    double theta;    /* WB_AUX_AT_OFFSET: at t_row + theta h     */
} column_info;

/* One aux group as the solution keeps it (the integrator is gone). */
typedef struct solution_aux_group {
    char *name;
    int size, offset;   /* in the full aux vector */
    uint32_t flags;
} solution_aux_group;

typedef struct solution {
    model_instance *model;   /* a reference of its own (retained)       */
    int nq, nv, n_aux;       /* n_aux: recorded aux values per row      */
    int aux_total;           /* every aux value, recorded or not       */
    int n_aux_groups;
    solution_aux_group *aux_groups;
    int width;               /* doubles per row */
    int n_columns;
    column_info *columns;
    double *rows;
    long long n_rows, capacity;
    int streaming;
    atomic_file stream;
    char *stream_path;
    long long streamed_rows;
    int stream_failed;       /* a write failed: 1 the file keeps the
                                complete rows before it, 2 no file made */
    double *last_row;
    double *max_abs;         /* per stored column, over recorded rows */
    double t0, h, energy0;
    double energy_scale;     /* of energy_error (see above)           */
    long long steps_done;
    wb_step_stats stats;
    double seconds;
    int ok;
    char *failure;           /* message when a step failed            */
    double failure_time;
    double *scratch;         /* derived-column evaluation */
    row_residuals residuals; /* of the last row computed */
    double *final_state;     /* q, p, then every aux value after the
                                last accepted step                      */
    int final_aux_lost;      /* the driver refused the last step for a
                                broken claim (claims.h): the method's
                                carried unknowns describe that refused
                                state, not final_state's q and p         */
    double final_time;
} solution;

/* Run `it` from (q0, p0).  On success returns a solution.  On a failing
 * step: with stop_on_failure the solution holds the rows so far and
 * ok == 0; otherwise NULL with the message in host_last_error().  A failed
 * write of the stream returns the solution whatever stop_on_failure says
 * (ok == 0, stream_failed, the message in failure and host_last_error()):
 * the file keeps the complete rows, and the caller raises the error unless
 * it asked to stop. */
solution *driver_run(integrator *it, const run_options *opt, const double *q0,
                     const double *p0);
void solution_destroy(solution *s);

/* The header line of a solution's TSV file: the stored columns' names. */
void solution_write_header(const solution *s, FILE *fp);

/* Column lookup; -1 with a message listing the columns otherwise. */
int solution_column(const solution *s, const char *name);
/* Value of column c in recorded row r. */
double solution_value(solution *s, int c, long long r);

/* Interruption (SIGINT): the loop stops at the next step. */
void driver_request_interrupt(void);
void driver_clear_interrupt(void);
int driver_interrupt_requested(void);

/* Compute one diagnostic row for (t, q, p) with given aux values (all of
 * them, in the integrator's layout). */
void solution_fill_row(solution *s, double t, const double *q, const double *p,
                       const double *aux, double *row);

#endif
