-- The study tests/sweep/cli.sh runs every way: RATTLE and SHAKE on the
-- spherical pendulum at four step sizes; the results file is arg[1].
local cases = {}
for _, method in ipairs{"rattle", "shake"} do
  for _, h in ipairs{0.1, 0.05, 0.025, 0.0125} do cases[#cases + 1] = {method = method, h = h} end
end
local T = wb.sweep{cases = cases, out = arg[1], progress = false, run = function(c)
  local sol = wb.integrate{model = wb.model("spherical_pendulum"), method = c.method, h = c.h,
                           t_end = 1}
  return {energy_error = sol:max("energy_error"), steps = sol.stats.steps}
end}
wb.check(#T == #cases, "all cases have a row")
