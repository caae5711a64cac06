-- What does the quadrature cost?  Time per step of HBVM(k, s) on the
-- tethered satellites (nine coordinates, three constraints; the model's
-- default state, h = 0.05, 4000 steps, t in [0, 200]) for k = s, 2s, 3s,
-- 6s and s = 1, 2, 3, against HBVM(s, s) -- s-stage Gauss with the
-- piecewise-constant multiplier, the same unknowns and the fewest stages.
--
-- The unknowns per step are the s Legendre coefficients and the multiplier
-- (9 s + 3 numbers) whatever k is; k only sets how many stages are
-- evaluated per sweep.  So the expected ratio is 1 plus the extra
-- evaluations: t(k, s) / t(s, s) ~ 1 + (k - s) * sweeps * c_eval / t(s, s),
-- with c_eval the cost of one stage evaluation (grad V and G at one point,
-- plus its share of the quadrature sums).  The script fits
-- t = a_s + c_eval * (evaluations per step) for each s and prints the
-- predicted ratio beside the measured one.
--
-- Each configuration runs `repeats` times; the fastest run counts.  Only
-- the first and last states are recorded (every = steps), so the time is
-- the integrator's.  A second table compares the three solvers at (6, 2).
--
--   build/workbench bench/hbvm.lua [steps] [repeats]
local steps = tonumber(arg[1]) or 4000
local repeats = tonumber(arg[2]) or 5
local model = wb.model("tethered_satellites")
local h = 0.05

local function timed(options)
  local method = wb.method("hbvm", options)
  local best, stats
  for _ = 1, repeats do
    local sol = wb.integrate{model = model, method = method, h = h, steps = steps, every = steps,
                             progress = false}
    if not best or sol.stats.seconds < best then best, stats = sol.stats.seconds, sol.stats end
  end
  return {us = 1e6 * best / steps, sweeps = stats.newton_iterations / steps,
          evals = stats.function_evals / steps, solves = stats.linear_solves / steps,
          jacobians = stats.jacobian_evals / steps}
end

wb.printf("HBVM(k,s) on tethered_satellites, h = %g, %d steps, best of %d runs, fixed-point "
          .. "iteration to round-off\n\n", h, steps, repeats)
local rows = {}
for s = 1, 3 do
  local runs = {}
  for i, k in ipairs({s, 2 * s, 3 * s, 6 * s}) do runs[i] = {k = k, r = timed({k = k, s = s})} end
  local xs, ys = {}, {}
  for i, run in ipairs(runs) do xs[i], ys[i] = run.r.evals, run.r.us end
  local a, c_eval = wb.fit_line(xs, ys) -- least squares t = a + c_eval * evals
  local base = runs[1].r
  for _, run in ipairs(runs) do
    local r = run.r
    local predicted = 1 + (r.evals - base.evals) * c_eval / base.us
    rows[#rows + 1] = {string.format("HBVM(%d,%d)", run.k, s), r.us, r.sweeps, r.evals,
                       r.us / base.us, predicted, r.evals / base.evals}
  end
  rows[#rows + 1] = {string.format("  s = %d fit", s), a, "us + ", c_eval, "us/eval", "", ""}
end
wb.print_table({"method", "us/step", "sweeps/step", "evals/step", "t/t(s,s)", "1+extra evals",
                "evals ratio"}, rows, "%-14.4g")
wb.printf("\n(t/t(s,s): measured ratio to s-stage Gauss; 1+extra evals: the cost model "
          .. "a_s + c_eval * evals fitted per s)\n\n")

local solver_rows = {}
for _, iteration in ipairs({"fixed_point", "newton", "simplified"}) do
  local r = timed({k = 6, s = 2, iteration = iteration})
  solver_rows[#solver_rows + 1] = {iteration, r.us, r.sweeps, r.evals, r.jacobians, r.solves}
end
wb.printf("solvers for HBVM(6,2), same problem:\n")
wb.print_table({"iteration", "us/step", "iter/step", "evals/step", "Jacobians", "lin. solves"},
               solver_rows, "%-14.4g")

-- Without constraints: the fixed point in the stage positions (the Nystrom
-- form, stage_form = "nystrom"; the default for k = s) against the Legendre
-- coefficients, on Kepler (e = 0.5, h = 0.01) and the outer solar system
-- (h = 10 days).
local form_rows = {}
for _, problem in ipairs{{"Kepler", wb.model("kepler", {e = 0.5}), 0.01, 10 * steps},
                         {"solar system", wb.model("outer_solar_system"), 10, steps}} do
  for _, ks in ipairs{{2, 2}, {4, 4}, {6, 3}} do
    local t = {}
    for _, form in ipairs{"nystrom", "legendre"} do
      local method = wb.method("hbvm", {k = ks[1], s = ks[2], stage_form = form})
      local best, stats
      for _ = 1, repeats do
        local sol = wb.integrate{model = problem[2], method = method, h = problem[3],
                                 steps = problem[4], every = problem[4], progress = false}
        if not best or sol.stats.seconds < best then best, stats = sol.stats.seconds, sol.stats end
      end
      t[form] = {us = 1e6 * best / problem[4], sweeps = stats.newton_iterations / problem[4]}
    end
    form_rows[#form_rows + 1] = {problem[1], string.format("HBVM(%d,%d)", ks[1], ks[2]),
                                 t.nystrom.us, t.nystrom.sweeps, t.legendre.us,
                                 t.legendre.sweeps, t.nystrom.us / t.legendre.us}
  end
end
wb.printf("\nwithout constraints, the fixed point's two forms:\n")
wb.print_table({"problem", "method", "nystrom us", "sweeps", "legendre us", "sweeps", "ratio"},
               form_rows, "%-14.4g")
