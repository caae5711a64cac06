/* Reading a plugin's static descriptors whatever ABI minor version it was
 * built against.
 *
 * A plugin's arrays (option specs, aux specs, parameter specs) are laid out
 * with the element size the plugin was built with, and its structs may end
 * before members a later minor version appended.  Everything in the host
 * reads them through these accessors, which step with the plugin's element
 * size and answer the 1.0 default (0, NULL) for a member the plugin's struct
 * does not hold.  The loader has checked every size before any of these is
 * used (plugins.c). */
#ifndef HOST_DESCRIPTOR_H
#define HOST_DESCRIPTOR_H

#include <workbench/workbench.h>

/* The element sizes of ABI 1.0, frozen: a 1.0 plugin's arrays have them. */
extern const uint32_t descriptor_option_spec_size_1_0;
extern const uint32_t descriptor_option_value_size_1_0;
extern const uint32_t descriptor_aux_spec_size_1_0;
extern const uint32_t descriptor_param_spec_size_1_0;

/* Element sizes of a method's arrays and of a model class's parameters. */
uint32_t descriptor_option_spec_size(const wb_method *m);
uint32_t descriptor_option_value_size(const wb_method *m);
uint32_t descriptor_aux_spec_size(const wb_method *m);
uint32_t descriptor_param_spec_size(const wb_model_class *c);

const wb_option_spec *descriptor_option(const wb_method *m, uint32_t i);
const wb_aux_spec *descriptor_aux(const wb_method *m, uint32_t i);
const wb_param_spec *descriptor_param(const wb_model_class *c, uint32_t i);

/* Members appended in 1.1, or their 1.0 defaults. */
uint32_t descriptor_aux_flags(const wb_method *m, uint32_t i);
typedef int (*descriptor_start_fn)(void *inst, double t, double h, const double *q,
                                   const double *p, const double *aux);
descriptor_start_fn descriptor_start(const wb_method *m);
typedef double (*descriptor_offset_fn)(const wb_option_value *opts, uint32_t group);
descriptor_offset_fn descriptor_aux_time_offset(const wb_method *m);
/* Appended in 1.2, or NULL. */
typedef uint32_t (*descriptor_blocks_fn)(const wb_option_value *opts, uint32_t group);
descriptor_blocks_fn descriptor_aux_blocks(const wb_method *m);
typedef int (*descriptor_describe_model_fn)(const wb_option_value *opts, const wb_model *model,
                                            wb_method_props *out);
descriptor_describe_model_fn descriptor_describe_model(const wb_method *m);
typedef int (*descriptor_complete_fn)(const wb_host *host, wb_option_value *opts,
                                      const unsigned char *given);
descriptor_complete_fn descriptor_complete_options(const wb_method *m);
/* Appended in 1.6, or NULL. */
typedef int (*descriptor_check_model_fn)(const wb_host *host, const wb_option_value *opts,
                                         const wb_model *model);
descriptor_check_model_fn descriptor_check_model(const wb_method *m);

/* Names a plugin declares that become columns of a solution (a model's
 * invariants, a method's aux unknowns): NULL when `name` may be one, else
 * why not -- not an identifier [A-Za-z_][A-Za-z0-9_]* of at most 63
 * characters (a space would shift every column of a written table), or
 * the name of a built-in column (t, q1.., p1.., energy, energy_error,
 * energy_error_abs, constraint, hidden_constraint, nonholonomic_constraint,
 * group_residual, g1.., gv1.., phi1..), which it would shadow.  `vector`:
 * the name is the base of numbered columns (name1, name2, ...). */
const char *descriptor_column_name_problem(const char *name, int vector);

/* "wb.a/1|wb.b/1": 1 when `extension` answers one of the '|'-separated ids
 * of `alternatives` (get_extension is the model class's lookup). */
int descriptor_requirement_met(const char *alternatives,
                               const void *(*get_extension)(const char *id));
/* The alternatives written for people: "wb.a/1 or wb.b/1". */
void descriptor_requirement_text(const char *alternatives, char *out, size_t size);

#endif
