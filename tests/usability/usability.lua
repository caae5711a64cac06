-- What a new user meets: outputs that load anywhere, initial states that
-- are checked, steps = where h = is, honest metadata, errors that name the
-- script's line and the argument.
local here = arg[0]
local expect_error = wb.expect_error
local function read(path)
  local f = io.open(wb.output_path(path), "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

local m = wb.model("pendulum")
local rattle = wb.method("rattle")

-- data files: a plain header line and a JSON sidecar
local sol = wb.integrate{model = m, method = rattle, h = 0.01, steps = 50}
sol:write("data/run.tsv")
local text = read("data/run.tsv")
wb.check(text and text:match("^t\tq1\tq2\tp1\tp2\t") ~= nil,
         "sol:write: the first line is the column names, tab-separated", text and text:sub(1, 40))
local meta = read("data/run.tsv.json")
wb.check(meta and meta:find('"model": "pendulum"', 1, true) and meta:find('"method": "classic.rattle"', 1, true)
         and meta:find('"h": 0.01', 1, true) and meta:find('"steps": 50', 1, true)
         and meta:find('"tol": 1e-12', 1, true) ~= nil and meta:find('"date": "', 1, true) ~= nil
         and meta:find('"params": {"m": 1, "l": 1, "g": 9.81}', 1, true) ~= nil,
         "sol:write: a JSON file beside it with model, parameters, method, options, h, steps, date")
local streamed = wb.integrate{model = m, method = rattle, h = 0.01, steps = 50, stream = "data/streamed.tsv"}
wb.check((read("data/streamed.tsv") or ""):match("^t\tq1") ~= nil and read("data/streamed.tsv.json") ~= nil,
         "stream =: the same header line and JSON file")
local back = wb.read_table("data/run.tsv")
wb.check(#back.t == 51 and back.q2[51] == sol:column("q2")[51], "wb.read_table reads the new files")
wb.write_file("data/old.tsv", "# t\tq1\n0\t1\n0.5\tnan\n")
local old = wb.read_table("data/old.tsv")
wb.check(old.columns[2] == "q1" and old.q1[1] == 1 and old.q1[2] ~= old.q1[2],
         "wb.read_table still reads files of earlier versions ('#' header), NaN included")
if os.execute("command -v gnuplot >/dev/null 2>&1") then
  local cmd = string.format("gnuplot -e \"set terminal dumb; set output '/dev/null'; plot '%s' using 1:3 title columnheader\" 2>&1",
                            wb.output_path("data/run.tsv"))
  local p = io.popen(cmd)
  local out = p:read("a")
  local ok = p:close()
  wb.check(ok and not out:find("warning", 1, true) and not out:find("error", 1, true),
           "gnuplot plots the file with its column header", out:sub(1, 120))
end

-- a plain tool reads both files: Python's csv and json modules (strict JSON:
-- no NaN or Infinity), the header as column names, the numbers as floats
if os.execute("command -v python3 >/dev/null 2>&1") then
  local py = [[
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
def strict(c): raise ValueError("not JSON: " + c)
meta = json.load(open(sys.argv[1] + ".json"), parse_constant=strict)
assert len(rows) == meta["rows"] == 51, len(rows)
assert list(rows[0]) == meta["columns"], (list(rows[0]), meta["columns"])
assert meta["params"] == {"m": 1, "l": 1, "g": 9.81} and meta["options"]["tol"] == 1e-12
print("read %d rows, q2 at the end %.17g" % (len(rows), float(rows[-1]["q2"])))
]]
  wb.write_file("data/read.py", py)
  local p = io.popen(string.format("python3 %s %s 2>&1", wb.output_path("data/read.py"),
                                   wb.output_path("data/run.tsv")))
  local out = p:read("a")
  local ok = p:close()
  local q2 = tonumber(out:match("q2 at the end (%S+)"))
  wb.check(ok and q2 == sol:column("q2")[51],
           "python3's csv and json modules read the data file and its metadata as they are",
           out:sub(1, 300))
  local spring = wb.define_model{name = "usability_spring", nq = 1, params = {k = {1, min = 0}},
                                 potential = function(q, P) return P.k * q[1] ^ 2 / 2 end,
                                 initial = function() return {1}, {0} end}
  wb.integrate{model = wb.model("usability_spring", {k = math.huge}), method = "verlet",
               h = 0.01, steps = 2, on_failure = "stop"}:write("data/inf.tsv")
  local strict = io.popen(string.format("python3 -c 'import json, sys\ndef bad(c): raise ValueError(c)\njson.load(open(sys.argv[1]), parse_constant=bad)' %s 2>&1",
                                        wb.output_path("data/inf.tsv.json")))
  local said = strict:read("a")
  wb.check(strict:close(), "a non-finite parameter or energy is null in the JSON, not Infinity",
           said:sub(1, 200))
end

-- consistent initial states
local msg = expect_error(function()
  wb.integrate{model = m, method = "hbvm", h = 0.01, steps = 10, q0 = {0, -1.1}, p0 = {1, 0}}
end, "not consistent with model 'pendulum'", "an initial state off the constraint is refused")
wb.check(msg:find("m:project", 1, true) and msg:find("distance from g(q) = 0", 1, true) ~= nil,
         "the refusal gives the residual and points to m:project", msg)
local qc, pc = m:project({0, -1.1}, {1, 0})
local ok = pcall(wb.integrate, {model = m, method = "hbvm", h = 0.01, steps = 10, q0 = qc, p0 = pc})
wb.check(ok, "the projected state is taken")
local taken = wb.integrate{model = m, method = "hbvm", h = 0.01, steps = 10, q0 = {0, -1.1},
                           p0 = {1, 0}, consistency_tol = false}
wb.check(taken.ok, "consistency_tol = false takes the state as it is")
local q0 = {math.sin(0.3), -math.cos(0.3)}
local only_q = wb.integrate{model = m, method = rattle, h = 0.01, steps = 10, q0 = q0}
local qs, ps = only_q:state(1)
local gv = m:hidden_constraints(qs, ps)[1]
wb.check(qs[1] == q0[1] and math.abs(gv) < 1e-12,
         "q0 alone: the default p0 is projected onto the hidden constraint at q0",
         string.format("G M^-1 p0 = %.1e", gv))
expect_error(function() wb.integrate{model = m, method = rattle, h = 0.01, steps = 10, q0 = {0.3, -0.5}} end,
             "q0 must lie on the constraints", "q0 alone off the constraint is refused")
local half = wb.integrate{model = m, method = wb.method("rk4"), h = 0.01, steps = 100}
local qh, ph, aux = half:final()
local cont = wb.integrate{model = m, method = wb.method("rk4"), h = 0.01, steps = 10, q0 = qh,
                          p0 = ph, aux0 = aux, t0 = half.t_final}
wb.check(cont.ok, "a continued run (aux0) takes a drifted state as it is")

-- solver defaults that work in ordinary use, and a failure that says what
-- to change
do
  local spark = wb.integrate{model = m, method = wb.method("spark"), h = 3.9e-5, steps = 200,
                             every = 200, on_failure = "stop"}
  wb.check(spark.ok and spark:max("constraint") < 1e-12,
           "SPARK's default tolerance converges at h = 3.9e-5", spark.failure)
  local radau = wb.integrate{model = wb.model("kepler", {e = 0.6}),
                             method = wb.method("rk", {tableau = wb.tableau.radau_iia(2)}),
                             h = 0.1, t_end = 20, every = 200, on_failure = "stop"}
  wb.check(radau.ok, "Radau IIA (2 stages) converges on the Kepler orbit e = 0.6 at h = 0.1",
           radau.failure)
  local failed = wb.integrate{model = wb.model("kepler", {e = 0.9}),
                              method = wb.method("rk", {tableau = wb.tableau.radau_iia(2)}),
                              h = 0.5, steps = 4, on_failure = "stop"}
  wb.check(not failed.ok and failed.failure:find("to converge: reduce h (now 0.5), raise max_iter (now 50)", 1, true)
           and failed.failure:find('iteration = "newton"', 1, true) ~= nil,
           "a step that does not converge says which of h and the method's options to change",
           failed.failure)
  local rattle_failed = wb.integrate{model = m, method = wb.method("rattle", {max_iter = 2}),
                                     h = 3, steps = 2, q0 = {1, 0}, p0 = {0, 3},
                                     on_failure = "stop"}
  wb.check(not rattle_failed.ok
           and rattle_failed.failure:find("raise max_iter (now 2), loosen tol (now 1e-12)", 1, true) ~= nil,
           "and names the options this method has (RATTLE: no iteration option)",
           rattle_failed.failure)
  -- max_iter = 0 is a method's own default (vi: 60 sweeps), not zero sweeps
  local vi_failed = wb.integrate{model = m, method = wb.method("vi"), h = 3, steps = 2,
                                 q0 = {1, 0}, p0 = {0, 3}, on_failure = "stop"}
  wb.check(not vi_failed.ok
           and vi_failed.failure:find("raise max_iter (now 0: the method's default)", 1, true) ~= nil,
           "a max_iter of 0 is named as the method's default", vi_failed.failure)
end

-- steps = wherever h = is
local by_steps = wb.integrate{model = m, method = rattle, t_end = 1, steps = 40}
wb.check(by_steps.h == 1 / 40 and by_steps.t_final == 1, "wb.integrate{t_end =, steps =}: h = t_end / steps")
expect_error(function() wb.integrate{model = m, method = rattle, h = 0.1, t_end = 1, steps = 3} end,
             "give two of h, steps and t_end", "h, t_end and steps together are refused")
local r = wb.order{model = m, method = rattle, t_end = 1, steps = {10, 20, 40}, reference = {steps = 640}}
wb.expect_near(r.order, 2, 0.1, "wb.order{steps = {...}}: RATTLE's order from step counts")
wb.check(r.h[1] == 0.1, "the step counts become step sizes", tostring(r.h[1]))

-- honest metadata
expect_error(function() wb.method("rk", {tableau = "lobatto_iiia_iiib2"}) end,
             "is a partitioned pair", "rk refuses a partitioned pair instead of using its first half")
local hbvm = wb.method("hbvm", {k = 2, s = 2})
wb.check(hbvm.order == 2 and hbvm:describe_for(wb.model("kepler")).order == 4
         and hbvm:describe_for(m).order == 2,
         "HBVM(2,2): order 2 with constraints, 4 without (describe_for)")

-- errors name the script's line and the argument
local err = expect_error(function() wb.order{model = m, method = rattle, t_end = 1, h = {0.1, 0.05},
                                             reference = {h = 0.3}} end,
                         "usability.lua:", "an error inside wb.order points at the script's line")
wb.check(not err:find("workbench.lua", 1, true), "and not at the workbench's own file", err)
expect_error(function() wb.plot{file = "x.png", series = {{x = {1}, y = {1}}}, xlable = "t"} end,
             "no field 'xlable'", "wb.plot refuses an unknown field")
expect_error(function() wb.plot{file = "x.png", series = {{x = {1}, y = {1}, titel = "a"}}} end,
             "series 1 has no field 'titel'", "wb.plot refuses an unknown series field")
expect_error(function() wb.expect_near(1, 1, "0.1", "x") end, "argument 3 (tol)",
             "wb.expect_near names a wrong argument")
expect_error(function() wb.expect_below("1", 2, "x") end, "argument 1 (value)",
             "wb.expect_below names a wrong value")
