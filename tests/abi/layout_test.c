/* ABI policy, checked: every member of ABI 1.0 keeps its offset and size
 * in the current headers, structs only grow, the major version is the
 * same; and the host's frozen 1.0 element sizes (host/descriptor.c) are
 * the 1.0 headers' own. */
#include "host/descriptor.h"
#include "layout.h"
#include "../unit/test_check.h"

static const layout_row *find(const layout_row *rows, int count, const char *type)
{
    for (int i = 0; i < count; i++)
        if (rows[i].member[0] == '\0' && strcmp(rows[i].type, type) == 0)
            return &rows[i];
    return NULL;
}

int main(void)
{
    int old_count, new_count, old_major, old_minor, major, minor;
    const layout_row *old = layout_1_0(&old_count, &old_major, &old_minor);
    const layout_row *now = layout_current(&new_count, &major, &minor);
    CHECK(old_major == 1 && old_minor == 0, "the copies are ABI 1.0 (%d.%d)", old_major,
          old_minor);
    CHECK(major == old_major, "same major version (%d, 1.0 has %d)", major, old_major);
    CHECK(minor >= 1, "current minor %d", minor);
    CHECK(old_count == new_count, "the same rows (%d, %d)", old_count, new_count);
    for (int i = 0; i < old_count && i < new_count; i++) {
        const layout_row *a = &old[i], *b = &now[i];
        if (a->member[0])
            CHECK(a->offset == b->offset && a->size == b->size,
                  "%s.%s moved: 1.0 offset %zu size %zu, now %zu, %zu", a->type, a->member,
                  a->offset, a->size, b->offset, b->size);
        else
            CHECK(b->size >= a->size, "%s shrank: %zu -> %zu", a->type, a->size, b->size);
    }
    struct {
        const char *type;
        uint32_t frozen;
    } elements[] = {
        {"wb_option_spec", descriptor_option_spec_size_1_0},
        {"wb_option_value", descriptor_option_value_size_1_0},
        {"wb_aux_spec", descriptor_aux_spec_size_1_0},
        {"wb_param_spec", descriptor_param_spec_size_1_0},
    };
    for (size_t i = 0; i < sizeof elements / sizeof elements[0]; i++) {
        const layout_row *r = find(old, old_count, elements[i].type);
        CHECK(r && r->size == elements[i].frozen, "%s: 1.0 size %zu, host's frozen %u",
              elements[i].type, r ? r->size : 0, elements[i].frozen);
    }
    return test_summary("abi_layout");
}
