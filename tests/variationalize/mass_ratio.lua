-- variationalize.vi with masses 1e12 apart (issue 13: double_spherical_pendulum
-- at m1, m2 = 1e-12 .. 1e12).  Its Newton matrix is then ill-conditioned:
-- the light point's tangential velocity enters the momentum rows (whose
-- terms are the heavy point's) through terms ~m_light / h^2, so |J^-1|
-- reaches 1e7 .. 1e12 there; the chord iteration on forward differences
-- (errors ~sqrt(eps) of the rows' terms) stalls at 1e-12 .. 1e-9 of the
-- terms or diverges.  vi retries such a step by full Newton with
-- Richardson-extrapolated central differences.  Checked here: the steps
-- go through; (m1, m2) = (1, 1e-12) and (1e12, 1) are one Lagrangian up to
-- a factor 1e12 and give the same motion; the heavy point follows RATTLE
-- (at h/10) to round-off.
--
-- The light point.  With projection = "mass" (W = M^-1) the momenta's
-- gauge is G W lambda = 0, the light point's momentum rows are tested in
-- its own units and the start-up solve for mu runs in velocity units: the
-- light point's velocity then follows RATTLE to 2.1e-13 .. 9.8e-13 (m1 light) and
-- 1.4e-5 .. 1.5e-4 (m2 light, unscaled .. scaled by 1e12; 7.7e-11 at m2 = 1e-6,
-- 4.2e-6 at 1e-10, against 1.1e-7, 9.7e-4 and 0.14 with W = I: still ~eps x
-- the ratio, a round-off source not yet found, issue 13 open there).
-- With the default W = I the pull-back carries the heavy momentum into
-- the light point's rows, which are held to tol of the heavy momentum:
-- its velocity is off by 0.14 .. 0.33 = tol x 1e12, bounded loosely below
-- so that it cannot grow unnoticed (use projection = "mass" at such ratios).
local format = string.format
local h, steps = 3.5e-5, 20

local function final(params, method, options)
  local model = wb.model("double_spherical_pendulum", params)
  local sol = wb.integrate{model = model, method = wb.method(method, options),
                           h = method == "vi" and h or h / 10,
                           steps = method == "vi" and steps or 10 * steps, every = steps}
  local q, p = sol:final()
  return q, p, sol
end

local function gap(a, b, first, last)
  local g = 0
  for i = first, last do g = math.max(g, math.abs(a[i] - b[i])) end
  return g
end

-- the largest velocity difference of a point: momenta over its mass
local function velocity_gap(pa, pb, first, last, mass)
  return gap(pa, pb, first, last) / mass
end

local pairs_of_masses = {
  {light = {m1 = 1, m2 = 1e-12}, heavy = {m1 = 1e12, m2 = 1}, heavy_point = {1, 3}, light_point = {4, 6},
   name = "m2 = 1e-12 ~ m1 = 1e12", light_mass = "m2", velocity_bound = 1e-3, position_bound = 1e-6},
  {light = {m1 = 1e-12, m2 = 1}, heavy = {m1 = 1, m2 = 1e12}, heavy_point = {4, 6}, light_point = {1, 3},
   name = "m1 = 1e-12 ~ m2 = 1e12", light_mass = "m1", velocity_bound = 1e-11, position_bound = 1e-13},
}
for _, case in ipairs(pairs_of_masses) do
  local ok_a, qa, _, sa = pcall(final, case.light, "vi")
  local ok_b, qb, _, sb = pcall(final, case.heavy, "vi")
  wb.check(ok_a, format("%s: vi steps at (m1, m2) = (%g, %g), h = %g", case.name, case.light.m1,
                        case.light.m2, h), not ok_a and tostring(qa) or nil)
  wb.check(ok_b, format("%s: vi steps at (m1, m2) = (%g, %g), h = %g", case.name, case.heavy.m1,
                        case.heavy.m2, h), not ok_b and tostring(qb) or nil)
  if ok_a and ok_b then
    local qr = final(case.light, "classic.rattle")
    local hp, lp = case.heavy_point, case.light_point
    wb.expect_below(gap(qa, qr, hp[1], hp[2]), 1e-12,
                    case.name .. ": the heavy point follows RATTLE at h/10")
    wb.expect_below(gap(qb, qr, hp[1], hp[2]), 1e-12,
                    case.name .. ": the heavy point follows RATTLE, masses scaled by 1e12")
    wb.expect_below(gap(qa, qb, hp[1], hp[2]), 1e-12,
                    case.name .. ": one Lagrangian up to a factor, one motion of the heavy point")
    -- the light point moves by ~|v| t = 7e-4 (|v| ~ 1); its velocity is off by
    -- 0.13 (m2 light) and 0.32 (m1 light) from the first step on: measured,
    -- and bounded here so that it cannot grow unnoticed
    local light_a, light_b = gap(qa, qr, lp[1], lp[2]), gap(qb, qr, lp[1], lp[2])
    wb.expect_below(math.max(light_a, light_b), 0.5 * h * steps,
                    case.name .. ": the light point, off by at most half its displacement (the limit)")
    wb.printf("%s: light point off by %.2e and %.2e after t = %g (its displacement ~%.0e); "
              .. "%.1f and %.1f Newton iterations a step\n", case.name, light_a, light_b, h * steps,
              h * steps, sa.stats.newton_iterations / steps, sb.stats.newton_iterations / steps)
  end
  -- W = M^-1: the light point to round-off of its own size (see the top)
  local mass = {projection = "mass"}
  local ok_m, qm, pm = pcall(final, case.light, "vi", mass)
  local ok_s, qs, ps = pcall(final, case.heavy, "vi", mass)
  wb.check(ok_m and ok_s, case.name .. ": vi steps with projection = mass at both scalings",
           not (ok_m and ok_s) and tostring(ok_m and qs or qm) or nil)
  if ok_m and ok_s then
    local qr, pr = final(case.light, "classic.rattle")
    local _, pr_scaled = final(case.heavy, "classic.rattle")
    local hp, lp = case.heavy_point, case.light_point
    local m_light = case.light[case.light_mass]
    wb.expect_below(gap(qm, qr, hp[1], hp[2]), 1e-12,
                    case.name .. ", projection = mass: the heavy point follows RATTLE at h/10")
    local dq = math.max(gap(qm, qr, lp[1], lp[2]), gap(qs, qr, lp[1], lp[2]))
    local dv = math.max(velocity_gap(pm, pr, lp[1], lp[2], m_light),
                        velocity_gap(ps, pr_scaled, lp[1], lp[2], case.heavy[case.light_mass]))
    wb.expect_below(dq, case.position_bound,
                    case.name .. ", projection = mass: the light point's position follows RATTLE at h/10")
    wb.expect_below(dv, case.velocity_bound,
                    case.name .. ", projection = mass: the light point's velocity follows RATTLE at h/10")
    wb.printf("%s, projection = mass: light point off by %.2e in position, %.2e in velocity\n",
              case.name, dq, dv)
  end
end
