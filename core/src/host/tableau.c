/* Butcher tableaux: generation, registry and checks.
 *
 * Nodes come from Golub-Welsch (LAPACK dstev on the Jacobi matrix of the
 * relevant Jacobi polynomial), polished by Newton on the defining Legendre
 * combination.  Collocation coefficients a_ij = int_0^{c_i} l_j and
 * weights b_j = int_0^1 l_j are integrated exactly by a Gauss rule with
 * the Lagrange basis evaluated in barycentric form.  The families defined
 * by D(s) (Radau IA, Lobatto IIIB) or by C(s-1) plus a fixed column
 * (Lobatto IIIC, IIIC*) solve their defining conditions written in the
 * shifted Legendre basis, which keeps the systems well conditioned. */
#include "host/tableau.h"
#include "host/host.h"

#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- registry ------------------------------------------------------------ */

typedef struct stored_tableau {
    wb_tableau t;
    int builtin;    /* generated or named: found by name; user ones are not */
    long refs;      /* user tableaux: references held                      */
    char name[64];
    double data[];  /* a, b, c, [a2, b2, c2] */
} stored_tableau;

static int method_order(const wb_tableau *t, int as_pair);

static stored_tableau **registry;
static int registry_count, registry_capacity;

/* Built-in tableaux only: a tableau a script builds is passed as an object,
 * and can never stand in for a built-in one of the same name. */
static const wb_tableau *registry_find(const char *name)
{
    for (int i = 0; i < registry_count; i++)
        if (registry[i]->builtin && strcmp(registry[i]->name, name) == 0)
            return &registry[i]->t;
    return NULL;
}

/* A name cut in the middle of a character would be no text (in the JSON
 * metadata, say). */
void tableau_copy_name(char *out, size_t size, const char *name)
{
    size_t n = strlen(name);
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80)
            n--;
    }
    memcpy(out, name, n);
    out[n] = '\0';
}

static stored_tableau *stored_alloc(const char *name, int s, int pair)
{
    size_t count = (size_t)(pair ? 2 : 1) * ((size_t)s * s + 2 * (size_t)s);
    stored_tableau *st = calloc(1, sizeof *st + count * sizeof(double));
    if (!st)
        return NULL;
    tableau_copy_name(st->name, sizeof st->name, name);
    st->t.struct_size = sizeof(wb_tableau);
    st->t.s = s;
    st->t.name = st->name;
    double *p = st->data;
    st->t.a = p, p += (size_t)s * s;
    st->t.b = p, p += s;
    st->t.c = p, p += s;
    if (pair) {
        st->t.a2 = p, p += (size_t)s * s;
        st->t.b2 = p, p += s;
        st->t.c2 = p;
    }
    return st;
}

static long user_tableaux;

static stored_tableau *stored_of(const wb_tableau *t)
{
    return (stored_tableau *)(void *)((char *)(void *)t - offsetof(stored_tableau, t));
}

void tableau_retain(const wb_tableau *t)
{
    if (t && !stored_of(t)->builtin)
        stored_of(t)->refs++;
}

void tableau_release(const wb_tableau *t)
{
    if (!t)
        return;
    stored_tableau *st = stored_of(t);
    if (!st->builtin && --st->refs == 0) {
        free(st);
        user_tableaux--;
    }
}

long tableau_user_count(void)
{
    return user_tableaux;
}

/* A user tableau is nobody's to keep in the registry: its one reference
 * goes to the caller. */
static const wb_tableau *user_tableau(stored_tableau *st)
{
    st->refs = 1;
    user_tableaux++;
    st->t.order_first = method_order(&st->t, 0);
    st->t.order = st->t.a2 ? method_order(&st->t, 1) : st->t.order_first;
    return &st->t;
}

static const wb_tableau *registry_add(stored_tableau *st)
{
    if (registry_count == registry_capacity) {
        int cap = registry_capacity ? 2 * registry_capacity : 32;
        stored_tableau **grown = realloc(registry, (size_t)cap * sizeof *grown);
        if (!grown) {
            free(st);
            host_error("tableau: out of memory");
            return NULL;
        }
        registry = grown;
        registry_capacity = cap;
    }
    registry[registry_count++] = st;
    st->t.order_first = method_order(&st->t, 0);
    st->t.order = st->t.a2 ? method_order(&st->t, 1) : st->t.order_first;
    return &st->t;
}

void tableau_release_all(void)
{
    for (int i = 0; i < registry_count; i++)
        free(registry[i]);
    free(registry);
    registry = NULL;
    registry_count = registry_capacity = 0;
}

/* ---- Legendre polynomials on [-1, 1] ------------------------------------- */

/* L_n(x) and L_n'(x) by the three-term recurrence. */
static void legendre(int n, double x, double *value, double *derivative)
{
    double p0 = 1.0, p1 = x;
    if (n == 0) {
        *value = 1.0;
        *derivative = 0.0;
        return;
    }
    for (int k = 2; k <= n; k++) {
        double p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
    }
    *value = p1;
    /* (1 - x^2) L_n' = n (L_{n-1} - x L_n); at x = +-1 use n(n+1)/2 (+-1)^(n+1) */
    if (fabs(1.0 - x * x) < 1e-300)
        *derivative = 0.5 * n * (n + 1.0) * (x > 0 ? 1.0 : ((n % 2) ? 1.0 : -1.0));
    else
        *derivative = n * (p0 - x * p1) / (1.0 - x * x);
}

