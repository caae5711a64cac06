-- RATTLE on the spherical pendulum (GGL paper's initial data):
-- order, constraint residuals at every step, energy without drift over
-- 10^5 steps, vertical angular momentum to round-off.
local m = wb.model("spherical_pendulum")
local tol = 1e-12
local rattle = wb.method("rattle", {tol = tol})

-- Fitted order over h = 0.1 ... 0.0125 against RATTLE at h = 0.0125/32.
local r = wb.order{model = m, method = rattle, t_end = 1,
                   h = {0.1, 0.05, 0.025, 0.0125}, reference = {h = 0.0125 / 32}}
wb.print_order(r, "RATTLE, spherical pendulum, error of (q, p) at t = 1")
wb.expect_in(r.order, 1.9, 2.1, "RATTLE fitted order")

-- The reference itself against an independent method: RK4 on the index-1
-- formulation at a tiny step agrees with it, so the order above is measured
-- against the true solution, not against RATTLE's own limit.
local ref_rk4 = wb.integrate{model = m, method = "rk4", h = 1e-4, t_end = 1, every = 10000}
local qr, pr = ref_rk4:final()
local diff = wb.norm(wb.sub(wb.concat(qr, pr), r.reference))
wb.expect_below(diff, 1e-5, "RATTLE reference (h = 3.9e-4) agrees with RK4 (h = 1e-4)")

-- 10^5 steps at h = 0.01 (t = 1000), every step recorded.
local steps = 100000
local sol = wb.integrate{model = m, method = rattle, h = 0.01, steps = steps}
wb.expect_below(sol:max("constraint"), tol, "max |g(q_n)| over 10^5 steps at the Newton tolerance")
wb.expect_below(sol:max("hidden_constraint"), tol,
                "max |G(q_n) M^-1 p_n| over 10^5 steps at the Newton tolerance")

local first, last = wb.tenths(sol:column("energy_error"))
wb.printf("  energy error: max over first tenth %.3e, over last tenth %.3e\n", first, last)
wb.check(first > 1e-6, "energy error visible (symplectic, not energy-conserving)",
         string.format("%.2e", first))
wb.expect_below(last, 2 * first, "no energy drift: last tenth <= 2 x first tenth")

wb.expect_below(wb.drift(sol:column("Lz")), 1e-12, "Lz conserved to round-off over 10^5 steps")

-- Multipliers against the exact lambda(q_n, p_n) on the numerical trajectory:
-- RATTLE's lambda_n (first half kick) and mu_n (second half kick) are each
-- first-order approximations; their mean (lambda_{n+1} + mu_n)/2, the
-- multiplier acting at t_n, is second order.
local hs, e_mu, e_mean = {0.02, 0.01, 0.005}, {}, {}
for k, h in ipairs(hs) do
  local run = wb.integrate{model = m, method = rattle, h = h, t_end = 1}
  local mu, lam = run:column("mu"), run:column("lambda")
  e_mu[k], e_mean[k] = 0, 0
  for i = 2, #mu - 1 do
    local q, p = run:state(i)
    local exact = m:multiplier(q, p)[1]
    e_mu[k] = wb.max(e_mu[k], math.abs(mu[i] - exact))
    e_mean[k] = wb.max(e_mean[k], math.abs(0.5 * (lam[i + 1] + mu[i]) - exact))
  end
end
wb.expect_in(wb.fit_order(hs, e_mu), 0.9, 1.1, "node multiplier mu is first order")
wb.expect_in(wb.fit_order(hs, e_mean), 1.9, 2.1, "(lambda_{n+1} + mu_n)/2 is second order")

-- Steps and Newton work are counted.
wb.check(sol.stats.steps == steps, "stats.steps counts the steps", tostring(sol.stats.steps))
wb.expect_in(sol.stats.mean_newton_iterations, 1, 4, "Newton iterations per step (warm start)")

-- RATTLE's written-out step for one constraint (pendulum, spherical
-- pendulum: the 1x1 Newton solve, n = 2 and 3 as constants) against its
-- general sparse path on the same system, pendulum_chain with one link:
-- 1000 steps from the same state agree to round-off (measured 1.7e-13 to
-- 5.6e-13), with masses 1 and 3.7 (M^-1 taken once).
for _, case in ipairs{{"pendulum", 0}, {"spherical_pendulum", 1}} do
  for _, mass in ipairs{1, 3.7} do
    local single = wb.model(case[1], {m = mass})
    local chain = wb.model("pendulum_chain", {N = 1, spatial = case[2], m = mass})
    local q0, p0 = single:initial()
    local function final(model, method)
      local sol = wb.integrate{model = model, method = method, h = 0.01, steps = 1000,
                               q0 = q0, p0 = p0, every = 2 ^ 53}
      return wb.concat(sol:final())
    end
    local a = final(single, wb.method("rattle"))
    local b = final(chain, wb.method("rattle", {linear_solver = "sparse"}))
    wb.expect_below(wb.norm(wb.sub(a, b), "inf") / wb.norm(a, "inf"), 1e-12,
                    string.format("%s, m = %g: the one-constraint step equals the general "
                                  .. "sparse step on a one-link chain", case[1], mass))
  end
