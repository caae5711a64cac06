/* Plugin discovery and validation.
 *
 * Nothing in a plugin is called before its static data has been checked:
 * the entry's version and sizes, the descriptor's sizes, names and
 * function pointers, every option spec.  Only get_extension (a lookup,
 * no numerics) is called while listing. */
#include "host/plugins.h"
#include "host/descriptor.h"
#include "host/host.h"
#include "host/plugin_file.h"
#include "host/plugin_probe.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static plugin **loaded; /* stable addresses: Lua objects keep plugin pointers */
static int loaded_count, loaded_capacity;
static plugin_rejection *rejected;
static int rejected_count, rejected_capacity;
static char **search_dirs;
static int search_dir_count, search_dir_capacity;
static char executable_dir[PATH_MAX];
static int discovered;

static char *duplicate(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static void *grow(void *array, int *capacity, size_t element)
{
    int cap = *capacity ? 2 * *capacity : 16;
    void *bigger = realloc(array, (size_t)cap * element);
    if (bigger)
        *capacity = cap;
    return bigger;
}

void plugins_add_search_dir(const char *dir)
{
    if (search_dir_count == search_dir_capacity) {
        char **bigger = grow(search_dirs, &search_dir_capacity, sizeof *search_dirs);
        if (!bigger)
            return;
        search_dirs = bigger;
    }
    char *copy = duplicate(dir);
    if (copy)
        search_dirs[search_dir_count++] = copy;
}

void plugins_set_executable(const char *argv0)
{
    char resolved[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", resolved, sizeof resolved - 1);
    if (n > 0) {
        resolved[n] = '\0';
    } else if (!argv0 || !realpath(argv0, resolved)) {
        executable_dir[0] = '\0';
        return;
    }
    char *slash = strrchr(resolved, '/');
    if (slash)
        *slash = '\0';
    snprintf(executable_dir, sizeof executable_dir, "%s", resolved);
}

int plugins_search_dir_count(void) { return search_dir_count; }
const char *plugins_search_dir_at(int i) { return search_dirs[i]; }
int plugins_count(void) { return loaded_count; }
const plugin *plugins_at(int i) { return loaded[i]; }
int plugins_rejection_count(void) { return rejected_count; }
const plugin_rejection *plugins_rejection_at(int i) { return &rejected[i]; }

static void record_rejection(const char *path, const char *reason)
{
    for (int i = 0; i < rejected_count; i++)
        if (strcmp(rejected[i].path, path) == 0)
            return;
    if (rejected_count == rejected_capacity) {
        plugin_rejection *bigger = grow(rejected, &rejected_capacity, sizeof *rejected);
        if (!bigger)
            return;
        rejected = bigger;
    }
    rejected[rejected_count].path = duplicate(path);
    rejected[rejected_count].reason = duplicate(reason);
    rejected_count++;
}

/* ---- validation of static data ------------------------------------------ */

static int valid_identifier(const char *name)
{
    if (!name || !*name)
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

/* Parameter names are Lua keys and physics notation (I1, Omega): letters of
 * either case, digits and '_', not starting with a digit. */
static int valid_parameter_name(const char *name)
{
    if (!name || !*name || (*name >= '0' && *name <= '9'))
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

static int choice_contains(const char *choices, const char *word)
{
    size_t len = strlen(word);
    const char *p = choices;
    while (p && *p) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && strncmp(p, word, n) == 0)
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

static int validate_option(const char *where, const wb_option_spec *o)
{
    if (!valid_identifier(o->name)) {
        host_error("%s: option name '%s' is not an identifier [a-z0-9_]+", where,
                   o->name ? o->name : "(null)");
        return -1;
    }
    switch (o->type) {
    case WB_OPT_NUMBER:
    case WB_OPT_INTEGER:
        if (!(o->min <= o->default_number && o->default_number <= o->max)) {
            host_error("%s: option '%s' default %g outside its range [%g, %g]", where,
                       o->name, o->default_number, o->min, o->max);
            return -1;
        }
        return 0;
    case WB_OPT_BOOLEAN:
        return 0;
    case WB_OPT_CHOICE:
        if (!o->choices || !o->default_string ||
            !choice_contains(o->choices, o->default_string)) {
            host_error("%s: choice option '%s' needs choices and a default among them",
                       where, o->name);
            return -1;
        }
        return 0;
    case WB_OPT_TABLEAU:
    case WB_OPT_STRING:
        if (!o->default_string) {
            host_error("%s: option '%s' needs a default string", where, o->name);
            return -1;
        }
        return 0;
    }
    host_error("%s: option '%s' has unknown type %d", where, o->name, o->type);
    return -1;
}

/* A 1.1 method's element sizes: each at least its 1.0 size when its array
 * is not empty (0 is what a method that forgot to set it has). */
static int validate_element_sizes(const char *where, const wb_method *m)
{
    if (!WB_HAS_FIELD(m, wb_method, aux_spec_size))
        return 0;
    const struct {
        const char *field, *type;
        uint32_t value, minimum;
        int needed;
    } sizes[] = {
        {"option_spec_size", "wb_option_spec", m->option_spec_size,
         descriptor_option_spec_size_1_0, m->n_options > 0},
        {"option_value_size", "wb_option_value", m->option_value_size,
         descriptor_option_value_size_1_0, m->n_options > 0},
        {"aux_spec_size", "wb_aux_spec", m->aux_spec_size, descriptor_aux_spec_size_1_0,
         m->n_aux > 0},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].needed && sizes[i].value < sizes[i].minimum) {
            host_error("%s: %s is %u, smaller than the ABI 1.0 %s (%u bytes): set it to "
                       "sizeof(%s) (WB_METHOD_ELEMENT_SIZES does)", where, sizes[i].field,
                       sizes[i].value, sizes[i].type, sizes[i].minimum, sizes[i].type);
            return -1;
        }
    return 0;
}

static int validate_aux(const char *where, const wb_method *m)
{
    if (m->n_aux > 0 && (!m->aux || !m->aux_values)) {
        host_error("%s: declares %u aux unknowns but no aux specs or aux_values()",
                   where, m->n_aux);
        return -1;
    }
    for (uint32_t i = 0; i < m->n_aux; i++) {
        const wb_aux_spec *a = descriptor_aux(m, i);
        if (!valid_identifier(a->name) || a->size_kind < WB_AUX_HOLONOMIC ||
            a->size_kind > WB_AUX_VELOCITY_BLOCKS ||
            (a->size_kind == WB_AUX_FIXED && a->size < 1) ||
            a->time < WB_AUX_AT_NODE || a->time > WB_AUX_AT_OFFSET) {
            host_error("%s: aux unknown %u ('%s') is malformed", where, i + 1,
                       a->name ? a->name : "(null)");
            return -1;
        }
        if (a->time == WB_AUX_AT_OFFSET && !descriptor_aux_time_offset(m)) {
            host_error("%s: aux unknown '%s' belongs to a fraction of the step "
                       "(WB_AUX_AT_OFFSET) but the method has no aux_time_offset()", where,
                       a->name);
            return -1;
        }
        if ((a->size_kind == WB_AUX_CONFIGURATION_BLOCKS ||
             a->size_kind == WB_AUX_VELOCITY_BLOCKS) && !descriptor_aux_blocks(m)) {
            host_error("%s: aux unknown '%s' is a number of %s-blocks (%s) but the method has "
                       "no aux_blocks()", where, a->name,
                       a->size_kind == WB_AUX_VELOCITY_BLOCKS ? "nv" : "nq",
                       a->size_kind == WB_AUX_VELOCITY_BLOCKS ? "WB_AUX_VELOCITY_BLOCKS"
                                                              : "WB_AUX_CONFIGURATION_BLOCKS");
            return -1;
        }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(a->name, descriptor_aux(m, j)->name) == 0) {
                host_error("%s: aux unknown '%s' declared twice", where, a->name);
                return -1;
            }
        /* an aux of one value keeps its bare name; others are numbered */
        const char *problem = descriptor_column_name_problem(
            a->name, !(a->size_kind == WB_AUX_FIXED && a->size == 1));
        if (problem) {
            host_error("%s: aux unknown '%s' would be a column: %s", where, a->name, problem);
            return -1;
        }
    }
    return 0;
}

static int validate_options(const char *where, const wb_method *m)
{
    if (m->n_options > 0 && !m->options) {
        host_error("%s: declares %u options but no option specs", where, m->n_options);
        return -1;
    }
    for (uint32_t i = 0; i < m->n_options; i++) {
        const wb_option_spec *o = descriptor_option(m, i);
        if (validate_option(where, o) != 0)
            return -1;
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(o->name, descriptor_option(m, j)->name) == 0) {
                host_error("%s: option '%s' declared twice", where, o->name);
                return -1;
            }
    }
    return 0;
}

/* Each entry an id, or ids separated by '|' (any one of them will do). */
static int validate_requires(const char *where, const wb_method *m)
{
    for (const char *const *r = m->requires; r && *r; r++) {
        size_t n = strlen(*r);
        if (n == 0 || n > 512 || (*r)[0] == '|' || (*r)[n - 1] == '|' || strstr(*r, "||")) {
            host_error("%s: required extension '%.64s' is not an id or ids separated by '|'",
                       where, *r);
            return -1;
        }
    }
    return 0;
}

static int validate_method(const char *file, const wb_family *family,
                           const wb_method *m, int index)
{
    char where[512];
    snprintf(where, sizeof where, "plugin file '%s': family '%s' method %d", file,
             family->name, index + 1);
    if (!m) {
        host_error("%s is NULL", where);
        return -1;
    }
    if (!WB_HAS_FIELD(m, wb_method, validate)) {
        host_error("%s: wb_method struct_size %u is smaller than the ABI %d.0 layout (%zu)",
                   where, m->struct_size, WB_ABI_MAJOR,
                   offsetof(wb_method, validate) + sizeof m->validate);
        return -1;
    }
    if (!valid_identifier(m->name)) {
        host_error("%s: method name '%s' is not an identifier [a-z0-9_]+", where,
                   m->name ? m->name : "(null)");
        return -1;
    }
    snprintf(where, sizeof where, "plugin file '%s': method '%s.%s'", file,
             family->name, m->name);
    if (!m->create || !m->destroy || !m->step || !(m->reset || descriptor_start(m))) {
        host_error("%s: create, destroy, step and reset (or, from ABI 1.1, start) must all "
                   "be set", where);
        return -1;
    }
    if (validate_element_sizes(where, m) != 0 || validate_aux(where, m) != 0 ||
        validate_options(where, m) != 0 || validate_requires(where, m) != 0)
        return -1;
    return 0;
}

static int validate_family(const char *file, const wb_plugin_entry *e)
{
    const wb_family *f = e->descriptor;
    if (!WB_HAS_FIELD(f, wb_family, n_methods)) {
        host_error("plugin file '%s': wb_family struct_size %u is too small", file,
                   f->struct_size);
        return -1;
    }
    if (!f->name || strcmp(f->name, e->name) != 0) {
        host_error("plugin file '%s': family name '%s' differs from the entry name '%s'",
                   file, f->name ? f->name : "(null)", e->name);
        return -1;
    }
    if (!f->methods || f->n_methods == 0) {
        host_error("plugin file '%s': family '%s' lists no methods", file, f->name);
        return -1;
    }
    for (uint32_t i = 0; i < f->n_methods; i++) {
        if (validate_method(file, f, f->methods[i], (int)i) != 0)
            return -1;
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(f->methods[i]->name, f->methods[j]->name) == 0) {
                host_error("plugin file '%s': family '%s' lists method '%s' twice", file,
                           f->name, f->methods[i]->name);
                return -1;
            }
    }
    return 0;
}

