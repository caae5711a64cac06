-- variationalize.vi's start-up solve for mu at extreme lengths (issue 13).
-- On double_spherical_pendulum with l1 = 1e10 (coordinates of 1e10) or
-- l2 = 1e-10 (a rod 1e10 times shorter than the other) vi's velocity was off
-- by c eps max|q| / h against RATTLE (c = 0.97, 0.53, 0.32, 0.35 at l1 = 1e10,
-- h = 8.7e-8 .. 8.7e-11; 0.07, 0.24, 0.32, 0.11 at l2 = 1e-10, h = 3e-8 ..
-- 3e-11): the shape of a round-off floor, but the error sat in mu from the
-- start-up solve, one elimination with W = I (the default below a mass ratio
-- of 1e3), which every step carried.  W = I now takes W = M^-1's solve
-- (powers-of-two equilibration, two rounds of refinement): relative
-- velocity errors 1.5e-11 .. 2e-13 (l1) and 7.6e-11 .. 1.6e-14 (l2), no
-- longer growing as h shrinks.  Checked: the largest velocity error against
-- the largest velocity below 2e-10 at every h, and below 1e-3 eps max|q| / h
-- (the former floor) at the two smallest.
-- Each run: 20 steps; reference: RATTLE (tol 1e-14) at h/10, 200 steps.
local eps = 2^-52
local reference = wb.method("rattle", {tol = 1e-14})
local cases = {
  {label = "l1 = 1e10", params = {l1 = 1e10}, h = {8.7e-8, 8.7e-9, 8.7e-10, 8.7e-11}},
  {label = "l2 = 1e-10", params = {l2 = 1e-10}, h = {3e-8, 3e-9, 3e-10, 3e-11}},
}

for _, case in ipairs(cases) do
  local m = wb.model("double_spherical_pendulum", case.params)
  local q_size = 0
  for _, x in ipairs(m:initial()) do q_size = math.max(q_size, math.abs(x)) end
  for k, h in ipairs(case.h) do
    local sol = wb.integrate{model = m, method = "variationalize.vi", h = h, steps = 20, every = 20}
    local ref = wb.integrate{model = m, method = reference, h = h / 10, steps = 200, every = 200}
    local v, vr = m:velocity(sol:final()), m:velocity(ref:final())
    local err, v_size = 0, 0
    for i = 1, #v do
      err = math.max(err, math.abs(v[i] - vr[i]))
      v_size = math.max(v_size, math.abs(vr[i]))
    end
    local name = string.format("vi, %s, h = %g", case.label, h)
    wb.expect_below(err / v_size, 2e-10, name .. ": velocity error against RATTLE at h/10, relative")
    if k > #case.h - 2 then
      wb.expect_below(err / (eps * q_size / h), 1e-3,
                      name .. ": velocity error / (eps max|q| / h), far below that floor")
    end
  end
end
