-- GGL paper (Kinon-Betsch-Schneider 2023), Sect. 6.3 (first part): the
-- four-particle system, EM against Gonzalez's EM-G, Figs. 22-30.
--
-- Model: four_particles (Gonzalez 1999): masses 1, 3, 2.3, 1.7; springs
--   1-3 and 2-4 with V_i = k_i/2 (|q_b - q_a|^2 - 1)^2, k13 = 50, k24 = 500;
--   rigid bars 1-2 and 3-4 of length 1, g_k = (|q_b - q_a|^2 - 1)/2; no
--   gravity.  q0 = (0,0,0), (1,0,0), (0,1,0), (1,1,0); v4 = (0, 0, 2/1.7),
--   the others at rest (eq. 127): E0 = 2/1.7, L = (0, 0, 2), J = (2, -2, 0).
--   EM and EM-G use Greenspan's discrete gradient through the model's
--   potential invariants pi1 = |q3 - q1|^2, pi2 = |q4 - q2|^2 (the paper's
--   (122b) and (125) misprint pi2; see models/four_particles.c).
-- Runs: h = 0.01 on [0, 10] (both modes) for the conservation figures;
--   convergence at t = 0.1 against EM at h = 1e-5 with h = 0.01 ... 6.25e-4
--   (--quick: down to 1.25e-3): e_q = |q4 - q4,ref| / |q4,ref| (eq. 128),
--   the same for p (all 12 components) and lambda.
-- Claims checked: EM and EM-G conserve the energy and all six momentum
--   components (L1..L3, J1..J3) to round-off; both hold g(q^n) = 0, only EM
--   the velocity constraint G M^-1 p = 0 (Figs. 23, 24: EM-G's is O(h^2),
--   1.7e-5 at h = 0.01, 1e8 times EM's round-off); both are of order 2
--   in q and p, and of order 1 in lambda (Figs. 28-30); their q4 errors are
--   identical (at the smallest h they differ by a relative 7.9e-10,
--   --quick: 9.1e-10; checked below 1e-6).
-- Beyond the paper: lambda^{n+1} of both schemes acts at the interval
--   midpoint (through G(q_m)); compared with the reference at
--   t = 0.1 - h/2 instead of t = 0.1 it is of order 2.  The paper's first
--   order in lambda is that half-step shift (checked below).
-- Also beyond the paper: EM with Gonzalez's generic discrete gradient
--   (option discrete_gradient = "gonzalez") instead of Greenspan's through
--   the invariants still conserves the energy but not the momenta (|dL|,
--   |dJ| ~ 1e-5 on [0, 10]): the invariants are what makes DG V orthogonal
--   to the symmetry generators (condition 85a).
-- Differences from the paper: none in the described behaviour.
--
--   workbench scripts/ggl/four_particles.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "ggl_common"

local model = wb.model("four_particles")
local h, t_end = 0.01, 10
local schemes = {}
for _, s in ipairs(common.schemes(nil, true)) do
  if s.label == "EM" or s.label == "EM-G" then schemes[#schemes + 1] = s end
end
local names = {"energy", "L1", "L2", "L3", "J1", "J2", "J3"}

wb.printf("GGL paper Sect. 6.3: four-particle system, EM vs EM-G, h = %g on [0, %g]\n", h, t_end)
for _, s in ipairs(schemes) do
  local sol = wb.integrate{model = model, method = s.method, h = h, t_end = t_end}
  s.sol, s.t = sol, sol.t
  s.drift, s.increment, s.values = {}, {}, {}
  for _, name in ipairs(names) do
    local x = sol:column(name)
    s.values[name] = x
    s.drift[name] = wb.drift(x)
    s.t_increment, s.increment[name] = common.increments(sol.t, x) -- at t_{n+1}
  end
  s.gv = wb.max(sol:max("gv1"), sol:max("gv2"))
end

local rows = {}
for _, s in ipairs(schemes) do
  local row = {s.label}
  for _, name in ipairs(names) do row[#row + 1] = s.drift[name] end
  row[#row + 1] = s.sol:max("constraint")
  row[#row + 1] = s.gv
  rows[#rows + 1] = row
end
wb.print_table({"scheme", "max|dE|", "max|dL1|", "max|dL2|", "max|dL3|", "max|dJ1|", "max|dJ2|",
                "max|dJ3|", "max|g|", "max|G M^-1 p|"}, rows, "%-14.3g")

-- EM-G's velocity residual at h/2: its order
local gv_order
do
  local half = wb.integrate{model = model, method = schemes[2].method, h = h / 2, t_end = t_end}
  gv_order = math.log(schemes[2].gv / wb.max(half:max("gv1"), half:max("gv2")), 2)
end

-- EM with Gonzalez's generic discrete gradient, for contrast
local generic = wb.integrate{model = model, method = wb.method("ggl.em", {discrete_gradient = "gonzalez"}),
                             h = h, t_end = t_end}
local generic_energy = wb.drift(generic:column("energy"))
local generic_momentum = 0
for _, name in ipairs{"L1", "L2", "L3", "J1", "J2", "J3"} do
  generic_momentum = wb.max(generic_momentum, wb.drift(generic:column(name)))
end
wb.printf("EM with Gonzalez's generic DG V: max|dE| %.3g, max momentum drift %.3g\n",
          generic_energy, generic_momentum)

---------------------------------------------------------------------------
-- Convergence at t = 0.1 against EM at h = 1e-5
---------------------------------------------------------------------------
local t_eval = 0.1
local ladder = wb.quick and {0.01, 0.005, 0.0025, 0.00125} or {0.01, 0.005, 0.0025, 0.00125, 0.000625}
local em = schemes[1]
local reference = wb.integrate{model = model, method = em.method, h = 1e-5, t_end = t_eval}
local q_ref, p_ref = reference:final()
local lambda_ref = {reference:column("lambda1"), reference:column("lambda2")}
local lambda_times = reference:times("lambda1", "mid")

local function relative(a, b) return wb.norm(wb.sub(a, b), 2) / wb.norm(b, 2) end
local function lambda_reference_at(t) -- linear interpolation between midpoints
  for i = 3, #lambda_times do
    if lambda_times[i] >= t then
      local w = (t - lambda_times[i - 1]) / (lambda_times[i] - lambda_times[i - 1])
      return {(1 - w) * lambda_ref[1][i - 1] + w * lambda_ref[1][i],
              (1 - w) * lambda_ref[2][i - 1] + w * lambda_ref[2][i]}
    end
  end
  error("t = " .. t .. " outside the reference")
end
local lambda_end = {lambda_ref[1][#lambda_times], lambda_ref[2][#lambda_times]}

for _, s in ipairs(schemes) do
  s.eq, s.ep, s.el, s.el_mid = {}, {}, {}, {}
  for i, hi in ipairs(ladder) do
    local sol = wb.integrate{model = model, method = s.method, h = hi, t_end = t_eval}
    local q, p = sol:final()
    local lam = {sol:column("lambda1")[sol.n], sol:column("lambda2")[sol.n]}
    s.eq[i] = relative({q[10], q[11], q[12]}, {q_ref[10], q_ref[11], q_ref[12]})
    s.ep[i] = relative(p, p_ref)
    s.el[i] = relative(lam, lambda_end)
    s.el_mid[i] = relative(lam, lambda_reference_at(t_eval - hi / 2))
  end
  s.order_q, s.order_p = wb.fit_order(ladder, s.eq), wb.fit_order(ladder, s.ep)
  s.order_l = wb.fit_order(ladder, s.el)
  -- the midpoint comparison is pre-asymptotic at h = 0.01: last pair
  s.order_l_mid = wb.rates(ladder, s.el_mid)[#ladder]
  wb.printf("%s at t = %g (h = %s):\n", s.label, t_eval, common.format_list(ladder, "%g"))
  wb.printf("  e_q4     %s  order %.3f\n", common.format_list(s.eq), s.order_q)
  wb.printf("  e_p      %s  order %.3f\n", common.format_list(s.ep), s.order_p)
  wb.printf("  e_lambda %s  order %.3f\n", common.format_list(s.el), s.order_l)
  wb.printf("  lambda vs the reference at t - h/2: %s  order (last pair) %.3f\n",
            common.format_list(s.el_mid), s.order_l_mid)
end

---------------------------------------------------------------------------
-- Figures
---------------------------------------------------------------------------
do -- Fig. 22: the quadrilateral 1-2-4-3 (bars 1-2, 3-4; springs 2-4, 3-1), x-z view
  local sol = em.sol
  local q = common.vectors(sol, "q", 12)
  local out = {}
  for _, ts in ipairs{0, 2, 4, 6, 8, 10} do
    local i = math.floor(ts / h + 0.5) + 1
    local x, z = {}, {}
    for _, particle in ipairs{1, 2, 4, 3, 1} do
      x[#x + 1] = q[i][3 * particle - 2]
      z[#z + 1] = q[i][3 * particle]
    end
    out[#out + 1] = {x = x, y = z, title = string.format("t = %g", ts), with = "linespoints"}
  end
  wb.plot{file = "plots/ggl/fp_snapshots.png",
          title = "EM: particles 1-2-4-3 (bars 1-2, 3-4; springs 2-4, 3-1), x-z view (Fig. 22)",
          xlabel = "x", ylabel = "z", key = "outside right top", size = {800, 800},
          commands = {"set size ratio -1"}, series = out}
end
do
  local out = {}
  for _, s in ipairs(schemes) do
    for k = 1, 2 do
      out[#out + 1] = {x = s.t, y = common.floored(s.sol:column("gv" .. k), 1e-18),
                       title = string.format("%s, bar %s", s.label, k == 1 and "1-2" or "3-4"),
                       style = common.style(s.label, k == 2 and " dt 2" or "")}
    end
  end
  wb.plot{file = "plots/ggl/fp_gv.png", logscale = "y", key = "center right", enhanced = true,
          title = "velocity constraints |G M^{-1} p| of EM-G and EM (Figs. 23, 24; zeros at 1e-18)",
          xlabel = "t", ylabel = "|g^v|", series = out}
  local inc, ang = {}, {}
  for _, s in ipairs(schemes) do
    inc[#inc + 1] = {x = s.t_increment,
                     y = common.floored(s.increment.energy, 1e-18), title = s.label, with = "points",
                     style = common.style(s.label, s.label == "EM" and " pt 6 ps 1.2" or " pt 7 ps 0.5")}
  end
  -- EM as lines, EM-G as marks every 0.5 time units: both stay visible
  local dash = {J1 = "", J2 = " dt 2", J3 = " dt 4"}
  for k = 1, 3 do
    local name = "J" .. k
    ang[#ang + 1] = {x = em.t, y = em.values[name], title = "EM: J_" .. k,
                     style = common.style("EM", " lw 2" .. dash[name])}
    local emg, x, y = schemes[2], {}, {}
    for i = 1, emg.sol.n, 50 do x[#x + 1], y[#y + 1] = emg.t[i], emg.values[name][i] end
    ang[#ang + 1] = {x = x, y = y, title = "EM-G: J_" .. k, with = "points",
                     style = common.style("EM-G", " pt " .. (k + 3) .. " ps 1.5")}
  end
  wb.plot{file = "plots/ggl/fp_energy_increments.png", logscale = "y", enhanced = true,
          title = "increments |E^{n+1} - E^n| (Fig. 25; zeros at 1e-18)",
          xlabel = "t", ylabel = "|ΔE|", series = inc}
  wb.plot{file = "plots/ggl/fp_angular_momentum.png", yrange = {-3, 3}, enhanced = true,
          key = "outside right top", size = {1000, 560},
          title = "angular momentum components (Fig. 26): EM lines, EM-G marks",
          xlabel = "t", ylabel = "J_i", series = ang}
  local mom = {}
  for _, name in ipairs{"L1", "L2", "L3", "J1", "J2", "J3"} do
    mom[#mom + 1] = {x = em.t_increment, y = common.floored(em.increment[name], 1e-18),
                     title = name:sub(1, 1) .. "_" .. name:sub(2), with = "points"}
  end
  wb.plot{file = "plots/ggl/fp_momentum_increments_em.png", logscale = "y", enhanced = true,
          key = "outside right top", size = {1000, 560},
          title = "EM: increments of L and J (Fig. 27; zeros at 1e-18)",
          xlabel = "t", ylabel = "|increment|", series = mom}
end
-- EM-G under EM: EM as large open marks, EM-G small and filled
local function error_plot(file, field, what, fig, slope)
  local out = {}
  for _, s in ipairs(schemes) do
    out[#out + 1] = {x = ladder, y = s[field], title = s.label, with = "linespoints",
                     style = common.style(s.label, s.label == "EM" and " pt 6 ps 2.5"
                                                   or " dt 2 pt 7 ps 1")}
  end
  local low = math.huge
  for _, s in ipairs(schemes) do
    for i, hi in ipairs(ladder) do low = math.min(low, s[field][i] / (hi / ladder[1]) ^ slope) end
  end
  out[#out + 1] = {x = ladder, y = wb.map(ladder, function(x) return low / 5 * (x / ladder[1]) ^ slope end),
                   title = "order " .. slope, style = "lw 1.5 dt 3 lc rgb 'gray30'"}
  wb.plot{file = file, logscale = "xy", key = "bottom right", enhanced = true,
          xrange = {ladder[#ladder] / 1.5, ladder[1] * 1.5},
          title = "relative error in " .. what .. " at t = 0.1 vs EM at h = 10^{-5} (" .. fig
                  .. "; EM and EM-G coincide)",
          xlabel = "h", ylabel = "relative error", series = out}
end
error_plot("plots/ggl/fp_error_q.png", "eq", "q_4", "Fig. 28", 2)
error_plot("plots/ggl/fp_error_p.png", "ep", "p", "Fig. 29", 2)
error_plot("plots/ggl/fp_error_lambda.png", "el", "λ", "Fig. 30", 1)

---------------------------------------------------------------------------
-- Claims
---------------------------------------------------------------------------
for _, s in ipairs(schemes) do
  wb.expect_below(s.drift.energy, 1e-12, s.label .. ": energy conserved to round-off (Fig. 25)")
  for _, name in ipairs{"L1", "L2", "L3", "J1", "J2", "J3"} do
    wb.expect_below(s.drift[name], 1e-12, s.label .. ": momentum component " .. name
                    .. " conserved to round-off (Figs. 26, 27)")
  end
  wb.expect_below(s.sol:max("constraint"), 1e-14, s.label .. ": g(q^n) = 0 to round-off")
end
wb.expect_below(em.gv, 1e-13, "EM: velocity constraint G M^-1 p = 0 to round-off (Fig. 24)")
wb.check(schemes[2].gv > 1e8 * wb.max(em.gv, 1e-16) and gv_order > 1.8 and gv_order < 2.2,
         "EM-G: velocity constraint violated (Fig. 23): 1e8 x EM's and O(h^2), not round-off",
         string.format("max |G M^-1 p| %.3g (EM %.3g), order %.2f from h to h/2",
                       schemes[2].gv, em.gv, gv_order))
for _, s in ipairs(schemes) do
  wb.expect_near(s.order_q, 2, 0.15, s.label .. ": order 2 in q4 at t = 0.1 (Fig. 28)")
  wb.expect_near(s.order_p, 2, 0.15, s.label .. ": order 2 in p at t = 0.1 (Fig. 29)")
  wb.expect_near(s.order_l, 1, 0.15, s.label .. ": order 1 in lambda at t = 0.1 (Fig. 30)")
  wb.expect_near(s.order_l_mid, 2, 0.15, s.label .. ": order 2 in lambda attributed to "
                 .. "t - h/2 (smallest pair of steps; beyond the paper)")
end
wb.expect_below(generic_energy, 1e-12, "EM with Gonzalez's generic DG V: energy still conserved")
do
  local greenspan = 0
  for _, name in ipairs{"L1", "L2", "L3", "J1", "J2", "J3"} do
    greenspan = wb.max(greenspan, em.drift[name])
  end
  wb.check(generic_momentum > 1e5 * wb.max(greenspan, 1e-16),
           "EM with Gonzalez's generic DG V: momenta NOT conserved, drift > 1e5 x that with "
           .. "Greenspan's form through the invariants",
           string.format("%.3g vs %.3g", generic_momentum, greenspan))
end
wb.expect_below(math.abs(schemes[1].eq[#ladder] / schemes[2].eq[#ladder] - 1), 1e-6,
                "EM and EM-G equally accurate (q4 errors identical to 1e-6 at the smallest h)")
