/* The host's side of the service table: the singleton wb_host and the
 * error slot shared by the host and its plugins. */
#ifndef CORE_HOST_H
#define CORE_HOST_H

#include <workbench/workbench.h>

/* The one service table of this process. */
const wb_host *host_services(void);

/* Error slot: plugins write it through wb_host.error, the core through
 * host_error(); readers take the message after a failing call. */
void host_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *host_last_error(void);
int host_has_error(void);
void host_clear_error(void);
/* Prefix the current error message with context ("model 'x': "). */
void host_error_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* x as the shortest decimal that reads back as x (%.15g, %.16g or %.17g), so
 * that a message never shows a bound rounded onto the value it refuses. */
typedef struct host_number_text {
    char text[32];
} host_number_text;
host_number_text host_number(double x);
/* A number as a user types it: a whole finite decimal number and nothing
 * else ("9.81", "-2", "1e-8"); never "", "abc", "9.81junk", "0x10", "inf",
 * "1e999".  0, or -1 leaving *out alone. */
int host_parse_number(const char *text, double *out);

/* Verbosity of wb_host.log: messages below this level are dropped. */
void host_set_log_level(int level);
void host_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Linear algebra and Newton, also used by the core directly. */
int linalg_lu_factor(const wb_host *host, int n, double *A, int *ipiv);
int linalg_lu_solve(const wb_host *host, int n, int nrhs, const double *LU,
                    const int *ipiv, double *B);
int linalg_dense_solve(const wb_host *host, int n, int nrhs, double *A,
                       int *ipiv, double *B);
int linalg_cholesky_factor(const wb_host *host, int n, double *A);
int linalg_cholesky_solve(const wb_host *host, int n, int nrhs,
                          const double *L, double *B);
int linalg_banded_solve(const wb_host *host, int n, int kl, int ku, double *AB,
                        int ldab, int *ipiv, int nrhs, double *B);

wb_sparse_lu *sparse_lu_create(const wb_host *host, const wb_sparse_pattern *pattern);
void sparse_lu_destroy(const wb_host *host, wb_sparse_lu *lu);
int sparse_lu_factor(const wb_host *host, wb_sparse_lu *lu, const double *values);
int sparse_lu_solve(const wb_host *host, wb_sparse_lu *lu, int nrhs, double *B);
void sparse_lu_band(const wb_host *host, const wb_sparse_lu *lu, int *kl, int *ku);

wb_newton *newton_create(const wb_host *host, int n);
wb_newton *newton_create_sparse(const wb_host *host, const wb_sparse_pattern *pattern);
void newton_set_rank_one(const wb_host *host, wb_newton *ws, wb_rank_one_fn rank_one);
void newton_destroy(const wb_host *host, wb_newton *ws);
int newton_solve(const wb_host *host, wb_newton *ws, wb_residual_fn residual,
                 wb_jacobian_fn jacobian, void *user, double *x,
                 const wb_newton_options *opt, wb_step_stats *stats,
                 wb_newton_report *report);
void newton_defaults(const wb_host *host, wb_newton_options *opt);

#endif
