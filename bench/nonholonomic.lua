-- Cost per step of nonholonomic.lobatto: every model of seed 001, s = 2..4,
-- the three iterations (auto: simplified Newton with full Newton as the
-- fallback; newton; simplified), and on the Lie-group models both
-- retractions.  The unknowns per step are s nv + (s - 1) k numbers.
--
-- Each configuration runs `repeats` times and the fastest counts; only the
-- first and last states are recorded (every = steps), so the time is the
-- integrator's.  Printed: microseconds per step, Newton sweeps, residual
-- evaluations and Jacobians per step, and each iteration's time relative
-- to auto.  (A sweep that applies Newton's last correction without a
-- residual, wb_newton_options.unknown_scale, is a back-substitution: the
-- residuals count the work.)
--
--   build/workbench bench/nonholonomic.lua [steps] [repeats]
local steps = tonumber(arg[1]) or 2000
local repeats = tonumber(arg[2]) or 3
local cases = {
  {model = "nonholonomic_particle", h = 0.05},
  {model = "cvt", h = 0.1},
  {model = "chaotic_nonholonomic", h = 0.05},
  {model = "vertical_disc", h = 0.05, retractions = {"cay", "exp"}},
  {model = "ball_turntable", h = 0.1, retractions = {"cay", "exp"}},
}

local function timed(model, h, options)
  local method = wb.method("lobatto", options)
  local best, stats
  for _ = 1, repeats do
    local sol = wb.integrate{model = model, method = method, h = h, steps = steps, every = steps}
    if not best or sol.stats.seconds < best then best, stats = sol.stats.seconds, sol.stats end
  end
  return 1e6 * best / steps, stats.newton_iterations / steps, stats.residual_evals / steps,
         stats.jacobian_evals / steps
end

local rows = {}
for _, c in ipairs(cases) do
  local model = wb.model(c.model)
  for _, retraction in ipairs(c.retractions or {"cay"}) do
    for s = 2, 4 do
      local base
      for _, iteration in ipairs{"auto", "newton", "simplified"} do
        local us, sweeps, residuals, jacobians = timed(model, c.h, {s = s, iteration = iteration,
                                                                    retraction = retraction})
        base = base or us
        rows[#rows + 1] = {c.model, model.lie_group and retraction or "-", tostring(s), iteration,
                           us, sweeps, residuals, jacobians, us / base}
      end
    end
  end
end
wb.printf("nonholonomic.lobatto, %d steps, fastest of %d\n", steps, repeats)
wb.print_table({"model", "retraction", "s", "iteration", "us/step", "sweeps/step", "res/step",
                "jac/step", "vs auto"}, rows, "%-14.3g")
