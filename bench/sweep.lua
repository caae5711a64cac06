-- wb.sweep on this machine: 200 short cases with jobs = 1 and jobs = 2
-- (the speed-up; goal >= 1.8 on two cores), and 200 empty cases (the
-- worker's overhead per case: fork, result transfer, merge; goal < 2 ms).
-- Run: workbench bench/sweep.lua [--quick]
local n = wb.quick and 40 or 200

local function short_case(c)
  local sol = wb.integrate{model = wb.model("kepler"), method = "rk4", h = 1e-3,
                           steps = 4000, every = 4000}
  return {energy_error = sol:max("energy_error")} -- k is the case's field: in the row already
end

local cases = {}
for k = 1, n do cases[k] = {k = k} end

local function timed(jobs, run)
  local start = wb.clock()
  local T = wb.sweep{cases = cases, run = run, jobs = jobs, progress = false}
  local seconds = wb.clock() - start
  for _, row in ipairs(T) do assert(row.status == "ok", row.failure) end
  return seconds, T
end

-- the work alone, in this process
local start = wb.clock()
for k = 1, n do short_case(cases[k]) end
local serial = wb.clock() - start

local one, T1 = timed(1, short_case)
local two, T2 = timed(2, short_case)
local empty = timed(1, function() return {} end)

local same = true
for k = 1, n do same = same and T1[k].energy_error == T2[k].energy_error end

wb.printf("%d cases of %.2f ms each (in-process loop %.3f s)\n", n, 1e3 * serial / n, serial)
wb.printf("  jobs = 1: %.3f s   jobs = 2: %.3f s   speed-up %.2f\n", one, two, one / two)
wb.printf("  overhead per case (fork, transfer, merge): %.3f ms\n", 1e3 * empty / n)
wb.check(same, "jobs = 1 and 2 give the same numbers")
