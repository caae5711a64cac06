-- No user text becomes C code (issue 25): wb.compile_model writes names,
-- docs, the script's path and the model's constants into the C it
-- compiles.  Every string of the hostile corpus goes through every text
-- field of a compiled model: a parameter's and the model's doc read back
-- byte for byte from the loaded plugin, a name that is not an identifier
-- is refused, a NUL byte is refused, nothing runs (the canary never
-- appears), and a script in a folder named like C (`x*/`, `??/`, quotes,
-- a line break) compiles with its path read back.  Constants keep their
-- value bit for bit (-0, the smallest subnormal, infinite bounds).
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local canary = wb.output_path("canary")
os.remove(canary)
local corpus = dofile(here .. "/hostile_strings.lua")(canary)
local format = string.format

local function escape(s) -- for messages: the bytes shown, never interpreted
  return (s:sub(1, 60):gsub("[^%w ]", function(c) return format("\\%03o", c:byte()) end))
end

local function potential(q) return q[1] ^ 2 / 2 end

local function compile(spec)
  local ok, m = pcall(wb.compile_model, spec)
  return ok and m or nil, not ok and tostring(m) or nil
end

-- 1. Every string (but the one with a NUL) as a parameter's doc; all of
-- them, joined, as the model's doc.
local plain, joined = {}, {}
for _, s in ipairs(corpus) do
  if not s:find("\0", 1, true) then
    plain[#plain + 1] = s
    joined[#joined + 1] = s
  end
end
local params = {k = {1, min = -math.huge, max = math.huge, doc = "stiffness"}}
for i, s in ipairs(plain) do params[format("p%02d", i)] = {i, doc = s} end
local doc = table.concat(joined, "|")
local m, err = compile{name = "hostile_docs", nq = 1, doc = doc, params = params,
                       potential = potential,
                       initial = function() return {-0.0}, {5e-324} end}
wb.check(m ~= nil, format("a model with the %d strings as docs compiles", #plain), err)
if m then
  local wrong = {}
  for i, s in ipairs(plain) do
    local info = m.param_info[format("p%02d", i)]
    if not info or info.doc ~= s then wrong[#wrong + 1] = escape(s) end
  end
  wb.check(#wrong == 0, format("%d parameter docs read back byte for byte", #plain),
           table.concat(wrong, "; "))
  wb.check(m.doc == doc, format("the model's doc (%d bytes) reads back byte for byte", #doc))
  local k = m.param_info.k
  wb.check(k and k.min == -math.huge and k.max == math.huge and k.default == 1,
           "infinite bounds and the default read back")
  local q, p = m:initial()
  wb.check(q[1] == 0 and 1 / q[1] == -math.huge, "the constant -0 keeps its sign", tostring(q[1]))
  wb.check(p[1] == 5e-324, "the smallest subnormal keeps its value", tostring(p[1]))
end

-- 2. Each string alone as the model's doc where a literal ends the
-- descriptor (the corpus's injections aim at it).
for i, s in ipairs(plain) do
  if s:find("??/", 1, true) or s:find("\r", 1, true) then
    local name = format("hostile_doc_%02d", i)
    local mi, e = compile{name = name, nq = 1, doc = s, params = {k = 1}, potential = potential}
    wb.check(mi ~= nil and mi.doc == s,
             format("model doc '%s' compiles and reads back", escape(s)), e)
  end
end

-- 3. Names: a string that is not an identifier is refused as a model,
-- parameter or invariant name, with the field; a NUL in a doc is refused.
local refused = {model = 0, parameter = 0, invariant = 0}
local accepted_wrongly = {}
for _, s in ipairs(corpus) do
  local identifier = s:match("^[%a_][%w_]*$") ~= nil
  local cases = {
    model = {name = s, nq = 1, potential = potential},
    parameter = {name = "hostile_param", nq = 1, params = {[s] = 1}, potential = potential},
    invariant = {name = "hostile_invariant", nq = 1, potential = potential,
                 invariants = {{s, function(q, p) return p[1] end}}},
  }
  for field, spec in pairs(cases) do
    if not identifier then
      local ok, e = pcall(wb.compile_model, spec)
      local named = not ok and tostring(e):find("wb.compile_model:", 1, true)
                    and tostring(e):find(field == "model" and "name" or field, 1, true)
      if named then
        refused[field] = refused[field] + 1
      else
        accepted_wrongly[#accepted_wrongly + 1] = field .. " " .. escape(s) .. ": " .. tostring(e)
      end
    end
  end
end
wb.check(#accepted_wrongly == 0,
         format("names that are not identifiers refused with the field (%d model, %d parameter, "
                .. "%d invariant)", refused.model, refused.parameter, refused.invariant),
         table.concat(accepted_wrongly, "; "))
local long = string.rep("long", 2500)
m, err = compile{name = "hostile_names", nq = 1, potential = potential,
                 params = {[long] = {2, doc = "a long name"}},
                 invariants = {{"J", function(q, p) return p[1] end}}}
wb.check(m and m.param_info[long] and m.param_info[long].default == 2
         and m.invariant_names[1] == "J",
         "a 10000-byte parameter name compiles and reads back", err)
wb.expect_error(function()
  wb.compile_model{name = "hostile_long_invariant", nq = 1, potential = potential,
                   invariants = {{long, function(q, p) return p[1] end}}}
end, "invariant 1 is named 'longlong", "a 10000-byte invariant name is refused (a column name)")
wb.expect_error(function()
  wb.compile_model{name = long, nq = 1, potential = potential}
end, "(10000 bytes): a compiled model's name has at most 128 bytes",
  "a 10000-byte model name is refused with the limit")
for _, field in ipairs{"model", "parameter"} do
  wb.expect_error(function()
    if field == "model" then
      wb.compile_model{name = "hostile_nul", nq = 1, doc = "nul\0byte", potential = potential}
    else
      wb.compile_model{name = "hostile_nul", nq = 1, params = {k = {1, doc = "nul\0byte"}},
                       potential = potential}
    end
  end, "NUL byte", "a NUL byte in the " .. field .. "'s doc is refused")
end

-- 4. The script's path reaches the generated C (a comment, the plugin's
-- description): a script in folders named `x*`, `??` and with a quote, a
-- backslash and a line break compiles and its path reads back.
local folder = "x*/??/q\"\\\r\n*/"
local script = folder .. "compiled.lua"
wb.write_file(script, [[
local m = wb.compile_model{name = "hostile_origin", nq = 1,
                           potential = function(q) return q[1] ^ 2 end}
return m, debug.getinfo(1, "S").short_src]])
local ok, mo, src = pcall(dofile, wb.output_path(script))
local prefix = ok and "compiled from Lua (" .. src .. ":"
wb.check(ok and mo.description:sub(1, #prefix) == prefix,
         "a script in a folder named like C compiles; its path reads back",
         ok and escape(mo.description) or tostring(mo))

wb.check(not io.open(canary, "r"), "no command of the corpus ran (no canary file)")
