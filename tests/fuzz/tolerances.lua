-- Newton tolerances scaled to the problem (issue 13): the pendulum from
-- l = 1e-6 to 1e6 (its declared range is [1e-12, 1e12]) with every
-- constrained Newton method at the same step relative to its period; the
-- relative energy error is the same at every length (the problem only
-- changes scale), the constraint holds to round-off relative to l^2.  Then
-- SPARK on tethered_satellites at a small step, the smallest declared tol,
-- and a range bound shown exactly in a refusal.
local lengths = {1e-6, 1e-3, 1, 100, 1e4, 1e6}
local methods = {"rattle", "shake", "spark", "ggl.vi_s", "ggl.vi_theta", "ggl.em",
                 "ggl.em_gonzalez"}
for _, name in ipairs(methods) do
  local reference, worst_g, worst_spread, worst_e, failures = nil, 0, 0, 0, {}
  for _, l in ipairs(lengths) do
    local m = wb.model("pendulum", {l = l})
    local h = 2 * math.pi * math.sqrt(l / 9.81) / 100
    local ok, sol = pcall(wb.integrate, {model = m, method = name, h = h, steps = 200,
                                         every = 200})
    if not ok then
      failures[#failures + 1] = string.format("l = %g: %s", l, tostring(sol))
    else
      local e = sol:max("energy_error")
      reference = reference or e
      worst_e = math.max(worst_e, e)
      worst_spread = math.max(worst_spread, math.abs(e - reference) / math.max(reference, 1e-300))
      if name ~= "ggl.vi_theta" then -- VI-A violates g by design, O(h^2)
        worst_g = math.max(worst_g, sol:max("constraint") / (l * l))
      end
    end
  end
  wb.check(#failures == 0, name .. ": every length from 1e-6 to 1e6 integrates",
           table.concat(failures, "; "))
  wb.expect_below(worst_g, 1e-12, name .. ": |g| / l^2 at round-off at every length")
  if reference and reference > 1e-12 then
    wb.expect_below(worst_spread, 1e-3,
                    name .. ": the same relative energy error at every length (scale-free)")
  else -- energy-conserving schemes: round-off at every length
    wb.expect_below(worst_e, 1e-13, name .. ": energy conserved to round-off at every length")
  end
end

local ts = wb.model("tethered_satellites")
for _, h in ipairs{0.001, 0.05} do
  local ok, sol = pcall(wb.integrate, {model = ts, method = "spark", h = h, steps = 100})
  wb.check(ok, "SPARK on tethered_satellites at h = " .. h, not ok and tostring(sol) or nil)
end

-- the smallest tolerance the options declare is reached (at round-off) at
-- the largest length too
local big = wb.model("pendulum", {l = 1e6})
for _, name in ipairs{"rattle", "spark"} do
  local ok, sol = pcall(wb.integrate, {model = big, method = wb.method(name, {tol = 1e-16}),
                                       h = 20, steps = 50})
  wb.check(ok, name .. ": tol = 1e-16 (the declared minimum) works at l = 1e6",
           not ok and tostring(sol) or nil)
end

-- a refused value is shown against its exact bounds
local ok, err = pcall(wb.model, "conical_pendulum", {angle = 1.5708})
wb.check(not ok and tostring(err):find("= 1.5708 is outside [1e-06, 1.5707953267948966]", 1,
                                        true),
         "the refusal shows the bound exactly, not rounded onto the value", tostring(err))
