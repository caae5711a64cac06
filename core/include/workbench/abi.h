/*
 * workbench/abi.h -- the versioned entry point every plugin exports.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * WB_ENTRY_SYMBOL, a `const wb_plugin_entry`.  The host reads the entry
 * (data only), checks the ABI version and every size field, validates the
 * descriptor it points to, and only then calls any function of the plugin.
 *
 * ABI policy
 *   - abi_major changes only when an existing field changes meaning, type
 *     or position.  The host refuses a plugin of another major version.
 *   - abi_minor changes when fields are appended to a struct or a new
 *     extension id is defined.  Fields are only ever appended, so a struct
 *     written against minor N is a prefix of the same struct at minor N+1.
 *   - Every struct that crosses the boundary starts with (or carries) a
 *     struct_size.  A reader uses a field only when WB_HAS_FIELD() says the
 *     writer's struct is large enough to contain it.
 *   - Plugins never link against the host: everything the host offers
 *     comes through the wb_host service table (workbench/host.h).
 *   - Arrays of structs that cross the boundary (option specs and values,
 *     parameter specs, aux specs) have no struct_size per element: the
 *     struct that points to an array carries the element size its writer
 *     built with (wb_method.option_spec_size, ...), readers step through
 *     the array with WB_ELEMENT and read a member only when
 *     WB_STRIDE_HAS() says the element contains it.  So these element
 *     structs can grow within a major version like every other struct.
 *   - ABI 1.0 is the layout of the first release.  Members appended in 1.1
 *     are marked "1.1" in these headers: a reader uses them only after
 *     WB_HAS_FIELD (or WB_STRIDE_HAS) has said the writer's struct holds
 *     them, and treats them as absent (NULL, 0) otherwise.  A plugin built
 *     against the 1.0 headers loads and runs unchanged under a 1.1 host.
 *   - 1.1 added: wb.lie_group/1 members (dcay, dcayinv_derivative,
 *     dexp_star, group_residual), the extensions wb.lie_lagrangian/1 and
 *     wb.lie_nonholonomic/1, element sizes for the arrays, the model view's
 *     extension passthrough, group functions with host fallbacks, the
 *     consistent nonholonomic multiplier and the state velocity, method
 *     start() with the step size and carried unknowns, aux unknowns of nq
 *     values, at a fraction of the step, or held as state only, and
 *     alternatives in wb_method.requires ("wb.mechanical/1|...").
 *   - 1.2 added: aux groups of nq- or nv-blocks whose count the options
 *     set (WB_AUX_CONFIGURATION_BLOCKS, WB_AUX_VELOCITY_BLOCKS,
 *     wb_method.aux_blocks), and the counters of fixed-point and Newton
 *     steps in wb_step_stats.
 *   - 1.3 added: the extension wb.sparsity/1 (nonzero patterns of the
 *     mass, the constraint Jacobian and the Hessians, with their values),
 *     wb_sparse_pattern, and the host's sparse LU and sparse Newton
 *     (sparse_lu_*, newton_create_sparse: reverse Cuthill-McKee ordering,
 *     LAPACK banded LU); wb_method.complete_options (options that follow
 *     from others, completed before validate()).
 *   - 1.4 added: the host's newton_set_rank_one (a Newton Jacobian that is
 *     a sparse matrix plus an outer product u v^T, solved by
 *     Sherman-Morrison on the sparse LU).
 *     And the extension wb.holonomic_point/1 (grad V, g and G at a
 *     point in one call) and the model view's holonomic_point with
 *     WB_CAP_HOLONOMIC_POINT, which RATTLE/SHAKE use when a model has it.
 *   - 1.5 added: wb_newton_options.keep_jacobian and refresh_rate (a
 *     simplified Newton that keeps its Jacobian's factors from solve to
 *     solve and renews them when they stop contracting),
 *     wb_newton_options.unknown_scale (Newton converged only when the
 *     correction the last residual asks for is within tol of every
 *     unknown's size) and wb_step_stats.jacobian_refreshes.
 *   - 1.6 added: wb_step_stats.extrapolated_starts and corrected_starts
 *     (which start began each step's iteration), and wb_method.check_model
 *     (a model the options cannot integrate, refused before any instance,
 *     so that m:applies_to(model) is exact).
 *   - 1.7 added: wb.holonomic_point/1's project() and project_nq (the
 *     one-constraint Newton iteration of a position step run by the model
 *     on its own evaluate(), written by WB_HOLONOMIC_PROJECTION in
 *     workbench/holonomic_projection.h), wb_projection_problem,
 *     wb_projection_report, and the model view's holonomic_projection with
 *     WB_CAP_HOLONOMIC_PROJECTION, which RATTLE/SHAKE use when a model has
 *     it.
 */
