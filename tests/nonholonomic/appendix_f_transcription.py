"""A literal transcription of seed 001's Lie-group scheme (Martin de Diego and
Sato Martin de Almagro, Appendix F: eqs. 24-27 of Thm 6.1 with the force
Lambda^i . D2 phi in N^i and the constraint phi(G^i, eta_c^i) = 0 on the IIIA
momenta mu^i, i = 2..s), left-trivialised as printed, on matrix groups, in
80-digit mpmath, written apart from plugins/nonholonomic.  dL tau and ddL tau
come from differentiating tau itself (central differences at 80 digits), not
from closed forms; Newton runs to residuals below 1e-30 with a difference
Jacobian.  It made the values of tests/nonholonomic/appendix_f.lua and the
numbers of the symmetry section of scripts/nonholonomic/ball.lua (issue 30).
Not run by the test suite (it needs mpmath and minutes); see main() below.
Models: Ball (section 7.5), Disc (7.4), Pendulum, Rotor, FreeRotor on SO(2)."""

import mpmath as mp
import sys
mp.mp.dps = 80

def lobatto(s):
    # Gauss-Lobatto nodes, a_ij = int_0^{c_i} l_j, b_j = int_0^1 l_j (eq. 26 needs no ah)
    if s == 2: c = [mp.mpf(0), mp.mpf(1)]
    elif s == 3: c = [mp.mpf(0), mp.mpf(1)/2, mp.mpf(1)]
    elif s == 4: c = [mp.mpf(0), (5-mp.sqrt(5))/10, (5+mp.sqrt(5))/10, mp.mpf(1)]
    def lag_int(j, x):
        # integral of l_j from 0 to x, by exact polynomial integration via quadrature (degree < s)
        f = lambda t: mp.fprod([(t - c[m])/(c[j]-c[m]) for m in range(s) if m != j])
        return mp.quad(f, [0, x]) if x != 0 else mp.mpf(0)
    a = [[lag_int(j, c[i]) for j in range(s)] for i in range(s)]
    b = [lag_int(j, 1) for j in range(s)]
    return a, b

class Group:
    """matrix group: hat(x) -> matrix, vee(M) -> list; retraction 'cay' or 'exp'"""
    def __init__(self, n, d, hat, vee, retraction):
        self.n, self.d, self.hat, self.vee, self.ret = n, d, hat, vee, retraction
    def tau(self, x):
        X = self.hat(x)
        I = mp.eye(self.n)
        if self.ret == 'cay':
            return mp.inverse(I - X/2) * (I + X/2)
        return mp.expm(X)
    def dL(self, x):
        """matrix of dL tau_x: tau(x) dL tau_x(delta) = D tau(x) delta"""
        d = self.d; eps = mp.mpf(10)**-30
        T = self.tau(x); Ti = mp.inverse(T)
        M = mp.matrix(d, d)
        for c in range(d):
            xp = list(x); xm = list(x); xp[c] += eps; xm[c] -= eps
            D = (self.tau(xp) - self.tau(xm)) / (2*eps)
            col = self.vee(Ti * D)
            for r in range(d): M[r, c] = col[r]
        return M
    def ddL_star(self, x, H, Pi):
        """v with <v, delta> = <Pi, ddL tau_x(H, delta)>, where
        d/dx (dL tau_x H) delta = dL tau_x ddL tau_x(H, delta)"""
        d = self.d; eps = mp.mpf(10)**-16
        Linv = mp.inverse(self.dL(x))
        Hm = mp.matrix(H)
        v = []
        for c in range(d):
            xp = list(x); xm = list(x); xp[c] += eps; xm[c] -= eps
            dd = (self.dL(xp) * Hm - self.dL(xm) * Hm) / (2*eps)
            w = Linv * dd
            v.append(sum(Pi[r] * w[r] for r in range(d)))
        return v
    def Ad(self, g):
        d = self.d; gi = mp.inverse(g)
        M = mp.matrix(d, d)
        for c in range(d):
            e = [mp.mpf(0)]*d; e[c] = mp.mpf(1)
            col = self.vee(g * self.hat(e) * gi)
            for r in range(d): M[r, c] = col[r]
        return M

