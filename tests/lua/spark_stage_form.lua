-- spark's stage forms (issue 12): stage_form = "positions" (the default,
-- the second-order form: the stage increments Q_i - q0, i = 2..s, and the
-- s multipliers, (s - 1) n + s m unknowns) against "momenta" (the stage
-- momenta and the multipliers, s (n + m)).  The two are one method:
--   * full Newton takes the same iterations a step in both (Newton on two
--     parametrisations of one system; a wrong Jacobian block would cost
--     iterations), on the spherical pendulum at h = 0.01 and 0.1, s = 2..5,
--     and on the double spherical pendulum and a spatial chain (m = 2, 5);
--   * the states agree to the tolerance (1e-12 a step): measured
--     2.8e-17 .. 2.2e-16 after 10 steps, 5.5e-14 .. 1.2e-13 after 1000,
--     3.6e-14 .. 4.5e-14 after 100 at h = 0.1;
--   * both continue a run bit for bit from sol:final() under auto (the
--     kept Jacobian's point is the form's unknowns).
-- The cost (callgrind) is in the commit message and spark.c's header.
package.path = arg[0]:gsub("[^/]*$", "") .. "?.lua;" .. package.path
local common = require "spark_common"
local run, with, gap, continues = common.run, common.with, common.gap, common.continues

local function compare(label, model, options, h, steps, bound)
  local p = run(model, with(options, {stage_form = "positions"}), h, steps)
  local m = run(model, with(options, {stage_form = "momenta"}), h, steps)
  wb.check(p.stats.newton_iterations == m.stats.newton_iterations,
           label .. ": the same Newton iterations in both forms",
           string.format("%d positions, %d momenta", p.stats.newton_iterations,
                         m.stats.newton_iterations))
  wb.expect_below(gap(p, m), bound, label .. ": the same state")
end

local sphere = wb.model("spherical_pendulum")
for _, s in ipairs{2, 3, 4, 5} do
  local newton = {s = s, iteration = "newton"}
  compare("spherical pendulum, s = " .. s .. ", h = 0.01, 10 steps", sphere, newton, 0.01, 10,
          1e-12)
  compare("spherical pendulum, s = " .. s .. ", h = 0.01, 1000 steps", sphere, newton, 0.01,
          1000, 1e-11)
  compare("spherical pendulum, s = " .. s .. ", h = 0.1", sphere, newton, 0.1, 100, 1e-11)
end
compare("double spherical pendulum, s = 3", wb.model("double_spherical_pendulum"),
        {s = 3, iteration = "newton"}, 0.01, 200, 1e-11)
compare("pendulum_chain N = 5 spatial, sparse, s = 4",
        wb.model("pendulum_chain", {N = 5, spatial = 1}),
        {s = 4, iteration = "newton", linear_solver = "sparse"}, 0.01, 100, 1e-11)

for _, form in ipairs{"positions", "momenta"} do
  wb.check(continues(sphere, {s = 3, stage_form = form}, 0.01, 37),
           "stage_form = " .. form .. ", auto: continues bit for bit")
end
