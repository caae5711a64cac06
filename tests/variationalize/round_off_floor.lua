-- variationalize.vi's velocity round-off floor (issue 13).  vi takes its
-- velocities from stage position increments, so where positions are large
-- against the motion in one step their tangential part carries a round-off
-- error c eps max|q| / h that grows as h shrinks, although G v = 0 holds at
-- the nodes: the floor of every scheme that differences positions, which
-- RATTLE (momenta evolved as such) does not have.  Documented in the README's
-- variationalize row; tests/fuzz/accuracy.lua judges vi against it.  This
-- test measures it where the range survey reached it, on
-- double_spherical_pendulum with l1 = 1e10 (coordinates of 1e10) and
-- l2 = 1e-10 (a rod 1e10 times shorter than the other): c within [0.02, 20]
-- at each h and a fitted slope in h of -1 +- 0.3, that floor and nothing
-- larger.  Measured: c = 0.97, 0.53, 0.32, 0.35 (l1) and 0.07, 0.24, 0.32,
-- 0.11 (l2), slopes -0.85 and -1.07.
-- Each run: 20 steps; reference: RATTLE (tol 1e-14) at h/10, 200 steps.
local eps = 2^-52
local reference = wb.method("rattle", {tol = 1e-14})
local cases = {
  {label = "l1 = 1e10", params = {l1 = 1e10}, h = {8.7e-8, 8.7e-9, 8.7e-10, 8.7e-11}},
  {label = "l2 = 1e-10", params = {l2 = 1e-10}, h = {3e-8, 3e-9, 3e-10, 3e-11}},
}

local function slope(xs, ys)
  local n, sx, sy, sxx, sxy = #xs, 0, 0, 0, 0
  for i = 1, n do sx, sy, sxx, sxy = sx + xs[i], sy + ys[i], sxx + xs[i]^2, sxy + xs[i] * ys[i] end
  return (n * sxy - sx * sy) / (n * sxx - sx^2)
end

for _, case in ipairs(cases) do
  local m = wb.model("double_spherical_pendulum", case.params)
  local q_size = 0
  for _, x in ipairs(m:initial()) do q_size = math.max(q_size, math.abs(x)) end
  local xs, ys = {}, {}
  for _, h in ipairs(case.h) do
    local sol = wb.integrate{model = m, method = "variationalize.vi", h = h, steps = 20, every = 20}
    local ref = wb.integrate{model = m, method = reference, h = h / 10, steps = 200, every = 200}
    local v, vr = m:velocity(sol:final()), m:velocity(ref:final())
    local err = 0
    for i = 1, #v do err = math.max(err, math.abs(v[i] - vr[i])) end
    wb.expect_in(err / (eps * q_size / h), 0.02, 20,
                 string.format("vi, %s, h = %g: velocity error / (eps max|q| / h)", case.label, h))
    xs[#xs + 1], ys[#ys + 1] = math.log(h), math.log(err)
  end
  wb.expect_in(slope(xs, ys), -1.3, -0.7,
               string.format("vi, %s: slope of the velocity error in h (the floor: -1)", case.label))
end