def T(M):  # transpose
    return M.T

def vec(l): return mp.matrix([mp.mpf(v) if not isinstance(v, mp.mpf) else v for v in l])

class Scheme:
    def __init__(self, G, model, s, h):
        self.G, self.m, self.s, self.h = G, model, s, mp.mpf(h)
        self.a, self.b = lobatto(s)
    def unpack(self, x):
        d, k, s = self.G.d, self.m.k, self.s
        H = [[x[i*d + c] for c in range(d)] for i in range(s)]
        Lam = [list(self.lam0)] + [[x[s*d + (i-1)*k + a] for a in range(k)] for i in range(1, s)]
        return H, Lam
    def stages(self, x):
        G, m, s, h, a = self.G, self.m, self.s, self.h, self.a
        H, Lam = self.unpack(x)
        st = []
        for i in range(s):
            Xi = [h * sum(a[i][j] * H[j][c] for j in range(s)) for c in range(G.d)]
            Gi = self.g0 * G.tau(Xi)
            dL = G.dL(Xi)
            eta = dL * vec(H[i])
            eta = [eta[c] for c in range(G.d)]
            f = vec(m.D1l(Gi, eta)) + (T(m.D2phi(Gi, eta)) * vec(Lam[i]) if m.k else 0)
            N = T(dL) * f
            Pi = T(dL) * vec(m.D2l(Gi, eta))
            K = vec(G.ddL_star(Xi, H[i], [Pi[c] for c in range(G.d)])) if self.need_K else None
            st.append(dict(Xi=Xi, G=Gi, eta=eta, N=N, Pi=Pi, H=H[i], K=K))
        return st
    def residual(self, x):
        self.need_K = True
        G, m, s, h, a, b = self.G, self.m, self.s, self.h, self.a, self.b
        st = self.stages(x)
        xi = st[-1]['Xi']
        Ad_star_xi = T(G.Ad(G.tau(xi)))
        Linv_xi = mp.inverse(G.dL(xi))
        Linv_mxi = mp.inverse(G.dL([-v for v in xi]))
        Um = [mp.inverse(G.dL([-v for v in S['Xi']])) for S in st]  # dL tau^-1_{-Xi^j}
        r = []
        for i in range(s):
            left = st[i]['Pi'].copy()
            for j in range(s):
                cij = h * b[j] * a[j][i] / b[i]
                if cij != 0:
                    left += cij * st[j]['K']
            left = T(Linv_xi) * left
            right = vec(self.mu0)
            for j in range(s):
                right += h * b[j] * (T(Um[j]) - (a[j][i] / b[i]) * T(Linv_mxi)) * st[j]['N']
            right = Ad_star_xi * right
            r += [left[c] - right[c] for c in range(G.d)]
        # constraints, i = 2..s: phi(G^i, eta_c^i), D2 l(G^i, eta_c^i) = mu^i (IIIA momenta)
        for i in (range(1, s) if m.k else []):
            y = vec(self.mu0)
            for j in range(s):
                if a[i][j] != 0:
                    y += h * a[i][j] * T(Um[j]) * st[j]['N']
            mui = T(G.Ad(G.tau(st[i]['Xi']))) * y
            etac = m.vel(st[i]['G'], [mui[c] for c in range(G.d)])
            r += [v / h for v in m.phi(st[i]['G'], etac)]
        return r, st
    def outputs(self, x):
        self.need_K = False
        G, s, h, b = self.G, self.s, self.h, self.b
        st = self.stages(x)
        xi = st[-1]['Xi']
        y = vec(self.mu0)
        for j in range(s):
            y += h * b[j] * T(mp.inverse(G.dL([-v for v in st[j]['Xi']]))) * st[j]['N']
        mu1 = T(G.Ad(G.tau(xi))) * y
        g1 = self.g0 * G.tau(xi)
        H, Lam = self.unpack(x)
        return g1, [mu1[c] for c in range(G.d)], Lam[-1]
    def step(self, g0, mu0, lam0, tol=mp.mpf(10)**-30):
        self.g0, self.mu0, self.lam0 = g0, [mp.mpf(v) for v in mu0], [mp.mpf(v) for v in lam0]
        d, k, s = self.G.d, self.m.k, self.s
        v0 = self.m.vel(g0, self.mu0)
        x = [v0[c] for i in range(s) for c in range(d)] + [self.lam0[a] for i in range(1, s) for a in range(k)]
        x = [mp.mpf(v) for v in x]
        n = len(x)
        for it in range(40):
            r, _ = self.residual(x)
            rn = max(abs(v) for v in r)
            if rn < tol: break
            J = mp.matrix(n, n); eps = mp.mpf(10)**-25
            for c in range(n):
                xp = list(x); xp[c] += eps
                rp, _ = self.residual(xp)
                for q in range(n): J[q, c] = (rp[q] - r[q]) / eps
            dx = mp.lu_solve(J, mp.matrix(r))
            x = [x[c] - dx[c] for c in range(n)]
        else:
            raise RuntimeError("no convergence %s" % rn)
        return self.outputs(x)

