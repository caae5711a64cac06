-- Mutation fuzzer of the Lua API (issue 13), run by the suite for a fixed
-- time budget: workbench SCRIPT SECONDS SEED.  Calls of wb.tableau{},
-- wb.model, wb.method, m:with, wb.integrate, sol methods and the tableau
-- checks with arguments mutated from valid ones (types swapped, numbers at
-- their limits, NaN, huge and negative counts, hostile strings, tables
-- with hostile metatables, finalized objects); every call must return or
-- raise an error message, and the host must never crash.  The case being
-- tried is written to fuzz-current.txt first: a crash leaves it there as
-- the regression input (with the seed, the run replays).
local budget, seed = tonumber(arg[1]) or 2, tonumber(arg[2]) or 1
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local hostile = dofile(here .. "/hostile_strings.lua")(wb.output_path("canary"))
math.randomseed(seed)
local random = math.random

local numbers = {0, -0.0, 1, -1, 0.5, 2, 3, 1e-300, -1e-300, 1e300, -1e300, 0 / 0, math.huge,
                 -math.huge, 2^53, 2^63, -2^63, 2^64, math.maxinteger, math.mininteger, 1e-16,
                 0.1, 16, 17, 64, 65, 1e6}

-- a table whose every access raises: len, index, pairs, tostring
local trap = setmetatable({}, {__index = function() error("trap: index") end,
                               __len = function() error("trap: len") end,
                               __pairs = function() error("trap: pairs") end,
                               __tostring = function() error("trap: tostring") end})

local pendulum, kepler = wb.model("pendulum"), wb.model("kepler")
local finalized_model = wb.model("pendulum")
debug.getmetatable(finalized_model).__gc(finalized_model)
local finalized_tableau = wb.tableau{a = {{0.5}}, b = {1}, name = "fz_gone"}
debug.getmetatable(finalized_tableau).__gc(finalized_tableau)