/* Second derivative from the Legendre ODE. */
static double legendre_second(int n, double x)
{
    double v, d;
    legendre(n, x, &v, &d);
    return (2.0 * x * d - n * (n + 1.0) * v) / (1.0 - x * x);
}

/* Zeros of the Jacobi polynomial P_n^(alpha,beta) on [-1, 1] (Golub-Welsch). */
static int jacobi_zeros(int n, double alpha, double beta, double *x)
{
    if (n == 0)
        return 0;
    double diag[TABLEAU_MAX_STAGES], off[TABLEAU_MAX_STAGES];
    for (int k = 0; k < n; k++) {
        double s = 2.0 * k + alpha + beta;
        diag[k] = (k == 0) ? (beta - alpha) / (alpha + beta + 2.0)
                           : (beta * beta - alpha * alpha) / (s * (s + 2.0));
    }
    for (int k = 1; k < n; k++) {
        double s = 2.0 * k + alpha + beta;
        double num = 4.0 * k * (k + alpha) * (k + beta) * (k + alpha + beta);
        off[k - 1] = sqrt(num / (s * s * (s + 1.0) * (s - 1.0)));
    }
    lapack_int info = LAPACKE_dstev(LAPACK_COL_MAJOR, 'N', n, diag, off, NULL, 1);
    if (info != 0)
        return -1;
    memcpy(x, diag, (size_t)n * sizeof(double));
    return 0;
}

typedef enum node_kind { NODES_GAUSS, NODES_RADAU_RIGHT, NODES_RADAU_LEFT, NODES_LOBATTO } node_kind;

