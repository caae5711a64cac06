-- HBVM(k, s) on pendulum_chain with linear_solver = sparse (wb.sparsity/1:
-- G(Y_l), rho_j, D_j in G's pattern, the multiplier system (51) in the
-- pattern of G G^T, the Newton matrix in its nonzeros, the host's sparse
-- LU): the dense path's states to round-off and its iterations, auto
-- picking the sparse path, the invariants HBVM conserves, a chain of 10^4
-- links converging, and clear refusals.  The cost per step against N is
-- bench/chain.lua's (the rows hbvm).  tests/lua/chain_methods.lua has the
-- same checks for SPARK and the GGL schemes.
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local continues_run = require "continues"

local function with(options, extra)
  local copy = {}
  for k, v in pairs(options) do copy[k] = v end
  for k, v in pairs(extra or {}) do copy[k] = v end
  return copy
end

local function relative_difference(a, b)
  local qa, pa = a:final()
  local qb, pb = b:final()
  return wb.norm(wb.sub(qa, qb)) / wb.norm(qa), wb.norm(wb.sub(pa, pb)) / wb.norm(pa)
end

local function same_state(a, b)
  local x, y = wb.concat(a:final()), wb.concat(b:final())
  for i = 1, #x do
    if x[i] ~= y[i] then return false end
  end
  return #x == #y
end

local function run(model, options, solver, h, steps)
  local method = wb.method("hbvm", with(options, {linear_solver = solver}))
  return wb.integrate{model = model, method = method, h = h, steps = steps, on_failure = "stop"}
end

-- The fixed point in two quadratures (auto: the paper's iteration on this
-- non-stiff chain), Newton and simplified Newton (each Jacobian's blocks:
-- K_l = M^-1 (Hess V + T) with Hess V nonzero for kb > 0, -D_j^T, rho_i +
-- h I B_l).
local methods = {
  {label = "HBVM(2,2)", options = {k = 2, s = 2}},
  {label = "HBVM(4,2)", options = {k = 4, s = 2}},
  {label = "HBVM(3,2) newton", options = {k = 3, s = 2, iteration = "newton"}},
  {label = "HBVM(3,3) simplified", options = {k = 3, s = 3, iteration = "simplified"}},
}

