-- docs/gallery.md has a row for every reproduction script (each
-- scripts/<family>/*.lua but the *_common.lua helpers), and each figure
-- it links is in plots/<family>/ and named by its script.
local gallery, scripts = arg[1], arg[2]
local f = assert(io.open(gallery, "r"))
local text = f:read("a")
f:close()
local rows = {}
for line in text:gmatch("[^\n]+") do
  local script = line:match("`workbench (scripts/[%w_]+/[%w_]+%.lua)`")
  if script then rows[script] = line:match("%]%(%.%./(plots/[^)]+%.png)%)") or false end
end
local p = assert(io.popen("cd '" .. scripts .. "/..' && ls scripts/*/*.lua"))
local missing, count = {}, 0
for script in p:lines() do
  if not script:match("_common%.lua$") then
    count = count + 1
    if rows[script] == nil then missing[#missing + 1] = script end
  end
end
p:close()
wb.check(count > 20 and #missing == 0, "docs/gallery.md has a row for every reproduction script",
         #missing > 0 and ("missing: " .. table.concat(missing, ", ")) or (count .. " scripts"))
-- each linked figure is named in its script: the file name, or its stem up
-- to an underscore when the script builds the rest (fig3_particle .. "_q")
local function named_in(figure, script)
  local g = io.open(scripts .. "/../" .. script, "r")
  if not g then return false end
  local source = g:read("a")
  g:close()
  local stem = figure:match("([^/]+)%.png$")
  if source:find(stem, 1, true) then return true end
  for cut in stem:gmatch("()_") do
    local prefix = stem:sub(1, cut)      -- "cvt_"
    if #prefix >= 4 and source:find(prefix, 1, true) then return true end
  end
  return false
end
local unnamed = {}
for script, figure in pairs(rows) do
  if figure and (not figure:find("/" .. script:match("scripts/([%w_]+)/") .. "/", 1, true)
                 or not named_in(figure, script)) then
    unnamed[#unnamed + 1] = figure
  end
end
table.sort(unnamed)
wb.check(#unnamed == 0, "every figure the gallery links is in its family's folder and named by its script",
         table.concat(unnamed, ", "))
-- each picture the page shows is a copy kept in docs/figures/gallery/
local absent, shown = {}, 0
for image in text:gmatch("%]%((figures/gallery/[^)]+%.png)%)") do
  shown = shown + 1
  local g = io.open(gallery:match("^(.*)/") .. "/" .. image, "rb")
  if g then g:close() else absent[#absent + 1] = image end
end
wb.check(shown > 20 and #absent == 0, "every picture the gallery shows is in docs/figures/gallery",
         #absent > 0 and table.concat(absent, ", ") or (shown .. " pictures"))
