-- No string reaches gnuplot as script text (issue 13): every string of the
-- hostile corpus goes into a plot as its title, labels, series titles and
-- file name, in plain and in enhanced plots.  The plot is drawn (or refused
-- with a message, for a NUL in a file name), gnuplot runs nothing (the
-- canary file never appears), the script holds none of the characters
-- gnuplot interprets, and the data file holds exactly the data.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local canary = wb.output_path("canary")
os.remove(canary)
local corpus = dofile(here .. "/hostile_strings.lua")(canary)
local has_gnuplot = os.execute("command -v gnuplot >/dev/null 2>&1")

local function read(path)
  local f = io.open(wb.output_path(path), "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

-- A script's structure: its text with every literal emptied.
local function structure(script)
  return (script:gsub('"[^"\n]*"', '""'))
end

-- the reference structures, with a harmless text
local reference = {}
for parity = 0, 1 do
  local base = "plots/reference" .. parity
  wb.plot{file = base .. ".png", title = "x", xlabel = "x", ylabel = wb.literal("x"),
          enhanced = parity == 0,
          series = {{x = {1, 2}, y = {1, 2}, title = "x"},
                    {x = {1, 2}, y = {2, 1}, title = wb.enhanced("x")}}}
  reference[parity] = structure(read(base .. ".gp") or "")
end

-- Every literal reads back as its string: one gnuplot run prints them all
-- (file names byte for byte; text with its control characters as spaces).
if has_gnuplot then
  local lines, expected = {}, {}
  local out = wb.output_path("roundtrip.txt")
  lines[1] = "set print " .. wb._gnuplot_literal(out, "path")
  for _, h in ipairs(corpus) do
    if not h:find("\0", 1, true) then
      lines[#lines + 1] = "print " .. wb._gnuplot_literal(h, "path")
      expected[#expected + 1] = h .. "\n"
    end
    lines[#lines + 1] = "print " .. wb._gnuplot_literal(h)
    expected[#expected + 1] = h:gsub("[%z\1-\31\127]", " ") .. "\n"
  end
  lines[#lines + 1] = "unset print"
  wb.write_file("roundtrip.gp", table.concat(lines, "\n") .. "\n")
  os.execute("gnuplot " .. wb.output_path("roundtrip.gp") .. " 2>/dev/null")
  local got, want = read("roundtrip.txt") or "", table.concat(expected)
  local at = 1
  while at <= #want and got:byte(at) == want:byte(at) do at = at + 1 end
  wb.check(got == want, string.format("%d literals read back by gnuplot as their strings",
                                      #expected), got ~= want and "first difference at byte " .. at or nil)
end

-- The corpus through every text field of real plots, five strings a plot.
local drawn, refused, bad_script, bad_data, missing = 0, 0, {}, {}, {}
local plots = 0
for first = 1, #corpus, 5 do
  plots = plots + 1
  local h = {}
  for k = 0, 4 do h[k + 1] = corpus[(first + k - 1) % #corpus + 1] end
  local base = string.format("plots/%02d_%s", plots, h[1]:gsub("/", "_"):sub(1, 120))
  local ok, err = pcall(wb.plot, {
    file = base .. ".png", title = h[2], xlabel = h[3], ylabel = wb.literal(h[4]),
    enhanced = plots % 2 == 0,
    series = {{x = {1, 2}, y = {1, 2}, title = h[5]},
              {x = {1, 2}, y = {2, 1}, title = wb.enhanced(h[1])}}})
  if not ok then
    refused = refused + 1
    wb.check(h[1]:find("\0", 1, true) and tostring(err):find("wb.plot: field 'file'", 1, true),
             string.format("plot %d: only a NUL in a file name is refused", plots), tostring(err))
    -- the same strings with a harmless file name
    base = string.format("plots/%02d_nul", plots)
    ok, err = pcall(wb.plot, {
      file = base .. ".png", title = h[2], xlabel = h[3], ylabel = wb.literal(h[4]),
      enhanced = plots % 2 == 0,
      series = {{x = {1, 2}, y = {1, 2}, title = h[5]},
                {x = {1, 2}, y = {2, 1}, title = wb.enhanced(h[1])}}})
  end
  if not ok then
    bad_script[#bad_script + 1] = plots .. " (" .. tostring(err) .. ")"
  else
    drawn = drawn + 1
    local script = read(base .. ".gp") or ""
    -- the same commands as with a harmless text, and none of the
    -- characters gnuplot substitutes anywhere
    if structure(script) ~= reference[plots % 2] or script:find("[`@]")
       or script:find("[%z\1-\9\11-\31]") then
      bad_script[#bad_script + 1] = plots
    end
    local rows = 0
    for line in (read(base .. ".dat") or ""):gmatch("[^\n]+") do
      if not line:find("^#") then rows = rows + 1 end
    end
    if rows ~= 4 then bad_data[#bad_data + 1] = plots end
    if has_gnuplot and not read(base .. ".png") then missing[#missing + 1] = plots end
  end
end
wb.check(not io.open(canary, "r"), "gnuplot ran no command of the corpus (no canary file)")
wb.check(#bad_script == 0, "every gnuplot script has the commands a harmless text gives, "
         .. "and no ` @ or control character", table.concat(bad_script, ", "))
wb.check(#bad_data == 0, "every data file holds exactly the 4 points",
         table.concat(bad_data, ", "))
wb.check(#missing == 0, "every plot was drawn", table.concat(missing, ", "))
wb.check(drawn == plots, string.format("%d strings in %d plots: all drawn", #corpus, plots))
local ok, err = pcall(wb.plot, {file = "plots/nul\0byte.png", series = {{x = {1}, y = {1}}}})
wb.check(not ok and tostring(err):find("wb.plot: field 'file' holds a NUL byte", 1, true),
         "a NUL byte in a file name is refused with a message", tostring(err))

-- The fields that are gnuplot syntax by purpose take only what they may.
local base = {file = "plots/fields.png", series = {{x = {1, 2}, y = {1, 2}}}}
local function with(fields)
  local spec = {}
  for k, v in pairs(base) do spec[k] = v end
  for k, v in pairs(fields) do spec[k] = v end
  return spec
end
local refusals = {
  {logscale = "x; system('touch " .. canary .. "')"},
  {logscale = "xyz"},
  {key = "top `touch " .. canary .. "`"},
  {key = "top\nsystem('x')"},
  {commands = {"set output '|touch " .. canary .. "'"}},
  {commands = {"set xtics (system('touch " .. canary .. "'))"}},
  {commands = {"system('touch " .. canary .. "')"}},
  {commands = {"set label 1 'x' at 1,1; !touch " .. canary}},
  {commands = {"set print '" .. canary .. "'"}},
  {commands = {"set table '" .. canary .. "'"}},
  {commands = {"load '" .. canary .. "'"}},
  {series = {{x = {1}, y = {1}, style = "lw 1 title system('touch " .. canary .. "')"}}},
  {series = {{x = {1}, y = {1}, style = "lw 1\n!touch " .. canary}}},
  {series = {{x = {1}, y = {1}, with = "lines; !touch " .. canary}}},
  {size = {"900; !x", 10}},
  {xrange = {"0:1]; !x", 1}},
  {title = {}},
}
for i, fields in ipairs(refusals) do
  local ok, err = pcall(wb.plot, with(fields))
  wb.check(not ok and tostring(err):find("wb.plot:", 1, true),
           string.format("refused: syntax field case %d", i), tostring(err))
end
local ok = pcall(wb.plot, with{commands = {"set size ratio -1", "unset grid"}, key = "bottom left box",
                               series = {{x = {1, 2}, y = {1, 2}, with = "linespoints",
                                          style = "lw 1 dt 2 lc rgb '#ff0000' pt 7 ps 1.5"}}})
wb.check(ok, "the syntax fields take what the scripts use (set/unset, key words, styles)")
wb.check(not io.open(canary, "r"), "still no canary file")
