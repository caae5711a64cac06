/* Plugin descriptors across ABI minor versions: element strides and
 * appended members. */
#include "host/descriptor.h"

#include <stdio.h>
#include <string.h>

/* The element structs as ABI 1.0 laid them out.  Their members must keep
 * their offsets in every later minor version (tests/abi checks the public
 * headers against the 1.0 copies); only their sizes matter here. */
typedef struct option_spec_1_0 {
    const char *name;
    int type;
    double default_number;
    double min, max;
    const char *default_string;
    const char *choices;
    const char *doc;
} option_spec_1_0;

typedef struct option_value_1_0 {
    double number;
    const char *string;
    const wb_tableau *tableau;
} option_value_1_0;

typedef struct aux_spec_1_0 {
    const char *name;
    int size_kind;
    int size;
    int time;
    const char *doc;
} aux_spec_1_0;

typedef struct param_spec_1_0 {
    const char *name;
    double default_value;
    double min;
    double max;
    const char *doc;
} param_spec_1_0;

_Static_assert(offsetof(aux_spec_1_0, doc) == offsetof(wb_aux_spec, doc),
               "wb_aux_spec's 1.0 members moved");
_Static_assert(offsetof(option_spec_1_0, doc) == offsetof(wb_option_spec, doc),
               "wb_option_spec's 1.0 members moved");
_Static_assert(offsetof(option_value_1_0, tableau) == offsetof(wb_option_value, tableau),
               "wb_option_value's 1.0 members moved");
_Static_assert(offsetof(param_spec_1_0, doc) == offsetof(wb_param_spec, doc),
               "wb_param_spec's 1.0 members moved");

const uint32_t descriptor_option_spec_size_1_0 = sizeof(option_spec_1_0);
const uint32_t descriptor_option_value_size_1_0 = sizeof(option_value_1_0);
const uint32_t descriptor_aux_spec_size_1_0 = sizeof(aux_spec_1_0);
const uint32_t descriptor_param_spec_size_1_0 = sizeof(param_spec_1_0);

#define MEMBER_OR(p, type, field, fallback) (WB_HAS_FIELD(p, type, field) ? (p)->field : (fallback))

uint32_t descriptor_option_spec_size(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, option_spec_size, descriptor_option_spec_size_1_0);
}

uint32_t descriptor_option_value_size(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, option_value_size, descriptor_option_value_size_1_0);
}

uint32_t descriptor_aux_spec_size(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, aux_spec_size, descriptor_aux_spec_size_1_0);
}

uint32_t descriptor_param_spec_size(const wb_model_class *c)
{
    return MEMBER_OR(c, wb_model_class, param_spec_size, descriptor_param_spec_size_1_0);
}

const wb_option_spec *descriptor_option(const wb_method *m, uint32_t i)
{
    return WB_ELEMENT(wb_option_spec, m->options, descriptor_option_spec_size(m), i);
}

const wb_aux_spec *descriptor_aux(const wb_method *m, uint32_t i)
{
    return WB_ELEMENT(wb_aux_spec, m->aux, descriptor_aux_spec_size(m), i);
}

const wb_param_spec *descriptor_param(const wb_model_class *c, uint32_t i)
{
    return WB_ELEMENT(wb_param_spec, c->params, descriptor_param_spec_size(c), i);
}

uint32_t descriptor_aux_flags(const wb_method *m, uint32_t i)
{
    uint32_t stride = descriptor_aux_spec_size(m);
    return WB_STRIDE_HAS(stride, wb_aux_spec, flags) ? descriptor_aux(m, i)->flags : 0u;
}

descriptor_start_fn descriptor_start(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, start, NULL);
}

descriptor_offset_fn descriptor_aux_time_offset(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, aux_time_offset, NULL);
}

descriptor_blocks_fn descriptor_aux_blocks(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, aux_blocks, NULL);
}

descriptor_describe_model_fn descriptor_describe_model(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, describe_model, NULL);
}

descriptor_complete_fn descriptor_complete_options(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, complete_options, NULL);
}

descriptor_check_model_fn descriptor_check_model(const wb_method *m)
{
    return MEMBER_OR(m, wb_method, check_model, NULL);
}

/* Calls f(id, length, arg) for each '|'-separated id until f returns 1. */
static int each_alternative(const char *alternatives,
                            int (*f)(const char *id, size_t length, void *arg), void *arg)
{
    for (const char *p = alternatives; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (f(p, n, arg))
            return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

typedef struct extension_lookup {
    const void *(*get_extension)(const char *id);
} extension_lookup;

static int answered(const char *id, size_t length, void *arg)
{
    const extension_lookup *lookup = arg;
    char one[160];
    if (length == 0 || length >= sizeof one)
        return 0;
    memcpy(one, id, length);
    one[length] = '\0';
    return lookup->get_extension(one) != NULL;
}

int descriptor_requirement_met(const char *alternatives,
                               const void *(*get_extension)(const char *id))
{
    extension_lookup lookup = {get_extension};
    return each_alternative(alternatives, answered, &lookup);
}

typedef struct text_buffer {
    char *out;
    size_t size, used;
} text_buffer;

static int append_alternative(const char *id, size_t length, void *arg)
{
    text_buffer *b = arg;
    if (b->used < b->size)
        b->used += (size_t)snprintf(b->out + b->used, b->size - b->used, "%s%.*s",
                                    b->used ? " or " : "", (int)length, id);
    return 0;
}

void descriptor_requirement_text(const char *alternatives, char *out, size_t size)
{
    text_buffer b = {out, size, 0};
    if (size)
        out[0] = '\0';
    each_alternative(alternatives, append_alternative, &b);
}

/* Columns the driver records itself (run/driver.c build_columns). */
static const char *const builtin_columns[] = {
    "t", "energy", "energy_error", "energy_error_abs", "constraint", "hidden_constraint",
    "nonholonomic_constraint", "group_residual", NULL};
/* ... and the numbered ones: q1.., p1.., g1.., gv1.., phi1.. */
static const char *const builtin_vectors[] = {"q", "p", "g", "gv", "phi", NULL};

static int is_identifier(const char *name)
{
    if (!name || !*name || strlen(name) > 63 || (*name >= '0' && *name <= '9'))
        return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            return 0;
    return 1;
}

const char *descriptor_column_name_problem(const char *name, int vector)
{
    if (!is_identifier(name))
        return "not an identifier of letters, digits and '_' (at most 63, not starting with a "
               "digit)";
    for (int i = 0; builtin_columns[i]; i++)
        if (strcmp(name, builtin_columns[i]) == 0)
            return "the name of a built-in column";
    /* base + digits, or (vector) a base whose numbered columns are built in */
    for (int i = 0; builtin_vectors[i]; i++) {
        size_t n = strlen(builtin_vectors[i]);
        if (strncmp(name, builtin_vectors[i], n) != 0)
            continue;
        const char *rest = name + n;
        if (vector && !*rest)
            return "the base of built-in numbered columns";
        if (*rest && strspn(rest, "0123456789") == strlen(rest))
            return "the name of a built-in numbered column";
    }
    return NULL;
}
