/* Tableau files: a recursive-descent parser of the arithmetic grammar in
 * tableau_file.h, and the block structure around it. */
#include "host/tableau_file.h"
#include "host/host.h"
#include "host/tableau.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- expressions ------------------------------------------------------------ */

typedef struct parser {
    const char *start, *p, *end;
    int depth;
    const char *error;   /* first error, NULL while fine */
    const char *at;      /* where it was found          */
} parser;

static double fail(parser *ps, const char *why)
{
    if (!ps->error) {
        ps->error = why;
        ps->at = ps->p;
    }
    return NAN;
}

static double checked(parser *ps, double x)
{
    return isfinite(x) ? x : fail(ps, "the value is not finite (overflow, log or sqrt "
                                      "of a negative number?)");
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

static double expression(parser *ps);
static double unary(parser *ps);

static double decimal(parser *ps)
{
    const char *q = ps->p;
    int digits = 0;
    while (q < ps->end && is_digit(*q))
        q++, digits++;
    if (q < ps->end && *q == '.') {
        q++;
        while (q < ps->end && is_digit(*q))
            q++, digits++;
    }
    if (!digits)
        return fail(ps, "a number was expected");
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        if (e < ps->end && (*e == '+' || *e == '-'))
            e++;
        if (e >= ps->end || !is_digit(*e)) {
            ps->p = q;
            return fail(ps, "an exponent needs digits");
        }
        while (e < ps->end && is_digit(*e))
            e++;
        q = e;
    }
    char text[TABLEAU_FILE_MAX_EXPRESSION + 1];
    size_t n = (size_t)(q - ps->p);
    memcpy(text, ps->p, n); /* n <= the expression's length, checked before */
    text[n] = '\0';
    ps->p = q;
    return checked(ps, strtod(text, NULL));
}

static double primary(parser *ps)
{
    if (ps->p >= ps->end)
        return fail(ps, "the expression ends too early");
    char c = *ps->p;
    if (is_digit(c) || c == '.')
        return decimal(ps);
    if (c == '(') {
        ps->p++;
        double x = expression(ps);
        if (ps->p >= ps->end || *ps->p != ')')
            return fail(ps, "')' expected");
        ps->p++;
        return x;
    }
    if (!is_letter(c))
        return fail(ps, "a number, a function or '(' expected");
    const char *name = ps->p;
    while (ps->p < ps->end && is_letter(*ps->p))
        ps->p++;
    size_t n = (size_t)(ps->p - name);
    if (n == 2 && memcmp(name, "pi", 2) == 0)
        return M_PI;
    static const struct {
        const char *name;
        double (*fn)(double);
    } functions[] = {{"sqrt", sqrt}, {"exp", exp}, {"log", log}, {"sin", sin}, {"cos", cos}};
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (strlen(functions[i].name) == n && memcmp(name, functions[i].name, n) == 0) {
            if (ps->p >= ps->end || *ps->p != '(')
                return fail(ps, "'(' expected after the function name");
            ps->p++;
            double x = expression(ps);
            if (ps->p >= ps->end || *ps->p != ')')
                return fail(ps, "')' expected");
            ps->p++;
            if (ps->error)
                return NAN;
            return checked(ps, functions[i].fn(x));
        }
    ps->p = name;
    return fail(ps, "unknown name (known: pi, sqrt, exp, log, sin, cos)");
}

static double power(parser *ps)
{
    double base = primary(ps);
    if (ps->error || ps->p >= ps->end || *ps->p != '^')
        return base;
    ps->p++;
    double exponent = unary(ps);
    return ps->error ? NAN : checked(ps, pow(base, exponent));
}

static double unary(parser *ps)
{
    if (++ps->depth > TABLEAU_FILE_MAX_DEPTH)
        return fail(ps, "nested too deeply");
    double x;
    if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) {
        int minus = *ps->p == '-';
        ps->p++;
        x = unary(ps);
        x = minus ? -x : x;
    } else {
        x = power(ps);
    }
    ps->depth--;
    return x;
}

