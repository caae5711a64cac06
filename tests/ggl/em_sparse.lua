-- The GGL energy-momentum schemes (ggl.em, ggl.em_gonzalez) with
-- linear_solver = sparse on Gonzalez's four-particle system declared sparse
-- (four_particles_sparse, tests/ggl/four_particles_sparse.c: the model's own
-- source with wb.sparsity/1 added), with both discrete gradients:
-- Greenspan's through the potential invariants, whose Jacobian the sparse
-- path takes from differences grouped by a colouring of Hess V's pattern
-- (6 colours for the 12 columns: 12 evaluations a Jacobian, not 24), and
-- Gonzalez's on the quartic V, whose correction c dq puts the rank-one term
-- h dq (x) grad c in the Newton matrix (the host's Sherman-Morrison solve).
-- Against the dense path: final states to round-off (measured <= 3e-14 in
-- q, 3.3e-13 in p at h = 0.2), the same Newton iterations, energy to
-- round-off; and the dense path on the sparse variant is the shipped
-- four_particles bit for bit (the same model).
--   workbench --plugin-path build/tests/plugins/scenarios/ggl tests/ggl/em_sparse.lua

local shipped, sparse_model = wb.model("four_particles"), wb.model("four_particles_sparse")

local function relative(a, b, which)
  local qa, pa = a:final()
  local qb, pb = b:final()
  if which == "p" then return wb.norm(wb.sub(pa, pb)) / wb.norm(pa) end
  return wb.norm(wb.sub(qa, qb)) / wb.norm(qa)
end

for _, name in ipairs{"ggl.em", "ggl.em_gonzalez"} do
  for _, gradient in ipairs{"greenspan", "gonzalez"} do
    for _, h in ipairs{0.05, 0.2} do
      local runs = {}
      for _, solver in ipairs{"dense", "sparse", "auto"} do
        runs[solver] = wb.integrate{model = sparse_model, h = h, steps = 100,
          method = wb.method(name, {linear_solver = solver, discrete_gradient = gradient})}
      end
      local reference = wb.integrate{model = shipped, h = h, steps = 100,
                                     method = wb.method(name, {discrete_gradient = gradient})}
      local what = string.format("%s, %s, h = %g", name, gradient, h)
      wb.expect_below(relative(runs.dense, runs.sparse, "q"), 1e-12, what .. ": sparse final q = dense")
      wb.expect_below(relative(runs.dense, runs.sparse, "p"), 1e-11, what .. ": sparse final p = dense")
      wb.check(runs.dense.stats.newton_iterations == runs.sparse.stats.newton_iterations,
               what .. ": the same Newton iterations",
               string.format("%d dense, %d sparse", runs.dense.stats.newton_iterations,
                             runs.sparse.stats.newton_iterations))
      wb.check(relative(runs.auto, runs.sparse, "q") == 0 and relative(runs.auto, runs.sparse, "p") == 0,
               what .. ": auto takes the sparse path")
      wb.check(relative(runs.dense, reference, "q") == 0 and relative(runs.dense, reference, "p") == 0,
               what .. ": the dense path on the sparse variant is four_particles'")
      wb.expect_below(runs.sparse:max("energy_error"), 1e-13, what .. ": sparse, max energy error")
      wb.expect_below(runs.sparse:max("constraint"), 1e-12, what .. ": sparse, max |g(q_n)|")
      if gradient == "greenspan" then
        local per_jacobian = function(run)
          return run.stats.function_evals / run.stats.jacobian_evals
        end
        wb.check(runs.sparse.stats.function_evals < runs.dense.stats.function_evals,
                 what .. ": fewer discrete-gradient evaluations with the colouring",
                 string.format("%d sparse, %d dense (%.1f, %.1f a Jacobian)",
                               runs.sparse.stats.function_evals, runs.dense.stats.function_evals,
                               per_jacobian(runs.sparse), per_jacobian(runs.dense)))
      end
    end
  end
end
