-- One regression check (or several) per class of defect issue 13 found in
-- the Lua API; the command line, plugins, gnuplot and temporary files have
-- their own tests in this folder.
local huge = math.huge
local function fails(f, part, message)
  local ok, err = pcall(f)
  return wb.check(not ok and tostring(err):find(part, 1, true) ~= nil, message, tostring(err))
end

---------------------------------------------------------------------------
-- Lifetimes: objects hold what they use by reference; metatables are
-- protected; a finalizer called by hand (debug.getmetatable) leaves every
-- other object sound.
---------------------------------------------------------------------------
local m = wb.model("pendulum")
local rattle = wb.method("rattle")
local T = wb.tableau{a = {{0.5}}, b = {1}, name = "mid"}
local sol = wb.integrate{model = m, method = rattle, h = 0.01, t_end = 0.1}
for what, object in pairs{model = m, method = rattle, solution = sol, tableau = T} do
  wb.check(getmetatable(object) == false, what .. ": getmetatable gives false")
  fails(function() setmetatable(object, {}) end, "", what .. ": setmetatable refused")
end
debug.getmetatable(m).__gc(m)
debug.getmetatable(m).__gc(m) -- twice: nothing to free the second time
local g1 = sol:column("g1")   -- derived from the model, after its finalizer
wb.check(#g1 == 11 and math.abs(g1[11]) < 1e-10,
         "a solution still answers derived columns after its model's __gc ran")
fails(function() return m:energy({1, 0}, {0, 0}) end, "already been finalized",
      "the finalized model refuses to answer")
fails(function() return wb.integrate{model = m, method = rattle, h = 0.1, steps = 1} end,
      "already been finalized", "a finalized model cannot be integrated")
debug.getmetatable(rattle).__gc(rattle)
fails(function() return rattle.order end, "already been finalized", "the finalized method refuses")
local m2 = wb.model("kepler")
fails(function() return wb.integrate{model = m2, method = rattle, h = 0.1, steps = 1} end,
      "already been finalized", "a finalized method cannot be integrated")
debug.getmetatable(sol).__gc(sol)
debug.getmetatable(sol).__gc(sol)
fails(function() return sol:column("q1") end, "already been finalized",
      "the finalized solution refuses")
local rk = wb.method("rk", {tableau = T})
debug.getmetatable(T).__gc(T)
debug.getmetatable(T).__gc(T)
fails(function() return T:order() end, "already been finalized", "the finalized tableau refuses")
fails(function() return wb.method("rk", {tableau = T}) end, "already been finalized",
      "a finalized tableau as an option is refused (api_fuzz.lua, seed 1, call 12929: crashed)")
local run = wb.integrate{model = m2, method = rk, h = 0.01, steps = 10}
wb.check(run.n == 11 and rk.options.tableau.name == "mid",
         "a method still holds its tableau after the tableau object's __gc ran")

-- Tableau objects are freed: 20000 in a loop leave nothing behind.
collectgarbage()
local live = wb.tableau._live()
for i = 1, 20000 do
  local t = wb.tableau{a = {{0.5}}, b = {1}, name = "loop" .. i % 10}
  if i % 4 == 0 then local c = wb.tableau.compose(t, {0.5, 0.5}) end
  if i % 100 == 0 then local r = wb.method("rk", {tableau = t}) end
end
collectgarbage()
collectgarbage()
wb.check(wb.tableau._live() <= live, "25000 tableaux made in a loop are all freed",
         string.format("%d alive before, %d after", live, wb.tableau._live()))

---------------------------------------------------------------------------
-- Output paths: empty, a folder, a NUL byte; an existing folder or device
-- as a target; refused with a message, never a read past a buffer.
---------------------------------------------------------------------------
local pm = wb.model("pendulum")
local small = wb.integrate{model = pm, method = "rattle", h = 0.01, t_end = 0.02}
for _, bad in ipairs{"", "folder/", ".", "..", "a/..", "nul\0byte"} do
  local shown = string.format("%q", bad)
  local ok1 = pcall(wb.write_file, bad, "x")
  local ok2 = pcall(small.write, small, bad)
  local ok3 = pcall(wb.integrate, {model = pm, method = "rattle", h = 0.01, t_end = 0.02,
                                   stream = bad})
  wb.check(not ok1 and not ok2 and not ok3,
           "file name " .. shown .. " refused by write_file, sol:write and stream")
