/* The time loop (in C, no allocation per step) and the solution store. */
#include "run/driver.h"
#include "run/claims.h"
#include "host/descriptor.h"
#include "host/host.h"
#include "wb_vec.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupt_requested;

void driver_request_interrupt(void) { interrupt_requested = 1; }
void driver_clear_interrupt(void) { interrupt_requested = 0; }
int driver_interrupt_requested(void) { return interrupt_requested != 0; }

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- columns ---------------------------------------------------------------- */

static int add_column(solution *s, const char *name, int offset, int derived, int index,
                      int aux_time, double theta)
{
    column_info *c = &s->columns[s->n_columns];
    c->name = strdup(name);
    if (!c->name)
        return -1;
    c->offset = offset, c->derived = derived, c->index = index, c->aux_time = aux_time;
    c->theta = theta;
    s->n_columns++;
    return 0;
}

static int add_stored(solution *s, const char *name, int *offset)
{
    return add_column(s, name, (*offset)++, 0, 0, 0, 0.0);
}

/* Components base1, base2, ...; a single aux component keeps its bare name. */
static int add_vector(solution *s, const char *base, int size, int *offset, int derived,
                      int aux_time, double theta)
{
    char name[128];
    for (int i = 0; i < size; i++) {
        if (size == 1 && aux_time)
            snprintf(name, sizeof name, "%s", base);
        else
            snprintf(name, sizeof name, "%s%d", base, i + 1);
        if (add_column(s, name, offset ? (*offset)++ : -1, derived, i, aux_time, theta) != 0)
            return -1;
    }
    return 0;
}

static int recorded(const aux_column *group)
{
    return !(group->flags & WB_AUX_UNRECORDED);
}

