-- RATTLE takes the model's combined evaluation when it has one: on
-- bad_point_model, whose wb.holonomic_point/1 reports dg/dx 1% too large, the
-- runs with and without it differ (on the pendulum and the spherical
-- pendulum, whose combined call is right, tests/lua/rattle.lua finds them
-- bitwise equal).
local model = wb.model("bad_point_model")
local function final(combined)
  local sol = wb.integrate{model = model, h = 0.01, steps = 200, every = 2 ^ 53,
                           method = wb.method("rattle", {combined_evaluation = combined}),
                           check_claims = false}
  return wb.concat(sol:final())
end
local separate, combined = final(false), final(true)
-- by default the driver refuses the wrong G's momenta: RATTLE claims
-- G M^-1 p = 0, which the true G finds broken at its first checked step
local sol = wb.integrate{model = model, h = 0.01, steps = 200, every = 2 ^ 53,
                         method = wb.method("rattle", {combined_evaluation = true}),
                         on_failure = "stop"}
wb.check(not sol.ok and sol.failure:find("breaks its claim G%(q%) M%^%-1 p = 0: gv1", 1) ~= nil,
         "the wrong combined G's momenta are refused by the driver (claim G M^-1 p = 0)",
         tostring(sol.failure))
local difference = wb.norm(wb.sub(separate, combined), "inf")
wb.check(difference > 1e-3, "the wrong combined G changes RATTLE's results",
         string.format("max |difference| %.3e", difference))
-- the separate path is the pendulum's: its constraint holds
local q = {separate[1], separate[2]}
wb.expect_below(math.abs(q[1] ^ 2 + q[2] ^ 2 - 1), 1e-12, "separate calls: |q| = 1")
