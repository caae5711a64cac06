-- Models written in Lua (wb.define_model) and turned into C
-- (wb.compile_model): exact derivatives, every method that applies, the
-- same numbers as the C plugins, check-model passes, errors name the line.
local here = arg[0]:match("(.*/)") or "./"
local expect_error = wb.expect_error

-- wb.ad: derivatives against closed forms
do
  local x = {0.7, -1.3, 0.4}
  local f = function(v)
    return math.sin(v[1]) * math.exp(v[2]) + v[1] ^ 3 / v[3] + math.atan(v[2], v[3])
           + math.sqrt(1 + v[3] ^ 2) + math.log(2 + v[1]) * math.abs(v[2])
  end
  local fx, g, H = wb.ad.hessian(f, x)
  local a, b, c = x[1], x[2], x[3]
  local g_exact = {math.cos(a) * math.exp(b) + 3 * a ^ 2 / c - b / (2 + a),
                   math.sin(a) * math.exp(b) + c / (b ^ 2 + c ^ 2) - math.log(2 + a),
                   -a ^ 3 / c ^ 2 - b / (b ^ 2 + c ^ 2) + c / math.sqrt(1 + c ^ 2)}
  local H_exact = {
    {-math.sin(a) * math.exp(b) + 6 * a / c + b / (2 + a) ^ 2,
     math.cos(a) * math.exp(b) - 1 / (2 + a), -3 * a ^ 2 / c ^ 2},
    {0, math.sin(a) * math.exp(b) - 2 * b * c / (b ^ 2 + c ^ 2) ^ 2,
     (b ^ 2 - c ^ 2) / (b ^ 2 + c ^ 2) ^ 2},
    {0, 0, 2 * a ^ 3 / c ^ 3 + 2 * b * c / (b ^ 2 + c ^ 2) ^ 2 + (1 + c ^ 2) ^ -1.5}}
  local err = math.abs(fx - f(x))
  for i = 1, 3 do
    err = wb.max(err, math.abs(g[i] - g_exact[i]))
    for j = i, 3 do err = wb.max(err, math.abs(H[i][j] - H_exact[i][j]), math.abs(H[j][i] - H_exact[i][j])) end
  end
  wb.expect_below(err, 1e-13, "wb.ad: value, gradient and Hessian of a transcendental function exact")
  local deg = wb.ad.degree(function(v) return {v[1] * v[2] - 3, v[1] ^ 3, math.sin(v[1]), 2 / v[2]} end, x)
  wb.check(deg[1] == 2 and deg[2] == 3 and deg[3] == math.huge and deg[4] == math.huge,
           "wb.ad.degree: polynomial degrees (2, 3, not, not)")
  wb.check(math.abs(-3) == 3 and math.type(math.abs(-3)) == "integer" and math.floor(2.5) == 2
           and math.max(1, 5, 3) == 5 and math.type(math.max(1, 5)) == "integer",
           "math.* behave as before on numbers (integers stay integers)")
end

-- the models of models.lua, defined in Lua
dofile(here .. "models.lua")
for _, name in ipairs{"lua_spherical", "lua_bead", "lua_double_pendulum"} do
  wb.check(wb.check_model(wb.model(name)) == 0, "check-model passes on the Lua model " .. name)
end
local sph = wb.model("lua_spherical")
wb.check(sph.n_constraints == 1 and sph.mass_constant and sph.invariant_names[1] == "Lz",
         "the Lua model's shape: one constraint, constant mass, invariant Lz")
wb.check(wb.model("lua_bead", {a = 0.25}).params.a == 0.25, "parameters by name as for C models")
wb.check(not wb.model("lua_double_pendulum").mass_constant, "a mass depending on q is found so")

-- every method that applies gives the C plugin's numbers, with the same
-- Newton iterations
local c_model = wb.model("spherical_pendulum")
local applied = 0
for _, name in ipairs(wb.list_methods()) do
  local method = wb.method(name)
  if method:applies_to(sph) then
    local a = wb.integrate{model = sph, method = method, h = 0.01, steps = 50, every = 50}
    local b = wb.integrate{model = c_model, method = method, h = 0.01, steps = 50, every = 50}
    local qa, pa = a:final()
    local qb, pb = b:final()
    local diff = wb.norm(wb.sub(wb.concat(qa, pa), wb.concat(qb, pb)))
    wb.check(diff <= 1e-13 and a.stats.newton_iterations == b.stats.newton_iterations,
             name .. " on the Lua spherical pendulum = on the C plugin",
             string.format("difference %.2e, Newton %d vs %d", diff,
                           a.stats.newton_iterations, b.stats.newton_iterations))
    applied = applied + 1
  end
