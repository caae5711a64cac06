-- hbvm's automatic choice of iteration (iteration = "auto", the default):
-- the paper's fixed point while it contracts, simplified Newton with its
-- Jacobian and LU kept across steps once it stalls or diverges.
--
--   * Non-stiff (Kepler e = 0.5 in the Nystrom and the Legendre form, the
--     spherical pendulum with its constraint): the default is the fixed
--     point bit for bit -- the same states, sweeps and evaluations -- and
--     says so in sol.stats.iteration.
--   * A stiff spring (pendulum_oscillator k = 1e4, h = 0.05: h^2 k / m2 =
--     12.5): the fixed point fails; auto changes to Newton on the first
--     step, converges with one Jacobian for all its steps, and matches full
--     Newton.  The angle pendulum at g = 1e3 (h^2 g = 2.5) changes in the
--     middle of the run ("mixed").  A stiff chain with its constraints
--     (pendulum_chain kb = 1e5, h = 0.005): the fixed point fails, auto
--     does not and matches full Newton.
--   * Where Newton's basin is too small and the fixed point still
--     contracts (spherical pendulum g = 1e3, h = 0.05: h omega = 1.6 a
--     step), Newton fails, and auto goes back to the fixed point.
--   * iteration = "simplified" takes a new Jacobian every step, as rk's.
--   * Auto's state (its choice, the kept Jacobian) continues bit for bit.
--   * Newton gives up a guess it wanders from (then the plain guess).
--   * A round-off floor leaves at least half the unknowns' digits (a
--     diverging simplified Newton once "settled" at its own floor estimate,
--     which grew with the iterate).
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local continues_run = require "continues"

local function run(model, options, h, steps)
  local sol = wb.integrate{model = model, method = wb.method("hbvm", options), h = h,
                           steps = steps, every = steps, on_failure = "stop"}
  return sol, sol.ok and wb.concat(sol:final()) or nil
end

local function with(options, extra)
  local copy = {}
  for k, v in pairs(options) do copy[k] = v end
  for k, v in pairs(extra) do copy[k] = v end
  return copy
end

-- 1. non-stiff: the default is the paper's fixed point, bit for bit
local kepler = wb.model("kepler", {e = 0.5})
local spherical = wb.model("spherical_pendulum")
for _, case in ipairs{
  {"Kepler, HBVM(2,2) (Nystrom form)", kepler, {k = 2, s = 2}, 0.05, 2000},
  {"Kepler, HBVM(4,2) (Legendre form)", kepler, {k = 4, s = 2}, 0.05, 2000},
  {"spherical pendulum, HBVM(2,2)", spherical, {k = 2, s = 2}, 0.05, 1000},
  {"spherical pendulum, HBVM(6,2)", spherical, {k = 6, s = 2}, 0.05, 1000},
} do
  local label, model, options, h, steps = case[1], case[2], case[3], case[4], case[5]
  local auto, y_auto = run(model, options, h, steps)
  local fixed, y_fixed = run(model, with(options, {iteration = "fixed_point"}), h, steps)
  wb.check(auto.ok and auto.stats.iteration == "fixed_point" and
           auto.stats.fixed_point_steps == steps,
           label .. ": the default iterates to a fixed point on every step",
           string.format("%s, %d fixed-point steps of %d", auto.stats.iteration,
                         auto.stats.fixed_point_steps, steps))
  wb.check(fixed.ok and fixed.stats.iteration == "fixed_point",
           label .. ": iteration = fixed_point is reported as such")
  wb.check(y_auto ~= nil and y_fixed ~= nil and wb.norm(wb.sub(y_auto, y_fixed)) == 0 and
           auto.stats.newton_iterations == fixed.stats.newton_iterations and
           auto.stats.function_evals == fixed.stats.function_evals,
           label .. ": auto is the fixed point bit for bit (states, sweeps, evaluations)",
           string.format("%d and %d sweeps", auto.stats.newton_iterations,
                         fixed.stats.newton_iterations))
end

