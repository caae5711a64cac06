/*
 * constrained_model_template.c -- a complete workbench model plugin with a
 * holonomic constraint and a momentum map, to copy and edit.  Read
 * model_template.c first: this file explains only what a constraint and a
 * first integral add.
 *
 *     cc -shared -fPIC $(pkg-config --cflags workbench-plugin) my_model.c -o my_model.so
 *     workbench --plugin-path DIR check-model template_surface
 *
 * THE SYSTEM
 *   A particle of mass m in R^3 under gravity, held on the surface of
 *   revolution z = a r^2 + c r^4 (r^2 = x^2 + y^2): a bowl that steepens.
 *
 *     q = (x, y, z),  H(q, p) = |p|^2 / (2 m) + m g z,
 *     g(q) = z - a r^2 - c r^4 = 0                      (one constraint)
 *
 *   The surface and gravity are symmetric under rotations about the z
 *   axis, so the angular momentum Lz = x py - y px is conserved: a
 *   momentum map, Lz = p . xi(q) with xi(q) = (-y, x, 0).
 *   With c = 0 the constraint is quadratic (a paraboloid).
 *
 * WHAT A CONSTRAINT ADDS (wb.holonomic/1, see workbench/model.h)
 *   The equations of motion with the multiplier lambda (m values):
 *     q' = M^-1 p,   p' = -grad V - dT/dq - G(q)^T lambda,   g(q) = 0,
 *   with G = Dg the m x nq constraint Jacobian.  Along the motion the
 *   velocity stays tangent: G(q) M^-1 p = 0 (the "hidden" constraint), so
 *   a consistent state satisfies both g(q) = 0 and G M^-1 p = 0.
 *   Methods need more than g and G:
 *     constraints        g(q)                               required
 *     jacobian           G(q) = Dg(q), m x nq               optional
 *     hessian_contract   T(q; mu) = sum_k mu_k D^2 g_k(q), nq x nq
 *                        (Newton matrices of RATTLE, SPARK, GGL, ...) optional
 *     hessian_vector     B(q; w), row k = (D^2 g_k(q) w)^T, m x nq
 *                        (the derivative of the hidden constraint) optional
 *     third_contract     D_q[T(q; mu) w], nq x nq (the GGL schemes'
 *                        Newton matrices); zero when the constraints are
 *                        quadratic: then set WB_HOLONOMIC_QUADRATIC in
 *                        .flags and leave it NULL                  optional
 *   Every optional one left NULL is replaced by the host's central finite
 *   differences (good to about 1e-8 relative, three levels deep for the
 *   third derivatives): fine to start with, but implicit methods then stop
 *   converging to machine precision.  Give them all and let
 *   `workbench check-model` compare each with finite differences.
 *
 *   Optional for speed (wb.holonomic_point/1, ABI 1.4): grad V, g and G
 *   at one point in one call, the very values of the three functions;
 *   RATTLE/SHAKE then call the model twice a step instead of five times.
 *   With one constraint, one more line (ABI 1.7) gives the extension's
 *   project(): RATTLE's Newton iteration compiled here, on that call, so
 *   that RATTLE calls the model once a step (the same numbers).
 *
 *   Scripts need not write any of this: wb.define_model{...} takes the
 *   same model as Lua functions and differentiates them exactly.
 *
 * WHAT A FIRST INTEGRAL ADDS (wb.invariants/1)
 *   Solutions get a column per invariant ("Lz"), check-model verifies
 *   dLz/dt = 0 along the constrained flow, and a generator makes the
 *   invariant a momentum map for methods that use one.
 */
#include <workbench/workbench.h>
#include <workbench/holonomic_projection.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum param_index { P_MASS, P_GRAVITY, P_A, P_C, P_RADIUS, P_SPEED, N_PARAMS };

static const wb_param_spec surface_params[N_PARAMS] = {
    /* name      default  min    max    one-line doc */
    {"m", 1.0, 1e-9, 1e9, "particle mass"},
    {"g", 9.81, 0.0, 1e9, "gravitational acceleration (along -z)"},
    {"a", 0.5, 1e-9, 1e9, "surface z = a r^2 + c r^4: curvature at the bottom"},
    {"c", 0.25, 0.0, 1e9, "surface z = a r^2 + c r^4: quartic steepening (0: a paraboloid)"},
    {"r0", 1.0, 1e-9, 1e9, "initial distance from the axis"},
    {"v0", 2.0, -1e9, 1e9, "initial speed, horizontal and tangent to the circle r = r0"},
};

typedef struct surface {
    double m, g, a, c, r0, v0;
} surface;

static const char *const invariant_names[] = {"Lz"};

