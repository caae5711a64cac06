/* A fully chaotic nonholonomic system (McLachlan and Perlmutter; the test
 * of Jay and of Martin de Diego and Sato Martin de Almagro, seed 001,
 * section 7.3), on R^n with n = 2m + 1:
 *
 *   L = |v|^2 / 2 - V(q),
 *   V = ( |q|^2 + q_{m+2}^2 q_{m+3}^2 + sum_{i=1..m} q_{1+i}^2 q_{m+1+i}^2 ) / 2,
 *   Phi = v_1 + sum_{i=m+2..n} q_i v_i = 0          (1-based indices).
 *
 * The constraint is linear in v, so the energy is conserved (it is the
 * only first integral).  Initial data: the paper's ensemble of J + 1
 * members, member j:
 *   q0 = (alpha, 0.6, 0.4, 0.2, 1, 1, 1),  v0 = (0, beta, 0, ..., 0),
 *   alpha = cos(j pi / (2J)),  beta = sin(j pi / (2J)),
 * all on the energy surface E0 = 3.06 (m = 3).  For m != 3 (not in the
 * paper) q0 = (alpha, 0.2 m, 0.2 (m - 1), ..., 0.2, 1, ..., 1). */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct chaotic {
    int m, n, members, member;
} chaotic;

enum { P_M, P_MEMBERS, P_MEMBER };
static const wb_param_spec params[] = {
    {"m", 3, 2, 20, "n = 2m + 1 coordinates (an integer)"},
    {"members", 20, 1, 1e6, "J: the initial-data ensemble has J + 1 members (an integer)"},
    {"member", 0, 0, 1e6, "j = 0..J: which member m:initial() returns (an integer)"},
};

static int whole(const wb_host *host, const char *name, double value)
{
    if (value == floor(value))
        return 1;
    host->error(host, "chaotic_nonholonomic: parameter '%s' must be an integer, got %g", name,
                value);
    return 0;
}

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    if (!whole(host, "m", values[P_M]) || !whole(host, "members", values[P_MEMBERS]) ||
        !whole(host, "member", values[P_MEMBER]))
        return WB_ERR_INVALID;
    if (values[P_MEMBER] > values[P_MEMBERS]) {
        host->error(host, "chaotic_nonholonomic: member %g is not in 0..members = 0..%g",
                    values[P_MEMBER], values[P_MEMBERS]);
        return WB_ERR_INVALID;
    }
    chaotic *c = malloc(sizeof *c);
    if (!c) {
        host->error(host, "chaotic_nonholonomic: out of memory");
        return WB_ERR_NOMEM;
    }
    c->m = (int)values[P_M], c->n = 2 * c->m + 1;
    c->members = (int)values[P_MEMBERS], c->member = (int)values[P_MEMBER];
    *self = c;
    info->nq = info->nv = c->n;
    info->n_nonholonomic = 1;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static void mass(void *self, const double *q, double *M)
{
    const int n = ((const chaotic *)self)->n;
    (void)q;
    memset(M, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++)
        M[i * n + i] = 1.0;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    (void)q;
    memcpy(v, p, (size_t)((const chaotic *)self)->n * sizeof(double));
}

/* The quartic couplings q_a^2 q_b^2 / 2 (0-based pairs): (m+1, m+2) and
 * (i, m+i) for i = 1..m. */
static int coupling(const chaotic *c, int index, int *a, int *b)
{
    if (index == 0) {
        *a = c->m + 1, *b = c->m + 2;
        return 1;
    }
    if (index > c->m)
        return 0;
    *a = index, *b = c->m + index;
    return 1;
}

static double potential(void *self, const double *q)
{
    const chaotic *c = self;
    double V = 0.0;
    for (int i = 0; i < c->n; i++)
        V += q[i] * q[i];
    int a, b;
    for (int k = 0; coupling(c, k, &a, &b); k++)
        V += q[a] * q[a] * q[b] * q[b];
    return 0.5 * V;
}