end

-- The combined evaluation (wb.holonomic_point/1, ABI 1.4): pendulum and
-- spherical pendulum give grad V, g and G in one call, RATTLE and SHAKE
-- make two model calls a step instead of five.  Same numbers: with and
-- without it (combined_evaluation = false: the separate calls) 2000 steps
-- end in bitwise the same state and multipliers, with the same counts.
for _, name in ipairs{"pendulum", "spherical_pendulum"} do
  local model = wb.model(name, {m = 3.7})
  local has = false
  for _, id in ipairs(model.extensions) do has = has or id == "wb.holonomic_point/1" end
  wb.check(has, name .. " declares wb.holonomic_point/1")
  for _, method in ipairs{"rattle", "shake"} do
    local function run(combined)
      local sol = wb.integrate{model = model, h = 0.01, steps = 2000, every = 2 ^ 53,
                               method = wb.method(method, {combined_evaluation = combined})}
      local q, p = sol:final()
      local lambda = sol:column("lambda") -- the first row's is not yet defined (NaN)
      return wb.concat(q, p, {lambda[#lambda]}), sol.stats
    end
    local a, stats_a = run(true)
    local b, stats_b = run(false)
    local same = #a == #b
    for i = 1, #a do same = same and a[i] == b[i] end
    wb.check(same, string.format("%s on %s: combined evaluation bitwise equal to the separate "
                                 .. "calls", method, name),
             string.format("max diff %.3e", wb.norm(wb.sub(a, b), "inf")))
    wb.check(stats_a.residual_evals == stats_b.residual_evals and
             stats_a.jacobian_evals == stats_b.jacobian_evals and
             stats_a.newton_iterations == stats_b.newton_iterations,
             string.format("%s on %s: the same Newton counts either way", method, name))
  end
end

-- A model without it (pendulum_chain, one link, dense: the one-constraint
-- step with the separate calls) still runs, and agrees with the pendulum
-- (which has it) to round-off.
do
  local single = wb.model("pendulum")
  local chain = wb.model("pendulum_chain", {N = 1})
  local has = false
  for _, id in ipairs(chain.extensions) do has = has or id == "wb.holonomic_point/1" end
  wb.check(not has, "pendulum_chain lacks wb.holonomic_point/1")
  local q0, p0 = single:initial()
  local function final(model)
    local sol = wb.integrate{model = model, method = wb.method("rattle", {linear_solver = "dense"}),
                             h = 0.01, steps = 1000, q0 = q0, p0 = p0, every = 2 ^ 53}
    return wb.concat(sol:final())
  end
  local a, b = final(single), final(chain)
  wb.expect_below(wb.norm(wb.sub(a, b), "inf") / wb.norm(a, "inf"), 1e-12,
                  "RATTLE on a model without the combined call equals the pendulum's")
end

-- A full (not diagonal) constant mass: the one-constraint step solves with
-- the model's M^-1 at each use instead of the diagonal taken at create
-- time (its own compiled variant, n = 2 and any n).  RATTLE is SPARK with
-- s = 2 (a different code: Newton on the stage momenta and multipliers),
-- so the two agree to the Newton tolerance over 200 steps (measured
-- 9.6e-15 and 3.4e-15 relative; M^-1 off by 1e-9 in one entry gives 1.6e-9).
for _, n in ipairs{2, 4} do
  local M = {}
  for i = 1, n do
    M[i] = {}
    for j = 1, n do M[i][j] = i == j and 1 + 0.5 * i or 0.3 / (i + j) end
  end
  local full = wb.define_model{
    name = "rattle_full_mass_" .. n, nq = n,
    mass = function() return M end,
    potential = function(q) return 9.81 * q[n] end,
    constraints = function(q)
      local s = -1
      for i = 1, n do s = s + q[i] ^ 2 end
      return {s / 2}
    end,
  }
  local q0 = {}
  for i = 1, n do q0[i] = i == 1 and 1 or 0 end
  -- a velocity tangent at q0 (v_1 = 0), p = M v
  local v = {}
  for i = 1, n do v[i] = i == 1 and 0 or 0.7 * i end
  local p0 = {}
  for i = 1, n do
    p0[i] = 0
    for j = 1, n do p0[i] = p0[i] + M[i][j] * v[j] end
  end
  local function final(method, mass_model)
    local sol = wb.integrate{model = mass_model, method = method, h = 0.01, steps = 200,
                             q0 = q0, p0 = p0, every = 2 ^ 53}
    return wb.concat(sol:final())
  end
  local a = final(wb.method("rattle", {tol = 1e-14}), full)
  local b = final(wb.method("spark", {s = 2, tol = 1e-14}), full)
  wb.expect_below(wb.norm(wb.sub(a, b), "inf") / wb.norm(a, "inf"), 1e-11,
                  string.format("n = %d, full mass: RATTLE's one-constraint step equals SPARK "
                                .. "s = 2", n))
end
