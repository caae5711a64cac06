-- Orders of the converted methods (claim 2 of the digest's section 5):
-- Euler, Heun, Kutta-3 and RK4 as the standard layer with the biases
-- (0, 1), (-0.3, 0.7) and (-1/2, 1/2), global error at T = 1 against a
-- reference, on four systems: the digest's P1 (spherical pendulum) and P2
-- (double spherical pendulum) with its data and step sizes, and two
-- unconstrained systems with two degrees of freedom, pendulum_oscillator
-- (the digest's P3) and mexican_hat.  One table; beside it the prototype's
-- Tables A (P1) and B (P2): same model, data, steps and error (max-norm
-- over (q, v) at T = 1), so the errors must agree -- we check 1 %, the
-- issue asks for about 10 %, and they agree to the four printed digits.
--
-- Claims checked: the order fitted over the three finest steps is within
-- 0.15 of the claimed one (r for an asymmetric bias, r rounded up to even
-- for the symmetric bias: Euler gives 2 and Kutta-3 gives 4 there, digest
-- 2.9); implicit layers (Gauss 1 and 2, Radau IIA 2) convert the same way.
--
-- Differences from the digest: none in the data.  Its "P1, P2" are the
-- two pendulums; issue 11 calls the unconstrained systems P1 and P2, which
-- are named here by their models.  The references: the digest's printed
-- P1 state at T = 1 (our RK4 at h = 1e-4 agrees to 1e-13), RK4 at
-- h = 1e-4 otherwise (self-difference against 2e-4 printed below).
--
--   workbench scripts/variationalize/orders.lua [--quick]   (the same; it is fast)
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "vi_common"
local format = string.format

local layers = {"euler", "heun", "kutta3", "rk4"}
local biases = {0, -0.3, -0.5}
-- P1 and P3 at Table A's steps; P2 at Table B's and two finer ones, and
-- mexican_hat from h = 0.1 down: Kutta-3 with an asymmetric bias and Euler
-- with (-0.3, 0.7) are still pre-asymptotic at h = 0.025 there (pairwise
-- orders 3.47, 3.23, 1.13 on P2; 2.79, 2.88 on mexican_hat) and reach
-- 3.0 and 1.0 only below it.
local finer = {0.1, 0.05, 0.025, 0.0125, 0.00625}
local problems = {
  {common.p1(), common.table_a_h},
  {common.p2(), finer},
  {common.p3(), common.table_a_h},
  {common.hat(), finer},
}

-- references at T = 1
for _, entry in ipairs(problems) do
  local p = entry[1]
  local ref, self_difference = common.reference(p, 1, 1e-4)
  if p.reference_T1 then
    local gap = wb.max_abs(wb.sub(ref, p.reference_T1))
    wb.expect_below(gap, 1e-12, p.label .. ": our RK4 reference = the digest's printed state")
    ref = p.reference_T1
  end
  p.reference = ref
  wb.printf("%-30s reference: RK4 h = 1e-4, self-difference against 2e-4: %.1e\n", p.label,
            self_difference)
  wb.expect_below(self_difference, 1e-10, p.label .. ": the reference is converged")
end

local function fitted(h, errors)
  local n = #h
  return wb.fit_order({h[n - 2], h[n - 1], h[n]}, {errors[n - 2], errors[n - 1], errors[n]})
end

local rows, figures = {}, {}
for _, entry in ipairs(problems) do
  local p, steps = entry[1], entry[2]
  local series = {}
  for _, layer in ipairs(layers) do
    for _, am in ipairs(biases) do
      local method = common.vi(layer, am)
      local errors = {}
      for i, h in ipairs(steps) do
        local sol = wb.integrate{model = p.model, method = method, h = h, t_end = 1, q0 = p.q0,
                                 p0 = p.p0}
        errors[i] = common.final_error(sol, p.reference)
      end
      local order = fitted(steps, errors)
      local rates = wb.rates(steps, errors)
      local rate_text = {}
      for i = 2, #steps do rate_text[#rate_text + 1] = format("%.2f", rates[i]) end
      rows[#rows + 1] = {p.name, layer, common.bias_label(am), errors, table.concat(rate_text, " "),
                         order, method.order}
      wb.expect_near(order, method.order, 0.15,
                     format("%s, %s %s: order %d (fitted over the three finest steps)", p.name,
                            layer, common.bias_label(am), method.order))
      series[#series + 1] = {x = steps, y = errors, title = layer .. " " .. common.bias_label(am),
                             with = "linespoints", style = common.style(layer, am)}
      -- beside the prototype
      local proto
      if p.name == "spherical_pendulum" then
        proto = common.table_a[layer][am]
      elseif p.name == "double_spherical_pendulum" then
        for _, b in ipairs(common.table_b) do
          if b[1] == layer and b[2] == am then proto = b[3] end
        end
      end
      if proto then
        local worst = 0
        for i = 1, #proto do worst = math.max(worst, common.relative(errors[i], proto[i])) end
        rows[#rows].proto = proto
        wb.expect_below(worst, 0.01, format("%s, %s %s: errors within 1 %% of the prototype's Table %s",
                                            p.name, layer, common.bias_label(am),
                                            p.name == "spherical_pendulum" and "A" or "B"))
      end
    end
  end
  figures[#figures + 1] = wb.plot{
    file = "plots/variationalize/orders_" .. p.name .. ".png", logscale = "xy",
    xrange = {steps[#steps] / 1.3, steps[1] * 1.3},
    size = {1000, 640}, key = "outside right",
    title = p.label .. ": error at T = 1 of the converted methods (layer, bias)",
    xlabel = "h", ylabel = "max |error| of (q, v)", series = series}
end

-- the table, with the prototype's numbers under ours where it has them
wb.printf("\nerrors at T = 1 (max-norm of (q, v)); orders: pairwise, then fitted over the three finest h\n")
for _, r in ipairs(rows) do
  local e = {}
  for i, x in ipairs(r[4]) do e[i] = format("%.3e", x) end
  wb.printf("  %-25s %-7s %-12s %s   %s   fitted %.2f (claimed %d)\n", r[1], r[2], r[3],
            table.concat(e, " "), r[5], r[6], r[7])
  if r.proto then
    local pe = {}
    for i = 1, #r[4] do pe[i] = r.proto[i] and format("%.3e", r.proto[i]) or "    -    " end
    wb.printf("  %-25s %-7s %-12s %s   (prototype, Table %s)\n", "", "", "", table.concat(pe, " "),
              r[1] == "spherical_pendulum" and "A" or "B")
  end
end

-- implicit layers: the same conversion (stages by Newton, their derivative
-- by the variational equations through the same stage matrix)
local p1 = problems[1][1]
local implicit_rows = {}
for _, layer in ipairs{"gauss1", "gauss2", "radau_iia2"} do
  for _, am in ipairs(biases) do
    local method = common.vi(layer, am)
    local steps = common.table_a_h
    local errors = {}
    for i, h in ipairs(steps) do
      local sol = wb.integrate{model = p1.model, method = method, h = h, t_end = 1, q0 = p1.q0,
                               p0 = p1.p0}
      errors[i] = common.final_error(sol, p1.reference)
    end
    local order = fitted(steps, errors)
    implicit_rows[#implicit_rows + 1] = {layer, common.bias_label(am), errors[1], errors[#errors],
                                         order, method.order}
    wb.expect_near(order, method.order, 0.15,
                   format("P1, implicit layer %s %s: order %d", layer, common.bias_label(am),
                          method.order))
  end
end
wb.printf("\nimplicit layers on P1, T = 1, h = 0.2 ... 0.025\n")
wb.print_table({"layer", "bias", "err h=0.2", "err h=0.025", "fitted", "claimed"}, implicit_rows,
               "%-14.4g")
