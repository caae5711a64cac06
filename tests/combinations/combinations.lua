-- Every combination of extensions the seeds use, through the Lua API:
-- the supported models integrate with every installed method that applies
-- (no crash, finite states, constraints where the method keeps them), the
-- host's consistent multipliers have their closed-form values, and the
-- refused combinations raise errors naming what is missing.

local supported = {"nh_particle", "nh_both", "rotor_free", "rotor_driven", "disc_se2"}
local refused = {
  rotor_vector_nh = "gives its velocity constraints by wb.lie_nonholonomic/1",
  rotor_mechanical = "cannot use wb.mechanical/1",
  rotor_holonomic = "holonomic constraints on a Lie-group model are not supported",
  rotor_no_dynamics = "needs wb.lie_hamiltonian/1 or wb.lie_lagrangian/1",
  lie_without_group = "need wb.lie_group/1",
  holonomic_no_mechanical = "holonomic constraints need the wb.mechanical/1 extension too",
  nonholonomic_no_mechanical = "nonholonomic constraints Phi(q, v) need wb.mechanical/1",
}

for name, why in pairs(refused) do
  local ok, err = pcall(wb.model, name)
  wb.check(not ok and tostring(err):find(why, 1, true) ~= nil,
           name .. " refused: " .. tostring(err))
end

-- 1. Every applicable method integrates every supported model.
local methods = wb.list_methods()
for _, name in ipairs(supported) do
  local m = wb.model(name)
  local used = 0
  for _, method_name in ipairs(methods) do
    local method = wb.method(method_name)
    if method:applies_to(m) then
      used = used + 1
      local sol = wb.integrate{model = m, method = method, h = 0.01, steps = 200}
      local q, p = sol:final()
      local finite = true
      for _, x in ipairs(q) do finite = finite and x == x and math.abs(x) < math.huge end
      for _, x in ipairs(p) do finite = finite and x == x and math.abs(x) < math.huge end
      wb.check(finite, string.format("%s on %s: 200 steps, finite final state", method_name, name))
    end
  end
  wb.check(used > 0, name .. ": at least one installed method applies (" .. used .. ")")
end

-- 2. The consistent multipliers, against their closed forms.
do
  local m = wb.model("nh_particle")
  local q, p = m:initial()
  local nu = m:nonholonomic_multiplier(q, p)[1]
  -- -(vx vy - x y) / (1 + y^2): the host's sign is minus the paper's
  local exact = -(p[1] * p[2] - q[1] * q[2]) / (1 + q[2] ^ 2)
  wb.expect_near(nu, exact, 1e-14, "nh_particle: nu = -(vx vy - x y)/(1 + y^2) = 0.208")
  wb.expect_near(exact, 0.208, 1e-15, "nh_particle: the digest's lambda0 = -0.208, our sign")
end
do
  local m = wb.model("rotor_driven")
  local q, p = m:initial()
  local nu = m:nonholonomic_multiplier(q, p)[1]
  -- the torque that cancels gravity: f2 = -k sin(theta), k = 3, theta = 0.3
  wb.expect_near(nu, -3 * math.sin(0.3), 1e-11, "rotor_driven: nu = -k sin(theta)")
end

-- 3. The index-1 baselines: rk4 keeps Phi to O(h^4) drift, rkmk4 keeps the
-- group and, on the driven rotor, the speed.
do
  local m = wb.model("nh_particle")
  local sol = wb.integrate{model = m, method = "rk4", h = 0.01, steps = 1000}
  wb.expect_below(sol:max("nonholonomic_constraint"), 1e-8,
                  "nh_particle, rk4: |Phi| stays small (index-1, no projection)")
  wb.expect_below(sol:max("Ey") - sol:column("Ey")[1], 1e-8, "nh_particle, rk4: E_y kept")
  local both = wb.integrate{model = wb.model("nh_both"), method = "rk4", h = 0.01, steps = 1000}
  wb.expect_below(both:max("constraint"), 1e-7, "nh_both, rk4: |g| stays small")
  wb.expect_below(both:max("nonholonomic_constraint"), 1e-7, "nh_both, rk4: |Phi| stays small")
