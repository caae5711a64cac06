-- Cost per step of RATTLE, SHAKE, SPARK (s = 3, order 4), the GGL
-- theta-VI (VI-A, order 2) and HBVM(2,2) and HBVM(4,2) (the defaults:
-- iteration = auto, the paper's fixed point on this chain) on a planar
-- chain of N links (pendulum_chain,
-- the model's default state, h = 1e-3), N = 10 .. 10^4: the sparse path
-- (wb.sparsity/1: G in its nonzeros, RATTLE's G M^-1 G^T banded, SPARK's
-- and the VI's Newton matrices assembled block by block in their
-- nonzeros, HBVM's multiplier system (51) in the pattern of G G^T, the
-- host's banded LU after reverse Cuthill-McKee) against the
-- dense path (linear_solver = "dense": dense G and Newton matrices, LAPACK
-- LU), and the fitted exponent of time per step over N for each (issue
-- 12's goal for the sparse path: <= 1.2; the dense path grows like N^3).
-- The dense SPARK, VI and HBVM rows stop at N = 100 (9, 5 and 2 s + 1
-- unknowns a link: at N = 300 a step takes seconds; HBVM's dense fixed
-- point assembles the m x m system (51) in O(N^3) every sweep).
--
-- spark now (2026-11-28, quiet machine, one core: `build/workbench
-- bench/chain.lua 2e6 3 spark`; iteration = "auto", stage_form =
-- "positions"): sparse 9.69 us, 73.8 us, 1.03 ms, 17.2 ms a step at N = 10,
-- 100, 10^3, 10^4 (exponent 1.09; 4.13, 2.84, 3.00, 3.25 Newton iterations
-- a step); dense 17.1 us, 493 us, 17.4 ms at N = 10, 30, 100 (3.01), 236
-- times the sparse path at N = 100.
-- Measured before (Release, 2026-11-25, the 2-core machine shared with three
-- other sessions, so wall times are noisy): sparse s a step at N = 10, 100,
-- 10^3, 10^4: spark 123 us, 1.45 ms, 17.3 ms, 339 ms (exponent 1.14);
-- ggl.vi_theta 69 us, 530 us, 8.3 ms, 185 ms (1.15; Newton 3.0 -> 4.0
-- iterations a step at 10^4); rattle 1.14, shake 1.06.  Callgrind
-- instructions inside newton_solve a step, N = 10^3 -> 10^4: spark 1.29e8
-- -> 1.29e9 (x 10.0), vi_theta 8.03e7 -> 9.52e8 (x 11.9, x 9.0 per Newton
-- iteration).  (spark then ran full Newton on the stage momenta, its
-- default until iteration = "auto" kept its LU across steps and
-- stage_form = "positions" took the stage positions as unknowns: at
-- N = 100, s = 3, callgrind Ir a step 7.18e6 then, 1.51e6 now.)
-- ggl.em and ggl.em_gonzalez (2026-11-25, load average 6.7-7.3 on 2 cores:
-- `build/workbench bench/chain.lua 2e6 3 ggl.em`), sparse, s a step at
-- N = 10, 100, 10^3, 10^4: em 45.5 us, 370 us, 6.2 ms, 87.5 ms (exponent
-- 1.11), em_gonzalez 28.2 us, 256 us, 3.2 ms, 50.7 ms (1.09); kb = 10: em
-- 105 us, 977 us, 12.1 ms, 208 ms (1.10), em_gonzalez 49.8 us, 481 us,
-- 4.7 ms, 78.5 ms (1.06); 4.0 Newton iterations a step at 10^4.  Dense at
-- N = 10, 30, 100: em 151 us, 5.7 ms, 369 ms (3.39), em_gonzalez (kb = 10)
-- 117 us, 3.0 ms, 134 ms (3.06): at N = 100 the sparse path is 999 and 279
-- times faster, at N = 10 3.3 and 2.4 times.  Callgrind instructions
-- inside newton_solve, 3 steps (12 Newton iterations), N = 10^3 -> 10^4:
-- em 1.43e8 -> 1.49e9 (x 10.4), em kb = 10 2.63e8 -> 2.69e9 (x 10.2),
-- em_gonzalez kb = 10 1.67e8 -> 1.74e9 (x 10.4).
--
-- hbvm (2026-11-28, load average 4.4 on 2 cores: `build/workbench
-- bench/chain.lua 2e6 3 hbvm`), sparse, s a step at N = 10, 100, 10^3,
-- 10^4: HBVM(2,2) 8.7 us, 90 us, 1.23 ms, 16.8 ms (exponent 1.10),
-- HBVM(4,2) 9.4 us, 82 us, 1.31 ms, 17.1 ms (1.10), 5.1, 4.6, 6.4, 8.0
-- fixed-point sweeps a step (at 10^4 the increments stop at the
-- multiplier system's round-off floor, which grows with N); dense
-- HBVM(2,2) at N = 10, 30, 100: 15.5 us, 185 us, 15.1 ms (3.00), 168
-- times the sparse path at N = 100.  Callgrind instructions a step (bench/chain_callgrind.sh hbvm
-- '{k = 2, s = 2}' N 10 20: steps 11 .. 20), N = 10^3 -> 10^4: HBVM(2,2)
-- 1.24e7 -> 1.59e8 (x 12.9; a sweep 1.85e6 -> 1.99e7, x 10.8, with 6.7 ->
-- 8.0 sweeps), HBVM(4,2) 1.39e7 -> 1.83e8 (x 13.2; a sweep x 10.6, 6.4 ->
-- 8.0 sweeps); HBVM(4,2) iteration = "newton" (a Jacobian assembled in
-- its nonzeros and its sparse LU every iteration; steps 6 .. 10) 5.11e7 ->
-- 5.11e8 (x 10.0), 4.4 iterations a step at both N.
--
-- The GGL energy-momentum schemes (ggl.em, ggl.em_gonzalez: Gonzalez's
-- discrete gradient, the chain having no potential invariants) run on the
-- chain as it is (V linear: the discrete gradient's correction vanishes)
-- and with bending stiffness kb = 10 (V quartic: the correction and the
-- Newton matrix's rank-one term, which the sparse path leaves to the
-- host's Sherman-Morrison solve, are active); their dense rows stop at
-- N = 100 too.
--
-- Each configuration runs `repeats` times and the fastest run counts; the
-- number of steps is about `work` / N so each run takes a similar time.
-- Only the first and last states are recorded (every = steps).  `only`
-- runs the tables of the methods whose name contains it (the summary then
-- names what ran).
--
--   build/workbench bench/chain.lua [work] [repeats] [only]
local work = tonumber(arg[1]) or 2e6
local repeats = tonumber(arg[2]) or 3
local only = arg[3]

-- cost: the relative work of a step (RATTLE's 1), so runs take similar times;
-- params: the model's beyond N, options: the method's beyond linear_solver
local function per_step(name, solver, N, cost, params, options)
  local model_params = {N = N}
  for k, v in pairs(params or {}) do model_params[k] = v end
  local model = wb.model("pendulum_chain", model_params)
  local method_options = {linear_solver = solver}
  for k, v in pairs(options or {}) do method_options[k] = v end
  local method = wb.method(name, method_options)
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

-- label: what the table's title calls the method (its name)
local function table_for(name, solver, Ns, cost, params, options, label)
  if only and not name:find(only, 1, true) then return nil, nil end
  wb.printf("\n%s, linear_solver = %s%s\n", label or name, solver,
            params and params.kb and string.format(", kb = %g", params.kb) or "")
  wb.printf("%8s %14s %16s %12s\n", "N", "s / step", "s / step / link", "Newton its")
  local times = {}
  for k, N in ipairs(Ns) do
    local t, stats = per_step(name, solver, N, cost or 1, params, options)
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

local bending = {kb = 10}
local em_sparse, e_es = table_for("ggl.em", "sparse", sparse_Ns, 50)
local emg_sparse, e_gs = table_for("ggl.em_gonzalez", "sparse", sparse_Ns, 50)
local emb_sparse, e_bs = table_for("ggl.em", "sparse", sparse_Ns, 50, bending)
local emgb_sparse, e_bgs = table_for("ggl.em_gonzalez", "sparse", sparse_Ns, 50, bending)
local em_dense, e_ed = table_for("ggl.em", "dense", small_Ns, 50)
local emb_dense, e_bd = table_for("ggl.em_gonzalez", "dense", small_Ns, 50, bending)

local hbvm22, hbvm42 = {k = 2, s = 2}, {k = 4, s = 2}
local h22_sparse, e_h22 = table_for("hbvm", "sparse", sparse_Ns, 10, nil, hbvm22, "HBVM(2,2)")
local _, e_h42 = table_for("hbvm", "sparse", sparse_Ns, 20, nil, hbvm42, "HBVM(4,2)")
local h22_dense, e_h22d = table_for("hbvm", "dense", small_Ns, 10, nil, hbvm22, "HBVM(2,2)")

local function show(e) return e and string.format("%.2f", e) or "-" end
wb.printf("\nsummary: fitted exponents over N = 10 .. 10^4 (goal <= 1.2): rattle sparse %s, "
          .. "shake sparse %s, spark sparse %s, ggl.vi_theta sparse %s, ggl.em sparse %s "
          .. "(kb = 10: %s), ggl.em_gonzalez sparse %s (kb = 10: %s); dense: rattle %s "
          .. "(N = 10 .. 300), spark %s, ggl.vi_theta %s, ggl.em %s, ggl.em_gonzalez (kb = 10) "
          .. "%s, HBVM(2,2) %s (N = 10 .. 100); sparse HBVM(2,2) %s, HBVM(4,2) %s\n",
          show(e_rs), show(e_ss), show(e_ks), show(e_vs), show(e_es), show(e_bs), show(e_gs),
          show(e_bgs), show(e_rd), show(e_kd), show(e_vd), show(e_ed), show(e_bd), show(e_h22d),
          show(e_h22), show(e_h42))
local function ratio(dense, sparse, i, k)
  return dense and sparse and string.format("%.1f", dense[i] / sparse[k]) or "-"
end
for k, N in ipairs{10, 100} do
  local i = N == 10 and 1 or 3
  wb.printf("  N = %d: dense / sparse = %s (rattle), %s (spark), %s (ggl.vi_theta), %s (ggl.em), "
            .. "%s (ggl.em_gonzalez, kb = 10), %s (HBVM(2,2))\n", N,
            ratio(rattle_dense, rattle_sparse, i, k), ratio(spark_dense, spark_sparse, i, k),
            ratio(vi_dense, vi_sparse, i, k), ratio(em_dense, em_sparse, i, k),
            ratio(emb_dense, emgb_sparse, i, k), ratio(h22_dense, h22_sparse, i, k))
end
