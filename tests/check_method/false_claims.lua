-- check-method finds false claims: explicit Euler declared order 2,
-- symplectic, symmetric, energy- and momentum-conserving (and explicit,
-- which is true).
local r = wb.check_method{method = "false_claims.euler", models = {"kepler", "angle_pendulum"},
                          quick = true}
local verdicts = {}
for _, row in ipairs(r.rows) do
  if row.ok ~= nil then
    verdicts[row.property] = verdicts[row.property] or {}
    table.insert(verdicts[row.property], row.ok)
  end
end
local function all(property, value)
  local list = verdicts[property]
  if not list then return false end
  for _, v in ipairs(list) do if v ~= value then return false end end
  return true
end
for _, property in ipairs{"order", "symplectic", "symmetric", "energy_conserving"} do
  wb.check(all(property, false), "the false claim '" .. property .. "' fails on every model")
end
wb.check(all("momentum_conserving", false), "the false claim 'momentum_conserving' (L of Kepler) fails")
wb.check(all("explicit", true) and all("continuation", true),
         "the true claims (explicit, continuation) pass")
wb.check(r.failures > 0 and r.checked > r.failures, "failures counted among the checks",
         r.failures .. " of " .. r.checked)
for _, row in ipairs(r.rows) do
  if row.property == "order" then
    wb.expect_near(tonumber(row.measured), 1, 0.15, "the measured order is Euler's 1 (" .. row.model .. ")")
  end
end

-- the real claims of a shipped method pass, by the same measurements
local v = wb.check_method{method = "verlet", models = {"kepler"}, quick = true, print = false}
wb.check(v.failures == 0 and v.checked >= 8, "Stormer-Verlet's claims hold on Kepler",
         v.failures .. " of " .. v.checked)
-- and a symplectic method's defect is far below a non-symplectic one's
local M = wb._method_measurements
local kepler = wb.model("kepler", {e = 0.5})
local q, p = kepler:initial()
local tau = M.time_scale(kepler, q, p)
local sv = M.symplectic(kepler, wb.method("verlet"), q, p, tau / 2)
local rk4 = M.symplectic(kepler, wb.method("rk4"), q, p, tau / 2)
wb.check(sv < 1e-9 and rk4 > 1e-4, "symplecticity defect: Verlet at round-off, RK4 visible",
         string.format("%.1e vs %.1e", sv, rk4))
