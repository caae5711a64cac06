/* What every in-tree model plugin ends with: the table of extensions it
 * provides, the model class and the exported entry.  Header-only, since
 * plugins link to nothing; templates/model_template.c writes the same out
 * by hand for readers outside this tree.
 *
 *   static const wb_extension_entry extensions[] = {
 *       {WB_EXT_MECHANICAL, &mechanical},
 *       {WB_EXT_INITIAL_STATE, &initial_state},
 *   };
 *   WB_MODEL_PLUGIN("name", "one-line doc", "one-line description", params,
 *                   create, destroy, extensions);
 */
#ifndef WB_MODEL_PLUGIN_H
#define WB_MODEL_PLUGIN_H

#include <workbench/workbench.h>

#include "wb_array.h"

#include <string.h>

typedef struct wb_extension_entry {
    const char *id;
    const void *extension;
} wb_extension_entry;

static inline const void *wb_find_extension(const wb_extension_entry *table, size_t count,
                                            const char *id)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(table[i].id, id) == 0)
            return table[i].extension;
    return NULL;
}

/* PARAMS is a wb_param_spec array, or NULL for a model without parameters. */
#define WB_MODEL_PLUGIN(NAME, DOC, DESCRIPTION, PARAMS, CREATE, DESTROY, EXTENSIONS)          \
    static const void *model_extension(const char *id)                                        \
    {                                                                                         \
        return wb_find_extension(EXTENSIONS, WB_ARRAY_COUNT(EXTENSIONS), id);                 \
    }                                                                                         \
    static const wb_model_class model_class = {                                               \
        .struct_size = sizeof(wb_model_class),                                                \
        .name = NAME,                                                                         \
        .doc = DOC,                                                                           \
        .params = PARAMS,                                                                     \
        .n_params = WB_PARAM_COUNT(PARAMS),                                                   \
        .create = CREATE,                                                                     \
        .destroy = DESTROY,                                                                   \
        .get_extension = model_extension,                                                     \
        .param_spec_size = sizeof(wb_param_spec),                                             \
    };                                                                                        \
    WB_PLUGIN_ENTRY = {                                                                       \
        .abi_major = WB_ABI_MAJOR,                                                            \
        .abi_minor = WB_ABI_MINOR,                                                            \
        .struct_size = sizeof(wb_plugin_entry),                                               \
        .kind = WB_KIND_MODEL,                                                                \
        .name = NAME,                                                                         \
        .version = "1.0",                                                                     \
        .description = DESCRIPTION,                                                           \
        .descriptor = &model_class,                                                           \
    }

/* The length of the parameter array; 0 for NULL (whose sizeof would be a
 * pointer's). */
#define WB_PARAM_COUNT(PARAMS) \
    _Generic((PARAMS), void *: 0u, default: (uint32_t)(sizeof(PARAMS) / sizeof(wb_param_spec)))

#endif
