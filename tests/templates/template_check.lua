-- template_check.lua -- the two template plugins, built out of tree, measured.
--
-- Run by run_templates.sh with the installed host:
--   workbench --plugin-path DIR --output-dir OUT template_check.lua [--quick]
-- DIR holds model_template.so and integrator_template.so.  Every check
-- prints one line; the host ends with "N passed, M failed" and exits
-- non-zero when M > 0 or when the script raises an error.

local quick = wb.quick

local EULER = "template_family.symplectic_euler"
local model = wb.model("template_model")
local euler = wb.method(EULER)
local rk4 = wb.method("classic.rk4")
local verlet = wb.method("classic.verlet")

-- max |energy error| over the first and over the last tenth of a run
local function energy_error_tenths(sol)
  return wb.tenths(sol:column("energy_error"))
end

local function order_study(spec)
  spec.t_end = spec.t_end or 1
  spec.h = spec.h or {0.1, 0.05, 0.025, 0.0125}
  spec.reference = spec.reference or {h = 0.0125 / 16, method = rk4}
  return wb.order(spec)
end

---------------------------------------------------------------------------
print("what the host read from the descriptors")
---------------------------------------------------------------------------
wb.check(euler.order == 1, "symplectic_euler: describe() reports order 1",
         "order " .. tostring(euler.order))
local props = euler.properties
wb.check(props.symplectic and props.explicit and not props.symmetric,
         "symplectic_euler: claims symplectic and explicit, not symmetric")
wb.check(euler.options.variant == "kick_drift", "symplectic_euler: default variant kick_drift",
         tostring(euler.options.variant))
wb.check(model.nq == 2 and model.nv == 2 and model.mass_constant,
         "template_model: nq = nv = 2, constant mass matrix")
local params = model.params
wb.expect_near(params.energy, 1 / 12, 1e-15, "template_model: default energy parameter 1/12")

local q0, p0 = model:initial()
wb.expect_near(model:energy(q0, p0), params.energy, 1e-15,
               "template_model: H(initial state) equals the energy parameter")
wb.expect_near(model:potential({0.3, -0.2}),
               0.5 * (0.09 + 0.04) + (0.09 * -0.2 + 0.008 / 3), 1e-15,
               "template_model: V(0.3, -0.2) by hand")
local g = model:gradient({0.3, -0.2})
wb.expect_near(g[1], 0.3 + 2 * 0.3 * -0.2, 1e-15, "template_model: dV/dx by hand")
wb.expect_near(g[2], -0.2 + (0.09 - 0.04), 1e-15, "template_model: dV/dy by hand")