static int validate_model(const char *file, const wb_plugin_entry *e)
{
    const wb_model_class *c = e->descriptor;
    if (!WB_HAS_FIELD(c, wb_model_class, get_extension)) {
        host_error("plugin file '%s': wb_model_class struct_size %u is too small", file,
                   c->struct_size);
        return -1;
    }
    if (!c->name || strcmp(c->name, e->name) != 0) {
        host_error("plugin file '%s': model name '%s' differs from the entry name '%s'",
                   file, c->name ? c->name : "(null)", e->name);
        return -1;
    }
    if (!c->create || !c->destroy || !c->get_extension) {
        host_error("plugin file '%s': model '%s' must set create, destroy and get_extension",
                   file, c->name);
        return -1;
    }
    if (c->n_params > 0 && !c->params) {
        host_error("plugin file '%s': model '%s' declares %u parameters but no specs", file,
                   c->name, c->n_params);
        return -1;
    }
    if (c->n_params > 0 && descriptor_param_spec_size(c) < descriptor_param_spec_size_1_0) {
        host_error("plugin file '%s': model '%s': param_spec_size is %u, smaller than the ABI "
                   "1.0 wb_param_spec (%u bytes): set it to sizeof(wb_param_spec)", file,
                   c->name, descriptor_param_spec_size(c), descriptor_param_spec_size_1_0);
        return -1;
    }
    for (uint32_t i = 0; i < c->n_params; i++) {
        const wb_param_spec *p = descriptor_param(c, i);
        if (!valid_parameter_name(p->name) ||
            !(p->min <= p->default_value && p->default_value <= p->max)) {
            host_error("plugin file '%s': model '%s' parameter %u ('%s') needs a name of "
                       "letters, digits and '_' and a default inside [min, max]", file,
                       c->name, i + 1, p->name ? p->name : "(null)");
            return -1;
        }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(p->name, descriptor_param(c, j)->name) == 0) {
                host_error("plugin file '%s': model '%s' declares parameter '%s' twice",
                           file, c->name, p->name);
                return -1;
            }
    }
    return 0;
}

