/* Files that appear whole or not at all: written under a temporary name
 * in the target's folder and renamed on commit.  Every output of the
 * workbench (data, plot scripts, figures, streams) goes through here. */
#ifndef CORE_ATOMIC_FILE_H
#define CORE_ATOMIC_FILE_H

#include <stdio.h>

typedef struct atomic_file {
    FILE *fp;
    char *final_path;
    char *temp_path;
} atomic_file;

/* Creates missing parent folders.  0 on success, -1 with host_last_error. */
int atomic_open(atomic_file *f, const char *path);
/* Flush, close, rename.  0 on success. */
int atomic_commit(atomic_file *f);
/* Close and remove the temporary file. */
void atomic_abort(atomic_file *f);

/* A temporary name next to path (caller frees), for files written by
 * another program (gnuplot's figure). */
char *atomic_temp_name(const char *path);
/* mkdir -p of the folder that will hold path. */
int make_parent_dirs(const char *path);

/* Remove every temporary file still open (on interruption). */
void atomic_abort_all(void);

#endif
