/* gnuplot as an external program, and the only way a string reaches its
 * script text.
 *
 * gnuplot substitutes backquotes (a shell command) inside double-quoted
 * strings, expands @macros outside them, and ends a command at a newline
 * or ';'.  So no string from a script or a data file is ever pasted into a
 * gnuplot script: gnuplot_literal writes it as a double-quoted literal in
 * which every byte other than a letter or a space is an octal
 * escape (\140 for a backquote).  gnuplot decodes the escapes only after
 * it has split and substituted the line, so the text arrives as data. */
#ifndef CORE_GNUPLOT_H
#define CORE_GNUPLOT_H

#include <stddef.h>

typedef enum gnuplot_literal_kind {
    GNUPLOT_TEXT, /* a title or label: control characters become spaces  */
    GNUPLOT_PATH  /* a file name: every byte kept (a NUL is refused)      */
} gnuplot_literal_kind;

/* The literal for s[0..len), quotes included; the caller frees it.  NULL
 * (message in host_last_error) for a path holding a NUL byte or when out
 * of memory. */
char *gnuplot_literal(const char *s, size_t len, gnuplot_literal_kind kind);

/* Run gnuplot on `script` with the variable outfile set to a temporary
 * name next to `figure`, and rename it to `figure` when gnuplot succeeds.
 * 0 on success; 1 when gnuplot is not installed; -1 otherwise, with the
 * reason in host_last_error().  The temporary figure never outlives a
 * failure. */
int gnuplot_run(const char *script, const char *figure);

#endif
