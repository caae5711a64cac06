-- pendulum_chain and RATTLE/SHAKE's sparse path (wb.sparsity/1): the
-- model passes check-model planar and spatial, the sparse solves give the
-- dense path's states to round-off, both constraint levels hold, the
-- energy stays bounded; the cost per step against N is printed (its fitted
-- exponent; asserted in bench/chain.lua's figures, not here: timing).

wb.expect_below(wb.check_model(wb.model("pendulum_chain", {N = 6})), 0.5,
                "check-model: planar chain of 6 links, no failed check")
wb.expect_below(wb.check_model(wb.model("pendulum_chain", {N = 5, spatial = 1})), 0.5,
                "check-model: spatial chain of 5 links, no failed check")

-- Dense and sparse RATTLE and SHAKE: the same states to round-off.  SHAKE's
-- momenta are a difference quotient of positions, (q1 - q0) / h in effect,
-- so their round-off is eps |q| / h (3e-12 relative here): its momenta
-- are compared at 1e-10, its positions at 1e-12.
local function max_difference(a, b, which)
  local qa, pa = a:final()
  local qb, pb = b:final()
  local x, y = qa, qb
  if which == "p" then x, y = pa, pb end
  return wb.norm(wb.sub(x, y)) / wb.norm(x)
end

for _, case in ipairs{{N = 30, spatial = 0}, {N = 12, spatial = 1}} do
  local m = wb.model("pendulum_chain", case)
  local label = string.format("N = %d %s", case.N, case.spatial == 1 and "spatial" or "planar")
  for _, name in ipairs{"rattle", "shake"} do
    local runs = {}
    for _, solver in ipairs{"dense", "sparse"} do
      runs[solver] = wb.integrate{model = m, method = wb.method(name, {linear_solver = solver}),
                                  h = 1e-3, steps = 200}
    end
    wb.expect_below(max_difference(runs.dense, runs.sparse, "q"), 1e-12,
                    string.format("%s, %s: sparse final q = dense to 1e-12", name, label))
    wb.expect_below(max_difference(runs.dense, runs.sparse, "p"),
                    name == "rattle" and 1e-12 or 1e-10,
                    string.format("%s, %s: sparse final p = dense", name, label))
    local s = runs.sparse
    wb.expect_below(s:max("constraint"), 1e-11,
                    string.format("%s, %s: max |g(q_n)| (sparse)", name, label))
    if name == "rattle" then
      wb.expect_below(s:max("hidden_constraint"), 1e-11,
                      string.format("%s, %s: max |G M^-1 p_n| (sparse)", name, label))
    end
    wb.expect_in(s.stats.mean_newton_iterations, 1, 4,
                 string.format("%s, %s: Newton iterations a step", name, label))
  end
end

-- A 50-link chain, sparse RATTLE over t = 2 at h = 4e-3, 2e-3, 1e-3:
-- constraints at the Newton tolerance, the energy error of order 2.
local m50 = wb.model("pendulum_chain", {N = 50})
local hs, energy = {4e-3, 2e-3, 1e-3}, {}
for k, h in ipairs(hs) do
  local run = wb.integrate{model = m50, method = wb.method("rattle"), h = h, t_end = 2,
                           every = 5}
  wb.expect_below(run:max("constraint"), 1e-10, string.format("N = 50, h = %g: max |g(q_n)|", h))
  wb.expect_below(run:max("hidden_constraint"), 1e-10,
                  string.format("N = 50, h = %g: max |G M^-1 p_n|", h))
  energy[k] = run:max("energy_error")
  wb.printf("  N = 50, h = %g: max relative energy error %.3e\n", h, energy[k])
end
wb.expect_in(wb.fit_order(hs, energy), 1.8, 2.2, "N = 50: energy error of order 2 in h")

-- A forced sparse solver on a model without the extension is refused.
local ok, err = pcall(function()
  wb.integrate{model = wb.model("spherical_pendulum"),
               method = wb.method("rattle", {linear_solver = "sparse"}), h = 0.01, steps = 1}
end)
wb.check(not ok and tostring(err):find("wb.sparsity/1", 1, true) ~= nil,
         "linear_solver = sparse without the extension is refused, naming it", tostring(err))

-- Cost per step against N: the best of three runs, fitted exponent.
local Ns, times = {200, 800, 3200}, {}
for k, N in ipairs(Ns) do
  local m = wb.model("pendulum_chain", {N = N})
  local steps = math.floor(320000 / N)
  local best = math.huge
  for _ = 1, 3 do
    local sol = wb.integrate{model = m, method = wb.method("rattle"), h = 1e-3, steps = steps,
                             every = steps}
    best = math.min(best, sol.stats.seconds / steps)
  end
  times[k] = best
  wb.printf("  N = %5d: %.3e s a step (sparse RATTLE)\n", N, best)
end
local exponent = wb.fit_order(Ns, times)
wb.printf("  fitted exponent of the time a step over N: %.2f\n", exponent)
-- printed, not asserted: a timed check fails on a loaded machine (1.364 in a
-- CI-like run); the O(N) claim is measured by bench/chain.lua (exponent 1.04
-- over N = 10 .. 10^4) and the structure behind it (the band the sparse LU
-- reorders a chain to) is asserted by tests/unit/sparse_lu_test.c

