-- SPARK's iterations compared by counts, for callgrind (no wall clock): one
-- run of spark with the given stage count, step, number of steps and
-- iteration on the spherical pendulum ("sphere", the default), the double
-- spherical pendulum ("double"), or pendulum_chain with N = 10 dense
-- ("chain10") or N = 100 sparse ("chain"), in the stage form given last
-- (the default's when none); prints the updates, residuals, Jacobians (each
-- factored once) and refreshes a step.  Instructions a step: the
-- difference of two runs' callgrind totals over the difference of their
-- steps (the total of the process valgrind started: the plugin loader's
-- children report their own), e.g.
--
--   valgrind --tool=callgrind build/workbench bench/spark_iteration.lua 3 0.01 200 auto
--   valgrind --tool=callgrind build/workbench bench/spark_iteration.lua 3 0.01 1200 auto
--   valgrind --tool=callgrind build/workbench bench/spark_iteration.lua 3 1e-3 20 auto chain
--   valgrind --tool=callgrind build/workbench bench/spark_iteration.lua 3 0.01 200 auto sphere momenta
local s, h, steps = tonumber(arg[1] or 3), tonumber(arg[2] or 0.01), tonumber(arg[3] or 1000)
local iteration, which = arg[4] or "auto", arg[5] or "sphere"
local options = {s = s, iteration = iteration, stage_form = arg[6]}
local model
if which == "chain" then
  model, options.linear_solver = wb.model("pendulum_chain", {N = 100}), "sparse"
elseif which == "chain10" then
  model, options.linear_solver = wb.model("pendulum_chain", {N = 10}), "dense"
elseif which == "double" then
  model = wb.model("double_spherical_pendulum")
else
  model = wb.model("spherical_pendulum")
end
local sol = wb.integrate{model = model, method = wb.method("spark", options), h = h,
                         steps = steps, every = steps}
local st = sol.stats
wb.printf("%s, s = %d, h = %g, %s, %s: a step %.3f updates, %.3f residuals, %.4f Jacobians, "
          .. "%.4f refreshes\n", which, s, h, iteration, options.stage_form or "default", st.newton_iterations / st.steps,
          st.residual_evals / st.steps, st.jacobian_evals / st.steps,
          (st.jacobian_refreshes or 0) / st.steps)
