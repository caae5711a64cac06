-- wb.sweep on this machine: every case in its own worker; failures of any
-- kind recorded, the others carry on; rows written as they come and a
-- rerun skips them; jobs = 1 and jobs = 2 give the same numbers bit for
-- bit; the table's helpers; values round-trip exactly through the file.

local function study(c)
  local m = wb.model("spherical_pendulum")
  local sol = wb.integrate{model = m, method = c.method, h = c.h, t_end = 1}
  local q = sol:final()
  return {error = math.abs(q[1] - 0.0), energy_error = sol:max("energy_error"),
          steps = sol.stats.steps, name = c.method .. "@" .. c.h}
end

local cases = {}
for _, method in ipairs{"rattle", "shake"} do
  for _, h in ipairs{0.1, 0.05, 0.025, 0.0125} do cases[#cases + 1] = {method = method, h = h} end
end

-- 1. jobs 1 and 2: the same rows, bit for bit, in case order
local one = wb.sweep{cases = cases, run = study, jobs = 1, progress = false}
local two = wb.sweep{cases = cases, run = study, jobs = 2, progress = false}
local same = #one == #cases and #two == #cases
for i = 1, #cases do
  same = same and one[i].energy_error == two[i].energy_error and one[i].steps == two[i].steps
         and one[i].method == cases[i].method and one[i].h == cases[i].h and one[i].status == "ok"
end
wb.check(same, "jobs = 1 and jobs = 2: the same rows, in case order, bit for bit")

-- 2. failures of every kind, recorded; the others go on
local mixed = {
  {kind = "fine"},
  {kind = "error"},
  {kind = "crash"},
  {kind = "timeout"},
  {kind = "not_a_table"},
  {kind = "fine"},
}
-- A crashing worker under ASan spends seconds symbolising its report, longer
-- than a short timeout on a loaded machine: the timeout case alone gets 1 s.
local function run_mixed(c)
  if c.kind == "error" then error("a Newton failure, say") end
  if c.kind == "crash" then wb.model("crash_model", {crash = 1}) end
  if c.kind == "timeout" then while true do end end
  if c.kind == "not_a_table" then return 42 end
  return {value = 1.5}
end
local untimed = {}
for i, c in ipairs(mixed) do untimed[i] = c.kind == "timeout" and {kind = "fine"} or c end
local T = wb.sweep{cases = untimed, jobs = 2, timeout = 120, progress = false, run = run_mixed}
local timed = wb.sweep{cases = {mixed[4], {kind = "fine"}}, jobs = 1, timeout = 1, progress = false,
                       run = run_mixed}
wb.check(timed[2].status == "ok", "a case after a timed-out one runs")
T[4] = timed[1]
local statuses = {}
for i, row in ipairs(T) do statuses[i] = row.status end
wb.check(table.concat(statuses, " ") == "ok error crashed timeout error ok",
         "statuses: " .. table.concat(statuses, " "))
wb.check(tostring(T[2].failure):find("a Newton failure", 1, true) ~= nil, "the error's message kept")
wb.check(tostring(T[3].failure):find("signal", 1, true) ~= nil
         or tostring(T[3].failure):find("without a result", 1, true) ~= nil,
         "the crash's reason kept: " .. tostring(T[3].failure))
wb.check(tostring(T[4].failure):find("timed out after 1 s", 1, true) ~= nil, "the timeout kept")
wb.check(tostring(T[5].failure):find("return a table", 1, true) ~= nil, "a wrong return named")
wb.check(T[6].value == 1.5 and T[4].seconds >= 1 and T[4].seconds < 5, "the others went on")

-- 3. rows written as they come; a rerun skips them; fresh redoes them
local out = "results.tsv"
os.remove(wb.output_path(out)) -- from an earlier run of this test
os.remove(wb.output_path("odd.tsv"))
local first = wb.sweep{cases = cases, run = study, jobs = 2, out = out, progress = false}
local again = wb.sweep{cases = cases, jobs = 2, out = out, progress = false,
                       run = function() error("a case already done ran again") end}
local skipped = true
for i = 1, #cases do
  skipped = skipped and again[i].status == "ok" and again[i].energy_error == first[i].energy_error
end
wb.check(skipped, "a rerun reads the finished cases back, bit for bit, and runs none")
local redo = wb.sweep{cases = {cases[1]}, jobs = 1, out = out, fresh = true, progress = false,
                      run = function() return {energy_error = -1} end}
wb.check(redo[1].energy_error == -1, "fresh = true redoes a finished case")
local file = wb.read_results(out)
wb.check(#file == 1 and file[1].energy_error == -1, "fresh rewrote the file")

-- 4. values round-trip exactly
local odd = {{tag = "tabs\tand\nnewlines \\ too"}}
local R = wb.sweep{cases = odd, jobs = 1, out = "odd.tsv", progress = false, run = function()
  return {nan = 0 / 0, inf = math.huge, minf = -math.huge, zero = -0.0, tiny = 4.9e-324,
          third = 1 / 3, word = "x\ty", list = {1, 1 / 3, -0.0, 1e300}}
end}
local back = wb.read_results("odd.tsv")[1]
for _, row in ipairs{R[1], back} do
  wb.check(row.nan ~= row.nan and row.inf == math.huge and row.minf == -math.huge
           and 1 / row.zero == -math.huge and row.tiny == 4.9e-324 and row.third == 1 / 3
           and row.word == "x\ty" and row.tag == odd[1].tag and #row.list == 4
           and row.list[2] == 1 / 3 and 1 / row.list[3] == -math.huge and row.list[4] == 1e300,
           "nan, inf, -0, subnormals, 1/3, lists and strings with tabs survive")
end

-- 5. the table's helpers
local ok = one:select{status = "ok"}
local groups = ok:group_by("method")
wb.check(#groups == 2 and groups[1].key == "rattle" and #groups[1].rows == 4, "group_by")
for _, g in ipairs(ok:fit_orders{h = "h", error = "energy_error", by = "method"}) do
  wb.expect_near(g.order, 2, 0.1, "fit_orders: " .. tostring(g.key) .. "'s energy error O(h^2)")
end
ok:plot{file = "plots/sweep/orders.png", x = "h", y = "energy_error", by = "method",
        logscale = "xy", title = "energy error against h"}
local f = io.open(wb.output_path("plots/sweep/orders.dat"), "r")
wb.check(f ~= nil, "T:plot wrote the figure's data")
if f then f:close() end

-- 6. a generator of cases, and bad specs refused
local n = 0
local G = wb.sweep{jobs = 2, progress = false, run = function(c) return {twice = 2 * c.k} end,
                   cases = function() n = n + 1; if n <= 5 then return {k = n} end end}
wb.check(#G == 5 and G[5].twice == 10, "a generator of cases")
local bad, why = pcall(wb.sweep, {cases = cases, run = study, job = 2})
wb.check(not bad and tostring(why):find("unknown field 'job'", 1, true), "unknown field named")
bad, why = pcall(wb.sweep, {cases = {1, 2}, run = study})
wb.check(not bad and tostring(why):find("case 1 is a number", 1, true), "a case not a table")
