-- spark's iteration (issue 12).  The default, iteration = "auto": simplified
-- Newton on the LU of a Jacobian kept from step to step, renewed when an
-- update cuts the residual by less than 0.1 above its round-off floor
-- (sol.stats.jacobian_refreshes), and full Newton from the step's guess if
-- that fails.  Measured (the default stage form, positions):
--   * spherical pendulum, h = 0.01, 1000 steps, s = 2, 3, 4: Jacobians
--     (each one LU) a step 0.30 under auto, against full Newton's 2.0,
--     1.94, 1.0 and simplified's 1; auto's state is full Newton's to the
--     tolerance (1e-12 a step): 8.9e-14, 1.6e-13, 7.5e-17 after one step,
--     6.9e-12, 5.0e-13, 7.1e-12 after 1000, where the tolerance allows
--     1e-9;
--   * refreshes grow with h: s = 2, 3 at h = 0.1 (200 steps) renew 0.96 and
--     1.0 Jacobians a step, against 0.30 at h = 0.01, and still land on
--     full Newton's state (4.0e-13, 2.2e-12);
--   * the last resort: with max_iter = 3 the kept factors (5.1 updates a
--     step at s = 3) give up on most steps and full Newton from the step's
--     guess takes them, counted as refreshes; the state is full Newton's;
--   * pendulum_chain, N = 100, linear_solver = sparse, s = 3, h = 1e-3: 0.033
--     Jacobians (banded LUs) a step against 2.0, the same state;
--   * every step counts as Newton's (sol.stats.iteration = "newton"), and a
--     run continued from sol:final() equals the whole run bit for bit: the
--     kept Jacobian's point is carried, and its factors formed again.
package.path = arg[0]:gsub("[^/]*$", "") .. "?.lua;" .. package.path
local common = require "spark_common"
local run, with, gap, continues = common.run, common.with, common.gap, common.continues

local function per_step(sol, field) return (sol.stats[field] or -1) / sol.stats.steps end

local sphere = wb.model("spherical_pendulum")
local kept = {}
for _, s in ipairs{2, 3, 4} do
  local auto = run(sphere, {s = s}, 0.01, 1000)
  local newton = run(sphere, {s = s, iteration = "newton"}, 0.01, 1000)
  local simplified = run(sphere, {s = s, iteration = "simplified"}, 0.01, 1000)
  local label = "spherical pendulum, s = " .. s .. ", h = 0.01"
  kept[s] = per_step(auto, "jacobian_refreshes")
  wb.printf("  %s: Jacobians a step %.3f auto, %.3f newton, %.3f simplified; updates a step "
            .. "%.2f, %.2f, %.2f\n", label, per_step(auto, "jacobian_evals"),
            per_step(newton, "jacobian_evals"), per_step(simplified, "jacobian_evals"),
            per_step(auto, "newton_iterations"), per_step(newton, "newton_iterations"),
            per_step(simplified, "newton_iterations"))
  wb.expect_below(per_step(auto, "jacobian_evals"), 0.4,
                  label .. ": auto's Jacobians and LUs a step, kept across steps")
  wb.expect_below(per_step(auto, "jacobian_evals"),
                  0.4 * math.min(per_step(newton, "jacobian_evals"),
                                 per_step(simplified, "jacobian_evals")),
                  label .. ": auto's Jacobians a step against full and simplified Newton's")
  wb.check(kept[s] > 0 and per_step(auto, "jacobian_refreshes") <= per_step(auto, "jacobian_evals"),
           label .. ": the kept Jacobian is renewed now and then, and says so",
           string.format("%.3f refreshes a step", kept[s]))
  wb.expect_below(gap(run(sphere, {s = s}, 0.01, 1), run(sphere, {s = s, iteration = "newton"},
                                                        0.01, 1)), 1e-12,
                  label .. ": auto's state is full Newton's after a step")
  wb.expect_below(gap(auto, newton), 1e-10, label .. ": and after 1000")
  wb.check(auto.stats.iteration == "newton" and auto.stats.newton_steps == 1000
           and newton.stats.iteration == "newton",
           label .. ": every step reported as Newton's", auto.stats.iteration)
end

-- a harder case: h = 0.1, ten times the step
for _, s in ipairs{2, 3} do
  local auto = run(sphere, {s = s}, 0.1, 200)
  local newton = run(sphere, {s = s, iteration = "newton"}, 0.1, 200)
  local label = "spherical pendulum, s = " .. s .. ", h = 0.1"
  local refreshes = per_step(auto, "jacobian_refreshes")
  wb.check(refreshes > 0.5 and refreshes > 2.5 * kept[s],
           label .. ": the kept Jacobian renewed far more often than at h = 0.01",
           string.format("%.3f refreshes a step, %.3f at h = 0.01", refreshes, kept[s]))
  wb.expect_below(per_step(auto, "jacobian_evals"), per_step(newton, "jacobian_evals"),
                  label .. ": still fewer Jacobians than full Newton")
  wb.expect_below(gap(auto, newton), 1e-11, label .. ": auto lands on full Newton's state")
end

-- the last resort, full Newton from the step's guess: the kept factors
-- given 3 updates
do
  local label = "spherical pendulum, s = 3, h = 0.01, max_iter = 3"
  local auto = wb.integrate{model = sphere, h = 0.01, steps = 200, every = 200,
                            on_failure = "stop", method = wb.method("spark", {s = 3, max_iter = 3})}
  local newton = run(sphere, {s = 3, iteration = "newton"}, 0.01, 200)
  wb.check(auto.ok, label .. ": every step taken", tostring(auto.failure))
  if auto.ok then
    wb.check(per_step(auto, "jacobian_refreshes") > 0.5,
             label .. ": full Newton took over on most steps",
             string.format("%.3f refreshes a step", per_step(auto, "jacobian_refreshes")))
    wb.expect_below(gap(auto, newton), 1e-12, label .. ": full Newton's state")
  end
  wb.check(continues(sphere, {s = 3, max_iter = 3}, 0.01, 50),
           label .. ": continues bit for bit")
end

-- the sparse path: the banded LU kept across steps
do
  local chain = wb.model("pendulum_chain", {N = 100})
  local options = {s = 3, linear_solver = "sparse"}
  local label = "pendulum_chain N = 100, sparse, s = 3, h = 1e-3"
  local auto = run(chain, options, 1e-3, 60)
  local newton = run(chain, with(options, {iteration = "newton"}), 1e-3, 60)
  wb.printf("  %s: Jacobians a step %.3f auto, %.3f newton; updates a step %.2f, %.2f\n", label,
            per_step(auto, "jacobian_evals"), per_step(newton, "jacobian_evals"),
            per_step(auto, "newton_iterations"), per_step(newton, "newton_iterations"))
  wb.expect_below(per_step(auto, "jacobian_evals"), 0.1,
                  label .. ": auto's Jacobians and banded LUs a step")
  local qa, pa = auto:final()
  local qn, pn = newton:final()
  wb.expect_below(wb.norm(wb.sub(qa, qn)) / wb.norm(qn), 1e-12, label .. ": q as full Newton's")
  wb.expect_below(wb.norm(wb.sub(pa, pn)) / wb.norm(pn), 1e-11, label .. ": p as full Newton's")
  wb.check(continues(chain, options, 1e-3, 30), label .. ": continues bit for bit")
end