/* The entry's first members, from memory or from the file's bytes
 * (plugin_file_check) before the file is loaded at all. */
static int validate_entry_header(const char *file, uint32_t abi_major, uint32_t abi_minor,
                                 uint32_t struct_size, uint32_t kind)
{
    if (abi_major != WB_ABI_MAJOR) {
        host_error("plugin file '%s' was built against workbench ABI %u.%u; this host "
                   "speaks ABI %d.%d and needs major version %d", file, abi_major,
                   abi_minor, WB_ABI_MAJOR, WB_ABI_MINOR, WB_ABI_MAJOR);
        return -1;
    }
    if (struct_size < sizeof(wb_plugin_entry)) {
        host_error("plugin file '%s': entry struct_size %u, expected at least %zu", file,
                   struct_size, sizeof(wb_plugin_entry));
        return -1;
    }
    if (kind != WB_KIND_MODEL && kind != WB_KIND_INTEGRATOR) {
        host_error("plugin file '%s': unknown plugin kind %u (expected %d model or %d "
                   "integrator)", file, kind, WB_KIND_MODEL, WB_KIND_INTEGRATOR);
        return -1;
    }
    return 0;
}

static int validate_entry(const char *file, const wb_plugin_entry *e)
{
    if (validate_entry_header(file, e->abi_major, e->abi_minor, e->struct_size, e->kind) != 0)
        return -1;
    if (!valid_identifier(e->name)) {
        host_error("plugin file '%s': plugin name '%s' is not an identifier [a-z0-9_]+",
                   file, e->name ? e->name : "(null)");
        return -1;
    }
    if (!e->descriptor) {
        host_error("plugin file '%s': plugin '%s' has no descriptor", file, e->name);
        return -1;
    }
    if (e->kind == WB_KIND_MODEL)
        return validate_model(file, e);
    if (e->kind == WB_KIND_INTEGRATOR)
        return validate_family(file, e);
    host_error("plugin file '%s': unknown plugin kind %u (expected %d model or %d "
               "integrator)", file, e->kind, WB_KIND_MODEL, WB_KIND_INTEGRATOR);
    return -1;
}

