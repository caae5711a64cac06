-- Work-precision diagram on the Kepler problem (e = 0.5, HLW I.2.3): the
-- error of (q, p) at t = 100 periods (max norm, against Gauss with 8 stages
-- at h = 2 pi / 1000) against CPU seconds and against force evaluations,
-- for Stormer-Verlet, Gauss collocation with s = 2, 4, 6 stages (orders
-- 4, 8, 12: rk's defaults, the fixed point from start = "auto": on Kepler
-- Gauss 4 begins almost every step from the corrected start, Gauss 6
-- changes between the two along the orbit),
-- explicit RK4, the triple-jump composition of the implicit midpoint rule
-- (order 4) and HBVM(4, 2) (order 4, energy-conserving for polynomial H).
-- Figures: plots/bench/kepler_time.png, plots/bench/kepler_evals.png.
-- Checks: each method's fitted order, and that Gauss 6 reaches Verlet's
-- best error with fewer evaluations than Verlet.
--
--   workbench scripts/bench/kepler.lua           (about a minute)
--   workbench scripts/bench/kepler.lua --quick   (the test suite's run)
package.path = arg[0]:gsub("[^/]*$", "") .. "?.lua;" .. package.path
local common = require "bench_common"

local periods = wb.quick and 2 or 100
local t_end = 2 * math.pi * periods
local function steps(list) return common.steps(list, t_end / periods) end
local gauss = function(s) return wb.method("rk", {tableau = wb.tableau.gauss(s)}) end
local study = {
  title = string.format("Kepler e = 0.5, %d periods", periods),
  model = wb.model("kepler", {e = 0.5}), t_end = t_end,
  reference = {h = 2 * math.pi / 1000, method = gauss(8)},
  figure = "plots/bench/kepler", table = "plots/bench/kepler.tsv",
  repeats = wb.quick and 1 or 3,
  methods = {
    {label = "Verlet", method = wb.method("verlet"),
     h = steps(wb.quick and {200, 400, 800} or {200, 400, 800, 1600, 3200, 6400})},
    {label = "RK4", method = wb.method("rk4"),
     h = steps(wb.quick and {100, 200, 400} or {100, 200, 400, 800, 1600})},
    {label = "triple jump", method = wb.method("rk", {tableau = wb.tableau.triple_jump(wb.tableau.gauss(1))}),
     h = steps(wb.quick and {50, 100, 200} or {100, 200, 400, 800, 1600})},
    {label = "HBVM(4,2)", method = wb.method("hbvm", {k = 4, s = 2}),
     h = steps(wb.quick and {50, 100, 200} or {50, 100, 200, 400, 800})},
    {label = "Gauss 2", method = gauss(2),
     h = steps(wb.quick and {50, 100, 200} or {50, 100, 200, 400, 800})},
    {label = "Gauss 4", method = gauss(4),
     h = steps(wb.quick and {20, 40, 80} or {20, 28, 40, 56, 80})},
    {label = "Gauss 6", method = gauss(6),
     h = steps(wb.quick and {16, 24, 32} or {12, 16, 20, 24, 32})},
  },
  orders = {Verlet = 2, RK4 = 4, ["triple jump"] = 4, ["HBVM(4,2)"] = 4, ["Gauss 2"] = 4,
            ["Gauss 4"] = 8, ["Gauss 6"] = 12},
  tolerance = 0.8, floor = 1e-10, -- pre-asymptotic ranges: orders within 0.8
}
local result = common.run(study)
local verlet = common.best(result, "Verlet")
local gauss6 = common.cheapest_below(result, "Gauss 6", verlet.error)
wb.check(gauss6 ~= nil and gauss6.function_evals < verlet.function_evals,
         string.format("Gauss 6 reaches Verlet's best error %.1e with %s evaluations (Verlet %d)",
                       verlet.error, gauss6 and tostring(gauss6.function_evals) or "no",
                       verlet.function_evals))
-- At the coarsest step, h = 0.314 (20 steps a period), the fixed point
-- stalls at pericentre from the second period on and auto hands the rest of
-- the run to simplified Newton (100 periods: 40 fixed-point steps, then
-- 1960 Newton steps, "mixed"); the --quick run's 2 periods do not reach it.
for _, r in ipairs(result.by_method["Gauss 4"]) do
  if r.h > 0.3 and not wb.quick then
    wb.check(r.iteration == "mixed", string.format("Gauss 4 at h = %.3g: auto hands the steps "
                                                   .. "its fixed point stalls on to Newton", r.h),
             r.iteration)
  else
    wb.check(r.iteration == "fixed_point", string.format("Gauss 4 at h = %.3g: auto iterates to "
                                                         .. "a fixed point", r.h), r.iteration)
  end
end
