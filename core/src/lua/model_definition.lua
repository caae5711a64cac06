-- model_definition.lua -- wb.define_model: a model written in the script
-- (embedded in the binary; the C half, core/src/lua/lua_model_definition.c,
-- registers it as a model plugin whose functions call back into Lua).
--
--   local m = wb.define_model{
--     name = "my_pendulum",                      -- [a-z][a-z0-9_]*, unique
--     nq = 2,
--     params = {m = 1, l = 1, g = {9.81, min = 0, doc = "gravity"}},
--     mass = function(q, P) return P.m end,      -- number, diagonal, matrix or function(q, P)
--     potential = function(q, P) return P.m * P.g * q[2] end,
--     constraints = function(q, P) return {(q[1]^2 + q[2]^2 - P.l^2) / 2} end,  -- optional
--     invariants = {L = function(q, p, P) ... end},                            -- optional
--     initial = function(P) return {P.l, 0}, {0, 1} end,                       -- optional
--   }
--
-- Derivatives are exact: forward-mode automatic differentiation (wb.ad)
-- of the functions given.  The gradient and Hessian of V, the constraint
-- Jacobian and the contractions of D^2 g and D^3 g, d/dq of the kinetic
-- energy for a configuration-dependent mass, and the generator xi(q) of
-- each invariant that is a momentum map J = p . xi(q) (found by
-- differentiating J in p).
local wb = ...
local ad = wb.ad

local format, sort, concat = string.format, table.sort, table.concat
local value = ad.value

-- The script's frame nearest to the caller: the first one that is neither
-- C nor one of the workbench's embedded chunks (named "=..."), as a level
-- for error() counted from the function that calls this one.
local function user_level()
  local level = 3
  while true do
    local info = debug.getinfo(level, "S")
    if not info then return 0 end -- called from C alone: no line to point at
    if info.what ~= "C" and info.source:sub(1, 1) ~= "=" then return level - 1 end
    level = level + 1
  end
end

local function user_location()
  local level = 2
  while true do
    local info = debug.getinfo(level, "Sl")
    if not info then return "Lua" end
    if info.what ~= "C" and info.source:sub(1, 1) ~= "=" then
      return format("%s:%d", info.short_src, info.currentline)
    end
    level = level + 1
  end
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

local known_fields = {name = true, doc = true, nq = true, params = true, mass = true,
                      potential = true, constraints = true, invariants = true,
                      initial = true}
local field_list = "name, doc, nq, params, mass, potential, constraints, invariants, initial"

