/* A chain of N rigid links: N point masses x_1 .. x_N in R^d (d = 2, or 3
 * with spatial = 1), link k joining x_(k-1) and x_k with x_0 = 0 the fixed
 * pivot, gravity along the last axis:
 *
 *   q = (x_1, ..., x_N) in R^(dN),  M = m I,
 *   V = m g sum_k x_k,d + kb/2 sum_(j=1..N-1) (|x_(j+1) - x_(j-1)|^2 - 4 l^2)^2,
 *   g_k(q) = (|x_k - x_(k-1)|^2 - l^2) / 2,   k = 1..N.
 *
 * The second term (kb > 0; 0 by default) is a bending stiffness: zero for
 * a straight chain, quartic in q, its Hessian couples x_(j-1) and x_(j+1)
 * (blocks two points apart: banded), and it makes the energy-momentum
 * schemes' discrete gradients differ from the midpoint gradient.
 *
 * G has 2d nonzeros a row (d in the first), G M^-1 G^T is tridiagonal,
 * T(q; mu) = sum_k mu_k D^2 g_k is block tridiagonal with diagonal blocks
 * (each D^2 g_k is [I -I; -I I] on (x_(k-1), x_k)), and V is linear for
 * kb = 0 (an empty Hessian pattern), its Hessian banded otherwise: the
 * model declares all of it (wb.sparsity/1), so a method that uses the
 * patterns steps in O(N).  The dense callbacks stay the reference that
 * check-model compares against; they cost O(N^2) memory per call, so a
 * method without the patterns is for small N only.
 *
 * Spatially, gravity and every link are invariant under rotations about
 * the vertical axis: Lz = sum_k (x_k x p_k)_3 is a momentum map.
 *
 * Default state: link k leaves x_(k-1) at the angle theta_k = (pi/6)
 * cos(pi k / (N + 1)) from the downward vertical (spatially also at the
 * azimuth phi_k = pi k / (2 N)), and turns at omega_k = 0.5 exp(-(k-1)/4)
 * rad/s about its own start (spatially also sigma_k = 0.4 exp(-(k-1)/4)
 * along the azimuth): a swing of the whole chain and a kick near the
 * pivot, with speeds that do not grow with N.  Each link's relative
 * velocity is orthogonal to the link, so the state lies on both
 * constraint levels. */
#include <workbench/workbench.h>

#include "wb_model_plugin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct chain {
    int N, d, n;             /* links, dimension, nq = d N          */
    double m, l, g, kb;
    int *G_start, *G_columns; /* the patterns (wb.sparsity/1)        */
    int *T_start, *T_columns;
    int *H_start, *H_columns; /* the Hessian of V: empty for kb = 0  */
    double *row_values;      /* G's nonzeros, for the dense callbacks */
    wb_sparse_pattern G, T, H;
} chain;

enum { P_N, P_SPATIAL, P_M, P_L, P_G, P_KB };
static const wb_param_spec params[] = {
    {"N", 4, 1, 10000, "number of links (and of point masses and constraints)"},
    {"spatial", 0, 0, 1, "0: planar links in R^2, 1: spatial links in R^3"},
    {"m", 1.0, 1e-12, 1e12, "mass of each point"},
    {"l", 1.0, 1e-12, 1e12, "length of each link"},
    {"g", 9.81, 0.0, 1e12, "gravitational acceleration (along -e_d)"},
    {"kb", 0.0, 0.0, 1e6,
     "bending stiffness: V += kb/2 sum_j (|x_(j+1) - x_(j-1)|^2 - 4 l^2)^2 (x_0 the pivot), "
     "zero for a straight chain; 0: gravity alone"},
};

static const char *const invariant_names[] = {"Lz"};

static void destroy(void *self)
{
    chain *c = self;
    if (!c)
        return;
    free(c->G_start);
    free(c->G_columns);
    free(c->T_start);
    free(c->T_columns);
    free(c->H_start);
    free(c->H_columns);
    free(c->row_values);
    free(c);
}

/* Row k of G: the coordinates of x_(k-1) (k > 0) and of x_k, in order.
 * Row r of T: the same component of the previous, this and the next point.
 * Row r of Hess V (kb > 0): every component of the points two before, at
 * and two after r's point. */
