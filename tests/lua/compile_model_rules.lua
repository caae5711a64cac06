-- The derivative rules of wb.compile_model are exact at every point where
-- wb.define_model's are (issue 25): x ^ P.k at x = 0 (0 * inf = NaN
-- before), abs at -0, the same rules in reverse (the kinetic gradient) and
-- past a max whose other branch is NaN.
local function rules(name)
  return {
    name = name, nq = 6, params = {k = 3, h = 1.5},
    -- one rule per coordinate
    potential = function(q, P)
      return q[1] ^ P.k + (q[2] ^ 2) ^ P.h + math.abs(-q[3]) + q[4] ^ 3
             + math.atan(q[5], q[6]) + (1 + q[6] ^ 2) ^ P.h
    end,
    mass = function(q, P) return {1 + q[1] ^ P.k + math.max(q[2], q[3] ^ 1.5) ^ 2, 2, 3, 1, 1, 1} end,
    initial = function() return {0, 0, 0, 0, 1, 0}, {1, 0, 0, 0, 0, 0} end,
  }
end
local defined = wb.define_model(rules("rules_def"))
local compiled = wb.compile_model(rules("rules_c"))

-- the largest relative difference where the defined model has a number
-- (forward AD has 0 * inf where an inner derivative vanishes under an
-- infinite outer one, e.g. the Hessian of (q2^2)^1.5 at q2 = 0: no claim)
local function worst(defined_values, compiled_values)
  local w = 0
  for i = 1, #defined_values do
    local x, y = defined_values[i], compiled_values[i]
    if type(x) == "table" then
      w = math.max(w, worst(x, y))
    elseif x == x and math.abs(x) ~= math.huge and x ~= y then
      local d = math.abs(x - y) / (1 + math.abs(x))
      w = math.max(w, d == d and d or math.huge)
    end
  end
  return w
end

local points = {{0, 0, 0, 0, 1, 0}, {2, -0.5, -0.0, 0, 1, 0.5}, {0.5, 0, 0, -1, 0, 1},
                {-2, 1, 1, 1, 1, 1}}
local p = {0.3, -0.7, 0.2, 1, 0.5, -1}
for _, k in ipairs{0, 1, 2, 3, 2.5} do
  local d, c = wb.model("rules_def", {k = k}), wb.model("rules_c", {k = k})
  for j, q in ipairs(points) do
    local where = string.format("k = %g, point %d", k, j)
    wb.expect_below(worst(d:gradient(q), c:gradient(q)), 1e-15, "gradient compiled = defined, " .. where)
    wb.expect_below(worst(d:hessian(q), c:hessian(q)), 1e-15, "Hessian compiled = defined, " .. where)
    if q[1] >= 0 then -- (a positive mass)
      wb.expect_below(worst(d:_kinetic_gradient(q, p), c:_kinetic_gradient(q, p)), 1e-15,
                      "kinetic gradient compiled = defined, " .. where)
    end
  end
end

-- exact values at 0: d/dx x^k and d2/dx2 x^k for k = 0, 1, 2, 3
for k, expected in pairs{[0] = {0, 0}, [1] = {1, 0}, [2] = {0, 2}, [3] = {0, 0}} do
  local c = wb.model("rules_c", {k = k})
  local q = {0, 1, 1, 1, 1, 1}
  wb.check(c:gradient(q)[1] == expected[1] and c:hessian(q)[1][1] == expected[2],
           string.format("x^k at 0, k = %d: derivatives %g, %g", k, expected[1], expected[2]),
           string.format("%g, %g", c:gradient(q)[1], c:hessian(q)[1][1]))
end

-- the run the report had fail at its first step, and check-model
do
  local function pow_run(name)
    return {name = name, nq = 1, params = {k = 3}, potential = function(q, P) return q[1] ^ P.k end,
            initial = function() return {0}, {1} end}
  end
  local defined, compiled = wb.define_model(pow_run("pow_run_def")), wb.compile_model(pow_run("pow_run"))
  local a = wb.integrate{model = defined, method = "verlet", h = 0.01, steps = 20}
  local b = wb.integrate{model = compiled, method = "verlet", h = 0.01, steps = 20}
  local qa, pa = a:final()
  local qb, pb = b:final()
  wb.check(b.ok, "verlet runs from x = 0 on the compiled x^P.k", b.failure)
  wb.expect_below(worst(wb.concat(qa, pa), wb.concat(qb, pb)), 1e-14, "and ends where the defined model does")
  wb.check(wb.check_model(compiled) == 0, "check-model passes on the compiled model at x = 0")
end
