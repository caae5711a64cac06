-- The sweeps tests/sweep/hostile.sh runs: arg[1] the results file, arg[2]
-- which sweep (below), arg[3] a folder for the pids the endless one writes.
local out, which, pids = arg[1] ~= "" and arg[1] or nil, arg[2], arg[3]
local cases, run = {}, function(c) return {square = c.k * c.k} end
if which == "four" then          -- k = 1..4
  for k = 1, 4 do cases[k] = {k = k} end
elseif which == "front" then     -- a case added in front, the last dropped
  for k = 0, 3 do cases[#cases + 1] = {k = k} end
elseif which == "random" then    -- drawn with math.random, no seed given
  for k = 1, 6 do cases[k] = {k = k, x = math.random()} end
elseif which == "env" then       -- as many cases as $SWEEP_CASES says
  for k = 1, tonumber(os.getenv("SWEEP_CASES")) do cases[k] = {k = k} end
elseif which == "slow" or which == "quick" then -- the same out, other cases
  for k = 1, 3 do cases[k] = {k = which == "slow" and k or 10 + k} end
  run = function(c)
    if which == "slow" then os.execute("sleep 2") end
    return {square = c.k * c.k}
  end
elseif which == "wide" then      -- rows of about 280 bytes
  for k = 1, 8 do cases[k] = {k = k} end
  run = function(c) return {pad = string.rep("x", 250)} end
elseif which == "endless" then   -- a program that never ends, a loop that never ends
  cases = {{k = 1}, {k = 2}}
  run = function(c)
    if c.k == 1 then os.execute("echo $PPID $$ > '" .. pids .. "/1'; exec sleep 60") end
    os.execute("echo $PPID > '" .. pids .. "/2'")
    while true do end
  end
end
wb.sweep{cases = cases, out = out, jobs = 3, progress = false, run = run}