static int build_patterns(chain *c)
{
    const int N = c->N, d = c->d, n = c->n;
    const int G_nnz = d + 2 * d * (N - 1), T_nnz = n + 2 * d * (N - 1);
    const int H_nnz = c->kb > 0 ? d * n + (N > 2 ? 2 * d * d * (N - 2) : 0) : 0;
    c->G_start = malloc(((size_t)N + 1) * sizeof(int));
    c->G_columns = malloc((size_t)G_nnz * sizeof(int));
    c->T_start = malloc(((size_t)n + 1) * sizeof(int));
    c->T_columns = malloc((size_t)T_nnz * sizeof(int));
    c->H_start = calloc((size_t)n + 1, sizeof(int));
    c->H_columns = malloc(((size_t)H_nnz + 1) * sizeof(int));
    c->row_values = malloc((size_t)G_nnz * sizeof(double));
    if (!c->G_start || !c->G_columns || !c->T_start || !c->T_columns || !c->H_start ||
        !c->H_columns || !c->row_values)
        return -1;
    int at = 0;
    for (int k = 0; k < N; k++) {
        c->G_start[k] = at;
        for (int j = (k > 0 ? d * (k - 1) : 0); j < d * (k + 1); j++)
            c->G_columns[at++] = j;
    }
    c->G_start[N] = at;
    at = 0;
    for (int r = 0; r < n; r++) {
        c->T_start[r] = at;
        if (r >= d)
            c->T_columns[at++] = r - d;
        c->T_columns[at++] = r;
        if (r + d < n)
            c->T_columns[at++] = r + d;
    }
    c->T_start[n] = at;
    at = 0;
    for (int r = 0; c->kb > 0 && r < n; r++) {
        const int a = r / d;
        c->H_start[r] = at;
        for (int b = a - 2; b <= a + 2; b += 2)
            if (b >= 0 && b < N)
                for (int j = 0; j < d; j++)
                    c->H_columns[at++] = d * b + j;
    }
    c->H_start[n] = at;
    c->G = (wb_sparse_pattern){sizeof(wb_sparse_pattern), N, n, G_nnz, c->G_start, c->G_columns};
    c->T = (wb_sparse_pattern){sizeof(wb_sparse_pattern), n, n, T_nnz, c->T_start, c->T_columns};
    c->H = (wb_sparse_pattern){sizeof(wb_sparse_pattern), n, n, at, c->H_start, c->H_columns};
    return 0;
}

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    if (values[P_N] != floor(values[P_N]) || values[P_SPATIAL] != floor(values[P_SPATIAL])) {
        host->error(host, "pendulum_chain: N = %g and spatial = %g must be integers",
                    values[P_N], values[P_SPATIAL]);
        return WB_ERR_INVALID;
    }
    chain *c = calloc(1, sizeof *c);
    if (!c) {
        host->error(host, "pendulum_chain: out of memory");
        return WB_ERR_NOMEM;
    }
    c->N = (int)values[P_N];
    c->d = values[P_SPATIAL] != 0 ? 3 : 2;
    c->n = c->d * c->N;
    c->m = values[P_M], c->l = values[P_L], c->g = values[P_G], c->kb = values[P_KB];
    if (build_patterns(c) != 0) {
        destroy(c);
        host->error(host, "pendulum_chain: out of memory for N = %d", (int)values[P_N]);
        return WB_ERR_NOMEM;
    }
    *self = c;
    info->nq = info->nv = c->n;
    info->n_holonomic = c->N;
    info->mass_constant = 1;
    info->n_invariants = c->d == 3 ? 1 : 0;
    info->invariant_names = invariant_names;
    return WB_OK;
}

/* ---- mechanics ----------------------------------------------------------- */

static void mass(void *self, const double *q, double *M)
{
    const chain *c = self;
    (void)q;
    memset(M, 0, (size_t)c->n * c->n * sizeof(double));
    for (int i = 0; i < c->n; i++)
        M[(size_t)i * c->n + i] = c->m;
}

