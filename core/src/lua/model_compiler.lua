-- model_compiler.lua -- wb.compile_model: a model written in Lua, turned
-- into a C model plugin (embedded in the binary).
--
--   local m = wb.compile_model{ the fields of wb.define_model }
--
-- The model's functions run once on symbols (tracing): every arithmetic
-- operation and math function builds a node of an expression graph, shared
-- where two computations are the same.  Derivatives are the graph's own
-- symbolic derivatives, simplified and shared the same way: forward along a
-- coordinate or a direction, and in reverse for the kinetic gradient (one
-- sweep over the mass matrix's graph, never its n^3 derivatives).  The
-- graph is written out as straight-line C, compiled by the system C
-- compiler ($CC, default cc) into a plugin, cached by content under the
-- cache folder (host/cache_dir.h: where it is, and that it must be the
-- user's own), and loaded like any plugin: the generated C and the
-- plugin stay there, and the plugin works from the command line too
-- (`workbench --plugin-path <folder> check-model NAME`).
--
-- What tracing needs: the functions compute with arithmetic and the math
-- library only, the same way whatever the values (a branch on a value, an
-- `if q[1] > 0`, cannot be traced and is refused with the line); a loop
-- over the coordinates is fine.  Parameters stay parameters: the plugin
-- takes them as wb.model(name, {...}) does.  Lua compares a table and a
-- number with == without asking the table, so `if P.k == 1` or
-- `q[1] == 0` cannot be seen while tracing: every compiled instance is
-- therefore compared with its wb.define_model twin (the same functions,
-- differentiated by wb.ad) at a few points before wb.model returns it, at
-- the default parameters when it is built and at each new parameter set,
-- and refused when they differ by more than the rounding of their terms.
local wb = ...

local format, concat = string.format, table.concat
local huge = math.huge

---------------------------------------------------------------------------
-- Expression graph
---------------------------------------------------------------------------
local SYM = {__wb_ad = "symbol"}
local nodes, by_key -- the graph of the model being compiled
local leaf_ops = {q = true, p = true, par = true, mu = true, w = true, v = true}

local function is_sym(x) return getmetatable(x) == SYM end

local function node(op, a, b, c, d)
  local key = op
  for _, x in ipairs{a or false, b or false, c or false, d or false} do
    if x then key = key .. "|" .. (is_sym(x) and x.id or format("%.17g", x)) end
  end
  local n = by_key[key]
  if n then return n end
  n = setmetatable({op = op, a = a, b = b, c = c, d = d, id = #nodes + 1}, SYM)
  nodes[#nodes + 1] = n
  by_key[key] = n
  return n
end

local function const_of(x)
  if type(x) == "number" then return x end
  if x.op == "const" then return x.a end
  return nil
end

local function constant(v) return node("const", v) end

local function leaf(kind, index) return node(kind, index) end

-- the constructors simplify: constants fold, 0 and 1 vanish
local add, sub, mul, div, neg, pow, powd, fn

function add(a, b)
  local ca, cb = const_of(a), const_of(b)
  if ca and cb then return ca + cb end
  if ca == 0 then return b end
  if cb == 0 then return a end
  if type(a) == "number" then a = constant(a) end
  if type(b) == "number" then b = constant(b) end
  if a.id > b.id then a, b = b, a end
  return node("add", a, b)
end

function neg(a)
  local ca = const_of(a)
  if ca then return -ca end
  if a.op == "neg" then return a.a end
  return node("neg", a)
end

function sub(a, b)
  local ca, cb = const_of(a), const_of(b)
  if ca and cb then return ca - cb end
  if cb == 0 then return a end
  if ca == 0 then return neg(b) end
  if rawequal(a, b) then return 0 end
  if type(a) == "number" then a = constant(a) end
  if type(b) == "number" then b = constant(b) end
  return node("sub", a, b)
end

function mul(a, b)
  local ca, cb = const_of(a), const_of(b)
  if ca and cb then return ca * cb end
  if ca == 0 or cb == 0 then return 0 end
  if ca == 1 then return b end
  if cb == 1 then return a end
  if ca == -1 then return neg(b) end
  if cb == -1 then return neg(a) end
  if type(a) == "number" then a = constant(a) end
  if type(b) == "number" then b = constant(b) end
  if a.id > b.id then a, b = b, a end
  return node("mul", a, b)
end

function div(a, b)
  local ca, cb = const_of(a), const_of(b)
  if ca and cb then return ca / cb end
  if ca == 0 then return 0 end
  if cb == 1 then return a end
  if type(a) == "number" then a = constant(a) end
  if type(b) == "number" then b = constant(b) end
  return node("div", a, b)
end

function pow(a, b)
  local ca, cb = const_of(a), const_of(b)
  if ca and cb then return ca ^ cb end
  if cb == 0 then return 1 end
  if cb == 1 then return a end
  if cb == 2 then return mul(a, a) end
  if type(a) == "number" then a = constant(a) end
  if type(b) == "number" then b = constant(b) end
  return node("pow", a, b)
end

-- b (b - 1) ... (b - k + 1): the coefficient of the k-th derivative of a^b
local function falling(b, k)
  local c = 1
  for i = 0, k - 1 do c = c * (b - i) end
  return c
end

-- The k-th derivative of a^b in a for an exponent b that is not a constant
-- (a parameter): b (b - 1) ... (b - k + 1) a^(b - k), and 0 where that
-- coefficient is (a^b a polynomial of degree below k), so that no 0 * inf
-- is left at a = 0 (the C function pow_derivative, below).
function powd(a, b, k)
  local cb = const_of(b)
  if cb then
    local c = falling(cb, k)
    if c == 0 then return 0 end
    return mul(c, pow(a, cb - k))
  end
  if type(a) == "number" then a = constant(a) end
  return node("powd", a, b, k)
end

local function powd_value(a, b, k)
  local c = falling(b, k)
  if c == 0 then return 0 end
  return c * a ^ (b - k)
end

local folds = {sin = math.sin, cos = math.cos, tan = math.tan, asin = math.asin,
               acos = math.acos, exp = math.exp, log = math.log, sqrt = math.sqrt,
               atan = math.atan, abs = math.abs, sign = function(x) return x < 0 and -1 or 1 end}

function fn(name, a)
  local ca = const_of(a)
  if ca then return folds[name](ca) end
  return node(name, a)
end

local function atan2(y, x)
  local cy, cx = const_of(y), const_of(x)
  if cy and cx then return math.atan(cy, cx) end
  if type(y) == "number" then y = constant(y) end
  if type(x) == "number" then x = constant(x) end
  return node("atan2", y, x)
end

-- select(a >= b, x, y) and select(a <= b, x, y): max, min and their
-- derivatives, as Lua's math.max and math.min decide (x unless a < b,
-- resp. b < a: a NaN is kept as Lua keeps it)
local function select(op, a, b, x, y)
  local ca, cb = const_of(a), const_of(b)
  if ca and cb then
    if op == "ge" then return not (ca < cb) and x or y end
    return not (cb < ca) and x or y
  end
  if rawequal(x, y) or (const_of(x) and const_of(x) == const_of(y)) then return x end
  local function n(v) return type(v) == "number" and constant(v) or v end
  return node("select_" .. op, n(a), n(b), n(x), n(y))
end

local function refuse(what)
  error(format("wb.compile_model: the model %s; tracing computes with symbols, which have "
               .. "no value: write the function without branching on values (wb.define_model "
               .. "runs any Lua)", what), 0)
end

SYM.__add = add
SYM.__sub = sub
SYM.__mul = mul
SYM.__div = div
SYM.__unm = neg
SYM.__pow = pow
SYM.__lt = function() refuse("compares values (<, >)") end
SYM.__le = function() refuse("compares values (<=, >=)") end
SYM.__eq = function() refuse("compares values (==)") end
SYM.__concat = function() refuse("turns a value into a string") end
SYM.__index = function(t, k)
  if type(k) == "number" then refuse("indexes a number") end
  return nil
end
SYM.__wb_math = {
  sin = function(a) return fn("sin", a) end,
  cos = function(a) return fn("cos", a) end,
  tan = function(a) return fn("tan", a) end,
  asin = function(a) return fn("asin", a) end,
  acos = function(a) return fn("acos", a) end,
  exp = function(a) return fn("exp", a) end,
  log = function(a) return fn("log", a) end,
  sqrt = function(a) return fn("sqrt", a) end,
  atan = function(a) return fn("atan", a) end,
  atan2 = function(y, x) return atan2(y, x) end,
  abs = function(a) return fn("abs", a) end,
  max = function(...)
    local args = {...}
    local best = args[1]
    for i = 2, #args do best = select("ge", best, args[i], best, args[i]) end
    return best
  end,
  min = function(...)
    local args = {...}
    local best = args[1]
    for i = 2, #args do best = select("le", best, args[i], best, args[i]) end
    return best
  end,
  floor = function() refuse("rounds a value (math.floor)") end,
  ceil = function() refuse("rounds a value (math.ceil)") end,
}

-- The nodes the values depend on, children before parents (a node is
-- always younger than its children: ascending ids).
local function below(values)
  local set, list, stack = {}, {}, {}
  local function push(x)
    if is_sym(x) and not set[x] then
      set[x] = true
      stack[#stack + 1] = x
    end
  end
  for _, v in ipairs(values) do push(v) end
  while #stack > 0 do
    local x = stack[#stack]
    stack[#stack] = nil
    list[#list + 1] = x
    push(x.a)
    push(x.b)
    push(x.c)
    push(x.d)
  end
  table.sort(list, function(a, b) return a.id < b.id end)
  return list
end

-- The nodes the values depend on that are not in `known`, each after its
-- children, in depth-first order from the values: each value's own nodes
-- next to it (short lives for the C compiler's registers).
local function post_order(values, known)
  local order, seen = {}, {}
  for _, v in ipairs(values) do
    if is_sym(v) and not seen[v] and not known[v] then
      seen[v] = true
      local stack = {v, 1} -- node, index of its next child
      while #stack > 0 do
        local top = #stack - 1
        local x, k = stack[top], stack[top + 1]
        local child
        while k <= 4 and not child do
          local c = x[k == 1 and "a" or k == 2 and "b" or k == 3 and "c" or "d"]
          k = k + 1
          if is_sym(c) and not seen[c] and not known[c] then child = c end
        end
        stack[top + 1] = k
        if child then
          seen[child] = true
          stack[#stack + 1] = child
          stack[#stack + 1] = 1
        else
          order[#order + 1] = x
          stack[top], stack[top + 1] = nil, nil
        end
      end
    end
  end
  return order
end

---------------------------------------------------------------------------
-- Derivatives, forward: d(node) along a direction, the derivative of each
-- leaf given by its seeds (a coordinate: 1 for its own leaf; a direction
-- w: w[i] for q[i]), memoized per direction
---------------------------------------------------------------------------
local coordinate_directions -- per leaf

local function direction(seeds) return {seeds = seeds, memo = {}} end

local function along(var)
  local dir = coordinate_directions[var]
  if not dir then
    dir = direction({[var] = 1})
    coordinate_directions[var] = dir
  end
  return dir
end

local d

-- a^b's k-th derivative in a, written out for an exponent that varies too
local function powd_expanded(a, b, k)
  local c = 1
  for i = 0, k - 1 do c = mul(c, sub(b, i)) end
  return mul(c, pow(a, sub(b, k)))
end

function d(x, dir)
  if type(x) == "number" then return 0 end
  local memo = dir.memo
  local r = memo[x]
  if r ~= nil then return r end
  local op, a, b = x.op, x.a, x.b
  if op == "const" then
    r = 0
  elseif leaf_ops[op] then
    r = dir.seeds[x] or 0
  elseif op == "add" then
    r = add(d(a, dir), d(b, dir))
  elseif op == "sub" then
    r = sub(d(a, dir), d(b, dir))
  elseif op == "neg" then
    r = neg(d(a, dir))
  elseif op == "mul" then
    r = add(mul(d(a, dir), b), mul(a, d(b, dir)))
  elseif op == "div" then
    -- (a/b)' = (a' - (a/b) b') / b
    r = div(sub(d(a, dir), mul(x, d(b, dir))), b)
  elseif op == "pow" then
    local cb = const_of(b)
    if cb then
      r = mul(mul(cb, pow(a, cb - 1)), d(a, dir))
    else
      -- b a^(b-1) a' + a^b log(a) b': the first by powd, exact at a = 0
      -- (x^k with k = 0, 1, 2 there), the second only where b varies
      local db = d(b, dir)
      r = mul(powd(a, b, 1), d(a, dir))
      if db ~= 0 then r = add(r, mul(mul(x, fn("log", a)), db)) end
    end
  elseif op == "powd" then
    if d(b, dir) == 0 then
      r = mul(powd(a, b, x.c + 1), d(a, dir))
    else
      r = d(powd_expanded(a, b, x.c), dir)
    end
  elseif op == "sin" then
    r = mul(fn("cos", a), d(a, dir))
  elseif op == "cos" then
    r = neg(mul(fn("sin", a), d(a, dir)))
  elseif op == "tan" then
    r = mul(add(1, mul(x, x)), d(a, dir))
  elseif op == "exp" then
    r = mul(x, d(a, dir))
  elseif op == "log" then
    r = div(d(a, dir), a)
  elseif op == "sqrt" then
    r = div(d(a, dir), mul(2, x))
  elseif op == "asin" then
    r = div(d(a, dir), fn("sqrt", sub(1, mul(a, a))))
  elseif op == "acos" then
    r = neg(div(d(a, dir), fn("sqrt", sub(1, mul(a, a)))))
  elseif op == "atan" then
    r = div(d(a, dir), add(1, mul(a, a)))
  elseif op == "atan2" then -- atan2(y, x): (x dy - y dx) / (x^2 + y^2)
    r = div(sub(mul(b, d(a, dir)), mul(a, d(b, dir))), add(mul(a, a), mul(b, b)))
  elseif op == "abs" then
    r = mul(fn("sign", a), d(a, dir))
  elseif op == "sign" then
    r = 0
  elseif op == "select_ge" or op == "select_le" then
    r = select(op:sub(-2), a, b, d(x.c, dir), d(x.d, dir))
  else
    error("wb.compile_model: no derivative for '" .. op .. "'")
  end
  memo[x] = r
  return r
end

---------------------------------------------------------------------------
-- Derivatives, reverse: the gradient in the given leaves of sum_k s_k y_k
-- for the seeds {{y_k, s_k}, ...}.  Each node hands its adjoint to its
-- children by its partial derivatives (the same rules as d()), parents
-- before children: the code is as long as the graph below the y_k, where
-- forward mode would repeat it once per leaf.
---------------------------------------------------------------------------
-- a * b and a / b that are 0 when a is: an adjoint that a select (max,
-- min) sent to the branch it did not take is 0 there, and stays 0 through
-- that branch's partial derivatives however they come out (NaN, inf), as
-- in forward mode, where the branch's derivative is not taken at all
local function mulz(a, b)
  local ca, cb = const_of(a), const_of(b)
  if ca == 0 or cb == 0 then return 0 end
  if ca or cb == 1 or cb == -1 then return mul(a, b) end
  if type(b) == "number" then b = constant(b) end
  return node("mulz", a, b)
end

local function divz(a, b)
  local ca, cb = const_of(a), const_of(b)
  if ca == 0 then return 0 end
  if ca or cb == 1 then return div(a, b) end
  if type(b) == "number" then b = constant(b) end
  return node("divz", a, b)
end

-- the adjoint ax of x handed to x's children: give(child, contribution);
-- times and over are mul and div, or mulz and divz below a select
local function push_adjoint(x, ax, give, times, over)
  local op, a, b = x.op, x.a, x.b
  if op == "add" then
    give(a, ax)
    give(b, ax)
  elseif op == "sub" then
    give(a, ax)
    give(b, neg(ax))
  elseif op == "neg" then
    give(a, neg(ax))
  elseif op == "mul" then
    give(a, times(ax, b))
    give(b, times(ax, a))
  elseif op == "div" then
    give(a, over(ax, b))
    give(b, neg(over(times(ax, x), b)))
  elseif op == "pow" then
    local cb = const_of(b)
    if cb then
      give(a, times(ax, mul(cb, pow(a, cb - 1))))
    else
      give(a, times(ax, powd(a, b, 1)))
      give(b, times(ax, mul(x, fn("log", a))))
    end
  elseif op == "powd" then
    give(a, times(ax, powd(a, b, x.c + 1)))
    give(b, nil) -- only derivatives make powd nodes: never seeded here
  elseif op == "sin" then
    give(a, times(ax, fn("cos", a)))
  elseif op == "cos" then
    give(a, neg(times(ax, fn("sin", a))))
  elseif op == "tan" then
    give(a, times(ax, add(1, mul(x, x))))
  elseif op == "exp" then
    give(a, times(ax, x))
  elseif op == "log" then
    give(a, over(ax, a))
  elseif op == "sqrt" then
    give(a, over(ax, mul(2, x)))
  elseif op == "asin" then
    give(a, over(ax, fn("sqrt", sub(1, mul(a, a)))))
  elseif op == "acos" then
    give(a, neg(over(ax, fn("sqrt", sub(1, mul(a, a))))))
  elseif op == "atan" then
    give(a, over(ax, add(1, mul(a, a))))
  elseif op == "atan2" then
    local r2 = add(mul(a, a), mul(b, b))
    give(a, over(times(ax, b), r2))
    give(b, neg(over(times(ax, a), r2)))
  elseif op == "abs" then
    give(a, times(ax, fn("sign", a)))
  elseif op == "select_ge" or op == "select_le" then
    local how = op:sub(-2)
    give(x.c, select(how, a, b, ax, 0), true)
    give(x.d, select(how, a, b, 0, ax), true)
  elseif op ~= "sign" then
    error("wb.compile_model: no derivative for '" .. op .. "'")
  end
end

local function reverse(seeds, leaves)
  local wanted, roots = {}, {}
  for _, l in ipairs(leaves) do wanted[l] = true end
  for i, s in ipairs(seeds) do roots[i] = s[1] end
  local list = below(roots)
  local depends = {} -- on a wanted leaf
  for _, x in ipairs(list) do
    depends[x] = wanted[x] or (is_sym(x.a) and depends[x.a]) or (is_sym(x.b) and depends[x.b])
                 or (is_sym(x.c) and depends[x.c]) or (is_sym(x.d) and depends[x.d]) or false
  end
  local adjoint, guarded = {}, {}
  local from_guarded = false
  local function give(child, contribution, guard)
    if is_sym(child) and depends[child] then
      if contribution == nil then error("wb.compile_model: no reverse derivative here") end
      adjoint[child] = add(adjoint[child] or 0, contribution)
      guarded[child] = guarded[child] or guard or from_guarded
    end
  end
  for _, s in ipairs(seeds) do give(s[1], s[2]) end
  for i = #list, 1, -1 do
    local x = list[i]
    local ax = adjoint[x]
    if ax and ax ~= 0 and not leaf_ops[x.op] then
      from_guarded = guarded[x] or false
      push_adjoint(x, ax, give, from_guarded and mulz or mul, from_guarded and divz or div)
    end
  end
  local out = {}
  for i, l in ipairs(leaves) do out[i] = adjoint[l] or 0 end
  return out
end

---------------------------------------------------------------------------
-- C code
---------------------------------------------------------------------------
-- a double literal of the value, bit for bit: "-0" would be the int 0
-- (+0.0) and "5" an int, so a literal without '.' or an exponent gets ".0"
local function c_number(v)
  if v ~= v then return "NAN" end
  if v == huge then return "INFINITY" end
  if v == -huge then return "(-INFINITY)" end
  if math.type(v) == "integer" then return format("%d.0", v) end
  local text = format("%.17g", v)
  if not text:find("[.e]") then text = text .. ".0" end
  return text
end

local c_functions = {sin = "sin", cos = "cos", tan = "tan", asin = "asin", acos = "acos",
                     exp = "exp", log = "log", sqrt = "sqrt", atan = "atan", abs = "fabs"}

-- A C function of the model storing the values (numbers or nodes):
-- `params` its parameters after self, `args` their names, store(i, expr)
-- the statement for value i.  A short function computes every node, then
-- stores the values (every input read before anything is stored).  A long
-- one copies its inputs and parameters to locals first (a value stored
-- cannot change them), then computes each value's own nodes right before
-- storing it (what the C compiler keeps live stays small), and is cut into
-- pieces of PIECE statements, each a function of its own (a compiler's
-- time grows faster than a function's length); what a later piece uses of
-- an earlier one goes through the instance's tape (tape_size tells
-- create() how much).  (A chain of 80 links: gcc -O2 took 58 s on it
-- whole, 28 s in pieces of 1500 statements, 14 to 18 s in pieces of 150 to
-- 500.)
local PIECE = 250
local tape_size = 0

local function operation(x, ref)
  local op = x.op
  local a, b = ref(x.a), x.b and ref(x.b)
  if op == "add" then return a .. " + " .. b
  elseif op == "sub" then return a .. " - " .. b
  elseif op == "mul" then return a .. " * " .. b
  elseif op == "div" then return a .. " / " .. b
  elseif op == "mulz" then return format("%s == 0 ? 0 : %s * %s", a, a, b)
  elseif op == "divz" then return format("%s == 0 ? 0 : %s / %s", a, a, b)
  elseif op == "neg" then return "-" .. a
  elseif op == "pow" then return format("pow(%s, %s)", a, b)
  elseif op == "powd" then return format("pow_derivative(%s, %s, %d)", a, b, x.c)
  elseif op == "atan2" then return format("atan2(%s, %s)", a, b)
  elseif op == "sign" then return format("(%s < 0 ? -1.0 : 1.0)", a)
  elseif op == "select_ge" then return format("%s < %s ? %s : %s", a, b, ref(x.d), ref(x.c))
  elseif op == "select_le" then return format("%s < %s ? %s : %s", b, a, ref(x.d), ref(x.c))
  end
  return format("%s(%s)", c_functions[op], a)
end

local function c_function(name, params, args, values, store)
  -- the nodes in the order they are computed, and i where value i is stored
  local order, seen, count = {}, {}, 0
  for i, value in ipairs(values) do
    for _, x in ipairs(post_order({value}, seen)) do
      seen[x] = true
      order[#order + 1] = x
      if not leaf_ops[x.op] and x.op ~= "const" then count = count + 1 end
    end
    order[#order + 1] = i
  end
  local long = count + #values > PIECE
  local names, prologue, statements, stored = {}, {}, {}, {}
  local defined_in, uses = {}, {} -- statement index of a node; nodes a statement reads
  local function ref(x)
    if type(x) == "number" then return c_number(x) end
    return names[x]
  end
  local function read(list, x)
    if is_sym(x) and x.op ~= "const" then list[#list + 1] = x end
  end
  for _, x in ipairs(order) do
    if type(x) == "number" then
      statements[#statements + 1] = store(x, ref(values[x]))
      stored[#statements] = true
      local list = {}
      read(list, values[x])
      uses[#statements] = list
    elseif x.op == "const" then
      names[x] = c_number(x.a)
    elseif leaf_ops[x.op] then
      local array = x.op == "par" and "s->p" or x.op
      if long then
        names[x] = format("%s_%d", x.op, x.a - 1)
        prologue[#prologue + 1] = format("    const double %s = %s[%d];", names[x], array, x.a - 1)
      else
        names[x] = format("%s[%d]", array, x.a - 1)
      end
      defined_in[x] = 0
    else
      names[x] = "t" .. x.id
      statements[#statements + 1] = format("    const double %s = %s;", names[x], operation(x, ref))
      local list = {}
      read(list, x.a)
      read(list, x.b)
      read(list, x.c)
      read(list, x.d)
      uses[#statements], defined_in[x] = list, #statements
    end
  end
  local voids = {}
  for i, a in ipairs(args) do voids[i] = "(void)" .. a end
  local head = format("static void %s(void *self, %s)", name, params)
  local start = format("{\n    const model *s = self;\n    (void)s, %s;\n", concat(voids, ", "))
  if not long then
    local lines = {}
    for k, line in ipairs(statements) do
      if not stored[k] then lines[#lines + 1] = line end
    end
    for k, line in ipairs(statements) do
      if stored[k] then lines[#lines + 1] = line end
    end
    return format("%s\n%s%s\n}\n", head, start, concat(lines, "\n"))
  end
  -- the pieces; a node read in a later piece than its own is saved to the tape
  local piece_of = function(index) return index == 0 and 1 or (index - 1) // PIECE + 1 end
  local slot, loads = {}, {}
  local pieces = piece_of(#statements)
  for p = 1, pieces do loads[p] = {} end
  for index, list in ipairs(uses) do
    local p = piece_of(index)
    for _, x in ipairs(list) do
      if piece_of(defined_in[x]) < p then
        if not slot[x] then
          slot[x] = tape_size
          tape_size = tape_size + 1
        end
        if not loads[p][x] then
          loads[p][x] = true
          loads[p][#loads[p] + 1] = x
        end
      end
    end
  end
  local saves = {} -- after statement index (0: the prologue), the nodes to save
  for x in pairs(slot) do
    local at = defined_in[x]
    saves[at] = saves[at] or {}
    saves[at][#saves[at] + 1] = x
  end
  local function save_lines(at, out)
    local list = saves[at]
    if not list then return end
    table.sort(list, function(a, b) return slot[a] < slot[b] end)
    for _, x in ipairs(list) do
      out[#out + 1] = format("    s->tape[%d] = %s;", slot[x], names[x])
    end
  end
  local out, calls = {}, {}
  for p = 1, pieces do
    local lines = {}
    if p == 1 then
      for _, line in ipairs(prologue) do lines[#lines + 1] = line end
      save_lines(0, lines)
    end
    for _, x in ipairs(loads[p]) do
      lines[#lines + 1] = format("    const double %s = s->tape[%d];", names[x], slot[x])
    end
    for index = (p - 1) * PIECE + 1, math.min(p * PIECE, #statements) do
      lines[#lines + 1] = statements[index]
      save_lines(index, lines)
    end
    out[#out + 1] = format("__attribute__((noinline)) static void %s_%d(void *self, %s)\n%s%s\n}\n",
                           name, p, params, start, concat(lines, "\n"))
    calls[#calls + 1] = format("    %s_%d(self, %s);", name, p, concat(args, ", "))
  end
  out[#out + 1] = format("%s\n{\n%s\n}\n", head, concat(calls, "\n"))
  return concat(out, "\n")
end

-- A C string literal that holds exactly the bytes of s: every byte outside
-- a plain set is a three-digit octal escape, so that no byte sequence of
-- user text (a quote, a backslash, a line break, a trigraph "??/", a
-- lone '\r') can end the literal or change what it holds.  A NUL cannot be
-- in a C string: the definition refuses it (model_definition.lua).
local function c_string(s)
  s = tostring(s)
  assert(not s:find("\0", 1, true), "a NUL byte reached c_string")
  return '"' .. s:gsub("[^A-Za-z0-9 _.,:;=+%-/()<>%[%]{}!@#$&*|~^]", function(c)
    return format("\\%03o", c:byte())
  end) .. '"'
end

-- Text for a C comment: the plain set without '*' (no "*/" can end the
-- comment), anything else as '_'
local function c_comment(s)
  return (tostring(s):gsub("[^A-Za-z0-9 _.,:;=+%-/()<>%[%]{}!@#$&|~^]", "_"))
end

---------------------------------------------------------------------------
-- The model, traced and written out
---------------------------------------------------------------------------
local function generate(def)
  nodes, by_key, coordinate_directions, tape_size = {}, {}, {}, 0
  local n, m, shape = def.nq, def.shape.m, def.shape
  local q, p, mu, w, v, P = {}, {}, {}, {}, {}, {}
  for i = 1, n do
    q[i], p[i], w[i], v[i] = leaf("q", i), leaf("p", i), leaf("w", i), leaf("v", i)
  end
  for k = 1, m do mu[k] = leaf("mu", k) end
  for j, par in ipairs(def.params) do P[par.name] = leaf("par", j) end
  local function traced(what, f, ...)
    local ok, result, extra = pcall(f, ...)
    if not ok then error(format("%s: %s", what, tostring(result)), 0) end
    return result, extra
  end
  local out = {}
  local outputs = {} -- the nodes of what each C function returns, for the comparison
  local function section(text) out[#out + 1] = text end
  local function into(array)
    return function(i, e) return format("    %s[%d] = %s;", array, i - 1, e) end
  end

  -- potential, gradient, Hessian
  local V = wb._as_number(traced("potential", def.potential, q, P), "potential")
  local grad, hess = {}, {}
  for i = 1, n do grad[i] = d(V, along(q[i])) end
  for i = 1, n do
    for j = 1, n do
      hess[(i - 1) * n + j] = j >= i and d(grad[i], along(q[j])) or nil
    end
  end
  for i = 1, n do
    for j = 1, i - 1 do hess[(i - 1) * n + j] = hess[(j - 1) * n + i] end
  end
  outputs.potential, outputs.gradient, outputs.hessian = {V}, grad, hess
  section(c_function("potential_value", "const double *q, double *V", {"q", "V"}, {V}, into("V")))
  section("static double potential(void *self, const double *q)\n{\n    double V;\n"
          .. "    potential_value(self, q, &V);\n    return V;\n}\n")
  section(c_function("potential_gradient", "const double *q, double *g", {"q", "g"}, grad,
                     into("g")))
  section(c_function("potential_hessian", "const double *q, double *H", {"q", "H"}, hess,
                     into("H")))

  -- mass and, when it depends on q, the kinetic gradient
  local mass = def.mass
  local Mraw = type(mass) == "function" and traced("mass", mass, q, P) or mass
  local M = wb._flat_mass(Mraw, n)
  outputs.mass = M
  section(c_function("mass", "const double *q, double *M", {"q", "M"}, M, into("M")))
  -- a diagonal mass: v = M^-1 p entry by entry (else the host's Cholesky)
  local diagonal = true
  for i = 1, n do
    for j = 1, n do
      if i ~= j and M[(i - 1) * n + j] ~= 0 then diagonal = false end
    end
  end
  if diagonal then
    local Md = {}
    for i = 1, n do Md[i] = M[(i - 1) * n + i] end
    section(c_function("mass_solve", "const double *q, const double *p, double *v",
                       {"q", "p", "v"}, Md, function(i, e)
                         return format("    v[%d] = p[%d] / %s;", i - 1, i - 1, e)
                       end))
  end
  -- dT/dq_k = -1/2 v^T (dM/dq_k) v with v = M^-1 p: the gradient of the
  -- scalar v^T M(q) v with v held fixed, in reverse (never dM itself)
  local seeds = {}
  for i = 1, n do
    for j = 1, n do
      local x = M[(i - 1) * n + j]
      if is_sym(x) then seeds[#seeds + 1] = {x, mul(v[i], v[j])} end
    end
  end
  local kinetic, mass_constant = reverse(seeds, q), true
  for k = 1, n do
    kinetic[k] = mul(-0.5, kinetic[k])
    if kinetic[k] ~= 0 then mass_constant = false end
  end
  if not mass_constant then
    outputs.kinetic = kinetic
    -- M and v in the instance's work memory (create() allocates it)
    section(c_function("kinetic_contraction", "const double *q, const double *v, double *g",
                       {"q", "v", "g"}, kinetic, into("g")))
    section([[
static void kinetic_gradient(void *self, const double *q, const double *p, double *g)
{
    const model *s = self;
    double *M = s->work, *v = s->work + N * N;
    mass(self, q, M);
    if (cholesky_solve(M, p, v) != 0) {
        for (int k = 0; k < N; k++)
            g[k] = NAN;
        return;
    }
    kinetic_contraction(self, q, v, g);
}
]])
  end

  -- constraints and their derivatives
  if m > 0 then
    local g = wb._as_vector(traced("constraints", def.constraints, q, P), m, "constraints")
    local G, T, B, D = {}, {}, {}, {}
    for k = 1, m do
      for i = 1, n do G[(k - 1) * n + i] = d(g[k], along(q[i])) end
    end
    -- T = sum_k mu_k D^2 g_k; B row k = D^2 g_k w and D = T' w: derivatives
    -- of G and T along the direction w, one sweep each
    local seeds_w = {}
    for j = 1, n do seeds_w[q[j]] = w[j] end
    local along_w = direction(seeds_w)
    for i = 1, n do
      for j = 1, n do
        local t = 0
        for k = 1, m do t = add(t, mul(mu[k], d(G[(k - 1) * n + i], along(q[j])))) end
        T[(i - 1) * n + j] = t
      end
    end
    for k = 1, m do
      for i = 1, n do B[(k - 1) * n + i] = d(G[(k - 1) * n + i], along_w) end
    end
    outputs.constraints, outputs.jacobian = g, G
    outputs.hessian_contract, outputs.hessian_vector = T, B
    section(c_function("constraints", "const double *q, double *g", {"q", "g"}, g, into("g")))
    section(c_function("jacobian", "const double *q, double *G", {"q", "G"}, G, into("G")))
    section(c_function("hessian_contract", "const double *q, const double *mu, double *T",
                       {"q", "mu", "T"}, T, into("T")))
    section(c_function("hessian_vector", "const double *q, const double *w, double *B",
                       {"q", "w", "B"}, B, into("B")))
    -- grad V, g and G in one call (wb.holonomic_point/1), of the same three
    -- functions inlined; with one constraint also RATTLE's Newton iteration
    -- on it (project(), ABI 1.7): one model call a step, on arrays of its
    -- own for a small model (in registers), on the caller's for a large one
    section("static void point_values(void *self, const double *q, double *grad, double *g,"
            .. " double *G)\n{\n    potential_gradient(self, q, grad);\n"
            .. "    constraints(self, q, g);\n    jacobian(self, q, G);\n}\n")
    if m == 1 then
      section(format("WB_HOLONOMIC_PROJECTION(project, point_values, %s)\n",
                     n <= 64 and "N" or "0"))
    end
    if not shape.quadratic then
      for i = 1, n * n do D[i] = d(T[i], along_w) end
      outputs.third_contract = D
      section(c_function("third_contract",
                         "const double *q, const double *mu, const double *w, double *D",
                         {"q", "mu", "w", "D"}, D, into("D")))
    end
  end

  -- invariants and the generators of the momentum maps
  local k_inv = #def.invariants
  if k_inv > 0 then
    local J, generators = {}, {}
    for i, inv in ipairs(def.invariants) do
      J[i] = wb._as_number(traced("invariant '" .. inv.name .. "'", inv.f, q, p, P),
                           "invariant '" .. inv.name .. "'")
    end
    section(c_function("invariants", "const double *q, const double *p, double *out",
                       {"q", "p", "out"}, J, into("out")))
    local cases = {}
    for i in ipairs(def.invariants) do
      if shape.momentum_map[i] then
        local xi = {}
        for c = 1, n do xi[c] = d(J[i], along(p[c])) end
        generators[i] = xi
        section(c_function("generator_" .. i, "const double *q, double *xi", {"q", "xi"}, xi,
                           into("xi")))
        cases[#cases + 1] = format("    case %d:\n        generator_%d(self, q, xi);\n"
                                   .. "        return 0;", i - 1, i)
      end
    end
    outputs.invariants, outputs.generators = J, generators
    section(format("static int generator(void *self, int index, const double *q, double *xi)\n"
                   .. "{\n    (void)self, (void)q, (void)xi;\n"
                   .. "    switch (index) {\n%s\n    }\n    return -1;\n}\n", concat(cases, "\n")))
  end

  -- the initial state, as a function of the parameters
  if def.initial then
    local q0, p0 = traced("initial", def.initial, P)
    q0 = wb._as_vector(q0, n, "initial (q)")
    if p0 == nil then
      p0 = {}
      for i = 1, n do p0[i] = 0 end
    end
    p0 = wb._as_vector(p0, n, "initial (p)")
    local both = {}
    for i = 1, n do both[i], both[n + i] = q0[i], p0[i] end
    outputs.initial = both
    section(c_function("initial", "double *q, double *p", {"q", "p"}, both, function(i, e)
      if i <= n then return format("    q[%d] = %s;", i - 1, e) end
      return format("    p[%d] = %s;", i - n - 1, e)
    end))
  end
  local names = {}
  for i, inv in ipairs(def.invariants) do names[i] = c_string(inv.name) end
  return {functions = concat(out, "\n"), mass_constant = mass_constant, n_invariants = k_inv,
          diagonal = diagonal, outputs = outputs, tape_size = tape_size,
          node_count = #nodes,
          declarations = k_inv > 0 and format("static const char *const invariant_names[] = {%s};",
                                              concat(names, ", ")) or ""}
end

local function source_of(def)
  local code = generate(def)
  local n, m, shape = def.nq, def.shape.m, def.shape
  local params = {}
  for _, par in ipairs(def.params) do
    params[#params + 1] = format("    {%s, %s, %s, %s, %s},", c_string(par.name),
                                 c_number(par.default), c_number(par.min), c_number(par.max),
                                 c_string(par.doc))
  end
  local np = #def.params
  local ext = {"    {WB_EXT_MECHANICAL, &mechanical_ext},"}
  local structs = {format([[
static const wb_mechanical_ext mechanical_ext = {
    .struct_size = sizeof(wb_mechanical_ext),
    .mass = mass,
    .mass_solve = %s,
    .potential = potential,
    .potential_gradient = potential_gradient,
    .potential_hessian = potential_hessian,
    .kinetic_gradient = %s,
};]], code.diagonal and "mass_solve" or "NULL", code.mass_constant and "NULL" or "kinetic_gradient")}
  if m > 0 then
    ext[#ext + 1] = "    {WB_EXT_HOLONOMIC, &holonomic_ext},"
    structs[#structs + 1] = format([[
static const wb_holonomic_ext holonomic_ext = {
    .struct_size = sizeof(wb_holonomic_ext),
    .flags = %s,
    .constraints = constraints,
    .jacobian = jacobian,
    .hessian_contract = hessian_contract,
    .hessian_vector = hessian_vector,
    .third_contract = %s,
};]], shape.quadratic and "WB_HOLONOMIC_QUADRATIC" or "0",
      shape.quadratic and "NULL" or "third_contract")
    ext[#ext + 1] = "    {WB_EXT_HOLONOMIC_POINT, &holonomic_point_ext},"
    structs[#structs + 1] = format([[
static const wb_holonomic_point_ext holonomic_point_ext = {
    .struct_size = sizeof(wb_holonomic_point_ext),
    .evaluate = point_values,
    .project = %s,
    .project_nq = %s,
};]], m == 1 and "project" or "NULL", m == 1 and "project_nq" or "0")
  end
  if code.n_invariants > 0 then
    ext[#ext + 1] = "    {WB_EXT_INVARIANTS, &invariants_ext},"
    structs[#structs + 1] = [[
static const wb_invariants_ext invariants_ext = {
    .struct_size = sizeof(wb_invariants_ext),
    .evaluate = invariants,
    .generator = generator,
};]]
  end
  if def.initial then
    ext[#ext + 1] = "    {WB_EXT_INITIAL_STATE, &initial_ext},"
    structs[#structs + 1] = [[
static const wb_initial_state_ext initial_ext = {
    .struct_size = sizeof(wb_initial_state_ext),
    .initial = initial,
};]]
  end
  return format([[
/* Generated by wb.compile_model (workbench %s, ABI %s) from the Lua model
 * '%s' defined at %s: %d expression nodes.  Do not edit: edit the Lua and
 * compile again. */
#include <workbench/workbench.h>
#include <workbench/holonomic_projection.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N %d
#define N_PARAMS %d
#define TAPE %d

typedef struct model {
    double p[N_PARAMS + 1];
    double *work; /* M and v of the kinetic gradient: N * N + N, or NULL */
    double *tape; /* what a long function's pieces pass on: TAPE doubles */
} model;

static const wb_param_spec params[N_PARAMS + 1] = {
%s
};
%s

static int create(const wb_host *host, const double *values, void **self, wb_model_info *info)
{
    model *s = calloc(1, sizeof *s);
    if (!s) {
        host->error(host, "%%s: out of memory", %s);
        return WB_ERR_NOMEM;
    }
    for (int i = 0; i < N_PARAMS; i++)
        s->p[i] = values[i];
    if ((%d && !(s->work = malloc(sizeof(double) * (N * N + N))))
        || (TAPE && !(s->tape = malloc(sizeof(double) * TAPE)))) {
        free(s->work);
        free(s);
        host->error(host, "%%s: out of memory", %s);
        return WB_ERR_NOMEM;
    }
    *self = s;
    info->nq = info->nv = N;
    info->n_holonomic = %d;
    info->mass_constant = %d;
    info->n_invariants = %d;
    %s
    return WB_OK;
}

static void destroy(void *self)
{
    model *s = self;
    free(s->work);
    free(s->tape);
    free(s);
}

/* the k-th derivative of a^b in a, b (b - 1) ... (b - k + 1) a^(b - k),
 * and 0 where that coefficient is: a^b is then a polynomial of degree
 * below k, and its derivative is 0 at a = 0 too (not 0 * inf) */
static inline double pow_derivative(double a, double b, int k)
{
    double c = 1;
    for (int i = 0; i < k; i++)
        c *= b - i;
    return c == 0 ? 0 : c * pow(a, b - k);
}

/* M v = p for the symmetric positive definite M (overwritten) */
static int cholesky_solve(double *M, const double *p, double *v)
{
    for (int j = 0; j < N; j++) {
        double d = M[j * N + j];
        for (int k = 0; k < j; k++)
            d -= M[j * N + k] * M[j * N + k];
        if (!(d > 0))
            return -1;
        M[j * N + j] = sqrt(d);
        for (int i = j + 1; i < N; i++) {
            double x = M[i * N + j];
            for (int k = 0; k < j; k++)
                x -= M[i * N + k] * M[j * N + k];
            M[i * N + j] = x / M[j * N + j];
        }
    }
    for (int i = 0; i < N; i++) {
        double x = p[i];
        for (int k = 0; k < i; k++)
            x -= M[i * N + k] * v[k];
        v[i] = x / M[i * N + i];
    }
    for (int i = N - 1; i >= 0; i--) {
        double x = v[i];
        for (int k = i + 1; k < N; k++)
            x -= M[k * N + i] * v[k];
        v[i] = x / M[i * N + i];
    }
    return 0;
}

%s
%s

static const struct {
    const char *id;
    const void *extension;
} extensions[] = {
%s
};

static const void *get_extension(const char *id)
{
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
        if (strcmp(extensions[i].id, id) == 0)
            return extensions[i].extension;
    return NULL;
}

static const wb_model_class model_class = {
    .struct_size = sizeof(wb_model_class),
    .name = %s,
    .doc = %s,
    .params = params,
    .n_params = N_PARAMS,
    .create = create,
    .destroy = destroy,
    .get_extension = get_extension,
    .param_spec_size = sizeof(wb_param_spec),
};

WB_PLUGIN_ENTRY = {
    .abi_major = WB_ABI_MAJOR,
    .abi_minor = WB_ABI_MINOR,
    .struct_size = sizeof(wb_plugin_entry),
    .kind = WB_KIND_MODEL,
    .name = %s,
    .version = "1.0",
    .description = %s,
    .descriptor = &model_class,
};
]], wb.version, wb.abi, c_comment(def.name), c_comment(def.origin), code.node_count, n, np,
    code.tape_size, np > 0 and concat(params, "\n") or "    {0}", code.declarations,
    c_string(def.name), code.mass_constant and 0 or 1, c_string(def.name), m,
    code.mass_constant and 1 or 0,
    code.n_invariants,
    code.n_invariants > 0 and "info->invariant_names = invariant_names;" or "",
    code.functions:gsub("%%", "%%%%"), concat(structs, "\n\n"), concat(ext, "\n"),
    c_string(def.name), c_string(def.doc), c_string(def.name),
    c_string("compiled from Lua (" .. def.origin .. ")")), code
end

---------------------------------------------------------------------------
-- The compiled model against its definition: the same functions run by
-- wb.define_model's evaluator (exact derivatives by wb.ad) at a few fixed
-- points.  Both sides are exact derivatives rounded in double precision:
-- they may differ by the rounding of their terms, no more.
---------------------------------------------------------------------------
local abs, sqrt, log = math.abs, math.sqrt, math.log
local U = 2 ^ -53 -- the unit round-off of a double
-- The bound below is the compiled side's; the twin rounds the same terms
-- in another order (jets: products of partial derivatives summed): SLACK
-- covers both sides and that order, in units of the bound.
local SLACK = 16

local function propagated(partial, e) -- what an operand's error e becomes
  if e == 0 or partial == 0 then return 0 end
  if partial ~= partial then return huge end
  return abs(partial) * e
end

local value_of = {sin = math.sin, cos = math.cos, tan = math.tan, asin = math.asin,
                  acos = math.acos, exp = math.exp, log = math.log, sqrt = math.sqrt,
                  atan = math.atan}
local slope_of = { -- f'(a), given a and f(a)
  sin = function(a) return math.cos(a) end,
  cos = function(a) return math.sin(a) end,
  tan = function(_, r) return 1 + r * r end,
  exp = function(_, r) return r end,
  log = function(a) return 1 / a end,
  sqrt = function(_, r) return 0.5 / r end,
  asin = function(a) return 1 / sqrt(1 - a * a) end,
  acos = function(a) return 1 / sqrt(1 - a * a) end,
  atan = function(a) return 1 / (1 + a * a) end,
}

-- d/db of b (b - 1) ... (b - k + 1)
local function falling_slope(b, k)
  local sum = 0
  for i = 0, k - 1 do
    local t = 1
    for j = 0, k - 1 do
      if j ~= i then t = t * (b - j) end
    end
    sum = sum + t
  end
  return sum
end

-- The value of every node below `values` at the leaves' values
-- (leaf(op, index)) as the generated C computes it, and a bound on its
-- rounding error in units of U: first-order running error analysis, each
-- operation rounding once (the math library within one unit), an operand's
-- error passed on by the operation's partial derivative.  A constant is
-- written with all its digits; a select near a tie may take either branch.
local function run_graph(values, leaf)
  local val, err = {}, {}
  local function V(x) if type(x) == "number" then return x end return val[x] end
  local function E(x) if type(x) == "number" then return 0 end return err[x] end
  for _, x in ipairs(below(values)) do
    local op = x.op
    local r, e
    if op == "const" then -- written with all its digits: exact
      r, e = x.a, 0
    elseif leaf_ops[op] then
      r, e = leaf(op, x.a), 0
    else
      local a, ea = V(x.a), E(x.a)
      local b, eb
      if x.b ~= nil then b, eb = V(x.b), E(x.b) end
      if op == "add" then
        r = a + b
        e = ea + eb + abs(r)
      elseif op == "sub" then
        r = a - b
        e = ea + eb + abs(r)
      elseif op == "neg" then
        r, e = -a, ea
      elseif op == "mul" then
        r = a * b
        e = propagated(b, ea) + propagated(a, eb) + abs(r)
      elseif op == "div" then
        r = a / b
        e = propagated(1 / b, ea) + propagated(r / b, eb) + abs(r)
      elseif op == "mulz" then
        r = a == 0 and 0 or a * b
        e = a == 0 and 0 or propagated(b, ea) + propagated(a, eb) + abs(r)
      elseif op == "divz" then
        r = a == 0 and 0 or a / b
        e = a == 0 and 0 or propagated(1 / b, ea) + propagated(r / b, eb) + abs(r)
      elseif op == "pow" then
        r = a ^ b
        e = propagated(powd_value(a, b, 1), ea) + propagated(r * log(a), eb) + abs(r)
      elseif op == "powd" then
        local k = x.c
        r = powd_value(a, b, k)
        e = propagated(powd_value(a, b, k + 1), ea)
            + propagated(falling_slope(b, k) * a ^ (b - k) + r * log(abs(a)), eb) + (k + 1) * abs(r)
      elseif op == "atan2" then
        r = math.atan(a, b)
        local r2 = a * a + b * b
        e = propagated(b / r2, ea) + propagated(a / r2, eb) + abs(r)
      elseif op == "abs" then
        r, e = abs(a), ea
      elseif op == "sign" then
        r = a < 0 and -1 or 1
        e = (ea > 0 and abs(a) <= ea * U) and 2 / U or 0
      elseif op == "select_ge" or op == "select_le" then
        local c, d = V(x.c), V(x.d)
        local first
        if op == "select_ge" then first = not (a < b) else first = not (b < a) end
        if first then r, e = c, E(x.c) else r, e = d, E(x.d) end
        if abs(a - b) <= (ea + eb) * U then e = math.max(E(x.c), E(x.d)) + abs(c - d) / U end
      else
        r = value_of[op](a)
        e = propagated(slope_of[op](a, r), ea) + abs(r)
      end
    end
    val[x], err[x] = r, e
  end
  return val, err
end

-- the rows of a matrix (or a vector) one after the other
local function flat(t)
  if type(t[1]) ~= "table" then return t end
  local out = {}
  for _, row in ipairs(t) do
    for _, x in ipairs(row) do out[#out + 1] = x end
  end
  return out
end

local function finite(x)
  for _, v in ipairs(x) do
    if v ~= v or abs(v) == huge then return false end
  end
  return true
end

local function vector_text(x)
  local parts = {}
  for i = 1, math.min(#x, 6) do parts[i] = format("%.17g", x[i]) end
  if #x > 6 then parts[#parts + 1] = format("... (%d values)", #x) end
  return "{" .. concat(parts, ", ") .. "}"
end

-- How far v = M^-1 p may lie apart on the two sides, componentwise in units
-- of U, and what that moves the kinetic gradient by: |M^-1| |dM| |v| with
-- dM the rounding of M's entries and of the Cholesky solve (backward error
-- (n + 1) |L| |L^T|), both sides; then |dT/dq_k| moves by
-- sum_i |(dM/dq_k v)_i| dv_i.  Nil where M is not positive definite.
local function kinetic_slack(def, P, q, M, errM, n)
  local L = {}
  for i = 1, n do
    for j = 1, i do
      local x = M[(i - 1) * n + j]
      for k = 1, j - 1 do x = x - L[(i - 1) * n + k] * L[(j - 1) * n + k] end
      if i == j then
        if not (x > 0) then return nil end
        L[(i - 1) * n + i] = sqrt(x)
      else
        L[(i - 1) * n + j] = x / L[(j - 1) * n + j]
      end
    end
    for j = i + 1, n do L[(i - 1) * n + j] = 0 end
  end
  local function solve(b) -- M^-1 b by L
    local y = {}
    for i = 1, n do
      local x = b[i]
      for k = 1, i - 1 do x = x - L[(i - 1) * n + k] * y[k] end
      y[i] = x / L[(i - 1) * n + i]
    end
    for i = n, 1, -1 do
      local x = y[i]
      for k = i + 1, n do x = x - L[(k - 1) * n + i] * y[k] end
      y[i] = x / L[(i - 1) * n + i]
    end
    return y
  end
  return solve, function(v)
    -- r = (2 (n + 1) |L| |L^T| + 2 errM) |v|
    local Lv, r = {}, {}
    for k = 1, n do
      local x = 0
      for j = k, n do x = x + abs(L[(j - 1) * n + k]) * abs(v[j]) end
      Lv[k] = x
    end
    for i = 1, n do
      local x = 0
      for k = 1, i do x = x + abs(L[(i - 1) * n + k]) * Lv[k] end
      local y = 0
      for j = 1, n do y = y + errM[(i - 1) * n + j] * abs(v[j]) end
      r[i] = 2 * (n + 1) * x + 2 * y
    end
    -- dv = |M^-1| r, by the columns of M^-1
    local dv, e = {}, {}
    for i = 1, n do dv[i], e[i] = 0, 0 end
    for j = 1, n do
      e[j] = 1
      local column = solve(e)
      e[j] = 0
      for i = 1, n do dv[i] = dv[i] + abs(column[i]) * r[j] end
    end
    -- (dM/dq_k v)_i from the jets of M
    local S1 = wb.ad.space(n, 1)
    local Mx = wb._flat_mass(def.mass(S1.seed(q), P), n)
    local slack, grad = {}, {}
    for k = 1, n do slack[k] = 0 end
    for i = 1, n do
      local row = {}
      for k = 1, n do row[k] = 0 end
      for j = 1, n do
        S1.gradient(Mx[(i - 1) * n + j], grad)
        for k = 1, n do row[k] = row[k] + grad[k] * v[j] end
      end
      for k = 1, n do slack[k] = slack[k] + abs(row[k]) * dv[i] end
    end
    return slack
  end
end

local function twin_check(def, code)
  local n, m, shape, outputs = def.nq, def.shape.m, def.shape, code.outputs
  return function(model, values, P)
    local E = wb._evaluator(def, P, shape)
    local q0, p0 = wb._probe_point(def, P)
    local failure
    -- one function at one point: the first entry that differs, or nil
    local function compare(what, value_like, compiled, twin, nodes_of, leaf, point, extra)
      if failure then return end
      local val, err = run_graph(nodes_of, leaf)
      for i = 1, #twin do
        local t, c, x = twin[i], compiled[i], nodes_of[i]
        local bound = (type(x) == "number" and 0 or err[x]) + (extra and extra[i] or 0)
        local tol = SLACK * U * bound
        local ok
        if t == t and abs(t) ~= huge then
          ok = c == c and abs(c) ~= huge and abs(c - t) <= tol
        elseif value_like then -- both not a number, or the same infinity
          ok = (t ~= t and c ~= c) or t == c
        else -- the twin has no derivative here (forward AD at a kink)
          ok = true
        end
        if not ok then
          local entry = ""
          if #twin > 1 then
            local cols = (#twin == n * n and n) or (#twin == m * n and n) or #twin
            entry = cols < #twin
                    and format(" (entry %d, %d)", (i - 1) // cols + 1, (i - 1) % cols + 1)
                    or format(" (entry %d)", i)
          end
          failure = format("the compiled %s%s is not the defined one at %s: compiled %.17g, "
                           .. "defined %.17g (allowed %.3g from the rounding of its terms, "
                           .. "%.3g apart)", what, entry, point, c, t, tol, abs(c - t))
          return
        end
      end
    end
    local function twin_of(f, ...)
      local ok, result = pcall(f, ...)
      if ok then return result end
      return nil -- the definition fails here too: nothing to compare
    end
    if outputs.initial then
      local q, p = model:initial()
      local both = {}
      for i = 1, n do both[i], both[n + i] = q[i], p[i] end
      local twin = twin_of(E[13])
      if twin then
        compare("initial state", true, both, twin, outputs.initial,
                function(_, j) return values[j] end, "the parameters given")
      end
    end
    for j = 0, 2 do
      local q, p, mu, w = {}, {}, {}, {}
      for i = 1, n do
        local s = j == 0 and 0 or ((i * 37 + j * 11) % 17 - 8) / 80 * (j == 1 and 1 or -1)
        q[i] = q0[i] + s * (1 + abs(q0[i]))
        p[i] = p0[i] + ((i * 13 + j * 5) % 19 - 9) / 10 * (1 + abs(p0[i]))
        w[i] = ((i * 7 + j) % 13 - 6) / 4
      end
      for k = 1, m do mu[k] = 0.5 + ((k * 5 + j) % 7) / 7 end
      local at = {q = q, p = p, mu = mu, w = w}
      local function leaf(op, i)
        if op == "par" then return values[i] end
        return at[op][i]
      end
      local point = j == 0 and "the initial state" or format("check point %d", j + 1)
      point = format("%s, q = %s", point, vector_text(q))
      local with_p = format("%s, p = %s", point, vector_text(p))
      -- a value, then its derivatives where it is finite (the twin's
      -- forward AD treats what is NaN as it comes; nothing to compare)
      local V = twin_of(E[1], q)
      if V then
        compare("potential", true, {model:potential(q)}, {V}, outputs.potential, leaf, point)
      end
      if V and finite({V}) then
        local twin = twin_of(E[2], q)
        if twin then
          compare("gradient of the potential", false, model:gradient(q), twin, outputs.gradient,
                  leaf, point)
        end
        twin = twin_of(E[3], q)
        if twin then
          compare("Hessian of the potential", false, flat(model:hessian(q)), twin,
                  outputs.hessian, leaf, point)
        end
      end
      local M = twin_of(E[4], q)
      if M then compare("mass matrix", true, flat(model:mass(q)), M, outputs.mass, leaf, point) end
      if M and finite(M) and (outputs.kinetic or not shape.mass_constant) then
        local kinetic = outputs.kinetic or {}
        for k = 1, n do kinetic[k] = kinetic[k] or 0 end
        local _, err = run_graph(outputs.mass, leaf)
        local errM = {}
        for i, x in ipairs(outputs.mass) do errM[i] = type(x) == "number" and 0 or err[x] end
        local solve, slack_of = kinetic_slack(def, P, q, M, errM, n)
        local twin = solve and twin_of(E[5], q, p)
        if twin then
          at.v = solve(p)
          compare("kinetic gradient (d/dq of p^T M(q)^-1 p / 2)", false,
                  model:_kinetic_gradient(q, p), twin, kinetic, leaf, with_p, slack_of(at.v))
        end
      end
      local g = m > 0 and twin_of(E[6], q)
      if g then
        compare("constraints", true, model:constraints(q), g, outputs.constraints, leaf, point)
      end
      if g and finite(g) then
        local twin = twin_of(E[7], q)
        if twin then
          compare("constraint Jacobian", false, flat(model:constraint_jacobian(q)), twin,
                  outputs.jacobian, leaf, point)
        end
        twin = twin_of(E[8], q, mu)
        if twin then
          compare("hessian_contract (sum_k mu_k D^2 g_k)", false, model:_hessian_contract(q, mu),
                  twin, outputs.hessian_contract, leaf,
                  format("%s, mu = %s", point, vector_text(mu)))
        end
        twin = twin_of(E[9], q, w)
        if twin then
          compare("hessian_vector (D^2 g_k w)", false, model:_hessian_vector(q, w), twin,
                  outputs.hessian_vector, leaf, format("%s, w = %s", point, vector_text(w)))
        end
        twin = outputs.third_contract and twin_of(E[10], q, mu, w)
        if twin then
          compare("third_contract (sum_k mu_k D^3 g_k w)", false, model:_third_contract(q, mu, w),
                  twin, outputs.third_contract, leaf,
                  format("%s, mu = %s, w = %s", point, vector_text(mu), vector_text(w)))
        end
      end
      local J = outputs.invariants and twin_of(E[11], q, p)
      if J then
        local all, compiled = model:invariants(q, p), {}
        for i, inv in ipairs(def.invariants) do compiled[i] = all[inv.name] end
        compare("invariants", true, compiled, J, outputs.invariants, leaf, with_p)
        for i, inv in ipairs(def.invariants) do
          local xi = outputs.generators[i]
          local twin = xi and finite({J[i]}) and twin_of(E[12], i, q)
          if twin then
            compare(format("generator of invariant '%s'", inv.name), false, model:generator(i, q),
                    twin, xi, leaf, point)
          end
        end
      end
      if failure then break end
    end
    return failure
  end
end

-- Each compiled model's comparison, run by wb.model before it returns an
-- instance, once per parameter set: the parameters stay parameters in the
-- C, and a test of one (P.k == 1) was not seen while tracing.
local verifiers = {}
local model_new = wb.model

function wb.model(name, params)
  local m = model_new(name, params)
  local verify = type(name) == "string" and verifiers[name]
  if verify then verify(m) end
  return m
end

local function verifier(def, code)
  local check, seen = twin_check(def, code), {}
  return function(model)
    local P, values, key = model.params, {}, {}
    for j, par in ipairs(def.params) do
      values[j] = P[par.name]
      key[j] = format("%.17g", values[j])
    end
    key = concat(key, ",")
    if seen[key] == nil then seen[key] = check(model, values, P) or false end
    if seen[key] then
      local with = {}
      for j, par in ipairs(def.params) do with[j] = format("%s = %.17g", par.name, values[j]) end
      error(format("wb.compile_model: model '%s'%s: %s.  Tracing cannot see == or ~= between a "
                   .. "traced value (a coordinate or a parameter) and a number (Lua compares a "
                   .. "table and a number without asking the table), nor type(), tonumber() or "
                   .. "math.type() of one: write the function without them, or use wb.define_model",
                   def.name, #with > 0 and " with " .. concat(with, ", ") or "", seen[key]),
            wb._user_level())
    end
  end
end

---------------------------------------------------------------------------
-- wb.compile_model
---------------------------------------------------------------------------

-- FNV-1a, 64 bits, as 16 hex digits: the cache key of a source text
local function content_hash(text)
  local h = 0xcbf29ce484222325
  for i = 1, #text do
    h = h ~ text:byte(i)
    h = h * 0x100000001b3
  end
  return format("%016x", h)
end
wb._content_hash = content_hash

-- the name begins the files' names (NAME-KEY.so, .c, .c.log, temporaries):
-- a file name holds at most 255 bytes
local MAX_NAME = 128

function wb.compile_model(spec)
  local def = wb._prepare_model(spec, "wb.compile_model")
  if #def.name > MAX_NAME then
    error(format("wb.compile_model: model '%s...' (%d bytes): a compiled model's name has at "
                 .. "most %d bytes (it names the plugin's files)", def.name:sub(1, 40), #def.name,
                 MAX_NAME), wb._user_level())
  end
  local ok, source, code = pcall(source_of, def)
  if not ok then
    error(format("wb.compile_model: model '%s': %s", def.name, tostring(source)),
          wb._user_level())
  end
  local compiler = os.getenv("CC") or "cc"
  local key = content_hash(source .. "\0" .. compiler .. "\0" .. wb._compile_flags() .. "\0"
                           .. wb._compile_inputs())
  local folder, why = wb._cache_dir("models")
  if not folder then
    error(format("wb.compile_model: model '%s': %s", def.name, why), wb._user_level())
  end
  local base = format("%s/%s-%s", folder, def.name, key)
  -- a taken name is refused, as wb.define_model does (loaded before the
  -- plugins were found, it replaced the installed model); the same build
  -- again is the model already loaded
  local origin = wb._model_origin(def.name)
  if origin and origin ~= base .. ".so" then
    error(format("wb.compile_model: model '%s': a model named '%s' already exists (from '%s'): "
                 .. "choose another name", def.name, def.name, origin), wb._user_level())
  end
  local loaded
  loaded, why = wb._compile_plugin(source, base .. ".c", base .. ".so", compiler, def.name)
  if not loaded then
    error(format("wb.compile_model: model '%s': %s", def.name, why), wb._user_level())
  end
  wb._compiled_models = wb._compiled_models or {}
  wb._compiled_models[def.name] = base .. ".so"
  wb._script_models[#wb._script_models + 1] = def.name
  verifiers[def.name] = verifier(def, code)
  return wb.model(def.name)
end
