/* The current layout, from core/include. */
#define LAYOUT_FUNCTION layout_current
#include "layout_table.h"
