-- Bad input to the Lua API raises a clean Lua error that names the field,
-- option or parameter and what was expected; the host carries on.
local expect_error = wb.expect_error

local m = wb.model("spherical_pendulum")
local rattle = wb.method("rattle")

-- models
expect_error(function() wb.model("no_such_model") end, "unknown model 'no_such_model'",
             "unknown model names the model")
expect_error(function() wb.model("no_such_model") end, "pendulum", "unknown model lists the available ones")
expect_error(function() wb.model("pendulum", {mass = 2}) end, "no parameter 'mass'",
             "unknown model parameter")
expect_error(function() wb.model("pendulum", {mass = 2}) end, "m, l, g",
             "unknown parameter lists the valid ones")
expect_error(function() wb.model("pendulum", {m = "heavy"}) end, "parameter 'm' must be a number",
             "model parameter of the wrong type")
expect_error(function() wb.model("pendulum", {l = -1}) end, "'l' = -1 is outside",
             "model parameter out of range")
expect_error(function() m:energy({1, 0}, {0, 1, 0}) end, "q: expected 3 numbers",
             "vector of the wrong size")
expect_error(function() m:energy({1, 0, "x"}, {0, 1, 0}) end, "entry 3 must be a number",
             "vector with a non-number")
expect_error(function() wb.model("kepler"):constraints({1, 0}) end, "has no holonomic constraints",
             "model function the model does not have")

-- methods and options
expect_error(function() wb.method("no_such_method") end, "unknown method 'no_such_method'",
             "unknown method")
expect_error(function() wb.method("no_such_method") end, "classic.rattle",
             "unknown method lists the available ones")
expect_error(function() wb.method("rattle", {tolerance = 1e-9}) end, "no option 'tolerance'",
             "unknown option")
expect_error(function() wb.method("rattle", {tolerance = 1e-9}) end, "tol, max_iter",
             "unknown option lists the valid ones")
expect_error(function() wb.method("rattle", {tol = "small"}) end, "option 'tol' expects a number",
             "option of the wrong type")
expect_error(function() wb.method("rattle", {max_iter = 2.5}) end, "expects an integer",
             "integer option given a fraction")
expect_error(function() wb.method("rattle", {tol = 1}) end, "outside [1e-16, 0.01]",
             "option out of range")

-- integrate
expect_error(function() wb.integrate{method = rattle, h = 0.1, t_end = 1} end,
             "field 'model' is required", "missing model")
expect_error(function() wb.integrate{model = m, h = 0.1, t_end = 1} end,
             "field 'method' is required", "missing method")
expect_error(function() wb.integrate{model = m, method = rattle, t_end = 1} end,
             "field 'h' is required", "missing step size")
expect_error(function() wb.integrate{model = m, method = rattle, h = "x", t_end = 1} end,
             "field 'h' must be a number, got string", "step size of the wrong type")
expect_error(function() wb.integrate{model = m, method = rattle, h = 0.1} end,
             "give either t_end or steps", "no end time")
expect_error(function() wb.integrate{model = m, method = rattle, h = 0.1, tend = 1} end,
             "unknown field 'tend'", "misspelt field")
expect_error(function() wb.integrate{model = m, method = rattle, h = 0.3, t_end = 1} end,
             "not a whole number of steps", "t_end not a multiple of h")
expect_error(function() wb.integrate{model = m, method = rattle, h = 0.1, t_end = 1, q0 = {1, 0}} end,
             "field 'q0': expected 3 numbers", "initial state of the wrong size")
expect_error(function() wb.integrate{model = "pendulum", method = rattle, h = 0.1, t_end = 1} end,
             "field 'model' must be a wb.model", "model given as a string")
expect_error(function() wb.integrate{model = m, method = rattle, h = 0.1, t_end = 1, every = 0} end,
             "field 'every' must be a whole number >= 1", "bad recording interval")
expect_error(function() wb.integrate{model = m, method = rattle, h = 0.1, t_end = 1,
                                     on_failure = "ignore"} end,
             "'on_failure' must be 'error' or 'stop'", "bad failure mode")

-- solutions
local sol = wb.integrate{model = m, method = rattle, h = 0.1, t_end = 1}
expect_error(function() sol:column("nope") end, "no column 'nope'", "unknown column")
expect_error(function() sol:column("nope") end, "hidden_constraint", "unknown column lists the columns")
expect_error(function() sol:times("lambda", "middle") end, "'end', 'start' or 'mid'",
             "unknown time attribution")

-- wb.work_for_error: the fitted line error = C work^-4 (three rows in range,
-- one at round-off and one pre-asymptotic, both left out) solved for 1e-8
local rows = {}
for i, w in ipairs{100, 200, 400, 800, 1e5} do
  rows[i] = {function_evals = w, seconds = w * 1e-6, error = 3 * w ^ -4}
end
rows[5].error, rows[1].error = 1e-15, 0.5
local study = {by_method = {M = rows}}
local work, slope = wb.work_for_error(study, "M", 1e-8)
wb.expect_near(slope, -4, 1e-12, "work_for_error: the slope of the rows in range")
wb.expect_near(work, (3 / 1e-8) ^ 0.25, 1e-9 * work, "work_for_error: evaluations for 1e-8")
wb.expect_near(wb.work_for_error(study, "M", 1e-8, {work = "seconds"}), work * 1e-6, 1e-12,
               "work_for_error: CPU seconds for 1e-8")
wb.check(wb.work_for_error(study, "M", 1e-8, {floor = 1e-6}) ~= wb.work_for_error(study, "M", 1e-8, {floor = 1e-6}),
         "work_for_error: NaN with fewer than two rows in range")
expect_error(function() wb.work_for_error(study, "N", 1e-8) end, "no method labelled N",
             "work_for_error: unknown label")
expect_error(function() wb.work_for_error(study, "M", -1) end, "positive number",
             "work_for_error: negative target")
expect_error(function() wb.work_for_error(study, "M", 1e-8, {work = "steps"}) end,
             "work must be 'function_evals' or 'seconds'", "work_for_error: unknown work")

-- the state stays sound after all those errors
local again = wb.integrate{model = m, method = rattle, h = 0.1, t_end = 1}
local q1 = select(1, sol:final())
local q2 = select(1, again:final())
wb.check(wb.norm(wb.sub(q1, q2)) == 0, "a run after the errors reproduces the first run exactly")
