-- RATTLE's and SHAKE's step written out for the instance's size (option
-- step = "auto", the default) against the size-generic step (step =
-- "general": the host's Newton solver and LAPACK's dense solves), on models
-- with m = 1 (n = 2, 3 and, through a Lua model with a full mass matrix,
-- n = 4 and the model's own M^-1), m = 2, m = 3 and larger m: from the same
-- state, the final states and multipliers agree bitwise and the Newton
-- counts are the same.  The written-out step does the same floating-point
-- operations in the same order, so any difference is a defect in it, not
-- round-off.  Today only one constraint on the dense path has a step of its
-- own; for m > 1 both options run the general step, and these checks hold
-- whatever step a later size gets.

-- A particle on the unit 3-sphere in R^4 with a constant, full mass matrix:
-- one constraint, n = 4 (the any-n variant), M^-1 through the model.
local sphere4 = wb.define_model{
  name = "rattle_steps_sphere4", nq = 4,
  params = {g = 9.81},
  mass = {{2.0, 0.3, 0.0, 0.1}, {0.3, 1.5, 0.2, 0.0}, {0.0, 0.2, 1.0, 0.0},
          {0.1, 0.0, 0.0, 3.0}},
  potential = function(q, P) return P.g * (q[3] + 0.5 * q[4]) end,
  constraints = function(q, P) return {q[1]^2 + q[2]^2 + q[3]^2 + q[4]^2 - 1} end,
  initial = function(P) return {0.6, 0.0, -0.8, 0.0}, {0.0, 1.2, 0.0, 0.7} end,
}

local cases = {
  {"pendulum", {m = 3.7}, 1},                   -- m = 1, n = 2, holonomic_point
  {"spherical_pendulum", {m = 3.7}, 1},         -- m = 1, n = 3, holonomic_point
  {"conical_pendulum", {}, 1},                  -- m = 1, n = 3, separate calls
  {"pendulum_chain", {N = 1}, 1},               -- m = 1, n = 2, separate calls
  {sphere4, nil, 1},                            -- m = 1, n = 4, full M
  {"double_spherical_pendulum", {}, 2},         -- m = 2
  {"tethered_satellites", {}, 3},               -- m = 3
  {"pendulum_chain", {N = 3}, 3},               -- m = 3, planar chain
  {"pendulum_chain", {N = 12, spatial = 1}, 12} -- larger m
}

local function final(model, method, options, h, steps)
  local sol = wb.integrate{model = model, method = wb.method(method, options), h = h,
                           steps = steps, every = 2 ^ 53}
  local q, p = sol:final()
  local values = wb.concat(q, p)
  for _, name in ipairs{"lambda", "mu"} do
    local ok, column = pcall(sol.column, sol, name)
    if ok and column then values[#values + 1] = column[#column] end
  end
  return values, sol.stats
end

local function has_point(model)
  for _, id in ipairs(model.extensions) do
    if id == "wb.holonomic_point/1" then return true end
  end
  return false
end

for _, case in ipairs(cases) do
  local model = type(case[1]) == "string" and wb.model(case[1], case[2]) or case[1]
  local point = has_point(model)
  local label = type(case[1]) == "string" and case[1] or case[1].name
  if case[2] and case[2].N then label = string.format("%s N = %d", label, case[2].N) end
  for _, method in ipairs{"rattle", "shake"} do
    for _, combined in ipairs{true, false} do
      if combined or (case[3] == 1 and point) then
        local base = {linear_solver = "dense", combined_evaluation = combined}
        local auto_options, general_options = {step = "auto"}, {step = "general"}
        for k, v in pairs(base) do auto_options[k], general_options[k] = v, v end
        local a, stats_a = final(model, method, auto_options, 0.0137, 300)
        local b, stats_b = final(model, method, general_options, 0.0137, 300)
        local same, diff = #a == #b, 0
        for i = 1, math.min(#a, #b) do
          same = same and a[i] == b[i]
          diff = math.max(diff, math.abs(a[i] - b[i]))
        end
        local what = string.format("%s on %s (m = %d%s)", method, label, case[3],
                                   point and case[3] == 1 and
                                   (combined and ", combined" or ", separate") or "")
        wb.check(same, what .. ": step = auto equals step = general bitwise",
                 string.format("max diff %.3e over %d values", diff, #a))
        wb.check(stats_a.newton_iterations == stats_b.newton_iterations and
                 stats_a.residual_evals == stats_b.residual_evals and
                 stats_a.jacobian_evals == stats_b.jacobian_evals,
                 what .. ": the same Newton counts",
                 string.format("iterations %d / %d", stats_a.newton_iterations,
                               stats_b.newton_iterations))
      end
    end
  end
end

-- A bad choice is refused with the option's name.
local ok, err = pcall(wb.method, "rattle", {step = "fast"})
wb.check(not ok and tostring(err):find("step", 1, true) ~= nil,
         "rattle refuses step = 'fast' naming the option", tostring(err))
