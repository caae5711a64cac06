/*
 * model_template.c -- a complete workbench model plugin, to copy and edit.
 *
 * Build it outside the workbench source tree (see README.md next to this
 * file):
 *
 *     cc -shared -fPIC $(pkg-config --cflags workbench-plugin) my_model.c -o my_model.so
 *
 * and point the host at the folder holding my_model.so:
 *
 *     workbench --plugin-path DIR check-model template_model
 *
 * THE SYSTEM
 *   A particle of mass m in the plane in an anisotropic Henon-Heiles
 *   potential:
 *
 *     q = (x, y),  p = (px, py),  H(q, p) = |p|^2 / (2 m) + V(q),
 *     V(q) = m/2 (wx^2 x^2 + wy^2 y^2) + lambda (x^2 y - y^3 / 3).
 *
 *   lambda = 0 gives two uncoupled harmonic oscillators of angular
 *   frequencies wx and wy (solvable in closed form: handy for tests);
 *   m = wx = wy = lambda = 1 is the classical Henon-Heiles system.
 *   The default initial state starts at the origin with the kinetic energy
 *   E, the `energy` parameter, so H = E exactly.
 *
 * WHAT A MODEL PLUGIN IS
 *   A shared object exporting exactly one symbol, the entry struct at the
 *   bottom of this file.  The entry points to a `wb_model_class`: static
 *   data (name, parameters) plus three functions: create() an instance for
 *   given parameter values, destroy() it, and get_extension() which hands
 *   out the model's capabilities.  Every capability is a separate,
 *   versioned extension struct found by a string id ("wb.mechanical/1",
 *   "wb.initial_state/1", ...), so a model provides exactly what it has
 *   and nothing grows one giant struct.
 *
 *   This model provides two extensions:
 *     wb.mechanical/1     mass matrix, potential and its derivatives
 *     wb.initial_state/1  a default (q0, p0)
 *   It leaves out wb.holonomic/1 and wb.nonholonomic/1 (no constraints),
 *   wb.invariants/1 (no first integral besides the energy, which the host
 *   computes as T + V by itself) and the Lie-group extensions.  See the
 *   note "Adding a first integral" near get_extension() for the one you
 *   will most likely want next.
 *
 * CONVENTIONS (workbench/model.h)
 *   nq numbers in q, nv in p; nv == nq for a model on a vector space.
 *   Matrices are dense and row-major: entry (i, j) of an r x c matrix A is
 *   A[i*c + j].  Output arrays are allocated by the caller and are always
 *   large enough; callbacks write every entry and never keep the pointer.
 *
 * TO MAKE IT YOURS
 *   1. Rename: the entry name and the class name must be the same
 *      identifier [a-z0-9_]+, unique among all loaded models.  The host
 *      ignores a second plugin with a name it has already loaded.
 *   2. Replace the parameters, the instance struct and the physics.
 *   3. Run `workbench --plugin-path DIR check-model NAME`: it compares each
 *      derivative you provide against finite differences and checks that
 *      the energy is constant along the flow.
 *
 * Only the public headers, libc and libm are used: a plugin never links
 * against the host.  Everything the host offers arrives through the
 * `wb_host` service table passed to create().
 */
#include <workbench/workbench.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters ---------------------------------------------------------
 *
 * Named real parameters, listed statically so that `workbench list` can
 * show them without creating an instance.  The host fills in defaults,
 * takes overrides from scripts (wb.model("template_model", {lambda = 0}))
 * or the command line (check-model template_model lambda=0), checks every
 * value against its closed range [min, max], and passes create() one
 * double per spec, in spec order.  Give the ranges honestly: they are the
 * first line of defence against nonsense such as a negative mass.
 */
enum param_index { P_MASS, P_OMEGA_X, P_OMEGA_Y, P_LAMBDA, P_ENERGY, P_ANGLE, N_PARAMS };

#define TEMPLATE_PI 3.14159265358979323846 /* M_PI is not ISO C */

