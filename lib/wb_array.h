/* The length of a static array, for the counts that go with the arrays a
 * plugin's descriptors point at (n_options, n_aux, n_methods, ...), so
 * that they follow the arrays instead of being kept in step by hand. */
#ifndef WB_ARRAY_H
#define WB_ARRAY_H

#include <stddef.h>

#define WB_ARRAY_COUNT(array) (sizeof(array) / sizeof((array)[0]))

#endif