static void gradient(void *self, const double *q, double *g)
{
    const chaotic *c = self;
    memcpy(g, q, (size_t)c->n * sizeof(double));
    int a, b;
    for (int k = 0; coupling(c, k, &a, &b); k++) {
        g[a] += q[a] * q[b] * q[b];
        g[b] += q[a] * q[a] * q[b];
    }
}

static void hessian(void *self, const double *q, double *H)
{
    const chaotic *c = self;
    const int n = c->n;
    memset(H, 0, (size_t)n * n * sizeof(double));
    for (int i = 0; i < n; i++)
        H[i * n + i] = 1.0;
    int a, b;
    for (int k = 0; coupling(c, k, &a, &b); k++) {
        H[a * n + a] += q[b] * q[b];
        H[b * n + b] += q[a] * q[a];
        H[a * n + b] += 2.0 * q[a] * q[b];
        H[b * n + a] += 2.0 * q[a] * q[b];
    }
}

/* Phi = v_1 + sum_{l = m+1..2m} q_l v_l (0-based) */
static void constraint(void *self, const double *q, const double *v, double *phi)
{
    const chaotic *c = self;
    double sum = v[0];
    for (int l = c->m + 1; l < c->n; l++)
        sum += q[l] * v[l];
    phi[0] = sum;
}

static void constraint_v(void *self, const double *q, const double *v, double *A)
{
    const chaotic *c = self;
    (void)v;
    memset(A, 0, (size_t)c->n * sizeof(double));
    A[0] = 1.0;
    for (int l = c->m + 1; l < c->n; l++)
        A[l] = q[l];
}

static void constraint_q(void *self, const double *q, const double *v, double *B)
{
    const chaotic *c = self;
    (void)q;
    memset(B, 0, (size_t)c->n * sizeof(double));
    for (int l = c->m + 1; l < c->n; l++)
        B[l] = v[l];
}

static void constraint_vv(void *self, const double *q, const double *v, const double *lam,
                          double *out)
{
    const int n = ((const chaotic *)self)->n;
    (void)q, (void)v, (void)lam;
    memset(out, 0, (size_t)n * n * sizeof(double));
}

static void constraint_qv(void *self, const double *q, const double *v, const double *lam,
                          double *out)
{
    const chaotic *c = self;
    const int n = c->n;
    (void)q, (void)v;
    memset(out, 0, (size_t)n * n * sizeof(double));
    for (int l = c->m + 1; l < n; l++)
        out[l * n + l] = lam[0];
}

static void initial(void *self, double *q, double *p)
{
    const chaotic *c = self;
    const double angle = c->member * M_PI / (2.0 * c->members);
    memset(q, 0, (size_t)c->n * sizeof(double));
    memset(p, 0, (size_t)c->n * sizeof(double));
    q[0] = cos(angle);
    for (int i = 1; i <= c->m; i++)
        q[i] = 0.2 * (c->m + 1 - i);
    for (int l = c->m + 1; l < c->n; l++)
        q[l] = 1.0;
    p[1] = sin(angle);
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = mass_solve,
    .potential = potential,
    .potential_gradient = gradient,
    .potential_hessian = hessian,
};

static const wb_nonholonomic_ext nonholonomic = {
    .struct_size = sizeof(wb_nonholonomic_ext),
    .flags = WB_NONHOLONOMIC_LINEAR,
    .constraints = constraint,
    .jacobian_v = constraint_v,
    .jacobian_q = constraint_q,
    .hessian_vv_contract = constraint_vv,
    .hessian_qv_contract = constraint_qv,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_NONHOLONOMIC, &nonholonomic},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("chaotic_nonholonomic",
                "McLachlan-Perlmutter's chaotic nonholonomic system on R^(2m+1) and its "
                "E0 = 3.06 ensemble (seed 001, section 7.3)",
                "chaotic nonholonomic system", params, create, destroy, extensions);