static const wb_param_spec template_params[N_PARAMS] = {
    /* name        default      min     max          one-line doc */
    {"mass", 1.0, 1e-6, 1e6, "particle mass m"},
    {"omega_x", 1.0, 1e-6, 1e6, "angular frequency of small oscillations along x"},
    {"omega_y", 1.0, 1e-6, 1e6, "angular frequency of small oscillations along y"},
    {"lambda", 1.0, 0.0, 1e6, "cubic coupling lambda (x^2 y - y^3/3); 0 decouples x and y"},
    {"energy", 1.0 / 12.0, 0.0, 1e6,
     "energy E of the default initial state (below the escape energy when lambda > 0)"},
    {"angle", 0.3, -TEMPLATE_PI, TEMPLATE_PI,
     "direction of the initial momentum, radians from the x axis"},
};

/* ---- the instance --------------------------------------------------------
 *
 * Whatever create() allocates and the callbacks read.  The host treats it
 * as an opaque `void *self` and hands it back as the first argument of
 * every callback.  Precompute here what every evaluation would otherwise
 * recompute.  An instance is used by one thread at a time, but several
 * instances may coexist (a script may build the model twice with
 * different parameters): keep all state in the instance, none in globals.
 */
typedef struct template_model {
    double mass;
    double stiffness_x;     /* m wx^2: V = stiffness_x x^2 / 2 + ...       */
    double stiffness_y;     /* m wy^2                                      */
    double lambda;
    double initial_momentum[2];
} template_model;

/* The lowest saddle of V, for lambda > 0: above this energy an orbit
 * started at the origin may leave the potential well and run off to
 * infinity.  Saddles sit at (0, ky/lambda) and at y = -kx/(2 lambda),
 * x^2 = y^2 - ky y / lambda. */
static double escape_energy(double kx, double ky, double lambda)
{
    double on_axis = ky * ky * ky / (6.0 * lambda * lambda);
    double off_axis = (3.0 * ky * kx * kx + kx * kx * kx) / (24.0 * lambda * lambda);
    return on_axis < off_axis ? on_axis : off_axis;
}

/* ---- create / destroy -----------------------------------------------------
 *
 * create() receives
 *   host    the service table (error reports, logging, linear algebra);
 *           valid until this instance is destroyed, so keep it in the
 *           instance if a callback needs it later.
 *   params  N_PARAMS values in spec order, already range-checked.
 *   self    where to store the new instance.
 *   info    the model's dimensions, for us to fill.  The host has zeroed
 *           it and set info->struct_size to the size *it* knows.
 *
 * On success: set *self, fill *info, return WB_OK.  On failure: free what
 * was allocated, leave *self alone, report the reason with
 * host->error(host, fmt, ...) and return a wb_status.  The host does not
 * call destroy() after a failed create().
 */