static double term(parser *ps)
{
    double x = unary(ps);
    while (!ps->error && ps->p < ps->end && (*ps->p == '*' || *ps->p == '/')) {
        char op = *ps->p++;
        double y = unary(ps);
        if (ps->error)
            break;
        if (op == '/' && y == 0.0)
            return fail(ps, "division by zero");
        x = checked(ps, op == '*' ? x * y : x / y);
    }
    return x;
}

static double expression(parser *ps)
{
    if (++ps->depth > TABLEAU_FILE_MAX_DEPTH)
        return fail(ps, "nested too deeply");
    double x = term(ps);
    while (!ps->error && ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) {
        char op = *ps->p++;
        double y = term(ps);
        if (ps->error)
            break;
        x = checked(ps, op == '+' ? x + y : x - y);
    }
    ps->depth--;
    return x;
}

int tableau_expression(const char *text, size_t length, double *value, char *why,
                       size_t why_size)
{
    if (length == 0 || length > TABLEAU_FILE_MAX_EXPRESSION) {
        snprintf(why, why_size, length ? "longer than %d bytes" : "empty",
                 TABLEAU_FILE_MAX_EXPRESSION);
        return -1;
    }
    parser ps = {text, text, text + length, 0, NULL, NULL};
    double x = expression(&ps);
    if (!ps.error && ps.p != ps.end) {
        ps.error = "unexpected character";
        ps.at = ps.p;
    }
    if (ps.error) {
        snprintf(why, why_size, "%s at byte %d", ps.error, (int)(ps.at - text) + 1);
        return -1;
    }
    *value = x;
    return 0;
}

/* ---- the file's structure ------------------------------------------------------ */

enum { BLOCK_A, BLOCK_B, BLOCK_C, BLOCK_A2, BLOCK_B2, BLOCK_C2, BLOCK_COUNT };
static const char *const block_names[BLOCK_COUNT] = {"a", "b", "c", "a2", "b2", "c2"};

#define S_MAX TABLEAU_MAX_STAGES

typedef struct tableau_text {
    const char *source;
    char name[64];
    int given[BLOCK_COUNT];
    /* a and a2: rows of up to S_MAX entries; vectors: up to S_MAX entries */
    double *values[BLOCK_COUNT];
    int rows[BLOCK_COUNT];           /* a, a2: rows so far; vectors: entries */
    int row_length[2][S_MAX];        /* a, a2: entries of each row */
} tableau_text;

static int matrix_block(int b) { return b == BLOCK_A || b == BLOCK_A2; }

