-- vertical_disc's turning rate w, a first integral, at the declared
-- bounds Iz = 1e-12 and m = 1e12 (issue 13).  The model is left-
-- trivialised (SE(2)^op): its momentum's first component is the spin Iz w
-- alone, mu0' = 0 term by term.  Before, right-trivialised, mu0 = m s . J t
-- + Iz w held the orbital angular momentum too, and w, a difference of
-- terms m |t|^2 / Iz times its size, was off by 1e-4 .. 4e-3 after 80
-- steps with both methods at every h (rkmk4 did not step at h = 0.01).
-- 1. classic.rkmk4 keeps w to a few ulps, over 1e5 steps at h = 0.01 and
--    80 steps at h = 1e-5 (the old model: no step at 0.01, w off by
--    2.2e-4 .. 1.3e-3 at 1e-5).
-- 2. nonholonomic.lobatto: its discrete momentum equation couples the
--    spin to the translation through dcay* and Ad* of the step's
--    increment, terms T = h^2 |v| (|t| + m |v w|) in the spin row and in
--    the step's momentum mu0 = Iz w.  Newton delivers the step's velocity
--    to tol of its size V = max(|w|, |v|) (the unknowns to the accuracy at
--    which they move it by tol V: plugins/nonholonomic/system.c,
--    wb_newton_options.unknown_scale), or to the round-off of those terms:
--    w within 4 n (tol V + eps T / Iz) after n steps (measured: up to 0.62
--    of n (...), s = 2, 3, h = 1e-2 .. 1e-5, 1e-3 over 1e4 steps).  Before,
--    Newton stopped at tol of the row's terms, n tol T / Iz: 1.9e-3, 2.9e-3
--    at Iz = 1e-12, h = 0.01, s = 2, 3 (80 steps), 2.9e-3 over 1e4 steps at
--    h = 1e-3 (now 8.9e-9); 7 of these checks fail on that code.
local eps = 2 ^ -52
local bounds = {{Iz = 1e-12}, {m = 1e12}}

local function label(params)
  local k, v = next(params)
  return string.format("%s = %g", k, v)
end

-- max |w - w0| over a run (the recorded rows), or nil and the error
local function drift(m, method, h, steps)
  local ok, sol = pcall(wb.integrate, {model = m, method = method, h = h, steps = steps,
                                       every = math.max(1, steps // 1000)})
  if not ok then return nil, sol end
  local w, worst = sol:column("w"), 0
  for i = 2, #w do worst = math.max(worst, math.abs(w[i] - w[1])) end
  return worst
end

-- 1. rkmk4: to the last bits
for _, params in ipairs{bounds[1], bounds[2], {x0 = 1e6}} do
  local m = wb.model("vertical_disc", params)
  for _, run in ipairs{{h = 1e-2, steps = 100000}, {h = 1e-5, steps = 80}} do
    local what = string.format("rkmk4, %s, h = %g, %d steps", label(params), run.h, run.steps)
    local d, err = drift(m, wb.method("classic.rkmk4"), run.h, run.steps)
    if wb.check(d ~= nil, what .. ": steps", tostring(err)) then
      wb.expect_below(d, 4 * eps, what .. ": |w - w0| within 4 ulps of w0 = 1")
    end
  end
end

-- 2. Lobatto: within Newton's tolerance of the step's velocity, or the
--    round-off of the spin row's terms
local function lobatto_bound(m, h, steps)
  local q, p = m:initial()
  local v = m:velocity(q, p)
  local w, speed, t = math.abs(v[1]), math.abs(v[2]), math.sqrt(q[5] ^ 2 + q[6] ^ 2)
  local tol = 1e-12 -- the method's default
  local terms = h ^ 2 * speed * (t + m.params.m * speed * w)
  return steps * (tol * math.max(w, speed) + eps * terms / m.params.Iz)
end

local function lobatto_check(params, s, h, steps)
  local m = wb.model("vertical_disc", params)
  local unit = lobatto_bound(m, h, steps)
  local what = string.format("lobatto s = %d, %s, h = %g, %d steps", s, label(params), h, steps)
  local d, err = drift(m, wb.method("nonholonomic.lobatto", {s = s}), h, steps)
  if wb.check(d ~= nil, what .. ": steps", tostring(err)) then
    wb.printf("%s: |w - w0| %.2e, %.3f of n (tol V + eps h^2 |v| (|t| + m |v w|) / Iz)\n",
              what, d, d / unit)
    wb.expect_below(d, 4 * unit, what .. ": |w - w0| within Newton's tolerance of the "
                    .. "velocity or the spin row's round-off")
  end
end

for _, params in ipairs(bounds) do
  for _, s in ipairs{2, 3} do
    for _, h in ipairs{1e-2, 1e-3, 1e-5} do lobatto_check(params, s, h, 80) end
  end
end
lobatto_check(bounds[1], 3, 1e-3, 10000)
