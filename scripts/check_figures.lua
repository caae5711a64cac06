-- Checks the figures wb.plot wrote: for every gnuplot script (*.gp) in the
-- folders given (default: plots), every series that has an entry in the
-- legend (a non-empty title) must have at least one finite point inside
-- the plotted ranges -- inside xrange and yrange where the script sets
-- them, positive on a log axis -- read from the data file (*.dat) next to
-- the script.  A legend entry without a visible curve is what this
-- catches: a run that failed at its first step, a series drawn entirely
-- outside the range, a log axis over values that are all zero.  Also:
-- each folder holds at least one figure, and each figure's data file has
-- as many series as its plot command.
--
--   workbench [--output-dir DIR] scripts/check_figures.lua [FOLDER ...]
--
-- Folders are taken under the output root, as wb.plot writes them; the
-- test suite runs this after each reproduction script on its plots.

local folders = {}
for _, a in ipairs(wb.args) do
  if a ~= "--quick" then folders[#folders + 1] = a end
end
if #folders == 0 then folders = {"plots"} end

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- the *.gp files below a folder, sorted
local function scripts_in(folder)
  local root = wb.output_path(folder)
  local pipe = assert(io.popen("find " .. shell_quote(root) .. " -name '*.gp' -type f 2>/dev/null"))
  local list = {}
  for line in pipe:lines() do list[#list + 1] = line end
  pipe:close()
  table.sort(list)
  return list
end

-- a gnuplot string literal as wb.plot writes them ("..." with \ooo escapes)
local function unquote(literal)
  local body = literal:match('^"(.*)"$') or literal
  return (body:gsub("\\(%d%d%d)", function(o) return string.char(tonumber(o, 8)) end)
              :gsub("\\(.)", "%1"))
end

local function read_lines(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local lines = {}
  for line in f:lines() do lines[#lines + 1] = line end
  f:close()
  return lines
end

-- What a script sets: log axes, ranges, and per series its index and title.
local function parse_script(path)
  local spec = {logx = false, logy = false, series = {}}
  local text = table.concat(read_lines(path) or {}, "\n")
  local logscale = text:match("\nset logscale (%a+)")
  if logscale then
    spec.logx, spec.logy = logscale:find("x") ~= nil, logscale:find("y") ~= nil
  end
  for axis in ("xy"):gmatch(".") do
    local a, b = text:match("\nset " .. axis .. "range %[([^:%]]*):([^%]]*)%]")
    if a then spec[axis .. "range"] = {tonumber(a), tonumber(b)} end
  end
  local plot = text:match("\nplot (.*)$") or ""
  for index, title in plot:gmatch('index (%d+) using[^\n]- title ("[^"]*")') do
    spec.series[#spec.series + 1] = {index = tonumber(index), title = unquote(title)}
  end
  return spec
end

-- The data blocks of a .dat file: blocks[i] = {{x, y}, ...} for series i.
local function parse_data(path)
  local lines = read_lines(path)
  if not lines then return nil end
  local blocks, current = {}, nil
  for _, line in ipairs(lines) do
    if line:match("^# series %d+") then
      current = {}
      blocks[#blocks + 1] = current
    elseif current and line ~= "" then
      local x, y = line:match("^(%S+)\t(%S+)$")
      current[#current + 1] = {tonumber(x), tonumber(y)}
    end
  end
  return blocks
end

local function inside(v, range, log)
  if v == nil or v ~= v or v == math.huge or v == -math.huge then return false end
  if log and v <= 0 then return false end
  if range then
    local lo, hi = math.min(range[1], range[2]), math.max(range[1], range[2])
    if v < lo or v > hi then return false end
  end
  return true
end

local total, figures_bad = 0, 0
for _, folder in ipairs(folders) do
  local scripts = scripts_in(folder)
  wb.check(#scripts > 0, string.format("%s: holds figures to check", folder),
           string.format("%d gnuplot scripts", #scripts))
  for _, script in ipairs(scripts) do
    total = total + 1
    local name = script:match("([^/]+)%.gp$")
    local spec = parse_script(script)
    local blocks = parse_data((script:gsub("%.gp$", ".dat")))
    local problems = {}
    if not blocks then
      problems[#problems + 1] = "no data file"
    else
      if #blocks ~= #spec.series then
        problems[#problems + 1] = string.format("%d data blocks for %d plotted series", #blocks,
                                                #spec.series)
      end
      for _, s in ipairs(spec.series) do
        if s.title ~= "" then
          local points, shown = blocks[s.index + 1] or {}, 0
          for _, xy in ipairs(points) do
            if inside(xy[1], spec.xrange, spec.logx) and inside(xy[2], spec.yrange, spec.logy) then
              shown = shown + 1
            end
          end
          if shown == 0 then
            problems[#problems + 1] = string.format("legend entry '%s' has none of its %d points "
                                                    .. "inside the plotted range", s.title, #points)
          end
        end
      end
    end
    if #problems > 0 then figures_bad = figures_bad + 1 end
    wb.check(#problems == 0, string.format("%s/%s: every legend entry has a visible curve", folder,
                                           name),
             #problems > 0 and table.concat(problems, "; ") or
             string.format("%d series", #spec.series))
  end
end
wb.printf("%d figures checked, %d with a legend entry that shows nothing\n", total, figures_bad)
