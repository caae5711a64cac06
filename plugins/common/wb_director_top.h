/* An in-tree model extension: a rigid body with a fixed point, in director
 * coordinates (Betsch-Leyendecker), as the heavy top of Kinon-Betsch-
 * Schneider.  A model that answers this id promises the layout below; the
 * methods that need it (ggl.bs99) read the inertia, the weight and the tip
 * distance from the mechanical and holonomic extensions and check them.
 *
 *   q: the centre of mass phi and the orthonormal directors d1, d2, d3 (3
 *      values each, at the offsets given), M = blockdiag(m I3, E1 I3,
 *      E2 I3, E3 I3), E_i = (I_j + I_k - I_i)/2, V = m g phi_3 (+ const);
 *   constraints: the orthonormality of the directors, and the three rows
 *      tip .. tip + 2 equal to phi / l - d3 (the tip fixed at the origin).
 *
 * Not part of the installed ABI headers: the id is stable, the struct only
 * grows (struct_size first). */
#ifndef WB_DIRECTOR_TOP_H
#define WB_DIRECTOR_TOP_H

#include <stdint.h>

#define WB_EXT_DIRECTOR_TOP "wb.director_top/1"

typedef struct wb_director_top_ext {
    uint32_t struct_size;
    int phi;         /* offset of phi in q                                   */
    int director[3]; /* offsets of d1, d2, d3 in q                           */
    int tip;         /* first of the three constraints phi / l - d3 = 0      */
} wb_director_top_ext;

#endif