end
wb.write_file("a_folder/inside.txt", "x")
fails(function() wb.integrate{model = pm, method = "rattle", h = 0.01, t_end = 1e3,
                              stream = "a_folder"} end,
      "it is a folder", "a stream into an existing folder is refused before the run")
fails(function() wb.write_file("/dev/null", "x") end, "not a regular file",
      "a device as a target is refused (renaming onto it would replace it)")

---------------------------------------------------------------------------
-- Counts beyond 2^53 (and 2^63): refused or clamped, never cast blindly.
---------------------------------------------------------------------------
for _, steps in ipairs{2^63, 2^64, 1e300, 2^53 + 2, math.maxinteger} do
  fails(function() wb.integrate{model = pm, method = "rattle", h = 0.01, steps = steps} end,
        "exceeds 2^53", string.format("steps = %.17g refused", steps))
end
fails(function() wb.integrate{model = pm, method = "rattle", h = 1e-300, t_end = 1e300} end,
      "more than 2^53", "t_end / h beyond 2^53 refused")
fails(function() wb.integrate{model = pm, method = "rattle", h = 1e-300, t0 = -1e308,
                              t_end = 1e308} end,
      "more than 2^53", "t_end - t0 overflowing refused")
local few = wb.integrate{model = pm, method = "rattle", h = 0.01, steps = 3, every = 2^63}
wb.check(few.n == 2, "every = 2^63 records the first and the last row", tostring(few.n))
fails(function() return wb.tableau.gauss(2^32 + 2) end, "out of range",
      "wb.tableau.gauss(2^32 + 2) is not Gauss 2")
fails(function() return wb.tableau.gauss(2):defect_B(2^40) end, "out of range",
      "T:defect_B(2^40) refused")

---------------------------------------------------------------------------
-- energy_error against a scale that is not round-off.
---------------------------------------------------------------------------
local ts = wb.integrate{model = wb.model("tethered_satellites"), method = "rattle", h = 0.01,
                        t_end = 1}
wb.check(math.abs(ts.energy0) < 1e-15 and ts.energy_scale > 0.1,
         "tethered satellites: E0 is round-off, the scale |T0| + |V0| is not",
         string.format("E0 %.3g, scale %.3g", ts.energy0, ts.energy_scale))
wb.expect_below(ts:max("energy_error"), 1e-7, "tethered satellites: relative energy error small")
wb.expect_near(ts:max("energy_error") * ts.energy_scale, ts:max("energy_error_abs"),
               1e-20, "energy_error = energy_error_abs / energy_scale")

---------------------------------------------------------------------------
-- wb.read_table keeps NaN and the infinities; a bad field is an error.
---------------------------------------------------------------------------
wb.write_file("special.tsv", "# a\tb\n1\tnan\n-inf\tinf\n-nan\t9.69\n")
local tab = wb.read_table("special.tsv")
wb.check(#tab.a == 3 and #tab.b == 3 and tab.a[2] == -huge and tab.b[2] == huge
         and tab.b[1] ~= tab.b[1] and tab.a[3] ~= tab.a[3],
         "nan, -nan, inf, -inf read back as NaN and the infinities")
local mx = wb.max_abs(tab.b)
wb.check(mx ~= mx, "wb.max_abs keeps the NaN of a column read back")
local streamed = wb.integrate{model = pm, method = "rattle", h = 0.01, t_end = 0.1,
                              stream = "rattle.tsv"}
