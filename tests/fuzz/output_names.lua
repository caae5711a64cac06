-- Outputs whose names are not plain ASCII text: a file name in Latin-1, a
-- tableau name cut at its 63 bytes in the middle of a character, labels
-- with quotes, tabs and newlines.  Written here; output_readers.sh reads
-- every file back with python's strict json and csv readers.
local m = wb.model(arg[1] or "kepler")
local latin1 = "caf\233"                              -- "café" in Latin-1: no UTF-8
local cut = string.rep("a", 62) .. "\195\169"         -- "é" across the 63-byte cut
local T = wb.tableau{name = cut, a = {{0.5}}, b = {1}, c = {0.5}}
local rk = wb.method("rk", {tableau = T})
local sol = wb.integrate{model = m, method = rk, h = 0.01, steps = 20}
sol:write(latin1 .. ".tsv")
wb.integrate{model = m, method = rk, h = 0.01, steps = 20, stream = latin1 .. "_stream.tsv"}
wb.check(T.name == string.rep("a", 62), "the tableau's name is cut before the character",
         #T.name .. " bytes")

-- labels that would break a line or open a quoted field
wb.work_precision{model = wb.model("pendulum"), t_end = 0.1, h = {0.05, 0.02}, reference = {h = 0.001},
                  table = "work_precision.tsv",
                  methods = {{method = wb.method("rattle"), label = '"quoted" at the start'},
                             {method = wb.method("shake"), label = "tab\there, new\nline, \\"}}}
local back = {}
for line in io.lines(wb.output_path("work_precision.tsv")) do back[#back + 1] = line end
wb.check(#back == 5, "work_precision.tsv: a header and 4 rows, one line each", #back .. " lines")
wb.check(wb._tsv_untext(back[2]:match("^[^\t]*")) == '"quoted" at the start',
         "a label that begins with a quote reads back")
wb.check(wb._tsv_untext(back[4]:match("^[^\t]*")) == "tab\there, new\nline, \\",
         "a label with a tab, a newline and a backslash reads back")

-- a sweep's table (T:write) and its results file: labels that would open a
-- quoted field or read back as a number, and a quote in the middle
local labels = {'"quoted" at the start', 'in "the" middle', "007", '"', "caf\233 (Latin-1)"}
local cases = {}
for i, label in ipairs(labels) do cases[i] = {label = label, k = i} end
local T = wb.sweep{cases = cases, jobs = 1, out = "sweep_results.tsv", fresh = true,
                   run = function(case) return {square = case.k * case.k} end}
T:write("sweep_table.tsv")
local read = wb.read_results(wb.output_path("sweep_table.tsv"))
local same = #read == #labels
for i, label in ipairs(labels) do
  local row = read:select{label = label}
  same = same and #row == 1 and row[1].square == i * i
end
wb.check(same, "T:write: every label reads back as written", #read .. " rows")