static int template_create(const wb_host *host, const double *params, void **self,
                           wb_model_info *info)
{
    const double kx = params[P_MASS] * params[P_OMEGA_X] * params[P_OMEGA_X];
    const double ky = params[P_MASS] * params[P_OMEGA_Y] * params[P_OMEGA_Y];

    /* Ranges are checked per parameter; combinations are ours to check. */
    if (params[P_LAMBDA] > 0.0) {
        double limit = escape_energy(kx, ky, params[P_LAMBDA]);
        if (params[P_ENERGY] >= limit) {
            host->error(host, "template_model: energy %g is not below the escape energy "
                        "%g of this potential (the orbit could leave the well); lower "
                        "energy or lambda", params[P_ENERGY], limit);
            return WB_ERR_INVALID;
        }
    }

    template_model *m = malloc(sizeof *m);
    if (!m) {
        host->error(host, "template_model: out of memory");
        return WB_ERR_NOMEM;
    }
    m->mass = params[P_MASS];
    m->stiffness_x = kx;
    m->stiffness_y = ky;
    m->lambda = params[P_LAMBDA];
    double speed_times_mass = sqrt(2.0 * m->mass * params[P_ENERGY]);
    m->initial_momentum[0] = speed_times_mass * cos(params[P_ANGLE]);
    m->initial_momentum[1] = speed_times_mass * sin(params[P_ANGLE]);

    info->nq = 2;               /* q = (x, y)                               */
    info->nv = 2;               /* p = (px, py); must equal nq here          */
    info->n_holonomic = 0;      /* no g(q) = 0 constraints                  */
    info->n_nonholonomic = 0;   /* no Phi(q, v) = 0 constraints             */
    info->mass_constant = 1;    /* M does not depend on q: the host factors
                                   it once, and methods such as Stormer-
                                   Verlet that need a constant M accept us */

    /* ABI rule: every field of ABI 1.0 is present in every host of major
     * version 1.  A field appended in a later minor version is not present
     * in an older host's (shorter) struct, so guard writes to it:
     *     if (WB_HAS_FIELD(info, wb_model_info, newer_field))
     *         info->newer_field = ...;
     * The same guard on a 1.0 field, where it is always true: */
    if (WB_HAS_FIELD(info, wb_model_info, invariant_names)) {
        info->n_invariants = 0;          /* only the energy                  */
        info->invariant_names = NULL;    /* would be static strings          */
    }

    host->log(host, WB_LOG_DEBUG, "template_model: created, escape energy %g",
              m->lambda > 0 ? escape_energy(kx, ky, m->lambda) : INFINITY);
    *self = m;
    return WB_OK;
}

/* Release everything create() allocated.  Called once per instance, after
 * every integrator using the instance is gone. */
static void template_destroy(void *self)
{
    free(self);
}

/* ---- wb.mechanical/1 -------------------------------------------------------
 *
 *   H(q, p) = 1/2 p^T M(q)^-1 p + V(q),   q' = M^-1 p,   p' = -grad V - dT/dq.
 *
 * Required: mass() and potential().  Optional: everything else.  For each
 * optional callback left NULL the host installs a fallback, so integrators
 * can call every function of the view without testing for NULL:
 *   mass_solve          Cholesky factorisation of mass() (done once when
 *                       info->mass_constant is 1)
 *   potential_gradient  central finite differences of potential()
 *   potential_hessian   central finite differences of the gradient (of
 *                       yours when you give one, else of the FD gradient)
 *   kinetic_gradient    zero when mass_constant is 1, else finite
 *                       differences of 1/2 p^T M(q)^-1 p
 * Central differences cost 2 nq evaluations per derivative and are good to
 * about 1e-10 relative, so implicit methods (Newton on Hessians) and order
 * studies at small errors profit from analytic derivatives.  Provide them, then let
 * `workbench check-model` compare them with finite differences.
 *
 * Callbacks return void: they cannot fail.  If your V is undefined
 * somewhere (a singularity), return NaN or Inf; the driver notices the
 * non-finite state and stops the run with a clear message.
 */

/* M(q), nq x nq, symmetric positive definite: here m I. */
static void template_mass(void *self, const double *q, double *M)
{
    const template_model *m = self;
    (void)q;
    M[0] = m->mass, M[1] = 0.0;
    M[2] = 0.0,     M[3] = m->mass;
}

/* v = M(q)^-1 p.  Optional; a diagonal M makes it a division. */
static void template_mass_solve(void *self, const double *q, const double *p, double *v)
{
    const template_model *m = self;
    (void)q;
    v[0] = p[0] / m->mass;
    v[1] = p[1] / m->mass;
}

/* V(q), a number. */
static double template_potential(void *self, const double *q)
{
    const template_model *m = self;
    const double x = q[0], y = q[1];
    return 0.5 * (m->stiffness_x * x * x + m->stiffness_y * y * y) +
           m->lambda * (x * x * y - y * y * y / 3.0);
}

/* grad V(q), nq numbers: g[i] = dV/dq_i. */
static void template_potential_gradient(void *self, const double *q, double *g)
{
    const template_model *m = self;
    const double x = q[0], y = q[1];
    g[0] = m->stiffness_x * x + 2.0 * m->lambda * x * y;
    g[1] = m->stiffness_y * y + m->lambda * (x * x - y * y);
}

