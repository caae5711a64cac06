-- Work-precision diagram on the spherical pendulum of Kinon-Betsch-
-- Schneider (m = l = 1, g = 9.81, the model's default state; one
-- holonomic constraint): the error of (q, p) at t = 10 (max norm, against
-- SPARK with s = 5, order 8, at h = 1e-3) against CPU seconds and against
-- force evaluations, for RATTLE, SPARK with s = 2 and 3 (orders 2 and 4),
-- HBVM(6, 2) and the GGL energy-momentum scheme EM.  (HBVM and EM are of
-- order 2 with constraints; SPARK 3 is the one fourth-order method here.)
-- Figures: plots/bench/spherical_pendulum_time.png and _evals.png.
-- Checks: each method's fitted order, and that the curves cross: RATTLE
-- (one evaluation per step) is cheapest at low accuracy, but would need
-- more evaluations than SPARK 3 for SPARK 3's best error (RATTLE's cost
-- extrapolated along its h^2 line).  EM counts every evaluation of grad V
-- or of its discrete gradient, in residuals and Jacobians, and the one of
-- its row scales (10 a step here; 9 before that one was counted).
--
--   workbench scripts/bench/spherical_pendulum.lua           (a few seconds)
--   workbench scripts/bench/spherical_pendulum.lua --quick   (the test suite's run)
package.path = arg[0]:gsub("[^/]*$", "") .. "?.lua;" .. package.path
local common = require "bench_common"

local t_end = wb.quick and 2 or 10
local steps = common.steps
local study = {
  title = string.format("spherical pendulum, t = %g", t_end),
  model = wb.model("spherical_pendulum"), t_end = t_end,
  reference = {h = 1e-3, method = wb.method("spark", {s = 5, tol = 1e-16})},
  figure = "plots/bench/spherical_pendulum", table = "plots/bench/spherical_pendulum.tsv",
  repeats = wb.quick and 1 or 3,
  methods = {
    {label = "RATTLE", method = wb.method("rattle", {tol = 1e-14}),
     h = steps(wb.quick and {100, 200, 400} or {100, 200, 400, 800, 1600})},
    {label = "SPARK 2", method = wb.method("spark", {s = 2, step_tol = 1e-15}),
     h = steps(wb.quick and {100, 200, 400} or {100, 200, 400, 800, 1600})},
    {label = "SPARK 3", method = wb.method("spark", {s = 3, step_tol = 1e-15}),
     h = steps(wb.quick and {25, 50, 100} or {25, 50, 100, 200, 400})},
    {label = "HBVM(6,2)", method = wb.method("hbvm", {k = 6, s = 2}),
     h = steps(wb.quick and {50, 100, 200} or {50, 100, 200, 400, 800})},
    {label = "EM", method = wb.method("em", {tol = 1e-13}),
     h = steps(wb.quick and {100, 200, 400} or {100, 200, 400, 800, 1600})},
  },
  orders = {RATTLE = 2, ["SPARK 2"] = 2, ["SPARK 3"] = 4, ["HBVM(6,2)"] = 2, EM = 2},
  tolerance = 0.5, floor = 1e-10,
}
local result = common.run(study)
local rattle = common.best(result, "RATTLE")
local spark3 = common.best(result, "SPARK 3")
local rattle_needs = rattle.function_evals * math.sqrt(rattle.error / spark3.error)
wb.check(spark3.function_evals < rattle_needs,
         string.format("SPARK 3 reaches %.1e with %d evaluations; RATTLE would need about %.0f",
                       spark3.error, spark3.function_evals, rattle_needs))
