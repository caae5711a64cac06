-- sol.stats.function_evals is what the model was asked: on counting_model
-- (a spherical pendulum that counts its potential-gradient calls and
-- reports the count as an "invariant"), every method that applies reports
-- exactly the gradient evaluations the run made, its own and the host's on
-- its behalf (rk4's consistent multipliers), and the same on a
-- nonholonomic particle.  (Not covered: the Lie-group families.)  Before this test SPARK left
-- out the one its row scales make each step (2978 reported of 3178, s = 2)
-- and evaluated stage 1 (Q_1 = q0) again in every residual; GGL's and
-- variationalize's row scales, and rk4's multipliers, went uncounted too.
local model = wb.model("counting_model")

local function gradient_calls(sol)
  local calls = sol:column("gradient_calls")
  return calls[#calls] - calls[1]
end

local function check_counts(label, method)
  -- (check_claims = false: the method's calls are counted, not the
  -- driver's checks of its claims)
  local sol = wb.integrate{model = model, method = method, h = 0.01, steps = 100, every = 50,
                           check_claims = false}
  wb.check(sol.stats.function_evals == gradient_calls(sol),
           label .. ": function_evals = the model's gradient calls",
           string.format("reported %d, made %d", sol.stats.function_evals, gradient_calls(sol)))
  return sol
end

local methods = 0
for _, name in ipairs(wb.list_methods()) do
  local method = wb.method(name)
  if method:applies_to(model) then
    methods = methods + 1
    check_counts(name, method)
  end
end
wb.check(methods >= 10, string.format("%d methods apply to counting_model", methods))

-- the same on a nonholonomic particle (rk4's consistent nonholonomic
-- multiplier, the nonholonomic Lobatto scheme)
do
  local nonholonomic = wb.model("counting_nonholonomic")
  local applying = 0
  for _, name in ipairs(wb.list_methods()) do
    local method = wb.method(name)
    if method:applies_to(nonholonomic) then
      applying = applying + 1
      local sol = wb.integrate{model = nonholonomic, method = method, h = 0.01, steps = 100,
                               every = 50}
      wb.check(sol.stats.function_evals == gradient_calls(sol),
               name .. " on counting_nonholonomic: function_evals = the model's gradient calls",
               string.format("reported %d, made %d", sol.stats.function_evals,
                             gradient_calls(sol)))
    end
  end
  wb.check(applying >= 2, string.format("%d methods apply to counting_nonholonomic", applying))
end

-- SPARK in every form and iteration: stage 1's forces once per step (from
-- the row scales' evaluation at q0), s - 1 stages per residual
for s = 2, 4 do
  for _, form in ipairs{"positions", "momenta"} do
    for _, iteration in ipairs{"auto", "newton", "simplified"} do
      local sol = check_counts(string.format("spark s = %d, %s, %s", s, form, iteration),
                               wb.method("spark", {s = s, stage_form = form,
                                                   iteration = iteration}))
      -- (each recorded row after the first evaluates G once more, for the
      -- hidden constraint's column)
      local jacobians = sol:column("jacobian_calls")
      wb.check(jacobians[#jacobians] - jacobians[1] == gradient_calls(sol) + sol.n - 1,
               string.format("spark s = %d, %s, %s: G evaluated with grad V, never alone "
                             .. "(the row scales use stage 1's)", s, form, iteration),
               string.format("%d G calls, %d gradient calls, %d rows",
                             jacobians[#jacobians] - jacobians[1], gradient_calls(sol), sol.n))
      wb.check(gradient_calls(sol) <= (s - 1) * (sol.stats.residual_evals
                                                 + sol.stats.jacobian_evals) + 100,
               string.format("spark s = %d, %s, %s: at most s - 1 stages' forces a residual "
                             .. "or Jacobian, and stage 1's once a step", s, form, iteration),
               string.format("%d calls, %d residuals, %d Jacobians", gradient_calls(sol),
                             sol.stats.residual_evals, sol.stats.jacobian_evals))
    end
  end
end
