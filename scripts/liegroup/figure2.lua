-- Bogfjellmo-Marthinsen (2014), Sect. 6, Fig. 2: convergence of the VRKMK
-- (Table 1) and VCG (Table 2) methods on the dipole on a stick.
--
-- Model: dipole, m = q = beta = 1, alpha = 0.1, fixed charge at z = -3/2,
--   physical gravity (gravity_sign = -1: the digest shows the paper's
--   figures used it; the orders do not depend on it); g(0) the rotation by
--   90 degrees about e1, mu(0) = g(0) I g(0)^T e2; H(0) = -0.04623925371591653.
-- Error at t = 0.5: |mu - mu_ref|_2 + |g - g_ref|_2 (spectral norm), the
--   paper's; reference VRKMK Gauss 6, r = 4, at h = 2.5e-4 (the paper: at
--   h = 1e-3; the two references differ by about 1e-14).
-- Steps: h = 0.5/N, N = 5, 10, 20, 50, 100, 200, 500 (h from 1e-1 to 1e-3,
--   the paper's axis; the paper lists no steps).  Stage equations by the
--   paper's fixed-point iteration, to machine precision; the 6th-order
--   methods again with the paper's residual tolerance 1e-11.
-- Figures: plots/liegroup/figure2_vrkmk.png, figure2_vcg.png (the paper's
--   panels a and b, with reference slopes).
-- Claims checked: fitted orders 2, 3, 4, 6 (VRKMK) and 2, 4, 6 (VCG),
--   within 0.15, over the errors above the round-off floor (measured: 2.00,
--   2.88, 4.00, 6.04 and 2.00, 3.97, 5.92); the error constants of VRKMK
--   below VCG's at equal order, at every h (ratios at most 0.021 at order
--   4 and 0.043 at order 6); VRKMK midpoint and VCG midpoint one method
--   (they differ by the round-off of the steps, at most 2e-15 a step: 2.6e-13
--   after 500 -- the paper: they "differ slightly"); with the paper's
--   residual tolerance 1e-11 VRKMK Gauss 6 flattens at 1e-12..1e-11 (4.4e-12
--   at h = 1e-3 against 6.7e-15 to machine precision: "errors from fixed
--   point iteration dominate"); our errors round to the digest's prototype
--   values as it prints them (3 digits: |error - digest| at most half a unit
--   of the last digit; measured at most 0.99 of it, 37 values) wherever the
--   digest's value lies 100 times above the round-off floor (1e-13 VRKMK,
--   1e-12 VCG).  The comparison discriminates: it rejects the same runs
--   with the error taken in the Frobenius norm (the digest's pitfall P11:
--   340 to 700 half units off) and the dipole with its fixed charge 1 %
--   off, z = -1.515 (VRKMK midpoint 5, Gauss 4 17 half units off); the
--   tolerance it replaced (|log10 ratio| < 0.05, 12 %) accepted the latter.
-- Differences from the paper: the paper prints no error values, only the
--   axes, so the comparison is with the digest's prototype.  Kutta 3 is
--   pre-asymptotic at large h (its error cancels between h = 0.1 and 0.05,
--   as the digest found): its order is fitted from h = 0.01 on (pairwise
--   rates 2.14, 2.75, 2.89, 2.95).  VCG Yoshida 6 has a round-off floor of
--   about 1e-12 (1.5e-12 at h = 1e-3, as the digest's 1e-13..1e-12), which
--   hides the paper's tolerance effect for it: with 1e-11 it reaches
--   8.4e-13; the VCG orders are fitted above 1e-11.
--
-- The whole study takes under a second of CPU: --quick runs the same.
--
--   workbench scripts/liegroup/figure2.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "liegroup_common"

local model = common.dipole(-1)
local t_end = 0.5
-- the whole study takes under a second: --quick runs it all
local steps = common.digest_steps
local h = {}
for i, n in ipairs(steps) do h[i] = t_end / n end

local ref_method = wb.method("vrkmk", {tableau = "gauss3", cutoff = 4})
local q_ref, p_ref = common.final(model, ref_method, 2.5e-4, t_end)
wb.printf("Fig. 2: the dipole at t = %g, reference VRKMK Gauss 6 (r = 4) at h = 2.5e-4\n", t_end)

local function study(entries)
  for _, e in ipairs(entries) do
    e.errors, e.iterations, e.finals = {}, {}, {}
    for i, hh in ipairs(h) do
      local q, p, sol = common.final(model, e.method, hh, t_end)
      e.errors[i] = common.error(q, p, q_ref, p_ref)
      e.iterations[i] = sol.stats.newton_iterations / sol.stats.steps
      e.finals[i] = {q = q, p = p}
    end
    -- the asymptotic range: above the round-off floor (1e-13 for VRKMK,
    -- 1e-11 for VCG, whose products of up to 7 exponentials round more),
    -- and for Kutta 3 from N = 50 on
    local first = e.short == "VRKMK Kutta3" and 4 or 1
    local hs, es = {}, {}
    for i = first, #h do hs[#hs + 1], es[#es + 1] = h[i], e.errors[i] end
    e.floor = e.short:find("VCG", 1, true) and 1e-11 or 1e-13
    e.fitted, e.used = wb.fit_order(hs, es, e.floor)
  end
end

local vrkmk, vcg = common.vrkmk_methods(), common.vcg_methods()
study(vrkmk)
study(vcg)
local loose = {
  {label = "VRKMK Gauss 6, r = 4, tol 1e-11", short = "VRKMK Gauss6 1e-11", order = 6,
   method = wb.method("vrkmk", {tableau = "gauss3", cutoff = 4, tol = 1e-11})},
  {label = "VCG Yoshida 6, tol 1e-11", short = "VCG Y6 1e-11", order = 6,
   method = wb.method("vcg", {tableau = common.yoshida6, tol = 1e-11})},
}
study(loose)

local rows = {}
for _, group in ipairs{vrkmk, vcg, loose} do
  for _, e in ipairs(group) do
    local row = {e.short}
    for i = 1, #h do row[#row + 1] = e.errors[i] end
    row[#row + 1] = string.format("%.2f (%d)", e.fitted, e.used)
    rows[#rows + 1] = row
    if common.digest[e.short] then
      local d = {"  digest"}
      for i = 1, #h do d[#d + 1] = common.digest[e.short][i] or "-" end
      d[#d + 1] = ""
      rows[#rows + 1] = d
    end
  end
end
local header = {"method"}
for _, n in ipairs(steps) do header[#header + 1] = "N=" .. n end
header[#header + 1] = "order (pts)"
wb.print_table(header, rows, "%-10.3g")

-- the figures: the paper's two panels, with slopes of the orders
local function panel(file, title, entries, extra)
  local series = {}
  for _, e in ipairs(entries) do
    series[#series + 1] = {x = h, y = e.errors, title = e.label, with = "linespoints"}
  end
  for _, e in ipairs(extra or {}) do
    series[#series + 1] = {x = h, y = e.errors, title = e.label, with = "linespoints",
                           style = "lw 1.5 dt 3 pt 6"}
  end
  for _, e in ipairs(entries) do
    series[#series + 1] = common.slope(e.order, h, h[1], e.errors[1] * 3,
                                       string.format("order %d", e.order))
  end
  wb.plot{file = file, title = title, logscale = "xy", xlabel = "step size h",
          ylabel = "error at t = 0.5", key = "top left", series = series,
          xrange = {8e-4, 0.125}, yrange = {1e-16, 1e-1}}
end
panel("plots/liegroup/figure2_vrkmk.png", "Fig. 2a: VRKMK on the dipole (Table 1)", vrkmk,
      {loose[1]})
panel("plots/liegroup/figure2_vcg.png", "Fig. 2b: VCG on the dipole (Table 2)", vcg, {loose[2]})

-- the claims
for _, group in ipairs{vrkmk, vcg} do
  for _, e in ipairs(group) do
    wb.expect_near(e.fitted, e.order, 0.15, string.format("%s: fitted order %.2f over %d points",
                                                          e.label, e.fitted, e.used))
  end
end
local function below_everywhere(a, b)
  local worst = 0
  for i = 1, #h do
    if a.errors[i] > 1e-13 or b.errors[i] > 1e-13 then worst = wb.max(worst, a.errors[i] / b.errors[i]) end
  end
  return worst
end
wb.expect_below(below_everywhere(vrkmk[3], vcg[2]), 0.1,
                "order 4: VRKMK Gauss 4 error below VCG triple jump's at every h (largest ratio)")
wb.expect_below(below_everywhere(vrkmk[4], vcg[3]), 0.1,
                "order 6: VRKMK Gauss 6 error below VCG Yoshida's at every h (largest ratio)")
-- one method in two forms: they differ by the round-off of N steps
local same = 0
for i = 1, #h do
  same = wb.max(same, common.error(vrkmk[1].finals[i].q, vrkmk[1].finals[i].p,
                                   vcg[1].finals[i].q, vcg[1].finals[i].p) / steps[i])
end
wb.expect_below(same, 2e-15, "VRKMK midpoint (r = 0) and VCG midpoint are one method: they "
                             .. "differ by less than 2e-15 per step (largest)")
do
  local n, e, tight = #h, loose[1], vrkmk[4]
  wb.check(e.errors[n] > 100 * tight.errors[n] and e.errors[n] > 1e-12,
           string.format("%s: the iteration's error dominates at h = %g (%.2e against %.2e to "
                         .. "machine precision)", e.label, h[n], e.errors[n], tight.errors[n]))
  -- VCG Yoshida's own round-off floor (~1e-12) hides the tolerance: reported only
  wb.printf("VCG Yoshida 6 at h = %g: %.2e with tol 1e-11, %.2e to machine precision (its "
            .. "round-off floor)\n", h[n], loose[2].errors[n], vcg[3].errors[n])
end
-- our errors against the digest's prototype, to its printed digits (above
-- 100 times the runs' round-off floor: 1e-13 for VRKMK, 1e-12 for VCG)
local function digest_floor(e) return e.short:find("VCG", 1, true) and 1e-12 or 1e-13 end
for _, group in ipairs{vrkmk, vcg} do
  for _, e in ipairs(group) do
    local worst, compared = common.digest_distance(e.short, steps, e.errors, digest_floor(e))
    wb.expect_below(worst, 1, string.format("%s: errors round to the digest's prototype values "
                                            .. "(%d of them; largest |error - digest| in half "
                                            .. "units of its last digit)", e.label, compared))
  end
end
-- ... and the comparison tells a wrong set-up apart: the error measured in
-- the Frobenius norm (the digest's pitfall P11) for every method, and the
-- fixed charge 1 % off (z = -1.515) for VRKMK midpoint and Gauss 4, are
-- rejected
do
  for _, group in ipairs{vrkmk, vcg} do
    for _, e in ipairs(group) do
      local errors = {}
      for i = 1, #h do
        local f = e.finals[i]
        errors[i] = wb.norm(wb.sub(f.p, p_ref), "2") + wb.norm(wb.sub(f.q, q_ref), "2")
      end
      local worst = common.digest_distance(e.short, steps, errors, digest_floor(e))
      wb.check(worst > 1, string.format("control: %s with the error in the Frobenius norm is "
                                        .. "rejected by the digest comparison", e.label),
               string.format("%.3g half units", worst))
    end
  end
  local off = wb.model("dipole", {gravity_sign = -1, z = -1.515})
  local qo, po = common.final(off, ref_method, 2.5e-4, t_end)
  for _, e in ipairs{vrkmk[1], vrkmk[3]} do
    local errors = {}
    for i, hh in ipairs(h) do
      local q, p = common.final(off, e.method, hh, t_end)
      errors[i] = common.error(q, p, qo, po)
    end
    local worst = common.digest_distance(e.short, steps, errors, 1e-13)
    wb.check(worst > 1, string.format("control: %s on the dipole with z = -1.515 (1 %% off) is "
                                      .. "rejected by the digest comparison", e.label),
             string.format("%.3g half units", worst))
  end
end
