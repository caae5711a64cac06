-- GGL paper (Kinon-Betsch-Schneider 2023): which reading of VI-B and of
-- its Fig. 5 reproduces every figure that names VI-B?
--
-- The paper, Sect. 6.1: "the Lagrange multipliers enforcing position
-- constraint (93) and velocity constraint (94) are displayed in Figs. 4 and
-- 5, respectively.  It becomes obvious that solutions obtained with VI-A
-- and VI-B exhibit slight oscillations in lambda and gamma, respectively."
-- With VI-B = option B at theta = 1, vartheta = 1/2 (the digest's reading:
-- eq. 83, "for example"; the authors' input file for the pendulum,
-- INT_PARA = [1, 0.5], at the paper's commit 54af28b) VI-B's lambda
-- oscillates from step to step and its gamma does not (pendulum.lua).
-- Readings tried here:
--   * VI-B = B(1, 1/2), the sentence as printed (VI-A: lambda, VI-B: gamma);
--   * VI-B = B(1, 1/2), the multipliers swapped in the sentence (VI-A:
--     gamma, VI-B: lambda), a swapped label;
--   * the sentence as printed and another member of option B as VI-B, with
--     vartheta = 1/2, the only weight that is stable (theta_family.lua):
--     B(1/2, 1/2) (the authors' code comment: "[0.5 0.5]: more stable, [1
--     0.5]: exact constraint vel. level") and B(0, 1/2), each also with the
--     swapped sentence.
-- Every claim the paper makes that names VI-B, checked for each candidate
-- (the runs of pendulum.lua, top.lua and stability.lua, shortened):
--   Figs. 2, 3   pendulum, h = 0.05, T = 10: "slight deviations between the
--                different schemes": VI-B's q_1, p_1 from EM's by no more
--                than VI-S's (0.55 and 1.8, amplitudes 1 and 4.5; within
--                5 %) -- no candidate fails this;
--   Figs. 4, 5   the multipliers the sentence names oscillate visibly: the
--                alternating part (fourth difference / 16) at least 1 % of
--                the figure's scale, the largest |value| of the four
--                schemes it shows (VI-S, VI-A, VI-B, EM); smooth series stay
--                below 0.1 %;
--   Fig. 8       the energy function E of VI-B fluctuates without drift
--                (last tenth of [0, 50] at most 1.5 x the first tenth);
--   Fig. 11      J3 increments at round-off (1e-13);
--   Fig. 12      g(q^n) at round-off (1e-13);
--   Fig. 14      the velocity constraint "correctly captured", as the
--                authors plot it for VI-B: G(q^n) v^n with its interval
--                velocity, at round-off (1e-12);
--   Fig. 17      heavy top, h = 0.002: phi_3 leaves 0.0375 "due to reasons of
--                numerical accuracy" (by more than 1e-6 on [0, 0.1], at
--                least 1.8 times less at h = 0.001; B(0, 1/2): 1.3 times);
--   Figs. 18, 19 heavy top, errors at t = 0.001 (h = 1e-5 .. 1e-6): VI-B
--                first order in phi_3 and in p_phi (fitted within 1 +- 0.2);
--   Sect. 6.2    VI-B holds all 9 + 9 constraints of the top at the nodes
--                (g, G v with its interval velocity, 1e-12; h = 0.002,
--                T = 0.1) and does not conserve the energy (> 1e-8 of H0);
--   Fig. 31      four particles, h = 0.01: stable to T = 1000 (--quick: 20;
--                |H - H0| < 0.5 H0 at every tenth step);
--   Sect. 6.3    h = 0.04 stable to T = 1000 (--quick: 20);
--   Fig. 32      h = 0.05: VI-B blows up (|H - H0| > 10 H0) within the first
--                second.
-- Claims checked: B(1, 1/2) with the swapped sentence meets every one;
--   B(1, 1/2) with the sentence as printed fails Fig. 5 alone (gamma's
--   alternating part 0.05 % of the figure's scale, lambda's 3.6 %); every
--   other candidate fails at least one claim beyond Figs. 4 and 5: B(1/2,
--   1/2) Figs. 14, 18, 19, 32 and the top's constraints (it is symmetric,
--   of order 2, its velocity constraint holds at the midpoint; its gamma is
--   round-off, |gamma| < 1e-13, so it shows no oscillation on the figure's
--   scale either), B(0, 1/2) Figs. 14, 17 and the top's constraints (its
--   velocity constraint holds at q^n, not q^{n+1}).  So only a swapped
--   label makes the paper's VI-B one scheme in every figure, and then it
--   is the digest's B(1, 1/2).  Fig. 33 (h = 0.25) shows VI-B but the text
--   claims nothing of it (stability.lua: it fails at once, as VI-S).
--
--   workbench scripts/ggl/vi_b_readings.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "ggl_common"

