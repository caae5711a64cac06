-- The C that wb.compile_model writes grows like the model's own expression
-- graph, with no array on the stack that grows with the model (issue 25:
-- nq = 110 with a mass depending on q crashed on `double dM[N*N*N]` in
-- kinetic_gradient, and the source grew like nq^3).  A chain of pendulums
-- in angles: a full mass matrix of nq^2 entries, each depending on q, and
-- a constraint that is not quadratic (third_contract).
local function chain(name, n)
  return {
    name = name, nq = n, params = {g = 9.81},
    mass = function(q)
      local M = {}
      for i = 1, n do
        M[i] = {}
        for j = 1, n do M[i][j] = (n - math.max(i, j) + 1) * math.cos(q[i] - q[j]) end
      end
      return M
    end,
    potential = function(q, P)
      local V = 0
      for i = 1, n do V = V - (n - i + 1) * P.g * math.cos(q[i]) end
      return V
    end,
    constraints = function(q)
      local x = 0
      for i = 1, n do x = x + math.sin(q[i]) end
      return {x - 0.5}
    end,
    initial = function()
      local q, p = {}, {}
      for i = 1, n do q[i], p[i] = 0.5 / n, 0.1 * (-1) ^ i end
      return q, p
    end,
  }
end

local function source(name)
  local so = wb._compiled_models[name]
  local f = assert(io.open(so:gsub("%.so$", ".c"), "r"))
  local text = f:read("a")
  f:close()
  return text
end

do
  local n, name = 6, "size_chain"
  local m = wb.compile_model(chain(name, n))
  local text = source(name)
  -- every local array of the generated functions: none that grows with N
  local arrays = {}
  for line in text:gmatch("[^\n]+") do
    if line:match("^%s+double%s+[%w_]+%s*%[") and not line:match("^    double p%[N_PARAMS %+ 1%];") then
      arrays[#arrays + 1] = line
    end
  end
  wb.check(#arrays == 0, "no array on the stack in the C of a chain of " .. n,
           table.concat(arrays, " | "))
  -- the compiled chain runs as the defined one (kinetic gradient in reverse)
  local d = wb.define_model(chain(name .. "_def", n))
  local method = wb.method("classic.rk4")
  local a = wb.integrate{model = d, method = method, h = 0.01, steps = 5}
  local b = wb.integrate{model = m, method = method, h = 0.01, steps = 5}
  wb.expect_below(wb.norm(wb.sub(wb.concat(a:final()), wb.concat(b:final()))), 1e-12,
                  "the compiled chain of " .. n .. " runs as the defined one")
end

-- A mass depending on q on its diagonal: expressions growing like n, the
-- outputs (a Hessian, a mass matrix) like n^2; n^3 (dM written out) grew
-- 5 times from 8 to 16 coordinates
local function diagonal(name, n)
  return {name = name, nq = n,
          mass = function(q)
            local M = {}
            for i = 1, n do M[i] = 1 + q[i] ^ 2 end
            return M
          end,
          potential = function(q)
            local V = 0
            for i = 1, n do V = V + math.cos(q[i]) end
            return V
          end,
          initial = function()
            local q = {}
            for i = 1, n do q[i] = 0.1 * i end
            return q
          end}
end
local sizes = {}
for _, n in ipairs{8, 16} do
  wb.compile_model(diagonal("size_diagonal" .. n, n))
  sizes[n] = #source("size_diagonal" .. n)
end
wb.expect_below(sizes[16] / sizes[8], 4, "the C grows at most like the outputs (n^2), not n^3")
