-- hbvm without constraints: the fixed point in the stage positions
-- (stage_form = "nystrom", what "auto" picks for k = s) against the same
-- iteration on the Legendre coefficients (stage_form = "legendre"): the
-- same iterates in exact arithmetic (Z = h I gamma), so the two paths land
-- on the same solution to round-off, for k = s (Gauss) and k > s, on
-- Kepler and on the outer solar system (a non-identity diagonal mass).
-- The form is refused where it does not apply (constraints, Newton).
local function final(model, options, h, steps)
  local sol = wb.integrate{model = model, method = wb.method("hbvm", options), h = h,
                           steps = steps, every = steps}
  return wb.concat(sol:final()), sol
end

local function with(options, form)
  local copy = {stage_form = form}
  for k, v in pairs(options) do copy[k] = v end
  return copy
end

local cases = {
  {"Kepler e = 0.5", wb.model("kepler", {e = 0.5}), 0.05, 2000},
  {"outer solar system", wb.model("outer_solar_system"), 10, 2000},
}
for _, case in ipairs(cases) do
  local label, model, h, steps = case[1], case[2], case[3], case[4]
  for _, ks in ipairs{{2, 2}, {4, 4}, {6, 3}, {4, 2}} do
    local options = {k = ks[1], s = ks[2]}
    local legendre, lsol = final(model, with(options, "legendre"), h, steps)
    local nystrom, nsol = final(model, with(options, "nystrom"), h, steps)
    local auto = final(model, options, h, steps)
    local distance = wb.norm(wb.sub(nystrom, legendre)) / wb.norm(legendre)
    wb.expect_below(distance, 1e-12,
                    string.format("%s, HBVM(%d,%d): Nystrom and Legendre forms agree "
                                  .. "(%.2f and %.2f sweeps a step)", label, ks[1], ks[2],
                                  nsol.stats.newton_iterations / steps,
                                  lsol.stats.newton_iterations / steps))
    local expected = ks[1] == ks[2] and nystrom or legendre
    wb.check(wb.norm(wb.sub(auto, expected)) == 0,
             string.format("%s, HBVM(%d,%d): auto is the %s form", label, ks[1], ks[2],
                           ks[1] == ks[2] and "Nystrom" or "Legendre"))
    wb.expect_below(math.abs(nsol:column("energy_error")[#nsol:column("energy_error")]), 1e-6,
                    string.format("%s, HBVM(%d,%d): energy error bounded", label, ks[1], ks[2]))
  end
end

wb.expect_error(function()
  wb.integrate{model = wb.model("spherical_pendulum"), h = 0.01, steps = 1,
               method = wb.method("hbvm", {stage_form = "nystrom"})}
end, "needs a model without constraints", "stage_form = nystrom refused with constraints")
wb.expect_error(function()
  wb.integrate{model = wb.model("kepler"), h = 0.01, steps = 1,
               method = wb.method("hbvm", {stage_form = "nystrom", iteration = "newton"})}
end, "iteration = \"fixed_point\"", "stage_form = nystrom refused with Newton")
