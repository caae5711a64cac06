/* A body on each group of workbench/groups/, for check-model (every group
 * function against differences on the group) and for integration:
 *
 *   H(g, mu) = 1/2 mu^T W mu + V(g),   W = diag(1, 1/2, 1/3, ...),
 *   V = sum over factors:  SO(3)  -e3 . R e3       (a heavy top's tilt)
 *                          SE(2)  |t|^2/2 + 1 - R11
 *                          SE(3)  |t|^2/2 - e3 . R e3
 *                          R^n    |x|^2/2
 *   f1 = W mu,  f2 = -(D1 V) g^-1 factor by factor:
 *                          SO(3)  R e3 x e3
 *                          SE(2)  (-R21, -t)
 *                          SE(3)  (R e3 x e3, -t)
 *                          R^n    -x
 * On an opposite factor (wb_group_add_opposite: the left-trivialised
 * form) f2 = -g^-1 D1 V instead:
 *                          SO(3)  e3 x R^T e3
 *                          SE(2)  (R12, -R^T t)
 *                          SE(3)  (e3 x R^T e3, -R^T t)
 * -DGROUP_<name> picks the group (SO3, SE2, SE3, R3, PRODUCT = SO(3) x R^2,
 * MIXED = SE(2) x R^1 x SO(3), OPPOSITE = SE(2)^op x (R^1)^op x SO(3)^op
 * x SE(3)^op x SO(3)); NAME is the model's name. */
#include <workbench/workbench.h>
#include <workbench/groups/group.h>
#include <workbench/groups/lie_group_ext.h>

#include <stdlib.h>
#include <string.h>

typedef struct body {
    wb_group group;
} body;

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    (void)values;
    body *b = calloc(1, sizeof *b);
    if (!b) {
        host->error(host, NAME ": out of memory");
        return WB_ERR_NOMEM;
    }
    wb_group_init(&b->group);
#if defined(GROUP_SO3)
    wb_group_add(&b->group, WB_GROUP_SO3, 0);
#elif defined(GROUP_SE2)
    wb_group_add(&b->group, WB_GROUP_SE2, 0);
#elif defined(GROUP_SE3)
    wb_group_add(&b->group, WB_GROUP_SE3, 0);
#elif defined(GROUP_R3)
    wb_group_add(&b->group, WB_GROUP_RN, 3);
#elif defined(GROUP_PRODUCT)
    wb_group_add(&b->group, WB_GROUP_SO3, 0);
    wb_group_add(&b->group, WB_GROUP_RN, 2);
#elif defined(GROUP_OPPOSITE)
    wb_group_add_opposite(&b->group, WB_GROUP_SE2, 0);
    wb_group_add_opposite(&b->group, WB_GROUP_RN, 1);
    wb_group_add_opposite(&b->group, WB_GROUP_SO3, 0);
    wb_group_add_opposite(&b->group, WB_GROUP_SE3, 0);
    wb_group_add(&b->group, WB_GROUP_SO3, 0);
#else
    wb_group_add(&b->group, WB_GROUP_SE2, 0);
    wb_group_add(&b->group, WB_GROUP_RN, 1);
    wb_group_add(&b->group, WB_GROUP_SO3, 0);
#endif
    *self = b;
    info->nq = b->group.nq;
    info->nv = b->group.nv;
    return WB_OK;
}

static void destroy(void *self) { free(self); }

static const wb_group *group_of(void *self) { return &((body *)self)->group; }

WB_LIE_GROUP_EXTENSION(lie_group, group_of);

static double weight(int i) { return 1.0 / (1.0 + i); }

/* V and f2 of one factor at x (its element), f2 written at force; an
 * opposite factor's f2 is left-trivialised. */
static double factor_potential(const wb_group_factor *f, int opposite, const double *x,
                               double *force)
{
    static const double e3[3] = {0, 0, 1};
    double Re3[3], Rt_e3[3];
    switch (f->kind) {
    case WB_GROUP_SO3:
    case WB_GROUP_SE3:
        wb_so3_rotate(x, e3, Re3);
        wb_so3_rotate_back(x, e3, Rt_e3);
        if (opposite)
            wb_so3_cross(e3, Rt_e3, force);
        else
            wb_so3_cross(Re3, e3, force);
        if (f->kind == WB_GROUP_SO3)
            return -Re3[2];
        if (opposite)
            wb_so3_rotate_back(x, x + 9, force + 3);
        else
            memcpy(force + 3, x + 9, 3 * sizeof(double));
        for (int i = 0; i < 3; i++)
            force[3 + i] = -force[3 + i];
        return -Re3[2] + 0.5 * wb_so3_dot(x + 9, x + 9);
    case WB_GROUP_SE2:
        if (opposite)
            force[0] = x[1], force[1] = -(x[0] * x[4] + x[2] * x[5]),
            force[2] = -(x[1] * x[4] + x[3] * x[5]);
        else
            force[0] = -x[2], force[1] = -x[4], force[2] = -x[5];
        return 0.5 * (x[4] * x[4] + x[5] * x[5]) + 1.0 - x[0];
    default: {
        double V = 0.0;
        for (int i = 0; i < f->n; i++)
            force[i] = -x[i], V += 0.5 * x[i] * x[i];
        return V;
    }
    }
}

static double potential_and_force(const wb_group *g, const double *q, double *f2)
{
    double V = 0.0;
    for (int k = 0; k < g->n_factors; k++) {
        const wb_group_factor *f = &g->factors[k];
        V += factor_potential(f, wb_group_factor_is_opposite(g, k), q + f->q_offset,
                              f2 + f->v_offset);
    }
    return V;
}

static double hamiltonian(void *self, const double *q, const double *mu)
{
    const wb_group *g = group_of(self);
    double f2[64], T = 0.0;
    for (int i = 0; i < g->nv; i++)
        T += 0.5 * weight(i) * mu[i] * mu[i];
    return T + potential_and_force(g, q, f2);
}

static void vector_field(void *self, const double *q, const double *mu, double *f1,
                         double *f2)
{
    const wb_group *g = group_of(self);
    for (int i = 0; i < g->nv; i++)
        f1[i] = weight(i) * mu[i];
    potential_and_force(g, q, f2);
}

/* a generic state: exp of a fixed algebra element, and a momentum */
static void initial(void *self, double *q, double *mu)
{
    const wb_group *g = group_of(self);
    double xi[64];
    for (int i = 0; i < g->nv; i++) {
        xi[i] = 0.3 + 0.1 * i;
        mu[i] = 0.5 - 0.15 * i;
    }
    wb_group_exp(g, xi, q);
}

static const wb_lie_hamiltonian_ext lie_hamiltonian = {
    .struct_size = sizeof(wb_lie_hamiltonian_ext),
    .hamiltonian = hamiltonian,
    .vector_field = vector_field,
};

static const wb_initial_state_ext initial_state = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};

static const void *get_extension(const char *id)
{
    if (strcmp(id, WB_EXT_LIE_GROUP) == 0)
        return &lie_group;
    if (strcmp(id, WB_EXT_LIE_HAMILTONIAN) == 0)
        return &lie_hamiltonian;
    if (strcmp(id, WB_EXT_INITIAL_STATE) == 0)
        return &initial_state;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = NAME,
    .doc = "test: a body with a potential on one of workbench/groups/",
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
    .param_spec_size = sizeof(wb_param_spec),
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = NAME,
    .version = "test",
    .description = "test body on a group",
    .descriptor = &model_class,
};