/* ---- loading --------------------------------------------------------------- */

static const plugin *find_by_name(const char *name, int kind)
{
    for (int i = 0; i < loaded_count; i++)
        if ((int)loaded[i]->entry->kind == kind && strcmp(loaded[i]->entry->name, name) == 0)
            return loaded[i];
    return NULL;
}

/* The bytes of each extension struct the host may read: up to the
 * struct_size its writer declared, at most the host's own layout. */
static const struct {
    const char *id;
    size_t size;
} extension_layouts[] = {
    {WB_EXT_MECHANICAL, sizeof(wb_mechanical_ext)},
    {WB_EXT_HOLONOMIC, sizeof(wb_holonomic_ext)},
    {WB_EXT_NONHOLONOMIC, sizeof(wb_nonholonomic_ext)},
    {WB_EXT_INVARIANTS, sizeof(wb_invariants_ext)},
    {WB_EXT_INITIAL_STATE, sizeof(wb_initial_state_ext)},
    {WB_EXT_LIE_GROUP, sizeof(wb_lie_group_ext)},
    {WB_EXT_LIE_HAMILTONIAN, sizeof(wb_lie_hamiltonian_ext)},
    {WB_EXT_LIE_LAGRANGIAN, sizeof(wb_lie_lagrangian_ext)},
    {WB_EXT_LIE_NONHOLONOMIC, sizeof(wb_lie_nonholonomic_ext)},
    {WB_EXT_POTENTIAL_INVARIANTS, sizeof(wb_potential_invariants_ext)},
    {WB_EXT_SPARSITY, sizeof(wb_sparsity_ext)},
    {WB_EXT_HOLONOMIC_POINT, sizeof(wb_holonomic_point_ext)},
};

