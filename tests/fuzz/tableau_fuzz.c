/* Mutation fuzzer of the tableau-file parser (host/tableau_file.c), run by
 * the suite for a fixed time budget:
 *
 *   tableau_fuzz SECONDS SEED RESCUE_DIR [CORPUS_DIR]
 *
 * Every file of CORPUS_DIR (the regression inputs) is parsed first; then
 * mutants of valid tableau files (byte flips, inserted tokens of the
 * grammar, deleted and duplicated spans, spliced lines, truncation) and
 * random expressions whose value is known.  An accepted tableau must hold
 * finite numbers only and at most 64 stages; a refused one a message; a
 * generated expression must evaluate exactly to its value or be refused
 * for the reason it carries (division by zero, not finite).  The input a
 * crash happens on is written to RESCUE_DIR/crash-<seed>.tab. */
#include "fuzz_common.h"
#include "host/host.h"
#include "host/tableau.h"
#include "host/tableau_file.h"

#include <dirent.h>
#include <math.h>

static const char *const seeds[] = {
    "# Gauss 2\nname fz_gauss2\na\n  1/4             1/4-sqrt(3)/6\n  1/4+sqrt(3)/6   1/4\n"
    "b\n  1/2 1/2\nc\n  1/2-sqrt(3)/6 1/2+sqrt(3)/6\n",
    "a\n 0 0 0 0\n 1/2 0 0 0\n 0 1/2 0 0\n 0 0 1 0\nb\n 1/6 1/3 1/3 1/6\n",
    "name fz_pair\na\n 0 0\n 1/2 1/2\nb\n 1/2 1/2\na2\n 1/2 0\n 1/2 0\nb2\n 1/2 1/2\n",
    "a\n 2^-1\nb\n 1\nc\n 0.5e0\n",
    "a\n (1+sqrt(5))/(2*pi) -exp(-1)\n log(2)*sin(pi/6) cos(0)^2\nb\n 1/2 1/2\n",
};

static const char *const tokens[] = {
    "sqrt(", "exp(", "log(", "sin(", "cos(", "pi", "(", ")", "^", "e", "E", "-", "+", "/",
    "*", ".", "1e308", "1e-308", "0", "1", "9", "#", "\n", " ", "\t", "\r", "name ", "a\n",
    "b\n", "c\n", "a2\n", "b2\n", "c2\n", "0x", "nan", "inf", "9999999999999999999999",
    "((((((((((", "))))))))))", "\0", "\xff", "1/0", "-(-(-(", "2^2^2^2^2"};

static int tried, accepted, refused, wrong;

/* One accepted tableau's defects: a stage count out of range, a non-finite
 * entry. */
static int accepted_defects(const wb_tableau *t)
{
    int s = t->s, pair = t->a2 != NULL, defects = 0;
    if (s < 1 || s > TABLEAU_MAX_STAGES) {
        fprintf(stderr, "accepted a tableau of %d stages\n", s);
        return 1;
    }
    for (int i = 0; i < s * s; i++)
        defects += !isfinite(t->a[i]) || (pair && !isfinite(t->a2[i]));
    for (int i = 0; i < s; i++)
        defects += !isfinite(t->b[i]) || !isfinite(t->c[i]);
    return defects;
}

static void check_one(const unsigned char *data, size_t size)
{
    char warning[512];
    fuzz_trying(data, size);
    tried++;
    host_clear_error();
    const wb_tableau *t = tableau_parse_text((const char *)data, size, "fuzz", warning,
                                             sizeof warning);
    if (!t) {
        if (host_has_error() && strstr(host_last_error(), "tableau")) {
            refused++;
            return;
        }
        wrong++;
        fprintf(stderr, "refused without a tableau message: %s\n", host_last_error());
        return;
    }
    if (accepted_defects(t) > 0) { /* a wrong file counts once */
        wrong++;
        tableau_release(t);
        return;
    }
    accepted++;
    double re, im;
    tableau_stability(t, -1.0, 0.5, &re, &im);
    (void)tableau_defect_B(t, 3), (void)tableau_defect_C(t, 3), (void)tableau_defect_D(t, 3);
    tableau_release(t);
}

