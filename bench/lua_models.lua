-- Benchmark: the cost per step of a model written in Lua (wb.define_model,
-- derivatives by automatic differentiation in Lua), the same model turned
-- into C by wb.compile_model, and the hand-written C plugin.  The spherical
-- pendulum of models/spherical_pendulum.c, integrated by RATTLE (implicit:
-- constraint, Jacobian and potential gradient in every Newton iteration)
-- and by HBVM(6,3) (the Hessian-free line integral method).
--
-- Measured 2026-11-25 (2-core AMD EPYC, shared, Release build), cpu seconds
-- of whole processes, median of 5 paired runs (A B A B ...), start-up
-- (0.035 s, a 1-step run) subtracted, per step:
--   RATTLE    C 2.7e-7 s (2e6 steps)   Lua 2.5e-5 s (2e4 steps)   Lua/C  93
--   HBVM(6,3) C 2.5e-6 s (1e5 steps)   Lua 3.2e-4 s (1e3 steps)   Lua/C 125
--   compiled/C, same step counts: RATTLE 0.78 and 1.15 (two calls: the
--   machine's noise), HBVM 1.11; this script's own table gave 0.75 and 1.19.
-- The ratio is above 20, hence wb.compile_model.  Paired by a timer of
-- whole processes over the one-run form below, e.g. A = `workbench
-- bench/lua_models.lua lua rattle 20000`, B = `... c rattle 2000000`
-- (the ratio of the medians times 100 is the per-step ratio).
--
--   workbench bench/lua_models.lua                       all three, a table
--   workbench bench/lua_models.lua KIND METHOD STEPS     one run (KIND: c, lua,
--                                                        compiled), for a timer
--                                                        of whole processes
local kind, method_name, steps = arg[1], arg[2], tonumber(arg[3])

local spec = {
  name = "bench_spherical", nq = 3,
  params = {m = {1, min = 1e-12}, l = {1, min = 1e-12}, g = {9.81, min = 0}},
  mass = function(q, P) return P.m end,
  potential = function(q, P) return P.m * P.g * q[3] end,
  constraints = function(q, P) return {0.5 * ((q[1]^2 + q[2]^2 + q[3]^2) / P.l^2 - 1)} end,
  invariants = {Lz = function(q, p) return q[1] * p[2] - q[2] * p[1] end},
  initial = function(P) return {P.l, 0, 0}, {0, P.m, 0} end,
}

local function model_of(k)
  if k == "c" then return wb.model("spherical_pendulum") end
  spec.name = "bench_spherical_" .. k
  if k == "lua" then return wb.define_model(spec) end
  if k == "compiled" then return wb.compile_model(spec) end
  error("KIND must be c, lua or compiled")
end

local methods = {rattle = function() return wb.method("rattle") end,
                 hbvm = function() return wb.method("hbvm", {k = 6, s = 3}) end}

local function run(model, name, n)
  local sol = wb.integrate{model = model, method = methods[name](), h = 0.01, steps = n,
                           every = 2 ^ 53}
  return sol.stats.seconds / n, sol
end

if kind then
  local per_step, sol = run(model_of(kind), method_name, steps)
  wb.printf("%s %s: %d steps, %.3e s per step, final energy error %.2e\n", kind, method_name,
            steps, per_step, sol:max("energy_error"))
  return
end

local models = {c = model_of("c"), lua = model_of("lua"), compiled = model_of("compiled")}
wb.printf("%-8s %-10s %-14s %-14s %s\n", "method", "model", "s per step", "vs C", "steps")
for _, name in ipairs{"rattle", "hbvm"} do
  local base
  for _, k in ipairs{"c", "compiled", "lua"} do
    local n = (k == "lua" and 2000 or 100000) // (name == "hbvm" and 4 or 1)
    local t = run(models[k], name, n)
    base = base or t
    wb.printf("%-8s %-10s %-14.3e %-14.2f %d\n", name, k, t, t / base, n)
  end
end
