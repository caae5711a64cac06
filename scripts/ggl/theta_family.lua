-- GGL paper (Kinon-Betsch-Schneider 2023), Sect. 4.3: the one-stage theta
-- family of GGL variational integrators, option A (g at q^{n+theta},
-- eq. 79, "theta in (0, 1)") and option B (g_d = (1 - vartheta) g(q^n) +
-- vartheta g(q^{n+1}), eq. 82, "theta in [0, 1], vartheta in (0, 1]").
-- The paper runs only VI-A = A(theta 1/2) and VI-B = B(theta 1, vartheta
-- 1/2); this script checks what the workbench states about the rest.
--
-- Model: spherical_pendulum (m = l = 1, g = 9.81, the paper's initial data).
-- Claims checked:
--   * option sets with a singular Newton matrix are refused with a message
--     saying why: theta = 0 in A and vartheta = 0 in B (g_d does not depend
--     on the unknowns), and -- beyond the paper, which admits them --
--     theta = 1 in A and vartheta = 1 in B: there lambda drops out of the
--     discrete Legendre map, and the 2m constraints are left with the m
--     unknowns gamma;
--   * only the weight w = 1/2 (theta in A, vartheta in B) is stable: per
--     step the position residual is multiplied by -(1 - w)/w and the normal
--     momentum G M^-1 p by -w/(1 - w) (derived for a linear constraint; the
--     measured growth rates on the pendulum, h = 0.01, match to 1%; option
--     A's nodal g is O(h^2) by design, so its growth is fitted once it
--     exceeds 1e-3);
--   * vartheta = 1 is the limit of a blow-up: one step with vartheta =
--     0.9 ... 0.99999 needs lambda = 1.0001 / (1 - vartheta) (constant to
--     1e-6), so no finite multiplier exists at vartheta = 1;
--   * the orders the methods declare: 2 for A(1/2) and B(1/2, 1/2), which
--     are symmetric, 1 for VI-B = B(1, 1/2) and B(0, 1/2) (errors in q at
--     t = 1 against EM at h = 1e-4).
-- Where we differ from the paper: the admissible ranges above.  Only
-- w = 1/2 is usable; w = 0.45 or 0.55 blows up from round-off within
-- ~200 steps, and w = 1 (allowed by the paper for option B) fails at the
-- first step.
--
--   workbench scripts/ggl/theta_family.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "ggl_common"

local model = wb.model("spherical_pendulum")

---------------------------------------------------------------------------
-- Refused option sets
---------------------------------------------------------------------------
local singular = {
  {constraint = "intermediate", theta = 0},
  {constraint = "intermediate", theta = 1},
  {constraint = "trapezoidal", theta = 1, vartheta = 0},
  {constraint = "trapezoidal", theta = 0.5, vartheta = 1},
}
for _, options in ipairs(singular) do
  -- refused by wb.method itself (the method's validate hook), before any run
  local ok, message = pcall(wb.method, "ggl.vi_theta", options)
  local what = string.format("%s, theta = %g%s", options.constraint, options.theta,
                             options.vartheta and string.format(", vartheta = %g", options.vartheta) or "")
  wb.check(not ok and tostring(message):find("singular") ~= nil,
           "refused with the reason (singular Newton matrix): " .. what,
           ok and "accepted" or tostring(message):match("vi_theta: (.-) %(") or tostring(message))
end

---------------------------------------------------------------------------
-- vartheta -> 1 in option B: the refusal is the limit, not an artefact.
-- Eliminating p^{n+1}, the Legendre map reads M v^{n+1} = p^n
-- - h (1 - vartheta) G(q^n)^T lambda + ..., so the impulse lambda must give
-- v grows like 1/(1 - vartheta): one step from the paper's data, h = 0.01.
---------------------------------------------------------------------------
local limit = {}
for _, vt in ipairs{0.9, 0.99, 0.999, 0.9999, 0.99999} do
  local sol = wb.integrate{model = model, h = 0.01, steps = 1, on_failure = "stop",
                           method = wb.method("ggl.vi_theta", {constraint = "trapezoidal",
                                                               theta = 1, vartheta = vt})}
  local lambda = sol.ok and sol:column("lambda")[2] or 0 / 0
  limit[#limit + 1] = {vartheta = vt, lambda = lambda, scaled = lambda * (1 - vt)}
end
wb.printf("option B, theta = 1, one step (h = 0.01): lambda and (1 - vartheta) lambda\n")
for _, r in ipairs(limit) do
  wb.printf("  vartheta = %-8g lambda = %-14.6g (1 - vartheta) lambda = %.10g\n", r.vartheta,
            r.lambda, r.scaled)
end
do
  local spread = 0
  for _, r in ipairs(limit) do spread = wb.max(spread, math.abs(r.scaled / limit[1].scaled - 1)) end
  wb.check(spread < 1e-6 and limit[#limit].lambda > 1e4,
           "vartheta -> 1: lambda grows like 1/(1 - vartheta) (no finite lambda at vartheta = 1, "
           .. "the singular case wb.method refuses)",
           string.format("(1 - vartheta) lambda constant to %.2g; lambda = %.3g at vartheta = %g",
                         spread, limit[#limit].lambda, limit[#limit].vartheta))
end

---------------------------------------------------------------------------
-- Growth of the residuals for w != 1/2
---------------------------------------------------------------------------
-- exp of the least-squares slope of log|x_n| against n over the first
-- stretch of steps with lo < |x_n| < hi (the growth phase, before the
-- nonlinear saturation)
local function growth_factor(x, lo, hi)
  local steps, logs = {}, {}
  for i = 1, #x do
    local a = math.abs(x[i])
    if a > lo and a < hi then
      steps[#steps + 1], logs[#logs + 1] = i, math.log(a)
    elseif #steps > 0 and a >= hi then
      break
    end
  end
  if #steps < 3 then return 0 / 0, #steps end
  local _, slope = wb.fit_line(steps, logs)
  return math.exp(slope), #steps
end

local cases = {
  {options = {constraint = "trapezoidal", theta = 1, vartheta = 0.45}, w = 0.45, column = "constraint",
   lo = 1e-14, hi = 1e-3, what = "position residual g(q^n)", predicted = 0.55 / 0.45},
  {options = {constraint = "trapezoidal", theta = 1, vartheta = 0.55}, w = 0.55,
   column = "hidden_constraint", lo = 1, hi = 1e6, what = "normal momentum G M^-1 p",
   predicted = 0.55 / 0.45},
  {options = {constraint = "intermediate", theta = 0.45}, w = 0.45, column = "constraint",
   lo = 1e-3, hi = 0.1, what = "position residual g(q^n)", predicted = 0.55 / 0.45},
  {options = {constraint = "intermediate", theta = 0.55}, w = 0.55, column = "hidden_constraint",
   lo = 1, hi = 1e6, what = "normal momentum G M^-1 p", predicted = 0.55 / 0.45},
}
local figure = {}
for _, c in ipairs(cases) do
  local sol = wb.integrate{model = model, method = wb.method("ggl.vi_theta", c.options), h = 0.01,
                           steps = 1000, on_failure = "stop"}
  local x = sol:column(c.column)
  c.factor, c.points = growth_factor(x, c.lo, c.hi)
  c.failure = sol.failure_time
  c.label = string.format("%s, %s = %g: %s", c.options.constraint,
                          c.options.constraint == "trapezoidal" and "vartheta" or "theta", c.w, c.what)
  figure[#figure + 1] = {x = wb.map(x, function(_, i) return i - 1 end),
                         y = common.floored(x, 1e-17),
                         title = string.format("%s, %s = %g: %s", c.options.constraint,
                                               c.options.constraint == "trapezoidal" and "ϑ" or "θ",
                                               c.w, c.column == "constraint" and "g(q^n)"
                                                 or "G M^{-1} p"),
                         style = string.format("lw 1.5 lc rgb '%s'",
                                               ({"#9400d3", "#009e73", "#56b4e9", "#e69f00"})[#figure + 1])}
  wb.printf("  %-70s growth per step %.4f (predicted %.4f, %d points), run ends at t = %s\n",
            c.label, c.factor, c.predicted, c.points, tostring(c.failure))
end
do -- the stable choices for comparison
  for _, options in ipairs{{constraint = "intermediate", theta = 0.5},
                           {constraint = "trapezoidal", theta = 1, vartheta = 0.5}} do
    local sol = wb.integrate{model = model, method = wb.method("ggl.vi_theta", options), h = 0.01,
                             steps = 1000}
    local column = options.constraint == "intermediate" and "constraint" or "hidden_constraint"
    figure[#figure + 1] = {x = wb.map(sol.t, function(_, i) return i - 1 end),
                           y = common.floored(sol:column(column), 1e-17),
                           title = string.format("%s, w = 1/2: %s (stable)", options.constraint,
                                                 column == "constraint" and "g(q^n)"
                                                   or "G M^{-1} p"),
                           style = string.format("lw 1 lc rgb '%s'", column == "constraint"
                                                   and "#0072b2" or "#d55e00")}
  end
end
wb.plot{file = "plots/ggl/theta_instability.png", logscale = "y", key = "outside right top",
        size = {1100, 560}, yrange = {1e-17, 1e8}, enhanced = true,
        title = "θ-VIs on the pendulum, h = 0.01: residual growth for w = θ or ϑ ≠ 1/2",
        xlabel = "step n", ylabel = "max_k |residual_k|",
        series = figure}
for _, c in ipairs(cases) do
  wb.expect_near(c.factor, c.predicted, 0.01 * c.predicted,
                 c.label .. ": grows by w/(1-w) or (1-w)/w per step")
  wb.check(c.failure ~= nil, c.label .. ": the run blows up", tostring(c.failure))
end

---------------------------------------------------------------------------
-- Orders of the members, against the orders the methods declare
---------------------------------------------------------------------------
local members = {
  {label = "A(1/2) = VI-A", options = {constraint = "intermediate", theta = 0.5}},
  {label = "B(1, 1/2) = VI-B", options = {constraint = "trapezoidal", theta = 1, vartheta = 0.5}},
  {label = "B(1/2, 1/2)", options = {constraint = "trapezoidal", theta = 0.5, vartheta = 0.5}},
  {label = "B(0, 1/2)", options = {constraint = "trapezoidal", theta = 0, vartheta = 0.5}},
}
local ladder = wb.quick and {0.01, 0.005, 0.0025} or {0.01, 0.005, 0.0025, 0.00125}
local reference = wb.integrate{model = model, method = wb.method("ggl.em", {tol = 1e-12}), h = 1e-4,
                               t_end = 1, every = 2 ^ 40}
local q_ref = reference:final()
local order_series = {}
for _, member in ipairs(members) do
  local method = wb.method("ggl.vi_theta", member.options)
  local result = wb.order{model = model, method = method, t_end = 1, h = ladder,
                          reference = q_ref, quantity = "q"}
  wb.print_order(result, member.label .. string.format(" (declared order %d)", method.order))
  wb.expect_near(result.order, method.order, 0.15, member.label .. ": observed order = declared "
                 .. "order " .. method.order)
  order_series[#order_series + 1] = {x = ladder, y = result.errors, title = member.label,
                                     with = "linespoints"}
end
wb.plot{file = "plots/ggl/theta_orders.png", logscale = "xy", key = "bottom right",
        enhanced = true,
        title = "θ-VIs on the pendulum: error in q at t = 1 against EM at h = 10^{-4}",
        xlabel = "h", ylabel = "max |q - q_{ref}|",
        series = wb.map(order_series, function(f)
          return {x = f.x, y = f.y, title = wb.literal(f.title), with = f.with} end)}
