-- Structural checks of the hbvm plugin: the statements of the line-integral
-- paper (Brugnano, Gurioli, Iavernaro, Weinmueller, Sect. 4 and Theorem 8)
-- and of the HBVM literature that its tables do not exercise.
--
--   1. Without constraints HBVM(s, s) is s-stage Gauss collocation: on the
--      Kepler problem (e = 0.5) it agrees with rk{tableau = gauss(s)} to
--      round-off, after one step and after 200 steps (s = 1..4).
--   2. Without constraints HBVM(k, s) has order 2s for any k >= s
--      (k = 2s here, s = 1..3; Kepler over t in [0, 2], reference Gauss 8).
--   3. With k large enough the energy of a non-polynomial H is conserved to
--      O(h^2k): HBVM(10, 2) keeps Kepler's energy to 1e-13 where 2-stage
--      Gauss (HBVM(2, 2)) errs by more than 1e-8 at the same step.
--   4. The constrained method is symmetric: a step of h and one of -h
--      return to the start to round-off (tethered satellites HBVM(6, 2);
--      modified pendulum HBVM(6, 2), whose g is of degree 6).
--   5. The three solvers (fixed point, Newton, simplified Newton) give the
--      same solution to round-off; their cost per step is printed.
--   6. Cost: the unknowns are the s Legendre coefficients and lambda, so
--      the sweeps per step do not grow with k; the fixed point contracts at
--      O(h), so each halving of h saves sweeps.
--   7. Every property the method declares against a measurement (can fail
--      either way): order 2 and multiplier order 1 fitted on the planar
--      pendulum's closed form; symmetric (a step back returns); momentum
--      conserved for k = s (Gauss with lambda_n frozen; Ly of the tethered
--      satellites drifts by < 1e-13), not for k > s (5e-9 at h = 0.5 over
--      [0, 100]); H and g conserved when polynomial of degree <= 2k/s
--      (modified pendulum, HBVM(6,2)), but not in general (energy of
--      Kepler; g of degree 6 under HBVM(2,2)); G M^-1 p = 0 not claimed,
--      and not held (O(h^2) on the satellites).
--   8. k < s is refused by wb.method itself, with a message naming the rule.
--
--   workbench scripts/hbvm/method.lua [--quick]   (--quick: the same checks)

local kepler = wb.model("kepler", {e = 0.5})
local satellites = wb.model("tethered_satellites")
local modified = wb.model("modified_pendulum")
local conical = wb.model("conical_pendulum")

local function final_state(sol) return wb.concat(sol:final()) end
local function distance(a, b) return wb.norm(wb.sub(a, b)) end

-- 1. HBVM(s, s) = Gauss
wb.printf("1. HBVM(s,s) against s-stage Gauss on Kepler e = 0.5, h = 0.05\n")
for s = 1, 4 do
  local gauss = wb.method("rk", {tableau = wb.tableau.gauss(s)})
  local hbvm = wb.method("hbvm", {k = s, s = s})
  local one_h = distance(final_state(wb.integrate{model = kepler, method = hbvm, h = 0.05, steps = 1}),
                         final_state(wb.integrate{model = kepler, method = gauss, h = 0.05, steps = 1}))
  local many = distance(final_state(wb.integrate{model = kepler, method = hbvm, h = 0.05, steps = 200}),
                        final_state(wb.integrate{model = kepler, method = gauss, h = 0.05, steps = 200}))
  wb.printf("   s = %d: one step %.2e, 200 steps %.2e\n", s, one_h, many)
  wb.expect_below(one_h, 1e-15, string.format("HBVM(%d,%d) = Gauss %d after one step", s, s, s))
  wb.expect_below(many, 1e-13, string.format("HBVM(%d,%d) = Gauss %d after 200 steps", s, s, s))
end

-- 2. order 2s without constraints, k = 2s
local reference = final_state(wb.integrate{model = kepler, h = 2 / 4000, steps = 4000,
                                           every = 2 ^ 53,
                                           method = wb.method("rk", {tableau = wb.tableau.gauss(8)})})
for s = 1, 3 do
  local r = wb.order{model = kepler, method = wb.method("hbvm", {k = 2 * s, s = s}), t_end = 2,
                     h = s == 3 and {0.1, 0.08, 0.0625, 0.05} or {0.05, 0.04, 0.03125, 0.025},
                     reference = reference}
  wb.print_order(r, string.format("2. HBVM(%d,%d) without constraints (Kepler)", 2 * s, s))
  wb.expect_near(r.order, 2 * s, 0.2, string.format("HBVM(%d,%d) unconstrained: order 2s = %d",
                                                     2 * s, s, 2 * s))
end

