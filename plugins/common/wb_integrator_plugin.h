/* What every in-tree integrator plugin ends with: the family of its
 * methods and the exported entry.  Header-only, since plugins link to
 * nothing; templates/integrator_template.c writes the same out by hand for
 * readers outside this tree.
 *
 *   static const wb_method *const methods[] = {&method_a, &method_b};
 *   WB_INTEGRATOR_PLUGIN("name", "one-line doc", "one-line description",
 *                        methods);
 */
#ifndef WB_INTEGRATOR_PLUGIN_H
#define WB_INTEGRATOR_PLUGIN_H

#include <workbench/workbench.h>

#include "wb_array.h"

/* NAME names both the family and the plugin. */
#define WB_INTEGRATOR_PLUGIN(NAME, DOC, DESCRIPTION, METHODS)                                 \
    static const wb_family integrator_family = {                                              \
        .struct_size = sizeof(wb_family),                                                     \
        .name = NAME,                                                                         \
        .doc = DOC,                                                                           \
        .methods = METHODS,                                                                   \
        .n_methods = WB_ARRAY_COUNT(METHODS),                                                 \
    };                                                                                        \
    WB_PLUGIN_ENTRY = {                                                                       \
        .abi_major = WB_ABI_MAJOR,                                                            \
        .abi_minor = WB_ABI_MINOR,                                                            \
        .struct_size = sizeof(wb_plugin_entry),                                               \
        .kind = WB_KIND_INTEGRATOR,                                                           \
        .name = NAME,                                                                         \
        .version = "1.0",                                                                     \
        .description = DESCRIPTION,                                                           \
        .descriptor = &integrator_family,                                                     \
    }

#endif
