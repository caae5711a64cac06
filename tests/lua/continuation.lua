-- Carried unknowns are state: for every installed method, a run to T
-- continued to 2T from sol:final() (q, p and the carried unknowns) equals
-- one run to 2T bit for bit -- positions, momenta and every aux value.
-- The control: restarting from q, p alone (the method recomputes what it
-- carries) differs for the methods that carry something, so the check can
-- fail.
--
-- Every method also counts its force evaluations (at least one a step).
--
-- Models are tried in order until one the method applies to; the test's
-- plugin path adds the toy models with velocity constraints and on groups.

local candidates = {"spherical_pendulum", "kepler", "angle_pendulum", "free_rigid_body",
                    "rotor_driven", "nh_particle", "heavy_top"}
local available = {}
for _, name in ipairs(wb.list_models()) do available[name] = true end

local function model_for(method)
  for _, name in ipairs(candidates) do
    if available[name] then
      local m = wb.model(name)
      if method:applies_to(m) then return m end
    end
  end
end

local function identical(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do
    if a[i] ~= b[i] then return false end
  end
  return true
end

local function same_state(q1, p1, a1, q2, p2, a2)
  if not (identical(q1, q2) and identical(p1, p2)) then return false end
  for name, values in pairs(a1) do
    if not (a2[name] and identical(values, a2[name])) then return false end
  end
  return true
end

local h, n = 0.01, 25
local carrying, differed = 0, 0
for _, name in ipairs(wb.list_methods()) do
  local method = wb.method(name)
  local model = model_for(method)
  wb.check(model ~= nil, name .. ": a test model it applies to")
  if model then
    local whole = wb.integrate{model = model, method = method, h = h, steps = 2 * n}
    local half = wb.integrate{model = model, method = method, h = h, steps = n}
    local q, p, aux = half:final()
    local rest = wb.integrate{model = model, method = method, h = h, steps = n,
                              t0 = half.t_final, q0 = q, p0 = p, aux0 = aux}
    local q1, p1, a1 = whole:final()
    local q2, p2, a2 = rest:final()
    local names = {}   -- the groups with values: a multiplier of a model without
    for k, v in pairs(aux) do  -- that kind of constraint has none, and carries nothing
      if #v > 0 then names[#names + 1] = k end
    end
    table.sort(names)
    wb.check(same_state(q1, p1, a1, q2, p2, a2),
             string.format("%s on %s: T then T again = 2T, bit for bit (carries: %s)", name,
                           model.name, #names > 0 and table.concat(names, ", ") or "nothing"))
    -- work-precision diagrams and wb.work_for_error read this count
    wb.check(whole.stats.function_evals >= whole.stats.steps,
             string.format("%s on %s: counts its force evaluations (%d in %d steps)", name,
                           model.name, whole.stats.function_evals, whole.stats.steps))
    if #names > 0 then
      carrying = carrying + 1
      local restart = wb.integrate{model = model, method = method, h = h, steps = n,
                                   t0 = half.t_final, q0 = q, p0 = p}
      local q3, p3, a3 = restart:final()
      if not same_state(q1, p1, a1, q3, p3, a3) then differed = differed + 1 end
    end
  end
end
wb.check(carrying >= 8 and differed >= carrying - 2,
         string.format("control: restarting without aux0 changes the result for %d of the %d "
                       .. "methods that carry unknowns", differed, carrying))
