/* BS99: the Bobenko-Suris discrete Lagrange top (1999), the comparison
 * scheme of Kinon-Betsch-Schneider, Sect. 6.2, on a symmetric heavy top in
 * director coordinates (the model extension wb.director_top/1).
 *
 * The scheme lives in the reduced variables, the symmetry axis d3 and the
 * angular momentum m_O about the fixed tip (the form of the authors' code,
 * metis Lagrange_top_ODE.m; the paper's Appendix A.8 is missing from our
 * text):
 *   m_O^{n+1} = m_O^n + h m g l (e3 x d3^n)                      (explicit)
 *   d3^{n+1}  = d3^n + h / I1O m_O^{n+1} x (d3^n + d3^{n+1}) / 2  (Cayley)
 * with I1O = I1 + m l^2, the transverse inertia about the tip.  The second
 * line is d3^{n+1} = cay(a m_O^{n+1}) d3^n, a = h / (2 I1O), with
 * cay(u) = (I - [u]x)^-1 (I + [u]x) = I + 2 / (1 + |u|^2) ([u]x + [u]x^2).
 *
 * m_O is carried from step to step (aux "angular_momentum"; reset() and a
 * fresh start read it from the state, m_O = sum_i q_i x p_i): read back
 * from (q, p) at every step, its rounding would accumulate into a drift
 * of J3 (1e-13 over 1000 steps).  The state (q, p) is written whole:
 *   the frame turns by cay(a m_O^{n+1}) (which takes d3^n to d3^{n+1}) and
 *   then about d3^{n+1} by h m3 (1/I3 - 1/I1O), m3 = m_O . d3 (the spin the
 *   axis equation leaves out; first order, as the scheme), phi = l d3;
 *   omega = I_O^-1 m_O^{n+1} with I_O = I1O (I - d3 d3^T) + I3 d3 d3^T,
 *   v_i = omega x q_i, p = M v,
 * so that the directors stay orthonormal, phi = l d3, G M^-1 p = 0 and
 * sum_i q_i x p_i = m_O^{n+1} at every node, to round-off.  m_O . e3 (J3)
 * and m_O . d3 are invariants of the reduced scheme (e3 . (e3 x d3) = 0;
 * d3^{n+1} turns about m_O^{n+1}).  No Newton iteration: one 3 x 3
 * rotation per step. */
#include "ggl.h"
#include "wb_director_top.h"
#include "wb_integrator_plugin.h"
#include "wb_mass.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct bs99 {
    const wb_model *model;
    wb_director_top_ext layout;
    double m, mgl, l, I1O, I3; /* from the model view (create)            */
    double mass[4];            /* m, E1, E2, E3: the blocks' masses        */
    double mO[3], saved[3];    /* m_O at the last node; before the step    */
} bs99;

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* R x for R = I + s [n]x + c [n]x^2, i.e. x + s n x x + c n x (n x x). */
static void rotate(const double *n, double s, double c, const double *x, double *out)
{
    double nx[3], nnx[3];
    cross(n, x, nx);
    cross(n, nx, nnx);
    for (int i = 0; i < 3; i++)
        out[i] = x[i] + s * nx[i] + c * nnx[i];
}

/* ---- the model's structure, read and checked --------------------------------- */

/* The multiple of the identity that the 3 x 3 block (r, c) of the n x n
 * matrix A is, or NAN when it is not one. */
static double scalar_block(const double *A, int n, int r, int c)
{
    const double s = A[(size_t)r * n + c];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            const double want = i == j ? s : 0.0;
            if (fabs(A[(size_t)(r + i) * n + c + j] - want) > 1e-14 * fabs(s))
                return NAN;
        }
    return s;
}

#define BS99_SHAPE                                                                          \
    "ggl.bs99 integrates a symmetric heavy top in director coordinates (wb.director_top/1: " \
    "M = blockdiag(m, E1, E2, E3) x I3 with E1 = E2, V = m g phi_3, the tip constraints "     \
    "phi / l - d3)"