static int compare_column_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Two columns of one name (a method's aux unknown named like one of the
 * model's invariants) would shadow each other.  Sorted, not pairwise: a
 * chain of 10^4 links has some 10^5 columns. */
static int refuse_duplicate_columns(const solution *s)
{
    const char **names = malloc(((size_t)s->n_columns + 1) * sizeof *names);
    if (!names)
        return -1;
    for (int i = 0; i < s->n_columns; i++)
        names[i] = s->columns[i].name;
    qsort(names, (size_t)s->n_columns, sizeof *names, compare_column_names);
    for (int i = 1; i < s->n_columns; i++)
        if (strcmp(names[i - 1], names[i]) == 0) {
            host_error("two columns would be named '%s' (a method's carried unknown and a "
                       "model's invariant?)", names[i]);
            free(names);
            return -1;
        }
    free(names);
    return 0;
}

static int build_columns(solution *s, const integrator *it)
{
    const wb_model *m = model_instance_view(it->model);
    int max_columns = 16 + 2 * m->nq + m->nv + 3 * it->aux_total + 2 * m->n_holonomic +
                      m->n_nonholonomic + m->n_invariants;
    s->columns = calloc((size_t)max_columns, sizeof *s->columns);
    if (!s->columns)
        return -1;
    int offset = 0;
    if (add_stored(s, "t", &offset) || add_vector(s, "q", m->nq, &offset, 0, 0, 0) ||
        add_vector(s, "p", m->nv, &offset, 0, 0, 0))
        return -1;
    for (int g = 0; g < it->n_aux_groups; g++)
        if (recorded(&it->aux[g]) &&
            add_vector(s, it->aux[g].name, it->aux[g].size, &offset, 0, it->aux[g].time,
                       it->aux[g].theta))
            return -1;
    s->n_aux = offset - 1 - m->nq - m->nv;
    if (add_stored(s, "energy", &offset) || add_stored(s, "energy_error", &offset) ||
        add_stored(s, "energy_error_abs", &offset))
        return -1;
    if (m->n_holonomic > 0 &&
        (add_stored(s, "constraint", &offset) || add_stored(s, "hidden_constraint", &offset)))
        return -1;
    if (m->n_nonholonomic > 0 && add_stored(s, "nonholonomic_constraint", &offset))
        return -1;
    if ((m->capabilities & WB_CAP_GROUP_RESIDUAL) && add_stored(s, "group_residual", &offset))
        return -1;
    for (int i = 0; i < m->n_invariants; i++)
        if (add_stored(s, m->invariant_names[i], &offset))
            return -1;
    s->width = offset;
    if (add_vector(s, "g", m->n_holonomic, NULL, 1, 0, 0) ||
        add_vector(s, "gv", m->n_holonomic, NULL, 2, 0, 0) ||
        add_vector(s, "phi", m->n_nonholonomic, NULL, 3, 0, 0))
        return -1;
    return refuse_duplicate_columns(s);
}

/* The solution's own copy of the aux layout, for sol:final(). */
static int keep_aux_groups(solution *s, const integrator *it)
{
    s->aux_total = it->aux_total;
    s->n_aux_groups = it->n_aux_groups;
    s->aux_groups = calloc((size_t)it->n_aux_groups + 1, sizeof *s->aux_groups);
    if (!s->aux_groups)
        return -1;
    for (int g = 0; g < it->n_aux_groups; g++) {
        solution_aux_group *k = &s->aux_groups[g];
        if (!(k->name = strdup(it->aux[g].name)))
            return -1;
        k->size = it->aux[g].size, k->offset = it->aux[g].offset, k->flags = it->aux[g].flags;
    }
    return 0;
}

int solution_column(const solution *s, const char *name)
{
    for (int i = 0; i < s->n_columns; i++)
        if (strcmp(s->columns[i].name, name) == 0)
            return i;
    char list[2048] = "";
    size_t used = 0;
    for (int i = 0; i < s->n_columns && used < sizeof list - 80; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                                 s->columns[i].name);
    host_error("solution has no column '%s' (columns: %s)", name, list);
    return -1;
}

/* ---- rows ------------------------------------------------------------------- */

/* Phi(q, v) into phi with v the state's velocity (into v); max_a |Phi_a| */
static double nonholonomic_residual(const wb_model *m, const double *q, const double *p,
                                    double *v, double *phi)
{
    wb_velocity(m, q, p, v);
    wb_nh_constraints(m, q, v, phi);
    return vec_max_abs(m->n_nonholonomic, phi);
}

void solution_fill_row(solution *s, double t, const double *q, const double *p,
                       const double *aux, double *row)
{
    const wb_model *m = model_instance_view(s->model);
    double *x = row;
    *x++ = t;
    memcpy(x, q, (size_t)s->nq * sizeof(double)), x += s->nq;
    memcpy(x, p, (size_t)s->nv * sizeof(double)), x += s->nv;
    for (int g = 0; g < s->n_aux_groups; g++) {
        const solution_aux_group *k = &s->aux_groups[g];
        if (k->flags & WB_AUX_UNRECORDED)
            continue;
        memcpy(x, aux + k->offset, (size_t)k->size * sizeof(double)), x += k->size;
    }
    double e = m->energy.fn ? wb_energy(m, q, p) : NAN;
    *x++ = e;
    *x++ = s->energy_scale > 0 ? (e - s->energy0) / s->energy_scale : e - s->energy0;
    *x++ = e - s->energy0;
    /* the residuals stay in s->residuals for the check of the claims */
    if (m->n_holonomic > 0) {
        wb_constraints(m, q, s->residuals.g);
        *x++ = vec_max_abs(m->n_holonomic, s->residuals.g);
        wb_hidden_constraints(m, q, p, s->residuals.gv);
        *x++ = vec_max_abs(m->n_holonomic, s->residuals.gv);
    }
    if (m->n_nonholonomic > 0)
        *x++ = nonholonomic_residual(m, q, p, s->residuals.v, s->residuals.phi);
    if (m->capabilities & WB_CAP_GROUP_RESIDUAL)
        *x++ = wb_lie_group_residual(m, q);
    if (m->n_invariants > 0)
        wb_invariants(m, q, p, x);
}

/* A plain header line of the stored columns' names, tab-separated (pandas,
 * gnuplot's columnheader and wb.read_table read it as names). */
void solution_write_header(const solution *s, FILE *fp)
{
    for (int i = 0, first = 1; i < s->n_columns; i++)
        if (s->columns[i].offset >= 0) {
            fprintf(fp, "%s%s", first ? "" : "\t", s->columns[i].name);
            first = 0;
        }
    fputc('\n', fp);
}

/* Set the entries of the aux unknowns attributed to an interval
 * (WB_AUX_ON_INTERVAL) in `aux`, laid out as the method's aux values. */
static void set_interval_unknowns(const integrator *it, double *aux, double value)
{
    for (int g = 0; g < it->n_aux_groups; g++)
        if (it->aux[g].time == WB_AUX_ON_INTERVAL)
            for (int i = 0; i < it->aux[g].size; i++)
                aux[it->aux[g].offset + i] = value;
}

/* The first row's interval placeholders are no values for sol:max. */
static void forget_interval_placeholders(solution *s)
{
    for (int c = 0; c < s->n_columns; c++)
        if (s->columns[c].aux_time == WB_AUX_ON_INTERVAL && s->columns[c].offset >= 0)
            s->max_abs[s->columns[c].offset] = 0.0;
}

/* A NaN, once recorded, stays in max_abs: sol:max cannot hide it. */
static void record(solution *s, const double *row)
{
    for (int i = 0; i < s->width; i++)
        if (isnan(row[i]) || fabs(row[i]) > s->max_abs[i])
            s->max_abs[i] = fabs(row[i]);
    memcpy(s->last_row, row, (size_t)s->width * sizeof(double));
    if (s->streaming) {
        FILE *fp = s->stream.fp;
        for (int i = 0; i < s->width; i++)
            fprintf(fp, i ? "\t%.17g" : "%.17g", row[i]);
        fputc('\n', fp);
        s->streamed_rows++;
        return;
    }
    memcpy(s->rows + (size_t)s->n_rows * s->width, row, (size_t)s->width * sizeof(double));
    s->n_rows++;
}

double solution_value(solution *s, int c, long long r)
{
    const column_info *col = &s->columns[c];
    const double *row = s->rows + (size_t)r * s->width;
    if (col->offset >= 0)
        return row[col->offset];
    const wb_model *m = model_instance_view(s->model);
    const double *q = row + 1, *p = row + 1 + s->nq;
    switch (col->derived) {
    case 1:
        wb_constraints(m, q, s->scratch);
        return s->scratch[col->index];
    case 2:
        wb_hidden_constraints(m, q, p, s->scratch);
        return s->scratch[col->index];
    case 3: {
        nonholonomic_residual(m, q, p, s->scratch + m->n_nonholonomic, s->scratch);
        return s->scratch[col->index];
    }
    }
    return NAN;
}

/* ---- progress bar ------------------------------------------------------------ */

typedef struct progress {
    int enabled, shown;
    double start, last;
} progress;

static void progress_update(progress *pg, long long done, long long total, double t)
{
    double now = now_seconds();
    if (now - pg->start < 2.0 || now - pg->last < 0.2)
        return;
    pg->last = now;
    pg->shown = 1;
    double fraction = total > 0 ? (double)done / (double)total : 1.0;
    int filled = (int)(fraction * 30.0);
    char bar[31];
    for (int i = 0; i < 30; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[30] = '\0';
    double eta = fraction > 0 ? (now - pg->start) * (1.0 - fraction) / fraction : 0;
    fprintf(stderr, "\r  [%s] %5.1f%%  t = %-12.6g ETA %.0f s   ", bar, 100.0 * fraction, t,
            eta);
    fflush(stderr);
}

static void progress_finish(progress *pg)
{
    if (pg->shown)
        fprintf(stderr, "\r%70s\r", "");
}

/* ---- run ----------------------------------------------------------------------- */

void solution_destroy(solution *s)
{
    if (!s)
        return;
    if (s->streaming && s->stream.fp)
        atomic_abort(&s->stream);
    model_instance_destroy(s->model); /* the solution's reference */
    for (int i = 0; i < s->n_columns; i++)
        free(s->columns[i].name);
    free(s->columns);
    for (int g = 0; g < s->n_aux_groups; g++)
        free(s->aux_groups[g].name);
    free(s->aux_groups);
    free(s->rows);
    free(s->last_row);
    free(s->max_abs);
    free(s->scratch);
    free(s->residuals.g);
    free(s->final_state);
    free(s->failure);
    free(s->stream_path);
    free(s);
}

static solution *solution_create(integrator *it, const run_options *opt)
{
    const wb_model *m = model_instance_view(it->model);
    solution *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->model = it->model;
    model_instance_retain(s->model);
    s->nq = m->nq, s->nv = m->nv;
    s->t0 = opt->t0, s->h = opt->h, s->ok = 1;
    s->stats.struct_size = sizeof s->stats;
    host_clear_error();
    if (keep_aux_groups(s, it) != 0 || build_columns(s, it) != 0)
        goto fail;
    int scratch = 2 * (m->nq + m->nv + m->n_holonomic + m->n_nonholonomic + 1);
    s->scratch = calloc((size_t)scratch, sizeof(double));
    s->residuals.g = calloc((size_t)(2 * m->n_holonomic + m->n_nonholonomic + m->nv + 1),
                            sizeof(double));
    if (s->residuals.g) {
        s->residuals.gv = s->residuals.g + m->n_holonomic;
        s->residuals.phi = s->residuals.gv + m->n_holonomic;
        s->residuals.v = s->residuals.phi + m->n_nonholonomic;
    }
    s->last_row = calloc((size_t)s->width, sizeof(double));
    s->max_abs = calloc((size_t)s->width, sizeof(double));
    s->final_state = calloc((size_t)(m->nq + m->nv + it->aux_total + 1), sizeof(double));
    if (!s->scratch || !s->residuals.g || !s->last_row || !s->max_abs || !s->final_state)
        goto fail;
    if (opt->stream_path) {
        if (atomic_open(&s->stream, opt->stream_path) != 0) {
            solution_destroy(s);
            return NULL;
        }
        s->streaming = 1;
        s->stream_path = strdup(opt->stream_path);
        solution_write_header(s, s->stream.fp);
        return s;
    }
    long long rows = opt->steps / opt->every + 2;
    double bytes = (double)rows * s->width * sizeof(double);
    if (bytes > 8e9) {
        host_error("recording %lld rows of %d values needs %.1f GB; record fewer rows "
                   "(every = %lld or more) or stream them to a file (stream = ...)", rows,
                   s->width, bytes / 1e9, opt->steps / 100000 + 1);
        solution_destroy(s);
        return NULL;
    }
    s->rows = malloc((size_t)rows * s->width * sizeof(double));
    if (!s->rows) {
        host_error("out of memory for %lld recorded rows (%.1f MB)", rows, bytes / 1e6);
        solution_destroy(s);
        return NULL;
    }
    s->capacity = rows;
    return s;
fail:
    if (!host_has_error())
        host_error("out of memory");
    solution_destroy(s);
    return NULL;
}

/* A step the method accepted whose state breaks what it claims (claims.h):
 * the driver refuses it like a step that failed. */
#define STEP_BROKE_CLAIM (-1)

/* The step's own message when it reported one (the slot is cleared before
 * every step), else what the driver saw. */
static int fail_step(solution *s, const method_config *cfg, const run_options *opt, long long n,
                     double t, int status)
{
    char message[1536];
    const char *why = host_has_error() ? host_last_error()
                      : status == WB_ERR_NONFINITE ? "the state became non-finite (NaN or Inf)"
                                                   : "the method reported no reason";
    char hint[256] = "";
    if (interrupt_requested)
        why = "interrupted";
    else if (status == WB_ERR_NEWTON && !strstr(why, "reduce h"))
        method_config_convergence_hint(cfg, opt->h, hint, sizeof hint);
    else if (status == STEP_BROKE_CLAIM)
        snprintf(hint, sizeof hint, "reduce h (now %g)", opt->h);
    snprintf(message, sizeof message, "step %lld (t = %s, h = %g) failed: %s%s%s", n + 1,
             host_number(t).text, opt->h, why, !hint[0] ? "" : status == STEP_BROKE_CLAIM ? "; to keep it: " : "; to converge: ", hint);
    host_error("%s", message);
    s->ok = 0;
    s->failure = strdup(message);
    s->failure_time = t;
    return opt->stop_on_failure && !interrupt_requested ? 0 : -1;
}

/* A failed write of the stream (a full disk, a file-size limit) stops the
 * run whatever on_failure says: the rows written before it are kept
 * (finish_stream), and the caller raises the error unless asked to stop. */
static int fail_stream(solution *s, const run_options *opt, long long n)
{
    const double t = opt->t0 + (double)n * opt->h;
    host_error_prefix("stream after step %lld (t = %s): ", n, host_number(t).text);
    s->ok = 0;
    s->stream_failed = 1;
    s->failure = strdup(host_last_error());
    s->failure_time = t;
    return 0;
}

/* Between recorded rows the claims are checked every CLAIM_STRIDE steps:
 * a recorded row and the last step are checked anyway, and a check on
 * every unrecorded step would cost RATTLE's pendulum step some 20 %. */
#define CLAIM_STRIDE 64

/* Steps until the next check of the claims, `to_record` steps before the
 * next recorded row and `left` before the end. */
static long long steps_to_check(long long to_record, long long left)
{
    long long k = CLAIM_STRIDE;
    if (to_record < k)
        k = to_record;
    return left < k ? left : k;
}

static int run_loop(integrator *it, solution *s, const run_options *opt, double *work,
                    double *row, claims *claimed)
{
    const wb_method *m = it->cfg->method;
    const int nq = s->nq, nv = s->nv;
    double *qa = work, *pa = qa + nq, *qb = pa + nv, *pb = qb + nq;
    double *aux = pb + nv;
    progress pg = {opt->progress, 0, now_seconds(), 0};
    long long until_record = opt->every, last_checked = 0;
    long long until_check = claimed && claims_any(claimed)
                                ? steps_to_check(opt->every, opt->steps) : LLONG_MAX;
    for (long long n = 0; n < opt->steps; n++) {
        const double t = opt->t0 + (double)n * opt->h;
        host_clear_error();
        int status = m->step(it->inst, t, opt->h, qa, pa, qb, pb, &s->stats);
        /* the pair (qb, pb) is contiguous in work: one test for both */
        if (status == WB_OK && !vec_all_finite(nq + nv, qb)) {
            host_clear_error(); /* a message the step recovered from is not the cause */
            status = WB_ERR_NONFINITE;
        }
        if (status == WB_OK && interrupt_requested)
            status = WB_ERR_INTERNAL;
        /* a recorded step's row is computed before its check, which reads
         * the row's residuals instead of evaluating them again */
        const int recorded = until_record == 1 || n + 1 == opt->steps;
        if (status == WB_OK && recorded) {
            if (s->n_aux)
                m->aux_values(it->inst, aux);
            solution_fill_row(s, opt->t0 + (double)(n + 1) * opt->h, qb, pb, aux, row);
        }
        if (status == WB_OK && --until_check == 0) {
            if (claims_check(claimed, qb, pb, n + 1 - last_checked,
                             recorded ? &s->residuals : NULL) != 0) {
                status = STEP_BROKE_CLAIM;
                s->final_aux_lost = 1;
            }
            last_checked = n + 1;
            until_check = steps_to_check(until_record > 1 ? until_record - 1 : opt->every,
                                         opt->steps - (n + 1));
        }
        if (status != WB_OK)
            return fail_step(s, it->cfg, opt, n, t, status);
        s->stats.steps++;
        s->steps_done = n + 1;
        double *swap = qa;
        qa = qb, qb = swap;
        swap = pa, pa = pb, pb = swap;
        if (recorded) {
            until_record = opt->every;
            record(s, row);
            /* a full disk is reported at its first failed write, not after the run */
            if (s->streaming && atomic_check(&s->stream) != 0)
                return fail_stream(s, opt, n + 1);
        } else {
            until_record--;
        }
        if (pg.enabled && (n & 1023) == 0)
            progress_update(&pg, n, opt->steps, t);
    }
    progress_finish(&pg);
    return 0;
}

/* q, p and every aux value after the last accepted step (the method's
 * carried unknowns still describe it after a failed step). */
static void keep_final_state(solution *s, const integrator *it, const double *work,
                             long long last_step)
{
    /* run_loop swaps its buffers after every step: after an odd number of
     * steps the current state lives in the second pair */
    const double *q = work + ((last_step % 2) ? s->nq + s->nv : 0);
    memcpy(s->final_state, q, (size_t)(s->nq + s->nv) * sizeof(double));
    if (s->aux_total > 0 && !s->final_aux_lost)
        it->cfg->method->aux_values(it->inst, s->final_state + s->nq + s->nv);
    s->final_time = s->t0 + (double)last_step * s->h;
}

/* start() of ABI 1.1 with the step size and any carried unknowns given;
 * a 1.0 method's reset() cannot take them. */
static int start_method(integrator *it, const run_options *opt, const double *q0,
                        const double *p0)
{
    const wb_method *m = it->cfg->method;
    descriptor_start_fn start = descriptor_start(m);
    if (start)
        return start(it->inst, opt->t0, opt->h, q0, p0, opt->aux0);
    if (opt->aux0 && it->aux_total > 0) {
        host_error("it was built against ABI 1.0 and cannot continue from given carried "
                   "unknowns (aux0); leave aux0 out to restart it from q0, p0");
        return WB_ERR_INVALID;
    }
    return m->reset(it->inst, opt->t0, q0, p0);
}

/* The scale of energy_error: |E0|, or the size of the kinetic and the
 * potential energy at t0, |T0| + |V0| (T0 = E0 - V0), when that is larger.
 * A total energy that cancels to round-off (tethered satellites: E0 =
 * 2.8e-17 from T and V of order one) is no scale for an error. */
static double energy_scale(const wb_model *m, const double *q0, double e0)
{
    double scale = fabs(e0);
    if (m->capabilities & WB_CAP_MECHANICAL) {
        double v = wb_potential(m, q0);
        if (isfinite(v) && isfinite(e0))
            scale = fmax(scale, fabs(e0 - v) + fabs(v));
    }
    return isfinite(scale) ? scale : 0.0;
}

/* The stream's file, renamed into place; after a failed write (in the
 * loop, or at the last flush) it keeps its header and the complete rows
 * before the failure, never a part of a row, and the failure says so. */
static int finish_stream(solution *s, const run_options *opt)
{
    long long lines = 0;
    if (atomic_commit_lines(&s->stream, &lines) == 0)
        return 0;
    if (!s->stream.failed_errno)
        return -1; /* no write failed: closing or renaming the file did */
    char message[2048];
    if (s->stream_failed)
        snprintf(message, sizeof message, "%s", s->failure);
    else /* the last flush: after the run, or after a step that failed */
        snprintf(message, sizeof message, "%s%sstream at its end (t = %.17g): %s",
                 s->failure ? s->failure : "", s->failure ? "; then the " : "", s->final_time,
                 host_last_error());
    const long long rows = lines > 0 ? lines - 1 : 0;
    size_t used = strlen(message);
    /* rows are recorded at steps 0, every, 2 every, ...; the last one,
     * at the end of the run, is never complete after a failed write */
    if (lines == 0)
        snprintf(message + used, sizeof message - used,
                 "; nothing of it was kept (not even its header line)");
    else if (rows == 0)
        snprintf(message + used, sizeof message - used, "; the file keeps its header line");
    else
        snprintf(message + used, sizeof message - used,
                 "; the file keeps its header and the %lld complete rows before it, up to "
                 "t = %.17g", rows, opt->t0 + (double)((rows - 1) * opt->every) * opt->h);
    host_error("%s", message);
    free(s->failure);
    s->failure = strdup(message);
    if (!s->stream_failed && s->ok)
        s->failure_time = s->final_time;
    s->ok = 0;
    s->stream_failed = lines > 0 ? 1 : 2;
    s->streamed_rows = rows;
    return 0;
}

solution *driver_run(integrator *it, const run_options *opt, const double *q0,
                     const double *p0)
{
    const wb_model *view = model_instance_view(it->model);
    char name[256];
    method_config_name(it->cfg, name, sizeof name);
    if (!(opt->h != 0 && isfinite(opt->h)) || opt->steps < 0 || opt->every < 1) {
        host_error("integrate: need a finite nonzero h, steps >= 0 and every >= 1");
        return NULL;
    }
    if (!vec_all_finite(view->nq, q0) || !vec_all_finite(view->nv, p0) ||
        (opt->aux0 && !vec_all_finite(it->aux_total, opt->aux0))) {
        host_error("integrate: the initial state has a non-finite entry");
        return NULL;
    }
    solution *s = solution_create(it, opt);
    if (!s)
        return NULL;
    const int nq = view->nq, nv = view->nv;
    double *work = calloc((size_t)(2 * (nq + nv) + it->aux_total + s->width + 1), sizeof(double));
    if (!work) {
        host_error("out of memory");
        solution_destroy(s);
        return NULL;
    }
    double *row = work + 2 * (nq + nv) + it->aux_total;
    memcpy(work, q0, (size_t)nq * sizeof(double));
    memcpy(work + nq, p0, (size_t)nv * sizeof(double));
    s->energy0 = view->energy.fn ? wb_energy(view, q0, p0) : 0;
    s->energy_scale = energy_scale(view, q0, s->energy0);
    host_clear_error();
    int status = start_method(it, opt, q0, p0);
    if (status != WB_OK) {
        host_error_prefix("method '%s' could not start from the initial state: ", name);
        free(work);
        solution_destroy(s);
        return NULL;
    }
    double *aux = work + 2 * (nq + nv);
    if (it->aux_total)
        it->cfg->method->aux_values(it->inst, aux);
    /* no interval before t0: its unknowns are NaN in the first row, and
     * that placeholder is no value for sol:max */
    set_interval_unknowns(it, aux, NAN);
    solution_fill_row(s, opt->t0, q0, p0, aux, row);
    record(s, row);
    forget_interval_placeholders(s);
    claims *claimed = NULL;
    if (!opt->ignore_claims &&
        !(claimed = claims_create(it, q0, p0, s->energy0, s->energy_scale))) {
        free(work);
        solution_destroy(s);
        return NULL;
    }
    double start = now_seconds();
    int failed = run_loop(it, s, opt, work, row, claimed);
    claims_destroy(claimed);
    s->seconds = now_seconds() - start;
    keep_final_state(s, it, work, s->steps_done);
    free(work);
    if (failed) {
        solution_destroy(s);
        return NULL;
    }
    if (s->streaming && finish_stream(s, opt) != 0) {
        solution_destroy(s);
        return NULL;
    }
    return s;
}
