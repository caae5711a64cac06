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
