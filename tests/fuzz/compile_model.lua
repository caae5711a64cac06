-- wb.compile_model on random models (issue 25): expressions of every
-- operation and math function the tracer knows, with constant and
-- parameter exponents, nested under max/min, at points with zero
-- coordinates.  Each compiled model must be built and give the defined
-- model's values and derivatives wherever the defined model has a number.
-- Fixed seeds: the same models every run.
local SEEDS = {3, 8, 9, 60, 176}

local function generator(seed)
  local s = seed
  return function(n)
    s = (s * 1103515245 + 12345) % 2147483648
    return s % n + 1
  end
end

local forms = {"(%s + %s)", "(%s - %s)", "(%s * %s)", "(%s / (1.5 + %s^2))", "(%s)^2", "(%s)^3",
               "math.sin(%s)", "math.cos(%s)", "math.exp(0.3 * %s)", "math.log(2 + %s^2)",
               "math.sqrt(1 + %s^2)", "math.atan(%s)", "math.atan(%s, 2 + %s^2)", "math.abs(%s)",
               "math.max(%s, %s)", "math.min(%s, %s)", "(%s^2)^P.k", "(1 + %s^2)^P.h",
               "%s^P.n", "math.tan(0.3 * %s)", "math.asin(%s / (2 + math.abs(%s)))", "(%s)^1.5"}

local function tree(r, depth)
  if depth == 0 or r(4) == 1 then
    local k = r(6)
    if k <= 4 then return ({"q[1]", "q[2]", "q[3]", "P.a"})[k] end
    return r(2) == 1 and "0." .. r(99) or tostring(r(5))
  end
  local a, b = tree(r, depth - 1), tree(r, depth - 1)
  local form = forms[r(#forms)]
  local _, holes = form:gsub("%%s", "")
  return holes == 1 and form:format(a) or form:format(a, b)
end

local function model_text(seed, name)
  local r = generator(seed)
  return string.format([[
return {
  name = "%s", nq = 3, params = {a = 0.7, k = 1.5, h = 0.5, n = %d},
  potential = function(q, P) return %s + %s end,
  constraints = function(q, P) return {q[1]^2 + q[2]^2 + q[3]^2 - 1 + 0.1 * %s} end,
  mass = function(q, P) return {1 + (%s)^2, 2, 3} end,
  initial = function(P) return {%s, %s, %s} end,
}]], name, r(4) - 1, tree(r, 4), tree(r, 3), tree(r, 3), tree(r, 2),
     r(3) == 1 and "0" or "0.6", r(2) == 1 and "0" or "0.8", r(3) == 1 and "0" or "-0.3")
end

-- the largest difference relative to the entry's size where the defined
-- model has a number
local function worst(defined, compiled)
  local w = 0
  for i = 1, #defined do
    local x, y = defined[i], compiled[i]
    if type(x) == "table" then
      w = math.max(w, worst(x, y))
    elseif x == x and math.abs(x) ~= math.huge and x ~= y then
      local d = math.abs(x - y) / (1 + math.abs(x))
      w = math.max(w, d == d and d or math.huge)
    end
  end
  return w
end

for _, seed in ipairs(SEEDS) do
  local text = model_text(seed, "fuzz_compiled_" .. seed)
  local ok, compiled = pcall(wb.compile_model, load(text)())
  wb.check(ok, "random model " .. seed .. " is compiled", ok and "" or tostring(compiled):sub(1, 300))
  if ok then
    local defined = wb.define_model(load(model_text(seed, "fuzz_defined_" .. seed))())
    local q0 = defined:initial()
    local p = {0.4, -0.2, -0.8}
    local w = 0
    for _, s in ipairs{0, 0.1, -0.07} do
      local q = {q0[1] + s, q0[2] - s, q0[3] + 2 * s}
      w = math.max(w, worst({defined:potential(q)}, {compiled:potential(q)}),
                   worst(defined:gradient(q), compiled:gradient(q)),
                   worst(defined:hessian(q), compiled:hessian(q)),
                   worst(defined:_kinetic_gradient(q, p), compiled:_kinetic_gradient(q, p)),
                   worst(defined:constraint_jacobian(q), compiled:constraint_jacobian(q)),
                   worst(defined:_hessian_vector(q, p), compiled:_hessian_vector(q, p)))
    end
    wb.expect_below(w, 1e-12, "random model " .. seed .. ": compiled = defined")
  end
end