/* Hessian of V, nq x nq row-major: H[i*nq + j] = d^2 V / dq_i dq_j. */
static void template_potential_hessian(void *self, const double *q, double *H)
{
    const template_model *m = self;
    const double x = q[0], y = q[1];
    H[0] = m->stiffness_x + 2.0 * m->lambda * y;
    H[1] = 2.0 * m->lambda * x;
    H[2] = H[1];
    H[3] = m->stiffness_y - 2.0 * m->lambda * y;
}

/* A static const struct: the host reads it through the pointer that
 * get_extension() returns and never copies or frees it.  struct_size tells
 * the host which fields this plugin knows (ABI rule: readers use a field
 * only when struct_size covers it).  Designated initialisers keep the
 * unnamed fields NULL: kinetic_gradient is left to the host (zero, since
 * the mass matrix is constant). */
static const wb_mechanical_ext template_mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = template_mass,
    .mass_solve = template_mass_solve,
    .potential = template_potential,
    .potential_gradient = template_potential_gradient,
    .potential_hessian = template_potential_hessian,
    .kinetic_gradient = NULL,
};

/* ---- wb.initial_state/1 -----------------------------------------------------
 *
 * The state scripts start from when they pass no q0/p0 (wb.integrate,
 * wb.order) and the first point `check-model` tests at.  It must be
 * consistent: for a constrained model g(q0) = 0 and G(q0) M^-1 p0 = 0;
 * here any state is, and H(q0, p0) = E by construction.
 */
static void template_initial(void *self, double *q, double *p)
{
    const template_model *m = self;
    q[0] = 0.0;
    q[1] = 0.0;
    p[0] = m->initial_momentum[0];
    p[1] = m->initial_momentum[1];
}

static const wb_initial_state_ext template_initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = template_initial,
};

/* ---- extensions ---------------------------------------------------------------
 *
 * Return the extension struct for `id`, or NULL when the model does not
 * have it.  The answer must not depend on an instance (there is no self
 * argument): the host asks while listing plugins, before any create().
 * Compare against the WB_EXT_* macros; their version suffix ("/1") means a
 * later incompatible revision gets a new id and old plugins keep working.
 *
 * Adding a first integral (wb.invariants/1).  Suppose your system has an
 * angular momentum L = x py - y px.  Then:
 *   - in create(): info->n_invariants = 1; info->invariant_names = names;
 *     with  static const char *const names[] = {"L"};
 *   - write  evaluate(self, q, p, out)  setting out[0] = L(q, p);
 *   - optionally  generator(self, 0, q, xi)  filling the symmetry's
 *     generator (xi = (-y, x)) and returning 0, so that methods can use L
 *     as a momentum map;
 *   - return a static wb_invariants_ext from here for WB_EXT_INVARIANTS.
 * Solutions then get a column "L", and check-model verifies dL/dt = 0.
 */
static const void *template_get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &template_mechanical;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &template_initial_state;
    return NULL;
}

/* ---- the class and the entry ------------------------------------------------ */

static const wb_model_class template_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = "template_model",   /* must equal the entry's name              */
    .doc = "anisotropic Henon-Heiles particle: H = |p|^2/2m + m/2 (wx^2 x^2 + wy^2 y^2) "
           "+ lambda (x^2 y - y^3/3)",
    .params = template_params,
    .n_params = N_PARAMS,
    .create = template_create,
    .destroy = template_destroy,
    .get_extension = template_get_extension,
};

/* The one exported symbol.  The host reads it as data only, checks
 * abi_major (must equal its own), struct_size and the descriptor, and
 * only then calls anything in this file.  abi_minor records which minor
 * version's headers we were compiled against; the host accepts any minor
 * of its major and uses struct_size to see which fields we know. */
WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = "template_model",
    .version = "1.0",           /* your plugin's own version, free text     */
    .description = "template: anisotropic Henon-Heiles particle in the plane",
    .descriptor = &template_class,
};
