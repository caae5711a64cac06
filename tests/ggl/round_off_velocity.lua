-- The velocity across the constraints at round-off, for the schemes that
-- impose g(q) = 0 alone (issue 13).  Such a scheme takes the velocity
-- across g = 0 from the position increment, and q0's own round-off off
-- g = 0 (eps |q| across it) from the same increment: left alone it becomes
-- a velocity error c eps |q| / h, growing as h shrinks.
--   EM-G (ggl.em_gonzalez) removes that component when it finishes a step
--   (plugins/ggl/em.c): its light point's velocity on
--   double_spherical_pendulum at m2 = 1e12 must stay at round-off against
--   RATTLE at every h.  Before: 1.4e-9, 1.7e-7, 1.2e-6 at h = 3.5e-8,
--   3.5e-9, 3.5e-10 (the floor eps |q| / h: 7.7e-9, 7.7e-8, 7.7e-7).
--   SHAKE keeps the floor (its documented round-off floor, README and its
--   doc): measured here with tol = 1e-16, where its Newton iteration
--   corrects q0's round-off at every step (at its default relative tol
--   1e-12 only where g's round-off is above that: double_spherical_pendulum
--   l1 = 1e10).  The error must follow eps |q| / h: c = error / (eps |q| /
--   h) within [0.1, 20] at each h and a fitted slope in h of -1 +- 0.3, that
--   floor and nothing larger.
-- Each run: 20 steps; reference: RATTLE (tol 1e-14) at h/10, 200 steps.
local eps = 2^-52
local h_list = {3.5e-8, 3.5e-9, 3.5e-10}
local m = wb.model("double_spherical_pendulum", {m2 = 1e12})
local q0 = m:initial()
local q_size = 0
for _, x in ipairs(q0) do q_size = math.max(q_size, math.abs(x)) end
local reference = wb.method("rattle", {tol = 1e-14})

local function velocity_error(method, h)
  local sol = wb.integrate{model = m, method = method, h = h, steps = 20, every = 20}
  local ref = wb.integrate{model = m, method = reference, h = h / 10, steps = 200, every = 200}
  local v, vr = m:velocity(sol:final()), m:velocity(ref:final())
  local err = 0
  for i = 1, #v do err = math.max(err, math.abs(v[i] - vr[i])) end
  return err
end

local emg = wb.method("ggl.em_gonzalez")
for _, h in ipairs(h_list) do
  local err = velocity_error(emg, h)
  wb.check(err <= 1e-12, string.format("EM-G, m2 = 1e12, h = %g: velocity at round-off against RATTLE (<= 1e-12; the floor eps |q| / h is %.2g)",
           h, eps * q_size / h), string.format("%.3g", err))
end

local shake = wb.method("shake", {tol = 1e-16})
local xs, ys = {}, {}
for _, h in ipairs(h_list) do
  local err = velocity_error(shake, h)
  local c = err / (eps * q_size / h)
  wb.expect_in(c, 0.1, 20, string.format("SHAKE tol = 1e-16, m2 = 1e12, h = %g: velocity error / (eps |q| / h)", h))
  xs[#xs + 1], ys[#ys + 1] = math.log(h), math.log(err)
end
local n, sx, sy, sxx, sxy = #xs, 0, 0, 0, 0
for i = 1, n do sx, sy, sxx, sxy = sx + xs[i], sy + ys[i], sxx + xs[i]^2, sxy + xs[i] * ys[i] end
wb.expect_in((n * sxy - sx * sy) / (n * sxx - sx^2), -1.3, -0.7,
             "SHAKE tol = 1e-16: slope of the velocity error in h (the floor eps |q| / h: -1)")
