-- The flagship tour: the spherical pendulum of Kinon-Betsch-Schneider
-- (q0 = (1,0,0), v0 = (0,1,0), m = l = 1, g = 9.81) integrated by every
-- installed method that applies to it, at h = 0.01.
--
-- For each method it plots the energy error, the residuals of the position
-- and velocity constraints, and the drift of the vertical angular momentum
-- Lz, and it checks every property the method claims (workbench list shows
-- them): constraints held at the nodes, momentum or energy conserved,
-- bounded energy error for symplectic methods.  New plugins join the tour
-- by being installed.
--
--   workbench scripts/tour.lua           t in [0, 100]  (10^4 steps)
--   workbench scripts/tour.lua --quick   t in [0, 20]
local model = wb.model("spherical_pendulum")
local h = 0.01
local t_end = wb.quick and 20 or 100

local function abs_all(values) return wb.map(values, math.abs) end
local function drift(values) return abs_all(wb.deviation(values)) end -- |x_n - x_0|

local runs, skipped = {}, {}
for _, name in ipairs(wb.list_methods()) do
  local method = wb.method(name)
  local applies, why = method:applies_to(model)
  if applies then
    local sol = wb.integrate{model = model, method = method, h = h, t_end = t_end}
    runs[#runs + 1] = {name = name, method = method, sol = sol}
  else
    skipped[#skipped + 1] = {name, why}
  end
end

wb.printf("spherical pendulum, h = %g, t in [0, %g], %d methods apply\n", h, t_end, #runs)
local rows = {}
for _, r in ipairs(runs) do
  local s = r.sol
  r.lz_drift = wb.drift(s:column("Lz"))
  rows[#rows + 1] = {r.name, r.method.order, s:max("energy_error"), s:max("constraint"),
                     s:max("hidden_constraint"), r.lz_drift, s.stats.seconds}
end
wb.print_table({"method", "order", "max|dE|/scale", "max|g|", "max|G M^-1 p|", "max|dLz|", "seconds"},
               rows, "%-14.3g")
for _, s in ipairs(skipped) do wb.printf("  skipped %s: %s\n", s[1], s[2]) end

-- Figures: one series per method.
local function series(column, transform)
  local out = {}
  for _, r in ipairs(runs) do
    out[#out + 1] = {x = r.sol.t, y = transform(r.sol:column(column)), title = r.name}
  end
  return out
end
local layout = {size = {1100, 560}, key = "outside right"}
wb.plot{file = "plots/tour/energy_error.png", logscale = "y", size = layout.size, key = layout.key,
        title = "spherical pendulum: relative energy error |E(t) - E0| / max(|E0|, |T0| + |V0|)",
        xlabel = "t", ylabel = "|E - E0| / sol.energy_scale", series = series("energy_error", abs_all)}
wb.plot{file = "plots/tour/constraint.png", logscale = "y", size = layout.size, key = layout.key,
        title = "position constraint residual |g(q_n)|", xlabel = "t", ylabel = "|g|",
        series = series("constraint", abs_all)}
wb.plot{file = "plots/tour/hidden_constraint.png", logscale = "y", size = layout.size,
        key = layout.key,
        title = "velocity constraint residual |G(q_n) M^-1 p_n|", xlabel = "t",
        ylabel = "|G M^-1 p|", series = series("hidden_constraint", abs_all)}
wb.plot{file = "plots/tour/momentum.png", logscale = "y", size = layout.size, key = layout.key,
        title = "vertical angular momentum drift |Lz(t) - Lz(0)|", xlabel = "t",
        ylabel = "|Lz - Lz0|", series = series("Lz", drift)}

-- Every claim checked.
wb.check(#runs >= 3, "at least RATTLE, SHAKE and RK4 apply to the spherical pendulum",
         tostring(#runs))
local held = 1e-8 -- a constraint "holds" to the method's Newton tolerance (<= 1e-9 by default)
for _, r in ipairs(runs) do
  local props, s = r.method.properties, r.sol
  -- H and g of the spherical pendulum are quadratic: within every degree a
  -- line-integral method's quadrature integrates exactly
  if props.conserving_if_polynomial then
    wb.expect_below(s:max("constraint"), held, r.name .. ": g(q_n) = 0 (quadratic g)")
    wb.expect_below(s:max("energy_error"), held, r.name .. ": energy conserved (quadratic H)")
  end
  if props.position_constraint then
    wb.expect_below(s:max("constraint"), held, r.name .. ": g(q_n) = 0 at every node")
  end
  if props.velocity_constraint then
    wb.expect_below(s:max("hidden_constraint"), held, r.name .. ": G M^-1 p = 0 at every node")
  end
  if props.momentum_conserving then
    wb.expect_below(r.lz_drift, held, r.name .. ": Lz conserved")
  end
  if props.energy_conserving then
    wb.expect_below(s:max("energy_error"), held, r.name .. ": energy conserved")
  end
  if props.symplectic then
    local first, last = wb.tenths(s:column("energy_error"))
    wb.expect_below(last, 2 * first, r.name .. ": energy error bounded, no drift")
  end
  if r.name == "classic.rk4" then -- the non-geometric baseline: index-1 form, no projection
    wb.check(s:max("constraint") > 1e3 * held, r.name .. ": drifts off the constraint",
             string.format("%.1e", s:max("constraint")))
  end
end
