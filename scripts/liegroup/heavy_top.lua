-- The heavy top both ways: VRKMK on SO(3) (heavy_top_so3) against the GGL
-- energy-momentum scheme on the director form (heavy_top, Kinon-Betsch-
-- Schneider Sect. 6.2), the same physical system.
--
-- Data (heavy_top's, both models): m = 0.7069, I1 = I2 = I3 = 5.3014e-4,
--   l = 0.075, g = 9.81, nutation alpha0 = pi/3, precession omega_p = 10,
--   spin omega_s = 135.609 (steady precession, eq. 112), so that the exact
--   motion keeps phi_3 = l cos(alpha0) = 0.0375.  H0 = 5.66971 and
--   J3 = 0.0710696 in both.
-- Convergence at t = 0.1: h = 2e-3, 1e-3, 5e-4, 2.5e-4 (--quick: the first
--   three); reference classic.rkmk4 on heavy_top_so3 at h = 1e-5, itself
--   checked against VRKMK Gauss 6 (r = 4) at h = 2e-5.  Compared: the
--   rotation R (heavy_top's directors d1, d2, d3 are its columns; max
--   entry) and the spatial angular momentum about the tip (heavy_top: the
--   sum of q_k x p_k over phi and the directors), relative.  EM with Newton
--   tolerance 1e-12 (its residual floor is about 2e-14), VRKMK Gauss 4 (r = 2) to machine precision.
-- Long run: h = 0.002 on [0, 2] (--quick: [0, 0.5]), phi_3(t) - 0.0375 (as
--   GGL's Fig. 17), the energy and J3.
-- Figures: plots/liegroup/heavy_top_convergence.png (errors against h),
--   heavy_top_phi3.png (phi_3 - l cos(alpha0) against t).
-- Claims checked: the two models start in the same state (R and L agree to
--   round-off, H and J3 too); EM is of order 2 and VRKMK Gauss 4 of order 4
--   in R and L (fitted within 0.15); the difference between the two
--   trajectories is EM's error to leading order (|EM - VRKMK| / |EM - ref|
--   within 5 % of 1 at the smallest h), so both integrate the same top;
--   EM conserves H to 1e-12 (relative), VRKMK's relative energy error stays
--   below 1e-10 (1.5e-12), both keep J3 to round-off; phi_3 stays near 0.0375 with VRKMK
--   (deviation below 1e-5) and leaves it by much more with EM at the same h.
-- Measured: errors in R at h = 2.5e-4: EM 1.05e-3, VRKMK 8.8e-10; fitted
--   orders EM 1.99 (R and L), VRKMK 3.99 (R and L); |R_EM - R_VRKMK| / EM's
--   error 1.000; at h = 0.002 on [0, 2]: max |phi_3 - 0.0375| EM 1.2e-4,
--   VRKMK 3.7e-7, relative energy errors 2.2e-15 (EM) and 1.5e-12 (VRKMK),
--   J3 drift 1.4e-16 and 1.4e-15.
--
--   workbench scripts/liegroup/heavy_top.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "liegroup_common"

local director, rotation = wb.model("heavy_top"), wb.model("heavy_top_so3")
local em = wb.method("em", {tol = 1e-12})
local vrkmk = wb.method("vrkmk", {tableau = "gauss2", cutoff = 2})

-- heavy_top's state as (R, L): R's columns the directors, L = sum q_k x p_k
local function from_directors(q, p)
  local R, L = {}, {0, 0, 0}
  for r = 0, 2 do
    for c = 0, 2 do R[3 * r + c + 1] = q[3 * (c + 1) + r + 1] end
  end
  for k = 0, 3 do
    local x = common.cross({q[3 * k + 1], q[3 * k + 2], q[3 * k + 3]},
                           {p[3 * k + 1], p[3 * k + 2], p[3 * k + 3]})
    for i = 1, 3 do L[i] = L[i] + x[i] end
  end
  return R, L
end

local function max_diff(a, b)
  local d = 0
  for i = 1, #a do d = wb.max(d, math.abs(a[i] - b[i])) end
  return d
end

do
  local qd, pd = director:initial()
  local qr, pr = rotation:initial()
  local R, L = from_directors(qd, pd)
  wb.expect_below(wb.max(max_diff(R, qr), max_diff(L, pr)), 1e-15,
                  "the two models start in the same state (R and L)")
  wb.expect_below(math.abs(director:energy(qd, pd) - rotation:energy(qr, pr)), 1e-14,
                  string.format("the same energy H0 = %.6g", rotation:energy(qr, pr)))
  wb.expect_below(math.abs(director:invariants(qd, pd).J3 - rotation:invariants(qr, pr).J3), 1e-16,
                  string.format("the same J3 = %.7g", rotation:invariants(qr, pr).J3))
end

-- convergence at t = 0.1
local t_end = 0.1
local h = wb.quick and {2e-3, 1e-3, 5e-4} or {2e-3, 1e-3, 5e-4, 2.5e-4}
local function state(model, method, hh)
  local sol = wb.integrate{model = model, method = method, h = hh, t_end = t_end, every = 2 ^ 53}
  local q, p = sol:final()
  if model == director then return from_directors(q, p) end
  return q, p
end
local R_ref, L_ref = state(rotation, wb.method("rkmk4"), 1e-5)
local R_chk, L_chk = state(rotation, wb.method("vrkmk", {tableau = "gauss3", cutoff = 4}), 2e-5)
wb.expect_below(wb.max(max_diff(R_ref, R_chk), max_diff(L_ref, L_chk) / wb.norm(L_ref, "inf")),
                1e-11, "the reference (RKMK4, h = 1e-5) against VRKMK Gauss 6 (h = 2e-5)")
local Lscale = wb.norm(L_ref, "inf")
local runs = {{label = "EM (director form)", model = director, method = em, order = 2},
              {label = "VRKMK Gauss 4, r = 2 (SO(3))", model = rotation, method = vrkmk, order = 4}}
for _, run in ipairs(runs) do
  run.eR, run.eL, run.R, run.L = {}, {}, {}, {}
  for i, hh in ipairs(h) do
    run.R[i], run.L[i] = state(run.model, run.method, hh)
    run.eR[i] = max_diff(run.R[i], R_ref)
    run.eL[i] = max_diff(run.L[i], L_ref) / Lscale
  end
  run.oR = wb.fit_order(h, run.eR, 1e-13)
  run.oL = wb.fit_order(h, run.eL, 1e-13)
end
local between, rows = {}, {}
for i, hh in ipairs(h) do
  between[i] = max_diff(runs[1].R[i], runs[2].R[i])
  rows[#rows + 1] = {hh, runs[1].eR[i], runs[1].eL[i], runs[2].eR[i], runs[2].eL[i], between[i],
                     between[i] / runs[1].eR[i]}
end
wb.printf("The heavy top at t = %g: errors against RKMK4 at h = 1e-5\n", t_end)
wb.print_table({"h", "EM R", "EM L", "VRKMK R", "VRKMK L", "|R_EM - R_VRKMK|", "/ EM's error"},
               rows, "%-12.3g")
wb.printf("fitted orders: EM %.2f (R), %.2f (L); VRKMK Gauss 4 %.2f (R), %.2f (L)\n",
          runs[1].oR, runs[1].oL, runs[2].oR, runs[2].oL)
for _, run in ipairs(runs) do
  wb.expect_near(run.oR, run.order, 0.15, run.label .. ": order in R")
  wb.expect_near(run.oL, run.order, 0.15, run.label .. ": order in L")
end
wb.expect_near(between[#h] / runs[1].eR[#h], 1, 0.05,
               "the two trajectories differ by EM's error: the same top")
wb.plot{file = "plots/liegroup/heavy_top_convergence.png", logscale = "xy", xlabel = "h",
        ylabel = "error at t = 0.1", key = "bottom right",
        title = "heavy top: EM (director form) and VRKMK Gauss 4 (SO(3)) against a reference",
        series = {{x = h, y = runs[1].eR, title = "EM: R", with = "linespoints"},
                  {x = h, y = runs[1].eL, title = "EM: L (relative)", with = "linespoints"},
                  {x = h, y = runs[2].eR, title = "VRKMK Gauss 4: R", with = "linespoints"},
                  {x = h, y = runs[2].eL, title = "VRKMK Gauss 4: L (relative)", with = "linespoints"},
                  {x = h, y = between, title = "|R_EM - R_VRKMK| (on EM's R error)",
                   with = "points", style = "pt 6 ps 2.5"}}}

-- the long run: steady precession
local long_h, long_end = 0.002, wb.quick and 0.5 or 2
local phi3 = director.params.l * math.cos(director.params.alpha0)
local long = {}
for k, run in ipairs(runs) do
  local sol = wb.integrate{model = run.model, method = run.method, h = long_h, t_end = long_end}
  local dev = {}
  if run.model == director then
    for i, x in ipairs(sol:column("q3")) do dev[i] = x - phi3 end
  else -- phi = l R e3: phi_3 = l R_33
    for i, x in ipairs(sol:column("q9")) do dev[i] = director.params.l * x - phi3 end
  end
  long[k] = {t = sol.t, dev = dev, dH = sol:max("energy_error"), J3 = wb.drift(sol:column("J3")),
             label = run.label}
end
wb.printf("steady precession, h = %g on [0, %g]: max |phi3 - %.4g| EM %.3g, VRKMK %.3g; "
          .. "max |H - H0|/|H0| EM %.3g, VRKMK %.3g; J3 drift EM %.3g, VRKMK %.3g\n", long_h,
          long_end, phi3, wb.max_abs(long[1].dev), wb.max_abs(long[2].dev), long[1].dH, long[2].dH,
          long[1].J3, long[2].J3)
wb.plot{file = "plots/liegroup/heavy_top_phi3.png", xlabel = "t", ylabel = "phi_3 - l cos(alpha0)",
        title = string.format("heavy top, steady precession, h = %g", long_h), key = "top right",
        series = {{x = long[1].t, y = long[1].dev, title = long[1].label},
                  {x = long[2].t, y = long[2].dev, title = long[2].label}}}
wb.expect_below(long[1].dH, 1e-12, "EM conserves the energy")
wb.expect_below(long[2].dH, 1e-10, "VRKMK Gauss 4: the energy error stays small (relative)")
wb.expect_below(wb.max(long[1].J3, long[2].J3), 1e-14, "both keep J3")
wb.expect_below(wb.max_abs(long[2].dev), 1e-5, "VRKMK Gauss 4 keeps phi_3 near l cos(alpha0)")
wb.check(wb.max_abs(long[1].dev) > 10 * wb.max_abs(long[2].dev),
         string.format("EM leaves phi_3 by more (%.3g against %.3g)", wb.max_abs(long[1].dev),
                       wb.max_abs(long[2].dev)))
