-- progress = true shows one line across the runs of the multi-run helpers
-- (the test's regular expression reads it from stderr); the default on a
-- pipe is none.
local m, rattle = wb.model("pendulum"), wb.method("rattle")
local r = wb.order{model = m, method = rattle, t_end = 0.5, steps = {5, 10, 20},
                   reference = {steps = 160}, progress = true}
wb.expect_near(r.order, 2, 0.2, "wb.order with progress = true still fits RATTLE's order")
io.stderr:write("[order done]\n")
local quiet = wb.order{model = m, method = rattle, t_end = 0.5, steps = {5, 10},
                       reference = {steps = 160}, progress = false}
io.stderr:write("[quiet done]\n")
wb.check(#quiet.errors == 2, "wb.order with progress = false")
local w = wb.work_precision{model = m, t_end = 0.5, methods = {rattle}, h = {0.1, 0.05},
                            reference = {h = 0.001}, progress = true}
wb.check(#w.rows == 2, "wb.work_precision with progress = true")
local c = wb.check_method{method = "verlet", models = {"kepler"}, quick = true, print = false,
                          progress = true}
wb.check(c.failures == 0 and c.checked > 0, "wb.check_method with progress = true")
