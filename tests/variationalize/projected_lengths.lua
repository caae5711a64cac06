-- variationalize.projected over the interior of double_spherical_pendulum's
-- declared rod lengths (issue 13: every method over every declared range).
-- Before 520044a vz_project's stopping test compared the multipliers' raw
-- Newton update with |q| + |theta|: at l1 = 1e-6 (h = 1e-6, step 1) q sat
-- at round-off from the first iteration (|dq| 2e-17) while theta_1, whose
-- column of G^T is x1 (size l1), is known only to eps |q| / l1 ~ 1e-10 and
-- alternated between -1.3e-11 and -6.2e-12 (|dtheta_1| 7.1e-12 against the
-- threshold 1e3 eps (1 + |q| + |theta|) = 3.8e-13) for all 50 iterations:
-- every h from 1e-2 to 1e-9 failed at l1 = 1e-5 .. 1e-12, although the
-- bounds' survey (h/1e8) passed.  The update of theta_a is now measured by
-- what it moves q by, |W G^T|_a |dtheta_a|.
--
-- Checked at every decade of l1 (1e-12 .. 1e10) and of l2 (1e-10 .. 1e12),
-- both projections (W = I and M^-1), 20 steps at h = 1e-7 (inside the
-- explicit layer's stability limit h w < 2.8 for every length here: the
-- fast mode w ~ sqrt(tension / (m l_short)) is 3e6 at l1 = 1e-12; larger
-- steps there fail as "reduce h", a real step-size limit, e.g. l1 = 1e-6
-- steps at h = 1e-4 and fails at 1e-3, w = 3.2e3): the run steps, the end
-- point lies on Q to the positions' resolution, |g_a| <= l_a (1e-12 l_a +
-- 100 eps L), L = max(l1, l2) (positions are stored to eps L, so the short
-- rod only to eps L / l_short of its length), on TQ (|G v|_a <= 1e-10 l_a
-- |v|), and agrees with RATTLE at h / 10 to 1e-7 + 1e4 eps L / l_a of each
-- rod (the inner point against l1, the second rod x2 - x1 against l2).
-- Measured: 1e-16 .. 1e-13 at ratios up to 1e4; at a ratio L / l_short of
-- 1e9 .. 1e12 the short rod's gap is 2e-6 .. 0.13 of it (l1 = 1e-9 .. 1e-12),
-- 8.5 .. 960 eps L / l1: the resolution limit of double precision, which
-- RATTLE shares, not a defect of the projection.
local format = string.format
local h, steps = 1e-7, 20
local eps = 2.0^-52

local function rods(q)
  local inner, rod = {}, {}
  for i = 1, 3 do inner[i] = q[i] rod[i] = q[i + 3] - q[i] end
  return inner, rod
end
local function gap(a, b)
  local g = 0
  for i = 1, #a do g = math.max(g, math.abs(a[i] - b[i])) end
  return g
end

local cases = {}
for e = -12, 10 do cases[#cases + 1] = {l1 = 10.0^e} end
for e = -10, 12 do cases[#cases + 1] = {l2 = 10.0^e} end
for _, params in ipairs(cases) do
  local model = wb.model("double_spherical_pendulum", params)
  local l1, l2 = params.l1 or 1, params.l2 or 1
  local L = math.max(l1, l2)
  local label = params.l1 and format("l1 = %g", l1) or format("l2 = %g", l2)
  local ref = wb.integrate{model = model, method = wb.method("rattle"), h = h / 10, steps = 10 * steps,
                           every = 10 * steps}
  local qr = ref:final()
  local inner_r, rod_r = rods(qr)
  for _, projection in ipairs{"orthogonal", "mass"} do
    local method = wb.method("variationalize.projected", {projection = projection})
    local ok, sol = pcall(wb.integrate, {model = model, method = method, h = h, steps = steps, every = steps})
    local what = format("projected (%s) at %s, h = %g", projection, label, h)
    if wb.check(ok, what .. ": steps", tostring(sol)) then
      local q, p = sol:final()
      local g = model:constraints(q)
      local v = model:velocity(q, p)
      local gv = model:hidden_constraints(q, p)
      local vmax = 0
      for i = 1, #v do vmax = math.max(vmax, math.abs(v[i])) end
      wb.check(math.abs(g[1]) <= l1 * (1e-12 * l1 + 100 * eps * L) and
               math.abs(g[2]) <= l2 * (1e-12 * l2 + 100 * eps * L),
               what .. ": on Q, |g_a| <= l_a (1e-12 l_a + 100 eps L)",
               format("g = %.3g (l1^2 %.3g), %.3g (l2^2 %.3g)", g[1], l1 * l1, g[2], l2 * l2))
      -- G v = (x1 . v1, (x2 - x1) . (v2 - v1)): rows of sizes l1 |v| and l2 |v|
      wb.check(math.abs(gv[1]) <= 1e-10 * l1 * vmax and math.abs(gv[2]) <= 1e-10 * l2 * vmax,
               what .. ": on TQ, |G v|_a <= 1e-10 l_a |v|",
               format("G v = %.3g, %.3g, |v| = %.3g", gv[1], gv[2], vmax))
      local inner, rod = rods(q)
      wb.check(gap(inner, inner_r) <= (1e-7 + 1e4 * eps * L / l1) * l1 and
               gap(rod, rod_r) <= (1e-7 + 1e4 * eps * L / l2) * l2,
               what .. ": agrees with RATTLE at h/10 to 1e-7 + 1e4 eps L / l_a of each rod",
               format("inner point %.3g of l1, second rod %.3g of l2", gap(inner, inner_r) / l1,
                      gap(rod, rod_r) / l2))
    end
  end
end
