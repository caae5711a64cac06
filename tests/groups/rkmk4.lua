-- classic.rkmk4 on a body on every group and on the free rigid body:
-- fitted order 4 (reference: the same method at h/16), on the group to
-- round-off, and the free rigid body's spatial momentum conserved (rkmk4
-- conserves linear invariants: mu' = 0 stage by stage).
local models = {"body_so3", "body_se2", "body_se3", "body_r3", "body_product", "body_mixed",
                "body_opposite", "free_rigid_body"}
local method = wb.method("rkmk4")
for _, name in ipairs(models) do
  local m = wb.model(name)
  local r = wb.order{model = m, method = method, t_end = 1, h = {0.1, 0.05, 0.025, 0.0125},
                     reference = {h = 0.0125 / 16}}
  wb.print_order(r, name)
  wb.expect_near(r.order, 4, 0.15, name .. ": rkmk4 fitted order 4")
  local sol = wb.integrate{model = m, method = method, h = 0.01, steps = 2000}
  wb.expect_below(sol:max("group_residual"), 1e-13, name .. ": on the group after 2000 steps")
end
local sol = wb.integrate{model = wb.model("free_rigid_body"), method = method, h = 0.01,
                         steps = 2000}
for _, c in ipairs{"Lx", "Ly", "Lz"} do
  local x = sol:column(c)
  wb.expect_below(math.abs(x[#x] - x[1]), 1e-14,
                  "free_rigid_body: spatial momentum " .. c .. " conserved by rkmk4")
end
wb.expect_below(sol:max("energy_error"), 1e-6, "free_rigid_body: energy error O(h^4)")