static int surface_create(const wb_host *host, const double *params, void **self,
                          wb_model_info *info)
{
    surface *s = malloc(sizeof *s);
    if (!s) {
        host->error(host, "template_surface: out of memory");
        return WB_ERR_NOMEM;
    }
    s->m = params[P_MASS], s->g = params[P_GRAVITY];
    s->a = params[P_A], s->c = params[P_C];
    s->r0 = params[P_RADIUS], s->v0 = params[P_SPEED];
    info->nq = info->nv = 3;
    info->n_holonomic = 1;      /* m = 1 constraint: the host then asks for
                                   wb.holonomic/1 and refuses the model
                                   without it                               */
    info->mass_constant = 1;
    info->n_invariants = 1;     /* besides the energy                      */
    info->invariant_names = invariant_names; /* static: live as long as us  */
    *self = s;
    return WB_OK;
}

static void surface_destroy(void *self) { free(self); }

/* ---- wb.mechanical/1: as in model_template.c -------------------------------- */

static void surface_mass(void *self, const double *q, double *M)
{
    const surface *s = self;
    (void)q;
    memset(M, 0, 9 * sizeof(double));
    M[0] = M[4] = M[8] = s->m;
}

static void surface_mass_solve(void *self, const double *q, const double *p, double *v)
{
    const surface *s = self;
    (void)q;
    for (int i = 0; i < 3; i++)
        v[i] = p[i] / s->m;
}

static double surface_potential(void *self, const double *q)
{
    const surface *s = self;
    return s->m * s->g * q[2];
}

static void surface_potential_gradient(void *self, const double *q, double *grad)
{
    const surface *s = self;
    (void)q;
    grad[0] = grad[1] = 0.0;
    grad[2] = s->m * s->g;
}

static void surface_potential_hessian(void *self, const double *q, double *H)
{
    (void)self, (void)q;
    memset(H, 0, 9 * sizeof(double));
}

static const wb_mechanical_ext surface_mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = surface_mass,
    .mass_solve = surface_mass_solve,
    .potential = surface_potential,
    .potential_gradient = surface_potential_gradient,
    .potential_hessian = surface_potential_hessian,
};

/* ---- wb.holonomic/1 -----------------------------------------------------------
 *
 * With r2 = x^2 + y^2 and f(r2) = a r2 + c r2^2 the constraint is
 *   g(q) = z - f(r2),   f' = a + 2 c r2,   f'' = 2 c,
 * and, writing u = (x, y) for the horizontal part,
 *   Dg        = (-2 f' u, 1)
 *   D^2 g     = -2 f' I_2 - 4 f'' u u^T            (in the x, y block; zero
 *                                                    in every z row and column)
 *   D^3 g[w]  = D_q(D^2 g w) = -4 f'' [ u w_u^T + w_u u^T + (u . w_u) I_2 ]
 *               (the derivative of D^2 g along w, w_u = (w_x, w_y))
 * Derive these once on paper (or let a computer algebra system do it),
 * then let check-model catch the slips. */

static void surface_constraints(void *self, const double *q, double *g)
{
    const surface *s = self;
    const double r2 = q[0] * q[0] + q[1] * q[1];
    g[0] = q[2] - (s->a * r2 + s->c * r2 * r2);
}

/* G, m x nq = 1 x 3: G[k*nq + j] = d g_k / dq_j. */
static void surface_jacobian(void *self, const double *q, double *G)
{
    const surface *s = self;
    const double r2 = q[0] * q[0] + q[1] * q[1];
    const double f1 = s->a + 2.0 * s->c * r2;
    G[0] = -2.0 * f1 * q[0];
    G[1] = -2.0 * f1 * q[1];
    G[2] = 1.0;
}

/* The 2 x 2 horizontal block of D^2 g (the rest is zero), into h[4]. */
static void horizontal_hessian(const surface *s, const double *q, double *h)
{
    const double r2 = q[0] * q[0] + q[1] * q[1];
    const double f1 = s->a + 2.0 * s->c * r2, f2 = 2.0 * s->c;
    h[0] = -2.0 * f1 - 4.0 * f2 * q[0] * q[0];
    h[1] = h[2] = -4.0 * f2 * q[0] * q[1];
    h[3] = -2.0 * f1 - 4.0 * f2 * q[1] * q[1];
}

/* T = sum_k mu_k D^2 g_k, nq x nq: with one constraint mu[0] D^2 g. */
static void surface_hessian_contract(void *self, const double *q, const double *mu, double *T)
{
    double h[4];
    horizontal_hessian(self, q, h);
    memset(T, 0, 9 * sizeof(double));
    T[0] = mu[0] * h[0], T[1] = mu[0] * h[1];
    T[3] = mu[0] * h[2], T[4] = mu[0] * h[3];
}

/* B, m x nq: row k = (D^2 g_k w)^T. */
static void surface_hessian_vector(void *self, const double *q, const double *w, double *B)
{
    double h[4];
    horizontal_hessian(self, q, h);
    B[0] = h[0] * w[0] + h[1] * w[1];
    B[1] = h[2] * w[0] + h[3] * w[1];
    B[2] = 0.0;
}