-- 2. stiff: the fixed point fails, auto changes to Newton and keeps its Jacobian
local function compare_stiff(label, model, options, h, steps, expected_iteration,
                             most_jacobians, tol)
  local fixed = run(model, with(options, {iteration = "fixed_point"}), h, steps)
  local auto, y_auto = run(model, options, h, steps)
  local newton, y_newton = run(model, with(options, {iteration = "newton"}), h, steps)
  wb.check(auto.ok and newton.ok, label .. ": auto and full Newton integrate",
           tostring(auto.failure or newton.failure))
  wb.check(auto.stats.iteration == expected_iteration,
           string.format("%s: auto reports %s (%d fixed-point, %d Newton steps)", label,
                         expected_iteration, auto.stats.fixed_point_steps,
                         auto.stats.newton_steps), auto.stats.iteration)
  if y_auto and y_newton then
    wb.expect_below(wb.norm(wb.sub(y_auto, y_newton)) / wb.norm(y_newton), tol,
                    label .. ": auto and full Newton agree")
  end
  wb.expect_below(auto.stats.jacobian_evals, most_jacobians,
                  string.format("%s: %d Jacobians in %d steps (full Newton: %d)", label,
                                auto.stats.jacobian_evals, steps, newton.stats.jacobian_evals))
  return fixed, auto
end

local spring = wb.model("pendulum_oscillator", {k = 1e4})
local fixed, auto = compare_stiff("stiff spring k = 1e4, HBVM(2,2), h = 0.05", spring,
                                  {k = 2, s = 2}, 0.05, 500, "newton", 5, 1e-10)
wb.check(not fixed.ok, "stiff spring: the fixed point fails (" .. tostring(fixed.failure) .. ")")
wb.check(auto.stats.newton_steps == 500, "stiff spring: auto solves every step by Newton")

local angle = wb.model("angle_pendulum", {g = 1e3})
local angle_fixed, angle_auto = compare_stiff("angle pendulum g = 1e3, HBVM(3,3), h = 0.05",
                                              angle, {k = 3, s = 3}, 0.05, 400, "mixed", 40,
                                              1e-10)
wb.expect_below(angle_auto.stats.function_evals, 0.8 * angle_fixed.stats.function_evals,
                string.format("angle pendulum: auto %d force evaluations, the fixed point %d",
                              angle_auto.stats.function_evals, angle_fixed.stats.function_evals))

-- the swinging chain turns its stiff directions: the kept Jacobian is
-- renewed nearly every step (at most one a step, against full Newton's
-- seven); simplified and full Newton themselves differ by 7e-11 here after
-- 200 steps (the stiffness amplifies round-off), hence 1e-9
local chain = wb.model("pendulum_chain", {kb = 1e5})
local chain_fixed, chain_auto = compare_stiff("chain kb = 1e5, HBVM(2,2), h = 0.005", chain,
                                              {k = 2, s = 2}, 0.005, 200, "newton", 200, 1e-9)
wb.check(not chain_fixed.ok, "stiff chain: the fixed point fails (" ..
         tostring(chain_fixed.failure) .. ")")
wb.expect_below(chain_auto:max("constraint"), 1e-12, "stiff chain: auto keeps the constraints")

-- 3. Newton fails where the fixed point contracts: auto goes back to it
local fast = wb.model("spherical_pendulum", {g = 1e3})
local fast_newton = run(fast, {k = 2, s = 2, iteration = "newton"}, 0.05, 100)
local fast_auto = run(fast, {k = 2, s = 2}, 0.05, 100)
local fast_fixed = run(fast, {k = 2, s = 2, iteration = "fixed_point"}, 0.05, 100)
wb.check(not fast_newton.ok and fast_fixed.ok,
         "spherical pendulum g = 1e3, h = 0.05: full Newton fails, the fixed point does not")
wb.check(fast_auto.ok and fast_auto.stats.iteration == "mixed",
         string.format("... and auto integrates (%d Newton steps, then %d fixed-point steps)",
                       fast_auto.stats.newton_steps, fast_auto.stats.fixed_point_steps),
         tostring(fast_auto.failure))

-- 4. iteration = "simplified": a new Jacobian every step, as rk's
local simplified = run(spring, {k = 2, s = 2, iteration = "simplified"}, 0.05, 100)
wb.check(simplified.ok and simplified.stats.jacobian_evals == 100 and
         simplified.stats.iteration == "newton",
         "iteration = simplified: one Jacobian a step, reported as Newton",
         string.format("%d Jacobians", simplified.stats.jacobian_evals))

-- 5. carried state: T then T again = 2T, bit for bit
local function continues(model, options, h, n)
  return continues_run(wb.method("hbvm", options), model, h, n)
end
wb.check(continues(spring, {k = 2, s = 2}, 0.05, 100),
         "auto on Newton with a kept Jacobian (Nystrom-form model): continues bit for bit")
