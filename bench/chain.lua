-- Cost per step of RATTLE, SHAKE, SPARK (s = 3, order 4) and the GGL
-- theta-VI (VI-A, order 2) on a planar chain of N links (pendulum_chain,
-- the model's default state, h = 1e-3), N = 10 .. 10^4: the sparse path
-- (wb.sparsity/1: G in its nonzeros, RATTLE's G M^-1 G^T banded, SPARK's
-- and the VI's Newton matrices assembled block by block in their
-- nonzeros, the host's banded LU after reverse Cuthill-McKee) against the
-- dense path (linear_solver = "dense": dense G and Newton matrices, LAPACK
-- LU), and the fitted exponent of time per step over N for each (issue
-- 12's goal for the sparse path: <= 1.2; the dense path grows like N^3).
-- The dense SPARK and VI rows stop at N = 100 (9 and 5 unknowns a link:
-- at N = 300 a step takes seconds).
--
-- Measured (Release, 2026-11-25, the 2-core machine shared with three other
-- sessions, so wall times are noisy): sparse s a step at N = 10, 100, 10^3,
-- 10^4: spark 123 us, 1.45 ms, 17.3 ms, 339 ms (exponent 1.14);
-- ggl.vi_theta 69 us, 530 us, 8.3 ms, 185 ms (1.15; Newton 3.0 -> 4.0
-- iterations a step at 10^4); rattle 1.14, shake 1.06.  Callgrind
-- instructions inside newton_solve a step, N = 10^3 -> 10^4: spark 1.29e8
-- -> 1.29e9 (x 10.0), vi_theta 8.03e7 -> 9.52e8 (x 11.9, x 9.0 per Newton
-- iteration).
--
-- Each configuration runs `repeats` times and the fastest run counts; the
-- number of steps is about `work` / N so each run takes a similar time.
-- Only the first and last states are recorded (every = steps).
--
--   build/workbench bench/chain.lua [work] [repeats]
local work = tonumber(arg[1]) or 2e6
local repeats = tonumber(arg[2]) or 3

-- cost: the relative work of a step (RATTLE's 1), so runs take similar times
local function per_step(name, solver, N, cost)
  local model = wb.model("pendulum_chain", {N = N})
  local method = wb.method(name, {linear_solver = solver})
  local steps = math.floor(work / cost / (solver == "dense" and N * N or N))
  steps = math.max(3, solver == "dense" and cost > 1 and math.floor(steps / N) or steps)
  local best, stats = math.huge, nil
  for _ = 1, repeats do
    local sol = wb.integrate{model = model, method = method, h = 1e-3, steps = steps,
                             every = steps}
    if sol.stats.seconds / steps < best then
      best, stats = sol.stats.seconds / steps, sol.stats
    end
  end
  return best, stats
end

local function table_for(name, solver, Ns, cost)
  wb.printf("\n%s, linear_solver = %s\n", name, solver)
  wb.printf("%8s %14s %16s %12s\n", "N", "s / step", "s / step / link", "Newton its")
  local times = {}
  for k, N in ipairs(Ns) do
    local t, stats = per_step(name, solver, N, cost or 1)
    times[k] = t
    wb.printf("%8d %14.4e %16.4e %12.2f\n", N, t, t / N, stats.mean_newton_iterations)
  end
  local exponent = wb.fit_order(Ns, times)
  wb.printf("fitted exponent of time per step over N = %d .. %d: %.2f\n", Ns[1], Ns[#Ns],
            exponent)
  return times, exponent
end

local sparse_Ns = {10, 100, 1000, 10000}
local rattle_sparse, e_rs = table_for("rattle", "sparse", sparse_Ns)
local _, e_ss = table_for("shake", "sparse", sparse_Ns)
local dense_Ns = {10, 30, 100, 300}
local rattle_dense, e_rd = table_for("rattle", "dense", dense_Ns)
local spark_sparse, e_ks = table_for("spark", "sparse", sparse_Ns, 50)
local vi_sparse, e_vs = table_for("ggl.vi_theta", "sparse", sparse_Ns, 50)
local small_Ns = {10, 30, 100}
local spark_dense, e_kd = table_for("spark", "dense", small_Ns, 50)
local vi_dense, e_vd = table_for("ggl.vi_theta", "dense", small_Ns, 50)

wb.printf("\nsummary: fitted exponents over N = 10 .. 10^4 (goal <= 1.2): rattle sparse %.2f, "
          .. "shake sparse %.2f, spark sparse %.2f, ggl.vi_theta sparse %.2f; dense: rattle "
          .. "%.2f (N = 10 .. 300), spark %.2f, ggl.vi_theta %.2f (N = 10 .. 100)\n", e_rs,
          e_ss, e_ks, e_vs, e_rd, e_kd, e_vd)
for k, N in ipairs{10, 100} do
  local i = N == 10 and 1 or 3
  wb.printf("  N = %d: dense / sparse = %.1f (rattle), %.1f (spark), %.1f (ggl.vi_theta)\n", N,
            rattle_dense[i] / rattle_sparse[k], spark_dense[i] / spark_sparse[k],
            vi_dense[i] / vi_sparse[k])
end