/* D = D_q[T(q; mu) w], nq x nq: entry (i, j) = sum_k mu_k sum_l
 * d^3 g_k / dq_i dq_l dq_j w_l.  Only the x, y block is nonzero. */
static void surface_third_contract(void *self, const double *q, const double *mu,
                                   const double *w, double *D)
{
    const surface *s = self;
    const double f2 = 2.0 * s->c, uw = q[0] * w[0] + q[1] * w[1];
    memset(D, 0, 9 * sizeof(double));
    D[0] = -4.0 * f2 * mu[0] * (2.0 * q[0] * w[0] + uw);
    D[1] = -4.0 * f2 * mu[0] * (q[0] * w[1] + w[0] * q[1]);
    D[3] = D[1];
    D[4] = -4.0 * f2 * mu[0] * (2.0 * q[1] * w[1] + uw);
}

static const wb_holonomic_ext surface_holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = 0,   /* not quadratic (c > 0): third_contract is given below.
                     A model whose every g_k is quadratic sets
                     WB_HOLONOMIC_QUADRATIC instead: energy-momentum methods
                     (ggl.em) need it, and the host's third derivative is
                     then exactly zero. */
    .constraints = surface_constraints,
    .jacobian = surface_jacobian,
    .hessian_contract = surface_hessian_contract,
    .hessian_vector = surface_hessian_vector,
    .third_contract = surface_third_contract,
};

/* ---- wb.invariants/1 ----------------------------------------------------------- */

static void surface_invariants(void *self, const double *q, const double *p, double *out)
{
    (void)self;
    out[0] = q[0] * p[1] - q[1] * p[0];
}

/* Lz = p . xi(q) with xi = (-y, x, 0), the rotation's generator: return 0
 * and fill xi, or -1 for an invariant that is not a momentum map. */
static int surface_generator(void *self, int index, const double *q, double *xi)
{
    (void)self;
    if (index != 0)
        return -1;
    xi[0] = -q[1], xi[1] = q[0], xi[2] = 0.0;
    return 0;
}

static const wb_invariants_ext surface_invariants_ext = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = surface_invariants,
    .generator = surface_generator,
};

/* ---- wb.initial_state/1 ----------------------------------------------------------
 *
 * Consistent, as the host requires of a default state: on the surface,
 * g(q0) = 0, and moving tangent to it, G(q0) M^-1 p0 = 0.  Here the
 * particle starts at radius r0 on the x axis with a horizontal velocity
 * along y (G v = -2 f' x * 0 + ... = 0).  For your model: compute q0 on
 * the constraint (solve g(q0) = 0 for one coordinate), then project the
 * momentum you want onto the tangent space, or ask the host to do it
 * from a script: m:project(q, p). */
static void surface_initial(void *self, double *q, double *p)
{
    const surface *s = self;
    const double r2 = s->r0 * s->r0;
    q[0] = s->r0, q[1] = 0.0, q[2] = s->a * r2 + s->c * r2 * r2;
    p[0] = 0.0, p[1] = s->m * s->v0, p[2] = 0.0;
}

static const wb_initial_state_ext surface_initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = surface_initial,
};

/* ---- wb.holonomic_point/1 (optional) ---------------------------------------
 * grad V, g and G at q in one call: the same expressions as
 * surface_potential_gradient, surface_constraints and surface_jacobian
 * (check-model compares them), so methods give the same numbers with and
 * without it. */
static void surface_point_values(void *self, const double *q, double *grad, double *g,
                                 double *G)
{
    surface_potential_gradient(self, q, grad);
    surface_constraints(self, q, g);
    surface_jacobian(self, q, G);
}

/* With one constraint: the Newton iteration of a RATTLE/SHAKE step on
 * surface_point_values, inlined (name, evaluate, nq: 0 if nq varies). */
WB_HOLONOMIC_PROJECTION(surface_project, surface_point_values, 3)

static const wb_holonomic_point_ext surface_holonomic_point = {
    .struct_size = sizeof(wb_holonomic_point_ext),
    .evaluate = surface_point_values,
    .project = surface_project,
    .project_nq = surface_project_nq,
};

static const void *surface_get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &surface_mechanical;
    if (strcmp(id, WB_EXT_HOLONOMIC) == 0)
        return &surface_holonomic;
    if (strcmp(id, WB_EXT_HOLONOMIC_POINT) == 0)
        return &surface_holonomic_point;
    if (strcmp(id, WB_EXT_INVARIANTS) == 0)
        return &surface_invariants_ext;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &surface_initial_state;
    return NULL;
}

static const wb_model_class surface_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = "template_surface",
    .doc = "particle on the surface of revolution z = a r^2 + c r^4 under gravity; "
           "momentum map Lz",
    .params = surface_params,
    .n_params = N_PARAMS,
    .create = surface_create,
    .destroy = surface_destroy,
    .get_extension = surface_get_extension,
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = "template_surface",
    .version = "1.0",
    .description = "template: a particle on a surface of revolution (one constraint, Lz)",
    .descriptor = &surface_class,
};