local candidates = {
  {label = "B(1, 1/2)", theta = 1}, {label = "B(1/2, 1/2)", theta = 0.5},
  {label = "B(0, 1/2)", theta = 0},
}
for _, c in ipairs(candidates) do
  c.method = wb.method("ggl.vi_theta", {constraint = "trapezoidal", theta = c.theta,
                                        vartheta = 0.5})
  -- the authors' pairing of VI-B's interval velocity v^{n+1} with node n+1
  c.scheme = {label = "VI-B", method = c.method, pairing = "end"}
  c.claims = {}
end
-- the claims in the order they are made (pendulum, top, four particles)
local claims = {}
local function claim(c, name, met, detail)
  if c.claims[name] == nil and c == candidates[1] then claims[#claims + 1] = name end
  c.claims[name] = {met, detail}
end
local others = {}
for _, s in ipairs(common.schemes()) do others[s.label] = s end

local function alternating_part(x)
  local a = 0
  for i = 5, #x do
    a = wb.max(a, math.abs(x[i] - 4 * x[i - 1] + 6 * x[i - 2] - 4 * x[i - 3] + x[i - 4]) / 16)
  end
  return a
end
-- a per-interval unknown without its first row (none there)
local function interval(sol, name)
  local x = sol:column(name)
  table.remove(x, 1)
  return x
end

---------------------------------------------------------------------------
-- The pendulum, h = 0.05, T = 10 (Figs. 2-5, 8, 11, 12, 14)
---------------------------------------------------------------------------
local pendulum = wb.model("spherical_pendulum", {m = 1, l = 1, g = 9.81})
local h, t_end, long_end = 0.05, 10, 50
local runs = {}
for _, label in ipairs{"VI-S", "VI-A", "EM"} do
  runs[label] = wb.integrate{model = pendulum, method = others[label].method, h = h, t_end = t_end}
end
-- the largest distance of q_1 and of p_1 from EM's over [0, T]
local function from_em(sol)
  local q1, p1 = 0, 0
  local a, b, ea, eb = sol:column("q1"), sol:column("p1"), runs.EM:column("q1"), runs.EM:column("p1")
  for i = 1, sol.n do
    q1, p1 = wb.max(q1, math.abs(a[i] - ea[i])), wb.max(p1, math.abs(b[i] - eb[i]))
  end
  return q1, p1
end
local vis_q1, vis_p1 = from_em(runs["VI-S"])
wb.printf("pendulum, h = %g: VI-S's q_1 and p_1 from EM's by up to %.3g and %.3g (amplitudes 1 "
          .. "and %.3g): what the paper calls slight deviations\n", h, vis_q1, vis_p1,
          wb.max_abs(runs.EM:column("p1")))
for _, c in ipairs(candidates) do
  local sol = wb.integrate{model = pendulum, method = c.method, h = h, t_end = t_end}
  local q1, p1 = from_em(sol)
  claim(c, "Figs. 2, 3: slight deviations, as VI-S's", q1 <= 1.05 * vis_q1 and p1 <= 1.05 * vis_p1, string.format("%.3g, %.3g", q1, p1))
  -- Figs. 4 and 5: the alternating parts against each figure's scale (the
  -- table shows those of the two series the sentence names)
  local osc = {}
  for _, name in ipairs{"lambda", "gamma"} do
    local scale = 0
    local series = {["VI-B"] = interval(sol, name)}
    for _, label in ipairs{"VI-S", "VI-A", "EM"} do series[label] = interval(runs[label], name) end
    for _, x in pairs(series) do scale = wb.max(scale, wb.max_abs(x)) end
    osc[name] = {}
    for label, x in pairs(series) do osc[name][label] = alternating_part(x) / scale end
  end
  c.oscillation = osc
  local function visible(label, name) return osc[name][label] >= 0.01 end
  claim(c, "Figs. 4, 5 as printed: VI-A lambda, VI-B gamma", visible("VI-A", "lambda") and visible("VI-B", "gamma"),
    string.format("%.2g, %.2g", osc.lambda["VI-A"], osc.gamma["VI-B"]))
  claim(c, "Figs. 4, 5 swapped: VI-A gamma, VI-B lambda", visible("VI-A", "gamma") and visible("VI-B", "lambda"),
    string.format("%.2g, %.2g", osc.gamma["VI-A"], osc.lambda["VI-B"]))
  c.smooth = wb.max(osc.lambda["VI-S"], osc.lambda.EM, osc.gamma["VI-S"], osc.gamma.EM)
  c.max_gamma = sol:max("gamma")
  local long = wb.integrate{model = pendulum, method = c.method, h = h, t_end = long_end}
  local tE, E = common.energy_function(pendulum, long, c.scheme)
  local dev = wb.deviation(E)
  local first = wb.max_abs_between(tE, dev, 0, long_end / 10)
  local last = wb.max_abs_between(tE, dev, long_end * 0.9, long_end)
  claim(c, "Fig. 8: E fluctuates, no drift", first > 0 and last <= 1.5 * first,
                                                string.format("%.3g, %.3g", first, last))
  local _, dJ3 = common.increments(sol.t, sol:column("Lz"))
  claim(c, "Fig. 11: J3 increments at round-off", wb.max_abs(dJ3) <= 1e-13,
                                                     string.format("%.2g", wb.max_abs(dJ3)))
  claim(c, "Fig. 12: g(q^n) at round-off", sol:max("constraint") <= 1e-13,
                                              string.format("%.2g", sol:max("constraint")))
  local _, gv = common.velocity_constraint(pendulum, sol, c.scheme)
  claim(c, "Fig. 14: G(q^n) v^n at round-off", wb.max_abs(gv) <= 1e-12,
                                                  string.format("%.2g", wb.max_abs(gv)))
