-- Every model at every declared parameter bound, with every method that
-- applies, at a step of 1/100 of the time scale of its initial state (a
-- survey, not a test: workbench tests/fuzz/ranges.lua).  Prints each run
-- that failed or was refused and the counts; the report of issue 13 quotes
-- them.  A bound where a model cannot be created or no method can step is a
-- declared range that is not the accepted one.
local function max_abs(v) local m = 0 for _, x in ipairs(v) do m = math.max(m, math.abs(x)) end return m end
local function time_scale(m)
  local q, p = m:initial()
  local qs = math.max(max_abs(q), 1e-300)
  local tau = math.huge
  local okv, v = pcall(m.velocity, m, q, p)
  if okv and max_abs(v) > 0 then tau = math.min(tau, qs / max_abs(v)) end
  local okg, g = pcall(m.gradient, m, q)
  if okg then
    local okm, M = pcall(m.mass, m, q)
    local a = max_abs(g) / (okm and M[1][1] or 1)
    if a > 0 then tau = math.min(tau, math.sqrt(qs / a)) end
  end
  return tau < math.huge and tau or 1
end
local methods = wb.list_methods()
local counts = {runs = 0, ok = 0, ok_smaller = 0, refused = 0, failed = 0, model_refused = 0}
local failures = {}
for _, name in ipairs(wb.list_models()) do
  local info = wb.model(name)
  local specs = {}
  -- parameter names from m.params
  for pname in pairs(info.params) do specs[#specs + 1] = pname end
  table.sort(specs)
  for _, pname in ipairs(specs) do
    for _, which in ipairs{"min", "max"} do
      -- find range: try via error message of an out-of-range value
      local ok, err = pcall(wb.model, name, {[pname] = which == "min" and -1e308 or 1e308})
      local lo, hi = tostring(err):match("outside %[([^,]+), ([^%]]+)%]")
      local value = tonumber(which == "min" and lo or hi)
      if value then
        local okm, m = pcall(wb.model, name, {[pname] = value})
        if not okm then
          counts.model_refused = counts.model_refused + 1
          failures[#failures + 1] = string.format("%s %s=%s: model refused: %s", name, pname, tostring(value), tostring(m):sub(1, 160))
        else
          local h = time_scale(m) / 100
          for _, mname in ipairs(methods) do
            local meth = wb.method(mname)
            if meth:applies_to(m) then
              counts.runs = counts.runs + 1
              local okr, sol = pcall(wb.integrate, {model = m, method = meth, h = h, steps = 20, every = 20})
              if okr then counts.ok = counts.ok + 1
              elseif tostring(sol):find("failed:") then
                -- a step too large for a multi-scale extreme, or a method
                -- that fails at any step: smaller steps tell them apart
                local smaller
                for k = 1, 4 do
                  if pcall(wb.integrate, {model = m, method = meth, h = h / 10^k, steps = 20, every = 20}) then
                    smaller = k
                    break
                  end
                end
                if smaller then
                  counts.ok_smaller = counts.ok_smaller + 1
                else
                  counts.failed = counts.failed + 1
                end
                failures[#failures + 1] = string.format("%s %s=%s h=%.3g %s: %s%s", name, pname, tostring(value), h, mname,
                  smaller and string.format("[steps at h/1e%d] ", smaller) or "[fails down to h/1e4] ", tostring(sol):sub(1, 200))
              else
                counts.refused = counts.refused + 1
                failures[#failures + 1] = string.format("REFUSED %s %s=%s %s: %s", name, pname, tostring(value), mname, tostring(sol):sub(1, 160))
              end
            end
          end
        end
      end
    end
  end
end
for _, f in ipairs(failures) do print(f) end
print(string.format("runs %d ok %d ok-at-a-smaller-step %d failed-at-every-step %d refused %d models refused %d",
  counts.runs, counts.ok, counts.ok_smaller, counts.failed, counts.refused, counts.model_refused))
