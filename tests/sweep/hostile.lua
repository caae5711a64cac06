-- Issue 25, "sweeps that mix their cases", the parts one process shows:
-- values read back as written (type included), results named like case
-- fields refused, a last row cut short left out, a timed-out case's
-- programs ended with it.  The parts that need several processes are
-- tests/sweep/hostile.sh.

local function text_of(path)
  local f = assert(io.open(wb.output_path(path), "r"))
  local text = f:read("a")
  f:close()
  return text
end

local function write_text(path, text)
  local f = assert(io.open(wb.output_path(path), "w"))
  f:write(text)
  f:close()
end

-- every line of a results file whole: as many cells as the header, and a
-- newline at the end
local function well_formed(path)
  local text = text_of(path)
  if text:sub(-1) ~= "\n" then return false, "no newline at the end" end
  local width
  for line in text:gmatch("([^\n]*)\n") do
    local cells = select(2, line:gsub("\t", "")) + 1
    width = width or cells
    if cells ~= width then return false, "a line of " .. cells .. " cells, the header " .. width end
  end
  return true, ""
end

-- 1. strings that look like numbers, booleans, lists; floats with integral
-- values; the empty string: each read back as itself, type included
local labels = {"007", "1.0", "true", "nan", "[1,2]", "1e2", "-0", "", '"quoted"', "x\ty"}
local values = {}
for i, s in ipairs(labels) do values[i] = {label = s, x = i + 0.0} end
values[#values + 1] = {label = 7, x = 1}
local out = "strings.tsv"
os.remove(wb.output_path(out))
local T = wb.sweep{cases = values, out = out, jobs = 2, progress = false,
                   run = function(c) return {echo = c.label, half = c.x / 2} end}
local back = wb.read_results(out)
local same, detail = #T == #values and #back == #values, ""
for i, c in ipairs(values) do
  for _, row in ipairs{T[i], back[i]} do
    local ok = row.label == c.label and math.type(row.label) == math.type(c.label)
               and row.echo == c.label and math.type(row.x) == math.type(c.x)
    if not ok then
      same = false
      detail = detail .. string.format(" case %d: %s %s read back as %s %s;", i, type(c.label),
                                       tostring(c.label), type(row.label), tostring(row.label))
    end
  end
end
wb.check(same, "string, integer and float fields read back as written, type included", detail)
local found = back:select{label = "007"}
wb.check(#found == 1 and found[1].x == 1.0, "select{label = '007'} finds its row",
         #found .. " rows")
local reran = 0
wb.sweep{cases = values, out = out, jobs = 2, progress = false,
         run = function() return {echo = "again", half = 0} end}
for _, row in ipairs(wb.read_results(out)) do reran = reran + (row.echo == "again" and 1 or 0) end
wb.check(reran == 0, "a rerun finds every case done and runs none", reran .. " ran again")

-- 2. a result named like a case field is refused: a rerun of h = 0.05
-- would otherwise find the row of h = 0.1
local steps = {{h = 0.1}, {h = 0.05}}
local N = wb.sweep{cases = steps, jobs = 1, progress = false,
                   run = function(c) return {h = 0.1, error = c.h ^ 2} end}
wb.check(N[1].status == "error" and N[2].status == "error"
         and tostring(N[2].failure):find("'h', a field of the cases", 1, true) ~= nil
         and N[2].h == 0.05,
         "a result named like a case field: the case fails with the reason, its h kept",
         tostring(N[2].status) .. " h = " .. tostring(N[2].h) .. ": " .. tostring(N[2].failure))
local refused, why = pcall(wb.sweep, {cases = {{status = "draft"}}, progress = false,
                                       run = function() return {} end})
wb.check(not refused and tostring(why):find("case 1 has a field 'status'", 1, true) ~= nil,
         "a case field named like a status column refused", tostring(why))

-- 3. a last row cut short (a full disk, a file-size limit) is left out,
-- with a message, and a rerun starts its rows on a line of their own
local cut = "cut.tsv"
write_text(cut, "k\tsquare\tstatus\tseconds\tfailure\tcase_key\n"
                .. "1\t1\tok\t0.5\t\tk\\t1\n2\t4\tok\t0.5\t\tk\\t2\n3\t9.00000")
local R = wb.read_results(cut)
wb.check(#R == 2 and R[2].square == 4, "wb.read_results leaves out the row cut short",
         #R .. " rows; the last: square = " .. tostring(R[#R] and R[#R].square))
local squares = {{k = 1}, {k = 2}, {k = 3}, {k = 4}}
local calls = 0
local S = wb.sweep{cases = squares, out = cut, jobs = 1, progress = false,
                   run = function(c) calls = calls + 1; return {square = c.k * c.k} end}
local ok_form, form = well_formed(cut)
local again = wb.read_results(cut)
wb.check(ok_form and #again == 4 and again[3].square == 9 and S[3].square == 9,
         "the cut row's case runs again; the file holds whole rows", form)
write_text(cut, "k\tsquare\tstatus\tseconds\tfailure\tcase_key\n1\t1\tok\t0.5\t\tk\\t1\n"
                .. "2\t43\t9\tok\t0.5\t\tk\\t2\n")
local damaged, message = pcall(wb.read_results, cut)
wb.check(not damaged and tostring(message):find("line 3 has 7 cells, its header 6", 1, true) ~= nil,
         "a row of another width is refused with its line", tostring(message))

-- 4. a timed-out case's program ends with it, and the sweep does not wait
-- for the program
local pid_file = wb.output_path("sleeper.pid")
os.remove(pid_file)
local started = wb.clock()
local timed = wb.sweep{cases = {{k = 1}}, jobs = 1, timeout = 1, progress = false,
                       run = function()
                         os.execute("echo $$ > '" .. pid_file .. "'; exec sleep 6")
                         return {}
                       end}
local took = wb.clock() - started
local f = io.open(pid_file, "r")
local pid = f and f:read("l")
if f then f:close() end
local function alive(p)
  local stat = p and io.open("/proc/" .. p .. "/stat", "r")
  if not stat then return false end
  local state = stat:read("a"):match("^%d+ %b() (%a)")
  stat:close()
  return state ~= "Z" and state ~= "X"
end
wb.check(timed[1].status == "timeout" and took < 4,
         "a timed-out case that started a program ends at its timeout",
         string.format("%s after %.1f s", tostring(timed[1].status), took))
-- signalled, it may take a moment to go
local gone = wb.clock()
while pid and alive(pid) and wb.clock() - gone < 1 do os.execute("sleep 0.05") end
wb.check(pid ~= nil and not alive(pid), "the program it started is ended too",
         "sleep's pid " .. tostring(pid))

-- 5. a case whose fields changed is another case: with a field removed
-- (tol) a rerun must not take the row of {h, tol} for {h} (it did before the
-- rows carried their case's key), nor with one added; an out without keys
-- is refused, not matched by the fields the cases hold now.  (run counts
-- its case's fields: the runs happen in worker processes.)
do
  local out = "fields.tsv"
  os.remove(wb.output_path(out))
  local function run(c)
    local fields = 0
    for _ in pairs(c) do fields = fields + 1 end
    return {used = c.tol or -1, fields = fields}
  end
  wb.sweep{cases = {{h = 0.1, tol = 1e-10}}, out = out, jobs = 1, progress = false, run = run}
  local fewer = wb.sweep{cases = {{h = 0.1}}, out = out, jobs = 1, progress = false, run = run}
  wb.check(fewer[1].used == -1 and fewer[1].fields == 1,
           "a field removed: the case runs, the row of {h, tol} is not taken for {h}",
           string.format("used = %s, fields = %s", tostring(fewer[1].used),
                         tostring(fewer[1].fields)))
  local again = wb.sweep{cases = {{h = 0.1}}, out = out, jobs = 1, progress = false, run = run}
  wb.check(again[1].seconds == fewer[1].seconds, "the same case again: its row is found by its key",
           string.format("seconds %s and %s", tostring(again[1].seconds),
                         tostring(fewer[1].seconds)))
  local more = wb.sweep{cases = {{h = 0.1, tol = 1e-10, s = 3}}, out = out, jobs = 1,
                        progress = false, run = run}
  wb.check(more[1].fields == 3, "a field added: the case runs again",
           "fields = " .. tostring(more[1].fields))
  write_text(out, "h\tused\tstatus\tseconds\tfailure\n0.1\t-1\tok\t0.5\t\n")
  local taken, why = pcall(wb.sweep, {cases = {{h = 0.1}}, out = out, jobs = 1,
                                      progress = false, run = run})
  wb.check(not taken and tostring(why):find("has no case_key column", 1, true) ~= nil,
           "an out without case keys is refused with the way out", tostring(why))
end

-- 6. cases that differ only in fields outside the key (positional values,
-- method objects): one key, so a rerun or a merge would take one's row for
-- the other (a review of the keys found both); refused, naming them
do
  local function refused_with(cases)
    local ok, why = pcall(wb.sweep, {cases = cases, jobs = 1, progress = false,
                                     run = function() return {x = 1} end})
    return not ok and tostring(why):find("have the same key", 1, true) ~= nil, tostring(why)
  end
  local ok1, why1 = refused_with({{0.1}, {0.2}, {0.4}})
  wb.check(ok1, "positional cases of one key refused", why1)
  local ok2, why2 = refused_with({{h = 0.1, method = wb.method("classic.rattle")},
                                  {h = 0.1, method = wb.method("classic.shake")}})
  wb.check(ok2 and why2:find("cases 1 and 2", 1, true) ~= nil,
           "cases differing only in a method object refused, naming them", why2)
  local fine = wb.sweep{cases = {{h = 0.1, label = "rattle"}, {h = 0.1, label = "shake"}},
                        jobs = 1, progress = false, run = function(c) return {x = #c.label} end}
  wb.check(#fine == 2 and fine[1].x == 6 and fine[2].x == 5,
           "a field that differs tells them apart", #fine .. " rows")
end
