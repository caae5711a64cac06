-- Seed 001 (Martin de Diego, Sato Martin de Almagro), Figures 4 and 5: the
-- pendulum-driven continuously variable transmission, eps = 1/2, Lobatto-2,
-- h = 1/10, the oscillating (Fig. 4) and the rotating (Fig. 5) regime:
-- the errors of the driver's and the passenger's energies, short and long
-- term, and the paper's remark that h = pi/10 (the step of the earlier
-- study it cites) behaves "rather erratically".
--
-- Model: cvt, eps = 1/2; q0 = (1, 0, 1), v0 = (0, vy0, 0) with
--   vy0 = 3 sqrt(10)/5 (oscillating: E = 9/5, Ed = 4/5, Ep = 1) and
--   vy0 = sqrt(8) (rotating: E = 4, Ed = 3, Ep = 1): the paper's data.
-- Horizons (the paper gives none): short term T = 50, long term T = 2000
--   (--quick: 200); every step recorded (the maxima below are over all of
--   them; the long-term figures plot every fifth).
-- Figures (plots/nonholonomic/): cvt_<regime>_{short,long}_{Ed,Ep}.png
--   (Figs. 4 a-d, 5 a-d) and cvt_<regime>_pi10.png (h = pi/10 against 1/10).
-- Claims checked:
--   * h = 1/10: Ed, Ep and E bounded with no drift: the largest error in the
--     last quarter of the long run is within 1.5 times that of the first
--     (measured: within 1.03; a quarter spans the error's slow modulation);
--   * the constraint at every node to Newton's tolerance;
--   * h = pi/10 is erratic, measured against the driver, whose energy error
--     is the order's h^2 law exactly (max |Ed - Ed0| / h^2 = 0.427 .. 0.437
--     oscillating, 1.26 .. 1.31 rotating, for every h from 0.1 to 0.35):
--     (a) from h = 0.1 to pi/10 the passenger's error grows more than 1.5
--     times as much as the driver's (Ep ratio over Ed ratio: 4.2
--     oscillating, 1.9 rotating; the h^2 law gives 1);
--     (b) it is no smooth function of h: max |Ep - Ep0| / h^2 over h = 0.30,
--     0.31, pi/10, 0.32, 0.33 spans more than a factor 1.5 (4.2 oscillating:
--     1.52, 2.51, 5.42, 1.29, 1.62; 2.4 rotating: 9.55, 4.05, 4.94, 7.70,
--     4.72), where the driver's spans less than 1.05 (1.004, 1.013).
--     The check it replaces (issue 30), "Ep(pi/10) > 10 Ep(0.1)", asked for
--     no more than the h^2 law's pi^2 = 9.87 and passes on the regular
--     driver (Ed: 10.09 times); (a) and (b) fail on it (1.00; 1.006, 1.013):
--     shown by running them on Ed, with the numbers in the commit.
-- Measured (T = 2000): max |Ed - Ed0|, max |Ep - Ep0|
--   oscillating, h = 0.1: 4.27e-3, 1.26e-2;   h = pi/10: 4.31e-2, 0.535
--   rotating,    h = 0.1: 1.26e-2, 2.49e-2;   h = pi/10: 0.128,   0.487
-- the digest's prototype: 4.3e-3, 1.3e-2; 4.3e-2, 0.54; 1.3e-2, 2.5e-2;
-- 0.13, 0.49.  Over h = 0.1 .. 0.25 the passenger's error is regular too
-- (Ep / h^2 = 1.26, 1.38, 1.45 oscillating); near h = 0.3 it is not, in
-- both regimes (rotating from h = 0.28: 4.2).
--
--   workbench scripts/nonholonomic/cvt.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "nh_common"

local short_end, long_end = 50, wb.quick and 200 or 2000
local regimes = {
  {name = "oscillating", vy0 = 3 * math.sqrt(10) / 5, figure = "Fig. 4", E = 9 / 5},
  {name = "rotating", vy0 = math.sqrt(8), figure = "Fig. 5", E = 4},
}
local method = common.lobatto(2)
-- steps around pi/10 (and pi/10 itself)
local near_steps = {0.30, 0.31, math.pi / 10, 0.32, 0.33}
local near_label = "0.30, 0.31, pi/10, 0.32, 0.33"

local function run(regime, h, t_end)
  local model = wb.model("cvt", {eps = 0.5, vy0 = regime.vy0})
  local sol = wb.integrate{model = model, method = method, h = h, steps = math.floor(t_end / h + 0.5)}
  return {t = sol.t, Ed = wb.deviation(sol:column("Ed")), Ep = wb.deviation(sol:column("Ep")),
          E = sol:column("energy_error"), sol = sol, model = model}
end

local function every(x, k)
  local out = {}
  for i = 1, #x, k do out[#out + 1] = x[i] end
  return out
end

