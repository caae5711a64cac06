/* A method with validated options, and its instances bound to a model. */
#ifndef CORE_INTEGRATOR_INSTANCE_H
#define CORE_INTEGRATOR_INSTANCE_H

#include "run/model_instance.h"

typedef struct method_config {
    const plugin *family;
    const wb_method *method;
    wb_option_value *values;  /* one per option spec                   */
    char **owned_strings;     /* copies of string values, per option    */
    /* The values in the plugin's own element size, when it differs from
     * the host's (a plugin of another minor version); else NULL. */
    unsigned char *plugin_values;
    /* given[i] = 1 once the user has set option i (wb_method.complete_options
     * may fill in the others). */
    unsigned char *given;
} method_config;

/* Defaults for every option (tableau defaults resolved). NULL on error. */
method_config *method_config_create(const plugin *family, const wb_method *method);
void method_config_destroy(method_config *cfg);
/* Index of option `name`, or -1 with an error listing the valid names. */
int method_config_find(const method_config *cfg, const char *name);
/* The value of numeric option `name`, or NAN when the method has none. */
double method_config_number(const method_config *cfg, const char *name);
/* Setters validate type and range and report errors naming the option,
 * and mark the option as given by the user. */
int method_config_set_number(method_config *cfg, int index, double value);
int method_config_set_boolean(method_config *cfg, int index, int value);
int method_config_set_string(method_config *cfg, int index, const char *value);
int method_config_set_tableau(method_config *cfg, int index, const wb_tableau *t);
/* OPTION=VALUE's text from a command line, read by the option's type: a
 * decimal number (host_parse_number) for a numeric option, true/false (or
 * 1/0) for a boolean, the text itself otherwise; errors name the option
 * and the text. */
int method_config_set_text(method_config *cfg, int index, const char *text);
/* The options the user did not give completed from those given
 * (wb_method.complete_options), then the method's own check of the option
 * set as a whole (wb_method.validate); 0 when it accepts, else -1 with the
 * message. */
int method_config_validate(method_config *cfg);
/* The option values as the plugin reads them (its element size). */
const wb_option_value *method_config_plugin_values(const method_config *cfg);
/* What to change when a step's nonlinear iteration does not converge:
 * "reduce h (now ...), raise max_iter (now ...), ..." naming only the
 * options this method has.  Always NUL-terminated. */
void method_config_convergence_hint(const method_config *cfg, double h, char *out,
                                    size_t size);
/* "family.method" */
void method_config_name(const method_config *cfg, char *out, size_t size);
/* Order and property flags for the current options. */
wb_method_props method_config_props(const method_config *cfg);
/* The same on model `mi`, where the method says they depend on the model
 * (describe_model, ABI 1.2); method_config_props otherwise. */
wb_method_props method_config_props_for(const method_config *cfg, const model_instance *mi);

/* The claimable properties: the flag, its key in m.properties, and a label
 * for `workbench list`.  Terminated by an entry with bit 0. */
typedef struct method_property {
    uint32_t bit;
    const char *key;
    const char *label;
} method_property;
extern const method_property method_properties[];

/* One resolved aux group. */
typedef struct aux_column {
    const char *name;
    int size;
    int time;        /* wb_aux_time */
    int offset;      /* into the concatenated aux vector */
    uint32_t flags;  /* WB_AUX_* flags (WB_AUX_UNRECORDED) */
    double theta;    /* WB_AUX_AT_OFFSET: belongs to t_{n+1} + theta h */
} aux_column;

typedef struct integrator {
    const method_config *cfg;   /* borrowed: must outlive the integrator */
    model_instance *model;      /* borrowed */
    void *inst;
    int n_aux_groups;
    aux_column *aux;
    int aux_total;
} integrator;

/* The method's aux groups on model `mi`: how many, and group i (its
 * offset left 0: the groups are laid out one after another).  -1 with a
 * message when the method gives a non-finite time offset. */
uint32_t integrator_aux_count(const method_config *cfg);
int integrator_aux_group(const method_config *cfg, const model_instance *mi, uint32_t i,
                         aux_column *out);

/* 0 when `cfg` can integrate `mi` (required extensions, constraint kinds),
 * else -1 with the reason in host_last_error(). */
int integrator_check_compatible(const method_config *cfg, const model_instance *mi);

/* Checks that `cfg` (already validated: method_config_validate runs
 * whenever options are set) can integrate `mi` (required extensions,
 * constraint kinds), then creates the plugin instance.  NULL with a message
 * naming the method and the model otherwise. */
integrator *integrator_create(const method_config *cfg, model_instance *mi);
void integrator_destroy(integrator *it);

#endif
