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

for _, name in ipairs{"pendulum", "spherical_pendulum"} do
  local model = wb.model(name, {m = 3.7})
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
for _, name in ipairs{"pendulum", "spherical_pendulum"} do
  wb.check(wb.check_model(wb.model(name, {m = 3.7})) == 0, name .. ": check-model passes")
end