/* In the probe's child: the model's get_extension() for every id the host
 * asks for, and each struct it returns readable as far as the host reads
 * it.  A wild pointer is refused here, by name, rather than crashing the
 * host when it creates the model; a get_extension() that crashes kills
 * the child, whose verdict names the call (plugin_probe_stage). */
static int probe_extensions(const char *file, const wb_model_class *c)
{
    for (size_t i = 0; i < sizeof extension_layouts / sizeof extension_layouts[0]; i++) {
        const char *id = extension_layouts[i].id;
        plugin_probe_stage("calling get_extension(\"%s\") of model '%s'", id, c->name);
        const void *ext = c->get_extension(id);
        if (!ext)
            continue;
        uint32_t declared;
        if (!plugin_probe_readable(ext, sizeof declared)) {
            host_error("plugin file '%s': model '%s': get_extension(\"%s\") returned %p, "
                       "which is not readable memory (a wild pointer)", file, c->name, id, ext);
            return -1;
        }
        memcpy(&declared, ext, sizeof declared);
        size_t size = declared < extension_layouts[i].size ? declared : extension_layouts[i].size;
        if (!plugin_probe_readable(ext, size)) {
            host_error("plugin file '%s': model '%s': get_extension(\"%s\") returned %p, "
                       "whose %zu bytes are not all readable memory (a wild pointer, or a "
                       "wrong struct_size %u)", file, c->name, id, ext, size, declared);
            return -1;
        }
    }
    plugin_probe_stage(NULL);
    return 0;
}

/* In the probe's child process: what the host itself checks after dlopen. */
static int probe_validate(const char *path, void *handle)
{
    const wb_plugin_entry *entry = dlsym(handle, WB_ENTRY_SYMBOL);
    if (!entry) {
        host_error("plugin file '%s' does not export the symbol '%s' (is it a "
                   "workbench plugin?)", path, WB_ENTRY_SYMBOL);
        return -1;
    }
    if (validate_entry(path, entry) != 0)
        return -1;
    return entry->kind == WB_KIND_MODEL ? probe_extensions(path, entry->descriptor) : 0;
}

/* Nothing of a file is mapped before its bytes have been checked
 * (host/plugin_file.h), nor in this process before a child has loaded it
 * (host/plugin_probe.h). */
static int safe_to_open(const char *path)
{
    plugin_file_info info;
    if (plugin_file_check(path, &info) != 0)
        return -1;
    if (info.entry_read && validate_entry_header(path, info.abi_major, info.abi_minor,
                                                 info.struct_size, info.kind) != 0)
        return -1;
    return plugin_probe(path, &info, probe_validate);
}

const plugin *plugins_load_file(const char *path)
{
    for (int i = 0; i < loaded_count; i++)
        if (strcmp(loaded[i]->path, path) == 0)
            return loaded[i];
    if (safe_to_open(path) != 0)
        return NULL;
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        host_error("plugin file '%s' could not be loaded: %s", path, dlerror());
        return NULL;
    }
    dlerror();
    const wb_plugin_entry *entry = dlsym(handle, WB_ENTRY_SYMBOL);
    if (!entry) {
        host_error("plugin file '%s' does not export the symbol '%s' (is it a "
                   "workbench plugin?)", path, WB_ENTRY_SYMBOL);
        dlclose(handle);
        return NULL;
    }
    if (validate_entry(path, entry) != 0) {
        dlclose(handle);
        return NULL;
    }
    const plugin *existing = find_by_name(entry->name, (int)entry->kind);
    if (existing) {
        host_error("plugin file '%s': a %s named '%s' is already loaded from '%s'", path,
                   entry->kind == WB_KIND_MODEL ? "model" : "family", entry->name,
                   existing->path);
        dlclose(handle);
        return NULL;
    }
    plugin *p = calloc(1, sizeof *p);
    if (p && loaded_count == loaded_capacity) {
        plugin **bigger = grow(loaded, &loaded_capacity, sizeof *loaded);
        if (bigger)
            loaded = bigger;
        else {
            free(p);
            p = NULL;
        }
    }
    if (!p) {
        dlclose(handle);
        host_error("out of memory loading '%s'", path);
        return NULL;
    }
    loaded[loaded_count++] = p;
    p->path = duplicate(path);
    p->handle = handle;
    p->entry = entry;
    if (entry->kind == WB_KIND_MODEL)
        p->model = entry->descriptor;
    else
        p->family = entry->descriptor;
    return p;
}

