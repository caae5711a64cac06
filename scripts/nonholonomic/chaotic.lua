-- Seed 001 (Martin de Diego, Sato Martin de Almagro), Figure 6: the fully
-- chaotic nonholonomic system (n = 7), the mean squared energy error of an
-- ensemble on the surface E0 = 3.06,
--   mu(E, t) = 1/(J+1) sum_j (E_j(t) - E0)^2          (eq. 33),
-- scaled by h^4 for Lobatto-2 and, as the paper writes, by h^10 for
-- Lobatto-3.  Lobatto-3 has order 4, which predicts an energy error O(h^4)
-- and mu = O(h^8); the digest's prototype saw h^8.  This script settles it:
-- four step sizes for Lobatto-2 and five for Lobatto-3 over a 16-fold
-- range, 41 members, and the exponent fitted at every sampled time.
--
-- Model: chaotic_nonholonomic, m = 3; the ensemble of the paper (after
--   Jay): member j = 0..J, q0 = (cos a_j, 0.6, 0.4, 0.2, 1, 1, 1),
--   v0 = (0, sin a_j, 0, 0, 0, 0, 0), a_j = j pi / (2J); J = 40 here (the
--   paper does not give J), all at E0 = 3.06.
-- Horizon and steps (not in the paper): T = 400, sampled at t = 1, 2, ...;
--   Lobatto-2: h = 0.1, 0.05, 0.025, 0.0125; Lobatto-3: h = 0.2, 0.1, 0.05,
--   0.025, 0.0125 (full Newton, tolerance 1e-13 with step_tol 1e-15: round-off,
--   so that the solver's error stays below the method's at h = 0.0125).
-- Figures (plots/nonholonomic/): chaotic_lobatto2_h4.png (mu / h^4),
--   chaotic_lobatto3_h8.png, chaotic_lobatto3_h10.png (the same mu scaled
--   both ways: the curves that collapse show the true exponent),
--   chaotic_exponent.png (the exponent fitted at each time),
--   chaotic_random_walk.png (full run: the energy increments' excess
--   dS(tau) / S(10) against the lag, with a line ~ tau).
-- Claims checked:
--   * the energy performs a random walk and mu grows with time (full run
--     only; the largest step of each method, Lobatto-2 h = 0.1 and Lobatto-3
--     h = 0.2, is run on to T_walk = 2000, its first 400 used as above):
--     (a) mu grows: the means of mu over the ten tenths of [0, 2000] rise
--         along a line whose slope is more than 4 of its standard errors
--         (measured t = 15.0 and 10.8) and the last tenth's is more than
--         twice the first's (3.81, 3.67);
--     (b) the law is a random walk's: the members' energy increments over a
--         lag tau, S(tau) = mean over members and t of (E(t + tau) - E(t))^2,
--         are a bounded part (the O(h^p) oscillation, S(10)) plus a part
--         that grows like tau (a drift would give tau^2): dS = S(tau) -
--         S(10) > 0 at tau = 40, 80, 160, 320, 640, its fitted exponent
--         within [0.7, 1.3] (measured 0.85, 1.01; 1.00 and 0.95 at h = 0.05
--         and 0.1) and dS(640) more than 0.3 S(10) (0.76, 0.84).
--     Control, run with them: the same members' energies shuffled in time
--     (bounded noise with the same values, a fixed permutation) must fail
--     both (a) and (b), and do: t = 1.9 and 3.1 but the last tenth only
--     1.10 and 1.14 times the first, dS(tau) not positive at every lag
--     (dS(640) = -0.003 and -0.01 S(10)).  The check this replaces (issue
--     30: the last tenth's mean of mu above the first's, T = 400) passed 93
--     to 110 of 200 such shuffles of mu;
--   * Lobatto-2: mu scales as h^4 (fitted exponent within 0.5 of 4 at the
--     median time; the scaled curves' time means within a factor 2);
--   * Lobatto-3: mu scales as h^8, not h^10: the median fitted exponent is
--     within 0.6 of 8, and mu / h^8 collapses (time means within a factor
--     2) while mu / h^10 spreads by more than 2^(2 x 4) / 2 over the range.
-- Measured (T = 400, J = 40; 3m39s wall with the runs to T_walk): the exponent
-- fitted at each time t = 2..400, median (10% .. 90% of the times):
--   Lobatto-2: 3.95 (3.79 .. 4.13); mu / h^4 time means within 1.21;
--   Lobatto-3: 8.03 (7.92 .. 8.18); mu / h^8 within 1.18, mu / h^10 spread 230
--   (16^2 = 256 is exactly the h^8 law over h = 0.2 .. 0.0125).  Before
--   Newton delivered its unknowns (issue 13; the chaotic runs part at
--   round-off, so the late times move): 3.98 (3.80 .. 4.14), 1.15; 8.01
--   (7.87 .. 8.14), 1.04, 253.
-- So mu ~ h^8 for Lobatto-3, as its order 4 predicts: the paper's h^10 is
-- not reproduced (the digest's prototype, J = 6 and two step sizes, saw
-- the same).  mu / h^8 is 1e-4 to 1.5e-4 and creeps up with t.
--
--   workbench scripts/nonholonomic/chaotic.lua [--quick]
--   (--quick: J = 6, T = 40, Lobatto-2 h = 0.1, 0.05, Lobatto-3 h = 0.2, 0.1, 0.05)
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "nh_common"

local J = wb.quick and 6 or 40
local T = wb.quick and 40 or 400
local T_walk = wb.quick and T or 2000 -- the largest step of each method runs on to here
local ladders = wb.quick and {[2] = {0.1, 0.05}, [3] = {0.2, 0.1, 0.05}}
                or {[2] = {0.1, 0.05, 0.025, 0.0125}, [3] = {0.2, 0.1, 0.05, 0.025, 0.0125}}
local E0 = 3.06

local cases = {}
for _, s in ipairs{2, 3} do
  for _, h in ipairs(ladders[s]) do
    for j = 0, J do cases[#cases + 1] = {s = s, h = h, member = j} end
  end
end

local results = wb.sweep{cases = cases, progress = not wb.quick, jobs = 2, run = function(c)
  local model = wb.model("chaotic_nonholonomic", {m = 3, members = J, member = c.member})
  local method = common.lobatto(c.s, {tol = 1e-13, step_tol = 1e-15, iteration = "newton"})
  local per_unit = math.floor(1 / c.h + 0.5)
  local t_end = c.h == ladders[c.s][1] and T_walk or T
  local sol = wb.integrate{model = model, method = method, h = c.h, steps = t_end * per_unit,
                           every = per_unit}
  return {E = sol:column("energy"), phi = sol:max("nonholonomic_constraint")}
end}

---------------------------------------------------------------------------
-- The ensemble's mean squared energy error per (s, h)
---------------------------------------------------------------------------
local ok = results:select{status = "ok"}
wb.check(#ok == #cases, string.format("every run succeeded (%d of %d)", #ok, #cases))
local times = {}
for k = 0, T do times[k + 1] = k end
local mu = {[2] = {}, [3] = {}}
local walk = {[2] = {mu = {}, members = {}}, [3] = {mu = {}, members = {}}}
local worst_phi, first_energy = 0, 0
for _, row in ipairs(ok) do
  local m = mu[row.s]
  m[row.h] = m[row.h] or {}
  local acc = m[row.h]
  for k = 1, T + 1 do acc[k] = (acc[k] or 0) + (row.E[k] - E0) ^ 2 / (J + 1) end
  if #row.E > T + 1 then
    local w, e = walk[row.s], {}
    for k, E in ipairs(row.E) do
      e[k] = E - E0
      w.mu[k] = (w.mu[k] or 0) + e[k] ^ 2 / (J + 1)
    end
    w.members[#w.members + 1] = e
  end
  worst_phi = math.max(worst_phi, row.phi)
  first_energy = math.max(first_energy, math.abs(row.E[1] - E0))
end
wb.expect_below(first_energy, 1e-14, "every member starts on E0 = 3.06")
wb.expect_below(worst_phi, 1e-12, "|Phi| at the nodes to Newton's tolerance in every run")

local function mean(x, first, last)
  local sum = 0
  for i = first, last do sum = sum + x[i] end
  return sum / (last - first + 1)
end

-- the exponent fitted at each sampled time t >= 2 (mu(0) = 0)
local function exponents(s)
  local out, hs = {}, ladders[s]
  for k = 3, T + 1 do
    local e = {}
    for i, h in ipairs(hs) do e[i] = mu[s][h][k] end
    out[#out + 1] = wb.fit_order(hs, e)
  end
  return out
end

local function median(x)
  local y = {table.unpack(x)}
  table.sort(y)
  return y[(#y + 1) // 2], y[math.max(1, math.floor(0.1 * #y))], y[math.ceil(0.9 * #y)]
end

-- time means of mu / h^e over the run, and their spread over h
local function spread(s, e)
  local lo, hi = math.huge, 0
  for _, h in ipairs(ladders[s]) do
    local m = mean(mu[s][h], 2, T + 1) / h ^ e
    lo, hi = math.min(lo, m), math.max(hi, m)
  end
  return hi / lo
end

local summary = {}
for _, s in ipairs{2, 3} do
  local ex = exponents(s)
  local med, p10, p90 = median(ex)
  summary[s] = {exponents = ex, median = med, p10 = p10, p90 = p90}
end

---------------------------------------------------------------------------
-- The random walk (full run): mu's growth and the increments' law
---------------------------------------------------------------------------
-- (a) the ten tenths' means of mu: slope / its standard error, last / first
local function growth(m)
  local n = (#m - 1) // 10
  local x, y = {}, {}
  for b = 1, 10 do
    x[b], y[b] = b, mean(m, 2 + (b - 1) * n, 1 + b * n)
  end
  local a, slope = wb.fit_line(x, y)
  local rss = 0
  for b = 1, 10 do rss = rss + (y[b] - a - slope * x[b]) ^ 2 end
  local se = math.sqrt(rss / 8 / 82.5) -- sum (x - mean x)^2 = 82.5 for x = 1..10
  return slope / se, y[10] / y[1]
end

-- (b) S(tau) = mean (E(t + tau) - E(t))^2 over members and t; the excess
-- over the bounded part S(10) and its exponent in tau
local lags = {40, 80, 160, 320, 640}
local function increments(members, tau)
  local sum, n = 0, 0
  for _, e in ipairs(members) do
    for k = 1, #e - tau do
      sum, n = sum + (e[k + tau] - e[k]) ^ 2, n + 1
    end
  end
  return sum / n
end
local function walk_law(members)
  local base, x, y, positive = increments(members, 10), {}, {}, true
  local excess
  for i, tau in ipairs(lags) do
    excess = increments(members, tau) - base
    positive = positive and excess > 0
    x[i], y[i] = math.log(tau), math.log(math.max(excess, 1e-300))
  end
  local _, exponent = wb.fit_line(x, y)
  return positive and exponent or 0 / 0, excess / base
end

-- the control: each member's energies in a fixed random order (an LCG, not
-- math.random, so that every build draws the same permutation)
local function shuffled(e)
  local out, state = {table.unpack(e)}, 12345
  for i = #out, 3, -1 do
    state = (state * 1103515245 + 12345) % 2147483648
    local j = 2 + state % (i - 1)
    out[i], out[j] = out[j], out[i]
  end
  return out
end

local function walk_checks(label, w, expect_pass)
  local t, ratio = growth(w.mu)
  local exponent, share = walk_law(w.members)
  local a_ok = t > 4 and ratio > 2
  local b_ok = exponent >= 0.7 and exponent <= 1.3 and share > 0.3
  local detail_a = string.format("slope %.1f standard errors, last tenth / first %.2f", t, ratio)
  local detail_b = exponent == exponent
                   and string.format("dS(tau) ~ tau^%.2f over tau = 40 .. 640, dS(640) = %.2f S(10)",
                                     exponent, share)
                   or string.format("dS(tau) <= 0 at some tau in 40 .. 640, dS(640) = %.3f S(10)",
                                    share)
  if expect_pass then
    wb.check(a_ok, label .. ": mu grows with time", detail_a)
    wb.check(b_ok, label .. ": the energy's increments grow like a random walk's", detail_b)
  else
    wb.check(not a_ok and not b_ok, label .. ": fails both (bounded noise is told apart)",
             detail_a .. "; " .. detail_b)
  end
  return {t = t, ratio = ratio, exponent = exponent, share = share}
end

local walks = {}
if not wb.quick then
  for _, s in ipairs{2, 3} do
    local w, label = walk[s], string.format("Lobatto-%d, h = %g, T = %d", s, ladders[s][1], T_walk)
    walks[s] = walk_checks(label, w, true)
    local control = {mu = {}, members = {}}
    for i, e in ipairs(w.members) do
      control.members[i] = shuffled(e)
      for k, x in ipairs(control.members[i]) do
        control.mu[k] = (control.mu[k] or 0) + x ^ 2 / (J + 1)
      end
    end
    walk_checks(label .. ", energies shuffled in time (control)", control, false)
  end
end
local rows = {
  {"Lobatto-2", summary[2].median, summary[2].p10, summary[2].p90, spread(2, 4), spread(2, 8)},
  {"Lobatto-3", summary[3].median, summary[3].p10, summary[3].p90, spread(3, 8), spread(3, 10)},
}
wb.printf("chaotic system, J + 1 = %d members, T = %d: mu(E, t) ~ h^e\n", J + 1, T)
wb.print_table({"method", "e (median)", "e (10%)", "e (90%)", "spread h^p",
                "spread h^(p+2)"}, rows, "%-14.3g")
wb.printf("(spread: max/min over h of the time mean of mu / h^e; p = 4 for Lobatto-2, 8 for "
          .. "Lobatto-3)\n")

wb.expect_in(summary[2].median, 3.5, 4.5, "Lobatto-2: mu ~ h^4 (median fitted exponent)")
wb.expect_below(spread(2, 4), 2, "Lobatto-2: mu / h^4 collapses (spread of time means)")
wb.expect_in(summary[3].median, 7.4, 8.6,
             "Lobatto-3: mu ~ h^8, not the paper's h^10 (median fitted exponent)")
wb.expect_below(spread(3, 8), 2, "Lobatto-3: mu / h^8 collapses")
local range = ladders[3][1] / ladders[3][#ladders[3]]
wb.check(spread(3, 10) > range ^ 2 / 2,
         string.format("Lobatto-3: mu / h^10 does not collapse (spread %.3g over a %g-fold range "
                       .. "of h)", spread(3, 10), range))

---------------------------------------------------------------------------
-- Figures
---------------------------------------------------------------------------
local function scaled(s, e)
  local series = {}
  for i, h in ipairs(ladders[s]) do
    local y = {}
    for k, m in ipairs(mu[s][h]) do y[k] = m / h ^ e end
    table.remove(y, 1)
    series[#series + 1] = {x = {table.unpack(times, 2)}, y = y, style = common.style(i),
                           title = string.format("h = %g", h)}
  end
  return series
end
wb.plot{file = "plots/nonholonomic/chaotic_lobatto2_h4.png", logscale = "y", key = "bottom right",
        title = string.format("chaotic system (Fig. 6), Lobatto-2: mu(E, t) / h^4, %d members", J + 1),
        xlabel = "t", ylabel = "mu / h^4", series = scaled(2, 4)}
wb.plot{file = "plots/nonholonomic/chaotic_lobatto3_h8.png", logscale = "y", key = "bottom right",
        title = string.format("chaotic system, Lobatto-3: mu(E, t) / h^8 (collapses), %d members",
                              J + 1),
        xlabel = "t", ylabel = "mu / h^8", series = scaled(3, 8)}
wb.plot{file = "plots/nonholonomic/chaotic_lobatto3_h10.png", logscale = "y", key = "bottom right",
        title = "chaotic system (Fig. 6), Lobatto-3: mu(E, t) / h^10, the paper's scaling",
        xlabel = "t", ylabel = "mu / h^10", series = scaled(3, 10)}
if not wb.quick then
  -- the random walk: dS(tau) / S(10) against tau, and tau^1 through Lobatto-2's at tau = 40
  local series, plot_lags = {}, {40, 80, 160, 320, 640, 1280}
  for i, s in ipairs{2, 3} do
    local base, y = increments(walk[s].members, 10), {}
    for k, tau in ipairs(plot_lags) do y[k] = (increments(walk[s].members, tau) - base) / base end
    series[i] = {x = plot_lags, y = y, with = "linespoints", style = common.style(i, true),
                 title = string.format("Lobatto-%d, h = %g (exponent %.2f over 40 .. 640)", s,
                                       ladders[s][1], walks[s].exponent)}
    if s == 2 then
      local line = {}
      for k, tau in ipairs(plot_lags) do line[k] = y[1] * tau / plot_lags[1] end
      series[3] = {x = plot_lags, y = line, style = "lw 1 dt 2 lc rgb 'black'",
                   title = "~ tau (a random walk)"}
    end
  end
  wb.plot{file = "plots/nonholonomic/chaotic_random_walk.png", logscale = "xy", key = "top left",
          title = string.format("chaotic system: energy increments over a lag tau, %d members, "
                                .. "T = %d", J + 1, T_walk),
          xlabel = "tau", ylabel = "(S(tau) - S(10)) / S(10)", series = series}
end
local ex_times = {table.unpack(times, 3)}
wb.plot{file = "plots/nonholonomic/chaotic_exponent.png", key = "bottom right",
        title = "chaotic system: exponent e of mu ~ h^e fitted at each time",
        xlabel = "t", ylabel = "e", yrange = {0, 12},
        series = {{x = ex_times, y = summary[2].exponents, title = "Lobatto-2", style = common.style(1)},
                  {x = ex_times, y = summary[3].exponents, title = "Lobatto-3", style = common.style(2)}}}