-- Sparse = dense.  States to the round-off the unknowns carry (measured
-- <= 1.3e-16 in q, 5.3e-15 in p relative: p takes h G^T lambda with the
-- chain's tensions).  Iterations: at tol = 1e-10 the same, sweep for sweep
-- and Jacobian for Jacobian; at the default tol = 0 (to machine precision)
-- the last sweep of a step is decided by round-off, and dense and sparse
-- LU round differently (counts then differ by up to 1 % for the fixed
-- point, 5 % for Newton).  m = 2.5: M^-1 enters D_j and K_l as a scaling
-- (the sparse path multiplies by 1/m where the model's solve divides).
for _, case in ipairs{{N = 8, spatial = 0}, {N = 5, spatial = 1},
                      {N = 8, spatial = 0, kb = 20}, {N = 5, spatial = 1, kb = 20, m = 2.5}} do
  local model = wb.model("pendulum_chain", case)
  local where = string.format("N = %d %s%s%s", case.N, case.spatial == 1 and "spatial" or "planar",
                              case.kb and string.format(", kb = %g", case.kb) or "",
                              case.m and string.format(", m = %g", case.m) or "")
  for _, spec in ipairs(methods) do
    local what = spec.label .. ", " .. where
    local dense = run(model, spec.options, "dense", 1e-2, 100)
    local sparse = run(model, spec.options, "sparse", 1e-2, 100)
    local auto = run(model, spec.options, "auto", 1e-2, 100)
    wb.check(dense.ok and sparse.ok, what .. ": dense and sparse integrate",
             tostring(dense.failure or sparse.failure))
    local dq, dp = relative_difference(dense, sparse)
    wb.expect_below(dq, 1e-12, what .. ": sparse final q = dense")
    wb.expect_below(dp, 1e-11, what .. ": sparse final p = dense")
    -- bitwise equality tells the paths apart only where they round
    -- differently: said, so that the check below cannot pass for nothing
    wb.check(not same_state(dense, sparse),
             what .. ": dense and sparse differ in the last bits (the next check can tell)")
    wb.check(same_state(auto, sparse), what .. ": auto takes the sparse path")
    -- quadratic g: conserved at every k >= s; H (V linear for kb = 0) too
    wb.expect_below(sparse:max("constraint"), 1e-13, what .. ": sparse, max |g(q_n)|")
    if not case.kb then
      wb.expect_below(sparse:max("energy_error"), 1e-13, what .. ": sparse, max energy error")
    end
    local at = with(spec.options, {tol = 1e-10})
    local dense_tol = run(model, at, "dense", 1e-2, 100)
    local sparse_tol = run(model, at, "sparse", 1e-2, 100)
    wb.check(dense_tol.ok and sparse_tol.ok and
             dense_tol.stats.newton_iterations == sparse_tol.stats.newton_iterations and
             dense_tol.stats.jacobian_evals == sparse_tol.stats.jacobian_evals,
             what .. ", tol = 1e-10: the same iterations and Jacobians",
             string.format("%d and %d iterations, %d and %d Jacobians",
                           dense_tol.stats.newton_iterations, sparse_tol.stats.newton_iterations,
                           dense_tol.stats.jacobian_evals, sparse_tol.stats.jacobian_evals))
  end
end

-- A stiff chain (kb = 1e5, h = 0.005): auto leaves the fixed point for
-- simplified Newton with its Jacobian and LU kept across steps (the sparse
-- LU's factors); the stiffness amplifies round-off (simplified and full
-- Newton differ by 7e-11 here, tests/lua/hbvm_iteration.lua), hence 1e-9.
do
  local model = wb.model("pendulum_chain", {kb = 1e5})
  local dense = run(model, {k = 2, s = 2}, "dense", 0.005, 200)
  local sparse = run(model, {k = 2, s = 2}, "sparse", 0.005, 200)
  local dq, dp = relative_difference(dense, sparse)
  wb.expect_below(math.max(dq, dp), 1e-9, "stiff chain, auto: sparse final state = dense")
  wb.check(sparse.stats.iteration == "newton" and dense.stats.iteration == "newton",
           "stiff chain, auto: Newton on both paths", sparse.stats.iteration)
  wb.expect_below(math.abs(sparse.stats.jacobian_evals - dense.stats.jacobian_evals), 3,
                  string.format("stiff chain, auto: %d sparse Jacobians, %d dense",
                                sparse.stats.jacobian_evals, dense.stats.jacobian_evals))
  wb.check(continues_run(wb.method("hbvm", {k = 2, s = 2, linear_solver = "sparse"}), model,
                         0.005, 50),
           "stiff chain, sparse: auto's kept Jacobian continues bit for bit")
end

-- 10^4 links: the multiplier system's round-off (its condition grows like
-- N^2) puts the increments' floor above 1000 ulps (the fixed point stalled
-- at 9.2e-12 with |gamma| = 2 and failed after 200 sweeps); the step
-- converges at the estimated floor, in the sweeps of a short chain.
do
  local model = wb.model("pendulum_chain", {N = 10000})
  for _, spec in ipairs{{"HBVM(2,2)", {k = 2, s = 2}, 4, 10},
                        {"HBVM(4,2) newton", {k = 4, s = 2, iteration = "newton"}, 3, 7}} do
    local sol = run(model, spec[2], "sparse", 1e-3, 3)
    local what = "N = 10^4, " .. spec[1]
    wb.check(sol.ok, what .. ": integrates", tostring(sol.failure))
    if sol.ok then
      wb.expect_in(sol.stats.mean_newton_iterations, spec[3], spec[4],
                   what .. ": iterations a step")
      wb.expect_below(sol:max("constraint"), 1e-9, what .. ": max |g(q_n)|")
    end
  end
end

-- Refusals: sparse on a model without the extension (naming it); auto
-- there stays dense and runs.
local sphere = wb.model("spherical_pendulum")
local ok, err = pcall(run, sphere, {}, "sparse", 0.01, 1)
wb.check(not ok and tostring(err):find("wb.sparsity/1", 1, true) ~= nil and
         tostring(err):find("hbvm", 1, true) ~= nil,
         "hbvm, linear_solver = sparse on spherical_pendulum is refused, naming wb.sparsity/1",
         tostring(err))
local auto = run(sphere, {}, "auto", 0.01, 5)
wb.expect_below(auto:max("constraint"), 1e-14, "hbvm, auto on spherical_pendulum: dense and fine")