/* An entry that lives in the host process (a model defined by a script):
 * validated like a file's, kept until plugins_unregister. */
const plugin *plugins_register(const wb_plugin_entry *entry, const char *origin)
{
    plugins_discover(); /* a name is unique over files and registered entries */
    if (validate_entry(origin, entry) != 0)
        return NULL;
    const plugin *existing = find_by_name(entry->name, (int)entry->kind);
    if (existing) {
        host_error("%s: a %s named '%s' already exists (from '%s'): choose another name",
                   origin, entry->kind == WB_KIND_MODEL ? "model" : "family", entry->name,
                   existing->path);
        return NULL;
    }
    plugin *p = calloc(1, sizeof *p);
    if (p && loaded_count == loaded_capacity) {
        plugin **bigger = grow(loaded, &loaded_capacity, sizeof *loaded);
        if (bigger)
            loaded = bigger;
        else {
            free(p);
            p = NULL;
        }
    }
    if (!p || !(p->path = duplicate(origin))) {
        free(p);
        host_error("out of memory registering '%s'", entry->name);
        return NULL;
    }
    loaded[loaded_count++] = p;
    p->entry = entry;
    if (entry->kind == WB_KIND_MODEL)
        p->model = entry->descriptor;
    else
        p->family = entry->descriptor;
    return p;
}

void plugins_unregister(const plugin *p)
{
    for (int i = 0; i < loaded_count; i++)
        if (loaded[i] == p && !p->handle) {
            free(loaded[i]->path);
            free(loaded[i]);
            memmove(loaded + i, loaded + i + 1, (size_t)(loaded_count - i - 1) * sizeof *loaded);
            loaded_count--;
            return;
        }
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

/* The length of NAME in a compiled model's build NAME-KEY.so (KEY 16 hex
 * digits, wb.compile_model), else 0. */
static size_t build_prefix(const char *file)
{
    size_t n = strlen(file);
    if (n < 1 + 1 + 16 + 3 || strcmp(file + n - 3, ".so") != 0 || file[n - 20] != '-')
        return 0;
    for (size_t i = n - 19; i < n - 3; i++)
        if (!((file[i] >= '0' && file[i] <= '9') || (file[i] >= 'a' && file[i] <= 'f')))
            return 0;
    return n - 20;
}

static int same_build_name(const char *a, const char *b)
{
    size_t n = build_prefix(a);
    return n > 0 && n == build_prefix(b) && strncmp(a, b, n) == 0;
}

static long long mtime_ns(const char *dir, const char *file)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (stat(path, &st) != 0)
        return -1;
    return (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* Every edit of a compiled model leaves another NAME-KEY.so in the cache:
 * of the builds of one NAME in a folder only the newest is loaded (the
 * last by name among equals), with a warning naming the others; the
 * others' entries are freed and set to NULL.  `names` is sorted. */
static void keep_newest_builds(const char *dir, char **names, int count)
{
    for (int i = 0; i < count; i++) {
        if (!names[i] || !build_prefix(names[i]))
            continue;
        int newest = i, builds = 1;
        long long newest_time = mtime_ns(dir, names[i]);
        char others[1024] = "";
        size_t used = 0;
        for (int j = i + 1; j < count; j++)
            if (names[j] && same_build_name(names[i], names[j])) {
                long long t = mtime_ns(dir, names[j]);
                builds++;
                if (t >= newest_time)
                    newest = j, newest_time = t;
            }
        if (builds == 1)
            continue;
        for (int j = i; j < count; j++)
            if (j != newest && names[j] && same_build_name(names[i], names[j]) &&
                used < sizeof others - 80)
                used += (size_t)snprintf(others + used, sizeof others - used, "%s'%s'",
                                         used ? ", " : "", names[j]);
        host_warn("plugin folder '%s' holds %d builds of the compiled model '%.*s': loading "
                  "the newest, '%s', not %s (give --plugin-path the .so file to choose one, or "
                  "remove the others)", dir, builds, (int)build_prefix(names[i]), names[i],
                  names[newest], others);
        for (int j = count - 1; j >= i; j--)
            if (j != newest && names[j] && same_build_name(names[newest], names[j])) {
                free(names[j]);
                names[j] = NULL;
            }
    }
}

/* The folder part of a path ("" for none), for comparing two files' folders */
static size_t folder_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

static void load_one(const char *path)
{
    host_clear_error();
    if (plugins_load_file(path))
        return;
    const char *reason = host_last_error();
    const char *from = strstr(reason, "is already loaded from '");
    if (from) {
        from += strlen("is already loaded from '");
        size_t n = folder_length(path);
        if (n == folder_length(from) && strncmp(path, from, n) == 0) {
            /* two files of one folder with one name: the first by name is used */
            host_warn("%s (the first by name; remove one of them)", reason);
            return;
        }
        /* shadowed by an earlier search folder: the first one wins */
        host_services()->log(host_services(), WB_LOG_INFO, "%s (ignored)", reason);
        return;
    }
    host_warn("%s", reason);
    record_rejection(path, reason);
}

static void load_directory(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        /* a plugin file named on its own: that file, and no other */
        struct stat st;
        if (errno == ENOTDIR && stat(dir, &st) == 0 && S_ISREG(st.st_mode))
            load_one(dir);
        return;
    }
    char **names = NULL;
    int count = 0, capacity = 0;
    struct dirent *ent;
    while ((ent = readdir(d)))
        if (has_suffix(ent->d_name, ".so")) {
            if (count == capacity) {
                char **bigger = grow(names, &capacity, sizeof *names);
                if (!bigger)
                    break;
                names = bigger;
            }
            if ((names[count] = duplicate(ent->d_name)))
                count++;
        }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], compare_names);
    keep_newest_builds(dir, names, count);
    for (int i = 0; i < count; i++) {
        if (!names[i])
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        free(names[i]);
        load_one(path);
    }
    free(names);
}