local rows = {}
for _, r in ipairs(regimes) do
  r.short = run(r, 0.1, short_end)
  r.long = run(r, 0.1, long_end)
  r.erratic = run(r, math.pi / 10, long_end)
  r.near = {}
  for i, h in ipairs(near_steps) do
    r.near[i] = h == math.pi / 10 and r.erratic or run(r, h, long_end)
    r.near[i].h = h
  end
  local model = r.long.model
  local q0, p0 = model:initial()
  local inv = model:invariants(q0, p0)
  wb.expect_near(model:energy(q0, p0), r.E, 1e-14, r.name .. ": E = " .. r.E)
  wb.expect_near(inv.Ep, 1, 1e-15, r.name .. ": Ep = 1")
  wb.expect_near(model:nonholonomic_multiplier(q0, p0)[1], -1, 1e-14,
                 r.name .. ": the consistent multiplier nu0 = -1 (the paper's lambda0 = 1)")
  for _, key in ipairs{"Ed", "Ep", "E"} do
    local e = r.long[key]
    local quarter = #e // 4
    local first, last = wb.max_abs(e, 1, quarter), wb.max_abs(e, #e - quarter + 1, #e)
    wb.check(last <= 1.5 * first,
             string.format("%s, h = 0.1: %s bounded, no drift (max error, first quarter %.3e, "
                           .. "last quarter %.3e)", r.name, key, first, last))
  end
  wb.expect_below(r.long.sol:max("nonholonomic_constraint"), 1e-13,
                  r.name .. ", h = 0.1: |Phi| at the nodes to Newton's tolerance")
  -- erratic against the driver's h^2 law: (a) the growth from h = 0.1 to
  -- pi/10, (b) the spread of max|error| / h^2 over steps near pi/10
  local function grows(key)
    return (wb.max_abs(r.erratic[key]) / wb.max_abs(r.long[key]))
           / ((math.pi / 10) / 0.1) ^ 2
  end
  local function spread(key)
    local lo, hi = math.huge, 0
    for _, n in ipairs(r.near) do
      local v = wb.max_abs(n[key]) / n.h ^ 2
      lo, hi = math.min(lo, v), math.max(hi, v)
    end
    return hi / lo
  end
  local excess = grows("Ep") / grows("Ed")
  wb.check(excess > 1.5 and grows("Ed") > 0.95 and grows("Ed") < 1.05,
           string.format("%s: h = pi/10 is erratic: from h = 0.1 the passenger's error grows %.2f "
                         .. "times the h^2 law, the driver's %.3f (ratio %.2f)", r.name,
                         grows("Ep"), grows("Ed"), excess))
  wb.check(spread("Ep") > 1.5 and spread("Ed") < 1.05,
           string.format("%s: ... and no smooth function of h: max|Ep - Ep0| / h^2 over h = %s "
                         .. "spans %.2f, the driver's %.3f", r.name, near_label, spread("Ep"),
                         spread("Ed")))
  rows[#rows + 1] = {r.name, "0.1", wb.max_abs(r.long.Ed), wb.max_abs(r.long.Ep),
                     wb.max_abs(r.long.E)}
  rows[#rows + 1] = {r.name, "pi/10", wb.max_abs(r.erratic.Ed), wb.max_abs(r.erratic.Ep),
                     wb.max_abs(r.erratic.E)}
end
wb.printf("CVT, eps = 1/2, Lobatto-2, T = %g: largest energy errors\n", long_end)
wb.print_table({"regime", "h", "max|dEd|", "max|dEp|", "max|dE|"}, rows, "%-14.3g")

---------------------------------------------------------------------------
-- Figures
---------------------------------------------------------------------------
for _, r in ipairs(regimes) do
  local base = "plots/nonholonomic/cvt_" .. r.name
  local label = string.format("CVT, %s regime (%s), Lobatto-2, h = 0.1", r.name, r.figure)
  for _, key in ipairs{"Ed", "Ep"} do
    local who = key == "Ed" and "driver" or "passenger"
    wb.plot{file = base .. "_short_" .. key .. ".png", title = label .. ": short term",
            xlabel = "t", ylabel = key .. " - " .. key .. "(0) (" .. who .. ")",
            series = {{x = r.short.t, y = r.short[key], title = key, style = common.style(1)}}}
    wb.plot{file = base .. "_long_" .. key .. ".png", title = label .. ": long term",
            xlabel = "t", ylabel = key .. " - " .. key .. "(0) (" .. who .. ")",
            series = {{x = every(r.long.t, 5), y = every(r.long[key], 5), title = key,
                       style = common.style(1)}}}
  end
  wb.plot{file = base .. "_pi10.png",
          title = string.format("CVT, %s regime: passenger energy error, h = pi/10 against 1/10",
                                r.name),
          xlabel = "t", ylabel = "Ep - Ep(0)",
          series = {{x = every(r.erratic.t, 5), y = every(r.erratic.Ep, 5), title = "h = pi/10",
                     style = common.style(2)},
                    {x = every(r.long.t, 5), y = every(r.long.Ep, 5), title = "h = 1/10",
                     style = common.style(1)}}}
end