static void mass_solve(void *self, const double *q, const double *p, double *v)
{
    const chain *c = self;
    (void)q;
    for (int i = 0; i < c->n; i++)
        v[i] = p[i] / c->m;
}

/* Bending term j = 1..N-1 (0-based points): e = x(j) - x(j-2), x(-1) the
 * pivot; returns s = |e|^2 - 4 l^2. */
static double bend(const chain *c, const double *q, int j, double e[3])
{
    double r2 = 0;
    for (int i = 0; i < c->d; i++) {
        e[i] = q[c->d * j + i] - (j >= 2 ? q[c->d * (j - 2) + i] : 0.0);
        r2 += e[i] * e[i];
    }
    return r2 - 4 * c->l * c->l;
}

static double potential(void *self, const double *q)
{
    const chain *c = self;
    double height = 0, bending = 0, e[3];
    for (int k = 0; k < c->N; k++)
        height += q[c->d * k + c->d - 1];
    for (int j = 1; c->kb > 0 && j < c->N; j++) {
        const double s = bend(c, q, j, e);
        bending += s * s;
    }
    return c->m * c->g * height + 0.5 * c->kb * bending;
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    const chain *c = self;
    double e[3];
    memset(grad, 0, (size_t)c->n * sizeof(double));
    for (int k = 0; k < c->N; k++)
        grad[c->d * k + c->d - 1] = c->m * c->g;
    for (int j = 1; c->kb > 0 && j < c->N; j++) {
        const double s = bend(c, q, j, e);
        for (int i = 0; i < c->d; i++) {
            grad[c->d * j + i] += 2 * c->kb * s * e[i];
            if (j >= 2)
                grad[c->d * (j - 2) + i] -= 2 * c->kb * s * e[i];
        }
    }
}

/* The block of Hess V between points a and b (|a - b| = 0 or 2) into A
 * (d x d): term j's kb (4 e e^T + 2 s I) on (j, j) and (j - 2, j - 2), its
 * negative on (j, j - 2) and (j - 2, j). */
static void add_bend_term(const chain *c, const double *q, int j, double sign, double *A)
{
    double e[3];
    if (j < 1 || j >= c->N)
        return;
    const double s = bend(c, q, j, e);
    for (int i = 0; i < c->d; i++)
        for (int k = 0; k < c->d; k++)
            A[i * c->d + k] += sign * c->kb * (4 * e[i] * e[k] + (i == k ? 2 * s : 0.0));
}

static void hessian_block(const chain *c, const double *q, int a, int b, double *A)
{
    memset(A, 0, (size_t)c->d * c->d * sizeof(double));
    if (a == b) { /* the terms j = a (a as x(j)) and j = a + 2 (a as x(j - 2)) */
        add_bend_term(c, q, a, 1.0, A);
        add_bend_term(c, q, a + 2, 1.0, A);
    } else {
        add_bend_term(c, q, a > b ? a : b, -1.0, A);
    }
}

static void potential_hessian(void *self, const double *q, double *H)
{
    const chain *c = self;
    const int d = c->d;
    double A[9];
    memset(H, 0, (size_t)c->n * c->n * sizeof(double));
    for (int a = 0; c->kb > 0 && a < c->N; a++)
        for (int b = a - 2; b <= a + 2; b += 2) {
            if (b < 0 || b >= c->N)
                continue;
            hessian_block(c, q, a, b, A);
            for (int i = 0; i < d; i++)
                for (int k = 0; k < d; k++)
                    H[(size_t)(d * a + i) * c->n + d * b + k] = A[i * d + k];
        }
}

/* ---- the links -------------------------------------------------------------- */

/* x_k - x_(k-1), component j (x_0 = 0) */
static double link(const chain *c, const double *q, int k, int j)
{
    return q[c->d * k + j] - (k > 0 ? q[c->d * (k - 1) + j] : 0.0);
}

static void constraints(void *self, const double *q, double *g)
{
    const chain *c = self;
    for (int k = 0; k < c->N; k++) {
        double r2 = 0;
        for (int j = 0; j < c->d; j++) {
            const double e = link(c, q, k, j);
            r2 += e * e;
        }
        g[k] = 0.5 * (r2 - c->l * c->l);
    }
}

