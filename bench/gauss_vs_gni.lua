-- Gauss collocation through the plugin ABI (rk with the defaults a user
-- gets: iteration = "auto", start = "auto") against the yardstick,
-- bench/gni_irk2.c: the algorithm of Hairer's gni_irk2 in plain C.  Same
-- problems, same h, same number of steps; both record only the end.
-- Printed per (problem, s): microseconds per step (the loop alone: ours
-- from sol.stats.seconds, the yardstick's from its own clock; best of
-- `repeats`), force evaluations and sweeps per step, the ratio of times,
-- and each final state's distance from a reference (Gauss 8 at h/4), so
-- that "the same accuracy" is a measured statement.
--
--   workbench bench/gauss_vs_gni.lua [repeats] [scale]
-- scale multiplies the step counts (1: Kepler 10^6 steps of h = 0.01,
-- the outer solar system 10^5 steps of h = 10 days).  The yardstick is
-- found next to this build's workbench (build/bench/bench_gni_irk2), or
-- given by WORKBENCH_GNI.
--
-- Deterministic figures: bench/gauss_vs_gni_callgrind.sh (instructions per
-- step).  Measured with start = "auto" (Ir ratio rk / gni; force
-- evaluations per step rk, gni):
--   Kepler s = 2: 1.402 (5.29, 5.20)    outer solar system s = 2: 1.046 (6.00, 6.00)
--          s = 4: 1.255 (6.86, 6.24)                       s = 4: 1.043 (6.01, 6.00)
--          s = 6: 1.034 (6.65, 8.00)                       s = 6: 0.892 (6.00, 8.00)
-- (Kepler N = 2e4 .. 6e4 steps, solar 2e3 .. 6e3; with the extrapolated
-- start at 8986f6f, before auto: 1.317, 1.329, 1.062 and 1.052, 1.302,
-- 0.890, Kepler s = 4 at 8.78 evaluations a step.  Kepler s = 2, where auto
-- never leaves the extrapolation: START=extrapolate now 1338 Ir a step
-- (1.355; the starts' counters), auto 1382-1385 (1.40): its choice costs
-- about 45 instructions a step.)
local repeats = tonumber(arg[1]) or 3
local scale = tonumber(arg[2]) or 1
local exe = os.getenv("WORKBENCH_GNI")
if not exe then
  exe = (arg[-1] or "build/workbench"):gsub("workbench$", "") .. "bench/bench_gni_irk2"
end

local problems = {
  {name = "kepler", label = "Kepler e = 0.5", model = wb.model("kepler", {e = 0.5}),
   h = 0.01, steps = math.floor(1e6 * scale)},
  {name = "solar", label = "outer solar system", model = wb.model("outer_solar_system"),
   h = 10, steps = math.floor(1e5 * scale)},
}

local function yardstick(problem, s)
  local best
  for _ = 1, repeats do
    local cmd = string.format("%s %s %d %d %.17g", exe, problem.name, s, problem.steps, problem.h)
    local pipe = assert(io.popen(cmd))
    local line = pipe:read("a")
    pipe:close()
    local r = {q = {}, p = {}}
    for key, value in line:gmatch("(%S+) (%S+)") do
      local kind, index = key:match("^([qp])(%d+)$")
      if kind then r[kind][tonumber(index)] = tonumber(value) else r[key] = tonumber(value) end
    end
    if not r.us_per_step then error("the yardstick failed: " .. cmd .. "\n" .. line) end
    if not best or r.us_per_step < best.us_per_step then best = r end
  end
  return best
end

-- START=auto|plain|extrapolate|corrected picks rk's start (default: rk's own, auto)
local start = os.getenv("START")

local function ours(problem, s)
  local method = wb.method("rk", {tableau = wb.tableau.gauss(s), start = start})
  local best, sol
  for _ = 1, repeats do
    local run = wb.integrate{model = problem.model, method = method, h = problem.h,
                             steps = problem.steps, every = problem.steps}
    if not best or run.stats.seconds < best then best, sol = run.stats.seconds, run end
  end
  return sol
end

local rows = {}
for _, problem in ipairs(problems) do
  local ref = wb.integrate{model = problem.model, h = problem.h / 4, steps = 4 * problem.steps,
                           every = 4 * problem.steps,
                           method = wb.method("rk", {tableau = wb.tableau.gauss(8)})}
  local reference = wb.concat(ref:final())
  for _, s in ipairs{2, 4, 6} do
    local g = yardstick(problem, s)
    local sol = ours(problem, s)
    local mine = wb.concat(sol:final())
    local theirs = wb.concat(g.q, g.p)
    local us = 1e6 * sol.stats.seconds / problem.steps
    rows[#rows + 1] = {problem.label, s, g.us_per_step, g.evals_per_step, g.sweeps_per_step, us,
                       sol.stats.mean_function_evals, sol.stats.mean_newton_iterations,
                       us / g.us_per_step, wb.norm(wb.sub(theirs, reference)),
                       wb.norm(wb.sub(mine, reference)),
                       wb.norm(wb.sub(mine, theirs)) / wb.norm(theirs), sol.stats.iteration}
  end
end
wb.printf("Gauss s stages: the gni_irk2 algorithm in C against rk through the ABI "
          .. "(defaults), best of %d\n\n", repeats)
wb.print_table({"problem", "s", "gni us/step", "gni evals", "gni sweeps", "rk us/step",
                "rk evals", "rk sweeps", "ratio", "gni error", "rk error", "|rk - gni|",
                "rk iteration"},
               rows, "%-14.4g")
wb.printf("\n(error: max norm of (q, p) at the end against Gauss 8 at h/4; |rk - gni|: "
          .. "the two final states' distance relative to |gni|; ratio = rk / gni; goal <= 1.5)\n")
