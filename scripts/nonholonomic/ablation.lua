-- Seed 001, section 5.1 (an ablation the paper only argues): why the
-- constraint must be imposed on the momenta built with the IIIA
-- coefficients, and why the starting multiplier must be consistent.
--
-- Variants (nonholonomic.lobatto's option `constraint`), all with the
-- constraint force at every stage:
--   iiia    the method, eq. (14): Psi(Q^i, p^i) = 0, i = 2..s, with the IIIA
--           momenta p^i = p0 + h sum_j a_ij W^j, the multiplier carried;
--   iiib    Psi(Q^i, P^i) = 0 with the IIIB stage momenta (= Phi(Q^i, V^i)),
--           i = 1..s-1, and Psi(q1, p1) = 0 at the node (our reading of the
--           paper's "if we try to enforce a nonholonomic constraint using
--           these values");
--   direct  Phi(Q^i, V^i) = 0, i = 1..s-1, and no force at stage s: "a
--           direct discretization of the constraint manifold", which "would
--           not warrant that our integrator would preserve the continuous
--           constraint";
-- and the method with a wrong starting multiplier, nu0 = 0 instead of the
-- consistent 0.208 (nu_check = 0 lets it through), the digest's pitfall.
-- Model: nonholonomic_particle, q0 = (1, 0.5, 0), v0 = (0.3, 0.8, 0.15), T = 2;
--   reference RK4 (index-1 form) at h = 1e-4; h = 0.2 .. 0.025 (halving).
-- Figures (plots/nonholonomic/): ablation_order.png (error in q against h,
--   s = 3), ablation_constraint.png (|Phi| at the nodes over [0, 2], s = 3,
--   h = 0.05).
-- Claims checked (s = 3; the table gives s = 2, 3, 4):
--   * iiia: order 4 in q and p, the multiplier order 2, |Phi| at round-off;
--   * iiib: |Phi| kept at the nodes, but the order falls to s - 1 = 2;
--   * direct: the order falls (q: s - 1 = 2, p: 1) and |Phi| at the nodes is
--     O(h), above 1e-3;
--   * nu0 = 0: the order in q falls to 2 and the multiplier's error does not
--     decrease with h (it is never damped).
-- iiib and direct give the same positions: their stage equations are the
-- same, and the force one applies at the end of a step and the other not
-- acts along A(q_k+1)^T, where the next step's first multiplier (solved for
-- in both) absorbs it; they differ in the momenta and the multiplier.
-- Measured orders (q, p, nu) for s = 2, 3, 4:
--   iiia (2, 2, 2), (4, 4, 2), (6, 6, 4);  iiib (1, 1.3, -), (2, 2, 1), (3, 3, 1);
--   direct (1, 0.9, -), (2, 1.1, 1), (3, 1, 1), |Phi| 0.1, 0.034, 0.016;
--   nu0 = 0 (2, 2, 0), (2, 2, 0), (4, 4, 0).
--
--   workbench scripts/nonholonomic/ablation.lua [--quick]   (--quick: s = 3 only)
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "nh_common"

local model = wb.model("nonholonomic_particle")
local T = 2
local hs = {0.2, 0.1, 0.05, 0.025}
local ref = common.reference(model, T)
local variants = {
  {name = "iiia", label = "iiia (the method)", constraint = "iiia"},
  {name = "iiib", label = "iiib (IIIB momenta)", constraint = "iiib"},
  {name = "direct", label = "direct (Phi(Q, V))", constraint = "direct"},
  {name = "iiia, nu0 = 0", label = "iiia, nu0 = 0", constraint = "iiia", wrong_start = true},
}
local stages = wb.quick and {3} or {2, 3, 4}
local floor = 1e-12

local function study(v, s)
  local r = {q = {}, p = {}, nu = {}, phi = 0}
  local method = common.lobatto(s, {constraint = v.constraint, tol = 1e-13, step_tol = 1e-15, iteration = "newton",
                                    nu_check = v.wrong_start and 0 or 0.1})
  for i, h in ipairs(hs) do
    local run = common.final(model, method, h, T,
                             {every = 1, aux0 = v.wrong_start and {nu = {0}} or nil})
    r.q[i] = common.relative_error(run.q, ref.q)
    r.p[i] = common.relative_error(run.p, ref.p)
    r.nu[i] = common.relative_error(run.nu, ref.nu)
    r.phi = math.max(r.phi, run.sol:max("nonholonomic_constraint"))
  end
  r.q_order = wb.fit_order(hs, r.q, floor)
  r.p_order = wb.fit_order(hs, r.p, floor)
  r.nu_order = wb.fit_order(hs, r.nu, floor)
  return r
end

local rows, at3 = {}, {}
for _, v in ipairs(variants) do
  for _, s in ipairs(stages) do
    local r = study(v, s)
    if s == 3 then at3[v.label] = r end
    rows[#rows + 1] = {v.name, tostring(s), r.q_order, r.p_order, r.nu_order, r.q[#hs], r.phi}
  end
end
wb.printf("particle, T = 2: fitted orders over h = 0.2 .. 0.025\n")
wb.print_table({"variant", "s", "order q", "order p", "order nu", "err q h=0.025", "max|Phi|"},
               rows, "%-14.3g")

local method = at3["iiia (the method)"]
wb.expect_in(method.q_order, 3.7, 4.5, "iiia, s = 3: q of order 4")
wb.expect_in(method.p_order, 3.7, 4.5, "iiia, s = 3: p of order 4")
wb.expect_in(method.nu_order, 1.7, 2.4, "iiia, s = 3: the multiplier of order 2")
wb.expect_below(method.phi, 1e-14, "iiia: |Phi| at the nodes to round-off")
local iiib = at3["iiib (IIIB momenta)"]
wb.expect_below(iiib.phi, 1e-14, "iiib: |Phi| kept at the nodes (the node condition)")
wb.expect_in(iiib.q_order, 1.7, 2.4, "iiib, s = 3: the order falls to s - 1 = 2 (q)")
wb.expect_in(iiib.p_order, 1.7, 2.4, "iiib, s = 3: the order falls to s - 1 = 2 (p)")
local direct = at3["direct (Phi(Q, V))"]
wb.expect_in(direct.q_order, 1.7, 2.4, "direct, s = 3: the order in q falls to 2")
wb.expect_in(direct.p_order, 0.7, 1.4, "direct, s = 3: the order in p falls to 1")
wb.check(direct.phi > 1e-3, string.format("direct: the momenta leave the constraint (max |Phi| = "
                                          .. "%.3e at the nodes)", direct.phi))
local wrong = at3["iiia, nu0 = 0"]
wb.expect_in(wrong.q_order, 1.7, 2.4, "nu0 = 0, s = 3: q of order 2 instead of 4")
wb.expect_in(wrong.nu_order, -0.3, 0.3, "nu0 = 0: the multiplier's error is never damped (order 0)")

---------------------------------------------------------------------------
-- Figures
---------------------------------------------------------------------------
local series = {}
for i, v in ipairs(variants) do
  local r = at3[v.label]
  -- iiib dashed: its positions are direct's (see the header)
  series[#series + 1] = {x = hs, y = r.q, with = "linespoints",
                         style = common.style(i, true) .. (v.name == "iiib" and " dt 2" or ""),
                         title = string.format("%s: slope %.2f", v.label, r.q_order)}
end
wb.plot{file = "plots/nonholonomic/ablation_order.png", logscale = "xy", key = "bottom right",
        title = "section 5.1 ablation, particle, Lobatto-3: error in q at T = 2",
        xlabel = "h", ylabel = "relative error", series = series}
series = {}
for i, v in ipairs(variants) do
  local method_v = common.lobatto(3, {constraint = v.constraint, nu_check = v.wrong_start and 0 or 0.1})
  local sol = wb.integrate{model = model, method = method_v, h = 0.05, t_end = T,
                           aux0 = v.wrong_start and {nu = {0}} or nil}
  local phi = wb.map(sol:column("nonholonomic_constraint"), function(x) return math.max(x, 1e-17) end)
  series[#series + 1] = {x = sol.t, y = phi, title = v.label, style = common.style(i)}
end
wb.plot{file = "plots/nonholonomic/ablation_constraint.png", logscale = "y", key = "center right",
        title = "section 5.1 ablation, particle, Lobatto-3, h = 0.05: |Phi| at the nodes (floor 1e-17)",
        xlabel = "t", ylabel = "|Phi(q_n, v_n)|", series = series}
