-- Models written in Lua, for `workbench check-model models.lua` and
-- define_model.lua: a constrained one with a momentum map (the spherical
-- pendulum of models/spherical_pendulum.c), a constraint that is not
-- quadratic with a transcendental potential and a non-diagonal mass, and
-- a configuration-dependent mass (the double pendulum in angles).
local define = wb.define_model
if arg and arg[1] == "compiled" then define = wb.compile_model end
local suffix = arg and arg[1] == "compiled" and "_c" or ""

define{
  name = "lua_spherical" .. suffix, nq = 3, doc = "spherical pendulum, Lz",
  params = {m = {1, min = 1e-12}, l = {1, min = 1e-12}, g = {9.81, min = 0}},
  mass = function(q, P) return P.m end,
  potential = function(q, P) return P.m * P.g * q[3] end,
  constraints = function(q, P) return {0.5 * ((q[1]^2 + q[2]^2 + q[3]^2) / P.l^2 - 1)} end,
  invariants = {Lz = function(q, p) return q[1] * p[2] - q[2] * p[1] end},
  initial = function(P) return {P.l, 0, 0}, {0, P.m, 0} end,
}

define{
  name = "lua_bead" .. suffix, nq = 2, doc = "a bead on y = a sin x + x^3/3",
  params = {a = 0.5},
  mass = {{2, 0.5}, {0.5, 1}},
  potential = function(q) return math.exp(-q[1]) * math.sin(q[2]) + math.sqrt(1 + q[1]^2)
                                 + math.atan(q[2], 2 + q[1]) end,
  constraints = function(q, P) return q[2] - P.a * math.sin(q[1]) - q[1]^3 / 3 end,
  initial = function(P) return {0.3, P.a * math.sin(0.3) + 0.009}, {0, 0} end,
}

define{
  name = "lua_double_pendulum" .. suffix, nq = 2, doc = "double pendulum in angles",
  params = {m1 = 1, m2 = 1, l1 = 1, l2 = 1, g = 9.81},
  mass = function(q, P)
    local c = math.cos(q[1] - q[2])
    local m12 = P.m2 * P.l1 * P.l2 * c
    return {{(P.m1 + P.m2) * P.l1^2, m12}, {m12, P.m2 * P.l2^2}}
  end,
  potential = function(q, P)
    return -(P.m1 + P.m2) * P.g * P.l1 * math.cos(q[1]) - P.m2 * P.g * P.l2 * math.cos(q[2])
  end,
  initial = function() return {1.0, 0.5}, {0, 0} end,
}