static void add_environment_dirs(void)
{
    const char *env = getenv("WORKBENCH_PLUGIN_PATH");
    if (!env || !*env)
        return;
    char *copy = duplicate(env);
    if (!copy)
        return;
    for (char *save = NULL, *tok = strtok_r(copy, ":", &save); tok;
         tok = strtok_r(NULL, ":", &save))
        plugins_add_search_dir(tok);
    free(copy);
}

static void add_executable_dirs(void)
{
    static const char *const relative[] = {"plugins", "models",
                                           WB_INSTALLED_PLUGINS_FROM_BIN};
    if (!executable_dir[0])
        return;
    for (size_t i = 0; i < sizeof relative / sizeof relative[0]; i++) {
        char dir[PATH_MAX + 32];
        snprintf(dir, sizeof dir, "%s/%s", executable_dir, relative[i]);
        plugins_add_search_dir(dir);
    }
}

void plugins_discover(void)
{
    if (discovered)
        return;
    discovered = 1;
    add_environment_dirs();
    add_executable_dirs();
    for (int i = 0; i < search_dir_count; i++)
        load_directory(search_dirs[i]);
    plugin_probe_save();
    host_clear_error();
}

/* A refused file whose name is `name`.so, if any: the likely reason why a
 * plugin of that name is missing. */
static const plugin_rejection *refused_as(const char *name)
{
    for (int i = 0; i < rejected_count; i++) {
        const char *slash = strrchr(rejected[i].path, '/');
        const char *base = slash ? slash + 1 : rejected[i].path;
        size_t n = strlen(name);
        if (strncmp(base, name, n) == 0 && strcmp(base + n, ".so") == 0)
            return &rejected[i];
    }
    return NULL;
}

const plugin *plugins_find_model(const char *name)
{
    plugins_discover();
    const plugin *p = find_by_name(name, WB_KIND_MODEL);
    if (!p) {
        char list[1024] = "";
        size_t used = 0;
        for (int i = 0; i < loaded_count; i++)
            if (loaded[i]->entry->kind == WB_KIND_MODEL && used < sizeof list - 64)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                         used ? ", " : "", loaded[i]->entry->name);
        const plugin_rejection *r = refused_as(name);
        if (r)
            host_error("unknown model '%s': %s (available: %s)", name, r->reason,
                       used ? list : "none found");
        else
            host_error("unknown model '%s' (available: %s)", name, used ? list : "none found");
    }
    return p;
}

