-- RATTLE takes the model's projection (wb.holonomic_point/1's project(),
-- ABI 1.7) when it has one: on bad_projection_model, whose project()
-- iterates on |q|^2 - 1 - 1e-6 while its evaluate() is right, the runs with
-- and without model_projection differ, and each lands on the constraint its
-- iteration solved (on the pendulum and the spherical pendulum, whose
-- project() is right, tests/lua/holonomic_projection.lua finds them bitwise
-- equal).
local model = wb.model("bad_projection_model")
-- (check_claims = false: the driver would refuse the shifted positions,
-- below; here they are what is measured)
local function final(projection)
  local sol = wb.integrate{model = model, h = 0.01, steps = 200, every = 2 ^ 53,
                           method = wb.method("rattle", {model_projection = projection}),
                           check_claims = false}
  wb.check(sol.ok, "model_projection = " .. tostring(projection) .. ": 200 steps")
  return {sol:final()}
end
local here, projected = final(false), final(true)
-- by default the driver refuses the first checked step of the shifted
-- iteration: RATTLE claims g(q) = 0, and 1e-6 of g's terms is no round-off
local sol = wb.integrate{model = model, h = 0.01, steps = 200, every = 2 ^ 53,
                         method = wb.method("rattle"), on_failure = "stop"}
wb.check(not sol.ok and sol.failure:find("breaks its claim g%(q%) = 0: g1 = 1e%-06", 1) ~= nil
         and #sol.t == 1,
         "the shifted projection's positions are refused by the driver (claim g = 0)",
         tostring(sol.failure))
local function radius_error(state) return state[1][1] ^ 2 + state[1][2] ^ 2 - 1 end
wb.expect_below(math.abs(radius_error(here)), 1e-12,
                "model_projection = false: RATTLE's own iteration keeps |q|^2 = 1")
wb.expect_near(radius_error(projected), 1e-6, 1e-12,
               "model_projection = true: the positions solve the model's (shifted) iteration")