#ifndef WORKBENCH_ABI_H
#define WORKBENCH_ABI_H

#include <stddef.h>
#include <stdint.h>

#define WB_ABI_MAJOR 1
#define WB_ABI_MINOR 7

/* Name of the single symbol a plugin exports. */
#define WB_ENTRY_SYMBOL "workbench_plugin_entry"

#if defined(__GNUC__)
#define WB_EXPORT __attribute__((visibility("default")))
#else
#define WB_EXPORT
#endif

#ifdef __cplusplus
#define WB_EXTERN_C extern "C"
#else
#define WB_EXTERN_C
#endif

/* Use in exactly one translation unit of a plugin:
 *     WB_PLUGIN_ENTRY = { WB_ABI_MAJOR, WB_ABI_MINOR, sizeof(wb_plugin_entry), ... };
 * Build plugins with -fvisibility=hidden so that this is the only export. */
#define WB_PLUGIN_ENTRY WB_EXTERN_C WB_EXPORT const wb_plugin_entry workbench_plugin_entry

/* True when the struct *p, whose writer declared p->struct_size bytes,
 * contains the member `field` of type `type`. */
#define WB_HAS_FIELD(p, type, field) \
    ((p)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Element i of an array of `type` whose writer used element size
 * `stride` (the array's *_size field), and whether such an element holds
 * the member `field`. */
#define WB_ELEMENT(type, base, stride, i) \
    ((const type *)(const void *)((const char *)(base) + (size_t)(i) * (size_t)(stride)))
#define WB_STRIDE_HAS(stride, type, field) \
    ((size_t)(stride) >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Status codes returned across the ABI.  0 is success; every other value
 * is an error whose message the callee has reported through
 * wb_host.error().  Values are stable: new codes are appended. */
typedef enum wb_status {
    WB_OK = 0,
    WB_ERR_NEWTON = 1,    /* nonlinear iteration did not converge            */
    WB_ERR_NONFINITE = 2, /* a NaN or Inf appeared                           */
    WB_ERR_SINGULAR = 3,  /* a linear system was singular                    */
    WB_ERR_INVALID = 4,   /* bad input: options, sizes, model not supported  */
    WB_ERR_NOMEM = 5,     /* allocation failed                               */
    WB_ERR_MODEL = 6,     /* the model could not evaluate a function         */
    WB_ERR_INTERNAL = 7
} wb_status;

typedef enum wb_plugin_kind {
    WB_KIND_MODEL = 1,      /* descriptor is a const wb_model_class *   */
    WB_KIND_INTEGRATOR = 2  /* descriptor is a const wb_family *        */
} wb_plugin_kind;

typedef struct wb_plugin_entry {
    uint32_t abi_major;      /* WB_ABI_MAJOR the plugin was built against */
    uint32_t abi_minor;      /* WB_ABI_MINOR the plugin was built against */
    uint32_t struct_size;    /* sizeof(wb_plugin_entry) at build time      */
    uint32_t kind;           /* wb_plugin_kind                             */
    const char *name;        /* unique name: [a-z0-9_]+                    */
    const char *version;     /* the plugin's own version, free text        */
    const char *description; /* one line                                   */
    const void *descriptor;  /* see wb_plugin_kind                         */
} wb_plugin_entry;

#endif