static size_t mutate(fuzz_rng *r, unsigned char *buf, size_t size, size_t cap)
{
    int rounds = 1 + (int)fuzz_below(r, 6);
    for (int k = 0; k < rounds; k++) {
        switch (fuzz_below(r, 6)) {
        case 0: /* flip a byte */
            if (size)
                buf[fuzz_below(r, size)] ^= (unsigned char)(1u << fuzz_below(r, 8));
            break;
        case 1: { /* insert a token */
            const char *tok = tokens[fuzz_below(r, sizeof tokens / sizeof tokens[0])];
            size_t n = strlen(tok) ? strlen(tok) : 1, at = fuzz_below(r, size + 1);
            if (size + n > cap)
                break;
            memmove(buf + at + n, buf + at, size - at);
            memcpy(buf + at, tok, n);
            size += n;
            break;
        }
        case 2: { /* delete a span */
            if (!size)
                break;
            size_t at = fuzz_below(r, size), n = 1 + fuzz_below(r, 16);
            if (n > size - at)
                n = size - at;
            memmove(buf + at, buf + at + n, size - at - n);
            size -= n;
            break;
        }
        case 3: { /* duplicate a span */
            if (!size)
                break;
            size_t at = fuzz_below(r, size), n = 1 + fuzz_below(r, 64);
            if (n > size - at)
                n = size - at;
            if (size + n > cap)
                break;
            memmove(buf + at + n, buf + at, size - at);
            size += n;
            break;
        }
        case 4: { /* splice in a line of another seed */
            const char *other = seeds[fuzz_below(r, sizeof seeds / sizeof seeds[0])];
            size_t len = strlen(other), from = fuzz_below(r, len), n = 1 + fuzz_below(r, 40);
            if (n > len - from)
                n = len - from;
            size_t at = fuzz_below(r, size + 1);
            if (size + n > cap)
                break;
            memmove(buf + at + n, buf + at, size - at);
            memcpy(buf + at, other + from, n);
            size += n;
            break;
        }
        case 5: /* truncate */
            size = fuzz_below(r, size + 1);
            break;
        }
    }
    return size;
}

/* A random expression with its value computed alongside, fully
 * parenthesised.  *why: 0 fine, 1 division by zero, 2 not finite. */
static int gen_expression(fuzz_rng *r, int depth, char *out, size_t cap, size_t *len, double *v,
                          int *why)
{
    static const double leaves[] = {0, 1, 2, 3, 0.5, 0.25, 10, 1e-3, 7.5e2};
    static const char *const leaf_text[] = {"0", "1", "2", "3", "0.5", ".25", "10", "1e-3",
                                            "7.5E2"};
    if (*len + 64 > cap)
        return -1;
    size_t choice = depth > 5 ? 0 : fuzz_below(r, 5);
    if (choice <= 1) {
        size_t k = fuzz_below(r, sizeof leaves / sizeof leaves[0] + 1);
        if (k == sizeof leaves / sizeof leaves[0]) {
            *len += (size_t)snprintf(out + *len, cap - *len, "pi");
            *v = M_PI;
        } else {
            *len += (size_t)snprintf(out + *len, cap - *len, "%s", leaf_text[k]);
            *v = leaves[k];
        }
        return 0;
    }
    if (choice == 2) {
        static const char *const names[] = {"sqrt", "exp", "log", "sin", "cos"};
        static double (*const fns[])(double) = {sqrt, exp, log, sin, cos};
        size_t k = fuzz_below(r, 5);
        double x;
        *len += (size_t)snprintf(out + *len, cap - *len, "%s(", names[k]);
        if (gen_expression(r, depth + 1, out, cap, len, &x, why) != 0)
            return -1;
        *len += (size_t)snprintf(out + *len, cap - *len, ")");
        *v = fns[k](x);
        if (!*why && !isfinite(*v))
            *why = 2;
        return 0;
    }
    if (choice == 3) {
        double x;
        *len += (size_t)snprintf(out + *len, cap - *len, "-(");
        if (gen_expression(r, depth + 1, out, cap, len, &x, why) != 0)
            return -1;
        *len += (size_t)snprintf(out + *len, cap - *len, ")");
        *v = -x;
        return 0;
    }
    static const char ops[] = "+-*/^";
    char op = ops[fuzz_below(r, 5)];
    double x, y;
    *len += (size_t)snprintf(out + *len, cap - *len, "(");
    if (gen_expression(r, depth + 1, out, cap, len, &x, why) != 0)
        return -1;
    *len += (size_t)snprintf(out + *len, cap - *len, ")%c(", op);
    if (gen_expression(r, depth + 1, out, cap, len, &y, why) != 0)
        return -1;
    *len += (size_t)snprintf(out + *len, cap - *len, ")");
    switch (op) {
    case '+': *v = x + y; break;
    case '-': *v = x - y; break;
    case '*': *v = x * y; break;
    case '/':
        if (!*why && y == 0.0)
            *why = 1;
        *v = x / y;
        break;
    default: *v = pow(x, y);
    }
    if (!*why && !isfinite(*v))
        *why = 2;
    return 0;
}

