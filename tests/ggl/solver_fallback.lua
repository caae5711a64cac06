-- The GGL methods' solver (issue 30): Newton from the guess q^n can miss a
-- step that exists.  EM on the four particles at h = 0.675 (the paper's
-- "EM keeps stable even for h = 0.675", scripts/ggl/stability.lua): Newton
-- from q^n fails at t = 97.2 (step 145), where the continuation in h from
-- h = 0 solves the same step equations.  The default (solver =
-- "continuation") falls back to it where Newton from the guess fails, and
-- is Newton from the guess, bit for bit, where it does not.
local model = wb.model("four_particles")
local h = 0.675

local function run(options, steps, q0, p0, aux0, t0)
  return wb.integrate{model = model, method = wb.method("ggl.em", options), h = h, steps = steps,
                      q0 = q0, p0 = p0, aux0 = aux0, t0 = t0, every = 1, on_failure = "stop"}
end

-- solver = "newton": the failure names the solver that finds the step
local newton = run({solver = "newton"}, 148)
local failure = tostring(newton.failure)
wb.check(not newton.ok and newton.stats.steps == 144 and math.abs(newton.failure_time - 97.2) < 1e-9,
         "EM, solver = newton, h = 0.675: Newton from q^n fails at step 145, t = 97.2",
         string.format("%d steps, t = %s", newton.stats.steps, tostring(newton.failure_time)))
wb.check(failure:find("solver = 'continuation'", 1, true) ~= nil
         and failure:find("Newton from the guess did not converge in 40 iterations", 1, true) ~= nil
         and failure:find("to converge: reduce h (now 0.675)", 1, true) ~= nil,
         "... and its message names solver = 'continuation' beside h, max_iter and tol", failure)

-- the step exists: from the last accepted state and multipliers, the
-- continuation takes it
do
  local q, p = newton:state(newton.n)
  local lambda = {newton:column("lambda1")[newton.n], newton:column("lambda2")[newton.n]}
  local gamma = {newton:column("gamma1")[newton.n], newton:column("gamma2")[newton.n]}
  local one = run({solver = "continuation"}, 1, q, p, {lambda = lambda, gamma = gamma},
                  newton.failure_time)
  wb.check(one.ok, "... and that step exists: solver = continuation takes it from there",
           tostring(one.failure))
end

-- the default finds the steps: EM reaches T = 1000 (1481 steps), energy and
-- constraints at round-off, bit for bit the run with solver = continuation
local function same(a, b)
  local qa, pa = a:final()
  local qb, pb = b:final()
  for i = 1, #qa do
    if qa[i] ~= qb[i] or pa[i] ~= pb[i] then return false end
  end
  for _, k in ipairs{"steps", "newton_iterations", "residual_evals", "jacobian_evals",
                     "linear_solves", "function_evals"} do
    if a.stats[k] ~= b.stats[k] then return false end
  end
  return true
end
do
  local steps = math.floor(1000 / h + 0.5)
  local default = wb.integrate{model = model, method = wb.method("ggl.em"), h = h, steps = steps,
                               every = 1, on_failure = "stop"}
  local continued = wb.integrate{model = model, method = wb.method("ggl.em", {solver = "continuation"}),
                                 h = h, steps = steps, every = 1000, on_failure = "stop"}
  local q, p = default:final()
  local E0 = model:energy(model:initial())
  wb.check(default.ok and default.stats.steps == 1481,
           "EM at its defaults, h = 0.675: reaches T = 1000 (1481 steps)", tostring(default.failure))
  wb.expect_below(math.abs(model:energy(q, p) - E0) / E0, 1e-10,
                  "... with its energy at round-off (relative)")
  wb.expect_below(wb.max(default:max("constraint"), default:max("hidden_constraint")), 1e-12,
                  "... and g, G M^-1 p at round-off")
  wb.check(same(default, continued), "... bit for bit the run with solver = continuation")
  -- the steps that needed the fallback: each step again from the run's
  -- state and carried multipliers, with Newton from the guess alone
  local needed, first = 0, nil
  local columns = wb.map({"lambda1", "lambda2", "gamma1", "gamma2"},
                         function(name) return default:column(name) end)
  for i = 1, default.n - 1 do
    local qi, pi = default:state(i)
    local aux = i > 1 and {lambda = {columns[1][i], columns[2][i]},
                           gamma = {columns[3][i], columns[4][i]}} or nil
    if not run({solver = "newton"}, 1, qi, pi, aux, default.t[i]).ok then
      needed, first = needed + 1, first or default.t[i]
    end
  end
  wb.check(needed > 0 and needed < 0.1 * default.stats.steps and first == newton.failure_time,
           "... Newton from the guess fails on a few of its steps, the first at t = 97.2: "
           .. "those the fallback took", string.format("%d of %d steps, first at t = %s", needed,
                                                       default.stats.steps, tostring(first)))
end

-- a run that needs no fallback: the default is Newton from the guess, the
-- numbers and the counts bit for bit
local pendulum = wb.model("spherical_pendulum")
local methods = {
  {"ggl.vi_s", {}}, {"ggl.vi_theta", {theta = 0.5}},
  {"ggl.vi_theta", {theta = 1, constraint = "trapezoidal", vartheta = 0.5}},
  {"ggl.em", {}}, {"ggl.em_gonzalez", {}},
}
for _, case in ipairs(methods) do
  for _, m in ipairs{{pendulum, 0.05, 200}, {model, 0.01, 200}} do
    local function with(solver)
      local options = {}
      for k, v in pairs(case[2]) do options[k] = v end
      options.solver = solver
      return wb.integrate{model = m[1], method = wb.method(case[1], options), h = m[2],
                          steps = m[3], every = 1000}
    end
    wb.check(same(with(nil), with("newton")),
             string.format("%s %s on %s, h = %g: the default equals solver = newton, bit for bit "
                           .. "(states and counts)", case[1], case[2].constraint or "",
                           m[1].name, m[2]))
  end
end
