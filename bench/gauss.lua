-- Benchmark: Gauss collocation with s = 2, 3, 4 stages, simplified Newton
-- (one Jacobian and one LU per step), stages iterated to machine precision,
-- compensated summation: steps per second and the error at the end, on
-- the Kepler problem (e = 0.5, 100 periods) and on the outer solar system
-- (HLW I.2.4: 200 000 days).  The comparison point is Hairer's gni_irk2.
--
--   workbench bench/gauss.lua           (about a minute)
--   workbench bench/gauss.lua --quick   (a few seconds)
local quick = wb.quick

local function reference(model, t_end, steps)
  local sol = wb.integrate{model = model, t_end = t_end, h = t_end / steps, every = 2 ^ 53,
                           method = wb.method("rk", {tableau = wb.tableau.gauss(8)})}
  return wb.concat(sol:final())
end

local function run(label, model, t_end, step_counts, ref)
  wb.printf("\n%s\n  %-8s %-10s %-12s %-14s %-12s %-10s %s\n", label, "method", "steps", "h",
            "steps/s", "error", "Newton/step", "seconds")
  for s = 2, 4 do
    for _, steps in ipairs(step_counts) do
      local method = wb.method("rk", {tableau = wb.tableau.gauss(s)})
      local sol = wb.integrate{model = model, method = method, h = t_end / steps, steps = steps,
                               every = 2 ^ 53}
      local err = wb.norm(wb.sub(wb.concat(sol:final()), ref))
      wb.printf("  gauss%-3d %-10d %-12.5g %-14.4e %-12.3e %-10.2f %.3f\n", s, steps, t_end / steps,
                steps / sol.stats.seconds, err, sol.stats.mean_newton_iterations, sol.stats.seconds)
    end
  end
end

local kepler = wb.model("kepler", {e = 0.5})
local periods = quick and 10 or 100
local t_kepler = 2 * math.pi * periods
run(string.format("Kepler e = 0.5, %d periods", periods), kepler, t_kepler,
    {periods * 100, periods * 400}, reference(kepler, t_kepler, periods * 4000))

local solar = wb.model("outer_solar_system")
local t_solar = quick and 20000 or 200000
run(string.format("outer solar system, %g days", t_solar), solar, t_solar,
    {t_solar / 50, t_solar / 10}, reference(solar, t_solar, t_solar / 2))
