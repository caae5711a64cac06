/* A struct member's place, or (member "") a struct's size. */
#ifndef TESTS_ABI_LAYOUT_H
#define TESTS_ABI_LAYOUT_H

#include <stddef.h>

typedef struct layout_row {
    const char *type, *member;
    size_t offset, size;
} layout_row;

const layout_row *layout_1_0(int *count, int *major, int *minor);
const layout_row *layout_current(int *count, int *major, int *minor);

#endif
