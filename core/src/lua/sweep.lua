-- sweep.lua -- wb.sweep: many independent runs, one worker process each,
-- merged into one table (embedded in the binary; the pool of workers is C,
-- core/src/lua/lua_sweep.c).
--
--   local T = wb.sweep{
--     cases = {{h = 0.1, method = "rattle"}, ...}   -- or a generator function
--     run = function(case) ... return {error = e, steps = n} end,
--     jobs = 2,                 -- worker processes (default: every core)
--     out = "results.tsv",      -- rows written as cases finish; rerunning
--                               -- skips the cases already there (fresh = true
--                               -- or --fresh redoes them)
--     timeout = 60,             -- seconds per case (default: none)
--   }
--
-- Each row holds the case's scalar fields (numbers, strings, booleans and
-- lists of numbers; any other table is passed to run but not recorded), then the values
-- run returned, then status ("ok", "error", "crashed", "timeout"), seconds
-- and failure (the message of a failed case).  A failing case never stops the
-- others.  The same script runs under `workbench sweep` for the command
-- line, GNU parallel and Slurm (see `workbench sweep --help`).
--
-- A case is known by its key, its recorded fields with their values (type
-- included): a rerun skips a case whose key has an "ok" row in out, and a
-- result file of `--case I` carries the key of the case it ran, so that
-- --merge takes it for case I only when case I has that key.
local wb = ...

local format, concat = string.format, table.concat

---------------------------------------------------------------------------
-- Values in files and between processes: one line per value, tabs and
-- newlines escaped, every double exact (%.17g, inf, -inf, nan); a list of
-- numbers as [x1,x2,...].
---------------------------------------------------------------------------
local function is_number_list(v)
  if type(v) ~= "table" then return false end
  local n = 0
  for k, x in pairs(v) do
    if math.type(k) ~= "integer" or type(x) ~= "number" then return false end
    n = n + 1
  end
  return n == #v
end

-- a name or a string's text as one TSV cell (wb._tsv_text: backslash,
-- tab, newline, CR escaped; a cell that begins with a double quote written
-- as a CSV quoted field, so that python's csv and pandas read it as one)
local function escape(s)
  return wb._tsv_text(s)
end

local function unescape(s)
  return wb._tsv_untext(s)
end

local encode, decode

local function encode_list(v)
  local cells = {}
  for i, x in ipairs(v) do cells[i] = encode(x) end
  return "[" .. concat(cells, ",") .. "]"
end

-- A string that would read back as something else ("007", "1.0", "true",
-- "nan", "[1,2]", "") is written as a CSV quoted field, as one that begins
-- with a quote is.
local function encode_string(s)
  local text = escape(s)
  if text:sub(1, 1) ~= '"' and (text == "" or decode(text) ~= s) then
    return wb._tsv_text(s, true)
  end
  return text
end

function encode(v)
  local kind = type(v)
  if kind == "table" then return encode_list(v) end
  if kind == "number" then
    if math.type(v) == "integer" then return tostring(v) end
    if v ~= v then return "nan" end
    if v == math.huge then return "inf" end
    if v == -math.huge then return "-inf" end
    local text = format("%.17g", v)
    -- "1.0", not "1": a float reads back as a float
    return text:find("[.e]") and text or text .. ".0"
  elseif kind == "boolean" then
    return v and "true" or "false"
  end
  return encode_string(tostring(v))
end

local specials = {nan = 0 / 0, inf = math.huge, ["-inf"] = -math.huge, ["-0"] = -0.0,
                  ["true"] = true, ["false"] = false}

