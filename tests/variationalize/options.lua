-- The options of variationalize.vi as a public contract: the bias rule
-- (alpha_plus - alpha_minus = 1, -1 <= alpha_minus <= 0 <= alpha_plus <= 1,
-- giving one end sets the other, anything else refused by wb.method with
-- the rule), layer_minus defaulting to the layer, the claimed order from
-- the layer's order and the bias, and clean refusals of what the method
-- cannot do.
local expect_error = wb.expect_error

-- defaults: the symmetric bias, RK4 at both ends
local vi = wb.method("vi")
wb.check(vi.options.alpha_minus == -0.5 and vi.options.alpha_plus == 0.5,
         "default bias (-1/2, 1/2)")
wb.check(vi.options.layer.name == "rk4" and vi.options.layer_minus.name == "rk4",
         "default layer rk4 at both ends")
wb.check(vi.order == 4 and vi.properties.symmetric, "default: order 4, symmetric")
wb.check(not vi.properties.symplectic,
         "the node map of (q, M v) is not claimed canonical (the junction map is; "
         .. "scripts/variationalize/structure.lua measures both)")
wb.check(vi.properties.position_constraint and vi.properties.velocity_constraint,
         "g and G M^-1 p exact at the nodes are claimed")
wb.check(not vi.properties.momentum_conserving,
         "p . xi(q) is not claimed conserved (the discrete momentum mu . xi(qbar) is)")

-- giving one end sets the other
local m = wb.method("vi", {alpha_minus = -0.3})
wb.expect_near(m.options.alpha_plus, 0.7, 1e-15, "alpha_minus = -0.3 sets alpha_plus = 0.7")
m = wb.method("vi", {alpha_plus = 1})
wb.check(m.options.alpha_minus == 0, "alpha_plus = 1 sets alpha_minus = 0")
m = wb.method("vi", {alpha_minus = -1})
wb.check(m.options.alpha_plus == 0, "alpha_minus = -1 sets alpha_plus = 0")
m = wb.method("vi", {alpha_minus = -0.3, alpha_plus = 0.7})
wb.expect_near(m.options.alpha_plus - m.options.alpha_minus, 1, 1e-15, "both, consistently")
expect_error(function() wb.method("vi", {alpha_minus = -0.3, alpha_plus = 0.5}) end,
             "alpha_plus - alpha_minus = 1", "an inconsistent pair is refused with the rule")
expect_error(function() wb.method("vi", {alpha_minus = 0.2}) end, "outside [-1, 0]",
             "alpha_minus > 0 is refused with its range")
expect_error(function() wb.method("vi", {alpha_plus = 1.5}) end, "outside [0, 1]",
             "alpha_plus > 1 is refused with its range")
-- m:with keeps what the original was given: a derived end follows, a given one stays
m = wb.method("vi", {alpha_minus = -0.3})
local m2 = m:with{alpha_minus = 0}
wb.check(m2.options.alpha_plus == 1, "with{alpha_minus = 0}: the derived alpha_plus follows")
expect_error(function() m:with{alpha_plus = 0.5} end, "alpha_plus - alpha_minus = 1",
             "with{alpha_plus} against a given alpha_minus is refused")
local m3 = vi:with{layer = "heun"}
wb.check(m3.options.layer_minus.name == "heun", "with{layer}: the default layer_minus follows")

-- the claimed order: r for an asymmetric bias, r rounded up to even for
-- the symmetric one with one layer
local claims = {
  {"euler", 0, 1}, {"euler", -0.3, 1}, {"euler", -0.5, 2},
  {"heun", 0, 2}, {"heun", -0.5, 2},
  {"kutta3", 0, 3}, {"kutta3", -0.3, 3}, {"kutta3", -0.5, 4},
  {"rk4", 0, 4}, {"rk4", -0.5, 4},
  {"gauss1", 0, 2}, {"gauss2", -0.3, 4}, {"radau_iia2", 0, 3}, {"radau_iia2", -0.5, 4},
}
for _, c in ipairs(claims) do
  local method = wb.method("vi", {layer = c[1], alpha_minus = c[2]})
  wb.check(method.order == c[3], string.format("%s, bias (%g, %g): order %d claimed", c[1],
           c[2], c[2] + 1, c[3]), "got " .. method.order)
  wb.check(method.properties.symmetric == (c[2] == -0.5),
           string.format("%s, alpha_minus %g: symmetric claimed iff the bias is", c[1], c[2]))
end
m = wb.method("vi", {layer = "rk4", layer_minus = "kutta3"})
wb.check(m.order == 3 and not m.properties.symmetric,
         "layer_minus of order 3: order 3, not symmetric (two different ends)")

-- refusals
expect_error(function() wb.method("vi", {layer = "lobatto_iiia_iiib2"}) end,
             "is a partitioned pair", "a partitioned pair as the layer is refused")
expect_error(function() wb.method("projected", {layer = "lobatto_iiia_iiib2"}) end,
             "is a partitioned pair", "projected: a partitioned pair is refused")
-- (the test plugin derivative_free_model has a configuration-dependent M;
-- the test's plugin path holds it)
if pcall(wb.model, "derivative_free_model") then
  for _, name in ipairs{"vi", "projected"} do
    expect_error(function()
      wb.integrate{model = wb.model("derivative_free_model"), method = name, h = 0.1, steps = 1}
    end, "needs a constant mass matrix", name .. ": a configuration-dependent mass is refused")
  end
else
  wb.check(false, "the test plugin derivative_free_model is on the plugin path")
end
local nh_ok = pcall(wb.model, "nh_particle")
if nh_ok then
  wb.check(not wb.method("vi"):applies_to(wb.model("nh_particle")),
           "velocity constraints are not handled")
end

-- a Newton failure is reported with its residual and leaves the run sound
local sp = wb.model("spherical_pendulum", {m = 1, l = 1, g = 1})
local bad = wb.integrate{model = sp, method = wb.method("vi", {max_iter = 1}), h = 0.25,
                         steps = 3, on_failure = "stop"}
wb.check(not bad.ok and bad.failure:find("max |residual|", 1, true) ~= nil,
         "one Newton iteration at h = 0.25 is not enough: the failure names the residual",
         tostring(bad.failure))