-- 3. energy with a high-order quadrature
do
  local run = function(k)
    return wb.integrate{model = kepler, method = wb.method("hbvm", {k = k, s = 2}), h = 0.05,
                        t_end = 10}:max("energy_error_abs")
  end
  local gauss, hbvm = run(2), run(10)
  wb.printf("3. Kepler energy error, h = 0.05, t in [0, 10]: HBVM(2,2) %.2e, HBVM(10,2) %.2e\n",
            gauss, hbvm)
  wb.check(gauss > 1e-8 and hbvm < 1e-13,
           "HBVM(10,2) conserves a non-polynomial H to round-off, Gauss 2 does not",
           string.format("%.2e vs %.2e", hbvm, gauss))
end

-- 4. symmetry
for _, case in ipairs({{satellites, "tethered satellites"}, {modified, "modified pendulum"}}) do
  local model, name = case[1], case[2]
  local method = wb.method("hbvm", {k = 6, s = 2})
  local q0, p0 = model:initial()
  local forward = wb.integrate{model = model, method = method, h = 0.1, steps = 1}
  local q1, p1 = forward:final()
  local back = wb.integrate{model = model, method = method, h = -0.1, steps = 1, t0 = 0.1,
                            q0 = q1, p0 = p1}
  local gap = distance(final_state(back), wb.concat(q0, p0))
  wb.printf("4. %s: step h = 0.1 then -0.1 returns to the start within %.2e\n", name, gap)
  wb.expect_below(gap, 1e-14, name .. ": HBVM(6,2) is symmetric")
end

-- 5. the solvers
do
  local rows, states = {}, {}
  for i, iteration in ipairs({"fixed_point", "newton", "simplified"}) do
    local sol = wb.integrate{model = satellites, h = 0.1, t_end = 10,
                             method = wb.method("hbvm", {k = 6, s = 2, iteration = iteration})}
    local st = sol.stats
    states[i] = final_state(sol)
    rows[i] = {iteration, st.newton_iterations / st.steps, st.function_evals / st.steps,
               st.jacobian_evals / st.steps, st.linear_solves / st.steps,
               1e6 * st.seconds / st.steps, sol:max("constraint")}
  end
  wb.printf("5. solvers, tethered satellites, HBVM(6,2), h = 0.1, t in [0, 10] (per step):\n")
  wb.print_table({"iteration", "iterations", "f-evals", "Jacobians", "lin. solves", "us/step",
                  "max|g|"}, rows, "%-14.4g")
  wb.expect_below(distance(states[1], states[2]), 1e-12, "Newton and fixed point agree")
  wb.expect_below(distance(states[1], states[3]), 1e-12, "simplified Newton and fixed point agree")
  wb.check(rows[2][2] < rows[1][2], "Newton needs fewer iterations than the fixed point",
           string.format("%.2f vs %.2f", rows[2][2], rows[1][2]))
end

-- 6. cost: the sweeps per step, against k and against h
do
  wb.printf("6. fixed-point sweeps per step, tethered satellites, HBVM(k,2), t in [0, 10]:\n")
  local by_k = {}
  for i, k in ipairs({2, 4, 6, 12}) do
    local st = wb.integrate{model = satellites, h = 0.1, t_end = 10,
                            method = wb.method("hbvm", {k = k, s = 2})}.stats
    by_k[i] = st.newton_iterations / st.steps
    wb.printf("   h = 0.1, k = %2d: %.2f sweeps/step\n", k, by_k[i])
  end
  wb.expect_below(wb.max(table.unpack(by_k)) / math.min(table.unpack(by_k)), 1.2,
                  "the sweeps per step do not grow with k (within 20 %): the unknowns are the s "
                  .. "Legendre coefficients, not the k stages")
  local by_h, steps = {}, {0.2, 0.1, 0.05, 0.025}
  for i, h in ipairs(steps) do
    local st = wb.integrate{model = satellites, h = h, t_end = 10,
                            method = wb.method("hbvm", {k = 6, s = 2})}.stats
    by_h[i] = st.newton_iterations / st.steps
    wb.printf("   k = 6, h = %-5g: %.2f sweeps/step\n", h, by_h[i])
  end
  local fewest_saved = math.huge
  for i = 2, #by_h do fewest_saved = math.min(fewest_saved, by_h[i - 1] - by_h[i]) end
  wb.check(fewest_saved > 0.3, "the fixed point contracts at O(h): each halving of h saves "
           .. "sweeps (more than 0.3 per step, h = 0.2 .. 0.025)",
           string.format("%s sweeps/step", table.concat(wb.map(by_h, function(x)
             return string.format("%.2f", x) end), ", ")))
end