static int read_top(const wb_host *host, const wb_model *model, bs99 *b)
{
    const wb_director_top_ext *ext = wb_extension(model, WB_EXT_DIRECTOR_TOP);
    const int n = model->nq;
    if (!ext || ext->struct_size < sizeof *ext) {
        host->error(host, "%s; model '%s' does not describe its layout", BS99_SHAPE, model->name);
        return WB_ERR_INVALID;
    }
    b->layout = *ext;
    const int blocks[4] = {ext->phi, ext->director[0], ext->director[1], ext->director[2]};
    for (int k = 0; k < 4; k++)
        if (blocks[k] < 0 || blocks[k] + 3 > n || ext->tip < 0 ||
            ext->tip + 3 > model->n_holonomic) {
            host->error(host, "%s; model '%s' gives offsets outside its %d coordinates or %d "
                        "constraints", BS99_SHAPE, model->name, n, model->n_holonomic);
            return WB_ERR_INVALID;
        }
    double *work = calloc((size_t)n * n + 2 * (size_t)n + (size_t)model->n_holonomic * n,
                          sizeof(double));
    if (!work) {
        host->error(host, "ggl.bs99: out of memory");
        return WB_ERR_NOMEM;
    }
    double *M = work, *q = M + (size_t)n * n, *grad = q + n, *G = grad + n;
    int status = WB_OK;
    const char *what = NULL;
    wb_mass(model, q, M); /* constant (checked by the caller) */
    for (int k = 0; k < 4 && !what; k++) {
        b->mass[k] = scalar_block(M, n, blocks[k], blocks[k]);
        if (!(b->mass[k] > 0))
            what = "a mass block is not a positive multiple of I3";
    }
    if (!what && fabs(b->mass[1] - b->mass[2]) > 1e-12 * b->mass[1])
        what = "E1 != E2 (the top is not symmetric)";
    /* V = m g phi_3: the gradient, at two points, is m g e3 in phi and 0 elsewhere */
    for (int trial = 0; trial < 2 && !what; trial++) {
        for (int i = 0; i < n; i++)
            q[i] = trial * (0.3 + 0.1 * i);
        wb_potential_gradient(model, q, grad);
        for (int i = 0; i < n; i++) {
            const double want = i == blocks[0] + 2 ? grad[blocks[0] + 2] : 0.0;
            if (grad[i] != want)
                what = "grad V is not a constant vertical force on phi";
        }
    }
    b->m = b->mass[0];
    b->mgl = grad[blocks[0] + 2];
    /* the tip rows of G: e_i / l at phi, -e_i at d3, nothing else */
    if (!what) {
        wb_constraint_jacobian(model, q, G);
        const double l_inv = G[(size_t)ext->tip * n + blocks[0]];
        for (int r = 0; r < 3 && !what; r++)
            for (int c = 0; c < n; c++) {
                double want = 0.0;
                if (c == blocks[0] + r)
                    want = l_inv;
                else if (c == blocks[3] + r)
                    want = -1.0;
                if (fabs(G[(size_t)(ext->tip + r) * n + c] - want) > 1e-14 * fabs(l_inv))
                    what = "the tip constraints are not phi / l - d3";
            }
        if (!what && !(l_inv > 0))
            what = "the tip constraints give no positive l";
        b->l = 1.0 / l_inv;
    }
    free(work);
    if (what) {
        host->error(host, "%s; model '%s': %s", BS99_SHAPE, model->name, what);
        status = WB_ERR_INVALID;
    }
    b->mgl *= b->l;
    /* E_i = (I_j + I_k - I_i)/2: I1 = E2 + E3, I3 = E1 + E2 */
    b->I1O = b->mass[2] + b->mass[3] + b->m * b->l * b->l;
    b->I3 = b->mass[1] + b->mass[2];
    return status;
}

/* ---- the method ------------------------------------------------------------------- */

static int bs99_create(const wb_host *host, const wb_model *model, const wb_option_value *opts,
                       void **inst)
{
    (void)opts;
    int status = wb_require_constant_mass(host, model, "ggl.bs99");
    if (status != WB_OK)
        return status;
    bs99 *b = calloc(1, sizeof *b);
    if (!b) {
        host->error(host, "ggl.bs99: out of memory");
        return WB_ERR_NOMEM;
    }
    b->model = model;
    if ((status = read_top(host, model, b)) != WB_OK) {
        free(b);
        return status;
    }
    *inst = b;
    return WB_OK;
}

static void bs99_destroy(void *inst) { free(inst); }

/* m_O = sum_i q_i x p_i */
static void tip_momentum(const bs99 *b, const double *q, const double *p, double *mO)
{
    const int blocks[4] = {b->layout.phi, b->layout.director[0], b->layout.director[1],
                           b->layout.director[2]};
    double qxp[3];
    mO[0] = mO[1] = mO[2] = 0;
    for (int k = 0; k < 4; k++) {
        cross(q + blocks[k], p + blocks[k], qxp);
        for (int i = 0; i < 3; i++)
            mO[i] += qxp[i];
    }
}

static int bs99_start(void *inst, double t, double h, const double *q, const double *p,
                      const double *aux)
{
    bs99 *b = inst;
    (void)t, (void)h;
    if (aux)
        memcpy(b->mO, aux, sizeof b->mO);
    else
        tip_momentum(b, q, p, b->mO);
    return WB_OK;
}

