-- Every installed method at each declared bound of each numeric option
-- (the others at their defaults), a few steps on a model it applies to:
-- a declared range must be the accepted one.  The model is the first one
-- the method steps on at its defaults, at 1/100 of the model's time scale
-- or smaller (h); a bound that fails at h is retried at h/10 .. h/1e8, as
-- ranges.lua does, and listed.  An iteration cap at its minimum (max_iter
-- = 1) may stop an iteration that has not converged: that is the cap doing
-- what it says when the method's message says to raise it (listed); a
-- tolerance, a weight, a stage count must work.  A bound the method
-- refuses at its defaults passes only when the range depends on a choice
-- option and the bound is accepted, and steps, at another of its choices;
-- the refusal must then name the option, the value, the choice, its value
-- and the choice that takes the value (e.g. "theta = 0 ... with constraint
-- = 'intermediate' ... 'trapezoidal'").  Anything else fails: a refusal,
-- or a bound that is accepted and does not step.
--   workbench tests/fuzz/option_ranges.lua [METHOD]
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local points = dofile(here .. "/range_points.lua")
local only = arg[1]
local format = string.format
local steps = 5

local function sorted_keys(t, wanted)
  local keys = {}
  for k, v in pairs(t) do
    if type(v) == wanted then keys[#keys + 1] = k end
  end
  table.sort(keys)
  return keys
end


-- The words a choice option takes, read from the error a word outside them
-- gets; nil for a string option that is not a choice (a tableau).
local function choices(name, option)
  local _, err = pcall(wb.method, name, {[option] = "\1"})
  local list = tostring(err):match("is not one of ([%w_|]+)")
  if not list then return nil end
  local words = {}
  for w in list:gmatch("[^|]+") do words[#words + 1] = w end
  return words
end

-- A model the method applies to and steps on at its defaults, with the
-- step that works: 1/100 of the model's time scale, or smaller.
local function home(name, models)
  local method = wb.method(name)
  for _, m in ipairs(models) do
    if method:applies_to(m) then
      local h = points.time_scale(m) / 100
      for k = 0, 4 do
        if pcall(wb.integrate, {model = m, method = method, h = h / 10 ^ k, steps = steps,
                                every = steps}) then
          return m, h / 10 ^ k
        end
      end
    end
  end
end

-- true and the step division that stepped (1, 10, .. 1e8), or false and
-- the error at h
local function steps_ok(method, m, h)
  local ok, err = pcall(wb.integrate, {model = m, method = method, h = h, steps = steps, every = steps})
  if ok then return true, 1 end
  for k = 1, 8 do
    if pcall(wb.integrate, {model = m, method = method, h = h / 10 ^ k, steps = steps,
                            every = steps}) then
      return true, 10 ^ k
    end
  end
  return false, tostring(err)
end

local models = {}
for _, name in ipairs(wb.list_models()) do models[#models + 1] = wb.model(name) end
local counts = {bounds = 0, stepped = 0, smaller = 0, capped = 0, conditional = 0, failed = 0}
local findings, conditional, smaller, capped = {}, {}, {}, {}
local function fail(text)
  counts.failed = counts.failed + 1
  findings[#findings + 1] = text
end

-- A bound refused at the defaults: the choice that accepts it, if any.
local function accepting_choice(name, option, value, defaults)
  for _, c in ipairs(sorted_keys(defaults, "string")) do
    for _, w in ipairs(choices(name, c) or {}) do
      if w ~= defaults[c] then
        local ok, method = pcall(wb.method, name, {[option] = value, [c] = w})
        if ok then return c, w, method end
      end
    end
  end
end

local function survey_bound(name, option, which, defaults, m, h)
  local value = points.declared_bound(wb.method, name, option, which)
  local case = format("%s %s = %s (declared %s)", name, option, tostring(value), which)
  if not value then return fail(case .. ": no declared bound found") end
  counts.bounds = counts.bounds + 1
  local ok, method = pcall(wb.method, name, {[option] = value})
  if ok then
    local stepped, err = steps_ok(method, m, h)
    if not stepped and which == "min" and err:find("raise " .. option, 1, true) then
      counts.capped = counts.capped + 1
      capped[#capped + 1] = format("%s on %s: stops unconverged, as capped: %s", case, m.name,
                                   err:match("failed: (.*)$"):sub(1, 110))
    elseif not stepped then
      fail(format("%s on %s, h = %.3g .. h/1e8: %s", case, m.name, h, err:sub(1, 300)))
    elseif err == 1 then
      counts.stepped = counts.stepped + 1
    else
      counts.smaller = counts.smaller + 1
      smaller[#smaller + 1] = format("%s on %s: steps from h/%g (h = %.3g)", case, m.name, err, h)
    end
    return
  end
  local refusal = tostring(method)
  local c, w, accepted = accepting_choice(name, option, value, defaults)
  if not c then return fail(case .. ": refused at every choice: " .. refusal:sub(1, 300)) end
  local names = format("%s = %g", option, value)
  local condition, elsewhere = format("%s = '%s'", c, defaults[c]), format("'%s'", w)
  if not (refusal:find(names, 1, true) and refusal:find(condition, 1, true)
          and refusal:find(elsewhere, 1, true)) then
    return fail(format("%s: the refusal does not name '%s', \"%s\" and where it is accepted, "
                       .. "%s: %s", case, names, condition, elsewhere, refusal:sub(1, 300)))
  end
  local stepped, err = steps_ok(accepted, m, h)
  if not stepped then
    return fail(format("%s, %s = '%s' on %s: %s", case, c, w, m.name, err:sub(1, 300)))
  end
  if err ~= 1 then
    return fail(format("%s, %s = '%s' on %s steps only from h/%g", case, c, w, m.name, err))
  end
  counts.conditional = counts.conditional + 1
  conditional[#conditional + 1] = format("%s: refused with %s, steps with %s = '%s'", case,
                                         condition, c, w)
end

for _, name in ipairs(wb.list_methods()) do
  if not only or name == only or name:match("%.(.*)$") == only then
    local defaults = wb.method(name).options
    local numeric = sorted_keys(defaults, "number")
    if #numeric > 0 then
      local m, h = home(name, models)
      if not m then
        fail(name .. ": no model it applies to steps at its defaults")
      else
        for _, option in ipairs(numeric) do
          survey_bound(name, option, "min", defaults, m, h)
          survey_bound(name, option, "max", defaults, m, h)
        end
      end
    end
  end
end

for _, line in ipairs(smaller) do wb.printf("  %s\n", line) end
for _, line in ipairs(capped) do wb.printf("  %s\n", line) end
for _, line in ipairs(conditional) do wb.printf("  %s\n", line) end
for _, line in ipairs(findings) do wb.printf("  FAIL %s\n", line) end
wb.check(counts.failed == 0 and counts.bounds > 0,
         format("option bounds: %d tried, %d stepped at the survey's step, %d at a smaller "
                .. "one, %d iteration caps stopped an unconverged step as asked, %d accepted "
                .. "and stepped only at another choice (each listed), %d failed", counts.bounds,
                counts.stepped, counts.smaller, counts.capped, counts.conditional, counts.failed))
