-- Work-precision diagram on the outer solar system (HLW I.2.4, six bodies,
-- 18 coordinates): the error of (q, p) at t = 200 000 days (max norm,
-- against Gauss with 8 stages at h = 5 days) against CPU seconds and
-- against force evaluations, for Stormer-Verlet, Gauss collocation with
-- s = 2, 4, 6 stages (rk's defaults), explicit RK4, the triple-jump
-- composition of the implicit midpoint rule and HBVM(4, 2).
-- Figures: plots/bench/outer_solar_system_time.png and _evals.png.
-- Checks: each method's fitted order (within 0.8: these are the
-- pre-asymptotic step sizes people use), and that Gauss 4 reaches
-- Verlet's best error with fewer evaluations than Verlet.
--
--   workbench scripts/bench/outer_solar_system.lua           (a few seconds)
--   workbench scripts/bench/outer_solar_system.lua --quick   (the test suite's run)
package.path = arg[0]:gsub("[^/]*$", "") .. "?.lua;" .. package.path
local common = require "bench_common"

local t_end = wb.quick and 10000 or 200000
local function steps(list) return common.steps(list, t_end) end
local gauss = function(s) return wb.method("rk", {tableau = wb.tableau.gauss(s)}) end
local scale = t_end / 20000
local function counts(list)
  local out = {}
  for i, n in ipairs(list) do out[i] = math.floor(n * scale + 0.5) end
  return steps(out)
end
local study = {
  title = string.format("outer solar system, %g days", t_end),
  model = wb.model("outer_solar_system"), t_end = t_end,
  reference = {h = 5, method = gauss(8)},
  figure = "plots/bench/outer_solar_system", table = "plots/bench/outer_solar_system.tsv",
  repeats = wb.quick and 1 or 3,
  methods = {
    {label = "Verlet", method = wb.method("verlet"),
     h = counts(wb.quick and {800, 1600, 3200} or {400, 800, 1600, 3200, 6400})},
    {label = "RK4", method = wb.method("rk4"),
     h = counts(wb.quick and {400, 800} or {800, 1600, 3200, 6400})},
    {label = "triple jump", method = wb.method("rk", {tableau = wb.tableau.triple_jump(wb.tableau.gauss(1))}),
     h = counts(wb.quick and {200, 400} or {100, 200, 400, 800})},
    {label = "HBVM(4,2)", method = wb.method("hbvm", {k = 4, s = 2}),
     h = counts(wb.quick and {200, 400} or {100, 200, 400, 800})},
    {label = "Gauss 2", method = gauss(2),
     h = counts(wb.quick and {200, 400} or {100, 200, 400, 800})},
    {label = "Gauss 4", method = gauss(4),
     h = counts(wb.quick and {100, 200} or {50, 100, 200, 400})},
    {label = "Gauss 6", method = gauss(6),
     h = counts(wb.quick and {100, 200} or {50, 100, 200, 300})},
  },
  orders = {Verlet = 2, RK4 = 4, ["triple jump"] = 4, ["HBVM(4,2)"] = 4, ["Gauss 2"] = 4,
            ["Gauss 4"] = 8, ["Gauss 6"] = 12},
  tolerance = 0.8, floor = 1e-9,
}
local result = common.run(study)
local verlet = common.best(result, "Verlet")
local gauss4 = common.cheapest_below(result, "Gauss 4", verlet.error)
wb.check(gauss4 ~= nil and gauss4.function_evals < verlet.function_evals,
         string.format("Gauss 4 reaches Verlet's best error %.1e with %s evaluations (Verlet %d)",
                       verlet.error, gauss4 and tostring(gauss4.function_evals) or "no",
                       verlet.function_evals))
