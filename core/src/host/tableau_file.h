/* Tableau files: the text format of wb.tableau.load, parsed by a small
 * arithmetic grammar (never by a language's compiler).
 *
 *   # a comment runs to the end of the line
 *   name my_gauss2
 *   a
 *     1/4             1/4-sqrt(3)/6
 *     1/4+sqrt(3)/6   1/4
 *   b
 *     1/2 1/2
 *   c                 (optional: the row sums of a)
 *     1/2-sqrt(3)/6 1/2+sqrt(3)/6
 *   a2, b2, c2        (a partitioned pair; b2 defaults to b)
 *
 * A number is an expression without spaces:
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('+' | '-') unary | power
 *   power   := primary ('^' unary)?          (right-associative)
 *   primary := decimal | 'pi' | func '(' expr ')' | '(' expr ')'
 *   func    := sqrt | exp | log | sin | cos
 *   decimal := digits ['.' digits] [('e' | 'E') ['+' | '-'] digits]
 * Limits: an expression of at most TABLEAU_FILE_MAX_EXPRESSION bytes and
 * TABLEAU_FILE_MAX_DEPTH nested levels, lines of TABLEAU_FILE_MAX_LINE
 * bytes, files of TABLEAU_FILE_MAX_BYTES; every value must be finite. */
#ifndef HOST_TABLEAU_FILE_H
#define HOST_TABLEAU_FILE_H

#include <workbench/workbench.h>

#include <stddef.h>

#define TABLEAU_FILE_MAX_EXPRESSION 256
#define TABLEAU_FILE_MAX_DEPTH 32
#define TABLEAU_FILE_MAX_LINE 4096
#define TABLEAU_FILE_MAX_BYTES (1 << 20)

/* The value of one expression; 0, or -1 with the reason (and the byte
 * where it was found) in `why`. */
int tableau_expression(const char *text, size_t length, double *value, char *why,
                       size_t why_size);

/* A tableau from a file's text.  `source` names it in messages, and its
 * base name without extension is the tableau's name unless a `name` line
 * gives one.  NULL with a message naming the source, the line and what was
 * expected; a c that is not the row sums of a is accepted with a warning
 * (tableau_create). */
const wb_tableau *tableau_parse_text(const char *text, size_t length, const char *source,
                                     char *warning, size_t warning_size);

/* Read and parse a file (at most TABLEAU_FILE_MAX_BYTES). */
const wb_tableau *tableau_load_file(const char *path, char *warning, size_t warning_size);

#endif