/* f(x) whose zeros are the interior nodes, and f'(x), for Newton polishing. */
static void node_function(node_kind kind, int s, double x, double *f, double *df)
{
    double v1, d1, v0, d0;
    switch (kind) {
    case NODES_GAUSS:
        legendre(s, x, f, df);
        return;
    case NODES_RADAU_RIGHT:
        legendre(s, x, &v1, &d1);
        legendre(s - 1, x, &v0, &d0);
        *f = v1 - v0, *df = d1 - d0;
        return;
    case NODES_RADAU_LEFT:
        legendre(s, x, &v1, &d1);
        legendre(s - 1, x, &v0, &d0);
        *f = v1 + v0, *df = d1 + d0;
        return;
    case NODES_LOBATTO:
        legendre(s - 1, x, &v0, f);
        *df = legendre_second(s - 1, x);
        return;
    }
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* s nodes on [0, 1], increasing. */
static int nodes_01(node_kind kind, int s, double *c)
{
    double x[TABLEAU_MAX_STAGES];
    int interior = s, first = 0;
    double alpha = 0, beta = 0;
    switch (kind) {
    case NODES_GAUSS: break;
    case NODES_RADAU_RIGHT: interior = s - 1, alpha = 1; x[s - 1] = 1.0; break;
    case NODES_RADAU_LEFT: interior = s - 1, beta = 1, first = 1; x[0] = -1.0; break;
    case NODES_LOBATTO:
        interior = s - 2, alpha = beta = 1, first = 1;
        x[0] = -1.0, x[s - 1] = 1.0;
        break;
    }
    if (jacobi_zeros(interior, alpha, beta, x + first) != 0)
        return -1;
    for (int i = first; i < first + interior; i++) {
        for (int it = 0; it < 4; it++) {
            double f, df;
            node_function(kind, s, x[i], &f, &df);
            if (df == 0.0)
                break;
            double dx = f / df;
            x[i] -= dx;
            if (fabs(dx) < 1e-17)
                break;
        }
    }
    qsort(x, (size_t)s, sizeof(double), compare_double);
    for (int i = 0; i < s; i++)
        c[i] = 0.5 * (1.0 + x[i]);
    /* exact symmetry of the node set about 1/2 where it holds */
    if (kind == NODES_GAUSS || kind == NODES_LOBATTO)
        for (int i = 0; i < s / 2; i++) {
            double d = 0.5 * ((0.5 - c[i]) + (c[s - 1 - i] - 0.5));
            c[i] = 0.5 - d;
            c[s - 1 - i] = 0.5 + d;
        }
    if (kind == NODES_GAUSS && s % 2)
        c[s / 2] = 0.5;
    if (kind == NODES_LOBATTO && s % 2)
        c[s / 2] = 0.5;
    return 0;
}

int gauss_legendre_01(int n, double *nodes, double *weights)
{
    if (n < 1 || n > TABLEAU_MAX_STAGES)
        return -1;
    if (nodes_01(NODES_GAUSS, n, nodes) != 0)
        return -1;
    for (int i = 0; i < n; i++) {
        double x = 2.0 * nodes[i] - 1.0, v, d;
        legendre(n, x, &v, &d);
        weights[i] = 1.0 / ((1.0 - x * x) * d * d); /* 2/(...) mapped to [0,1] */
    }
    for (int i = 0; i < n / 2; i++) {
        double w = 0.5 * (weights[i] + weights[n - 1 - i]);
        weights[i] = weights[n - 1 - i] = w;
    }
    return 0;
}

/* Lagrange basis l_j(t) on nodes c (barycentric form), all j at once. */
static void lagrange_basis(int s, const double *c, const double *bary, double t,
                           double *l)
{
    for (int j = 0; j < s; j++)
        if (t == c[j]) {
            for (int k = 0; k < s; k++)
                l[k] = (k == j);
            return;
        }
    double sum = 0.0;
    for (int j = 0; j < s; j++) {
        l[j] = bary[j] / (t - c[j]);
        sum += l[j];
    }
    for (int j = 0; j < s; j++)
        l[j] /= sum;
}

static void barycentric_weights(int s, const double *c, double *bary)
{
    for (int j = 0; j < s; j++) {
        double w = 1.0;
        for (int k = 0; k < s; k++)
            if (k != j)
                w *= (c[j] - c[k]);
        bary[j] = 1.0 / w;
    }
}

/* out[j] = int_lo^hi l_j(t) dt, exact (Gauss rule of s points). */
static void integrate_basis(int s, const double *c, const double *bary,
                            double lo, double hi, double *out)
{
    double gx[TABLEAU_MAX_STAGES], gw[TABLEAU_MAX_STAGES], l[TABLEAU_MAX_STAGES];
    gauss_legendre_01(s, gx, gw);
    for (int j = 0; j < s; j++)
        out[j] = 0.0;
    for (int q = 0; q < s; q++) {
        lagrange_basis(s, c, bary, lo + (hi - lo) * gx[q], l);
        for (int j = 0; j < s; j++)
            out[j] += (hi - lo) * gw[q] * l[j];
    }
}

static void collocation(int s, const double *c, double *a, double *b)
{
    double bary[TABLEAU_MAX_STAGES] = {0};
    barycentric_weights(s, c, bary);
    integrate_basis(s, c, bary, 0.0, 1.0, b);
    for (int i = 0; i < s; i++)
        integrate_basis(s, c, bary, 0.0, c[i], a + (size_t)i * s);
}

/* Shifted Legendre L_k(2t-1) and its antiderivative from 0. */
static double shifted_legendre(int k, double t)
{
    double v, d;
    legendre(k, 2.0 * t - 1.0, &v, &d);
    return v;
}

static double shifted_legendre_integral(int k, double t)
{
    if (k == 0)
        return t;
    return (shifted_legendre(k + 1, t) - shifted_legendre(k - 1, t)) / (2.0 * (2.0 * k + 1.0));
}

/* Solve M x = r for an s x s row-major M (copied). */
static int small_solve(int s, const double *M, double *r)
{
    double work[TABLEAU_MAX_STAGES * TABLEAU_MAX_STAGES];
    int piv[TABLEAU_MAX_STAGES];
    memcpy(work, M, (size_t)s * s * sizeof(double));
    return linalg_dense_solve(host_services(), s, 1, work, piv, r);
}

/* A from D(s): sum_i b_i P_k(c_i) a_ij = b_j int_{c_j}^1 P_k, k < s. */
static int coefficients_from_D(int s, const double *b, const double *c, double *a)
{
    double M[TABLEAU_MAX_STAGES * TABLEAU_MAX_STAGES], r[TABLEAU_MAX_STAGES];
    for (int k = 0; k < s; k++)
        for (int i = 0; i < s; i++)
            M[k * s + i] = b[i] * shifted_legendre(k, c[i]);
    for (int j = 0; j < s; j++) {
        for (int k = 0; k < s; k++)
            r[k] = b[j] * (shifted_legendre_integral(k, 1.0) -
                           shifted_legendre_integral(k, c[j]));
        if (small_solve(s, M, r) != WB_OK)
            return -1;
        for (int i = 0; i < s; i++)
            a[i * s + j] = r[i];
    }
    return 0;
}

/* Row i from C(s-1) plus one fixed entry a_i,fixed_col = fixed_value. */
static int coefficients_from_C(int s, const double *c, int fixed_col,
                               double fixed_value_first_col, double *a)
{
    double M[TABLEAU_MAX_STAGES * TABLEAU_MAX_STAGES], r[TABLEAU_MAX_STAGES];
    for (int i = 0; i < s; i++) {
        for (int k = 0; k < s - 1; k++) {
            for (int j = 0; j < s; j++)
                M[k * s + j] = shifted_legendre(k, c[j]);
            r[k] = shifted_legendre_integral(k, c[i]);
        }
        for (int j = 0; j < s; j++)
            M[(s - 1) * s + j] = (j == fixed_col);
        r[s - 1] = fixed_value_first_col;
        if (small_solve(s, M, r) != WB_OK)
            return -1;
        for (int j = 0; j < s; j++)
            a[i * s + j] = r[j];
    }
    return 0;
}

static void fill_weights(int s, const double *c, double *b)
{
    double bary[TABLEAU_MAX_STAGES];
    barycentric_weights(s, c, bary);
    integrate_basis(s, c, bary, 0.0, 1.0, b);
}

/* ---- families -------------------------------------------------------------- */

static const char *const family_names[] = {
    "gauss", "radau_ia", "radau_iia", "lobatto_iiia", "lobatto_iiib",
    "lobatto_iiic", "lobatto_iiic_star", "lobatto_iiia_iiib", NULL};

const char *const *tableau_family_names(void) { return family_names; }

static int family_index(const char *family)
{
    for (int i = 0; family_names[i]; i++)
        if (strcmp(family_names[i], family) == 0)
            return i;
    return -1;
}

static int family_min_stages(int index)
{
    return index >= 3 ? 2 : 1; /* Lobatto families need both end points */
}

static int build_family(int index, int s, stored_tableau *st)
{
    double *a = (double *)st->t.a, *b = (double *)st->t.b, *c = (double *)st->t.c;
    switch (index) {
    case 0: /* Gauss */
        if (nodes_01(NODES_GAUSS, s, c)) return -1;
        collocation(s, c, a, b);
        return 0;
    case 1: /* Radau IA */
        if (nodes_01(NODES_RADAU_LEFT, s, c)) return -1;
        fill_weights(s, c, b);
        return coefficients_from_D(s, b, c, a);
    case 2: /* Radau IIA */
        if (nodes_01(NODES_RADAU_RIGHT, s, c)) return -1;
        collocation(s, c, a, b);
        return 0;
    case 3: /* Lobatto IIIA */
        if (nodes_01(NODES_LOBATTO, s, c)) return -1;
        collocation(s, c, a, b);
        return 0;
    case 4: /* Lobatto IIIB */
        if (nodes_01(NODES_LOBATTO, s, c)) return -1;
        fill_weights(s, c, b);
        return coefficients_from_D(s, b, c, a);
    case 5: /* Lobatto IIIC: a_i1 = b_1 and C(s-1) */
        if (nodes_01(NODES_LOBATTO, s, c)) return -1;
        fill_weights(s, c, b);
        return coefficients_from_C(s, c, 0, b[0], a);
    case 6: /* Lobatto IIIC*: a_is = 0 and C(s-1) */
        if (nodes_01(NODES_LOBATTO, s, c)) return -1;
        fill_weights(s, c, b);
        return coefficients_from_C(s, c, s - 1, 0.0, a);
    case 7: { /* Lobatto IIIA-IIIB pair */
        if (nodes_01(NODES_LOBATTO, s, c)) return -1;
        collocation(s, c, a, b);
        double *a2 = (double *)st->t.a2, *b2 = (double *)st->t.b2, *c2 = (double *)st->t.c2;
        memcpy(c2, c, (size_t)s * sizeof(double));
        memcpy(b2, b, (size_t)s * sizeof(double));
        return coefficients_from_D(s, b, c, a2);
    }
    }
    return -1;
}

/* Closed forms are exact where they exist; apply them over the generated
 * values so that the common small tableaux carry no round-off at all. */
static void exact_small_values(int index, int s, stored_tableau *st)
{
    double *a = (double *)st->t.a, *b = (double *)st->t.b, *c = (double *)st->t.c;
    if (index == 0 && s == 1) {
        a[0] = 0.5, b[0] = 1.0, c[0] = 0.5;
    } else if ((index == 3 || index == 7) && s == 2) {
        const double A[] = {0, 0, 0.5, 0.5};
        memcpy(a, A, sizeof A);
        b[0] = b[1] = 0.5, c[0] = 0.0, c[1] = 1.0;
        if (index == 7) {
            const double A2[] = {0.5, 0, 0.5, 0};
            memcpy((double *)st->t.a2, A2, sizeof A2);
        }
    } else if (index == 4 && s == 2) {
        const double A[] = {0.5, 0, 0.5, 0};
        memcpy(a, A, sizeof A);
        b[0] = b[1] = 0.5, c[0] = 0.0, c[1] = 1.0;
    }
}

const wb_tableau *tableau_family(const char *family, int s)
{
    int index = family_index(family);
    if (index < 0) {
        host_error("unknown tableau family '%s' (expected gauss, radau_ia, radau_iia, "
                   "lobatto_iiia, lobatto_iiib, lobatto_iiic, lobatto_iiic_star or "
                   "lobatto_iiia_iiib)", family);
        return NULL;
    }
    int lo = family_min_stages(index);
    if (s < lo || s > TABLEAU_MAX_FAMILY_S) {
        host_error("tableau family '%s' needs a stage count from %d to %d, got %d",
                   family, lo, TABLEAU_MAX_FAMILY_S, s);
        return NULL;
    }
    char name[64];
    snprintf(name, sizeof name, "%s%d", family, s);
    const wb_tableau *found = registry_find(name);
    if (found)
        return found;
    stored_tableau *st = stored_alloc(name, s, index == 7);
    if (!st) {
        host_error("tableau: out of memory");
        return NULL;
    }
    if (build_family(index, s, st) != 0) {
        free(st);
        host_error("tableau '%s': generation failed (linear algebra)", name);
        return NULL;
    }
    exact_small_values(index, s, st);
    st->builtin = 1;
    return registry_add(st);
}

/* ---- named explicit methods ----------------------------------------------- */

typedef struct named_tableau {
    const char *name;
    int s;
    double a[16], b[4], c[4];
} named_tableau;

static const named_tableau named_methods[] = {
    {"euler", 1, {0}, {1}, {0}},
    {"explicit_midpoint", 2, {0, 0, 0.5, 0}, {0, 1}, {0, 0.5}},
    {"heun", 2, {0, 0, 1, 0}, {0.5, 0.5}, {0, 1}},
    {"kutta3", 3, {0, 0, 0, 0.5, 0, 0, -1, 2, 0}, {1.0 / 6, 2.0 / 3, 1.0 / 6}, {0, 0.5, 1}},
    {"rk4", 4, {0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1, 0},
     {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}, {0, 0.5, 0.5, 1}},
    {"rk38", 4, {0, 0, 0, 0, 1.0 / 3, 0, 0, 0, -1.0 / 3, 1, 0, 0, 1, -1, 1, 0},
     {0.125, 0.375, 0.375, 0.125}, {0, 1.0 / 3, 2.0 / 3, 1}},
};

static const char *const explicit_names[] = {"euler", "explicit_midpoint", "heun",
                                              "kutta3", "rk4", "rk38", NULL};

const char *const *tableau_explicit_names(void) { return explicit_names; }

static const struct {
    const char *name, *family;
    int s;
} family_aliases[] = {{"implicit_midpoint", "gauss", 1}, {"trapezoidal", "lobatto_iiia", 2}};

static int is_explicit_name(const char *name)
{
    for (size_t i = 0; explicit_names[i]; i++)
        if (strcmp(explicit_names[i], name) == 0)
            return 1;
    return 0;
}

/* "gauss3" -> family "gauss", s = 3, and the aliases.  0 when the name has
 * neither form. */
static int parse_family_name(const char *name, char family[64], int *s)
{
    for (size_t i = 0; i < sizeof family_aliases / sizeof family_aliases[0]; i++)
        if (strcmp(name, family_aliases[i].name) == 0) {
            strcpy(family, family_aliases[i].family);
            *s = family_aliases[i].s;
            return 1;
        }
    size_t len = strlen(name), digits = 0;
    while (digits < len && name[len - 1 - digits] >= '0' && name[len - 1 - digits] <= '9')
        digits++;
    if (digits == 0 || digits == len || digits > 3 || len - digits >= 64)
        return 0;
    memcpy(family, name, len - digits);
    family[len - digits] = '\0';
    *s = atoi(name + len - digits);
    return family_index(family) >= 0;
}

static const wb_tableau *named_explicit(const char *name)
{
    for (size_t i = 0; i < sizeof named_methods / sizeof named_methods[0]; i++) {
        const named_tableau *n = &named_methods[i];
        if (strcmp(n->name, name) != 0)
            continue;
        stored_tableau *st = stored_alloc(name, n->s, 0);
        if (!st) {
            host_error("tableau: out of memory");
            return NULL;
        }
        memcpy((double *)st->t.a, n->a, (size_t)n->s * n->s * sizeof(double));
        memcpy((double *)st->t.b, n->b, (size_t)n->s * sizeof(double));
        memcpy((double *)st->t.c, n->c, (size_t)n->s * sizeof(double));
        st->builtin = 1;
        return registry_add(st);
    }
    return NULL;
}

const wb_tableau *tableau_named(const char *name)
{
    const wb_tableau *found = registry_find(name);
    if (found)
        return found;
    if (is_explicit_name(name))
        return named_explicit(name);
    char family[64];
    int s;
    if (parse_family_name(name, family, &s))
        return tableau_family(family, s);
    host_error("unknown tableau '%s' (named: euler, explicit_midpoint, heun, kutta3, "
               "rk4, rk38, implicit_midpoint, trapezoidal; generated: <family><s> "
               "such as gauss3 or lobatto_iiia_iiib2)", name);
    return NULL;
}

/* ---- user tableaux ---------------------------------------------------------- */

static int check_finite(const char *what, int count, const double *x)
{
    for (int i = 0; i < count; i++)
        if (!isfinite(x[i])) {
            host_error("tableau: %s entry %d is not finite", what, i + 1);
            return -1;
        }
    return 0;
}

/* Append to `warning` (if any) which rows of c are not the row sums of a. */
static void warn_row_sums(const char *name, const char *which_c, const char *which_a, int s,
                          const double *a, const double *c, char *warning, size_t size)
{
    char rows[256] = "";
    size_t used = 0;
    for (int i = 0; i < s; i++) {
        double sum = 0;
        for (int j = 0; j < s; j++)
            sum += a[i * s + j];
        if (fabs(sum - c[i]) > 1e-12 * fmax(1.0, fabs(c[i])) && used + 8 < sizeof rows)
            used += (size_t)snprintf(rows + used, sizeof rows - used, "%s%d",
                                     used ? ", " : "", i + 1);
    }
    if (!used || !warning || !size)
        return;
    size_t have = strlen(warning);
    snprintf(warning + have, size - have, "%stableau '%s': %s is not the row sums of %s in "
             "row(s) %s", have ? "; " : "", name, which_c, which_a, rows);
}

/* Whether `name` is one the built-in tableaux answer to. */
static int builtin_name(const char *name)
{
    char family[64];
    int s;
    return is_explicit_name(name) || parse_family_name(name, family, &s);
}

const wb_tableau *tableau_create(const char *name, int s, const double *a,
                                 const double *b, const double *c,
                                 const double *a2, const double *b2,
                                 const double *c2, char *warning, size_t warning_size)
{
    if (s < 1 || s > TABLEAU_MAX_STAGES) {
        host_error("tableau '%s': stage count %d out of range 1..%d", name, s,
                   TABLEAU_MAX_STAGES);
        return NULL;
    }
    if (builtin_name(name)) {
        host_error("tableau name '%s' belongs to a built-in tableau; choose another name",
                   name);
        return NULL;
    }
    int pair = a2 != NULL;
    if (pair && !b2) {
        host_error("tableau '%s': a partitioned pair needs b2 with its a2", name);
        return NULL;
    }
    if (check_finite("a", s * s, a) || check_finite("b", s, b) ||
        (c && check_finite("c", s, c)) || (pair && check_finite("a2", s * s, a2)) ||
        (pair && check_finite("b2", s, b2)) || (pair && c2 && check_finite("c2", s, c2)))
        return NULL;
    stored_tableau *st = stored_alloc(name, s, pair);
    if (!st) {
        host_error("tableau: out of memory");
        return NULL;
    }
    double *ta = (double *)st->t.a, *tb = (double *)st->t.b, *tc = (double *)st->t.c;
    memcpy(ta, a, (size_t)s * s * sizeof(double));
    memcpy(tb, b, (size_t)s * sizeof(double));
    for (int i = 0; i < s; i++) {
        double sum = 0;
        for (int j = 0; j < s; j++)
            sum += a[i * s + j];
        tc[i] = c ? c[i] : sum;
    }
    if (warning && warning_size)
        warning[0] = '\0';
    if (c)
        warn_row_sums(name, "c", "a", s, a, c, warning, warning_size);
    if (pair) {
        double *ta2 = (double *)st->t.a2, *tb2 = (double *)st->t.b2, *tc2 = (double *)st->t.c2;
        memcpy(ta2, a2, (size_t)s * s * sizeof(double));
        memcpy(tb2, b2, (size_t)s * sizeof(double));
        for (int i = 0; i < s; i++) {
            double sum = 0;
            for (int j = 0; j < s; j++)
                sum += a2[i * s + j];
            tc2[i] = c2 ? c2[i] : sum;
        }
        if (c2)
            warn_row_sums(name, "c2", "a2", s, a2, c2, warning, warning_size);
    }
    return user_tableau(st);
}

const wb_tableau *tableau_compose(const wb_tableau *base, int n_gamma,
                                  const double *gamma, const char *name)
{
    int s = base->s, S = s * n_gamma;
    if (n_gamma < 1 || S > TABLEAU_MAX_STAGES) {
        host_error("tableau composition: %d sub-steps of %d stages exceed %d stages",
                   n_gamma, s, TABLEAU_MAX_STAGES);
        return NULL;
    }
    double *a = calloc((size_t)S * S * 2 + 2 * (size_t)S, sizeof(double));
    if (!a) {
        host_error("tableau: out of memory");
        return NULL;
    }
    double *b = a + (size_t)S * S, *a2 = b + S, *b2 = a2 + (size_t)S * S;
    int pair = base->a2 != NULL;
    for (int k = 0; k < n_gamma; k++)
        for (int i = 0; i < s; i++) {
            int row = k * s + i;
            for (int l = 0; l < k; l++)
                for (int j = 0; j < s; j++) {
                    a[row * S + l * s + j] = gamma[l] * base->b[j];
                    if (pair)
                        a2[row * S + l * s + j] = gamma[l] * base->b2[j];
                }
            for (int j = 0; j < s; j++) {
                a[row * S + k * s + j] = gamma[k] * base->a[i * s + j];
                if (pair)
                    a2[row * S + k * s + j] = gamma[k] * base->a2[i * s + j];
            }
            b[row] = gamma[k] * base->b[i];
            if (pair)
                b2[row] = gamma[k] * base->b2[i];
        }
    const wb_tableau *t = tableau_create(name, S, a, b, NULL, pair ? a2 : NULL,
                                         pair ? b2 : NULL, NULL, NULL, 0);
    free(a);
    return t;
}

/* ---- simplifying assumptions ---------------------------------------------- */

double tableau_defect_B(const wb_tableau *t, int p)
{
    double worst = 0;
    for (int k = 1; k <= p; k++) {
        double sum = 0;
        for (int i = 0; i < t->s; i++)
            sum += t->b[i] * pow(t->c[i], k - 1);
        worst = fmax(worst, fabs(sum - 1.0 / k));
    }
    return worst;
}

double tableau_defect_C(const wb_tableau *t, int q)
{
    double worst = 0;
    int s = t->s;
    for (int k = 1; k <= q; k++)
        for (int i = 0; i < s; i++) {
            double sum = 0;
            for (int j = 0; j < s; j++)
                sum += t->a[i * s + j] * pow(t->c[j], k - 1);
            worst = fmax(worst, fabs(sum - pow(t->c[i], k) / k));
        }
    return worst;
}

double tableau_defect_D(const wb_tableau *t, int r)
{
    double worst = 0;
    int s = t->s;
    for (int k = 1; k <= r; k++)
        for (int j = 0; j < s; j++) {
            double sum = 0;
            for (int i = 0; i < s; i++)
                sum += t->b[i] * pow(t->c[i], k - 1) * t->a[i * s + j];
            worst = fmax(worst, fabs(sum - t->b[j] * (1.0 - pow(t->c[j], k)) / k));
        }
    return worst;
}

/* ---- order conditions on rooted trees --------------------------------------
 * Trees are enumerated with their children as a non-decreasing list of
 * earlier tree indices, so each tree appears once.  Coloured trees (for
 * partitioned pairs) carry the colour of their root; the elementary weight
 * of a child of colour k uses the matrix of colour k. */

#define MAX_TREES 2048
#define MAX_CHILDREN 8

typedef struct tree {
    int order;
    int colour;               /* 0: (a, b); 1: (a2, b2) */
    int n_children;
    int children[MAX_CHILDREN];
    double gamma;             /* density */
} tree;

typedef struct forest {
    tree trees[MAX_TREES];
    int count;
    int by_order_start[10];   /* index of the first tree of each order */
} forest;

static void add_tree(forest *f, int order, int colour, int n_children,
                     const int *children)
{
    if (f->count >= MAX_TREES)
        return;
    tree *t = &f->trees[f->count++];
    t->order = order;
    t->colour = colour;
    t->n_children = n_children;
    t->gamma = order;
    for (int i = 0; i < n_children; i++) {
        t->children[i] = children[i];
        t->gamma *= f->trees[children[i]].gamma;
    }
}

/* All multisets of earlier trees (indices >= min_index) with total order
 * `remaining`, appended as children of a new root of `order`. */
static void enumerate_children(forest *f, int order, int colour, int remaining,
                               int min_index, int *children, int depth, int limit)
{
    if (remaining == 0) {
        add_tree(f, order, colour, depth, children);
        return;
    }
    if (depth >= MAX_CHILDREN)
        return;
    for (int i = min_index; i < limit; i++) {
        if (f->trees[i].order > remaining)
            continue;
        children[depth] = i;
        enumerate_children(f, order, colour, remaining - f->trees[i].order, i,
                           children, depth + 1, limit);
    }
}

static void build_forest(forest *f, int max_order, int colours)
{
    int children[MAX_CHILDREN];
    f->count = 0;
    for (int order = 1; order <= max_order; order++) {
        f->by_order_start[order] = f->count;
        int limit = f->count; /* children come from smaller orders only */
        for (int colour = 0; colour < colours; colour++)
            enumerate_children(f, order, colour, order - 1, 0, children, 0, limit);
    }
    f->by_order_start[max_order + 1] = f->count;
}

/* Highest order (<= max_order) whose conditions all hold within tol. */
static int forest_order(const wb_tableau *t, int max_order, int colours, double tol)
{
    static forest f;
    static int built_order = 0, built_colours = 0;
    if (built_order != max_order || built_colours != colours) {
        build_forest(&f, max_order, colours);
        built_order = max_order;
        built_colours = colours;
    }
    int s = t->s;
    double *g = malloc((size_t)f.count * s * sizeof(double));
    if (!g)
        return 0;
    int achieved = max_order;
    for (int order = 1; order <= max_order && achieved == max_order; order++) {
        for (int n = f.by_order_start[order]; n < f.by_order_start[order + 1]; n++) {
            const tree *tr = &f.trees[n];
            double *gn = g + (size_t)n * s;
            for (int i = 0; i < s; i++)
                gn[i] = 1.0;
            for (int k = 0; k < tr->n_children; k++) {
                const tree *child = &f.trees[tr->children[k]];
                const double *A = child->colour ? t->a2 : t->a;
                const double *gc = g + (size_t)tr->children[k] * s;
                for (int i = 0; i < s; i++) {
                    double sum = 0;
                    for (int j = 0; j < s; j++)
                        sum += A[i * s + j] * gc[j];
                    gn[i] *= sum;
                }
            }
            const double *b = tr->colour ? t->b2 : t->b;
            double phi = 0;
            for (int i = 0; i < s; i++)
                phi += b[i] * gn[i];
            if (!(fabs(phi * tr->gamma - 1.0) <= tol)) {
                achieved = order - 1;
                break;
            }
        }
    }
    free(g);
    return achieved;
}

int tableau_order(const wb_tableau *t, double tol)
{
    return forest_order(t, 8, 1, tol);
}

int tableau_pair_order(const wb_tableau *t, double tol)
{
    if (!t->a2)
        return forest_order(t, 6, 1, tol);
    return forest_order(t, 6, 2, tol);
}

/* B(p), C(q), D(r) written in the shifted Legendre basis (equivalent to the
 * monomial forms, since both span the same polynomials): there the defect
 * that breaks a condition stays of order one for every s, while with c^k
 * it falls below round-off from s = 13 on (Gauss s = 16 would "satisfy"
 * B(33)). */
static int legendre_B(int s, const double *b, const double *c)
{
    int p = 0;
    for (int k = 0; k < 2 * s + 1; k++, p++) {
        double sum = 0;
        for (int i = 0; i < s; i++)
            sum += b[i] * shifted_legendre(k, c[i]);
        if (!(fabs(sum - (k == 0)) <= 1e-12))
            break;
    }
    return p;
}

static int legendre_C(int s, const double *a, const double *c)
{
    int q = 0;
    for (int k = 0; k < s + 1; k++, q++) {
        double worst = 0;
        for (int i = 0; i < s; i++) {
            double sum = 0;
            for (int j = 0; j < s; j++)
                sum += a[i * s + j] * shifted_legendre(k, c[j]);
            worst = fmax(worst, fabs(sum - shifted_legendre_integral(k, c[i])));
        }
        if (!(worst <= 1e-12))
            break;
    }
    return q;
}

static int legendre_D(int s, const double *a, const double *b, const double *c)
{
    int r = 0;
    for (int k = 0; k < s + 1; k++, r++) {
        double worst = 0;
        for (int j = 0; j < s; j++) {
            double sum = 0;
            for (int i = 0; i < s; i++)
                sum += b[i] * shifted_legendre(k, c[i]) * a[i * s + j];
            double integral = shifted_legendre_integral(k, 1.0) - shifted_legendre_integral(k, c[j]);
            worst = fmax(worst, fabs(sum - b[j] * integral));
        }
        if (!(worst <= 1e-12))
            break;
    }
    return r;
}

/* Butcher's theorem: B(p), C(q), D(r) with p <= q + r + 1 and p <= 2q + 2
 * give order p; so min(p, q + r + 1, 2q + 2) bounds the order from below. */
static int butcher_bound(int p, int q, int r)
{
    int bound = p;
    if (q + r + 1 < bound)
        bound = q + r + 1;
    if (2 * q + 2 < bound)
        bound = 2 * q + 2;
    return bound;
}

static int same_vector(int n, const double *x, const double *y)
{
    for (int i = 0; i < n; i++)
        if (!(fabs(x[i] - y[i]) <= 1e-14 * fmax(1.0, fabs(x[i]))))
            return 0;
    return 1;
}

/* The simplifying assumptions' bound for a pair.  Butcher's reductions
 * carry over to coloured trees when both matrices satisfy C(q) and D(r)
 * with one quadrature (b, c), so the common q and r count; a pair without
 * a common quadrature gets no bound (0).  The common q, r understate
 * Lobatto IIIA-IIIB (2s - 3 for its 2s - 2); method_order's rounding to
 * even for symmetric methods recovers it. */
static int pair_bound(const wb_tableau *t)
{
    const int s = t->s;
    if (!same_vector(s, t->b, t->b2) || !same_vector(s, t->c, t->c2))
        return 0;
    int q = legendre_C(s, t->a, t->c), q2 = legendre_C(s, t->a2, t->c);
    int r = legendre_D(s, t->a, t->b, t->c), r2 = legendre_D(s, t->a2, t->b, t->c);
    return butcher_bound(legendre_B(s, t->b, t->c), q < q2 ? q : q2, r < r2 ? r : r2);
}

/* The tree conditions up to 8 (6 for a pair); at that cap the order may be
 * higher, and the simplifying assumptions tell by how much.  Their bound is
 * a lower bound, so an odd one of a symmetric method (whose order is even)
 * rounds up. */
static int method_order(const wb_tableau *t, int as_pair)
{
    int cap = as_pair ? 6 : 8;
    int order = as_pair ? tableau_pair_order(t, 1e-10) : tableau_order(t, 1e-10);
    if (order < cap)
        return order;
    int bound = as_pair ? pair_bound(t)
                        : butcher_bound(legendre_B(t->s, t->b, t->c),
                                        legendre_C(t->s, t->a, t->c),
                                        legendre_D(t->s, t->a, t->b, t->c));
    if (bound % 2 && tableau_symmetry_defect(t) <= 1e-12)
        bound++;
    return bound > order ? bound : order;
}

double tableau_symplecticity_defect(const wb_tableau *t)
{
    int s = t->s;
    const double *a = t->a, *b = t->b;
    const double *a2 = t->a2 ? t->a2 : t->a, *b2 = t->a2 ? t->b2 : t->b;
    double worst = 0;
    for (int i = 0; i < s; i++) {
        worst = fmax(worst, fabs(b[i] - b2[i]));
        for (int j = 0; j < s; j++)
            worst = fmax(worst, fabs(b[i] * a2[i * s + j] + b2[j] * a[j * s + i] -
                                     b[i] * b2[j]));
    }
    return worst;
}

static double symmetry_defect_single(int s, const double *a, const double *b)
{
    double worst = 0;
    for (int i = 0; i < s; i++) {
        worst = fmax(worst, fabs(b[s - 1 - i] - b[i]));
        for (int j = 0; j < s; j++)
            worst = fmax(worst, fabs(a[(s - 1 - i) * s + (s - 1 - j)] + a[i * s + j] - b[j]));
    }
    return worst;
}

double tableau_symmetry_defect(const wb_tableau *t)
{
    double d = symmetry_defect_single(t->s, t->a, t->b);
    if (t->a2)
        d = fmax(d, symmetry_defect_single(t->s, t->a2, t->b2));
    return d;
}

/* R(z) = 1 + z b^T (I - z A)^-1 1, by complex Gaussian elimination. */
void tableau_stability(const wb_tableau *t, double re, double im,
                       double *out_re, double *out_im)
{
    int s = t->s;
    double complex z = re + im * I;
    double complex M[TABLEAU_MAX_STAGES][TABLEAU_MAX_STAGES], x[TABLEAU_MAX_STAGES];
    for (int i = 0; i < s; i++) {
        for (int j = 0; j < s; j++)
            M[i][j] = (i == j) - z * t->a[i * s + j];
        x[i] = 1.0;
    }
    for (int k = 0; k < s; k++) {
        int p = k;
        for (int i = k + 1; i < s; i++)
            if (cabs(M[i][k]) > cabs(M[p][k]))
                p = i;
        if (cabs(M[p][k]) == 0.0) {
            *out_re = *out_im = INFINITY;
            return;
        }
        if (p != k) {
            for (int j = 0; j < s; j++) {
                double complex tmp = M[k][j];
                M[k][j] = M[p][j];
                M[p][j] = tmp;
            }
            double complex tmp = x[k];
            x[k] = x[p];
            x[p] = tmp;
        }
        for (int i = k + 1; i < s; i++) {
            double complex f = M[i][k] / M[k][k];
            for (int j = k; j < s; j++)
                M[i][j] -= f * M[k][j];
            x[i] -= f * x[k];
        }
    }
    for (int i = s - 1; i >= 0; i--) {
        for (int j = i + 1; j < s; j++)
            x[i] -= M[i][j] * x[j];
        x[i] /= M[i][i];
    }
    double complex r = 1.0;
    for (int i = 0; i < s; i++)
        r += z * t->b[i] * x[i];
    *out_re = creal(r);
    *out_im = cimag(r);
}
