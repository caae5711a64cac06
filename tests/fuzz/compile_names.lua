-- A compiled model's name is as unique as a defined model's, and the
-- command line loads one build of it, not any (issue 25).
--   workbench compile_names.lua WORKBENCH
-- (WORKBENCH_CACHE_DIR is the test's own folder.)
local exe = assert(wb.args[1], "give the workbench executable")
local format = string.format
local cache = assert(os.getenv("WORKBENCH_CACHE_DIR"), "set WORKBENCH_CACHE_DIR")
local models = cache .. "/models"

-- 1. The first thing a script does: compile a model named like an
-- installed one.  Refused; the installed kepler stays.
wb.expect_error(function()
  wb.compile_model{name = "kepler", nq = 1, potential = function(q) return q[1] ^ 2 end}
end, "wb.compile_model: model 'kepler': a model named 'kepler' already exists (from '",
  "compile_model refuses an installed model's name")
wb.check(wb.model("kepler").nq == 2, "the installed kepler is still the one loaded",
         tostring(wb.model("kepler").nq))
local same = {name = "names_same", nq = 1, potential = function(q) return q[1] ^ 2 end}
local twice = {}
for i = 1, 2 do twice[i] = wb.compile_model(same) end -- one line: one source, one build
wb.check(twice[1].name == twice[2].name, "the same model compiled twice is the same build")
wb.expect_error(function()
  wb.compile_model{name = "names_same", nq = 1, potential = function(q) return 3 * q[1] ^ 2 end}
end, "a model named 'names_same' already exists (from '" .. models .. "/names_same-",
  "another model under a name compiled before in the script is refused")

-- 2. Three edits of one model leave three builds in the cache.  From the
-- command line the folder loads the newest, with a warning naming the
-- others; a build's file loads that build.
local function sh(command)
  local p = io.popen(command .. " 2>&1")
  local out = p:read("a")
  p:close()
  return out
end
local script = wb.output_path("edit.lua")
wb.write_file("edit.lua", [[
wb.compile_model{name = "names_edited", nq = 1, doc = "edit " .. wb.args[1],
                 potential = function(q) return tonumber(wb.args[1]) * q[1] ^ 2 end}]])
-- (the builds of an earlier run of this test, whose generated C differed,
-- are no part of it)
sh(format("rm -f '%s'/names_edited-*", models))
for edit = 1, 3 do
  sh(format("WORKBENCH_CACHE_DIR='%s' '%s' '%s' %d", cache, exe, script, edit))
end
local builds = {}
for line in sh(format("ls '%s'", models)):gmatch("[^\n]+") do
  if line:match("^names_edited%-%x+%.so$") then builds[#builds + 1] = line end
end
table.sort(builds)
wb.check(#builds == 3, "three edits, three builds", table.concat(builds, " "))
-- the loader took the first by name: the newest is made the second
local newest = builds[2]
for i, build in ipairs(builds) do
  local age = i == 2 and "1 minute ago" or format("%d hours ago", i)
  sh(format("touch -d '%s' '%s/%s'", age, models, build))
end
local info = sh(format("WORKBENCH_PLUGIN_PATH= '%s' --plugin-path '%s' info names_edited", exe, models))
wb.check(info:find(models .. "/" .. newest, 1, true) ~= nil
         and not info:find(models .. "/" .. builds[1], 1, true),
         "--plugin-path FOLDER loads the newest build", info:sub(1, 300))
wb.check(info:find(format("plugin folder '%s' holds 3 builds of the compiled model 'names_edited': "
                          .. "loading the newest, '%s', not '%s', '%s'", models, newest, builds[1],
                          builds[3]), 1, true) ~= nil,
         "... with a warning naming the builds not loaded", info:sub(1, 400))
local one = sh(format("WORKBENCH_PLUGIN_PATH= '%s' --plugin-path '%s/%s' info names_edited", exe,
                      models, builds[1]))
wb.check(one:find(models .. "/" .. builds[1], 1, true) ~= nil and not one:find("warning", 1, true),
         "--plugin-path FILE loads that build, without a warning", one:sub(1, 300))

-- 4. An edit undone reuses its earlier build, which then is the newest: the
-- command line loads the build the script uses (a review found the undone
-- edit's older build left behind the edit's: with edit 2's build the
-- newest, running edit 1 again still loaded edit 2 from the command line)
for _, build in ipairs(builds) do
  local text = sh(format("WORKBENCH_PLUGIN_PATH= '%s' --plugin-path '%s/%s' info names_edited",
                         exe, models, build))
  local age = text:match("edit (%d)") == "2" and "1 minute ago" or "2 hours ago"
  sh(format("touch -d '%s' '%s/%s'", age, models, build))
end
sh(format("WORKBENCH_CACHE_DIR='%s' '%s' '%s' %d", cache, exe, script, 1))
local again = sh(format("WORKBENCH_PLUGIN_PATH= '%s' --plugin-path '%s' info names_edited", exe,
                        models))
local doc = again:match("edit (%d)")
wb.check(doc == "1", "edit 1 again: --plugin-path loads edit 1's build, the newest in use",
         "doc 'edit " .. tostring(doc) .. "'")