const plugin *plugins_find_family(const char *name)
{
    plugins_discover();
    return find_by_name(name, WB_KIND_INTEGRATOR);
}

static void list_methods(char *list, size_t size)
{
    size_t used = 0;
    list[0] = '\0';
    for (int i = 0; i < loaded_count; i++) {
        const wb_family *f = loaded[i]->family;
        if (!f)
            continue;
        for (uint32_t j = 0; j < f->n_methods && used < size - 80; j++)
            used += (size_t)snprintf(list + used, size - used, "%s%s.%s",
                                     used ? ", " : "", f->name, f->methods[j]->name);
    }
}

const wb_method *plugins_find_method(const char *spec, const plugin **family)
{
    plugins_discover();
    char list[2048];
    const char *dot = strchr(spec, '.');
    if (dot) {
        char fname[256];
        size_t n = (size_t)(dot - spec);
        if (n >= sizeof fname)
            n = sizeof fname - 1;
        memcpy(fname, spec, n);
        fname[n] = '\0';
        const plugin *p = find_by_name(fname, WB_KIND_INTEGRATOR);
        if (p)
            for (uint32_t j = 0; j < p->family->n_methods; j++)
                if (strcmp(p->family->methods[j]->name, dot + 1) == 0) {
                    *family = p;
                    return p->family->methods[j];
                }
        const plugin_rejection *r = p ? NULL : refused_as(fname);
        list_methods(list, sizeof list);
        if (r)
            host_error("unknown method '%s': %s", spec, r->reason);
        else
            host_error("unknown method '%s' (available: %s)", spec, list);
        return NULL;
    }
    const wb_method *found = NULL;
    const plugin *found_family = NULL;
    char matches[512] = "";
    size_t used = 0;
    int count = 0;
    for (int i = 0; i < loaded_count; i++) {
        const wb_family *f = loaded[i]->family;
        if (!f)
            continue;
        for (uint32_t j = 0; j < f->n_methods; j++)
            if (strcmp(f->methods[j]->name, spec) == 0) {
                found = f->methods[j];
                found_family = loaded[i];
                count++;
                if (used < sizeof matches - 64)
                    used += (size_t)snprintf(matches + used, sizeof matches - used,
                                             "%s%s.%s", used ? ", " : "", f->name, spec);
            }
    }
    if (count == 1) {
        *family = found_family;
        return found;
    }
    if (count > 1) {
        host_error("method name '%s' is ambiguous; write one of %s", spec, matches);
        return NULL;
    }
    list_methods(list, sizeof list);
    host_error("unknown method '%s' (available: %s)", spec, list);
    return NULL;
}

const char *const *plugins_known_extensions(void)
{
    static const char *const ids[] = {
        WB_EXT_MECHANICAL,      WB_EXT_HOLONOMIC,       WB_EXT_NONHOLONOMIC,
        WB_EXT_INVARIANTS,      WB_EXT_INITIAL_STATE,   WB_EXT_LIE_GROUP,
        WB_EXT_LIE_HAMILTONIAN, WB_EXT_LIE_LAGRANGIAN,  WB_EXT_LIE_NONHOLONOMIC,
        WB_EXT_POTENTIAL_INVARIANTS, WB_EXT_SPARSITY, WB_EXT_HOLONOMIC_POINT, NULL,
    };
    return ids;
}

void plugins_unload_all(void)
{
    for (int i = 0; i < loaded_count; i++) {
        if (loaded[i]->handle)
            dlclose(loaded[i]->handle);
        free(loaded[i]->path);
        free(loaded[i]);
    }
    free(loaded);
    loaded = NULL;
    loaded_count = loaded_capacity = 0;
    for (int i = 0; i < rejected_count; i++) {
        free(rejected[i].path);
        free(rejected[i].reason);
    }
    free(rejected);
    rejected = NULL;
    rejected_count = rejected_capacity = 0;
    for (int i = 0; i < search_dir_count; i++)
        free(search_dirs[i]);
    free(search_dirs);
    search_dirs = NULL;
    search_dir_count = search_dir_capacity = 0;
    discovered = 0;
    plugin_probe_forget();
}