/* Row k: -(x_k - x_(k-1)) on x_(k-1), x_k - x_(k-1) on x_k (pattern order). */
static void jacobian_values(void *self, const double *q, double *values)
{
    const chain *c = self;
    double *v = values;
    for (int k = 0; k < c->N; k++) {
        if (k > 0)
            for (int j = 0; j < c->d; j++)
                *v++ = -link(c, q, k, j);
        for (int j = 0; j < c->d; j++)
            *v++ = link(c, q, k, j);
    }
}

/* Row k of B(q; w) = D_q[G w]: (w_(k-1) - w_k) on x_(k-1), (w_k - w_(k-1)) on x_k. */
static void hessian_vector_values(void *self, const double *q, const double *w, double *values)
{
    const chain *c = self;
    double *v = values;
    (void)q;
    for (int k = 0; k < c->N; k++) {
        if (k > 0)
            for (int j = 0; j < c->d; j++)
                *v++ = -(w[c->d * k + j] - w[c->d * (k - 1) + j]);
        for (int j = 0; j < c->d; j++)
            *v++ = w[c->d * k + j] - (k > 0 ? w[c->d * (k - 1) + j] : 0.0);
    }
}

/* T(q; mu): on point p's components mu_p + mu_(p+1) (mu_(p+1) of the link
 * after it, if any), -mu_(p+1) between p and p+1. */
static void hessian_contract_values(void *self, const double *q, const double *mu,
                                    double *values)
{
    const chain *c = self;
    double *v = values;
    (void)q;
    for (int r = 0; r < c->n; r++) {
        const int k = r / c->d; /* the point (0-based) and the link ending at it */
        if (r >= c->d)
            *v++ = -mu[k];
        *v++ = mu[k] + (k + 1 < c->N ? mu[k + 1] : 0.0);
        if (r + c->d < c->n)
            *v++ = -mu[k + 1];
    }
}

/* The dense matrices: the values of the same functions, scattered. */
static void scatter_rows(const chain *c, const double *values, double *dense)
{
    memset(dense, 0, (size_t)c->N * c->n * sizeof(double));
    for (int k = 0; k < c->N; k++)
        for (int e = c->G_start[k]; e < c->G_start[k + 1]; e++)
            dense[(size_t)k * c->n + c->G_columns[e]] = values[e];
}

static void jacobian(void *self, const double *q, double *G)
{
    chain *c = self;
    jacobian_values(self, q, c->row_values);
    scatter_rows(c, c->row_values, G);
}

static void hessian_vector(void *self, const double *q, const double *w, double *B)
{
    chain *c = self;
    hessian_vector_values(self, q, w, c->row_values);
    scatter_rows(c, c->row_values, B);
}

static void hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    const chain *c = self;
    double row[3];
    memset(T, 0, (size_t)c->n * c->n * sizeof(double));
    for (int r = 0; r < c->n; r++) {
        const int k = r / c->d;
        int count = 0;
        if (r >= c->d)
            row[count++] = -mu[k];
        row[count++] = mu[k] + (k + 1 < c->N ? mu[k + 1] : 0.0);
        if (r + c->d < c->n)
            row[count++] = -mu[k + 1];
        for (int e = 0; e < count; e++)
            T[(size_t)r * c->n + c->T_columns[c->T_start[r] + e]] = row[e];
    }
    (void)q;
}

/* ---- sparsity ------------------------------------------------------------------- */

static void mass_diagonal(void *self, const double *q, double *diagonal)
{
    const chain *c = self;
    (void)q;
    for (int i = 0; i < c->n; i++)
        diagonal[i] = c->m;
}

static const wb_sparse_pattern *jacobian_pattern(void *self) { return &((chain *)self)->G; }
static const wb_sparse_pattern *contract_pattern(void *self) { return &((chain *)self)->T; }
static const wb_sparse_pattern *hessian_pattern(void *self) { return &((chain *)self)->H; }

