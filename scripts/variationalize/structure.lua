-- Structure of the converted methods (claims 3-10 of the digest's section
-- 5, Tables D and E of its prototype):
--
--  1. symplecticity: the junction map (qbar, mu) -> (qbar', mu') on T*Q has
--     Psi^T J Psi = J (unconstrained: P3 pendulum_oscillator, mexican_hat)
--     and preserves the canonical 2-form restricted to T*Q on tangent
--     variations (constrained: P1), to 1e-10; RK4 on (q, p) and RK4 with a
--     projection onto TQ visibly do not.  The map of the nodes' (q, M v) is
--     conjugate to it, not canonical (Euler (-1/2, 1/2) is the trapezoidal
--     rule): measured too, and why `symplectic` is not claimed;
--  2. the discrete momentum J = mu . xi(qbar) is conserved to round-off
--     over long runs (P1, P2, mexican_hat), the continuous one is not;
--  3. a step with h then one with -h and the mirrored bias (-a+, -a-)
--     return the start to round-off; (0, 1) twice does not (Table E);
--  4. Euler with bias (0, 1) is symplectic Euler, with (-1/2, 1/2) the
--     trapezoidal rule in (q, v) (P3);
--  5. the paper's iteration on Stage 4 (corrected approximates) and Newton
--     on the reduced equations give the same step (1e-13); its first-step
--     iteration counts beside Table D, within 0.5 .. 1.5 times the
--     prototype's (27/36, 20/22, 23/27, 17/19, 27/30, 19/20), and its
--     contraction per iteration in the prototype's "roughly 0.2-0.4"
--     (checked in 0.15 .. 0.45; measured 0.35, 0.22, 0.29, 0.18, 0.31,
--     0.21); the printed S4.6a' diverges;
--  6. mu recomputed from w_{k+1} by the start-up solve equals the carried
--     lambda+ (1e-14);
--  7. the layer's derivatives from the variational equations agree with
--     central differences (the test oracle), explicit and implicit layers;
--     either projection (W = I or M^-1) converts to the layer's order.
--
-- Differences from the prototype: Table D's counts depend on the first
-- guess and the stopping test; ours (guess: the layer's step for w2, the
-- carried mu, lambda- = -mu; stop at max |residual| <= 1e-14, then the
-- update below it) are printed beside its own.
-- What Table D can tell apart: the kind of iteration.  A Newton-type
-- solver in the paper's iteration's place takes 3 to 5 iterations (0.14 ..
-- 0.21 of the prototype's count) and fails the count (checked, as a
-- control); the old bound, at most 1.5 times the prototype's, passed it.
-- What it cannot: the stopping test (tol 1e-11 instead of 1e-14: 0.64 ..
-- 0.80 of the prototype's counts, the same contraction) and the printed
-- S4.7a' (h alpha+ v2 for h alpha- v2, with S4.6a' corrected: measured by
-- editing the plugin, 36/23, 32/22, 33/22 iterations, 1.0 .. 1.19 times the
-- prototype's, contraction 0.26 .. 0.43), which changes the chord matrix
-- only, not the step: it fits the prototype's counts as well as the
-- corrected one (better at (0, 1)), so the S4.7a' correction rests on the
-- digest's derivation (d-(w2) ~ q2 + h alpha- v2), not on Table D.
--
--   workbench scripts/variationalize/structure.lua [--quick]
--     --quick: the long momentum runs shortened (P1 to T = 250 instead of
--     1000, P2 to T = 20 instead of 100).
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "vi_common"
local format, abs = string.format, math.abs

local p1, p2, p3, hat = common.p1(), common.p2(), common.p3(), common.hat()

---------------------------------------------------------------------------
-- 1. Symplecticity of (qbar, mu) -> (qbar', mu')
---------------------------------------------------------------------------

-- A state of the method a few steps into the run: (q, p) and its carried
-- unknowns.
local function state_after(problem, method, h, steps)
  local sol = wb.integrate{model = problem.model, method = method, h = h, steps = steps,
                           q0 = problem.q0, p0 = problem.p0}
  local q, p, aux = sol:final()
  return {q = q, p = p, aux = aux}
end

-- One step of the map from (qbar, mu) = y (2n values); the node (q, p) of
-- `at` only seeds Newton's guess.
local function junction_map(problem, method, h, at, y)
  local n = #at.q
  local aux = {}
  for k, v in pairs(at.aux) do aux[k] = v end
  aux.qbar = {table.unpack(y, 1, n)}
  aux.mu = {table.unpack(y, n + 1, 2 * n)}
  aux.mu_prev = aux.mu
  local sol = wb.integrate{model = problem.model, method = method, h = h, steps = 1,
                           q0 = at.q, p0 = at.p, aux0 = aux}
  local _, _, out = sol:final()
  return wb.concat(out.qbar, out.mu)
end

-- d/de F(curve(e)) at 0: central differences extrapolated to O(d^4)
local function derivative(F, curve, d)
  local function central(step)
    return wb.map(wb.sub(F(curve(step)), F(curve(-step))), function(x) return x / (2 * step) end)
  end
  local coarse, fine = central(d), central(d / 2)
  local out = {}
  for i = 1, #fine do out[i] = (4 * fine[i] - coarse[i]) / 3 end
  return out
end

-- max |Psi^T J Psi - J| for the map F at y (2n values)
local function symplectic_defect(F, y)
  local m = #y
  local n = m // 2
  local psi = {}
  for j = 1, m do
    local column = derivative(F, function(e)
      local z = {table.unpack(y)}
      z[j] = z[j] + e
      return z
    end, 2e-4)
    for i = 1, m do
      psi[i] = psi[i] or {}
      psi[i][j] = column[i]
    end
  end
  local function J(i, j)
    if i <= n and j == i + n then return 1 end
    if i > n and j == i - n then return -1 end
    return 0
  end
  local worst = 0
  for i = 1, m do
    for j = 1, m do
      local s = 0
      for k = 1, m do
        for l = 1, m do
          local Jkl = J(k, l)
          if Jkl ~= 0 then s = s + psi[k][i] * Jkl * psi[l][j] end
        end
      end
      worst = wb.max(worst, abs(s - J(i, j)))
    end
  end
  return worst
end

wb.printf("1. symplecticity of the junction map (qbar, mu) -> (qbar', mu')\n")
local rows = {}
for _, case in ipairs{{p3, "rk4", -0.3, 0.2}, {p3, "euler", 0, 0.2}, {p3, "kutta3", -0.5, 0.2},
                      {p3, "gauss2", 0, 0.2}, {hat, "rk4", -0.3, 0.2}} do
  local problem, layer, am, h = table.unpack(case)
  local method = common.vi(layer, am)
  local at = state_after(problem, method, h, 1)
  local y = wb.concat(at.aux.qbar, at.aux.mu)
  local defect = symplectic_defect(function(z) return junction_map(problem, method, h, at, z) end, y)
  rows[#rows + 1] = {problem.name, layer .. " " .. common.bias_label(am), h, defect}
  wb.expect_below(defect, 1e-10, format("%s, %s %s, h = %g: Psi^T J Psi = J", problem.name,
                                       layer, common.bias_label(am), h))
end
-- The node map (q, p) -> (q', p'), p = M v, is conjugate to the junction
-- map, not canonical itself: the method does not claim `symplectic` in the
-- workbench's sense.  Euler with (0, 1) is symplectic Euler, canonical in
-- (q, p) as well; with (-1/2, 1/2) it is the trapezoidal rule, which is not.
local function node_map(problem, method, h)
  return function(z)
    local n = #z // 2
    local sol = wb.integrate{model = problem.model, method = method, h = h, steps = 1,
                             q0 = {table.unpack(z, 1, n)}, p0 = {table.unpack(z, n + 1, 2 * n)}}
    return wb.concat(sol:final())
  end
end
do
  local y = wb.concat(p3.q0, p3.p0)
  local euler01 = symplectic_defect(node_map(p3, common.vi("euler", 0), 0.2), y)
  local trapezoid = symplectic_defect(node_map(p3, common.vi("euler", -0.5), 0.2), y)
  local rk4 = symplectic_defect(node_map(p3, common.vi("rk4", -0.3), 0.2), y)
  rows[#rows + 1] = {p3.name, "node map, euler (0, 1)", 0.2, euler01}
  rows[#rows + 1] = {p3.name, "node map, euler (-0.5, 0.5)", 0.2, trapezoid}
  rows[#rows + 1] = {p3.name, "node map, rk4 (-0.3, 0.7)", 0.2, rk4}
  wb.expect_below(euler01, 1e-10, "the node map of Euler (0, 1), symplectic Euler, is canonical")
  wb.check(trapezoid > 1e-6, "the node map of Euler (-1/2, 1/2), the trapezoidal rule, is not",
           format("%.2e", trapezoid))
end
-- the control: RK4 itself on (q, p), at the prototype's h = 0.5
do
  local rk4 = wb.method("rk", {tableau = "rk4"})
  local function F(z)
    local sol = wb.integrate{model = p3.model, method = rk4, h = 0.5, steps = 1,
                             q0 = {z[1], z[2]}, p0 = {z[3], z[4]}}
    return wb.concat(sol:final())
  end
  local defect = symplectic_defect(F, wb.concat(p3.q0, p3.p0))
  rows[#rows + 1] = {p3.name, "rk rk4 on (q, p)", 0.5, defect}
  wb.check(defect > 1e-6, "control: plain RK4 is visibly not symplectic (Table E: 6.9e-5)",
           format("%.2e", defect))
end
wb.print_table({"model", "method", "h", "max|Psi^T J Psi - J|"}, rows, "%-14.3g")

-- Constrained (P1): the canonical 2-form on tangent variations of T*Q =
-- {g(q) = 0, G(q) mu = 0}, along curves c(e) = project(y + e (a, b)).
do
  local model, h = p1.model, 0.2
  local method = common.vi("rk4", -0.3)
  local at = state_after(p1, method, h, 1)
  local y = wb.concat(at.aux.qbar, at.aux.mu)
  local function curve(direction)
    return function(e)
      local q, p = {}, {}
      for i = 1, 3 do
        q[i] = y[i] + e * direction[i]
        p[i] = y[3 + i] + e * direction[3 + i]
      end
      return wb.concat(model:project(q, p)) -- M = I: G M^-1 mu = G mu
    end
  end
  local function identity(z) return z end
  local function step(z) return junction_map(p1, method, h, at, z) end
  local projected = wb.method("projected")
  local function projected_step(z)
    local sol = wb.integrate{model = model, method = projected, h = h, steps = 1,
                             q0 = {z[1], z[2], z[3]}, p0 = {z[4], z[5], z[6]}}
    return wb.concat(sol:final())
  end
  local function omega(u, v) return u[1] * v[4] + u[2] * v[5] + u[3] * v[6]
                                    - v[1] * u[4] - v[2] * u[5] - v[3] * u[6] end
  local directions = {{0.3, -0.2, 0.1, 0.5, 0.4, -0.3}, {-0.1, 0.4, 0.2, -0.2, 0.1, 0.6},
                      {0.2, 0.1, -0.5, 0.3, -0.4, 0.2}}
  local pairs_ = {{1, 2}, {2, 3}, {1, 3}}
  wb.printf("\n   P1, RK4 (-0.3, 0.7), h = 0.2: the 2-form on pairs of tangent variations\n")
  local worst, control = 0, 0
  for _, pr in ipairs(pairs_) do
    local c1, c2 = curve(directions[pr[1]]), curve(directions[pr[2]])
    local d1, d2 = derivative(identity, c1, 1e-4), derivative(identity, c2, 1e-4)
    local before = omega(d1, d2)
    local after = omega(derivative(step, c1, 1e-4), derivative(step, c2, 1e-4))
    local moved = omega(derivative(projected_step, c1, 1e-4), derivative(projected_step, c2, 1e-4))
    wb.printf("   pair %d-%d: before %.10f  after %.10f  (RK4 + projection: %.10f)\n", pr[1],
              pr[2], before, after, moved)
    worst = math.max(worst, abs(after - before))
    control = math.max(control, abs(moved - before))
  end
  wb.expect_below(worst, 1e-10, "P1: the restricted 2-form is preserved (Table E: 6e-13 .. 1.3e-11)")
  wb.check(control > 1e-6, "control: RK4 + projection does not preserve it", format("%.2e", control))
end

---------------------------------------------------------------------------
-- 2. The discrete momentum map
---------------------------------------------------------------------------

wb.printf("\n2. the discrete momentum J = mu . xi(qbar) (generator of rotations about e3)\n")
local momentum_rows = {}
local function momentum_run(problem, layer, am, h, T, n, invariant)
  local sol = wb.integrate{model = problem.model, method = common.vi(layer, am), h = h, t_end = T,
                           q0 = problem.q0, p0 = problem.p0}
  local J = common.discrete_momentum(sol, problem.model, 1, n)
  local dJ, dL = wb.drift(J), wb.drift(sol:column(invariant))
  local first, last = wb.tenths(wb.map(sol:column("energy"), function(e) return e - sol:column("energy")[1] end))
  momentum_rows[#momentum_rows + 1] = {problem.name, layer .. " " .. common.bias_label(am), h, T,
                                       J[1], dJ, dL, first, last,
                                       sol.stats.newton_iterations / sol.stats.steps}
  wb.expect_below(dJ, 1e-13, format("%s, %s %s, h = %g, T = %g (%d steps): J conserved to round-off",
                                    problem.name, layer, common.bias_label(am), h, T, sol.stats.steps))
  wb.check(dL > 1e3 * dJ, format("%s: the continuous %s is not (drift %.1e)", problem.name,
                                 invariant, dL))
  return J[1], dJ, dL
end
local long = not wb.quick
local J0 = momentum_run(p1, "rk4", -0.5, 0.25, long and 1000 or 250, 3, "Lz")
wb.expect_near(J0, 0.841462, 1e-6, "P1: J0 = 0.841462 (Table C), Lz0 = sin 1 = 0.841471")
local J2 = momentum_run(p2, "rk4", -0.5, 0.1, long and 100 or 20, 6, "Lz")
wb.expect_near(J2, 1.443230, 1e-6, "P2: J0 = 1.443230 (the digest's P2 long run)")
momentum_run(hat, "rk4", 0, 0.1, 100, 2, "L")
wb.print_table({"model", "method", "h", "T", "J0", "max|J-J0|", "max|dLz|", "dE first 10%",
                "dE last 10%", "Newton/step"}, momentum_rows, "%-14.4g")

---------------------------------------------------------------------------
-- 3. h then -h
---------------------------------------------------------------------------

wb.printf("\n3. a step with h, then one with -h and the mirrored bias (P1, h = 0.2)\n")
local function there_and_back(layer, am_forward, am_back, h)
  local sol = wb.integrate{model = p1.model, method = common.vi(layer, am_forward), h = h, steps = 1,
                           q0 = p1.q0, p0 = p1.p0}
  local q, p = sol:final()
  local back = wb.integrate{model = p1.model, method = common.vi(layer, am_back), h = -h, steps = 1,
                            q0 = q, p0 = p}
  return wb.max_abs(wb.sub(wb.concat(back:final()), wb.concat(p1.q0, p1.p0)))
end
local reversal_rows = {}
local control_table = {euler = 2.7e-2, kutta3 = 1.7e-4, rk4 = 3.2e-7}
for _, layer in ipairs{"euler", "kutta3", "rk4"} do
  local symmetric = there_and_back(layer, -0.5, -0.5, 0.2)
  local mirrored = there_and_back(layer, 0, -1, 0.2)
  local same = there_and_back(layer, 0, 0, 0.2)
  reversal_rows[#reversal_rows + 1] = {layer, symmetric, mirrored, same, control_table[layer]}
  wb.expect_below(symmetric, 1e-14, layer .. ": (-1/2, 1/2) with h then -h returns w0")
  wb.expect_below(mirrored, 1e-14, layer .. ": (0, 1) with h then (-1, 0) with -h returns w0")
  wb.check(common.relative(same, control_table[layer]) < 0.1,
           layer .. ": control (0, 1) twice does not return, by the prototype's amount",
           format("%.2e vs %.1e", same, control_table[layer]))
end
wb.print_table({"layer", "(-1/2,1/2) twice", "(0,1) then (-1,0)", "(0,1) twice", "prototype"},
               reversal_rows, "%-14.2e")

---------------------------------------------------------------------------
-- 4. Euler: symplectic Euler and the trapezoidal rule (P3)
---------------------------------------------------------------------------

wb.printf("\n4. Euler as the layer on P3, h = 0.1, 20 steps\n")
do
  local model, h, steps = p3.model, 0.1, 20
  local sol = wb.integrate{model = model, method = common.vi("euler", 0), h = h, steps = steps,
                           q0 = p3.q0, p0 = p3.p0}
  -- symplectic Euler: q' = q + h v, p' = p - h grad V(q')
  local q, p = {table.unpack(p3.q0)}, {table.unpack(p3.p0)}
  local worst = 0
  for k = 1, steps do
    local v = model:velocity(q, p)
    for i = 1, 2 do q[i] = q[i] + h * v[i] end
    local g = model:gradient(q)
    for i = 1, 2 do p[i] = p[i] - h * g[i] end
    local sq, sp = sol:state(k + 1)
    worst = math.max(worst, wb.max_abs(wb.sub(wb.concat(sq, sp), wb.concat(q, p))))
  end
  wb.printf("   bias (0, 1) against symplectic Euler: max difference %.2e\n", worst)
  wb.expect_below(worst, 1e-14, "Euler (0, 1) is symplectic Euler")
  local trap = wb.integrate{model = model, method = common.vi("euler", -0.5), h = h, steps = steps,
                            q0 = p3.q0, p0 = p3.p0}
  local residual = 0
  for k = 1, steps do
    local q0, p0 = trap:state(k)
    local q1, p1 = trap:state(k + 1)
    local v0, v1 = model:velocity(q0, p0), model:velocity(q1, p1)
    local g0, g1 = model:gradient(q0), model:gradient(q1)
    for i = 1, 2 do
      residual = math.max(residual, abs(q1[i] - q0[i] - 0.5 * h * (v0[i] + v1[i])),
                          abs(p1[i] - p0[i] + 0.5 * h * (g0[i] + g1[i])))
    end
  end
  wb.printf("   bias (-1/2, 1/2): residual of the trapezoidal rule %.2e\n", residual)
  wb.expect_below(residual, 1e-14, "Euler (-1/2, 1/2) is the trapezoidal rule in (q, v)")
end

---------------------------------------------------------------------------
-- 5. Solvers: Newton, simplified Newton and the paper's iteration
---------------------------------------------------------------------------

wb.printf("\n5. solvers (P1, RK4)\n")
local solver_rows = {}
-- The paper's iteration's contraction per iteration: its residual after
-- k = 1, 2, ... iterations (runs stopped there by max_iter, whose failure
-- gives the residual) up to the last k that does not converge, and the
-- geometric mean of the ratios from the first to that one.
local function contraction(layer, am, h)
  local first, last, k = nil, nil, 0
  repeat
    k = k + 1
    local sol = wb.integrate{model = p1.model, h = h, steps = 1, q0 = p1.q0, p0 = p1.p0,
                             method = common.vi(layer, am, {solver = "approximate", tol = 1e-14,
                                                            max_iter = k}),
                             on_failure = "stop"}
    local r = not sol.ok and tonumber(tostring(sol.failure):match("max |residual| (%S+) after"))
    if r then first, last = first or r, r end
  until not r or k == 100
  return k > 2 and (last / first) ^ (1 / (k - 2)) or 0 / 0
end
for bi, am in ipairs{0, -0.5, -0.3} do
  local reference = wb.integrate{model = p1.model, method = common.vi("rk4", am), h = 0.1, steps = 20,
                                 q0 = p1.q0, p0 = p1.p0}
  local ref = wb.concat(reference:final())
  for _, solver in ipairs{"simplified", "approximate"} do
    local sol = wb.integrate{model = p1.model, method = common.vi("rk4", am, {solver = solver}),
                             h = 0.1, steps = 20, q0 = p1.q0, p0 = p1.p0}
    local gap = wb.max_abs(wb.sub(wb.concat(sol:final()), ref))
    wb.expect_below(gap, 1e-13, format("%s %s: 20 steps equal Newton's", solver,
                                       common.bias_label(am)))
  end
  for _, h in ipairs{0.1, 0.05} do
    local first = wb.integrate{model = p1.model, h = h, steps = 1, q0 = p1.q0, p0 = p1.p0,
                               method = common.vi("rk4", am, {solver = "approximate", tol = 1e-14})}
    local newton = wb.integrate{model = p1.model, method = common.vi("rk4", am), h = h, steps = 1,
                                q0 = p1.q0, p0 = p1.p0}
    -- 12 iterations: the printed iterates grow by ~2x an iteration, and from
    -- about the 16th they leave the reach of the projection onto g = 0, whose
    -- own failure is then the step's message
    local printed = wb.integrate{model = p1.model, h = h, steps = 1, q0 = p1.q0, p0 = p1.p0,
                                 method = common.vi("rk4", am, {solver = "approximate",
                                                                approximates = "printed",
                                                                max_iter = 12}),
                                 on_failure = "stop"}
    local its, prototype = first.stats.newton_iterations, common.table_d[h][bi]
    local rho = contraction("rk4", am, h)
    solver_rows[#solver_rows + 1] = {common.bias_label(am), h, its, prototype, rho,
                                     newton.stats.newton_iterations,
                                     printed.ok and "converged" or "diverged"}
    wb.expect_in(its / prototype, 0.5, 1.5,
                 format("%s, h = %g: the corrected iteration converges in %d iterations, a chord "
                        .. "iteration's count (prototype %d; ratio)", common.bias_label(am), h, its,
                        prototype))
    wb.expect_in(rho, 0.15, 0.45,
                 format("%s, h = %g: it contracts linearly, by %.3f an iteration (prototype: "
                        .. "roughly 0.2-0.4)", common.bias_label(am), h, rho))
    -- the control: a Newton-type solver run in its place fails the count
    local simplified = wb.integrate{model = p1.model, h = h, steps = 1, q0 = p1.q0, p0 = p1.p0,
                                    method = common.vi("rk4", am, {tol = 1e-14})}
    local ratio = simplified.stats.newton_iterations / prototype
    wb.check(ratio < 0.5, format("control: %s, h = %g: simplified Newton in the paper's "
                                 .. "iteration's place fails the count (%d iterations)",
                                 common.bias_label(am), h, simplified.stats.newton_iterations),
             format("ratio %.2f", ratio))
    local grown = tonumber(tostring(printed.failure):match("max |residual| (%S+) after"))
    wb.check(not printed.ok and grown ~= nil and grown > 1,
             format("%s, h = %g: the printed S4.6a' diverges", common.bias_label(am), h),
             tostring(printed.failure):match("residual[^)]*"))
  end
end
wb.print_table({"bias", "h", "iterations", "prototype", "contraction", "Newton its",
                "printed S4.6a'"}, solver_rows, "%-14.4g")

---------------------------------------------------------------------------
-- 6. mu from w_{k+1} equals the carried lambda+
---------------------------------------------------------------------------

do
  local method = common.vi("rk4", -0.3)
  local run = wb.integrate{model = p1.model, method = method, h = 0.1, steps = 5, q0 = p1.q0,
                           p0 = p1.p0}
  local q, p, aux = run:final()
  local again = wb.integrate{model = p1.model, method = method, h = 0.1, steps = 1, q0 = q, p0 = p}
  local mu, qbar = {}, {}
  for i = 1, 3 do
    mu[i] = again:column("mu" .. i)[1]
    qbar[i] = again:column("qbar" .. i)[1]
  end
  local dmu, dq = wb.max_abs(wb.sub(mu, aux.mu)), wb.max_abs(wb.sub(qbar, aux.qbar))
  wb.printf("\n6. start-up solve at w5 against the carried unknowns: |mu| %.1e, |qbar| %.1e\n", dmu, dq)
  wb.expect_below(dmu, 1e-14, "mu from w_{k+1} equals lambda+ of the step (Table D: 4.4e-16)")
  wb.expect_below(dq, 1e-14, "qbar from w_{k+1} equals q2+ of the step")
end

---------------------------------------------------------------------------
-- 7. The derivatives and the projection
---------------------------------------------------------------------------

wb.printf("\n7. the variational equations against central differences (5 steps)\n")
local oracle_rows = {}
-- (an implicit layer's stages stop at round-off after a varying number of
-- Newton iterations, which differences amplify: 1e-7 for gauss2)
for _, case in ipairs{{p1, "rk4", -0.3, 1e-8}, {p2, "kutta3", 0, 1e-8}, {p1, "gauss2", -0.5, 1e-7},
                      {p3, "heun", 0, 1e-8}} do
  local problem, layer, am, bound = table.unpack(case)
  local function run(options)
    return wb.concat(wb.integrate{model = problem.model, method = common.vi(layer, am, options),
                                  h = 0.1, steps = 5, q0 = problem.q0, p0 = problem.p0}:final())
  end
  local exact = run({})
  -- differences carry round-off of 1e-16 / 6e-6: the residual's floor is
  -- near 1e-11, so the oracle's Newton stops at 1e-9
  local oracle = wb.max_abs(wb.sub(run({derivatives = "finite_difference", tol = 1e-9}), exact))
  local matrix = wb.max_abs(wb.sub(run({jacobian = "finite_difference"}), exact))
  oracle_rows[#oracle_rows + 1] = {problem.name, layer .. " " .. common.bias_label(am), oracle, matrix}
  wb.expect_below(oracle, bound, format("%s, %s: derivatives = finite_difference agrees (%.1e)",
                                       problem.name, layer, oracle))
  wb.expect_below(matrix, 1e-13, format("%s, %s: Newton's matrix by differences, same step",
                                        problem.name, layer))
end
wb.print_table({"model", "layer", "|var - fd|", "|mixed - fd matrix|"}, oracle_rows, "%-14.2e")

do
  -- W = M^-1 differs from W = I only for a non-scalar mass: P2 with m2 = 2
  local model = wb.model("double_spherical_pendulum", {m1 = 1, m2 = 2, l1 = 1, l2 = 1, g = 1})
  local problem = {model = model, q0 = p2.q0, p0 = {0, 1, 0, 1, 2, 0}}
  local ref = common.reference(problem, 1, 1e-4)
  local rates = {}
  for _, projection in ipairs{"orthogonal", "mass"} do
    local errors = {}
    for i, h in ipairs{0.05, 0.025} do
      errors[i] = common.final_error(wb.integrate{model = model, h = h, t_end = 1, q0 = problem.q0,
                                                  p0 = problem.p0,
                                                  method = common.vi("rk4", 0, {projection = projection})}, ref)
    end
    rates[projection] = wb.rates({0.05, 0.025}, errors)[2]
    wb.expect_near(rates[projection], 4, 0.15, "P2 with m2 = 2, projection = " .. projection .. ": order 4")
  end
  wb.printf("\n   projection W = I: rate %.2f, W = M^-1: rate %.2f (P2, m2 = 2, RK4 (0, 1))\n",
            rates.orthogonal, rates.mass)
end