# ---------------- groups ----------------
def hat3(w):
    return mp.matrix([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
def vee3(M):
    return [M[2, 1], M[0, 2], M[1, 0]]

def ball_group(ret):
    def hat(x):
        M = mp.matrix(6, 6)
        W = hat3(x[0:3])
        for r in range(3):
            for c in range(3): M[r, c] = W[r, c]
        M[3, 5] = x[3]; M[4, 5] = x[4]
        return M
    def vee(M):
        return [M[2, 1], M[0, 2], M[1, 0], M[3, 5], M[4, 5]]
    return Group(6, 5, hat, vee, ret)

def se2_group(ret):
    def hat(x):  # (w, v1, v2)
        return mp.matrix([[0, -x[0], x[1]], [x[0], 0, x[2]], [0, 0, 0]])
    def vee(M):
        return [M[1, 0], M[0, 2], M[1, 2]]
    return Group(3, 3, hat, vee, ret)

def so2_group(ret):
    def hat(x):
        return mp.matrix([[0, -x[0]], [x[0], 0]])
    def vee(M):
        return [M[1, 0]]
    return Group(2, 1, hat, vee, ret)

def so3_group(ret):
    return Group(3, 3, hat3, vee3, ret)

class Ball:
    """the paper's section 7.5 formulas read in the left trivialisation"""
    k = 2
    def __init__(self, r=1, a='0.4', Om=1):
        self.r, self.a, self.Om = mp.mpf(r), mp.mpf(a), mp.mpf(Om)
    def inertia(self):
        return [self.a*self.r**2]*3 + [mp.mpf(1)]*2
    def D1l(self, g, eta): return [mp.mpf(0)]*5
    def D2l(self, g, eta): return [self.inertia()[c]*eta[c] for c in range(5)]
    def vel(self, g, mu): return [mu[c]/self.inertia()[c] for c in range(5)]
    def phi(self, g, eta):
        x, y = g[3, 5], g[4, 5]
        return [eta[3] + self.Om*y - self.r*eta[1], eta[4] - self.Om*x + self.r*eta[0]]
    def D2phi(self, g, eta):
        return mp.matrix([[0, -self.r, 0, 1, 0], [self.r, 0, 0, 0, 1]])

class Disc:
    """section 7.4: l = (m|v|^2 + Iz w^2)/2 - |t|^2/2, phi = v2, L*D1 l = (0, -R^T t)"""
    k = 1
    def __init__(self, m=1, Iz='0.5'):
        self.mm, self.Iz = mp.mpf(m), mp.mpf(Iz)
    def D1l(self, g, eta):
        t = [g[0, 2], g[1, 2]]
        y = [g[0, 0]*t[0] + g[1, 0]*t[1], g[0, 1]*t[0] + g[1, 1]*t[1]]
        return [mp.mpf(0), -y[0], -y[1]]
    def D2l(self, g, eta): return [self.Iz*eta[0], self.mm*eta[1], self.mm*eta[2]]
    def vel(self, g, mu): return [mu[0]/self.Iz, mu[1]/self.mm, mu[2]/self.mm]
    def phi(self, g, eta): return [eta[2]]
    def D2phi(self, g, eta): return mp.matrix([[0, 0, 1]])

class Pendulum:
    """SO(2): l = w^2/2 + cos(theta), unconstrained"""
    k = 0
    def D1l(self, g, eta):  # d/de l(g exp(e), w) = -sin(theta)
        return [-g[1, 0]]
    def D2l(self, g, eta): return [eta[0]]
    def vel(self, g, mu): return [mu[0]]

class Rotor:
    """SO(2) with a position-dependent inertia: l = (1 + cos(theta)^2/2) w^2/2 + cos(theta)"""
    k = 0
    def m(self, g): return 1 + g[0, 0]**2/2
    def D1l(self, g, eta):  # d/dtheta: -cos sin w^2/2 - sin
        c, s = g[0, 0], g[1, 0]
        return [-c*s*eta[0]**2/2 - s]
    def D2l(self, g, eta): return [self.m(g)*eta[0]]
    def vel(self, g, mu): return [mu[0]/self.m(g)]

def rot(theta):
    return mp.matrix([[mp.cos(theta), -mp.sin(theta)], [mp.sin(theta), mp.cos(theta)]])

class FreeRotor:
    k = 0
    def D1l(self, g, eta): return [mp.mpf(0)]
    def D2l(self, g, eta): return [eta[0]]
    def vel(self, g, mu): return [mu[0]]


# ---------------- the values of tests/nonholonomic/appendix_f.lua ----------------
def inverted_ball_state(q):
    """the workbench's ball state (R row-major, x, y) -> the paper's, g -> g^-1"""
    g = mp.eye(6)
    for r in range(3):
        for c in range(3): g[r, c] = q[3*c + r]
    g[3, 5] = -q[9]; g[4, 5] = -q[10]
    return g

def main():
    """python3 appendix_f_transcription.py disc|ball cay|exp 'q0...' 'p0...' 'nu0...'
    with the model's initial state and consistent multiplier as the workbench
    prints them (%.17g); prints q1, p1, nu1 after one step of h = 0.2, s = 3, in
    the workbench's coordinates, and the distance from the start after the step
    back.  A step takes 10 s (disc, cay) to several minutes (ball; exp)."""
    which, ret = sys.argv[1], sys.argv[2]
    q0, p0, nu0 = [[mp.mpf(v) for v in a.split()] for a in sys.argv[3:6]]
    h, s = '0.2', 3
    if which == 'ball':   # the inversion flips phi's sign: Lambda = +nu
        G, m, g0, mu0, lam0 = ball_group(ret), Ball(), inverted_ball_state(q0), [-v for v in p0], nu0
    else:                 # vertical_disc is SE(2)^op: the paper's scheme as it is; Lambda = -nu
        G, m, mu0, lam0 = se2_group(ret), Disc(), p0, [-v for v in nu0]
        g0 = mp.matrix([[q0[0], q0[1], q0[4]], [q0[2], q0[3], q0[5]], [0, 0, 1]])
    g1, mu1, l1 = Scheme(G, m, s, h).step(g0, mu0, lam0)
    g2, mu2, _ = Scheme(G, m, s, '-' + h).step(g1, mu1, l1)
    if which == 'ball':
        q1 = [g1[c, r] for r in range(3) for c in range(3)] + [-g1[3, 5], -g1[4, 5]]
        p1, nu1 = [-v for v in mu1], l1
    else:
        q1 = [g1[0, 0], g1[0, 1], g1[1, 0], g1[1, 1], g1[0, 2], g1[1, 2]]
        p1, nu1 = mu1, [-v for v in l1]
    gap = max([abs(g2[r, c] - g0[r, c]) for r in range(g0.rows) for c in range(g0.cols)] +
              [abs(mu2[c] - mu0[c]) for c in range(G.d)])
    for name, v in (('q1', q1), ('p1', p1), ('nu1', nu1)):
        print('%s = {%s}' % (name, ', '.join(mp.nstr(x, 20) for x in v)))
    print('gap = %s' % mp.nstr(gap, 6))

if __name__ == '__main__':
    main()
