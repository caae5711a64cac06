/* Plugin discovery, loading and validation. */
#ifndef CORE_PLUGINS_H
#define CORE_PLUGINS_H

#include <workbench/workbench.h>

typedef struct plugin {
    char *path;
    void *handle;
    const wb_plugin_entry *entry;
    const wb_model_class *model;   /* kind == WB_KIND_MODEL      */
    const wb_family *family;       /* kind == WB_KIND_INTEGRATOR */
} plugin;

/* A file the host looked at and refused, with the reason. */
typedef struct plugin_rejection {
    char *path;
    char *reason;
} plugin_rejection;

/* Search directories, in priority order: added ones first, then the
 * WORKBENCH_PLUGIN_PATH entries, then the folders next to the executable
 * (build tree: <exe dir>/plugins and <exe dir>/models; install tree: the
 * plugin folder relative to the installed binary, ../lib/workbench/plugins
 * or ../lib/<multiarch>/workbench/plugins).  A name found twice keeps the
 * first (a warning when both files are in one folder); of a compiled
 * model's builds NAME-KEY.so in one folder only the newest is loaded, with
 * a warning.  A "directory" that is a plugin file loads that file. */
void plugins_add_search_dir(const char *dir);
void plugins_set_executable(const char *argv0);

/* Load every plugin once (idempotent).  Refused files are recorded and
 * warned about; loading carries on. */
void plugins_discover(void);

/* Load one file now, without a search.  Returns NULL (message in
 * host_last_error) when refused. */
const plugin *plugins_load_file(const char *path);

/* Register an entry that lives in this process (handle NULL), e.g. a
 * model a script defines; `origin` stands where a file's path would
 * (messages, `list`).  The entry and what it points to must outlive the
 * registration.  NULL with the reason in host_last_error() when refused
 * (invalid, or the name is taken). */
const plugin *plugins_register(const wb_plugin_entry *entry, const char *origin);
/* Forget a registered entry (never a loaded file). */
void plugins_unregister(const plugin *p);

int plugins_count(void);
const plugin *plugins_at(int index);
int plugins_rejection_count(void);
const plugin_rejection *plugins_rejection_at(int index);
int plugins_search_dir_count(void);
const char *plugins_search_dir_at(int index);

const plugin *plugins_find_model(const char *name);
const plugin *plugins_find_family(const char *name);
/* "family.method", or a method name that is unique over all families.
 * NULL with a message listing the candidates otherwise. */
const wb_method *plugins_find_method(const char *spec, const plugin **family);

void plugins_unload_all(void);

/* Every model extension id this host knows, NULL-terminated. */
const char *const *plugins_known_extensions(void);

#endif
