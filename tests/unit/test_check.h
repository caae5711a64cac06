/* A tiny assertion kit for the unit tests: no framework, no allocation.
 *
 *   CHECK(cond, fmt, ...)          one check; on failure prints where and why
 *                                  (cond and the format arguments are all
 *                                  evaluated: keep side effects out of them)
 *   CHECK_STATUS(got, want, what)  a wb_status compared with its name
 *   CHECK_CLOSE(got, want, rtol, what)
 *   CHECK_CONTAINS(text, part, what)
 *   return test_summary("name");   prints "N checks, M failed", exit code
 *
 * Checks never abort: a test program runs every case and reports all
 * failures at once, which is what one wants when a change breaks several
 * things. */
#ifndef TEST_CHECK_H
#define TEST_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int test_checks_run, test_checks_failed;

static inline int test_check(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline int test_check(int ok, const char *file, int line, const char *fmt, ...)
{
    test_checks_run++;
    if (ok)
        return 1;
    test_checks_failed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 0;
}

#define CHECK(cond, ...) test_check((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

static inline const char *test_status_name(int status)
{
    static const char *const names[] = {"WB_OK", "WB_ERR_NEWTON", "WB_ERR_NONFINITE",
                                        "WB_ERR_SINGULAR", "WB_ERR_INVALID", "WB_ERR_NOMEM",
                                        "WB_ERR_MODEL", "WB_ERR_INTERNAL"};
    return status >= 0 && status <= 7 ? names[status] : "(unknown status)";
}

/* Each argument is evaluated exactly once (they are often calls). */
static inline int test_check_status(int got, int want, const char *what, const char *file,
                                    int line)
{
    return test_check(got == want, file, line, "%s: status %s, expected %s", what,
                      test_status_name(got), test_status_name(want));
}
#define CHECK_STATUS(got, want, what) test_check_status((got), (want), (what), __FILE__, __LINE__)

/* |got - want| <= rtol * |want|: a relative comparison (an exact zero
 * must then be matched exactly). */
static inline int test_check_close(double got, double want, double rtol, const char *what,
                                   const char *file, int line)
{
    return test_check(fabs(got - want) <= rtol * fabs(want), file, line,
                      "%s: got %.17g, expected %.17g (relative tolerance %.1e)", what, got,
                      want, rtol);
}
#define CHECK_CLOSE(got, want, rtol, what) \
    test_check_close((got), (want), (rtol), (what), __FILE__, __LINE__)

static inline int test_check_contains(const char *text, const char *part, const char *what,
                                      const char *file, int line)
{
    return test_check(text && strstr(text, part), file, line,
                      "%s: message \"%s\" lacks \"%s\"", what, text ? text : "(null)", part);
}
#define CHECK_CONTAINS(text, part, what) \
    test_check_contains((text), (part), (what), __FILE__, __LINE__)

static inline int test_summary(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, test_checks_run, test_checks_failed);
    return test_checks_failed == 0 ? 0 : 1;
}

#endif
