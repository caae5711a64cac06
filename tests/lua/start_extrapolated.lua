-- spark and hbvm: the extrapolated start (start = "extrapolate", the
-- default) needs fewer iterations per step than the plain one, and both
-- land on the same solution to the iteration's tolerance.
--   * spark s = 2 .. 5 on the spherical pendulum, h = 0.01, full Newton:
--     the last step's stage forces and multipliers on their Lagrange
--     polynomials one step later, the momenta from the forces (measured:
--     3.0 Newton iterations a step plain; extrapolated 2.0, 1.94, 1.0, 1.0
--     for s = 2, 3, 4, 5; the momenta's own polynomials gave 3.5 at s = 2,
--     h = 0.05, and 2.0 at s = 3, 4).  Under the default iteration (auto:
--     simplified Newton on factors kept across steps) the start saves as
--     much: 8.3 -> 5.9 iterations a step at s = 3.
--   * hbvm on Kepler (e = 0.5, h = 0.05) and the conical pendulum
--     (h = 0.1): the last step's path one step later in the Legendre
--     basis (measured HBVM(4,4) fixed point 5.22 -> 3.98, Newton 3.01 ->
--     2.28; conical HBVM(6,3) Newton 4.92 -> 3.92).
local function run(model, family, options, h, steps)
  local sol = wb.integrate{model = model, method = wb.method(family, options), h = h,
                           steps = steps, every = steps}
  return sol.stats.newton_iterations / sol.stats.steps, wb.concat(sol:final())
end

local function compare(label, model, family, options, h, steps, factor, agree)
  local plain_options, extrapolated_options = {start = "plain"}, {}
  for k, v in pairs(options) do plain_options[k], extrapolated_options[k] = v, v end
  local plain, y_plain = run(model, family, plain_options, h, steps)
  local extrapolated, y_extrapolated = run(model, family, extrapolated_options, h, steps)
  wb.expect_below(extrapolated, factor * plain,
                  string.format("%s: %.3f iterations a step extrapolated, %.3f plain", label,
                                extrapolated, plain))
  wb.expect_below(wb.norm(wb.sub(y_extrapolated, y_plain)), agree,
                  label .. ": the two starts agree to the iteration's tolerance")
end

local sphere = wb.model("spherical_pendulum")
for _, s in ipairs{2, 3, 4, 5} do
  compare("spark s = " .. s .. ", Newton", sphere, "spark", {s = s, iteration = "newton"}, 0.01,
          500, s <= 3 and 0.7 or 0.4, 1e-11)
end
compare("spark s = 3, auto", sphere, "spark", {s = 3}, 0.01, 500, 0.8, 1e-11)

local kepler = wb.model("kepler", {e = 0.5})
compare("hbvm(4,4) fixed point, Kepler", kepler, "hbvm", {k = 4, s = 4}, 0.05, 1000, 0.85, 1e-11)
compare("hbvm(4,4) Newton, Kepler", kepler, "hbvm", {k = 4, s = 4, iteration = "newton"}, 0.05,
        1000, 0.85, 1e-11)
compare("hbvm(6,3) Newton, conical pendulum", wb.model("conical_pendulum"), "hbvm",
        {k = 6, s = 3, iteration = "newton"}, 0.1, 1000, 0.9, 1e-12)
