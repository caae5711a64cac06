-- model_compiler.lua -- wb.compile_model: a model written in Lua, turned
-- into a C model plugin (embedded in the binary).
--
--   local m = wb.compile_model{ the fields of wb.define_model }
--
-- The model's functions run once on symbols (tracing): every arithmetic
-- operation and math function builds a node of an expression graph, shared
-- where two computations are the same.  Derivatives are the graph's own
-- symbolic derivatives, simplified and shared the same way.  The graph is
-- written out as straight-line C, compiled by the system C compiler ($CC,
-- default cc) into a plugin, cached by content under the cache folder
-- (host/cache_dir.h: where it is, and that it must be the user's own), and
-- loaded like any plugin: the generated C and the
-- plugin stay there, and the plugin works from the command line too
-- (`workbench --plugin-path <folder> check-model NAME`).
--
-- What tracing needs: the functions compute with arithmetic and the math
-- library only, the same way whatever the values (a branch on a value, an
-- `if q[1] > 0`, cannot be traced and is refused with the line); a loop
-- over the coordinates is fine.  Parameters stay parameters: the plugin
-- takes them as wb.model(name, {...}) does.
local wb = ...

local format, concat = string.format, table.concat
local huge = math.huge

---------------------------------------------------------------------------
-- Expression graph
---------------------------------------------------------------------------
local SYM = {__wb_ad = "symbol"}
local nodes, by_key -- the graph of the model being compiled

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
local add, sub, mul, div, neg, pow, fn

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

local folds = {sin = math.sin, cos = math.cos, tan = math.tan, asin = math.asin,
               acos = math.acos, exp = math.exp, log = math.log, sqrt = math.sqrt,
               atan = math.atan, sign = function(x) return x < 0 and -1 or 1 end}

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

-- select(a >= b, x, y) and select(a <= b, x, y): max, min and their derivatives
local function select(op, a, b, x, y)
  local ca, cb = const_of(a), const_of(b)
  if ca and cb then
    if op == "ge" then return ca >= cb and x or y end
    return ca <= cb and x or y
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

---------------------------------------------------------------------------
-- Derivatives: d(node)/d(leaf), memoized per leaf
---------------------------------------------------------------------------
local derivative_memo

local function d(x, var)
  if type(x) == "number" then return 0 end
  local memo = derivative_memo[var]
  if not memo then
    memo = {}
    derivative_memo[var] = memo
  end
  local r = memo[x]
  if r ~= nil then return r end
  local op, a, b = x.op, x.a, x.b
  if op == "const" then
    r = 0
  elseif op == "q" or op == "p" or op == "par" or op == "mu" or op == "w" then
    r = rawequal(x, var) and 1 or 0
  elseif op == "add" then
    r = add(d(a, var), d(b, var))
  elseif op == "sub" then
    r = sub(d(a, var), d(b, var))
  elseif op == "neg" then
    r = neg(d(a, var))
  elseif op == "mul" then
    r = add(mul(d(a, var), b), mul(a, d(b, var)))
  elseif op == "div" then
    -- (a/b)' = (a' - (a/b) b') / b
    r = div(sub(d(a, var), mul(x, d(b, var))), b)
  elseif op == "pow" then
    local cb = const_of(b)
    if cb then
      r = mul(mul(cb, pow(a, cb - 1)), d(a, var))
    else
      r = mul(x, add(mul(d(b, var), fn("log", a)), div(mul(b, d(a, var)), a)))
    end
  elseif op == "sin" then
    r = mul(fn("cos", a), d(a, var))
  elseif op == "cos" then
    r = neg(mul(fn("sin", a), d(a, var)))
  elseif op == "tan" then
    r = mul(add(1, mul(x, x)), d(a, var))
  elseif op == "exp" then
    r = mul(x, d(a, var))
  elseif op == "log" then
    r = div(d(a, var), a)
  elseif op == "sqrt" then
    r = div(d(a, var), mul(2, x))
  elseif op == "asin" then
    r = div(d(a, var), fn("sqrt", sub(1, mul(a, a))))
  elseif op == "acos" then
    r = neg(div(d(a, var), fn("sqrt", sub(1, mul(a, a)))))
  elseif op == "atan" then
    r = div(d(a, var), add(1, mul(a, a)))
  elseif op == "atan2" then -- atan2(y, x): (x dy - y dx) / (x^2 + y^2)
    r = div(sub(mul(b, d(a, var)), mul(a, d(b, var))), add(mul(a, a), mul(b, b)))
  elseif op == "abs" then
    r = mul(fn("sign", a), d(a, var))
  elseif op == "sign" then
    r = 0
  elseif op == "select_ge" or op == "select_le" then
    r = select(op:sub(-2), a, b, d(x.c, var), d(x.d, var))
  else
    error("wb.compile_model: no derivative for '" .. op .. "'")
  end
  memo[x] = r
  return r
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

-- Straight-line code computing the given values (numbers or nodes):
-- returns the lines and the C expression of each value.
local function emit(values, leaf_name)
  local lines, names, order, seen = {}, {}, {}, {}
  local function visit(x)
    if type(x) == "number" or seen[x] then return end
    seen[x] = true
    for _, child in ipairs{x.a, x.b, x.c, x.d} do
      if is_sym(child) then visit(child) end
    end
    order[#order + 1] = x
  end
  for _, v in ipairs(values) do visit(v) end
  local function ref(x)
    if type(x) == "number" then return c_number(x) end
    return names[x]
  end
  for _, x in ipairs(order) do
    local op = x.op
    if op == "const" then
      names[x] = c_number(x.a)
    elseif op == "q" or op == "p" or op == "par" or op == "mu" or op == "w" then
      names[x] = leaf_name(op, x.a)
    else
      local a, b = ref(x.a), x.b and ref(x.b)
      local e
      if op == "add" then e = a .. " + " .. b
      elseif op == "sub" then e = a .. " - " .. b
      elseif op == "mul" then e = a .. " * " .. b
      elseif op == "div" then e = a .. " / " .. b
      elseif op == "neg" then e = "-" .. a
      elseif op == "pow" then e = format("pow(%s, %s)", a, b)
      elseif op == "atan2" then e = format("atan2(%s, %s)", a, b)
      elseif op == "sign" then e = format("copysign(1.0, %s)", a)
      elseif op == "select_ge" then e = format("%s >= %s ? %s : %s", a, b, ref(x.c), ref(x.d))
      elseif op == "select_le" then e = format("%s <= %s ? %s : %s", a, b, ref(x.c), ref(x.d))
      else e = format("%s(%s)", c_functions[op], a) end
      local name = "t" .. x.id
      lines[#lines + 1] = format("    const double %s = %s;", name, e)
      names[x] = name
    end
  end
  local exprs = {}
  for i, v in ipairs(values) do exprs[i] = ref(v) end
  return lines, exprs
end

local function leaf_name(op, i)
  if op == "par" then return format("s->p[%d]", i - 1) end
  return format("%s[%d]", op, i - 1)
end

-- a C function body: the values assigned to out[0..], or returned
local function body(values, out)
  local lines, exprs = emit(values, leaf_name)
  for i, e in ipairs(exprs) do
    lines[#lines + 1] = format("    %s[%d] = %s;", out, i - 1, e)
  end
  return concat(lines, "\n")
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
  nodes, by_key, derivative_memo = {}, {}, {}
  local n, m, shape = def.nq, def.shape.m, def.shape
  local q, p, mu, w, P = {}, {}, {}, {}, {}
  for i = 1, n do q[i], p[i], w[i] = leaf("q", i), leaf("p", i), leaf("w", i) end
  for k = 1, m do mu[k] = leaf("mu", k) end
  for j, par in ipairs(def.params) do P[par.name] = leaf("par", j) end
  local function traced(what, f, ...)
    local ok, result, extra = pcall(f, ...)
    if not ok then error(format("%s: %s", what, tostring(result)), 0) end
    return result, extra
  end
  local out = {}
  local function section(text) out[#out + 1] = text end

  -- potential, gradient, Hessian
  local V = wb._as_number(traced("potential", def.potential, q, P), "potential")
  local grad, hess = {}, {}
  for i = 1, n do grad[i] = d(V, q[i]) end
  for i = 1, n do
    for j = 1, n do
      hess[(i - 1) * n + j] = j >= i and d(grad[i], q[j]) or nil
    end
  end
  for i = 1, n do
    for j = 1, i - 1 do hess[(i - 1) * n + j] = hess[(j - 1) * n + i] end
  end
  do
    local lines, exprs = emit({V}, leaf_name)
    section(format("static double potential(void *self, const double *q)\n{\n"
                   .. "    const model *s = self;\n    (void)s, (void)q;\n%s\n    return %s;\n}\n",
                   concat(lines, "\n"), exprs[1]))
  end
  section(format("static void potential_gradient(void *self, const double *q, double *g)\n{\n"
                 .. "    const model *s = self;\n    (void)s, (void)q;\n%s\n}\n", body(grad, "g")))
  section(format("static void potential_hessian(void *self, const double *q, double *H)\n{\n"
                 .. "    const model *s = self;\n    (void)s, (void)q;\n%s\n}\n", body(hess, "H")))

  -- mass and, when it depends on q, the kinetic gradient
  local mass = def.mass
  local Mraw = type(mass) == "function" and traced("mass", mass, q, P) or mass
  local M = wb._flat_mass(Mraw, n)
  section(format("static void mass(void *self, const double *q, double *M)\n{\n"
                 .. "    const model *s = self;\n    (void)s, (void)q;\n%s\n}\n", body(M, "M")))
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
    local lines, exprs = emit(Md, leaf_name)
    for i, e in ipairs(exprs) do lines[#lines + 1] = format("    v[%d] = p[%d] / %s;", i - 1, i - 1, e) end
    section(format("static void mass_solve(void *self, const double *q, const double *p, double *v)"
                   .. "\n{\n    const model *s = self;\n    (void)s, (void)q;\n%s\n}\n",
                   concat(lines, "\n")))
  end
  local mass_constant = true
  for i = 1, n * n do
    for j = 1, n do
      if d(M[i], q[j]) ~= 0 then mass_constant = false end
    end
  end
  if not mass_constant then
    -- dT/dq_k = -1/2 v^T (dM/dq_k) v with v = M^-1 p: M by Cholesky here
    local dM = {}
    for k = 1, n do
      for i = 1, n * n do dM[(k - 1) * n * n + i] = d(M[i], q[k]) end
    end
    section(format([[
static void kinetic_gradient(void *self, const double *q, const double *p, double *g)
{
    const model *s = self;
    double M[N * N], dM[N * N * N], v[N];
    mass(self, q, M);
    (void)s;
%s
    if (cholesky_solve(M, p, v) != 0) {
        for (int k = 0; k < N; k++)
            g[k] = NAN;
        return;
    }
    for (int k = 0; k < N; k++) {
        double sum = 0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                sum += v[i] * dM[(k * N + i) * N + j] * v[j];
        g[k] = -0.5 * sum;
    }
}
]], body(dM, "dM")))
  end

  -- constraints and their derivatives
  if m > 0 then
    local g = wb._as_vector(traced("constraints", def.constraints, q, P), m, "constraints")
    local G, T, B, D = {}, {}, {}, {}
    for k = 1, m do
      for i = 1, n do G[(k - 1) * n + i] = d(g[k], q[i]) end
    end
    -- T = sum_k mu_k D^2 g_k, B row k = D^2 g_k w
    for i = 1, n do
      for j = 1, n do
        local t = 0
        for k = 1, m do t = add(t, mul(mu[k], d(G[(k - 1) * n + i], q[j]))) end
        T[(i - 1) * n + j] = t
      end
    end
    for k = 1, m do
      for i = 1, n do
        local b = 0
        for j = 1, n do b = add(b, mul(d(G[(k - 1) * n + i], q[j]), w[j])) end
        B[(k - 1) * n + i] = b
      end
    end
    section(format("static void constraints(void *self, const double *q, double *g)\n{\n"
                   .. "    const model *s = self;\n    (void)s, (void)q;\n%s\n}\n", body(g, "g")))
    section(format("static void jacobian(void *self, const double *q, double *G)\n{\n"
                   .. "    const model *s = self;\n    (void)s, (void)q;\n%s\n}\n", body(G, "G")))
    section(format("static void hessian_contract(void *self, const double *q, const double *mu,"
                   .. " double *T)\n{\n    const model *s = self;\n    (void)s, (void)q, (void)mu;"
                   .. "\n%s\n}\n", body(T, "T")))
    section(format("static void hessian_vector(void *self, const double *q, const double *w,"
                   .. " double *B)\n{\n    const model *s = self;\n    (void)s, (void)q, (void)w;"
                   .. "\n%s\n}\n", body(B, "B")))
    -- grad V, g and G in one call (wb.holonomic_point/1), of the same three
    -- functions inlined; with one constraint also RATTLE's Newton iteration
    -- on it (project(), ABI 1.7): one model call a step
    section("static void point_values(void *self, const double *q, double *grad, double *g,"
            .. " double *G)\n{\n    potential_gradient(self, q, grad);\n"
            .. "    constraints(self, q, g);\n    jacobian(self, q, G);\n}\n")
    if m == 1 then section("WB_HOLONOMIC_PROJECTION(project, point_values, N)\n") end
    if not shape.quadratic then
      for i = 1, n * n do
        local x = 0
        for l = 1, n do x = add(x, mul(d(T[i], q[l]), w[l])) end
        D[i] = x
      end
      section(format("static void third_contract(void *self, const double *q, const double *mu,"
                     .. " const double *w, double *D)\n{\n    const model *s = self;\n"
                     .. "    (void)s, (void)q, (void)mu, (void)w;\n%s\n}\n", body(D, "D")))
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
    section(format("static void invariants(void *self, const double *q, const double *p,"
                   .. " double *out)\n{\n    const model *s = self;\n    (void)s, (void)q, (void)p;"
                   .. "\n%s\n}\n", body(J, "out")))
    local cases = {}
    for i in ipairs(def.invariants) do
      if shape.momentum_map[i] then
        local xi = {}
        for c = 1, n do xi[c] = d(J[i], p[c]) end
        cases[#cases + 1] = format("    case %d: {\n%s\n        return 0;\n    }", i - 1,
                                   body(xi, "xi"):gsub("\n", "\n    "):gsub("^", "    "))
      end
    end
    section(format("static int generator(void *self, int index, const double *q, double *xi)\n"
                   .. "{\n    const model *s = self;\n    (void)s, (void)q, (void)xi;\n"
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
    section(format("static void initial(void *self, double *q, double *p)\n{\n"
                   .. "    const model *s = self;\n    double x[2 * N];\n    (void)s;\n%s\n"
                   .. "    memcpy(q, x, sizeof(double) * N);\n"
                   .. "    memcpy(p, x + N, sizeof(double) * N);\n}\n", body(both, "x")))
  end
  local names = {}
  for i, inv in ipairs(def.invariants) do names[i] = c_string(inv.name) end
  return {functions = concat(out, "\n"), mass_constant = mass_constant, n_invariants = k_inv,
          diagonal = diagonal,
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

typedef struct model {
    double p[N_PARAMS + 1];
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
    *self = s;
    info->nq = info->nv = N;
    info->n_holonomic = %d;
    info->mass_constant = %d;
    info->n_invariants = %d;
    %s
    return WB_OK;
}

static void destroy(void *self) { free(self); }

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
    np > 0 and concat(params, "\n") or "    {0}", code.declarations, c_string(def.name), m,
    code.mass_constant and 1 or 0,
    code.n_invariants,
    code.n_invariants > 0 and "info->invariant_names = invariant_names;" or "",
    code.functions:gsub("%%", "%%%%"), concat(structs, "\n\n"), concat(ext, "\n"),
    c_string(def.name), c_string(def.doc), c_string(def.name),
    c_string("compiled from Lua (" .. def.origin .. ")"))
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
  local ok, source = pcall(source_of, def)
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
  return wb.model(def.name)
end