static int line_error(const tableau_text *t, int line, const char *fmt, const char *detail)
{
    char message[512];
    snprintf(message, sizeof message, fmt, detail);
    host_error("tableau file '%s' line %d: %s", t->source, line, message);
    return -1;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The numbers of one line into block b. */
static int read_row(tableau_text *t, int b, const char *p, const char *end, int line)
{
    int matrix = matrix_block(b);
    if (matrix && t->rows[b] >= S_MAX)
        return line_error(t, line, "more than %s rows", matrix ? "64" : "");
    double *row = matrix ? t->values[b] + (size_t)t->rows[b] * S_MAX : t->values[b];
    int count = matrix ? 0 : t->rows[b];
    while (p < end) {
        while (p < end && is_space(*p))
            p++;
        const char *token = p;
        while (p < end && !is_space(*p))
            p++;
        if (p == token)
            break;
        if (count >= S_MAX) {
            char what[64];
            snprintf(what, sizeof what, "'%s' has more than %d entries", block_names[b], S_MAX);
            return line_error(t, line, "%s", what);
        }
        char why[160];
        double x;
        if (tableau_expression(token, (size_t)(p - token), &x, why, sizeof why) != 0) {
            char message[400];
            snprintf(message, sizeof message, "'%.*s' is not a number: %s",
                     (int)((p - token) > 48 ? 48 : (p - token)), token, why);
            return line_error(t, line, "%s", message);
        }
        row[count++] = x;
    }
    if (matrix)
        t->row_length[b == BLOCK_A2][t->rows[b]++] = count;
    else
        t->rows[b] = count;
    return 0;
}

static int block_of(const char *word, size_t n)
{
    for (int b = 0; b < BLOCK_COUNT; b++)
        if (strlen(block_names[b]) == n && memcmp(block_names[b], word, n) == 0)
            return b;
    return -1;
}

static int set_name(tableau_text *t, const char *p, const char *end, int line)
{
    while (p < end && is_space(*p))
        p++;
    while (end > p && is_space(end[-1]))
        end--;
    size_t n = (size_t)(end - p);
    if (n == 0 || n >= sizeof t->name)
        return line_error(t, line, "a name of 1 to 63 characters is expected after 'name'%s",
                          "");
    for (const char *c = p; c < end; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return line_error(t, line, "the name holds a control character%s", "");
    memcpy(t->name, p, n);
    t->name[n] = '\0';
    return 0;
}

static int parse_lines(tableau_text *t, const char *text, size_t length)
{
    int block = -1, line = 0;
    for (const char *p = text, *stop = text + length; p < stop;) {
        const char *eol = memchr(p, '\n', (size_t)(stop - p));
        const char *end = eol ? eol : stop;
        line++;
        if (end - p > TABLEAU_FILE_MAX_LINE)
            return line_error(t, line, "longer than %s bytes", "4096");
        const char *hash = memchr(p, '#', (size_t)(end - p));
        if (hash)
            end = hash;
        const char *word = p;
        while (word < end && is_space(*word))
            word++;
        const char *after = word;
        while (after < end && !is_space(*after))
            after++;
        size_t n = (size_t)(after - word);
        int b = block_of(word, n);
        if (n == 0) {
            /* blank */
        } else if (n == 4 && memcmp(word, "name", 4) == 0) {
            if (set_name(t, after, end, line) != 0)
                return -1;
        } else if (b >= 0) {
            const char *rest = after;
            while (rest < end && is_space(*rest))
                rest++;
            if (rest < end)
                return line_error(t, line, "put the numbers of '%s' on the lines after it",
                                  block_names[b]);
            if (t->given[b])
                return line_error(t, line, "block '%s' is given twice", block_names[b]);
            t->given[b] = 1;
            block = b;
        } else {
            if (block < 0)
                return line_error(t, line, "numbers before any block (a, b, c, a2, b2, c2)%s",
                                  "");
            if (read_row(t, block, word, end, line) != 0)
                return -1;
        }
        p = eol ? eol + 1 : stop;
    }
    return 0;
}

static int structure_error(const tableau_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int structure_error(const tableau_text *t, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    host_error("tableau file '%s': %s", t->source, message);
    return -1;
}

/* Square a (and a2) of s rows, vectors of s entries. */
static int check_shapes(const tableau_text *t, int *stages)
{
    if (!t->given[BLOCK_A] || !t->given[BLOCK_B])
        return structure_error(t, "blocks a and b are required");
    if ((t->given[BLOCK_B2] || t->given[BLOCK_C2]) && !t->given[BLOCK_A2])
        return structure_error(t, "b2 and c2 belong to a pair: give a2 too");
    int s = t->rows[BLOCK_A];
    if (s < 1)
        return structure_error(t, "block a has no rows");
    for (int m = 0; m < 2; m++) {
        int b = m ? BLOCK_A2 : BLOCK_A;
        if (!t->given[b])
            continue;
        if (t->rows[b] != s)
            return structure_error(t, "a2 has %d rows, a has %d", t->rows[b], s);
        for (int i = 0; i < s; i++)
            if (t->row_length[m][i] != s)
                return structure_error(t, "%s must be square: row %d has %d entries, "
                                       "expected %d", block_names[b], i + 1,
                                       t->row_length[m][i], s);
    }
    for (int b = 0; b < BLOCK_COUNT; b++)
        if (!matrix_block(b) && t->given[b] && t->rows[b] != s)
            return structure_error(t, "%s has %d entries, but a is %dx%d", block_names[b],
                                   t->rows[b], s, s);
    *stages = s;
    return 0;
}

/* The file's base name without its extension, as the default name. */
static void default_name(const char *source, char *name, size_t size)
{
    const char *slash = strrchr(source, '/');
    const char *base = slash ? slash + 1 : source;
    size_t n = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base)
        n = (size_t)(dot - base);
    if (n == 0 || n >= size) {
        snprintf(name, size, "user");
        return;
    }
    for (size_t i = 0; i < n; i++)
        name[i] = (unsigned char)base[i] < 0x20 || base[i] == 0x7f ? '_' : base[i];
    name[n] = '\0';
}

const wb_tableau *tableau_parse_text(const char *text, size_t length, const char *source,
                                     char *warning, size_t warning_size)
{
    if (warning && warning_size)
        warning[0] = '\0';
    tableau_text t;
    memset(&t, 0, sizeof t);
    t.source = source;
    if (length > TABLEAU_FILE_MAX_BYTES) {
        host_error("tableau file '%s': larger than %d bytes", source, TABLEAU_FILE_MAX_BYTES);
        return NULL;
    }
    if (memchr(text, '\0', length)) {
        host_error("tableau file '%s': holds a NUL byte (not a text file)", source);
        return NULL;
    }
    double *memory = calloc((size_t)BLOCK_COUNT * S_MAX * S_MAX, sizeof(double));
    if (!memory) {
        host_error("tableau file '%s': out of memory", source);
        return NULL;
    }
    for (int b = 0; b < BLOCK_COUNT; b++)
        t.values[b] = memory + (size_t)b * S_MAX * S_MAX;
    default_name(source, t.name, sizeof t.name);
    const wb_tableau *result = NULL;
    int s = 0;
    if (parse_lines(&t, text, length) == 0 && check_shapes(&t, &s) == 0) {
        /* rows of a are stored S_MAX apart: pack them s apart */
        for (int m = 0; m < 2; m++) {
            double *a = t.values[m ? BLOCK_A2 : BLOCK_A];
            for (int i = 1; i < s; i++)
                memmove(a + (size_t)i * s, a + (size_t)i * S_MAX, (size_t)s * sizeof(double));
        }
        int pair = t.given[BLOCK_A2];
        const double *b2 = t.given[BLOCK_B2] ? t.values[BLOCK_B2] : t.values[BLOCK_B];
        result = tableau_create(t.name, s, t.values[BLOCK_A], t.values[BLOCK_B],
                                t.given[BLOCK_C] ? t.values[BLOCK_C] : NULL,
                                pair ? t.values[BLOCK_A2] : NULL, pair ? b2 : NULL,
                                pair && t.given[BLOCK_C2] ? t.values[BLOCK_C2] : NULL, warning,
                                warning_size);
        if (!result)
            host_error_prefix("tableau file '%s': ", source);
    }
    free(memory);
    return result;
}

const wb_tableau *tableau_load_file(const char *path, char *warning, size_t warning_size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        host_error("tableau file '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        host_error("tableau file '%s': not a regular file", path);
        close(fd);
        return NULL;
    }
    if (st.st_size > TABLEAU_FILE_MAX_BYTES) {
        host_error("tableau file '%s': larger than %d bytes", path, TABLEAU_FILE_MAX_BYTES);
        close(fd);
        return NULL;
    }
    char *text = malloc((size_t)st.st_size + 1);
    size_t have = 0;
    while (text && have < (size_t)st.st_size) {
        ssize_t n = read(fd, text + have, (size_t)st.st_size - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
    }
    close(fd);
    if (!text) {
        host_error("tableau file '%s': out of memory", path);
        return NULL;
    }
    const wb_tableau *t = tableau_parse_text(text, have, path, warning, warning_size);
    free(text);
    return t;
}