local function decode_list(s)
  local list = {}
  for cell in s:sub(2, -2):gmatch("[^,]+") do list[#list + 1] = decode(cell) end
  return list
end

function decode(s)
  if #s >= 2 and s:byte(1) == 34 and s:byte(-1) == 34 then return unescape(s) end
  if specials[s] ~= nil then return specials[s] end
  if s:match("^%[[-+%w.,]*%]$") then return decode_list(s) end
  if s:match("^[-+]?%d+$") then
    return math.tointeger(tonumber(s)) or tonumber(s)
  end
  if s:match("^[-+]?%d*%.?%d*[eE]?[-+]?%d*$") and s:match("%d") then
    local x = tonumber(s)
    if x then return x end
  end
  return unescape(s)
end

-- what a row records: numbers, strings, booleans and lists of numbers
local function is_scalar(v)
  local kind = type(v)
  return kind == "number" or kind == "string" or kind == "boolean" or is_number_list(v)
end

local function sorted_keys(t, keep)
  local keys = {}
  for k, v in pairs(t) do
    if type(k) == "string" and (not keep or keep(v)) then keys[#keys + 1] = k end
  end
  table.sort(keys)
  return keys
end

-- A result table sent from a worker: "key\tvalue" lines.
local function serialize(result)
  local lines = {}
  for _, k in ipairs(sorted_keys(result, is_scalar)) do
    lines[#lines + 1] = escape(k) .. "\t" .. encode(result[k])
  end
  return concat(lines, "\n")
end

local function deserialize(text)
  local result = {}
  for line in text:gmatch("[^\n]+") do
    local k, v = line:match("^([^\t]*)\t(.*)$")
    if k then result[unescape(k)] = decode(v) end
  end
  return result
end

---------------------------------------------------------------------------
-- The table of results: rows with methods.
---------------------------------------------------------------------------
local Table = {}
Table.__index = Table

local function new_table(rows, columns)
  rows.columns = columns
  return setmetatable(rows, Table)
end

-- T:column(name) -> the values of one column, in row order
function Table:column(name)
  local out = {}
  for i, row in ipairs(self) do out[i] = row[name] end
  return out
end

-- T:select(pred) with pred a function(row) -> bool or a table of
-- field = value that must all match
function Table:select(pred)
  local test = pred
  if type(pred) == "table" then
    test = function(row)
      for k, v in pairs(pred) do
        if row[k] ~= v then return false end
      end
      return true
    end
  end
  local rows = {}
  for _, row in ipairs(self) do
    if test(row) then rows[#rows + 1] = row end
  end
  return new_table(rows, self.columns)
end

-- T:group_by(field) -> list of {key = value, rows = T'} in first-seen order
function Table:group_by(field)
  local groups, by_key = {}, {}
  for _, row in ipairs(self) do
    local key = row[field]
    local id = encode(key)
    if not by_key[id] then
      by_key[id] = {key = key, rows = new_table({}, self.columns)}
      groups[#groups + 1] = by_key[id]
    end
    local rows = by_key[id].rows
    rows[#rows + 1] = row
  end
  return groups
end

-- T:fit_orders{h = "h", error = "error", by = "method" [, floor = ...]}
-- -> list of {key, order, used} per group (wb.fit_order per group)
function Table:fit_orders(spec)
  local h, err = spec.h or "h", spec.error or "error"
  local groups = spec.by and self:group_by(spec.by) or {{key = "all", rows = self}}
  local out = {}
  for _, g in ipairs(groups) do
    local ok = g.rows:select(function(row) return row.status == nil or row.status == "ok" end)
    local order, used = wb.fit_order(ok:column(h), ok:column(err), spec.floor)
    out[#out + 1] = {key = g.key, order = order, used = used}
  end
  return out
end

-- T:plot{file = ..., x = "h", y = "error", by = "method", ...}: one series
-- per group; every other field goes to wb.plot as it is
function Table:plot(spec)
  local options, series = {}, {}
  for k, v in pairs(spec) do
    if k ~= "x" and k ~= "y" and k ~= "by" then options[k] = v end
  end
  local groups = spec.by and self:group_by(spec.by) or {{key = spec.y, rows = self}}
  for _, g in ipairs(groups) do
    series[#series + 1] = {x = g.rows:column(spec.x), y = g.rows:column(spec.y),
                           title = tostring(g.key)}
  end
  options.series = series
  return wb.plot(options)
end

local function header_line(columns)
  local names = {}
  for i, c in ipairs(columns) do names[i] = escape(c) end
  return concat(names, "\t") .. "\n"
end

local function row_line(columns, row)
  local cells = {}
  for i, c in ipairs(columns) do
    local v = row[c]
    cells[i] = v == nil and "" or encode(v)
  end
  return concat(cells, "\t") .. "\n"
end

-- T:write(path): the table as a TSV file (header line, one row per line)
function Table:write(path)
  local lines = {header_line(self.columns)}
  for _, row in ipairs(self) do lines[#lines + 1] = row_line(self.columns, row) end
  wb.write_file(path, concat(lines))
end

---------------------------------------------------------------------------
-- Reading a results file back.
---------------------------------------------------------------------------
local function split_tabs(line)
  local cells = {}
  for cell in (line .. "\t"):gmatch("([^\t]*)\t") do cells[#cells + 1] = cell end
  return cells
end

-- columns and rows of a results file (nil when there is none), and the
-- text of a last row cut short, which is left out: every row is written
-- with its newline, so a last line without one is what a full disk or a
-- file-size limit stopped.  A row of another width than the header is
-- refused, not read: its values would land in other columns.
local function read_results(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  local partial
  if text ~= "" and text:sub(-1) ~= "\n" then
    local cut = text:find("[^\n]*$")
    partial, text = text:sub(cut), text:sub(1, cut - 1)
  end
  local columns, rows, number = nil, {}, 0
  for line in text:gmatch("([^\n]*)\n") do
    number = number + 1
    local cells = split_tabs(line)
    if line == "" then
      -- an empty line holds nothing
    elseif not columns then
      columns = {}
      for i, c in ipairs(cells) do columns[i] = unescape(c) end
    elseif #cells ~= #columns then
      error(format("'%s' line %d has %d cells, its header %d: a damaged row (two rows run "
                   .. "together after a write was cut short?); mend or remove it, or redo the "
                   .. "sweep with fresh = true", path, number, #cells, #columns), 0)
    else
      local row = {}
      for i, c in ipairs(columns) do
        if cells[i] ~= "" then row[c] = decode(cells[i]) end
      end
      rows[#rows + 1] = row
    end
  end
  return columns, rows, partial
end

-- A results file whose rows carry their cases' keys: a row is found again
-- by its case's key alone, so that a case whose fields changed (one added,
-- one removed) is another case, never an old row's.
local function keyed_file(columns, out)
  if not columns then return end
  for _, c in ipairs(columns) do
    if c == "case_key" then return end
  end
  error(format("wb.sweep: '%s' has no case_key column (written by an earlier workbench): its "
               .. "rows cannot be matched to their cases; give fresh = true to redo them, or "
               .. "another out", out), 0)
end

local function warn_partial(who, path, partial, what)
  io.stderr:write(format("%s: '%s' ends in a row cut short (%d bytes without a newline: a write "
                         .. "stopped by a full disk or a file-size limit?); %s\n", who, path,
                         #partial, what))
end

wb.read_results = function(path)
  local file = wb.output_path(path)
  local ok, columns, rows, partial = pcall(read_results, file)
  if not ok then error("wb.read_results: " .. tostring(columns), 2) end
  if not columns then error("wb.read_results: cannot read '" .. tostring(path) .. "'", 2) end
  if partial then warn_partial("wb.read_results", file, partial, "it is left out") end
  return new_table(rows, columns)
end

---------------------------------------------------------------------------
-- Cases.
---------------------------------------------------------------------------
-- the names a row keeps for itself: its verdict, and its case's key (what
-- a rerun finds the row by: a case whose fields changed is another case)
local STATUS_COLUMNS = {"status", "seconds", "failure", "case_key"}
local RESERVED = {status = true, seconds = true, failure = true}

local case_id, show_id -- below

-- Two different cases of one key could not be told apart by a rerun or a
-- merge (a field that is no recorded scalar -- a method object, a
-- positional value -- is no part of the key): refused, naming them.  The
-- same case twice is allowed (each row is that case's).
local function same_case(a, b)
  for k, v in pairs(a) do
    if not rawequal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

local function check_keys(list)
  local seen = {}
  for i, case in ipairs(list) do
    local id = case_id(case)
    if seen[id] and not same_case(list[seen[id]], case) then
      error(format("wb.sweep: cases %d and %d have the same key (%s): a rerun or a merge could "
                   .. "not tell them apart (fields that are no string-named number, string or "
                   .. "boolean, such as a method object, are no part of it); give each case a "
                   .. "field that differs (label = ...)", seen[id], i, show_id(id)), 5)
    end
    seen[id] = i
  end
end

local function check_fields(list)
  for i, case in ipairs(list) do
    for _, k in ipairs(STATUS_COLUMNS) do
      if case[k] ~= nil then
        error(format("wb.sweep: case %d has a field '%s', a name the sweep's rows keep for "
                     .. "themselves (status, seconds, failure, case_key); rename it", i, k), 4)
      end
    end
  end
  check_keys(list)
  return list
end

local function materialize(cases)
  if type(cases) == "table" then
    for i, case in ipairs(cases) do
      if type(case) ~= "table" then
        error(format("wb.sweep: case %d is a %s, not a table of fields", i, type(case)), 3)
      end
    end
    check_fields(cases) -- not a tail call: its errors name the script's line
    return cases
  end
  if type(cases) ~= "function" then
    error("wb.sweep: cases must be a list of case tables or a generator function", 3)
  end
  local list = {}
  for case in cases do
    if type(case) ~= "table" then
      error(format("wb.sweep: the generator gave a %s as case %d", type(case), #list + 1), 3)
    end
    list[#list + 1] = case
  end
  check_fields(list)
  return list
end

-- the scalar fields of every case, sorted
local function case_columns(cases)
  local seen, columns = {}, {}
  for _, case in ipairs(cases) do
    for _, k in ipairs(sorted_keys(case, is_scalar)) do
      if not seen[k] then seen[k] = true; columns[#columns + 1] = k end
    end
  end
  table.sort(columns)
  return columns
end

-- A case's own key, whatever the other cases hold: its recorded fields,
-- name and value (type included), sorted; what a --case result file
-- carries and --merge checks.
function case_id(case)
  local parts = {}
  for _, k in ipairs(sorted_keys(case, is_scalar)) do
    parts[#parts + 1] = escape(k) .. "\t" .. encode(case[k])
  end
  return concat(parts, "\n")
end

-- the key as people read it: h=0.1 method=rattle
function show_id(id)
  if id == "" then return "(no fields)" end
  return (id:gsub("\t", "="):gsub("\n", " "))
end

-- the row of a finished case: its fields, its results, its verdict
local function make_row(case, status, text, seconds)
  local row = {}
  for k, v in pairs(case) do
    if type(k) == "string" and is_scalar(v) then row[k] = v end
  end
  if status == "ok" then
    for k, v in pairs(deserialize(text)) do row[k] = v end
  end
  row.status, row.seconds = status, seconds
  row.failure = status ~= "ok" and text or nil
  row.case_key = case_id(case)
  return row
end

-- run(case) in the current process, its result serialized.  A result
-- named like a case field would take the field's place in the row, and a
-- rerun would find that row for another case: refused, as the names the
-- rows keep for themselves are.
local function work_of(spec, cases)
  local fields = {}
  for _, c in ipairs(case_columns(cases)) do fields[c] = true end
  return function(i)
    local result = spec.run(cases[i])
    if type(result) ~= "table" then
      error(format("run returned a %s for case %d; return a table of name = value",
                   type(result), i), 0)
    end
    for _, reserved in ipairs(STATUS_COLUMNS) do
      if result[reserved] ~= nil then
        error(format("run returned '%s', a name the sweep's rows keep for themselves "
                     .. "(status, seconds, failure, case_key)", reserved), 0)
      end
    end
    for _, k in ipairs(sorted_keys(result)) do
      if fields[k] then
        error(format("run returned '%s', a field of the cases: a row holds one value per "
                     .. "name, and a rerun would take the result for the case's own; return "
                     .. "it under another name (say '%s_used')", k, k), 0)
      end
    end
    return serialize(result)
  end
end

---------------------------------------------------------------------------
-- The modes.
---------------------------------------------------------------------------
local function check_spec(spec)
  if type(spec) ~= "table" then error("wb.sweep: give a table {cases =, run =, ...}", 3) end
  local known = {cases = 1, run = 1, jobs = 1, out = 1, timeout = 1, fresh = 1, progress = 1}
  for k in pairs(spec) do
    if not known[k] then
      error(format("wb.sweep: unknown field '%s' (fields: cases, run, jobs, out, timeout, "
                   .. "fresh, progress)", tostring(k)), 3)
    end
  end
  if type(spec.run) ~= "function" then error("wb.sweep: run must be a function(case)", 3) end
  if spec.out ~= nil and type(spec.out) ~= "string" then
    error("wb.sweep: out must be a file name", 3)
  end
end

local function columns_of(cases, rows)
  local columns = case_columns(cases)
  local seen = {}
  for _, c in ipairs(columns) do seen[c] = true end
  for _, c in ipairs(STATUS_COLUMNS) do seen[c] = true end
  local extra = {}
  for _, row in ipairs(rows) do
    for k in pairs(row) do
      if not seen[k] then seen[k] = true; extra[#extra + 1] = k end
    end
  end
  table.sort(extra)
  for _, c in ipairs(extra) do columns[#columns + 1] = c end
  for _, c in ipairs(STATUS_COLUMNS) do columns[#columns + 1] = c end
  return columns
end

local function case_dir(out) return out .. ".cases" end
local function case_file(out, i) return format("%s/case-%d.tsv", case_dir(out), i) end
local function list_file(out) return case_dir(out) .. "/list.tsv" end

-- The case list as --list and --slurm saw it, each case's key in order:
-- every --case process must see the same (a list drawn from the clock, or
-- from math.random after math.randomseed() without a number, does not).
local function save_list(out, cases)
  local lines = {"case\tcase_key\n"}
  for i, case in ipairs(cases) do lines[#lines + 1] = i .. "\t" .. escape(case_id(case)) .. "\n" end
  wb.write_file(list_file(out), concat(lines))
end

-- nil when cases is the saved list (or none is saved), else how it differs
local function list_changed(out, cases)
  local f = io.open(list_file(out), "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  local saved = {}
  for line in text:gmatch("[^\n]+") do
    local i, key = line:match("^(%d+)\t(.*)$")
    if i then saved[#saved + 1] = unescape(key) end
  end
  for i = 1, math.min(#saved, #cases) do
    local now = case_id(cases[i])
    if saved[i] ~= now then
      return format("case %d was %s, is now %s", i, show_id(saved[i]), show_id(now))
    end
  end
  if #saved ~= #cases then return format("%d case(s) then, %d now", #saved, #cases) end
  return nil
end

local function list_cases(cases, out)
  save_list(out, cases)
  local columns = case_columns(cases)
  for i, case in ipairs(cases) do
    local cells = {tostring(i)}
    for _, c in ipairs(columns) do
      cells[#cells + 1] = c .. "=" .. (case[c] == nil and "" or encode(case[c]))
    end
    io.write(concat(cells, "\t"), "\n")
  end
  io.stdout:flush()
  os.exit(0, true)
end

-- --case I: run case I here and write its one-row results file, headed by
-- the case's index and key
local function run_one_case(spec, cases, out, i)
  if not (math.type(i) == "integer" and i >= 1 and i <= #cases) then
    io.stderr:write(format("workbench sweep: --case %s is not a case of 1..%d\n", tostring(i),
                           #cases))
    os.exit(2, true)
  end
  local changed = list_changed(out, cases)
  if changed then
    io.stderr:write(format("workbench sweep: --case %d: the case list is not the one --list or "
                           .. "--slurm saved in '%s' (%s); a list built from the clock, in the "
                           .. "order of pairs() (Lua orders a table's string keys differently "
                           .. "in every process: sort them), or drawn after math.randomseed() "
                           .. "without a number, differs in every process: make it the same "
                           .. "every time (run --list again after changing it)\n", i,
                           list_file(out), changed))
    os.exit(2, true)
  end
  local started = wb.clock()
  local ok, text = pcall(work_of(spec, cases), i)
  local row = make_row(cases[i], ok and "ok" or "error", tostring(text), wb.clock() - started)
  local columns = columns_of(cases, {row})
  columns[#columns] = nil -- case_key: the file's second column already
  wb.write_file(case_file(out, i), "case\tcase_key\t" .. header_line(columns)
                .. i .. "\t" .. escape(case_id(cases[i])) .. "\t" .. row_line(columns, row))
  os.exit(ok and 0 or 1, true)
end

-- A --case result file: its row and the key of the case it ran; nil when
-- there is none, false and why when it cannot be used.
local function read_case_file(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  local header, line = text:match("^([^\n]*)\n([^\n]*)\n$")
  if not header then return false, "not a whole result file" end
  local names, cells = split_tabs(header), split_tabs(line)
  if names[1] ~= "case" or names[2] ~= "case_key" then
    return false, "written by an earlier version, without its case's key"
  end
  if #cells ~= #names then return false, "a damaged row" end
  local row = {}
  for k = 3, #names do
    if cells[k] ~= "" then row[unescape(names[k])] = decode(cells[k]) end
  end
  row.case_key = unescape(cells[2])
  return row, row.case_key
end

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- the job-array script for the given case indices (1-based), and sbatch
local function absolute(path, cwd)
  if path:sub(1, 1) == "/" or not cwd then return path end
  return cwd .. "/" .. path
end

local function write_batch(mode, out, indices, cases)
  out = absolute(out, mode.cwd)
  -- #SBATCH lines are read by sbatch, not the shell: a newline in the
  -- path would end the line, and what follows would run as a command
  if out:find("%c") then
    error(format("wb.sweep: --slurm: the results path '%s' holds a newline or another control "
                 .. "character, which would end its #SBATCH line; give out a plain name",
                 (out:gsub("%c", "?"))), 0)
  end
  local opt = mode.slurm or {}
  -- Slurm opens the tasks' output files before they run: the folder first
  wb.write_file(case_dir(out) .. "/.slurm", "job-array outputs of " .. out .. "\n")
  save_list(out, cases)
  local chunk = math.max(1, math.floor(opt.chunk or 1))
  local tasks = math.ceil(#indices / chunk)
  local lines = {"#!/bin/sh",
                 format("#SBATCH --job-name=%s", "workbench-sweep"),
                 format("#SBATCH --array=0-%d", tasks - 1),
                 format("#SBATCH --output=%s", shell_quote(case_dir(out) .. "/slurm-%A_%a.out"))}
  -- values of #SBATCH lines: one word of the characters Slurm's own syntax
  -- uses, so that no value can end the line and start a shell command
  for _, key in ipairs{"partition", "time", "mem"} do
    local v = opt[key]
    if v ~= nil then
      if type(v) ~= "string" and type(v) ~= "number" or not tostring(v):match("^[%w%-:%.,_+=]+$") then
        error(format("wb.sweep: slurm %s '%s': use letters, digits and - : . , _ + = only", key,
                     tostring(v):gsub("%c", "?")), 0)
      end
      lines[#lines + 1] = format("#SBATCH --%s=%s", key, tostring(v))
    end
  end
  lines[#lines + 1] = "# one array task runs a chunk of cases; the case list is the script's"
  lines[#lines + 1] = "cases='" .. concat(indices, " ") .. "'"
  lines[#lines + 1] = "set -- $cases"
  lines[#lines + 1] = format("first=$((SLURM_ARRAY_TASK_ID * %d + 1))", chunk)
  lines[#lines + 1] = "status=0"
  lines[#lines + 1] = format("for k in $(seq \"$first\" $((first + %d))); do", chunk - 1)
  lines[#lines + 1] = "  [ \"$k\" -le $# ] || break"
  lines[#lines + 1] = "  eval i=\\${$k}"
  local command = {shell_quote(wb._executable())}
  for _, a in ipairs(mode.options or {}) do command[#command + 1] = shell_quote(a) end
  command[#command + 1] = "sweep --case \"$i\""
  command[#command + 1] = shell_quote(absolute(mode.script, mode.cwd))
  for _, a in ipairs(mode.args or {}) do command[#command + 1] = shell_quote(a) end
  lines[#lines + 1] = "  " .. concat(command, " ") .. " || status=1"
  lines[#lines + 1] = "done"
  lines[#lines + 1] = "exit $status"
  local path = out .. ".slurm.sh"
  wb.write_file(path, concat(lines, "\n") .. "\n")
  io.write(format("workbench sweep: %d case(s) in %d array task(s): %s\n", #indices, tasks, path))
  if opt.submit then
    local pipe = io.popen("cd " .. shell_quote(mode.cwd or ".") .. " && sbatch --parsable "
                          .. shell_quote(path) .. " 2>&1")
    local answer = pipe:read("a")
    local ok = pipe:close()
    if not ok then
      io.stderr:write("workbench sweep: sbatch failed: " .. answer)
      os.exit(1, true)
    end
    io.write("workbench sweep: submitted job " .. answer:gsub("%s+$", "") .. "\n")
  end
  io.stdout:flush()
end

-- One sweep at a time writes a results file: a second one running on it
-- (another terminal, a script with the same out) is refused, not mixed in.
local function lock(out, level)
  local held, why = wb._sweep_lock(out)
  if not held then error("wb.sweep: " .. why, level + 1) end
  return held
end

-- the results file read for a rerun or a merge; a row cut short left out
local function read_previous(out)
  local ok, columns, rows, partial = pcall(read_results, out)
  if not ok then error("wb.sweep: " .. tostring(columns), 0) end
  if partial then warn_partial("wb.sweep", out, partial, "it is dropped, and its case runs again") end
  return columns, rows, partial
end

local function list_text(list)
  return #list > 0 and " (" .. concat(list, " ") .. ")" or ""
end

-- The --case result files, by the key of the case each ran: files 1..n
-- and any after them (a list that was longer); a file whose key is not its
-- index's case's is stale (the list changed since it ran), reported, and
-- taken only for the case that has its key.
local function read_case_files(out, cases)
  local by_key, stale = {}, {}
  local ids = {}
  for i, case in ipairs(cases) do ids[i] = case_id(case) end
  local index_of = {}
  for i = #ids, 1, -1 do index_of[ids[i]] = i end
  local i = 1
  while true do
    local row, key = read_case_file(case_file(out, i))
    if row == nil and i > #cases then break end
    if row == false then
      stale[#stale + 1] = format("case-%d.tsv: %s", i, key)
    elseif row then
      if key ~= ids[i] then
        local j = index_of[key]
        stale[#stale + 1] = format("case-%d.tsv holds %s, not case %d's %s: %s", i, show_id(key), i,
                                   ids[i] and show_id(ids[i]) or "(no such case now)",
                                   j and format("taken for case %d", j) or "not merged")
      end
      -- a file at its own index before one that strayed
      if key == ids[i] or not by_key[key] then by_key[key] = row end
    end
    i = i + 1
  end
  return by_key, stale
end

-- --merge: collect the per-case files into out (a case without one keeps
-- its row from an earlier run in out); report what is missing.  A result
-- is taken for a case only when it carries the case's key.
local function merge(mode, cases, out)
  local held <close> = lock(out, 3)
  local rows, missing, failed = {}, {}, {}
  local earlier = {}
  local old_columns, old_rows = read_previous(out)
  keyed_file(old_columns, out)
  for _, row in ipairs(old_rows or {}) do earlier[row.case_key or ""] = row end
  local by_key, stale = read_case_files(out, cases)
  for i, case in ipairs(cases) do
    local row = by_key[case_id(case)] or earlier[case_id(case)]
    if row then
      rows[#rows + 1] = row
      if row.status ~= "ok" then failed[#failed + 1] = i end
    else
      missing[#missing + 1] = i
    end
  end
  local columns = columns_of(cases, rows)
  local T = new_table(rows, columns)
  T:write(out)
  io.write(format("workbench sweep: merged %d of %d case(s) into %s; %d failed%s, %d missing%s%s\n",
                  #rows, #cases, out, #failed, list_text(failed), #missing, list_text(missing),
                  #stale > 0 and format("; %d stale result file(s)", #stale) or ""))
  for _, s in ipairs(stale) do io.write("  stale: ", s, "\n") end
  local changed = list_changed(out, cases)
  if changed then
    io.write(format("  note: the case list is not the one --list or --slurm saved (%s); each "
                    .. "result file was checked against its case's key\n", changed))
  end
  if mode.resubmit and #failed + #missing > 0 then
    local again = {}
    for _, i in ipairs(missing) do again[#again + 1] = i end
    for _, i in ipairs(failed) do again[#again + 1] = i end
    table.sort(again)
    write_batch(mode, out, again, cases)
  end
  T.missing, T.failed, T.stale = missing, failed, stale
  return T
end

-- the default: a local pool, rows appended to out as cases finish, cases
-- already done (same fields, status ok) skipped
local function run_locally(spec, cases, out, mode)
  local held <close> = out and lock(out, 3)
  local fresh = spec.fresh or mode.fresh
  local columns, previous = nil, {}
  if out and not fresh then
    local old_columns, old_rows, partial = read_previous(out)
    if old_columns then
      keyed_file(old_columns, out)
      columns = old_columns
      for _, row in ipairs(old_rows) do
        if row.status == "ok" then previous[row.case_key] = row end
      end
      -- the next row must start a line: the file again without the cut row
      if partial then new_table(old_rows, old_columns):write(out) end
    end
  end
  local rows, todo = {}, {}
  for i, case in ipairs(cases) do
    local done = previous[case_id(case)]
    if done then rows[i] = done else todo[#todo + 1] = i end
  end
  local pending, dropped = {}, false
  local function write_row(row)
    if not out then return end
    if not columns then
      columns = columns_of(cases, {row})
      wb.write_file(out, header_line(columns))
    end
    for k in pairs(row) do
      local known = false
      for _, c in ipairs(columns) do known = known or c == k end
      if not known and not dropped then
        dropped = true
        io.stderr:write(format("wb.sweep: '%s' is not a column of %s; such values stay in "
                               .. "the returned table only\n", tostring(k), out))
      end
    end
    local ok, why = wb._append_line(out, row_line(columns, row))
    if not ok then error("wb.sweep: " .. why, 0) end
  end
  if out and fresh then columns = nil end
  local work = work_of(spec, cases)
  wb._sweep_pool{
    count = #todo,
    jobs = spec.jobs or mode.jobs or wb._processors(),
    timeout = spec.timeout,
    progress = spec.progress ~= false,
    work = function(k) return work(todo[k]) end,
    collect = function(k, status, text, seconds)
      local i = todo[k]
      local row = make_row(cases[i], status, text, seconds)
      rows[i] = row
      if status == "ok" or columns then
        write_row(row)
      else
        pending[#pending + 1] = row -- written once a success fixes the columns
      end
      if columns and #pending > 0 then
        for _, p in ipairs(pending) do write_row(p) end
        pending = {}
      end
    end,
  }
  if out and #pending > 0 then
    for _, p in ipairs(pending) do write_row(p) end
  end
  local T = new_table(rows, columns_of(cases, rows))
  if out then T:write(out) end -- whole, in case order, once every case is in
  return T
end

-- out under the output folder; absolute when that folder is relative, so
-- that wb.write_file (which puts a relative name under it) and the direct
-- reads and appends name the same file
local function results_path(out)
  local path = wb.output_path(out)
  if path ~= out and path:sub(1, 1) ~= "/" then path = wb._cwd() .. "/" .. path end
  return path
end

function wb.sweep(spec)
  check_spec(spec)
  local cases = materialize(spec.cases)
  local mode = wb._sweep_mode or {mode = "local"}
  local out = spec.out or mode.default_out
  if out then out = results_path(out) end
  if mode.mode ~= "local" and not out then
    error("wb.sweep: give out = \"file.tsv\" to run a sweep from the command line", 2)
  end
  if mode.mode == "list" then
    list_cases(cases, out)
  elseif mode.mode == "case" then
    run_one_case(spec, cases, out, mode.case)
  elseif mode.mode == "slurm" then
    local all = {}
    for i = 1, #cases do all[i] = i end
    write_batch(mode, out, all, cases)
    os.exit(0, true)
  end
  -- not tail calls: their errors name the script's line
  local T
  if mode.mode == "merge" then
    T = merge(mode, cases, out)
  else
    T = run_locally(spec, cases, out, mode)
  end
  return T
end

wb._sweep_encode, wb._sweep_decode = encode, decode
