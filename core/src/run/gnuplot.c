/* Strings into gnuplot scripts, and running gnuplot. */
#include "run/gnuplot.h"
#include "host/host.h"
#include "run/atomic_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Digits are escaped too: gnuplot reads "\0551" as one escape (a leading
 * 0 and three more digits), so no digit may follow an escape. */
static int plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ' ';
}

char *gnuplot_literal(const char *s, size_t len, gnuplot_literal_kind kind)
{
    if (len > ((size_t)-1 - 3) / 4) {
        host_error("gnuplot: a string of %zu bytes is too long", len);
        return NULL;
    }
    char *out = malloc(4 * len + 3), *o = out;
    if (!out) {
        host_error("gnuplot: out of memory");
        return NULL;
    }
    *o++ = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (kind == GNUPLOT_PATH && c == '\0') {
            free(out);
            host_error("gnuplot: a file name holds a NUL byte");
            return NULL;
        }
        if (kind == GNUPLOT_TEXT && (c < 0x20 || c == 0x7f))
            c = ' '; /* a title is one line; a NUL would end gnuplot's string */
        if (plain(c)) {
            *o++ = (char)c;
        } else {
            *o++ = '\\';
            *o++ = (char)('0' + (c >> 6));
            *o++ = (char)('0' + ((c >> 3) & 7));
            *o++ = (char)('0' + (c & 7));
        }
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

int gnuplot_run(const char *script, const char *figure)
{
    char *temp = atomic_temp_name(figure);
    if (!temp) {
        host_error("gnuplot: out of memory");
        return -1;
    }
    if (make_parent_dirs(figure) != 0) {
        free(temp);
        return -1;
    }
    char *literal = gnuplot_literal(temp, strlen(temp), GNUPLOT_PATH);
    char *assignment = literal ? malloc(strlen(literal) + 16) : NULL;
    if (!assignment) {
        free(literal);
        free(temp);
        if (!host_has_error())
            host_error("gnuplot: out of memory");
        return -1;
    }
    sprintf(assignment, "outfile=%s", literal);
    free(literal);
    atomic_track_path(temp);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", "-e", assignment, script, (char *)NULL);
        _exit(errno == ENOENT ? 127 : 126);
    }
    free(assignment);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        atomic_untrack_path(temp);
        free(temp);
        host_error("cannot start gnuplot");
        return -1;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    int result = 0;
    if (code != 0 || rename(temp, figure) != 0) {
        remove(temp);
        result = code == 127 ? 1 : -1;
        if (code == 0)
            host_error("cannot rename the figure to '%s': %s", figure, strerror(errno));
        else if (code != 127)
            host_error("gnuplot failed (exit status %d) on '%s'", code, script);
    }
    atomic_untrack_path(temp);
    free(temp);
    return result;
}