wb.check(continues(angle, {k = 3, s = 3}, 0.05, 200),
         "auto changed to Newton in the run: continues bit for bit")
wb.check(continues(chain, {k = 2, s = 2}, 0.005, 50),
         "auto on Newton with constraints: continues bit for bit")

-- 6. the Nystrom form is the fixed point's: it runs under auto too
wb.check(run(kepler, {k = 2, s = 2, stage_form = "nystrom"}, 0.05, 10).ok,
         "stage_form = nystrom with the default iteration (auto)")

-- 7. no "round-off floor" that leaves fewer than half the unknowns' digits.
-- The spherical pendulum at g = 300, h = 0.05 (h omega = 0.87): auto changes
-- to Newton with a Jacobian kept from the step's start, which converges slowly
-- or not at all on some steps.  Its increments then grew with the iterate, and
-- so did the estimated round-off floor they were compared with (eps |J^-1 w|,
-- w the terms at the iterate): HBVM(4,2) "settled" iterates of 1e17 .. 1e140
-- from step 10 and reported success with |q| = 8e222 at step 13; HBVM(3,3)
-- simplified reached 1.7e93 at step 8.  Now a floor counts only while it
-- leaves half the unknowns' digits: every run below stays on the sphere and
-- keeps its energy, or fails with a message (g = 1e3, where the fixed point
-- and Newton fail too; auto returned |q| = 3e88, |g| = 8e176).  Each of the
-- six checks on g = 300's auto and simplified runs and g = 1e3's fails on the
-- code before.
local steep = wb.model("spherical_pendulum", {g = 300})
for _, case in ipairs{{4, 2, "auto"}, {2, 2, "auto"}, {3, 3, "simplified"}, {4, 2, "simplified"}} do
  local sol = wb.integrate{model = steep, h = 0.05, steps = 40, every = 1, on_failure = "stop",
                           method = wb.method("hbvm", {k = case[1], s = case[2], iteration = case[3]})}
  local label = string.format("spherical pendulum g = 300, h = 0.05, HBVM(%d,%d) %s", case[1],
                              case[2], case[3])
  wb.check(sol.ok, label .. ": 40 steps", tostring(sol.failure))
  if sol.ok then
    wb.expect_below(sol:max("constraint"), 1e-12, label .. ": on the sphere at every step")
    wb.expect_below(sol:max("energy_error"), 1e-9, label .. ": energy kept")
  end
end
local too_steep = wb.model("spherical_pendulum", {g = 1e3})
for _, case in ipairs{{3, 3}, {2, 2}} do
  local sol = wb.integrate{model = too_steep, h = 0.05, steps = 2000, every = 1,
                           on_failure = "stop", method = wb.method("hbvm", {k = case[1], s = case[2]})}
  wb.expect_below(sol:max("constraint"), 1e-12, string.format("spherical pendulum g = 1e3, "
                  .. "h = 0.05, HBVM(%d,%d) auto: on the sphere at every step it takes (%s)",
                  case[1], case[2], sol.ok and "all taken" or tostring(sol.failure)))
end

-- 8. Newton from a guess outside its basin gives it up (after 20 iterations
-- without its increment falling below a tenth of the first) and the step is
-- tried from the plain guess.  The spherical pendulum at g = 300, h = 0.05,
-- HBVM(3,3) newton: the extrapolated guess left Newton wandering for all 200
-- iterations on 7 of these 40 steps, 36.7 iterations a step (44.7 over 200
-- steps); now 9.7 (11.4), and the same solution as the fixed point's.
do
  local function newton_run(iteration)
    return wb.integrate{model = steep, h = 0.05, steps = 40, every = 40, on_failure = "stop",
                        method = wb.method("hbvm", {k = 3, s = 3, iteration = iteration})}
  end
  local newton, fixed = newton_run("newton"), newton_run("fixed_point")
  wb.check(newton.ok and fixed.ok, "HBVM(3,3) newton and fixed point take the 40 steps",
           tostring(newton.failure or fixed.failure))
  if newton.ok and fixed.ok then
    local per_step = newton.stats.newton_iterations / 40
    wb.expect_below(per_step, 15, "HBVM(3,3) newton at g = 300, h = 0.05: Newton iterations a step")
    wb.expect_below(wb.norm(wb.sub(wb.concat(newton:final()), wb.concat(fixed:final())), "inf"),
                    1e-9, "... and it reaches the fixed point's solution")
  end
end
