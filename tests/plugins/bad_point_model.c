/* The planar pendulum (m = l = 1, gravity 9.81) with one wrong piece of
 * wb.holonomic_point/1 per build (its separate callbacks are always right):
 *
 *   default              bad_point_model: the combined evaluation reports
 *                        dg/dx one percent too large (a multiple of the
 *                        right G would go unseen: RATTLE uses G only
 *                        through lambda G and quotients of G's products).
 *                        `workbench check-model` must fail on the
 *                        holonomic_point G row and on no other, and
 *                        RATTLE's results with and without the combined
 *                        call must differ.
 *   BAD_PROJECTION       bad_projection_model: evaluate() is right, its
 *                        project() (ABI 1.7) iterates on a shifted
 *                        constraint, |q|^2 - 1 - 1e-6.  check-model must
 *                        fail on the project row and on no other, and
 *                        RATTLE's results with and without model_projection
 *                        must differ.
 *   PROJECTION_OTHER_NQ  a project() compiled for nq = 3 on nq = 2: the host
 *                        refuses the model when an instance is made.
 *   PROJECTION_TWO_ROWS  a second constraint, x = 0 (m = 2: the pendulum at
 *                        rest at its bottom), with a project(): not bound
 *                        (it is for one constraint), the model runs as one
 *                        without it.
 * So a test sees that each check compares what it says, and that RATTLE
 * takes the combined call and the projection when a model offers them.
 *
 *   q in R^2, M = I, V = 9.81 y, g(q) = |q|^2 - 1. */
#include <workbench/workbench.h>
#include <workbench/holonomic_projection.h>

#include <math.h>
#include <string.h>

#if defined(BAD_PROJECTION) || defined(PROJECTION_OTHER_NQ) || defined(PROJECTION_TWO_ROWS)
#define HAS_PROJECTION 1
#else
#define HAS_PROJECTION 0
#endif
#ifdef BAD_PROJECTION
#define MODEL_NAME "bad_projection_model"
#elif defined(PROJECTION_OTHER_NQ)
#define MODEL_NAME "projection_other_nq"
#elif defined(PROJECTION_TWO_ROWS)
#define MODEL_NAME "projection_two_rows"
#else
#define MODEL_NAME "bad_point_model"
#endif
#ifdef PROJECTION_TWO_ROWS
#define ROWS 2
#else
#define ROWS 1
#endif
#ifdef PROJECTION_OTHER_NQ
#define PROJECT_NQ 3
#else
#define PROJECT_NQ 2
#endif

static const double gravity = 9.81;

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)host, (void)values;
    *self = NULL;
    info->nq = info->nv = 2;
    info->n_holonomic = ROWS;
    info->mass_constant = 1;
    return WB_OK;
}

static void destroy(void *self) { (void)self; }

static void mass(void *self, const double *q, double *M)
{
    (void)self, (void)q;
    M[0] = M[3] = 1.0;
    M[1] = M[2] = 0.0;
}

static double potential(void *self, const double *q)
{
    (void)self;
    return gravity * q[1];
}

static void potential_gradient(void *self, const double *q, double *grad)
{
    (void)self, (void)q;
    grad[0] = 0.0, grad[1] = gravity;
}

static void constraints(void *self, const double *q, double *g)
{
    (void)self;
    g[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
    if (ROWS == 2)
        g[ROWS - 1] = q[0];
}

static void jacobian(void *self, const double *q, double *G)
{
    (void)self;
    G[0] = 2.0 * q[0], G[1] = 2.0 * q[1];
    if (ROWS == 2)
        G[2 * ROWS - 2] = 1.0, G[2 * ROWS - 1] = 0.0;
}

static void point_values(void *self, const double *q, double *grad, double *g, double *G)
{
    potential_gradient(self, q, grad);
    constraints(self, q, g);
    jacobian(self, q, G);
#if !HAS_PROJECTION
    G[0] = 1.01 * 2.0 * q[0]; /* the deliberate mistake */
#endif
}

#if HAS_PROJECTION
/* What project() iterates on: one row of PROJECT_NQ entries (the
 * template's contract), shifted by 1e-6 in bad_projection_model (the
 * deliberate mistake). */
static void projected_values(void *self, const double *q, double *grad, double *g, double *G)
{
    potential_gradient(self, q, grad);
    g[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
    G[0] = 2.0 * q[0], G[1] = 2.0 * q[1];
    for (int i = 2; i < PROJECT_NQ; i++)
        grad[i] = G[i] = 0.0;
#ifdef BAD_PROJECTION
    g[0] -= 1e-6;
#endif
}

WB_HOLONOMIC_PROJECTION(project, projected_values, PROJECT_NQ)
#endif

static void initial(void *self, double *q, double *p)
{
    (void)self;
    q[0] = 0.0, q[1] = -1.0;
    p[0] = ROWS == 2 ? 0.0 : sqrt(gravity), p[1] = 0.0;
}

static const wb_mechanical_ext mechanical = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .potential = potential,
    .potential_gradient = potential_gradient,
};

static const wb_holonomic_ext holonomic = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = WB_HOLONOMIC_QUADRATIC,
    .constraints = constraints,
    .jacobian = jacobian,
};

static const wb_holonomic_point_ext holonomic_point = {
    .struct_size = sizeof(wb_holonomic_point_ext),
    .evaluate = point_values,
#if HAS_PROJECTION
    .project = project,
    .project_nq = project_nq,
#endif
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_MECHANICAL) == 0)
        return &mechanical;
    if (strcmp(id, WB_EXT_HOLONOMIC) == 0)
        return &holonomic;
    if (strcmp(id, WB_EXT_HOLONOMIC_POINT) == 0)
        return &holonomic_point;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .param_spec_size = sizeof(wb_param_spec),
    .name = MODEL_NAME,
    .doc = "pendulum with one wrong piece of wb.holonomic_point/1 (test)",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
};

WB_PLUGIN_ENTRY = {
    WB_ABI_MAJOR, WB_ABI_MINOR, sizeof(wb_plugin_entry), WB_KIND_MODEL, MODEL_NAME,
    "1", "pendulum with a wrong combined evaluation or projection (test)", &model_class,
};
