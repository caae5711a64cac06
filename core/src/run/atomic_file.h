/* Files that appear whole or not at all: written under a temporary name
 * in the target's folder and renamed on commit.  Every output of the
 * workbench (data, plot scripts, figures, streams) goes through here.
 *
 * A temporary name is ".<name>.<host>.tmp<pid>".  Temporary files never
 * outlive their process: a failed write, an error, an interruption or any
 * fatal signal (SIGTERM, SIGHUP, a crashing plugin's SIGSEGV, ...) removes
 * them; and a file left by a process that was killed outright (SIGKILL,
 * power loss) is removed by the next run that writes into the same folder
 * on the same host, once it sees that the process is gone.
 *
 * A failed write (a full disk, a file-size limit: SIGXFSZ is ignored, so
 * the write fails with EFBIG) is reported by atomic_check and
 * atomic_commit, and nothing is written after it: the temporary file holds
 * exactly the bytes before it, and the end of its last complete line is
 * known (atomic_commit_lines keeps those lines). */
#ifndef CORE_ATOMIC_FILE_H
#define CORE_ATOMIC_FILE_H

#include <stdio.h>

typedef struct atomic_file {
    FILE *fp;           /* writes go through to fd (fopencookie) */
    char *final_path;
    char *temp_path;
    int failed_errno;   /* the first failed write's errno */
    int fd;
    long long written;  /* bytes in the file */
    long long line_end; /* where its last complete line ends */
    long long lines;    /* its complete lines */
} atomic_file;

/* Refuses a path that cannot name a file (empty, ending in '/', "." or
 * ".."), creates missing parent folders.  0 on success, -1 with
 * host_last_error. */
int atomic_open(atomic_file *f, const char *path);
/* 0 while every write so far succeeded; -1 with host_last_error naming
 * the file and the reason (disk full, ...) after the first failure. */
int atomic_check(atomic_file *f);
/* Flush, close, rename.  0 on success. */
int atomic_commit(atomic_file *f);
/* atomic_commit for a file of lines (a stream of rows): when a write
 * failed, the complete lines before it are renamed into place (none: no
 * file is made, the target is left as it was) and -1 is returned with
 * host_last_error naming the file and the reason.  *lines: the lines the
 * target holds now (0 when it was not written). */
int atomic_commit_lines(atomic_file *f, long long *lines);
/* Close and remove the temporary file. */
void atomic_abort(atomic_file *f);

/* A temporary name next to path (caller frees), for files written by
 * another program (gnuplot's figure); register it with atomic_track_path
 * while it may exist so that a signal removes it too. */
char *atomic_temp_name(const char *path);
void atomic_track_path(const char *temp_path);
void atomic_untrack_path(const char *temp_path);
/* mkdir -p of the folder that will hold path. */
int make_parent_dirs(const char *path);

/* Remove every temporary file still open (on interruption). */
void atomic_abort_all(void);

/* Install the handlers that remove this process's temporary files on a
 * fatal signal and then let the signal take its course (the previous
 * handler, or the default action).  Signals ignored at start stay so.
 * SIGXFSZ is ignored: a write past the file-size limit (ulimit -f) fails
 * with "File too large" and is reported like a full disk. */
void atomic_install_signal_cleanup(void);
/* Run the cleanup now, from a signal handler (async-signal-safe). */
void atomic_remove_temporaries_now(void);

#endif
