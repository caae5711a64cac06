-- The GGL methods' solver (issue 30): Newton from the guess q^n can miss a
-- step that exists.  EM on the four particles at h = 0.675 (the paper's
-- "EM keeps stable even for h = 0.675", scripts/ggl/stability.lua): Newton
-- from q^n fails at t = 97.2 (step 145), where the continuation in h from
-- h = 0 solves the same step equations.
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