local function any_value(depth)
  local k = random(12)
  if k <= 3 then return numbers[random(#numbers)] end
  if k == 4 then return hostile[random(#hostile)] end
  if k == 5 then return random(2) == 1 end
  if k == 6 then return nil end
  if k == 7 then return trap end
  if k == 8 then return ({pendulum, kepler, finalized_model, finalized_tableau})[random(4)] end
  if k == 9 then return function() error("called") end end
  if depth > 2 then return {} end
  local t = {}
  for i = 1, random(0, 4) do t[i] = any_value(depth + 1) end
  if random(3) == 1 then t[hostile[random(#hostile)]] = any_value(depth + 1) end
  return t
end

-- copy a valid table, then change, drop or add a few fields
local function mutated(valid)
  local t = {}
  for k, v in pairs(valid) do t[k] = v end
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  for _ = 1, random(1, 3) do
    local r = random(4)
    if r == 1 and #keys > 0 then t[keys[random(#keys)]] = any_value(0)
    elseif r == 2 and #keys > 0 then t[keys[random(#keys)]] = nil
    elseif r == 3 then t[hostile[random(#hostile)]] = any_value(0)
    else
      local k = keys[random(math.max(#keys, 1))]
      if type(t[k]) == "table" and t[k] ~= trap then
        local inner = {}
        for i, v in ipairs(t[k]) do inner[i] = v end
        inner[random(#inner + 1)] = any_value(1)
        t[k] = inner
      end
    end
  end
  return t
end

local gauss = wb.tableau.gauss(2)
local cases = {
  function() return "tableau", wb.tableau, {mutated{a = {{0.25, 0.25 - 3^0.5 / 6},
                                                          {0.25 + 3^0.5 / 6, 0.25}},
                                                    b = {0.5, 0.5}, name = "fz_g2"}} end,
  function() return "tableau pair", wb.tableau, {mutated{a = {{0, 0}, {0.5, 0.5}}, b = {0.5, 0.5},
                                                         a2 = {{0.5, 0}, {0.5, 0}}, name = "fz_p"}} end,
  function() return "compose", wb.tableau.compose, {gauss, any_value(0), any_value(0)} end,
  function() return "family", wb.tableau.family, {any_value(0), any_value(0)} end,
  function() return "gauss", wb.tableau.gauss, {any_value(0)} end,
  function() return "named", wb.tableau.named, {any_value(0)} end,
  function() return "order", gauss.order, {({gauss, finalized_tableau})[random(2)], any_value(0)} end,
  function() return "stability", gauss.stability, {gauss, any_value(0), any_value(0)} end,
  function() return "defect", gauss.defect_C, {gauss, any_value(0)} end,
  function() return "model", wb.model, {({"pendulum", "kepler", "heavy_top", any_value(0)})[random(4)],
                                        mutated{m = 1, l = 1, g = 9.81}} end,
  function() return "method", wb.method, {({"rattle", "rk", "spark", "hbvm", any_value(0)})[random(5)],
                                          mutated{tol = 1e-12, tableau = "gauss2", s = 3}} end,
  function() return "energy", pendulum.energy, {({pendulum, finalized_model})[random(2)],
                                                mutated{1, 0}, mutated{0, 0}} end,
  function() return "constraints", pendulum.constraints, {pendulum, any_value(0)} end,
  function() return "integrate", wb.integrate,
    {mutated{model = ({pendulum, kepler})[random(2)], method = "rattle", h = 0.1, steps = 3,
             every = 1, on_failure = "stop"}} end,
  function() return "integrate kepler", wb.integrate,
    {mutated{model = kepler, method = "verlet", h = 0.1, t_end = 0.3, q0 = {1, 0},
             p0 = {0, 1}}} end,
}

local sol = wb.integrate{model = pendulum, method = "rattle", h = 0.1, steps = 3}
cases[#cases + 1] = function() return "sol:column", sol.column, {sol, any_value(0)} end
cases[#cases + 1] = function() return "sol:times", sol.times, {sol, any_value(0), any_value(0)} end
cases[#cases + 1] = function() return "sol:state", sol.state, {sol, any_value(0)} end
cases[#cases + 1] = function() return "sol:max", sol.max, {sol, any_value(0)} end

local function describe(v, depth)
  depth = depth or 0
  if type(v) == "string" then return string.format("%q", v:sub(1, 60)) end
  if type(v) ~= "table" or v == trap or depth > 2 then return tostring(rawequal(v, trap) and "trap" or type(v)) end
  local parts = {}
  for k, x in next, v do parts[#parts + 1] = tostring(k):sub(1, 20) .. "=" .. describe(x, depth + 1) end
  return "{" .. table.concat(parts, ", ") .. "}"
end

wb.write_file("fuzz-current.txt", "") -- creates the output folder
local current = assert(io.open(wb.output_path("fuzz-current.txt"), "w"))
local start, calls, errors, bad = wb.clock(), 0, 0, 0
while wb.clock() - start < budget do
  for _ = 1, 50 do
    local name, f, args = cases[random(#cases)]()
    current:seek("set")
    current:write(string.format("seed %d call %d: %s(%s)\n", seed, calls + 1, name,
                                describe(args)))
    current:flush()
    calls = calls + 1
    local ok, err = pcall(f, table.unpack(args, 1, 3))
    if not ok then
      errors = errors + 1
      if type(err) ~= "string" or #err == 0 then bad = bad + 1 end
    end
  end
  collectgarbage("step", 100)
end
current:close()
os.remove(wb.output_path("fuzz-current.txt"))
collectgarbage()
wb.check(bad == 0, string.format("API fuzz: %d calls, %d returned, %d raised a message, %d "
                                 .. "raised no message, crashes 0 (seed %d)", calls,
                                 calls - errors, errors - bad, bad, seed))
wb.check(not io.open(wb.output_path("canary"), "r"), "no hostile string ran a command")
