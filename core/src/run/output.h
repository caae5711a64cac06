/* Where scripts' outputs go: relative paths are taken relative to the
 * output root (--output-dir or WORKBENCH_OUTPUT_DIR; default: the current
 * folder), so a test run can send every figure to its build tree. */
#ifndef CORE_OUTPUT_H
#define CORE_OUTPUT_H

void output_set_root(const char *dir);
const char *output_root(void);
/* The path to write for `path`; valid until the next call. */
const char *output_path(const char *path);

#endif