static int expressions, expressions_wrong, expressions_exact, expressions_refused;

static void check_expression(fuzz_rng *r)
{
    char text[4096];
    size_t len = 0;
    double expected;
    int why = 0;
    if (gen_expression(r, 0, text, sizeof text, &len, &expected, &why) != 0)
        return;
    expressions++;
    fuzz_trying(text, len);
    double got;
    char reason[160];
    int status = tableau_expression(text, len, &got, reason, sizeof reason);
    int too_long = len > TABLEAU_FILE_MAX_EXPRESSION;
    int ok = too_long ? status != 0 && strstr(reason, "longer than")
             : why == 1 ? status != 0 && (strstr(reason, "division by zero") ||
                                          strstr(reason, "not finite") ||
                                          strstr(reason, "nested too deeply"))
             : why == 2 ? status != 0
                        : (status == 0 && (got == expected || (isnan(got) && isnan(expected)))) ||
                              (status != 0 && strstr(reason, "nested too deeply"));
    if (ok && status == 0)
        expressions_exact++;
    else if (ok)
        expressions_refused++;
    if (!ok) {
        expressions_wrong++;
        if (expressions_wrong <= 5)
            fprintf(stderr, "expression %.*s: expected %.17g (why %d), got %s %.17g\n",
                    (int)len, text, expected, why, status ? reason : "", got);
    }
}

/* The corpus files tried. */
static int replay_corpus(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        static unsigned char buf[1 << 21];
        size_t size = fread(buf, 1, sizeof buf, f);
        fclose(f);
        check_one(buf, size);
        n++;
    }
    closedir(d);
    printf("corpus: %d regression inputs replayed\n", n);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: tableau_fuzz SECONDS SEED RESCUE_DIR [CORPUS_DIR]\n");
        return 2;
    }
    double budget = atof(argv[1]);
    fuzz_rng r = {strtoull(argv[2], NULL, 10) * 2654435761u + 1};
    char rescue[4096];
    snprintf(rescue, sizeof rescue, "%s/crash-%s.tab", argv[3], argv[2]);
    fuzz_install_rescue(rescue);
    int replayed = argc > 4 ? replay_corpus(argv[4]) : 0;
    static unsigned char buf[1 << 16];
    double start = fuzz_seconds();
    long files = 0;
    while (fuzz_seconds() - start < budget) {
        for (int k = 0; k < 64; k++, files++) {
            const char *seed = seeds[fuzz_below(&r, sizeof seeds / sizeof seeds[0])];
            size_t size = strlen(seed);
            memcpy(buf, seed, size);
            size = mutate(&r, buf, size, sizeof buf);
            check_one(buf, size);
            check_expression(&r);
        }
    }
    printf("tableau files: %d tried (%d from the corpus, %ld mutants), %d accepted, %d refused "
           "cleanly, %d wrong\n", tried, replayed, files, accepted, refused, wrong);
    printf("expressions: %d generated, %d evaluated to their value bit for bit, %d refused "
           "for their reason (division by zero, not finite, too deep or long), %d wrong\n",
           expressions, expressions_exact, expressions_refused, expressions_wrong);
    printf("crashes: 0 (seed %s, %.1f s)\n", argv[2], fuzz_seconds() - start);
    tableau_release_all();
    /* every file tried was accepted, refused cleanly or wrong, once; every
     * expression evaluated, refused or wrong */
    int counts_add_up = tried == replayed + files && accepted + refused + wrong == tried &&
                        expressions_exact + expressions_refused + expressions_wrong == expressions;
    if (!counts_add_up)
        fprintf(stderr, "tableau_fuzz: the counts do not add up\n");
    return wrong || expressions_wrong || !counts_add_up ? 1 : 0;
}
