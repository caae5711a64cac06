-- The range survey's enumeration, shared by ranges.lua (does each method
-- step?) and accuracy.lua (are its numbers right?): every model at every
-- declared parameter bound and, where two or more decades lie between the
-- default and a bound, the decade halfway (in log) between them, with the
-- survey's step: 1/100 of the time scale of the initial state.
--   local points = dofile(dir .. "/range_points.lua")
--   points.each{suite = bool, model = name or nil, interior = bool,
--               heavy = bool, select = function(model, param) or nil}(visit)
-- suite leaves out `heavy` and the interior values of `heavy_interior`;
-- heavy = false leaves out `heavy` alone; select, when given, the
-- parameters it returns false for (before their models are made).
-- visit(point) per parameter value: point.model (name), .param, .which
-- ("min" | "max"), .value, .bound, .interior (value is not the bound),
-- .m (the model, or nil and .err when wb.model refused it), .h.
local points = {}

-- pendulum_chain at N = 10000: the dense methods allocate and clear
-- gigabytes (SHAKE's m x n matrices: 4.8 GB) and take 265 of the survey's
-- 270 CPU seconds; the suite leaves it to the full survey.
points.heavy = {["pendulum_chain N max"] = true}
-- The interior values of these models cost 0.2 .. 0.5 s each (1.9 of the
-- interior values' 3.5 CPU seconds); the suite leaves them to the full
-- survey to stay under ~10 s.
points.heavy_interior = {four_particles = true, outer_solar_system = true}

local function max_abs(v) local m = 0 for _, x in ipairs(v) do m = math.max(m, math.abs(x)) end return m end
points.max_abs = max_abs

-- The estimate sees the velocities and the potential's gradient at the
-- start only: a model whose fast scale is elsewhere (a stiff spring at rest,
-- the Lie-group models, whose force it does not see) needs smaller steps.
function points.time_scale(m)
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

-- The declared bound of a model's parameter (make = wb.model) or a
-- method's option (make = wb.method), read from the error an out-of-range
-- value gets (the one place the Lua API states the range).
function points.declared_bound(make, name, key, which)
  local _, err = pcall(make, name, {[key] = which == "min" and -1e308 or 1e308})
  local lo, hi = tostring(err):match("outside %[([^,]+), ([^%]]+)%]")
  return tonumber(which == "min" and lo or hi)
end
local function declared_bound(name, pname, which)
  return points.declared_bound(wb.model, name, pname, which)
end

function points.each(opts)
  return function(visit)
    for _, name in ipairs(wb.list_models()) do
      if not opts.model or name == opts.model then
        local info = wb.model(name)
        local specs = {}
        for pname in pairs(info.params) do specs[#specs + 1] = pname end
        table.sort(specs)
        for _, pname in ipairs(specs) do
          for _, which in ipairs{"min", "max"} do
            local skip_heavy = opts.suite or opts.heavy == false
            if not (skip_heavy and points.heavy[name .. " " .. pname .. " " .. which])
               and (not opts.select or opts.select(name, pname)) then
              local bound = declared_bound(name, pname, which)
              local values = {bound}
              local default = info.params[pname]
              if opts.interior ~= false and bound and type(default) == "number" and default > 0 and bound > 0
                 and not (opts.suite and points.heavy_interior[name]) then
                local decades = math.log(bound / default, 10)
                if math.abs(decades) >= 2 then
                  values[2] = default * 10.0^math.floor(decades / 2 + 0.5)
                end
              end
              for _, value in ipairs(values) do
                local okm, m = pcall(wb.model, name, {[pname] = value})
                visit{model = name, param = pname, which = which, value = value, bound = bound,
                      interior = value ~= bound, m = okm and m or nil, err = not okm and m or nil,
                      h = okm and points.time_scale(m) / 100 or nil}
              end
            end
          end
        end
      end
    end
  end
end

return points
