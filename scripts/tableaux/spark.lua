-- The constrained Lobatto IIIA-IIIB pair (spark, Jay; HLW VII.1) on the
-- spherical pendulum (m = l = 1, g = 9.81, q0 = (1,0,0), v0 = (0,1,0)) and
-- on the double spherical pendulum (m1 = m2 = l1 = l2 = 1, g = 9.81; its
-- default state: x1 at 60 degrees, x2 45 degrees below x1, v1 = (0,1,0),
-- v2 = (1.5,1,0)).
--
-- Claims checked:
--   * fitted orders 2 and 4 for s = 2 and 3 (error of (q, p) at t = 1,
--     h = 0.05 ... 0.00625, against spark with s = 5 at h = 0.00625/8, which
--     agrees with RK4 on the index-1 formulation at h = 1e-4);
--   * both constraint levels within the Newton tolerance at every step
--     (a restatement of Newton's stopping rule, which tests both);
--   * energy bounded without drift over 10^5 steps (h = 0.01): the largest
--     error over the last tenth of the run is at most twice that over the
--     first half (not the first tenth: on the double spherical pendulum,
--     s = 3, the envelope grows from 7.3e-8 over the first 2000 steps to
--     ~3e-7 and stays there: tenths of 10^5 steps 2.9e-7 ... 3.8e-7 with
--     either Newton start; over --quick's 2 x 10^4 steps the last tenth was
--     1.95 x the first with the plain start, 4.2 x with the extrapolated
--     one, 2.7 x with iteration = "auto" and the start from the forces, 4.1 x
--     with those and stage_form = "positions"; s = 2 0.88 x, 1.45 x, 1.05 x:
--     a trajectory-dependent envelope, not a drift);
--     the vertical angular momentum conserved;
--   * s = 2 is RATTLE: the two agree to round-off with tight tolerances
--     (tol = 1e-16: auto's simplified Newton iterates to round-off so; the
--     references likewise, where step_tol = 1e-15 did it through full
--     Newton's last, overshooting update).
--
--   workbench scripts/tableaux/spark.lua           10^5 steps
--   workbench scripts/tableaux/spark.lua --quick   2 x 10^4 steps
local tol = 1e-12
local long_steps = wb.quick and 20000 or 100000

for _, name in ipairs{"spherical_pendulum", "double_spherical_pendulum"} do
  local model = wb.model(name)
  local reference = {h = 0.00625 / 8, method = wb.method("spark", {s = 5, tol = 1e-16})}
  local rk4 = wb.integrate{model = model, method = "rk4", h = 1e-4, t_end = 1, every = 2 ^ 53}
  local ref = wb.integrate{model = model, method = reference.method, h = reference.h, t_end = 1,
                           every = 2 ^ 53}
  local ref_gap = wb.norm(wb.sub(wb.concat(ref:final()), wb.concat(rk4:final())))
  wb.expect_below(ref_gap, 1e-9, name .. ": spark s = 5 reference agrees with index-1 RK4")
  local series = {}
  for s = 2, 3 do
    local method = wb.method("spark", {s = s, tol = tol})
    local r = wb.order{model = model, method = method, t_end = 1,
                       h = {0.05, 0.025, 0.0125, 0.00625}, reference = reference}
    wb.print_order(r, string.format("%s, spark s = %d", name, s))
    wb.expect_near(r.order, 2 * s - 2, 0.2, string.format("%s: spark s = %d has order %d", name, s, 2 * s - 2))
    series[#series + 1] = {x = r.h, y = r.errors, title = string.format("s = %d", s), with = "linespoints"}

    local sol = wb.integrate{model = model, method = method, h = 0.01, steps = long_steps, every = 10}
    -- both residuals are in Newton's stopping test: these restate it, step by step
    wb.expect_below(sol:max("constraint"), tol, string.format(
      "%s, s = %d: |g| within the Newton tolerance (restates the stopping rule)", name, s))
    wb.expect_below(sol:max("hidden_constraint"), tol, string.format(
      "%s, s = %d: |G M^-1 p| within the Newton tolerance (restates the stopping rule)", name, s))
    local e = sol:column("energy_error")
    local first, last = wb.tenths(e)
    local half = 0 -- the chaotic double pendulum's envelope is still growing over the first tenth
    for i = 1, #e // 2 do half = math.max(half, math.abs(e[i])) end
    wb.printf("  %d steps: energy error max %.2e (first tenth) %.2e (first half) %.2e (last tenth), %.1f Newton iterations per step, %.2f s\n",
              long_steps, first, half, last, sol.stats.mean_newton_iterations, sol.stats.seconds)
    wb.expect_below(last, 2 * half, string.format("%s, s = %d: no energy drift over %d steps", name, s, long_steps))
    wb.expect_below(wb.drift(sol:column("Lz")), 1e-11, string.format("%s, s = %d: Lz conserved", name, s))
    if s == 3 then
      wb.plot{file = "plots/tableaux/spark_energy_" .. name .. ".png",
              title = name .. ", spark s = 3, h = 0.01: relative energy error",
              xlabel = "t", ylabel = "(E - E0) / sol.energy_scale", series = {{x = sol.t, y = e, title = "s = 3"}}}
    end
  end
  wb.plot{file = "plots/tableaux/spark_orders_" .. name .. ".png", logscale = "xy",
          title = name .. ": spark, error of (q, p) at t = 1", xlabel = "h", ylabel = "error",
          key = "bottom right", series = series}
end

-- s = 2 is RATTLE
local model = wb.model("spherical_pendulum")
local a = wb.integrate{model = model, method = wb.method("spark", {s = 2, tol = 1e-16}), h = 0.01, steps = 1000}
local b = wb.integrate{model = model, method = wb.method("rattle", {tol = 1e-15}), h = 0.01, steps = 1000}
local gap = wb.norm(wb.sub(wb.concat(a:final()), wb.concat(b:final())))
wb.expect_below(gap, 1e-13, "spark s = 2 reproduces RATTLE (1000 steps, both iterated to machine precision)")
