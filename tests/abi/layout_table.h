/* One layout table, compiled once against the 1.0 headers and once against
 * the current ones (LAYOUT_FUNCTION names the function each defines). */
#include <workbench/workbench.h>

#include <stddef.h>

#include "layout.h"
#include "layout_members.h"

#define MEMBER_ROW(type, field) \
    {#type, #field, offsetof(type, field), sizeof(((type *)0)->field)},
#define STRUCT_ROW(type) {#type, "", 0, sizeof(type)},

static const layout_row rows[] = {ABI_1_0_MEMBERS(MEMBER_ROW) ABI_1_0_STRUCTS(STRUCT_ROW)};

const layout_row *LAYOUT_FUNCTION(int *count, int *major, int *minor)
{
    *count = (int)(sizeof rows / sizeof rows[0]);
    *major = WB_ABI_MAJOR;
    *minor = WB_ABI_MINOR;
    return rows;
}
