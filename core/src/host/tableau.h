/* Butcher tableaux: generated families, named explicit methods, tableaux
 * built from user data, and their checks.  Every tableau is immutable.
 * Built-in ones (tableau_family, tableau_named) are host-owned and live
 * until tableau_release_all(); the others (tableau_create, tableau_compose,
 * tableau files) are counted references: the caller owns the one it gets
 * and gives it back with tableau_release.  tableau_retain and
 * tableau_release take any tableau (a built-in one is not counted). */
#ifndef CORE_TABLEAU_H
#define CORE_TABLEAU_H

#include <workbench/workbench.h>

#define TABLEAU_MAX_STAGES 64

/* Generated families; s from 1 (2 for Lobatto) to TABLEAU_MAX_FAMILY_S. */
#define TABLEAU_MAX_FAMILY_S 16
const wb_tableau *tableau_family(const char *family, int s);
/* "euler", "heun", "kutta3", "rk4", "rk38", "midpoint", also "<family><s>"
 * such as "gauss3" or "lobatto_iiia_iiib2". */
const wb_tableau *tableau_named(const char *name);
/* The list of family names, NULL-terminated. */
const char *const *tableau_family_names(void);
const char *const *tableau_explicit_names(void);

/* Build from arrays (copied).  a2/b2/c2 may be NULL.  c may be NULL: then
 * the row sums of a are used.  Reports through host_error and returns NULL
 * on malformed input.  A c (c2) that differs from the row sums of a (a2) is
 * accepted with a warning naming the rows, written to `warning` (may be
 * NULL: no warning wanted). */
const wb_tableau *tableau_create(const char *name, int s, const double *a,
                                 const double *b, const double *c,
                                 const double *a2, const double *b2,
                                 const double *c2, char *warning, size_t warning_size);

/* A tableau's name kept in size bytes (names are cut at 63): cut at a
 * character boundary, never inside a UTF-8 character. */
void tableau_copy_name(char *out, size_t size, const char *name);

/* Composition of a base method: stages of `base` run with sub-steps
 * gamma[0]*h, gamma[1]*h, ... (sum gamma = 1), as one tableau. */
const wb_tableau *tableau_compose(const wb_tableau *base, int n_gamma,
                                  const double *gamma, const char *name);

/* Checks. */
int tableau_order(const wb_tableau *t, double tol);          /* up to 8   */
int tableau_pair_order(const wb_tableau *t, double tol);     /* up to 6   */
double tableau_symplecticity_defect(const wb_tableau *t);    /* max |.|   */
double tableau_symmetry_defect(const wb_tableau *t);         /* max |.|   */
/* Stability function R(z) for complex z = (re, im). */
void tableau_stability(const wb_tableau *t, double re, double im,
                       double *out_re, double *out_im);
/* Simplifying assumptions: max defect of B(p), C(q), D(r) conditions. */
double tableau_defect_B(const wb_tableau *t, int p);
double tableau_defect_C(const wb_tableau *t, int q);
double tableau_defect_D(const wb_tableau *t, int r);

/* Gauss-Legendre nodes and weights on [0, 1], n points (n <= 64). */
int gauss_legendre_01(int n, double *nodes, double *weights);

void tableau_retain(const wb_tableau *t);
void tableau_release(const wb_tableau *t);
/* User tableaux alive now (made and not yet released), for tests. */
long tableau_user_count(void);

void tableau_release_all(void);

#endif