---------------------------------------------------------------------------
-- The definition: the spec checked and put in order
---------------------------------------------------------------------------
local function parameter_list(params, fail)
  local list = {}
  if params == nil then return list end
  if type(params) ~= "table" then fail("'params' must be a table {name = default, ...}") end
  for _, name in ipairs(sorted_keys(params)) do
    local spec = params[name]
    if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
      fail(format("parameter name %s must be letters, digits and '_' (not starting with a digit)",
                  tostring(name)))
    end
    local p = {name = name, min = -math.huge, max = math.huge, doc = ""}
    if type(spec) == "number" then
      p.default = spec
    elseif type(spec) == "table" and type(spec[1]) == "number" then
      p.default = spec[1]
      for k, v in pairs(spec) do
        if k == "min" or k == "max" then
          if type(v) ~= "number" then fail(format("parameter '%s': %s must be a number", name, k)) end
          p[k] = v
        elseif k == "doc" then
          p.doc = tostring(v)
          if p.doc:find("\0", 1, true) then
            fail(format("parameter '%s': doc holds a NUL byte, which a C string cannot hold", name))
          end
        elseif k ~= 1 then
          fail(format("parameter '%s': unknown field '%s' (fields: [1] the default, min, max, doc)",
                      name, tostring(k)))
        end
      end
    else
      fail(format("parameter '%s' must be a number (its default) or {default, min =, max =, doc =}",
                  name))
    end
    if not (p.min <= p.default and p.default <= p.max) then
      fail(format("parameter '%s': default %g outside [%g, %g]", name, p.default, p.min, p.max))
    end
    list[#list + 1] = p
  end
  return list
end

local function invariant_list(invariants, fail)
  local list = {}
  if invariants == nil then return list end
  if type(invariants) ~= "table" then
    fail("'invariants' must be a table {name = function(q, p, P), ...}")
  end
  if #invariants > 0 then -- a list {{"name", f}, ...} keeps its order
    for i, entry in ipairs(invariants) do
      if type(entry) ~= "table" or type(entry[1]) ~= "string" or type(entry[2]) ~= "function" then
        fail(format("invariants[%d] must be {\"name\", function(q, p, P)}", i))
      end
      list[#list + 1] = {name = entry[1], f = entry[2]}
    end
  else
    for _, name in ipairs(sorted_keys(invariants)) do
      if type(invariants[name]) ~= "function" then
        fail(format("invariant '%s' must be a function(q, p, P)", tostring(name)))
      end
      list[#list + 1] = {name = name, f = invariants[name]}
    end
  end
  local reserved = {t = true, energy = true, energy_error = true, energy_error_abs = true,
                    constraint = true, hidden_constraint = true}
  for _, inv in ipairs(list) do
    if not inv.name:match("^[%a_][%w_]*$") or reserved[inv.name] then
      fail(format("invariant name '%s' must be an identifier and not a solution column "
                  .. "(t, energy, constraint, ...)", inv.name))
    end
  end
  return list
end

local function check_spec(spec, who)
  local function fail(message) error(who .. ": " .. message, user_level()) end
  if type(spec) ~= "table" then fail("give a table {name =, nq =, potential =, ...}") end
  for k in pairs(spec) do
    if not known_fields[k] then
      fail(format("unknown field '%s' (fields: %s)", tostring(k), field_list))
    end
  end
  if type(spec.name) ~= "string" or not spec.name:match("^[a-z][a-z0-9_]*$") then
    fail("field 'name' must be a name of lower-case letters, digits and '_' (e.g. \"my_pendulum\")")
  end
  local name = spec.name
  local function failn(message) fail(format("model '%s': %s", name, message)) end
  if math.type(spec.nq) ~= "integer" and not (type(spec.nq) == "number" and spec.nq % 1 == 0) then
    failn("field 'nq' (the number of coordinates) must be a whole number")
  end
  if spec.nq < 1 or spec.nq > 200 then failn("field 'nq' must be between 1 and 200") end
  if type(spec.potential) ~= "function" then
    failn("field 'potential' must be a function(q, P) returning V(q)")
  end
  for _, f in ipairs{"constraints", "initial"} do
    if spec[f] ~= nil and type(spec[f]) ~= "function" then
      failn(format("field '%s' must be a function", f))
    end
  end
  if spec.doc ~= nil and tostring(spec.doc):find("\0", 1, true) then
    failn("field 'doc' holds a NUL byte, which a C string cannot hold")
  end
  local mass = spec.mass == nil and 1 or spec.mass
  if type(mass) ~= "number" and type(mass) ~= "table" and type(mass) ~= "function" then
    failn("field 'mass' must be a number, a table (diagonal or matrix) or a function(q, P)")
  end
  return {
    name = name,
    doc = spec.doc and tostring(spec.doc) or "a model defined in Lua",
    nq = math.tointeger(spec.nq),
    params = parameter_list(spec.params, failn),
    mass = mass,
    potential = spec.potential,
    constraints = spec.constraints,
    invariants = invariant_list(spec.invariants, failn),
    initial = spec.initial,
    origin = user_location(),
  }
end

---------------------------------------------------------------------------
-- Evaluation: the functions as the C half calls them, for one parameter set
---------------------------------------------------------------------------

-- A user function's result, checked: what it returned and how to say so.
local function describe(x)
  if type(x) == "table" and not ad.is_number(x) then return format("a table of %d", #x) end
  return type(x) == "table" and "a number" or type(x)
end

local function as_number(x, what)
  if not ad.is_number(x) then
    error(format("%s must return a number, got %s", what, describe(x)), 0)
  end
  return x
end

local function as_vector(x, count, what)
  if ad.is_number(x) and count == 1 then return {x} end
  if type(x) ~= "table" or ad.is_number(x) or #x ~= count then
    error(format("%s must return a table of %d numbers, got %s", what, count, describe(x)), 0)
  end
  for i = 1, count do
    if not ad.is_number(x[i]) then
      error(format("%s: entry %d must be a number, got %s", what, i, type(x[i])), 0)
    end
  end
  return x
end

-- M as n*n number-likes, row-major, from a number, a diagonal or a matrix
local function flat_mass(raw, n)
  local M = {}
  if ad.is_number(raw) then
    for i = 1, n * n do M[i] = 0 end
    for i = 1, n do M[(i - 1) * n + i] = raw end
    return M
  end
  if type(raw) ~= "table" or #raw ~= n then
    error(format("mass must be a number, %d diagonal entries or a %d x %d matrix, got %s", n, n,
                 n, describe(raw)), 0)
  end
  if type(raw[1]) == "table" and not ad.is_number(raw[1]) then
    for i = 1, n do
      local row = raw[i]
      if type(row) ~= "table" or #row ~= n then
        error(format("mass: row %d must hold %d numbers", i, n), 0)
      end
      for j = 1, n do M[(i - 1) * n + j] = as_number(row[j], "mass") end
    end
    return M
  end
  for i = 1, n * n do M[i] = 0 end
  for i = 1, n do M[(i - 1) * n + i] = as_number(raw[i], "mass") end
  return M
end

-- solve M v = p for a small symmetric positive definite M (Cholesky)
local function spd_solve(M, p, n)
  local L = {}
  for i = 1, n do
    for j = 1, i do
      local s = M[(i - 1) * n + j]
      for k = 1, j - 1 do s = s - L[(i - 1) * n + k] * L[(j - 1) * n + k] end
      if i == j then
        if not (s > 0) then error("mass matrix is not positive definite", 0) end
        L[(i - 1) * n + i] = math.sqrt(s)
      else
        L[(i - 1) * n + j] = s / L[(j - 1) * n + j]
      end
    end
  end
  local y, v = {}, {}
  for i = 1, n do
    local s = p[i]
    for k = 1, i - 1 do s = s - L[(i - 1) * n + k] * y[k] end
    y[i] = s / L[(i - 1) * n + i]
  end
  for i = n, 1, -1 do
    local s = y[i]
    for k = i + 1, n do s = s - L[(k - 1) * n + i] * v[k] end
    v[i] = s / L[(i - 1) * n + i]
  end
  return v
end

-- The evaluator of one instance: an array of functions the C half calls by
-- index (see lua_model_definition.c), each returning a number or a flat
-- table of numbers.
local function evaluator(def, P, shape)
  local n, m, k = def.nq, shape.m, #def.invariants
  local S1, S2 = ad.space(n, 1), ad.space(n, 2)
  local potential, constraints, initial = def.potential, def.constraints, def.initial
  local mass = def.mass
  local mass_of
  if type(mass) == "function" then
    mass_of = function(q) return flat_mass(mass(q, P), n) end
  else
    local constant = flat_mass(mass, n)
    mass_of = function() return constant end
  end
  local function g_of(x)
    return as_vector(constraints(x, P), m, "constraints")
  end
  local function numbers(t, count)
    local out = {}
    for i = 1, count do out[i] = value(t[i]) end
    return out
  end
  local E = {}
  E[1] = function(q) return value(as_number(potential(q, P), "potential")) end
  E[2] = function(q)
    return S1.gradient(as_number(potential(S1.seed(q), P), "potential"))
  end
  E[3] = function(q)
    return S2.hessian(as_number(potential(S2.seed(q), P), "potential"))
  end
  E[4] = function(q) return numbers(mass_of(q), n * n) end
  -- d/dq 1/2 p^T M(q)^-1 p = -1/2 v^T (dM/dq_k) v, v = M^-1 p
  E[5] = function(q, p)
    local v = spd_solve(numbers(mass_of(q), n * n), p, n)
    local Mx = mass_of(S1.seed(q))
    local out, d = {}, {}
    for c = 1, n do out[c] = 0 end
    for i = 1, n do
      for j = 1, n do
        S1.gradient(Mx[(i - 1) * n + j], d)
        local w = -0.5 * v[i] * v[j]
        for c = 1, n do out[c] = out[c] + w * d[c] end
      end
    end
    return out
  end
  E[6] = function(q) return numbers(g_of(q), m) end
  E[7] = function(q)
    local g, out = g_of(S1.seed(q)), {}
    for r = 1, m do S1.gradient(g[r], out, (r - 1) * n) end
    return out
  end
  -- sum_r mu_r D^2 g_r
  E[8] = function(q, mu)
    local g, out, H = g_of(S2.seed(q)), {}, {}
    for i = 1, n * n do out[i] = 0 end
    for r = 1, m do
      S2.hessian(g[r], H)
      for i = 1, n * n do out[i] = out[i] + mu[r] * H[i] end
    end
    return out
  end
  -- row r: (D^2 g_r w)^T
  E[9] = function(q, w)
    local g, out, H = g_of(S2.seed(q)), {}, {}
    for r = 1, m do
      S2.hessian(g[r], H)
      for i = 1, n do
        local s = 0
        for j = 1, n do s = s + H[(i - 1) * n + j] * w[j] end
        out[(r - 1) * n + i] = s
      end
    end
    return out
  end
  -- sum_r mu_r D^3 g_r w: the Hessian's derivative along w, from a jet of
  -- order 2 whose coefficients are duals in the direction w
  E[10] = function(q, mu, w)
    local x = {}
    for i = 1, n do x[i] = ad.dual(q[i], w[i]) end
    local g, out, H = g_of(S2.seed(x)), {}, {}
    for i = 1, n * n do out[i] = 0 end
    for r = 1, m do
      S2.hessian(g[r], H)
      for i = 1, n * n do
        local h = H[i]
        if type(h) == "table" then out[i] = out[i] + mu[r] * value(h[2]) end
      end
    end
    return out
  end
  E[11] = function(q, p)
    local out = {}
    for i, inv in ipairs(def.invariants) do
      out[i] = value(as_number(inv.f(q, p, P), format("invariant '%s'", inv.name)))
    end
    return out
  end
  -- xi(q) = dJ/dp for an invariant linear in p, else nil
  E[12] = function(i, q)
    if not shape.momentum_map[i] then return nil end
    local zero = {}
    for c = 1, n do zero[c] = 0 end
    local inv = def.invariants[i]
    return S1.gradient(as_number(inv.f(q, S1.seed(zero), P), format("invariant '%s'", inv.name)))
  end
  E[13] = function()
    local q, p = initial(P)
    q = as_vector(q, n, "initial (q)")
    if p == nil then
      p = {}
      for i = 1, n do p[i] = 0 end
    end
    p = as_vector(p, n, "initial (p)")
    local out = {}
    for i = 1, n do out[i], out[n + i] = value(q[i]), value(p[i]) end
    return out
  end
  return E
end

---------------------------------------------------------------------------
-- The shape: what the C half declares, found by evaluating the functions
-- once with the default parameters
---------------------------------------------------------------------------
local function default_params(def)
  local P = {}
  for _, p in ipairs(def.params) do P[p.name] = p.default end
  return P
end

-- a point to probe the functions at: the initial state, or a generic q
local function probe_point(def, P)
  if def.initial then
    local q, p = def.initial(P)
    q = as_vector(q, def.nq, "initial (q)")
    if p ~= nil then as_vector(p, def.nq, "initial (p)") end
    local qn, pn = {}, {}
    for i = 1, def.nq do qn[i], pn[i] = value(q[i]), p and value(p[i]) or 0 end
    return qn, pn
  end
  local q, p = {}, {}
  for i = 1, def.nq do q[i], p[i] = 0.3 + 0.17 * i, 0.25 - 0.11 * i end
  return q, p
end

local function find_shape(def)
  local P = default_params(def)
  local n = def.nq
  local q, p = probe_point(def, P)
  local shape = {m = 0, momentum_map = {}}
  as_number(def.potential(q, P), "potential")
  if def.constraints then
    local g = def.constraints(q, P)
    if ad.is_number(g) then
      shape.m = 1
    elseif type(g) == "table" then
      shape.m = #g
    else
      error(format("constraints must return a table of numbers, got %s", type(g)), 0)
    end
    if shape.m == 0 then error("constraints returned no values", 0) end
    as_vector(g, shape.m, "constraints")
    shape.quadratic = true
    for _, d in ipairs(ad.degree(function(x) return as_vector(def.constraints(x, P), shape.m,
                                                              "constraints") end, q)) do
      if d > 2 then shape.quadratic = false end
    end
  end
  -- the mass is constant when a function of q returns plain numbers for
  -- differentiable q
  if type(def.mass) == "function" then
    local S1 = ad.space(n, 1)
    local M = flat_mass(def.mass(S1.seed(q), P), n)
    shape.mass_constant = true
    for i = 1, n * n do
      if type(M[i]) ~= "number" then shape.mass_constant = false end
    end
  else
    flat_mass(def.mass, n)
    shape.mass_constant = true
  end
  -- an invariant is a momentum map when it is linear and homogeneous in p:
  -- J(q, 0) = 0 and D_p^2 J = 0 (exactly, by the jets)
  local S2 = ad.space(n, 2)
  for i, inv in ipairs(def.invariants) do
    local J = as_number(inv.f(q, S2.seed(p), P), format("invariant '%s'", inv.name))
    local zero = {}
    for c = 1, n do zero[c] = 0 end
    local J0 = value(as_number(inv.f(q, zero, P), format("invariant '%s'", inv.name)))
    local linear = J0 == 0 and S2.owns(J)
    if linear then
      for _, h in ipairs(S2.hessian(J)) do
        if h ~= 0 then linear = false end
      end
    end
    shape.momentum_map[i] = linear
  end
  return shape
end

---------------------------------------------------------------------------
-- wb.define_model
---------------------------------------------------------------------------
-- The spec checked and its shape found (also for wb.compile_model).
function wb._prepare_model(spec, who)
  local def = check_spec(spec, who)
  local ok, shape = pcall(find_shape, def)
  if not ok then
    error(format("%s: model '%s': %s", who, def.name, tostring(shape)), user_level())
  end
  def.shape = shape
  return def
end
wb._user_level, wb._user_location = user_level, user_location
wb._script_models = {} -- the names wb.define_model and wb.compile_model made, in order
wb._flat_mass, wb._as_vector, wb._as_number = flat_mass, as_vector, as_number
-- wb.compile_model compares what it compiled with these (the model's twin)
wb._evaluator, wb._probe_point = evaluator, probe_point

function wb.define_model(spec)
  local def = wb._prepare_model(spec, "wb.define_model")
  local shape = def.shape
  -- what the C half keeps: the instance factory and the static facts
  local names = {}
  for i, inv in ipairs(def.invariants) do names[i] = inv.name end
  local declaration = {
    name = def.name, doc = def.doc, origin = def.origin, nq = def.nq, params = def.params,
    n_constraints = shape.m, mass_constant = shape.mass_constant,
    constraints_quadratic = shape.quadratic or false,
    invariant_names = names, has_initial = def.initial ~= nil,
    instance = function(values)
      local P = {}
      for i, p in ipairs(def.params) do P[p.name] = values[i] end
      return evaluator(def, P, shape)
    end,
  }
  local registered, why = wb._register_model(declaration)
  if not registered then error("wb.define_model: " .. why, user_level()) end
  wb._model_definitions = wb._model_definitions or {}
  wb._model_definitions[def.name] = def
  wb._script_models[#wb._script_models + 1] = def.name
  return wb.model(def.name)
end