end

---------------------------------------------------------------------------
-- The heavy top (Figs. 18, 19; Sect. 6.2)
---------------------------------------------------------------------------
local top = wb.model("heavy_top")
local phi3_exact = top.params.l * math.cos(top.params.alpha0)
local ladder = {1e-5, 5e-6, 2.5e-6, 1e-6}
local t_eval = 0.001
local _, p_ref = wb.integrate{model = top, method = others.EM.method, h = 2.5e-7, t_end = t_eval,
                              every = 2 ^ 40}:final()
p_ref = {p_ref[1], p_ref[2], p_ref[3]}
for _, c in ipairs(candidates) do
  local sol = wb.integrate{model = top, method = c.method, h = 0.002, t_end = 0.1}
  local function deviation(run)
    return wb.max_abs(wb.map(run:column("q3"), function(x) return x - phi3_exact end))
  end
  local dev = deviation(sol)
  local ratio = dev / deviation(wb.integrate{model = top, method = c.method, h = 0.001, t_end = 0.1})
  claim(c, "Fig. 17: phi_3 leaves 0.0375 (accuracy)", dev > 1e-6 and ratio >= 1.8,
        string.format("%.2g, /%.2g at h/2", dev, ratio))
  local eq, ep = {}, {}
  for i, hi in ipairs(ladder) do
    local q, p = wb.integrate{model = top, method = c.method, h = hi, t_end = t_eval,
                              every = 2 ^ 40}:final()
    eq[i] = math.abs(q[3] - phi3_exact) / phi3_exact
    ep[i] = wb.norm(wb.sub({p[1], p[2], p[3]}, p_ref), 2) / wb.norm(p_ref, 2)
  end
  local oq, op = wb.fit_order(ladder, eq, 1e-13), wb.fit_order(ladder, ep, 1e-13)
  claim(c, "Figs. 18, 19: first order at t = 0.001",
        math.abs(oq - 1) <= 0.2 and math.abs(op - 1) <= 0.2, string.format("%.2f, %.2f", oq, op))
  local _, gv = common.velocity_constraint(top, sol, c.scheme)
  local held = wb.max(sol:max("constraint"), wb.max_abs(gv))
  claim(c, "Sect. 6.2: top's 9 + 9 constraints held", held <= 1e-12, string.format("%.2g", held))
  local dH = sol:max("energy_error")
  claim(c, "Sect. 6.2: top's energy not conserved", dH > 1e-8, string.format("%.2g", dH))