---------------------------------------------------------------------------
print("convergence order of symplectic Euler against a fine RK4 reference")
---------------------------------------------------------------------------
for _, variant in ipairs{"kick_drift", "drift_kick"} do
  local r = order_study{model = model, method = euler:with{variant = variant}}
  wb.print_order(r, "  " .. variant .. " on template_model (Henon-Heiles), t_end = 1")
  wb.expect_near(r.order, 1, 0.1, variant .. ": fitted order in [0.9, 1.1]")
  wb.check(r.used == #r.h, variant .. ": every step size above the error floor",
           r.used .. " of " .. #r.h)
end

---------------------------------------------------------------------------
print("convergence to the exact solution of the uncoupled oscillator (lambda = 0)")
---------------------------------------------------------------------------
do
  local mass, wx, wy, t_end = 2.0, 1.3, 2.1, 1.0
  local linear = wb.model("template_model", {lambda = 0, mass = mass, omega_x = wx,
                                             omega_y = wy, energy = 0.7, angle = 1.0})
  local _, pl = linear:initial()
  -- from q(0) = 0: q_i = p_i(0) / (m w_i) sin(w_i t), p_i = p_i(0) cos(w_i t)
  local exact = {pl[1] / (mass * wx) * math.sin(wx * t_end),
                 pl[2] / (mass * wy) * math.sin(wy * t_end),
                 pl[1] * math.cos(wx * t_end), pl[2] * math.cos(wy * t_end)}
  local r = order_study{model = linear, method = euler, t_end = t_end, reference = exact}
  wb.print_order(r, "  kick_drift against the exact solution")
  wb.expect_near(r.order, 1, 0.1, "lambda = 0: fitted order against the exact solution")
  local rv = order_study{model = linear, method = verlet, t_end = t_end, reference = exact}
  wb.expect_near(rv.order, 2, 0.1, "lambda = 0: classic.verlet order 2 against the exact solution")
end

---------------------------------------------------------------------------
print("energy: bounded without drift over a long run")
---------------------------------------------------------------------------
local long_t = quick and 500 or 3000
for _, variant in ipairs{"kick_drift", "drift_kick"} do
  -- on_failure = "stop": a blow-up becomes a failed check below, not an error
  local sol = wb.integrate{model = model, method = euler:with{variant = variant}, h = 0.01,
                           t_end = long_t, on_failure = "stop"}
  local first, last = energy_error_tenths(sol)
  wb.printf("  %s, h = 0.01, t_end = %g: max |energy error| first tenth %.4e, last tenth %.4e\n",
            variant, long_t, first, last)
  wb.check(sol.ok, variant .. ": long run completed", sol.failure)
  wb.check(first > 0 and last <= 2 * first,
           variant .. ": energy error over the last tenth <= 2x the first tenth",
           string.format("%.4e <= 2 x %.4e", last, first))
  wb.expect_below(sol:max("energy_error"), 0.02, variant .. ": max relative energy error O(h)")
  wb.check(sol.stats.function_evals == sol.stats.steps,
           variant .. ": one force evaluation per step counted in stats",
           sol.stats.function_evals .. " evaluations, " .. sol.stats.steps .. " steps")
end

-- The same criterion must see the drift of a non-symplectic method.
do
  local sol = wb.integrate{model = model, method = rk4, h = 0.2, t_end = long_t}
  local first, last = energy_error_tenths(sol)
  wb.check(last > 2 * first, "control: the drift criterion detects classic.rk4's drift at h = 0.2",
           string.format("%.4e > 2 x %.4e", last, first))
end

---------------------------------------------------------------------------
print("carried unknown, error paths, momentum conservation")
---------------------------------------------------------------------------
do
  local sol = wb.integrate{model = model, method = euler, h = 0.01, t_end = 1}
  local _, p = sol:final()
  local v1 = sol:column("drift_v1")
  wb.expect_near(v1[#v1], p[1] / params.mass, 1e-15,
                 "kick_drift: aux drift_v1 of the last step = M^-1 p1")
  wb.check(v1[1] ~= v1[1], "aux drift_v is per interval: NaN in the initial row")
end

local ok, why = pcall(wb.model, "template_model", {energy = 0.2})
wb.check(not ok and tostring(why):find("escape energy") ~= nil,
         "template_model: create() refuses energy above the escape energy", tostring(why))
ok, why = pcall(wb.method, EULER, {variant = "sideways"})
wb.check(not ok and tostring(why):find("kick_drift|drift_kick", 1, true) ~= nil,
         "symplectic_euler: the host rejects an undeclared variant", tostring(why))
ok, why = pcall(wb.integrate, {model = wb.model("pendulum"), method = euler, h = 0.01, t_end = 1})
wb.check(not ok and tostring(why):find("does not handle") ~= nil,
         "symplectic_euler: refused for a constrained model (handles)", tostring(why))

do
  local kepler = wb.model("kepler")
  local sol = wb.integrate{model = kepler, method = euler, h = 1e-3, t_end = quick and 5 or 20}
  wb.expect_below(wb.drift(sol:column("L")), 1e-12,
                  "symplectic_euler on kepler: angular momentum conserved to round-off")
end

---------------------------------------------------------------------------
print("in-tree methods on the template model")
---------------------------------------------------------------------------
do
  local r = order_study{model = model, method = verlet}
  wb.expect_near(r.order, 2, 0.1, "classic.verlet on template_model: fitted order 2")
  local sol = wb.integrate{model = model, method = verlet, h = 0.01, t_end = long_t,
                           on_failure = "stop"}
  local first, last = energy_error_tenths(sol)
  wb.check(sol.ok and last <= 2 * first,
           "classic.verlet on template_model: energy error without drift",
           string.format("%.4e <= 2 x %.4e", last, first))
  wb.expect_below(sol:max("energy_error"), 1e-3,
                  "classic.verlet on template_model: max relative energy error O(h^2)")
  local r4 = order_study{model = model, method = rk4,
                         h = {0.2, 0.1, 0.05, 0.025}, reference = {h = 0.025 / 8}}
  wb.expect_near(r4.order, 4, 0.2, "classic.rk4 on template_model: fitted order 4")
end

---------------------------------------------------------------------------
print("a run continued from its carried unknowns (start with aux)")
---------------------------------------------------------------------------
do
  local whole = wb.integrate{model = model, method = euler, h = 0.01, steps = 200}
  local half = wb.integrate{model = model, method = euler, h = 0.01, steps = 100}
  local q, p, aux = half:final()
  local rest = wb.integrate{model = model, method = euler, h = 0.01, steps = 100,
                            t0 = half.t_final, q0 = q, p0 = p, aux0 = aux}
  local q1, p1, a1 = whole:final()
  local q2, p2, a2 = rest:final()
  wb.check(q1[1] == q2[1] and q1[2] == q2[2] and p1[1] == p2[1] and p1[2] == p2[2]
           and a1.drift_v[1] == a2.drift_v[1] and a1.drift_v[2] == a2.drift_v[2],
           "symplectic_euler: 100 + 100 steps from sol:final() = 200 steps, bit for bit")
end

---------------------------------------------------------------------------
print("the constrained template: RATTLE, SPARK and a GGL scheme on template_surface")
---------------------------------------------------------------------------
do
  local surface = wb.model("template_surface")
  wb.check(surface.n_constraints == 1 and surface.invariant_names[1] == "Lz",
           "template_surface: one constraint and the invariant Lz")
  for _, method in ipairs{wb.method("rattle"), wb.method("spark", {s = 2}), wb.method("vi_s")} do
    local sol = wb.integrate{model = surface, method = method, h = 0.01, t_end = quick and 2 or 10}
    wb.expect_below(sol:max("constraint"), 1e-11,
                    method.name .. " on template_surface: the constraint held")
    wb.expect_below(wb.drift(sol:column("Lz")), 1e-11,
                    method.name .. " on template_surface: Lz conserved")
  end
  local r = order_study{model = surface, method = wb.method("rattle"), quantity = "q",
                        reference = {h = 0.0125 / 16, method = wb.method("spark", {s = 3})}}
  wb.expect_near(r.order, 2, 0.1, "classic.rattle on template_surface: fitted order 2")
  -- its wb.holonomic_point/1 and that extension's project() give RATTLE
  -- bitwise the numbers of the separate calls
  local function final(options)
    local sol = wb.integrate{model = surface, h = 0.01, steps = 500, every = 2 ^ 53,
                             method = wb.method("rattle", options)}
    return wb.concat(sol:final())
  end
  local a, b = final{}, final{combined_evaluation = false}
  local c = final{model_projection = false}
  local same, same_point = true, true
  for i = 1, #a do
    same = same and a[i] == b[i]
    same_point = same_point and a[i] == c[i]
  end
  wb.check(same, "template_surface: RATTLE with the model's projection = with the separate calls")
  wb.check(same_point, "template_surface: ... = with the combined call alone")
end

---------------------------------------------------------------------------
print("the same model written in Lua, and compiled against the installed headers")
---------------------------------------------------------------------------
do
  local spec = {
    name = "lua_henon_heiles", nq = 2,
    params = {mass = 1, omega_x = 1, omega_y = 1, lambda = 1},
    mass = function(q, P) return P.mass end,
    potential = function(q, P)
      local x, y = q[1], q[2]
      return 0.5 * P.mass * (P.omega_x ^ 2 * x ^ 2 + P.omega_y ^ 2 * y ^ 2)
             + P.lambda * (x ^ 2 * y - y ^ 3 / 3)
    end,
  }
  local in_lua = wb.define_model(spec)
  spec.name = "compiled_henon_heiles"
  local compiled = wb.compile_model(spec)
  local q0, p0 = model:initial()
  for _, m in ipairs{in_lua, compiled} do
    wb.check(wb.check_model(m) == 0, m.name .. ": check-model passes")
    local a = wb.integrate{model = m, method = verlet, h = 0.01, steps = 200, q0 = q0, p0 = p0}
    local b = wb.integrate{model = model, method = verlet, h = 0.01, steps = 200}
    wb.expect_below(wb.norm(wb.sub(wb.concat(a:final()), wb.concat(b:final()))), 1e-13,
                    m.name .. ": Verlet gives template_model's numbers")
  end
end
