-- autodiff.lua -- wb.ad: exact derivatives of Lua functions by forward-mode
-- automatic differentiation (embedded in the binary).
--
-- A number-like value is a plain number or one of these objects:
--
--   jet of order 1 in n variables: value, gradient (n)
--   jet of order 2 in n variables: value, gradient, Hessian (packed, i <= j)
--   dual: value and one directional derivative
--
-- Their coefficients are themselves number-like, so jets nest: a jet of
-- order 2 whose coefficients are duals along w carries the third
-- derivatives contracted with w (what wb.holonomic/1's third_contract is).
-- Arithmetic (+ - * / ^ unary -), comparisons (by value) and the math
-- library (sin cos tan asin acos atan exp log sqrt abs max min floor ceil)
-- accept them: the math functions are wrapped once, when the module
-- loads, and behave exactly as before on numbers.
--
--   wb.ad.gradient(f, x)   -> f(x), grad f(x)              (x a table of numbers)
--   wb.ad.hessian(f, x)    -> f(x), grad f(x), Hessian      (n x n)
--   wb.ad.jacobian(F, x)   -> F(x), dF/dx                   (F returns a table)
--   wb.ad.value(y)         -> the plain number under any number-like y
--   wb.ad.is_number(y)     -> true for numbers and number-like objects
local wb = ...

local ad = {}
wb.ad = ad

local type, getmetatable, setmetatable, error, select = type, getmetatable, setmetatable,
                                                        error, select
local format = string.format

-- the math library as it was: numbers only
local M = {}
for _, name in ipairs{"sin", "cos", "tan", "asin", "acos", "atan", "exp", "log", "sqrt",
                      "abs", "max", "min", "floor", "ceil"} do
  M[name] = math[name]
end

local function value(x)
  while type(x) == "table" do x = x[1] end
  return x
end
ad.value = value

-- Every number-like metatable has __wb_ad = its kind and __wb_math = the
-- table of its elementary functions.
local function kind_of(x)
  local mt = getmetatable(x)
  return mt and mt.__wb_ad
end

function ad.is_number(x)
  return type(x) == "number" or kind_of(x) ~= nil
end

-- The generic elementary functions: numbers to the C library, objects to
-- their own implementation.
local G = {}

local function dispatch(name, x, ...)
  local mt = getmetatable(x)
  local f = mt and mt.__wb_math and mt.__wb_math[name]
  if not f then
    error(format("bad argument #1 to 'math.%s' (number expected, got %s)", name,
                 type(x) == "table" and "table" or type(x)), 3)
  end
  return f(x, ...)
end

for _, name in ipairs{"sin", "cos", "tan", "asin", "acos", "exp", "sqrt"} do
  local f = M[name]
  G[name] = function(x)
    if type(x) == "number" then return f(x) end
    return dispatch(name, x)
  end
end

function G.log(x, base)
  if type(x) == "number" and (base == nil or type(base) == "number") then
    return M.log(x, base)
  end
  if base ~= nil then return G.log(x) / G.log(base) end
  return dispatch("log", x)
end

-- A type's own implementation of a function beyond the smooth ones of one
-- argument (atan2, abs, max, min, floor, ceil), if it has one.
local function own(name, ...)
  for i = 1, select("#", ...) do
    local mt = getmetatable((select(i, ...)))
    local f = mt and mt.__wb_math and mt.__wb_math[name]
    if f then return f end
  end
  return nil
end

-- atan(y [, x]): the angle of (x, y); an object in either argument
function G.atan(y, x)
  if type(y) == "number" and (x == nil or type(x) == "number") then return M.atan(y, x) end
  if x == nil then return dispatch("atan", y) end
  local f = own("atan2", y, x)
  if f then return f(y, x) end
  -- atan2(y, x) = atan2(y0, x0) + atan((x0 y - y0 x) / (x0 x + y0 y)): the second
  -- term is smooth near (x0, y0), vanishes there, and its derivatives are the
  -- derivatives of the angle; x0, y0 keep their own derivative parts when the
  -- objects nest (their coefficients are number-like themselves)
  local x0 = type(x) == "number" and x or x[1]
  local y0 = type(y) == "number" and y or y[1]
  -- (objects first in each product, so that the outer object's arithmetic
  -- treats x0 and y0 as constants when the objects nest)
  local t = G.atan((y * x0 - x * y0) / (x * x0 + y * y0))
  return t + G.atan(y0, x0)
end

function G.abs(x)
  if type(x) == "number" then return M.abs(x) end
  local f = own("abs", x)
  if f then return f(x) end
  if value(x) < 0 then return -x end
  return x
end

function G.floor(x)
  if type(x) == "number" then return M.floor(x) end
  local f = own("floor", x)
  if f then return f(x) end
  return M.floor(value(x))
end

function G.ceil(x)
  if type(x) == "number" then return M.ceil(x) end
  local f = own("ceil", x)
  if f then return f(x) end
  return M.ceil(value(x))
end

local function extreme(name, better, ...)
  local n = select("#", ...)
  if n == 0 then error(format("bad argument #1 to 'math.%s' (number expected, got no value)", name), 3) end
  local plain = true
  for i = 1, n do
    if type((select(i, ...))) ~= "number" then plain = false break end
  end
  if plain then return M[name](...) end
  local f = own(name, ...)
  if f then return f(...) end
  local best = ...
  for i = 2, n do
    local x = select(i, ...)
    if better(value(x), value(best)) then best = x end
  end
  return best
end

function G.max(...) return extreme("max", function(a, b) return a > b end, ...) end
function G.min(...) return extreme("min", function(a, b) return a < b end, ...) end

for name, f in pairs(G) do math[name] = f end
ad.math = G

local gsin, gcos, gtan, gexp, glog, gsqrt = G.sin, G.cos, G.tan, G.exp, G.log, G.sqrt

-- f(a), f'(a), f''(a) of each smooth elementary function at a coefficient a
-- (a number or itself number-like).
local derivatives = {
  sin = function(a) local s, c = gsin(a), gcos(a) return s, c, -s end,
  cos = function(a) local s, c = gsin(a), gcos(a) return c, -s, -c end,
  tan = function(a) local t = gtan(a) local d = 1 + t * t return t, d, 2 * t * d end,
  exp = function(a) local e = gexp(a) return e, e, e end,
  log = function(a) return glog(a), 1 / a, -1 / (a * a) end,
  sqrt = function(a) local s = gsqrt(a) return s, 0.5 / s, -0.25 / (s * a) end,
  asin = function(a)
    local d = 1 - a * a
    local r = 1 / gsqrt(d)
    return G.asin(a), r, a * r / d
  end,
  acos = function(a)
    local d = 1 - a * a
    local r = 1 / gsqrt(d)
    return G.acos(a), -r, -a * r / d
  end,
  atan = function(a)
    local d = 1 / (1 + a * a)
    return G.atan(a), d, -2 * a * d * d
  end,
}

---------------------------------------------------------------------------
-- Spaces: one metatable per (n, order), built once.
---------------------------------------------------------------------------
local spaces = {}

local function build_space(n, order)
  local nh = order == 2 and n * (n + 1) // 2 or 0
  local size = 1 + n + nh
  -- packed Hessian entry k (1-based, i <= j): rows I[k], columns J[k]
  local I, J, index = {}, {}, {}
  if order == 2 then
    local k = 0
    for i = 1, n do
      index[i] = {}
      for j = i, n do
        k = k + 1
        I[k], J[k] = i, j
        index[i][j] = 1 + n + k
      end
    end
  end
  local mt = {__wb_ad = order == 2 and "jet2" or "jet1", __wb_n = n}

  local function new(t) return setmetatable(t, mt) end

  -- a + c and c + a for a number-like constant c
  local function add_constant(a, c)
    local r = {a[1] + c}
    for i = 2, size do r[i] = a[i] end
    return new(r)
  end

  local function scale(a, c)
    local r = {}
    for i = 1, size do r[i] = a[i] * c end
    return new(r)
  end

  -- f(a) from f(a0), f'(a0), f''(a0)
  local function chain(a, f0, f1, f2)
    local r = {f0}
    for i = 2, n + 1 do r[i] = f1 * a[i] end
    if order == 2 then
      for k = 1, nh do
        r[1 + n + k] = f1 * a[1 + n + k] + f2 * a[1 + I[k]] * a[1 + J[k]]
      end
    end
    return new(r)
  end

  local function is_jet(x) return getmetatable(x) == mt end

  mt.__add = function(a, b)
    if not is_jet(a) then return add_constant(b, a) end
    if not is_jet(b) then return add_constant(a, b) end
    local r = {}
    for i = 1, size do r[i] = a[i] + b[i] end
    return new(r)
  end
  mt.__sub = function(a, b)
    if not is_jet(a) then
      local r = {a - b[1]}
      for i = 2, size do r[i] = -b[i] end
      return new(r)
    end
    if not is_jet(b) then return add_constant(a, -b) end
    local r = {}
    for i = 1, size do r[i] = a[i] - b[i] end
    return new(r)
  end
  mt.__unm = function(a)
    local r = {}
    for i = 1, size do r[i] = -a[i] end
    return new(r)
  end
  local function mul(a, b)
    if not is_jet(a) then return scale(b, a) end
    if not is_jet(b) then return scale(a, b) end
    local a0, b0 = a[1], b[1]
    local r = {a0 * b0}
    for i = 2, n + 1 do r[i] = a0 * b[i] + b0 * a[i] end
    if order == 2 then
      for k = 1, nh do
        local p, i, j = 1 + n + k, 1 + I[k], 1 + J[k]
        r[p] = a0 * b[p] + b0 * a[p] + a[i] * b[j] + a[j] * b[i]
      end
    end
    return new(r)
  end
  mt.__mul = mul
  local function reciprocal(b)
    local b0 = b[1]
    local r = 1 / b0
    return chain(b, r, -r * r, 2 * r * r * r)
  end
  mt.__div = function(a, b)
    if not is_jet(b) then return scale(a, 1 / b) end
    return mul(a, reciprocal(b))
  end
  mt.__pow = function(a, b)
    if not is_jet(b) then
      if not is_jet(a) then error("wb.ad: power of two foreign values", 2) end
      if b == 2 then return mul(a, a) end
      if b == 1 then return a end
      if b == 0 then return 1 end
      local a0 = a[1]
      return chain(a, a0 ^ b, b * a0 ^ (b - 1), b * (b - 1) * a0 ^ (b - 2))
    end
    -- c^b and a^b with b a jet: exp(b log a)
    return gexp(b * glog(a))
  end
  mt.__eq = function(a, b) return value(a) == value(b) end
  mt.__lt = function(a, b) return value(a) < value(b) end
  mt.__le = function(a, b) return value(a) <= value(b) end
  mt.__tostring = function(a)
    return format("jet(order %d, n %d, value %s)", order, n, tostring(value(a)))
  end
  mt.__concat = function(a, b)
    return (type(a) == "table" and tostring(a) or a) .. (type(b) == "table" and tostring(b) or b)
  end
  local fns = {}
  for name, d in pairs(derivatives) do
    fns[name] = function(a) return chain(a, d(a[1])) end
  end
  mt.__wb_math = fns

  local space = {n = n, order = order, size = size, mt = mt, index = index, I = I, J = J}

  -- the variables x_i = x[i] + e_i, with coefficient values x[i] (numbers
  -- or number-like)
  function space.seed(x)
    local vars = {}
    for v = 1, n do
      local r = {x[v]}
      for i = 2, size do r[i] = 0 end
      r[1 + v] = 1
      vars[v] = new(r)
    end
    return vars
  end

  function space.owns(y) return is_jet(y) end

  -- derivatives of a result y (a jet of this space or a constant)
  function space.gradient(y, out, offset)
    out, offset = out or {}, offset or 0
    if is_jet(y) then
      for i = 1, n do out[offset + i] = y[1 + i] end
    else
      for i = 1, n do out[offset + i] = 0 end
    end
    return out
  end

  -- the Hessian, n x n row-major, into out at offset
  function space.hessian(y, out, offset)
    out, offset = out or {}, offset or 0
    if is_jet(y) then
      for k = 1, nh do
        local h = y[1 + n + k]
        out[offset + (I[k] - 1) * n + J[k]] = h
        out[offset + (J[k] - 1) * n + I[k]] = h
      end
    else
      for i = 1, n * n do out[offset + i] = 0 end
    end
    return out
  end

  return space
end

function ad.space(n, order)
  local key = n * 4 + order
  local s = spaces[key]
  if not s then
    s = build_space(n, order)
    spaces[key] = s
  end
  return s
end

---------------------------------------------------------------------------
-- Duals: one direction, coefficients number-like.
---------------------------------------------------------------------------
local DUAL = {__wb_ad = "dual"}
local function dual(v, d) return setmetatable({v, d}, DUAL) end
ad.dual = dual
local function is_dual(x) return getmetatable(x) == DUAL end

-- A dual meeting a jet whose coefficients are duals is a constant of that
-- jet: the jet's arithmetic decides, whichever operand comes first.
local function outer(a, b, op)
  local mt = type(b) == "table" and not is_dual(b) and getmetatable(b)
  if not mt then mt = type(a) == "table" and not is_dual(a) and getmetatable(a) end
  return mt and mt[op]
end

DUAL.__add = function(a, b)
  local o = outer(a, b, "__add")
  if o then return o(a, b) end
  if not is_dual(a) then return dual(a + b[1], b[2]) end
  if not is_dual(b) then return dual(a[1] + b, a[2]) end
  return dual(a[1] + b[1], a[2] + b[2])
end
DUAL.__sub = function(a, b)
  local o = outer(a, b, "__sub")
  if o then return o(a, b) end
  if not is_dual(a) then return dual(a - b[1], -b[2]) end
  if not is_dual(b) then return dual(a[1] - b, a[2]) end
  return dual(a[1] - b[1], a[2] - b[2])
end
DUAL.__unm = function(a) return dual(-a[1], -a[2]) end
DUAL.__mul = function(a, b)
  local o = outer(a, b, "__mul")
  if o then return o(a, b) end
  if not is_dual(a) then return dual(a * b[1], a * b[2]) end
  if not is_dual(b) then return dual(a[1] * b, a[2] * b) end
  return dual(a[1] * b[1], a[1] * b[2] + a[2] * b[1])
end
DUAL.__div = function(a, b)
  local o = outer(a, b, "__div")
  if o then return o(a, b) end
  if not is_dual(b) then return dual(a[1] / b, a[2] / b) end
  local r = 1 / b[1]
  if not is_dual(a) then return dual(a * r, -a * b[2] * r * r) end
  return dual(a[1] * r, (a[2] * b[1] - a[1] * b[2]) * r * r)
end
DUAL.__pow = function(a, b)
  if not is_dual(b) then
    -- as the jets do: x^0 and x^1 exact at x = 0 too (not 0 * inf)
    if b == 2 then return a * a end
    if b == 1 then return a end
    if b == 0 then return 1 end
    return dual(a[1] ^ b, b * a[1] ^ (b - 1) * a[2])
  end
  return gexp(b * glog(a))
end
DUAL.__eq = function(a, b) return value(a) == value(b) end
DUAL.__lt = function(a, b) return value(a) < value(b) end
DUAL.__le = function(a, b) return value(a) <= value(b) end
DUAL.__tostring = function(a) return format("dual(%s, %s)", tostring(a[1]), tostring(a[2])) end
do
  local fns = {}
  for name, d in pairs(derivatives) do
    fns[name] = function(a)
      local f0, f1 = d(a[1])
      return dual(f0, f1 * a[2])
    end
  end
  DUAL.__wb_math = fns
end

---------------------------------------------------------------------------
-- Polynomial degree: a value and the degree of the expression that made it
-- (math.huge when it is not a polynomial), to find structure such as
-- quadratic constraints without trusting a derivative that happens to
-- vanish at one point.
---------------------------------------------------------------------------
local huge = math.huge
local DEGREE = {__wb_ad = "degree"}
local function degree_of(x) return getmetatable(x) == DEGREE and x[2] or 0 end
local function with_degree(v, d) return setmetatable({v, d}, DEGREE) end
DEGREE.__add = function(a, b)
  return with_degree(value(a) + value(b), math.max(degree_of(a), degree_of(b)))
end
DEGREE.__sub = function(a, b)
  return with_degree(value(a) - value(b), math.max(degree_of(a), degree_of(b)))
end
DEGREE.__unm = function(a) return with_degree(-a[1], a[2]) end
DEGREE.__mul = function(a, b)
  local va, vb, da, db = value(a), value(b), degree_of(a), degree_of(b)
  -- an exact zero factor keeps a polynomial of the other's degree at most
  return with_degree(va * vb, da + db)
end
DEGREE.__div = function(a, b)
  return with_degree(value(a) / value(b), degree_of(b) == 0 and degree_of(a) or huge)
end
DEGREE.__pow = function(a, b)
  local da, db = degree_of(a), degree_of(b)
  local c = value(b)
  local d
  if db > 0 then
    d = da == 0 and db == 0 and 0 or huge
  elseif da == 0 then
    d = 0
  elseif c >= 0 and c % 1 == 0 then
    d = da * c
  else
    d = huge
  end
  return with_degree(value(a) ^ c, d)
end
DEGREE.__eq = function(a, b) return value(a) == value(b) end
DEGREE.__lt = function(a, b) return value(a) < value(b) end
DEGREE.__le = function(a, b) return value(a) <= value(b) end
do
  local fns = {}
  for name in pairs(derivatives) do
    local f = G[name]
    fns[name] = function(a) return with_degree(f(a[1]), a[2] == 0 and 0 or huge) end
  end
  DEGREE.__wb_math = fns
end

-- The polynomial degree of f at the variables x (a table of numbers) for
-- each value f returns (a number or a table of them): 0 for a constant,
-- math.huge for what is not a polynomial.
function ad.degree(f, x, ...)
  local vars = {}
  for i = 1, #x do vars[i] = with_degree(x[i], 1) end
  local y = f(vars, ...)
  if type(y) == "table" and getmetatable(y) == nil then
    local out = {}
    for i = 1, #y do out[i] = degree_of(y[i]) end
    return out
  end
  return degree_of(y)
end

---------------------------------------------------------------------------
-- Conveniences
---------------------------------------------------------------------------
local function check_point(x, who)
  if type(x) ~= "table" or #x == 0 then
    error(format("wb.ad.%s: x must be a table of numbers", who), 3)
  end
end

function ad.gradient(f, x)
  check_point(x, "gradient")
  local S = ad.space(#x, 1)
  local y = f(S.seed(x))
  return value(y), S.gradient(y)
end

function ad.hessian(f, x)
  check_point(x, "hessian")
  local n = #x
  local S = ad.space(n, 2)
  local y = f(S.seed(x))
  local flat = S.hessian(y)
  local H = {}
  for i = 1, n do
    H[i] = {}
    for j = 1, n do H[i][j] = flat[(i - 1) * n + j] end
  end
  return value(y), S.gradient(y), H
end

function ad.jacobian(F, x)
  check_point(x, "jacobian")
  local S = ad.space(#x, 1)
  local Y = F(S.seed(x))
  if type(Y) ~= "table" or kind_of(Y) then
    error("wb.ad.jacobian: F must return a table of numbers", 2)
  end
  local values, D = {}, {}
  for k = 1, #Y do
    values[k] = value(Y[k])
    D[k] = S.gradient(Y[k])
  end
  return values, D
end

return ad