end
do
  local m = wb.model("rotor_driven")
  local sol = wb.integrate{model = m, method = "rkmk4", h = 0.01, steps = 1000}
  wb.expect_below(sol:max("group_residual"), 1e-13, "rotor_driven, rkmk4: on the group to round-off (1000 steps)")
  wb.expect_below(sol:max("nonholonomic_constraint"), 1e-12, "rotor_driven, rkmk4: xi = omega")
  local q = sol:final()
  -- theta(t) = 0.3 + omega t exactly: t = 10, omega = 1.5
  local theta = math.atan(q[3], q[1])
  local exact = (0.3 + 15) % (2 * math.pi)
  if exact > math.pi then exact = exact - 2 * math.pi end
  wb.expect_near(theta, exact, 1e-12, "rotor_driven, rkmk4: theta = theta0 + omega t")
  local free = wb.integrate{model = wb.model("rotor_free"), method = "rkmk4", h = 0.01,
                            steps = 1000}
  wb.expect_below(free:max("energy_error"), 1e-8, "rotor_free, rkmk4: energy to O(h^4)")
end

-- 4. Columns follow the model: a group model has group_residual, never the
-- vector-space ones; phi columns come from the state's velocity.
do
  local sol = wb.integrate{model = wb.model("rotor_driven"), method = "rkmk4", h = 0.1, steps = 3}
  local cols = table.concat(sol.columns, " ")
  wb.check(cols:find("group_residual", 1, true) and cols:find("phi1", 1, true)
           and not cols:find("hidden_constraint", 1, true), "rotor_driven columns: " .. cols)
  wb.expect_below(math.abs(sol:column("phi1")[4]), 1e-12, "phi1 of the driven rotor")
end

-- 5. m:project lands on every constraint, vector space and group.
do
  local m = wb.model("nh_both")
  local q, p = m:project({0.7, 0.5, 0.1, 0.6}, {0.4, 0.7, 0.3, -0.2})
  wb.expect_below(math.abs(m:constraints(q)[1]), 1e-14, "nh_both: project -> g = 0")
  wb.expect_below(math.abs(m:hidden_constraints(q, p)[1]), 1e-14, "nh_both: project -> G v = 0")
  wb.expect_below(math.abs(m:nonholonomic_constraints(q, m:velocity(q, p))[1]), 1e-14,
                  "nh_both: project -> Phi = 0")
  local r = wb.model("rotor_driven")
  local g = r:exp({0.4})
  local g1, mu = r:project(g, {1.0})
  wb.expect_near(mu[1], 2 * 1.5, 1e-14, "rotor_driven: project -> mu = I omega")
  wb.check(g1[1] == g[1] and g1[3] == g[3], "rotor_driven: project keeps the group element")
end

-- 6. A Lagrangian group model with a velocity constraint and no
-- derivatives (everything from the host): rkmk4 keeps no slip, the
-- disc's spin w and its energy to O(h^4).
do
  local m = wb.model("disc_se2")
  local sol = wb.integrate{model = m, method = "rkmk4", h = 0.01, steps = 1000}
  wb.expect_below(sol:max("nonholonomic_constraint"), 1e-8,
                  "disc_se2, rkmk4: no slip kept to O(h^4) drift (index-1, no projection)")
  local w = sol:column("w")
  wb.expect_below(math.abs(w[#w] - w[1]), 1e-9, "disc_se2, rkmk4: spin w conserved")
  wb.expect_below(sol:max("energy_error"), 1e-8, "disc_se2, rkmk4: energy to O(h^4)")
  local q, p = m:initial()
  local xi = m:velocity(q, p)
  wb.expect_near(xi[1], 1.0, 1e-14, "disc_se2: the host's inverse Legendre gives w = 1")
end

-- 7. The group functions from Lua.
do
  local r = wb.model("rotor_free")
  local a, b = r:exp({0.4}), r:exp({-1.1})
  wb.expect_near(r:log(r:compose(a, b))[1], -0.7, 1e-15, "SO(2): log(exp(a) exp(b)) = a + b")
  wb.expect_near(r:log(r:inverse(a))[1], -0.4, 1e-15, "SO(2): inverse")
  wb.expect_below(r:group_residual(a), 1e-15, "SO(2): exp lands on the group")
  wb.check(r.lie_group and not wb.model("nh_particle").lie_group, "m.lie_group")
end