static int bs99_step(void *inst, double t, double h, const double *q0, const double *p0,
                     double *q1, double *p1, wb_step_stats *stats)
{
    bs99 *b = inst;
    const int blocks[4] = {b->layout.phi, b->layout.director[0], b->layout.director[1],
                           b->layout.director[2]};
    const double *d3 = q0 + blocks[3];
    double *mO = b->mO;
    (void)t, (void)p0;
    memcpy(b->saved, mO, sizeof b->saved);
    /* m_O^{n+1} = m_O^n + h m g l e3 x d3^n */
    mO[0] -= h * b->mgl * d3[1];
    mO[1] += h * b->mgl * d3[0];
    /* the frame: cay(a m_O^{n+1}), then the spin about the new d3 */
    const double a = h / (2 * b->I1O);
    const double u[3] = {a * mO[0], a * mO[1], a * mO[2]};
    const double uu = dot3(u, u), norm_u = sqrt(uu);
    double axis[3] = {0, 0, 0};
    if (norm_u > 0)
        for (int i = 0; i < 3; i++)
            axis[i] = u[i] / norm_u;
    /* cay(u) = I + 2/(1+|u|^2) ([u] + [u]^2) = I + s [n] + c [n]^2 */
    const double cs = 2 * norm_u / (1 + uu), cc = 2 * uu / (1 + uu);
    double turned[4][3];
    for (int k = 1; k < 4; k++)
        rotate(axis, cs, cc, q0 + blocks[k], turned[k]);
    const double *d3new = turned[3];
    const double m3 = dot3(mO, d3new);
    const double spin = h * m3 * (1 / b->I3 - 1 / b->I1O);
    for (int k = 1; k <= 2; k++)
        rotate(d3new, sin(spin), 1 - cos(spin), turned[k], q1 + blocks[k]);
    for (int i = 0; i < 3; i++) {
        q1[blocks[3] + i] = d3new[i];
        q1[blocks[0] + i] = b->l * d3new[i];
    }
    /* omega = m_O / I1O + m3 (1/I3 - 1/I1O) d3;  p_i = mass_i omega x q_i */
    double omega[3];
    for (int i = 0; i < 3; i++)
        omega[i] = mO[i] / b->I1O + m3 * (1 / b->I3 - 1 / b->I1O) * d3new[i];
    for (int k = 0; k < 4; k++) {
        cross(omega, q1 + blocks[k], p1 + blocks[k]);
        for (int i = 0; i < 3; i++)
            p1[blocks[k] + i] *= b->mass[k];
    }
    if (!isfinite(omega[0] + omega[1] + omega[2])) {
        memcpy(mO, b->saved, sizeof b->saved);
        return WB_ERR_NONFINITE;
    }
    if (stats)
        stats->function_evals++;
    return WB_OK;
}

static void bs99_aux_values(const void *inst, double *out)
{
    memcpy(out, ((const bs99 *)inst)->mO, 3 * sizeof(double));
}

static int describe_bs99(const wb_option_value *opts, wb_method_props *out)
{
    (void)opts;
    out->order = 1;
    out->flags = WB_PROP_EXPLICIT | WB_PROP_MOMENTUM_CONSERVING | WB_PROP_POSITION_CONSTRAINT |
                 WB_PROP_VELOCITY_CONSTRAINT;
    return WB_OK;
}

static const char *const requires_top[] = {WB_EXT_MECHANICAL, WB_EXT_HOLONOMIC,
                                           WB_EXT_DIRECTOR_TOP, NULL};

static const wb_aux_spec bs99_aux[] = {
    {.name = "angular_momentum", .size_kind = WB_AUX_FIXED, .size = 3, .time = WB_AUX_AT_NODE,
     .doc = "m_O, the angular momentum about the fixed tip (the reduced scheme's state)"},
};

const wb_method ggl_bs99 = {
    .struct_size = sizeof(wb_method),
    WB_METHOD_ELEMENT_SIZES,
    .name = "bs99",
    .doc = "BS99: Bobenko-Suris discrete Lagrange top (the paper's comparison on the heavy top; "
           "reduced axis and angular momentum, the frame written back)",
    .requires = requires_top,
    .handles = WB_HANDLES_HOLONOMIC,
    .order_doc = "1",
    .property_flags = WB_PROP_EXPLICIT | WB_PROP_MOMENTUM_CONSERVING |
                      WB_PROP_POSITION_CONSTRAINT | WB_PROP_VELOCITY_CONSTRAINT,
    .describe = describe_bs99,
    .create = bs99_create,
    .destroy = bs99_destroy,
    .start = bs99_start,
    .step = bs99_step,
    .aux = bs99_aux,
    .n_aux = WB_ARRAY_COUNT(bs99_aux),
    .aux_values = bs99_aux_values,
};
