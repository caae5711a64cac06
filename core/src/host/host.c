/* The service table handed to plugins, the error slot and logging. */
#include "host/host.h"
#include "host/tableau.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERROR_CAPACITY 1024

static char error_slot[ERROR_CAPACITY];
static int log_level = WB_LOG_WARNING;

static void error_vset(const char *fmt, va_list ap)
{
    vsnprintf(error_slot, sizeof error_slot, fmt, ap);
}

void host_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_vset(fmt, ap);
    va_end(ap);
}

void host_error_prefix(const char *fmt, ...)
{
    char prefix[ERROR_CAPACITY];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t head = strlen(prefix), tail = strlen(error_slot);
    if (head + tail >= ERROR_CAPACITY)
        tail = ERROR_CAPACITY - 1 - head; /* keep the prefix, truncate the old message */
    memmove(error_slot + head, error_slot, tail);
    memcpy(error_slot, prefix, head);
    error_slot[head + tail] = '\0';
}

const char *host_last_error(void)
{
    return error_slot[0] ? error_slot : "unknown error (no message reported)";
}

int host_has_error(void)
{
    return error_slot[0] != '\0';
}

void host_clear_error(void)
{
    error_slot[0] = '\0';
}

host_number_text host_number(double x)
{
    host_number_text out;
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out.text, sizeof out.text, "%.*g", digits, x);
        if (strtod(out.text, NULL) == x || x != x)
            break;
    }
    return out;
}

int host_parse_number(const char *text, double *out)
{
    if (!*text || strspn(text, "0123456789+-.eE") != strlen(text))
        return -1;
    char *end = NULL;
    errno = 0;
    double x = strtod(text, &end);
    if (end == text || *end || errno == ERANGE || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

void host_set_log_level(int level)
{
    log_level = level;
}

static void log_vprint(int level, const char *fmt, va_list ap)
{
    static const char *const label[] = {"debug", "info", "warning"};
    if (level < log_level)
        return;
    if (level < WB_LOG_DEBUG || level > WB_LOG_WARNING)
        level = WB_LOG_WARNING;
    fprintf(stderr, "workbench: %s: ", label[level]);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void host_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vprint(WB_LOG_WARNING, fmt, ap);
    va_end(ap);
}

static void service_error(const wb_host *host, const char *fmt, ...)
{
    va_list ap;
    (void)host;
    va_start(ap, fmt);
    error_vset(fmt, ap);
    va_end(ap);
}

static void service_log(const wb_host *host, int level, const char *fmt, ...)
{
    va_list ap;
    (void)host;
    va_start(ap, fmt);
    log_vprint(level, fmt, ap);
    va_end(ap);
}

static const wb_tableau *service_tableau_family(const wb_host *host,
                                                const char *family, int s)
{
    (void)host;
    return tableau_family(family, s);
}

static const wb_tableau *service_tableau_named(const wb_host *host,
                                               const char *name)
{
    (void)host;
    return tableau_named(name);
}

static const wb_host the_host = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_host),
    .error = service_error,
    .log = service_log,
    .lu_factor = linalg_lu_factor,
    .lu_solve = linalg_lu_solve,
    .dense_solve = linalg_dense_solve,
    .cholesky_factor = linalg_cholesky_factor,
    .cholesky_solve = linalg_cholesky_solve,
    .banded_solve = linalg_banded_solve,
    .newton_create = newton_create,
    .newton_destroy = newton_destroy,
    .newton_solve = newton_solve,
    .newton_defaults = newton_defaults,
    .tableau_family = service_tableau_family,
    .tableau_named = service_tableau_named,
    .sparse_lu_create = sparse_lu_create,
    .sparse_lu_destroy = sparse_lu_destroy,
    .sparse_lu_factor = sparse_lu_factor,
    .sparse_lu_solve = sparse_lu_solve,
    .sparse_lu_band = sparse_lu_band,
    .newton_create_sparse = newton_create_sparse,
    .newton_set_rank_one = newton_set_rank_one,
};

const wb_host *host_services(void)
{
    return &the_host;
}
