-- Table 1 of Brugnano, Gurioli, Iavernaro, Weinmueller, "Line integral
-- solution of Hamiltonian systems with holonomic constraints" (Sect. 5.1):
-- the planar pendulum integrated by HBVM(s, s), s = 1, 2, 3.
--
--   model     pendulum {m = 1, l = 1, g = 1}: H = |p|^2/2 + y, g = |q|^2 - 1
--   data      q0 = (0, -1), p0 = (1, 0) (the model's default), t in [0, 10]
--   steps     h = 0.1 * 2^-n, n = 0..8 (--quick: n = 0..4)
--   reference the closed form through Jacobi elliptic functions of modulus
--             m = 1/4 (hbvm_common.pendulum_exact), checked against the
--             model's index-1 multiplier and its constraints
--   metric    (the paper's, as identified in the digest of the paper)
--             e_s   = max_n ||(q_n, p_n) - (q(t_n), p(t_n))||_1, all steps
--             e_lam = max_n |lambda_n - lambda(t_n)|, lambda_n the constant
--                     multiplier of the step [t_n, t_n+1] (sol:times 'start')
--             e_H   = max_n |H_n - H_0|,  e_g = max_n |g(q_n)|
--             e_hc  = max_n |2 (x_n x'_n + y_n y'_n)| = max_n |G M^-1 p_n|
--   also      e_mid = max_n |lambda_n - lambda(t_n + h/2)|: the multiplier
--             is really a midpoint value and converges with order 2 there
--
-- Claims checked: every entry of e_s, e_lam and e_hc above 1e-9 agrees with
-- the paper to two significant digits, and in the rows n <= 5 rounds to
-- all five printed digits: it lies within half a unit of the last printed
-- digit, widened by our round-off floor (the spread between the
-- fixed-point and the Newton iteration, both to machine precision: 1e-15
-- to 1e-12).  The tightest entry, HBVM(3,3) e_s at n = 0 (ours
-- 1.665750329e-3, printed 1.6658e-3), uses 0.99 of the half unit yet lies
-- 3.3e-10 inside the edge, 1.7e5 floors: decided, not lucky.  Fitted
-- orders (2, 1, 2) agree with
-- the orders fitted to the paper's own columns; e_H and e_g stay below
-- 1e-13; e_mid has order 2.
--
-- Where we differ: nowhere beyond the last digits.  n <= 5 agrees to all 5
-- printed digits; the paper's n = 6..8 entries carry noise in the 4th-5th
-- digit (largest deviations: e_hc, s = 1, n = 8: 3.5773e-08 here vs
-- 3.5902e-08 printed, 0.36%; e_s, s = 2, n = 8: 2.5207e-08 vs 2.5286e-08,
-- 0.31%), far inside the two-digit criterion.  The paper's e_H (1.1e-16)
-- and e_g (up to 1.1e-14) are round-off, as ours (below 5e-16 here).
--
--   workbench scripts/hbvm/pendulum.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "hbvm_common"

local model = wb.model("pendulum", {g = 1})
local n_max = wb.quick and 4 or 8

-- The paper's Table 1, n = 0..8: e_s, e_lambda, e_hc.
local paper = {
  [1] = {e_s = {2.5700e-02, 6.4260e-03, 1.6070e-03, 4.0181e-04, 1.0045e-04, 2.5114e-05,
                6.2785e-06, 1.5696e-06, 3.9248e-07},
         e_l = {3.4253e-02, 1.7386e-02, 8.7406e-03, 4.3835e-03, 2.1948e-03, 1.0982e-03,
                5.4929e-04, 2.7470e-04, 1.3743e-04},
         e_hc = {2.3487e-03, 5.8639e-04, 1.4654e-04, 3.6633e-05, 9.1580e-06, 2.2895e-06,
                 5.7238e-07, 1.4311e-07, 3.5902e-08}},
  [2] = {e_s = {1.6695e-03, 4.1412e-04, 1.0332e-04, 2.5816e-05, 6.4533e-06, 1.6133e-06,
                4.0332e-07, 1.0086e-07, 2.5286e-08},
         e_l = {3.5176e-02, 1.7585e-02, 8.7919e-03, 4.3958e-03, 2.1979e-03, 1.0990e-03,
                5.4948e-04, 2.7477e-04, 1.3751e-04},
         e_hc = {2.3539e-03, 5.8670e-04, 1.4656e-04, 3.6634e-05, 9.1581e-06, 2.2895e-06,
                 5.7238e-07, 1.4314e-07, 3.5884e-08}},
  [3] = {e_s = {1.6658e-03, 4.1386e-04, 1.0331e-04, 2.5815e-05, 6.4532e-06, 1.6133e-06,
                4.0331e-07, 1.0086e-07, 2.5220e-08},
         e_l = {3.5178e-02, 1.7585e-02, 8.7919e-03, 4.3958e-03, 2.1979e-03, 1.0990e-03,
                5.4948e-04, 2.7477e-04, 1.3739e-04},
         e_hc = {2.3539e-03, 5.8670e-04, 1.4656e-04, 3.6634e-05, 9.1581e-06, 2.2895e-06,
                 5.7238e-07, 1.4314e-07, 3.5791e-08}},
}

-- The reference: closed form, checked against the model itself.
do
  local worst_lambda, worst_g, worst_H = 0, 0, 0
  local q0, p0 = model:initial()
  local H0 = model:energy(q0, p0)
  for t = 0, 10, 0.05 do
    local q, p, lambda = common.pendulum_exact(t)
    worst_lambda = wb.max(worst_lambda, math.abs(lambda[1] - model:multiplier(q, p)[1]))
    worst_g = wb.max(worst_g, math.abs(model:constraints(q)[1]),
                     math.abs(model:hidden_constraints(q, p)[1]))
    worst_H = wb.max(worst_H, math.abs(model:energy(q, p) - H0))
  end
  wb.expect_below(worst_lambda, 1e-14, "closed form: lambda(t) is the model's index-1 multiplier")
  wb.expect_below(wb.max(worst_g, worst_H), 1e-14, "closed form: g = 0, G p = 0, H = H0")
end

local function state_error(sol)
  local worst, times = 0, sol.t
  for i = 2, sol.n do
    local q, p = common.pendulum_exact(times[i])
    worst = wb.max(worst, wb.norm(wb.sub(common.state(sol, i), wb.concat(q, p)), 1))
  end
  return worst
end

local function lambda_exact(t)
  local _, _, lambda = common.pendulum_exact(t)
  return lambda
end

-- Every (s, n) is an independent run: a sweep over them, on every core
-- (the numbers are those of one run after another, bit for bit).
local cases = {}
for s = 1, 3 do
  for n = 0, n_max do cases[#cases + 1] = {s = s, n = n} end
end
-- Rows n <= 5 also by Newton's iteration: both iterate to machine
-- precision, so their spread is our round-off floor for the five-digit
-- comparison.
local entries = wb.sweep{cases = cases, progress = false, run = function(c)
  local function run(iteration)
    local method = wb.method("hbvm", {k = c.s, s = c.s, iteration = iteration})
    return wb.integrate{model = model, method = method, h = 0.1 * 2 ^ -c.n, steps = 100 * 2 ^ c.n}
  end
  local sol = run("fixed_point")
  local row = {e_s = state_error(sol),
               e_l = common.multiplier_error(sol, model, lambda_exact, "start"),
               e_mid = common.multiplier_error(sol, model, lambda_exact, "mid"),
               e_hc = sol:max("hidden_constraint"), e_H = sol:max("energy_error_abs"),
               e_g = sol:max("constraint"), sweeps = sol.stats.mean_newton_iterations}
  if c.n <= 5 then
    local other = run("newton")
    row.floor_s = math.abs(state_error(other) - row.e_s)
    row.floor_l = math.abs(common.multiplier_error(other, model, lambda_exact, "start") - row.e_l)
    row.floor_hc = math.abs(other:max("hidden_constraint") - row.e_hc)
  end
  return row
end}

local results, series = {}, {}
local colors = {"#1f77b4", "#d62728", "#2ca02c"}
for s = 1, 3 do
  local r = {h = {}, n = {}, e_s = {}, e_l = {}, e_mid = {}, e_hc = {}, e_H = {}, e_g = {},
             sweeps = {}, floor_s = {}, floor_l = {}, floor_hc = {}}
  for _, entry in ipairs(entries:select{s = s}) do
    if entry.status ~= "ok" then error("HBVM(" .. s .. ") n = " .. entry.n .. ": " .. entry.failure) end
    local n = entry.n
    local i = n + 1
    r.h[i], r.n[i] = 0.1 * 2 ^ -n, n
    for _, key in ipairs{"e_s", "e_l", "e_mid", "e_hc", "e_H", "e_g", "sweeps", "floor_s",
                         "floor_l", "floor_hc"} do
      r[key][i] = entry[key]
    end
  end
  results[s] = r
  local p = paper[s]
  local rs, rl, rh = wb.rates(r.h, r.e_s), wb.rates(r.h, r.e_l), wb.rates(r.h, r.e_hc)
  common.print_columns(string.format("\nTable 1, HBVM(%d,%d): ours beside the paper's", s, s), {
    {name = "n", values = r.n, fmt = "%d", width = 2},
    {name = "e_s", values = r.e_s}, {name = "paper", values = p.e_s},
    {name = "rate", values = rs, fmt = "%.2f", width = 5},
    {name = "e_lam", values = r.e_l}, {name = "paper", values = p.e_l},
    {name = "rate", values = rl, fmt = "%.2f", width = 5},
    {name = "e_H", values = r.e_H, fmt = "%.1e", width = 7},
    {name = "e_g", values = r.e_g, fmt = "%.1e", width = 7},
    {name = "e_hc", values = r.e_hc}, {name = "paper", values = p.e_hc},
    {name = "rate", values = rh, fmt = "%.2f", width = 5},
    {name = "e_lam(mid)", values = r.e_mid},
    {name = "sweeps", values = r.sweeps, fmt = "%.2f", width = 6},
  }, #r.h)
  -- s = 2 and s = 3 coincide: a large square under a small dot, dashed
  common.paper_series(series, {h = r.h, ours = r.e_s, paper = p.e_s, color = colors[s],
                               title = string.format("e_s HBVM(%d,%d)", s, s),
                               marks = ({"pt 7", "pt 5 ps 1.4", "dt 2 pt 7 ps 0.6"})[s],
                               paper_title = s == 1 and "the paper (circles)" or ""})
end
local r2 = results[2]
common.paper_series(series, {h = r2.h, ours = r2.e_l, paper = paper[2].e_l, color = "#9467bd",
                             title = "e_λ vs λ(t_n), s = 2", marks = "dt 2 pt 5",
                             paper_title = ""})
common.paper_series(series, {h = r2.h, ours = r2.e_mid, color = "#ff7f0e",
                             title = "e_λ vs λ(t_n + h/2), s = 2", marks = "dt 3 pt 5"})
common.paper_series(series, {h = r2.h, ours = r2.e_hc, paper = paper[2].e_hc, color = "#8c564b",
                             title = "e_{hc}, s = 2", marks = "dt 4 pt 9", paper_title = ""})
wb.plot{file = "plots/hbvm/pendulum.png", logscale = "xy", key = "outside right top",
        size = {1050, 560}, enhanced = true, xrange = {r2.h[#r2.h] / 1.5, r2.h[1] * 1.5},
        title = "Table 1: planar pendulum, HBVM(s,s), errors over [0,10] (circles: the paper)",
        xlabel = "h", ylabel = "error", series = series}

wb.printf("\n")
for s = 1, 3 do
  local r, p, name = results[s], paper[s], string.format("HBVM(%d,%d)", s, s)
  common.check_table(name, r, p, {{"e_s", 2, 0.05}, {"e_l", 1, 0.05}, {"e_hc", 2, 0.05}})
  for _, c in ipairs{{"e_s", "e_s", "floor_s"}, {"e_l", "e_lam", "floor_l"},
                     {"e_hc", "e_hc", "floor_hc"}} do -- rows n = 0..5
    common.check_printed(string.format("%s %s, n <= 5", name, c[2]), r[c[1]],
                         {table.unpack(p[c[1]], 1, 6)}, r[c[3]], common.labels(r), 5)
  end
  wb.expect_near(wb.fit_order(r.h, r.e_mid), 2, 0.1,
                 name .. ": lambda_n is second order at t_n + h/2")
end
wb.expect_below(common.worst(results, "e_H"), 1e-13, "e_H at round-off in every run")
wb.expect_below(common.worst(results, "e_g"), 1e-13, "e_g at round-off in every run")
wb.check(results[1].e_s[1] > 10 * results[2].e_s[1],
         "HBVM(1,1) is the least accurate: e_s(s = 1) > 10 e_s(s = 2) at h = 0.1",
         string.format("%.3g vs %.3g", results[1].e_s[1], results[2].e_s[1]))