end

---------------------------------------------------------------------------
-- The four particles (Figs. 31, 32; Sect. 6.3)
---------------------------------------------------------------------------
local particles = wb.model("four_particles")
local E0 = particles:energy(particles:initial())
local function stability(method, hh, T, every)
  local sol = wb.integrate{model = particles, method = method, h = hh,
                           steps = math.floor(T / hh + 0.5), every = every or 1,
                           on_failure = "stop"}
  local worst, blow_up = 0, nil
  local E = sol:column("energy")
  for i = 1, sol.n do
    local e = math.abs(E[i] - E0) / E0
    if not (e <= 10) then blow_up = blow_up or sol.t[i] end
    worst = wb.max(worst, e)
  end
  return sol.ok and worst < 0.5, blow_up, worst
end
local T_stable = wb.quick and 20 or 1000
for _, c in ipairs(candidates) do
  local ok1, _, w1 = stability(c.method, 0.01, T_stable, 10)
  local ok4, _, w4 = stability(c.method, 0.04, T_stable, 10)
  local _, blow_up, w5 = stability(c.method, 0.05, 2)
  claim(c, string.format("Fig. 31: h = 0.01 stable to T = %g", T_stable), ok1, string.format("%.2g", w1))
  claim(c, string.format("Sect. 6.3: h = 0.04 stable to T = %g", T_stable), ok4, string.format("%.2g", w4))
  claim(c, "Fig. 32: h = 0.05 blows up within 1 s", blow_up ~= nil and blow_up < 1,
                                                       blow_up and string.format("t = %.3g", blow_up)
                                                       or string.format("max %.2g", w5))
end

---------------------------------------------------------------------------
-- The table: every claim against every reading
---------------------------------------------------------------------------
wb.printf("Every claim of the paper that names VI-B, for each candidate VI-B (h and T as in the "
          .. "header; Figs. 4, 5 under both readings of the sentence: the alternating parts of "
          .. "the two series it names, over their figure's scale)\n")
local line = {string.format("  %-48s", "claim naming VI-B")}
for _, c in ipairs(candidates) do line[#line + 1] = string.format("%-27s", "VI-B = " .. c.label) end
wb.printf("%s\n", table.concat(line))
for _, name in ipairs(claims) do
  line = {string.format("  %-48s", name)}
  for _, c in ipairs(candidates) do
    local r = c.claims[name]
    line[#line + 1] = string.format("%-27s", (r[1] and "met " or "NOT ") .. r[2])
  end
  wb.printf("%s\n", table.concat(line))
end
for _, c in ipairs(candidates) do
  wb.printf("%s: max |gamma| %.3g; VI-S's and EM's multipliers: alternating part at most %.2g of "
            .. "their figure's scale\n", c.label, c.max_gamma, c.smooth)
end

---------------------------------------------------------------------------
-- Claims
---------------------------------------------------------------------------
local function failed(c, skip)
  local out = {}
  for _, name in ipairs(claims) do
    if not c.claims[name][1] and not (skip and name:find("^Figs%. 4, 5")) then
      out[#out + 1] = name
    end
  end
  return out
end
local digest = candidates[1]
for _, name in ipairs(claims) do
  if name ~= "Figs. 4, 5 as printed: VI-A lambda, VI-B gamma" then
    wb.check(digest.claims[name][1], "VI-B = B(1, 1/2), the sentence swapped: " .. name,
             digest.claims[name][2])
  end
end
do
  local f = failed(digest)
  wb.check(#f == 1 and f[1] == "Figs. 4, 5 as printed: VI-A lambda, VI-B gamma",
           "VI-B = B(1, 1/2), the sentence as printed: fails Fig. 5 alone",
           table.concat(f, "; "))
end
for i = 2, #candidates do
  local c = candidates[i]
  local f = failed(c, true)
  wb.check(#f >= 1, string.format("VI-B = %s fails a claim beyond Figs. 4 and 5", c.label),
           table.concat(f, "; "))
end
for _, c in ipairs(candidates) do
  wb.expect_below(c.smooth, 1e-3, c.label .. " run: VI-S's and EM's multipliers smooth "
                                  .. "(alternating part / figure's scale)")
end
