-- The model's projection (wb.holonomic_point/1's project(), ABI 1.7):
-- pendulum and spherical pendulum run RATTLE's and SHAKE's one-constraint
-- Newton iteration themselves, on their own point evaluation, one model
-- call a step.  It is the same iteration, operation for operation, so
-- every result must be the same to the last bit as RATTLE's own iteration
-- on the model's combined evaluation (model_projection = false) and on
-- the separate callbacks (combined_evaluation = false): final state,
-- multipliers, every counter of the statistics, and, where the iteration
-- fails, the step and the message.  The cases reach each exit of the
-- iteration: the tolerance (defaults), the round-off rule (tol = 1e-16,
-- below g's round-off), several updates a step (h = 0.2), and the failures
-- (max_iter too small for the step).  That RATTLE does take the model's
-- iteration is tests/plugins/bad_projection.lua's (a wrong project()
-- changes its results).
local modes = {
  {name = "model's projection", options = {}},
  {name = "RATTLE's iteration on the point evaluation", options = {model_projection = false}},
  {name = "separate calls", options = {combined_evaluation = false}},
}
local cases = {
  {name = "h = 0.01", h = 0.01, steps = 2000},
  {name = "tol = 1e-16 (the round-off rule)", h = 0.01, steps = 500, tol = 1e-16},
  {name = "h = 0.2 (several updates a step)", h = 0.2, steps = 300},
  {name = "max_iter = 1, h = 0.3 (fails)", h = 0.3, steps = 50, max_iter = 1},
  {name = "max_iter = 2, h = 0.5 (fails)", h = 0.5, steps = 50, max_iter = 2},
}
local counters = {"steps", "newton_iterations", "residual_evals", "jacobian_evals",
                  "linear_solves", "function_evals"}

local function run(model, method, case, mode)
  local options = {tol = case.tol, max_iter = case.max_iter}
  for k, v in pairs(mode.options) do options[k] = v end
  local sol = wb.integrate{model = model, method = wb.method(method, options), h = case.h,
                           steps = case.steps, every = 2 ^ 53, on_failure = "stop"}
  local q, p = sol:final()
  local values = wb.concat(q, p)
  for _, column in ipairs(method == "rattle" and {"lambda", "mu"} or {"lambda"}) do
    local c = sol:column(column)
    values[#values + 1] = c[#c]
  end
  return {ok = sol.ok, failure = sol.failure, values = values, stats = sol.stats}
end

local function same_values(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    -- NaN (a multiplier not yet defined) equals NaN here
    if not (a[i] == b[i] or (a[i] ~= a[i] and b[i] ~= b[i])) then return false end
  end
  return true
end

-- wb.compile_model writes project() for a model with one constraint: a
-- spherical pendulum (nq = 3) and a particle on the unit sphere of R^4
-- (nq = 4: RATTLE's step for any n, the model's loops unrolled for 4).
local compiled = {
  wb.compile_model{
    name = "projection_sphere3", nq = 3,
    params = {m = {3.7, min = 1e-12}, l = {1, min = 1e-12}, g = {9.81, min = 0}},
    mass = function(q, P) return P.m end,
    potential = function(q, P) return P.m * P.g * q[3] end,
    constraints = function(q, P) return {0.5 * ((q[1]^2 + q[2]^2 + q[3]^2) / P.l^2 - 1)} end,
    initial = function(P) return {P.l, 0, 0}, {0, P.m, 0} end,
  },
  wb.compile_model{
    name = "projection_sphere4", nq = 4,
    params = {m = {2.5, min = 1e-12}, g = {9.81, min = 0}},
    mass = function(q, P) return P.m end,
    potential = function(q, P) return P.m * P.g * q[4] end,
    constraints = function(q, P) return {0.5 * (q[1]^2 + q[2]^2 + q[3]^2 + q[4]^2 - 1)} end,
    initial = function(P) return {1, 0, 0, 0}, {0, P.m, 0.3, 0} end,
  },
}
local models = {wb.model("pendulum", {m = 3.7}), wb.model("spherical_pendulum", {m = 3.7}),
                compiled[1], compiled[2]}

for _, model in ipairs(models) do
  local name = model.name
  for _, method in ipairs{"rattle", "shake"} do
    for _, case in ipairs(cases) do
      local runs = {}
      for i, mode in ipairs(modes) do runs[i] = run(model, method, case, mode) end
      local reference = runs[1]
      local label = string.format("%s on %s, %s", method, name, case.name)
      wb.check(reference.ok == (case.max_iter == nil),
               label .. ": " .. (case.max_iter and "fails" or "runs"), reference.failure)
      for i = 2, #modes do
        local other = runs[i]
        wb.check(other.ok == reference.ok and other.failure == reference.failure,
                 string.format("%s: the same outcome as with the %s", label, modes[i].name),
                 tostring(other.failure) .. " / " .. tostring(reference.failure))
        wb.check(same_values(reference.values, other.values),
                 string.format("%s: state and multipliers bitwise equal to the %s", label,
                               modes[i].name))
        local differing = {}
        for _, counter in ipairs(counters) do
          if reference.stats[counter] ~= other.stats[counter] then
            differing[#differing + 1] = string.format("%s %s / %s", counter,
                                                      tostring(reference.stats[counter]),
                                                      tostring(other.stats[counter]))
          end
        end
        wb.check(#differing == 0, string.format("%s: the same counts as the %s", label,
                                                modes[i].name), table.concat(differing, ", "))
      end
    end
  end
end

-- check-model compares each model's project() with the iteration run on
-- its evaluate() (a wrong one fails: tests/plugins, check_model_bad_projection).
for _, model in ipairs(models) do
  wb.check(wb.check_model(model) == 0, model.name .. ": check-model passes")
end

-- With two constraints a compiled model gives the point evaluation alone
-- (project() is for one): RATTLE's general step, as before.
do
  local two = wb.compile_model{
    name = "projection_two_rows", nq = 3,
    params = {},
    mass = function(q, P) return 1 end,
    potential = function(q, P) return 9.81 * q[3] end,
    constraints = function(q, P) return {q[1]^2 + q[2]^2 + q[3]^2 - 1, q[1] - q[2]} end,
    initial = function(P) return {0.5 ^ 0.5, 0.5 ^ 0.5, 0}, {0, 0, 1} end,
  }
  local has = false
  for _, id in ipairs(two.extensions) do has = has or id == "wb.holonomic_point/1" end
  wb.check(has, "a compiled model with two constraints has wb.holonomic_point/1")
  wb.check(wb.check_model(two) == 0, "... and check-model passes (no project row to fail)")
  local sol = wb.integrate{model = two, method = wb.method("rattle"), h = 0.01, steps = 100}
  local q = sol:final()
  wb.expect_below(math.abs(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 - 1), 1e-12,
                  "... and RATTLE keeps it on both constraints")
end
