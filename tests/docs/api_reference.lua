-- docs/lua-api.md documents every public name of the Lua API: each wb.*
-- name, each function of wb.tableau and wb.ad, each method of a model,
-- method, solution, tableau and sweep table has a "### `...`" entry; and
-- `workbench help lua` prints the same text.
local path = arg[1]
local f = assert(io.open(path, "r"))
local text = f:read("a")
f:close()
wb.check(text == wb._api_reference(), "workbench help lua prints docs/lua-api.md as it is")

local entries = {}
for heading in text:gmatch("\n### `([^`]+)`") do
  -- the name up to its argument list: "wb.order{...}" -> wb.order
  entries[heading:match("^([%w_%.:]+)")] = true
end

local missing = {}
local function need(name)
  if not entries[name] then missing[#missing + 1] = name end
end
local function public(t, prefix, separator)
  local names = {}
  for k in pairs(t) do
    if type(k) == "string" and not k:match("^_") then names[#names + 1] = k end
  end
  table.sort(names)
  for _, k in ipairs(names) do need(prefix .. separator .. k) end
  return #names
end

local count = public(wb, "wb", ".")
count = count + public(wb.tableau, "wb.tableau", ".")
count = count + public(wb.ad, "wb.ad", ".")
local model = wb.model("pendulum")
count = count + public(debug.getmetatable(model).methods, "m", ":")
local method = wb.method("rattle")
count = count + public(debug.getmetatable(method).methods, "method", ":")
local sol = wb.integrate{model = model, method = method, h = 0.1, steps = 2}
count = count + public(debug.getmetatable(sol).methods, "sol", ":")
count = count + public(debug.getmetatable(wb.tableau.gauss(2)).methods, "T", ":")
local sweep = wb.sweep{cases = {{a = 1}}, run = function() return {x = 1} end, jobs = 1}
local sweep_methods = {}
for k, v in pairs(debug.getmetatable(sweep).__index) do
  if type(v) == "function" then sweep_methods[k] = v end
end
count = count + public(sweep_methods, "T", ":")

wb.check(#missing == 0, string.format("every public name (%d) has an entry in %s", count,
                                      path:match("[^/]+/[^/]+$")),
         #missing > 0 and ("missing: " .. table.concat(missing, ", ")) or nil)

-- Every field an object answers (the keys its C __index compares, e.g.
-- strcmp(key, "energy_scale")) is named as `field` in its object's section.
local sources = arg[2]
local sections = {lua_model = "Models", lua_method = "Methods", lua_solution = "Solutions",
                  lua_tableau = "Tableaux"}
local undocumented = {}
local fields = 0
for file, heading in pairs(sections) do
  local src = assert(io.open(sources .. "/" .. file .. ".c", "r"))
  local code = src:read("a")
  src:close()
  local section = text:match("\n## " .. heading .. "\n(.-)\n## ")
  wb.check(section ~= nil, "docs/lua-api.md has a section '## " .. heading .. "'")
  for key in code:gmatch('strcmp%(key, "([%w_]+)"%)') do
    fields = fields + 1
    if section and not section:find("`" .. key .. "`", 1, true) then
      undocumented[#undocumented + 1] = heading .. ": " .. key
    end
  end
end
table.sort(undocumented)
wb.check(#undocumented == 0, string.format("every object field (%d) is named in its section", fields),
         #undocumented > 0 and ("undocumented: " .. table.concat(undocumented, ", ")) or nil)