/* In the pattern's order: row (a, i), then the blocks b = a - 2, a, a + 2. */
static void potential_hessian_values(void *self, const double *q, double *values)
{
    const chain *c = self;
    const int d = c->d;
    double A[9];
    for (int a = 0; c->kb > 0 && a < c->N; a++) /* kb = 0: no nonzeros */
        for (int i = 0; i < d; i++)
            for (int b = a - 2; b <= a + 2; b += 2) {
                if (b < 0 || b >= c->N)
                    continue;
                hessian_block(c, q, a, b, A);
                for (int k = 0; k < d; k++)
                    *values++ = A[i * d + k];
            }
}

/* ---- invariants and the initial state ------------------------------------------- */

static void evaluate(void *self, const double *q, const double *p, double *out)
{
    const chain *c = self;
    double lz = 0;
    for (int k = 0; k < c->N; k++)
        lz += q[3 * k] * p[3 * k + 1] - q[3 * k + 1] * p[3 * k];
    out[0] = lz;
}

/* Rotation about e3 of every point: xi_k = e3 x x_k. */
static int generator(void *self, int index, const double *q, double *xi)
{
    const chain *c = self;
    if (index != 0 || c->d != 3)
        return -1;
    for (int k = 0; k < c->N; k++) {
        xi[3 * k] = -q[3 * k + 1];
        xi[3 * k + 1] = q[3 * k];
        xi[3 * k + 2] = 0.0;
    }
    return 0;
}

static void initial(void *self, double *q, double *p)
{
    const chain *c = self;
    const double pi = acos(-1.0);
    double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    for (int k = 1; k <= c->N; k++) {
        const double theta = (pi / 6) * cos(pi * k / (c->N + 1.0));
        const double omega = 0.5 * exp(-(k - 1) / 4.0);
        double u[3], du[3];
        if (c->d == 2) {
            u[0] = sin(theta), u[1] = -cos(theta);
            du[0] = omega * cos(theta), du[1] = omega * sin(theta);
        } else {
            const double phi = pi * k / (2.0 * c->N);
            const double sigma = 0.4 * exp(-(k - 1) / 4.0);
            u[0] = sin(theta) * cos(phi), u[1] = sin(theta) * sin(phi), u[2] = -cos(theta);
            /* omega along e_theta, sigma along e_phi: both orthogonal to u */
            du[0] = omega * cos(theta) * cos(phi) - sigma * sin(phi);
            du[1] = omega * cos(theta) * sin(phi) + sigma * cos(phi);
            du[2] = omega * sin(theta);
        }
        for (int j = 0; j < c->d; j++) {
            x[j] += c->l * u[j];
            v[j] += c->l * du[j];
            q[c->d * (k - 1) + j] = x[j];
            p[c->d * (k - 1) + j] = c->m * v[j];
        }
    }
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = mass_solve,
    .potential = potential,
    .potential_gradient = potential_gradient,
    .potential_hessian = potential_hessian,
};

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = WB_HOLONOMIC_QUADRATIC,
    .constraints = constraints,
    .jacobian = jacobian,
    .hessian_contract = hessian_contract,
    .hessian_vector = hessian_vector,
};

static const wb_sparsity_ext sparsity = {
    .struct_size = sizeof(wb_sparsity_ext),
    .mass_diagonal = mass_diagonal,
    .jacobian_pattern = jacobian_pattern,
    .jacobian_values = jacobian_values,
    .hessian_vector_values = hessian_vector_values,
    .hessian_contract_pattern = contract_pattern,
    .hessian_contract_values = hessian_contract_values,
    .potential_hessian_pattern = hessian_pattern,
    .potential_hessian_values = potential_hessian_values,
};

static const wb_invariants_ext invariants = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = evaluate,
    .generator = generator,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const wb_extension_entry extensions[] = {
    {WB_EXT_MECHANICAL, &mechanical},
    {WB_EXT_HOLONOMIC, &holonomic},
    {WB_EXT_SPARSITY, &sparsity},
    {WB_EXT_INVARIANTS, &invariants},
    {WB_EXT_INITIAL_STATE, &initial_state},
};

WB_MODEL_PLUGIN("pendulum_chain",
                "N rigid links in the plane or in space (spatial = 1), N holonomic constraints, "
                "sparse (wb.sparsity/1)",
                "chain of N point masses on rigid links, declared sparse for O(N) methods",
                params, create, destroy, extensions);
