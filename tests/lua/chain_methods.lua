-- SPARK, the GGL variational integrators and energy-momentum schemes on
-- pendulum_chain with
-- linear_solver = sparse (wb.sparsity/1: the Newton matrix assembled in its
-- nonzeros and solved by the host's banded LU after reverse Cuthill-McKee):
-- the dense path's states to round-off, the same Newton iterations, auto
-- picking the sparse path, a long chain converging, and clear refusals.
-- The cost per step against N is bench/chain.lua's.

local function relative_difference(a, b, which)
  local qa, pa = a:final()
  local qb, pb = b:final()
  if which == "p" then return wb.norm(wb.sub(pa, pb)) / wb.norm(pa) end
  return wb.norm(wb.sub(qa, qb)) / wb.norm(qa)
end

-- The sparse path against the dense one: final states to round-off and the
-- same Newton iterations (with full Newton: SPARK's default, simplified
-- Newton on factors kept across steps, converges linearly, so the round-off
-- that tells the two LUs apart can move a step's last residual across the
-- tolerance: 528 dense, 529 sparse iterations in 100 steps, N = 8, s = 3).
local function expect_sparse_as_dense(runs, what, linear)
  wb.expect_below(relative_difference(runs.dense, runs.sparse, "q"), 1e-12,
                  what .. ": sparse final q = dense")
  wb.expect_below(relative_difference(runs.dense, runs.sparse, "p"), 1e-11,
                  what .. ": sparse final p = dense")
  local dense, sparse = runs.dense.stats, runs.sparse.stats
  if linear then
    wb.check(math.abs(dense.newton_iterations - sparse.newton_iterations) <= dense.steps // 100
             and dense.jacobian_evals < dense.steps and sparse.jacobian_evals < sparse.steps,
             what .. ": the same iterations but for one in 100 steps, factors kept across steps",
             string.format("%d and %d iterations, %d and %d Jacobians dense and sparse in %d "
                           .. "steps", dense.newton_iterations, sparse.newton_iterations,
                           dense.jacobian_evals, sparse.jacobian_evals, dense.steps))
    return
  end
  wb.check(dense.newton_iterations == sparse.newton_iterations,
           what .. ": the same Newton iterations",
           string.format("%d dense, %d sparse", dense.newton_iterations,
                         sparse.newton_iterations))
end


local function same_state(a, b)
  local qa, pa = a:final()
  local qb, pb = b:final()
  for i = 1, #qa do
    if qa[i] ~= qb[i] or pa[i] ~= pb[i] then return false end
  end
  return true
end

-- The methods with a sparse path, at their defaults and in the variants
-- whose Newton matrices have other blocks (SPARK's stage count; the
-- theta-VI's trapezoidal constraint, VI-B).
local methods = {
  {label = "spark s = 2", name = "spark", options = {s = 2, iteration = "newton"}},
  {label = "spark s = 3", name = "spark", options = {s = 3, iteration = "newton"}},
  {label = "spark s = 4", name = "spark", options = {s = 4, iteration = "newton"}},
  {label = "spark s = 3, auto", name = "spark", options = {s = 3}, linear = true},
  {label = "ggl.vi_s", name = "ggl.vi_s", options = {}},
  {label = "ggl.vi_theta (VI-A)", name = "ggl.vi_theta", options = {}},
  {label = "ggl.vi_theta (VI-B)", name = "ggl.vi_theta",
   options = {theta = 1, constraint = "trapezoidal", vartheta = 0.5}},
  -- Gonzalez's discrete gradient (the chain has no potential invariants);
  -- its correction c vanishes for the chain's linear V
  {label = "ggl.em", name = "ggl.em", options = {}},
  {label = "ggl.em_gonzalez", name = "ggl.em_gonzalez", options = {}},
}

local function method(spec, solver)
  local options = {linear_solver = solver}
  for k, v in pairs(spec.options) do options[k] = v end
  return wb.method(spec.name, options)
end

-- States agree to the round-off the unknowns carry (1e-12 relative; the
-- momenta to 1e-11: they take h G^T lambda with lambda the chain's
-- tensions, whose round-off the Newton update leaves, measured <= 2.5e-13).
for _, case in ipairs{{N = 8, spatial = 0}, {N = 5, spatial = 1}} do
  local model = wb.model("pendulum_chain", case)
  local where = string.format("N = %d %s", case.N, case.spatial == 1 and "spatial" or "planar")
  for _, spec in ipairs(methods) do
    local runs = {}
    for _, solver in ipairs{"dense", "sparse", "auto"} do
      runs[solver] = wb.integrate{model = model, method = method(spec, solver), h = 1e-2,
                                  steps = 100}
    end
    local what = spec.label .. ", " .. where
    expect_sparse_as_dense(runs, what, spec.linear)
    wb.check(same_state(runs.auto, runs.sparse), what .. ": auto takes the sparse path")
    if spec.name == "spark" then
      wb.expect_below(runs.sparse:max("constraint"), 1e-11, what .. ": max |g(q_n)|")
      wb.expect_below(runs.sparse:max("hidden_constraint"), 1e-11, what .. ": max |G M^-1 p_n|")
    end
  end
end

-- The energy-momentum schemes on a chain with bending stiffness (kb = 20:
-- V quartic, Hess V banded), where Gonzalez's discrete gradient has its
-- correction c dq and the Newton matrix its rank-one part h dq (x) grad c,
-- which the sparse path leaves to the host's Sherman-Morrison solve.  At
-- h = 0.1 that term matters: without it the sparse path took 298 Newton
-- iterations in 50 steps, not 253 (N = 8, em_gonzalez).  States agree to
-- round-off (measured <= 4e-15 in q, 3.4e-14 in p), the iterations are the
-- same, and the energy is conserved to round-off on both paths.
for _, case in ipairs{{N = 8, spatial = 0, kb = 20}, {N = 5, spatial = 1, kb = 20}} do
  local model = wb.model("pendulum_chain", case)
  local where = string.format("N = %d %s, kb = 20, h = 0.1", case.N,
                              case.spatial == 1 and "spatial" or "planar")
  for _, name in ipairs{"ggl.em", "ggl.em_gonzalez"} do
    local runs = {}
    for _, solver in ipairs{"dense", "sparse"} do
      runs[solver] = wb.integrate{model = model, method = wb.method(name, {linear_solver = solver}),
                                  h = 0.1, steps = 50}
    end
    local what = name .. ", " .. where
    expect_sparse_as_dense(runs, what)
    wb.expect_below(runs.sparse:max("energy_error"), 1e-13, what .. ": sparse, max energy error")
    wb.expect_below(runs.sparse:max("constraint"), 1e-12, what .. ": sparse, max |g(q_n)|")
  end
end

-- A 400-link chain: SPARK's Newton reaches its tolerance (the momentum
-- rows' scale counts the constraint forces, which grow with N: without
-- them the test sat at 3e-14 against 64 eps |p| and never passed).
do
  local sol = wb.integrate{model = wb.model("pendulum_chain", {N = 400}),
                           method = wb.method("spark", {linear_solver = "sparse"}), h = 1e-3,
                           steps = 10}
  wb.expect_in(sol.stats.mean_newton_iterations, 1, 4, "N = 400, spark: Newton iterations a step")
  wb.expect_below(sol:max("constraint"), 1e-9, "N = 400, spark: max |g(q_n)|")
  wb.expect_below(sol:max("hidden_constraint"), 1e-9, "N = 400, spark: max |G M^-1 p_n|")
end

-- Refusals: sparse on a model without the extension (naming it).
local function refusal(name, model, needle)
  local ok, err = pcall(function()
    wb.integrate{model = model, method = wb.method(name, {linear_solver = "sparse"}), h = 0.01,
                 steps = 1}
  end)
  wb.check(not ok and tostring(err):find(needle, 1, true) ~= nil,
           string.format("%s, linear_solver = sparse on %s is refused, saying '%s'", name,
                         model.name or "the model", needle), tostring(err))
end
local sphere = wb.model("spherical_pendulum")
refusal("spark", sphere, "wb.sparsity/1")
refusal("ggl.vi_s", sphere, "wb.sparsity/1")
refusal("ggl.vi_theta", sphere, "wb.sparsity/1")
refusal("ggl.em", sphere, "wb.sparsity/1")
refusal("ggl.em_gonzalez", sphere, "wb.sparsity/1")
-- auto on such models stays dense and runs
local auto = wb.integrate{model = sphere, method = wb.method("spark"), h = 0.01, steps = 5}
wb.expect_below(auto:max("constraint"), 1e-12, "spark, auto on spherical_pendulum: dense and fine")
