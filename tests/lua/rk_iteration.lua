-- rk and prk: the extrapolated start and the automatic choice of iteration.
--
--   * Kepler (e = 0.5, h = 0.01, non-stiff): auto iterates to a fixed point
--     on every step; the extrapolated start (asked for: the default start,
--     auto, is tested in start_corrected.lua) needs fewer force evaluations
--     per step than the plain one, and every start and iteration lands on
--     the same solution to round-off.
--   * A stiff pendulum (g = 1e3, h = 0.05: h^2 |f'| = 2.5): the fixed point
--     crawls, auto changes to simplified Newton and keeps its Jacobian
--     across steps (far fewer Jacobians than steps), needs fewer force
--     evaluations, and matches iteration = "newton" to round-off; at
--     g = 1e4 the fixed point fails and auto does not.
--   * Both cases, and Kepler in polar coordinates (a configuration-dependent
--     mass: the (q, p) stage form), continue bit for bit from sol:final()
--     (the starting values and the kept Jacobian are state).
local function run(model, options, h, steps)
  local method = wb.method("rk", options)
  local sol = wb.integrate{model = model, method = method, h = h, steps = steps,
                           every = steps}
  return sol, wb.concat(sol:final())
end

local function per_step(sol, field) return sol.stats[field] / sol.stats.steps end

local kepler = wb.model("kepler", {e = 0.5})
for _, s in ipairs{2, 3, 4} do
  local T = wb.tableau.gauss(s)
  local auto, y_auto = run(kepler, {tableau = T, start = "extrapolate"}, 0.01, 2000)
  local plain, y_plain = run(kepler, {tableau = T, start = "plain"}, 0.01, 2000)
  local newton, y_newton = run(kepler, {tableau = T, iteration = "simplified"}, 0.01, 2000)
  wb.check(auto.stats.iteration == "fixed_point" and auto.stats.fixed_point_steps == 2000,
           string.format("gauss%d on Kepler: auto iterates to a fixed point on every step (%s)",
                         s, auto.stats.iteration))
  wb.check(newton.stats.iteration == "newton" and newton.stats.newton_steps == 2000,
           "gauss" .. s .. ": iteration = simplified is reported as Newton")
  wb.expect_below(per_step(auto, "function_evals"), 0.8 * per_step(plain, "function_evals"),
                  string.format("gauss%d: extrapolated start %.2f evaluations per step, plain %.2f",
                                s, per_step(auto, "function_evals"),
                                per_step(plain, "function_evals")))
  wb.expect_below(wb.norm(wb.sub(y_auto, y_plain)), 1e-12,
                  "gauss" .. s .. ": extrapolated and plain start agree to round-off")
  wb.expect_below(wb.norm(wb.sub(y_auto, y_newton)), 1e-12,
                  "gauss" .. s .. ": fixed point and simplified Newton agree to round-off")
end

-- a stiff pendulum: the fixed point cannot converge
local stiff = wb.model("angle_pendulum", {g = 1e3})
local steps = 400
local auto, y_auto = run(stiff, {tableau = "gauss3"}, 0.05, steps)
local newton, y_newton = run(stiff, {tableau = "gauss3", iteration = "newton"}, 0.05, steps)
wb.check(auto.stats.newton_steps > 0.9 * steps,
         string.format("g = 1e3, h = 0.05: auto changed to Newton (%d fixed-point "
                       .. "steps, %d Newton steps: %s)", auto.stats.fixed_point_steps,
                       auto.stats.newton_steps, auto.stats.iteration))
wb.expect_below(auto.stats.jacobian_evals, 0.5 * steps,
                string.format("its Jacobian is kept across steps: %d Jacobians in %d steps",
                              auto.stats.jacobian_evals, steps))
wb.expect_below(wb.norm(wb.sub(y_auto, y_newton)), 1e-10,
                "auto and full Newton agree on the stiff pendulum")
local fixed = run(stiff, {tableau = "gauss3", iteration = "fixed_point"}, 0.05, steps)
wb.expect_below(per_step(auto, "function_evals"), 0.8 * per_step(fixed, "function_evals"),
                string.format("auto %.1f evaluations per step, the fixed point alone %.1f",
                              per_step(auto, "function_evals"), per_step(fixed, "function_evals")))
local stiffer = wb.model("angle_pendulum", {g = 1e4})
local failing = wb.integrate{model = stiffer, h = 0.05, steps = 50, on_failure = "stop",
                             method = wb.method("rk", {tableau = "gauss3",
                                                       iteration = "fixed_point"})}
local coping = wb.integrate{model = stiffer, h = 0.05, steps = 50, on_failure = "stop",
                            method = wb.method("rk", {tableau = "gauss3"})}
wb.check(not failing.ok and coping.ok and coping.stats.iteration == "newton",
         "g = 1e4: the fixed point fails (" .. tostring(failing.failure) .. "), auto does not")

-- carried state: T then T again = 2T, bit for bit, on each path
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local continues_run = require "continues"
local function continues(model, options, h, n)
  return continues_run(wb.method("rk", options), model, h, n)
end
wb.check(continues(kepler, {tableau = "gauss4"}, 0.01, 50), "fixed point: continues bit for bit")
wb.check(continues(stiff, {tableau = "gauss3"}, 0.05, 200),
         "auto after its change to Newton, with a kept Jacobian: continues bit for bit")
-- the test's plugin path holds a model with a configuration-dependent mass
local general
for _, name in ipairs(wb.list_models()) do
  if name == "polar_kepler" then general = wb.model(name) end
end
wb.check(general ~= nil, "a model with a configuration-dependent mass is installed")
if general then
  for _, it in ipairs{"auto", "simplified"} do
    wb.check(continues(general, {tableau = "radau_iia3", iteration = it}, 0.05, 50),
             "(q, p) stages, iteration " .. it .. ": continue bit for bit")
  end
  local e, ye = run(general, {tableau = "gauss3"}, 0.05, 100)
  local p, yp = run(general, {tableau = "gauss3", start = "plain"}, 0.05, 100)
  wb.expect_below(per_step(e, "function_evals"), per_step(p, "function_evals"),
                  string.format("(q, p) stages: extrapolated start %.2f evaluations per step, "
                                .. "plain %.2f", per_step(e, "function_evals"),
                                per_step(p, "function_evals")))
  wb.expect_below(wb.norm(wb.sub(ye, yp)), 1e-12, "(q, p) stages: both starts agree")
end

-- prk shares the solver
local prk = wb.integrate{model = kepler, h = 0.01, steps = 500, every = 500,
                         method = wb.method("prk", {tableau = "lobatto_iiia_iiib3"})}
wb.check(prk.stats.iteration == "fixed_point", "prk: auto iterates to a fixed point on Kepler")
