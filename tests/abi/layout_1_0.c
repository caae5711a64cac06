/* The ABI 1.0 layout, from the copies of the 1.0 headers in v1_0/. */
#define LAYOUT_FUNCTION layout_1_0
#include "layout_table.h"