end
wb.check(applied >= 8, "the Lua model is integrated by every method that applies",
         applied .. " methods")

-- implicit methods converge on a non-quadratic constraint and a
-- configuration-dependent mass
do
  local bead = wb.model("lua_bead")
  local sol = wb.integrate{model = bead, method = wb.method("spark", {s = 3}), h = 0.01,
                           t_end = 1}
  wb.expect_below(sol:max("constraint"), 1e-12, "SPARK on the bead: constraint held")
  local dp = wb.model("lua_double_pendulum")
  local r = wb.order{model = dp, method = wb.method("rk", {tableau = wb.tableau.gauss(2)}),
                     t_end = 0.5, h = {0.05, 0.025, 0.0125}, reference = {h = 0.001}}
  wb.expect_near(r.order, 4, 0.15, "Gauss 2 is fourth order on the Lua double pendulum")
end

-- errors point at the script's line
expect_error(function() wb.define_model{name = "lua_bad", nq = 1} end,
             "define_model.lua:", "a definition error names the script's line")
expect_error(function() wb.define_model{name = "lua_bad", nq = 1, potentil = 1} end,
             "unknown field 'potentil'", "an unknown field is named")
expect_error(function() wb.define_model{name = "spherical_pendulum", nq = 1,
                                        potential = function(q) return q[1] end} end,
             "a model named 'spherical_pendulum' already exists", "a taken name is refused")
expect_error(function() wb.define_model{name = "lua_bad", nq = 2,
                                        potential = function(q) return q[3] * 2 end} end,
             "define_model.lua:", "an error inside a model function names its line")
do
  local calls = 0
  local m = wb.define_model{name = "lua_late_error", nq = 1,
                            potential = function(q)
                              calls = calls + 1
                              if calls > 30 then error("broken on purpose") end
                              return q[1] ^ 2 / 2
                            end,
                            initial = function() return {1}, {0} end}
  expect_error(function() wb.integrate{model = m, method = "verlet", h = 0.1, t_end = 10} end,
               "broken on purpose", "an error raised during a run reaches the script")
  local sol = wb.integrate{model = m, method = "verlet", h = 0.1, t_end = 10, on_failure = "stop"}
  wb.check(not sol.ok and sol.failure:find("broken on purpose", 1, true) ~= nil,
           "on_failure = 'stop' keeps the model's message", sol.failure)
  expect_error(function() m:potential({1}) end, "broken on purpose",
               "an error in m:potential(q) is raised there")
end

-- wb.compile_model: the same models in C
arg = {"compiled"}
dofile(here .. "models.lua")
for _, name in ipairs{"lua_spherical_c", "lua_bead_c", "lua_double_pendulum_c"} do
  wb.check(wb.check_model(wb.model(name)) == 0, "check-model passes on the compiled " .. name)
end
for _, name in ipairs{"spherical", "bead", "double_pendulum"} do
  local method = name == "double_pendulum" and wb.method("rk", {tableau = wb.tableau.gauss(2)})
                 or wb.method("rattle")
  local a = wb.integrate{model = wb.model("lua_" .. name), method = method, h = 0.01, steps = 100}
  local b = wb.integrate{model = wb.model("lua_" .. name .. "_c"), method = method, h = 0.01,
                         steps = 100}
  local diff = wb.norm(wb.sub(wb.concat(a:final()), wb.concat(b:final())))
  wb.expect_below(diff, 1e-12, "compiled " .. name .. " = the Lua model")
end
expect_error(function()
  wb.compile_model{name = "lua_branchy", nq = 1,
                   potential = function(q) if q[1] > 0 then return q[1] end return -q[1] end}
end, "compares values", "compile_model refuses a branch on a value, with the reason")
