-- Run by file_size_limit.sh under a file-size limit (ulimit -f) of some
-- 32 to 64 KB: every writer fails with "File too large" instead of the
-- process dying of SIGXFSZ; an atomic writer leaves the file it replaces
-- as it was, a stream keeps its header and its complete rows (issue 25).
local m, rattle = wb.model("pendulum"), wb.method("rattle")
local function read(path)
  local f = assert(io.open(wb.output_path(path), "rb"))
  local text = f:read("a")
  f:close()
  return text
end
local too_large = "failed: File too large"

-- a stream of 10^5 rows (some 25 MB): whole rows kept, never a part of one
local function check_stream(path, sol, message)
  local text = read(path)
  local lines, widths = 0, {}
  for line in text:gmatch("([^\n]*)\n") do
    lines = lines + 1
    local _, tabs = line:gsub("\t", "")
    widths[tabs] = true
  end
  local width_count = 0
  for _ in pairs(widths) do width_count = width_count + 1 end
  wb.check(message:find("writing '" .. wb.output_path(path) .. "' " .. too_large, 1, true),
           path .. ": the write failed with its reason", message)
  wb.check(text:sub(-1) == "\n" and width_count == 1 and lines > 10,
           path .. ": the header and whole rows, every line as wide as the header",
           #text .. " bytes")
  local kept = tonumber(message:match("the (%d+) complete rows before it"))
  wb.check(kept == lines - 1, path .. ": the message counts the rows kept",
           string.format("%s rows said, %d in the file", tostring(kept), lines - 1))
  local meta = read(path .. ".json")
  wb.check(meta:find('"rows": ' .. (lines - 1), 1, true) and meta:find('"ok": false', 1, true),
           path .. ".json: ok false, the rows kept")
  if sol then wb.check(sol.n == lines - 1, path .. ": sol.n is the rows kept", sol.n) end
end

local ok, err = pcall(wb.integrate, {model = m, method = rattle, h = 1e-3, steps = 100000,
                                     stream = "stream.tsv"})
wb.check(not ok, "stream = : the run stops with an error at the failed write", tostring(err))
check_stream("stream.tsv", nil, tostring(err))

local sol = wb.integrate{model = m, method = rattle, h = 1e-3, steps = 100000,
                         stream = "stopped.tsv", on_failure = "stop"}
wb.check(sol.ok == false, "stream = with on_failure = 'stop': sol.ok is false")
check_stream("stopped.tsv", sol, tostring(sol.failure))

-- atomic writers: the file they replace is kept as it was, whole
local function check_kept(what, path, write)
  local ok, err = pcall(write)
  wb.check(not ok and tostring(err):find("writing '" .. wb.output_path(path) .. "' " ..
                                         too_large, 1, true), what .. ": refused, with the reason",
           tostring(err))
  wb.check(read(path) == "old\n", what .. ": the earlier file is kept as it was")
end

local big = wb.integrate{model = m, method = rattle, h = 1e-3, steps = 5000}
wb.write_file("solution.tsv", "old\n")
check_kept("sol:write", "solution.tsv", function() big:write("solution.tsv") end)
wb.write_file("text.txt", "old\n")
check_kept("wb.write_file", "text.txt", function() wb.write_file("text.txt", ("x"):rep(1 << 20)) end)
wb.write_file("table.tsv", "old\n")
wb.write_file("small.tsv", "n\tname\n1\tone\n")
local T = wb.read_results("small.tsv")
for i = 2, 20000 do T[i] = {n = i, name = "row " .. i} end
check_kept("T:write", "table.tsv", function() T:write("table.tsv") end)