-- 7. every property the method declares, against a measurement
do
  local gauss, hbvm = wb.method("hbvm", {k = 2, s = 2}), wb.method("hbvm", {k = 6, s = 2})
  local function ly_drift(method)
    return wb.drift(wb.integrate{model = satellites, method = method, h = 0.5,
                                 t_end = 100}:column("Ly"))
  end
  -- order and multiplier order on the planar pendulum against its closed form
  local pendulum = wb.model("pendulum", {g = 1})
  package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
  local common = require "hbvm_common"
  local hs, e_state, e_lambda = {0.1, 0.05, 0.025}, {}, {}
  for i, h in ipairs(hs) do
    local sol = wb.integrate{model = pendulum, method = gauss, h = h, t_end = 10}
    local worst = 0
    for j = 2, sol.n do
      local q, p = common.pendulum_exact(sol.t[j])
      worst = wb.max(worst, wb.norm(wb.sub(common.state(sol, j), wb.concat(q, p)), 1))
    end
    e_state[i] = worst
    e_lambda[i] = common.multiplier_error(sol, pendulum, function(t)
      local _, _, lambda = common.pendulum_exact(t)
      return lambda
    end, "start")
  end
  local order, multiplier_order = wb.fit_order(hs, e_state), wb.fit_order(hs, e_lambda)
  local modified_run = wb.integrate{model = modified, method = hbvm, h = 0.1, t_end = 10}
  local modified_gauss = wb.integrate{model = modified, method = gauss, h = 0.1, t_end = 10}
  local kepler_energy = wb.integrate{model = kepler, method = gauss, h = 0.05,
                                     t_end = 10}:max("energy_error_abs")
  local q0, p0 = satellites:initial()
  local step = wb.integrate{model = satellites, method = hbvm, h = 0.1, steps = 1}
  local q1, p1 = step:final()
  local back = wb.integrate{model = satellites, method = hbvm, h = -0.1, steps = 1, t0 = 0.1,
                            q0 = q1, p0 = p1}
  local symmetric_gap = distance(final_state(back), wb.concat(q0, p0))
  local hidden = wb.integrate{model = satellites, method = gauss, h = 0.1,
                              t_end = 10}:max("hidden_constraint")
  local rows = {
    {"order", gauss.order, order, math.abs(order - gauss.order) < 0.1},
    {"multiplier order", gauss.multiplier_order, multiplier_order,
     math.abs(multiplier_order - gauss.multiplier_order) < 0.1},
    {"symmetric", gauss.properties.symmetric, symmetric_gap, symmetric_gap < 1e-13},
    {"momentum (k = s)", gauss.properties.momentum_conserving, ly_drift(gauss),
     ly_drift(gauss) < 1e-13},
    {"momentum (k > s)", hbvm.properties.momentum_conserving, ly_drift(hbvm),
     ly_drift(hbvm) < 1e-13},
    {"H, g if polynomial", hbvm.properties.conserving_if_polynomial,
     wb.max(modified_run:max("energy_error_abs"), modified_run:max("constraint")),
     wb.max(modified_run:max("energy_error_abs"), modified_run:max("constraint")) < 1e-13},
    {"energy (any H)", gauss.properties.energy_conserving, kepler_energy, kepler_energy < 1e-12},
    {"g = 0 (any g)", gauss.properties.position_constraint, modified_gauss:max("constraint"),
     modified_gauss:max("constraint") < 1e-13},
    {"G M^-1 p = 0", gauss.properties.velocity_constraint, hidden, hidden < 1e-12},
  }
  wb.printf("7. declared properties against measurements (HBVM(2,2) unless noted; order: "
            .. "pendulum h = 0.1..0.025; momentum: drift of Ly, satellites h = 0.5 on [0, 100]; "
            .. "polynomial: modified pendulum HBVM(6,2), any g: HBVM(2,2) on it (deg 6 > 2); "
            .. "energy: Kepler; G M^-1 p: satellites)\n")
  for _, r in ipairs(rows) do
    wb.check(r[2] == r[4] or (type(r[2]) == "number" and r[4]),
             string.format("declared %s = %s, measured %.3g", r[1], tostring(r[2]), r[3]))
  end
end

-- 8. k < s
do
  local ok, message = pcall(wb.method, "hbvm", {k = 2, s = 3})
  wb.check(not ok and tostring(message):find("k >= s") ~= nil,
           "wb.method refuses HBVM(2,3): k >= s", tostring(message):sub(1, 120))
  local method = wb.method("hbvm", {k = 3, s = 3})
  ok, message = pcall(method.with, method, {s = 4})
  wb.check(not ok and tostring(message):find("k >= s") ~= nil,
           "m:with{s = 4} on HBVM(3,3) is refused: k >= s", tostring(message):sub(1, 120))
end