local back = wb.read_table("rattle.tsv")
wb.check(#back.lambda == streamed.n and back.lambda[1] ~= back.lambda[1],
         "a streamed run reads back whole, its interval multiplier NaN at t0 kept",
         string.format("%d values for %d rows", #back.lambda, streamed.n))
wb.write_file("junk.tsv", "# a b\n1 2\n3 x7\n")
fails(function() wb.read_table("junk.tsv") end, "line 3: 'x7' in column 'b' is not a number",
      "a field that is not a number names the line")
wb.write_file("short.tsv", "# a b\n1 2\n3\n")
fails(function() wb.read_table("short.tsv") end, "line 3: 1 values for the 2 columns",
      "a short row names the line")

---------------------------------------------------------------------------
-- Tableau files: an arithmetic grammar with limits, no code.
---------------------------------------------------------------------------
local function load_text(text)
  wb.write_file("t.tab", text)
  return pcall(wb.tableau.load, wb.output_path("t.tab"))
end
local ok_t, mid = load_text("name tf_mid\na\n 2^-1\nb\n +1\n")
wb.check(ok_t and mid.a[1][1] == 0.5 and mid.name == "tf_mid", "2^-1 and +1 parse")
local ok_g, g2 = load_text("a\n 1/4 1/4-sqrt(3)/6\n 1/4+sqrt(3)/6 1/4\nb\n 1/2 1/2\n")
wb.check(ok_g and math.abs(g2.a[1][2] - (0.25 - math.sqrt(3) / 6)) < 1e-16 and g2:order() == 4,
         "Gauss 2 with sqrt expressions")
local start = wb.clock()
for _, case in ipairs{
    {"a\n " .. ("("):rep(40) .. "1" .. (")"):rep(40) .. "\nb\n 1\n", "nested too deeply"},
    {"a\n " .. ("-"):rep(40) .. "1\nb\n 1\n", "nested too deeply"},
    {"a\n " .. ("1+"):rep(200) .. "1\nb\n 1\n", "longer than 256 bytes"},
    {"a\n string.rep('x',2^40)\nb\n 1\n", "unknown name"},
    {"a\n (function()while(true)do(end)end)()\nb\n 1\n", "unknown name"},
    {"a\n 0x10\nb\n 1\n", "unexpected character"},
    {"a\n 1/0\nb\n 1\n", "division by zero"},
    {"a\n 9^9^9\nb\n 1\n", "not finite"},
    {"a\n log(0)\nb\n 1\n", "not finite"},
    {"a\n 1e\nb\n 1\n", "an exponent needs digits"},
    {"a\n ()\nb\n 1\n", "a number, a function or '(' expected"},
    {"a\n sqrt 2\nb\n 1\n", "'(' expected after the function name"},
    {"a\n nan\nb\n 1\n", "unknown name"},
    {"a\n 1\nb\n 1\nb\n 1\n", "block 'b' is given twice"},
    {"a\n 1 2\nb\n 1\n", "a must be square"},
    {"b\n 1\n", "blocks a and b are required"},
    {"1 2\n", "numbers before any block"},
    {"a 1\nb\n 1\n", "put the numbers of 'a' on the lines after it"},
    {"a\n" .. (" 0"):rep(70) .. "\nb\n 1\n", "more than 64 entries"},
    {"a\n 1\nb\n 1\n" .. ("#"):rep(5000) .. "\n", "longer than 4096 bytes"},
    {"a\n 1\0\nb\n 1\n", "holds a NUL byte"},
    {"name gauss2\na\n 1\nb\n 1\n", "belongs to a built-in tableau"},
  } do
  local ok, err = load_text(case[1])
  wb.check(not ok and tostring(err):find(case[2], 1, true), "tableau file refused: " .. case[2],
           tostring(err))
end
wb.write_file("big.tab", ("#"):rep(4000) .. "\n" .. (("0 "):rep(1000) .. "\n"):rep(600))
fails(function() wb.tableau.load(wb.output_path("big.tab")) end, "larger than 1048576 bytes",
      "a tableau file over 1 MB is refused")
if os.execute("mkfifo " .. wb.output_path("fifo.tab") .. " 2>/dev/null") then
  fails(function() wb.tableau.load(wb.output_path("fifo.tab")) end, "not a regular file",
        "a FIFO as a tableau file is refused without waiting for a writer")
end
wb.expect_below(wb.clock() - start, 5, "every hostile tableau file is refused at once (seconds)")
