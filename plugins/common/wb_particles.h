/* Momentum maps of n points in R^3 (q and p hold 3 numbers per point),
 * shared by the models whose symmetries are rigid translations and
 * rotations of all points at once.  Header-only: models link against
 * nothing but libm.  The generators are the ones the host checks a
 * momentum map against: J(q, p) = p . xi(q). */
#ifndef WB_PARTICLES_H
#define WB_PARTICLES_H

/* P = sum_i p_i */
static inline void particles_linear_momentum(int n, const double *p, double P[3])
{
    P[0] = P[1] = P[2] = 0.0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            P[c] += p[3 * i + c];
}

/* L = sum_i q_i x p_i */
static inline void particles_angular_momentum(int n, const double *q, const double *p,
                                              double L[3])
{
    L[0] = L[1] = L[2] = 0.0;
    for (int i = 0; i < n; i++) {
        const double *x = q + 3 * i, *y = p + 3 * i;
        L[0] += x[1] * y[2] - x[2] * y[1];
        L[1] += x[2] * y[0] - x[0] * y[2];
        L[2] += x[0] * y[1] - x[1] * y[0];
    }
}

/* Translation along e_axis (axis 0, 1, 2): xi_i = e_axis, the generator of P_axis. */
static inline void particles_translation_generator(int n, int axis, double *xi)
{
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            xi[3 * i + c] = c == axis;
}

/* Rotation about e_axis (axis 0, 1, 2): xi_i = e_axis x q_i, the generator of L_axis. */
static inline void particles_rotation_generator(int n, int axis, const double *q, double *xi)
{
    const int a = (axis + 1) % 3, b = (axis + 2) % 3;
    for (int i = 0; i < n; i++) {
        const double *x = q + 3 * i;
        double *e = xi + 3 * i;
        e[axis] = 0.0;
        e[a] = -x[b];
        e[b] = x[a];
    }
}

#endif
