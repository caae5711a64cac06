-- The liegroup family (plugins/liegroup): what each method claims, against
-- runs.  Needs the test model kepler_group (Kepler on the abelian group
-- R^2) on the plugin path.
--   1. On an abelian group every variational method is the symplectic
--      partitioned Runge-Kutta method (a, ahat) it reduces to: Gauss for a
--      Gauss tableau (rk on kepler), prk with ahat for Kutta's.
--   2. VCG with the triple jump (Yoshida 6) tableau equals three (seven)
--      midpoint VCG steps; the midpoint VRKMK, VCG and eq. 12 are one map;
--      eq. 12 (cmo) is VRKMK with r = 0.
--   3. Newton and simplified Newton land where the fixed point does.
--   4. Claimed orders and properties (describe), symmetry, momentum maps,
--      the group, and the errors a user meets.

local function max_diff(a, b)
  local d = 0
  for i = 1, #a do d = wb.max(d, math.abs(a[i] - b[i])) end
  return d
end

local function final_state(model, method, h, steps, q0, p0)
  local sol = wb.integrate{model = model, method = method, h = h, steps = steps, q0 = q0, p0 = p0}
  local q, p = sol:final()
  return q, p, sol
end

local function state_diff(q1, p1, q2, p2) return wb.max(max_diff(q1, q2), max_diff(p1, p2)) end

-- 1. the abelian reduction ---------------------------------------------------
local flat, kepler = wb.model("kepler_group"), wb.model("kepler")
local h, n = 0.1, 20
for s = 1, 3 do
  local gauss = wb.tableau.gauss(s)
  local qr, pr = final_state(kepler, wb.method("rk", {tableau = gauss, iteration = "fixed_point",
                                                     compensated = false}), h, n)
  for _, spec in ipairs{{"vrkmk", {tableau = gauss}}, {"vcg", {tableau = gauss}},
                        {"cmo", {tableau = gauss}}, {"vrkmk", {tableau = gauss, iteration = "newton"}}} do
    local q, p = final_state(flat, wb.method(spec[1], spec[2]), h, n)
    wb.expect_below(state_diff(q, p, qr, pr), 1e-13,
                    string.format("R^2: %s (%s) with Gauss s = %d is Gauss (rk), %d steps",
                                  spec[1], spec[2].iteration or "fixed point", s, n))
  end
end
do -- a tableau with ahat != a: the pair (a, b; ahat, b) as prk
  local k3 = wb.tableau.named("kutta3")
  local ahat = {}
  for i = 1, 3 do
    ahat[i] = {}
    for j = 1, 3 do ahat[i][j] = k3.b[j] - k3.b[j] * k3.a[j][i] / k3.b[i] end
  end
  local pair = wb.tableau{a = k3.a, b = k3.b, a2 = ahat, b2 = k3.b, name = "kutta3_conjugate"}
  local qr, pr = final_state(kepler, wb.method("prk", {tableau = pair, iteration = "fixed_point",
                                                      compensated = false}), h, n)
  for _, name in ipairs{"vrkmk", "vcg"} do
    local q, p = final_state(flat, wb.method(name, {tableau = k3}), h, n)
    wb.expect_below(state_diff(q, p, qr, pr), 1e-13,
                    name .. " with Kutta's tableau on R^2 is the prk pair (a, ahat)")
  end
  wb.check(wb.method("vrkmk", {tableau = k3}).order == 3 and pair:order() == 3,
           "Kutta3: the conjugate pair has order 3, vrkmk claims 3")
end

do -- Ralston's third-order tableau: its conjugate pair is of order 2 only
  local ralston = wb.tableau{a = {{0, 0, 0}, {0.5, 0, 0}, {0, 0.75, 0}}, b = {2 / 9, 1 / 3, 4 / 9},
                             name = "ralston3"}
  local method = wb.method("vrkmk", {tableau = ralston})
  local r = wb.order{model = flat, method = method, t_end = 1, h = {0.02, 0.01, 0.005},
                     reference = {h = 0.001, method = wb.method("vrkmk", {tableau = "gauss3"})}}
  wb.check(ralston:order() == 3 and method.order == 2,
           "Ralston 3: a tableau of order 3 whose pair (a, ahat) has order 2; vrkmk claims 2")
  wb.expect_near(r.order, 2, 0.1, "Ralston 3: vrkmk's fitted order on R^2 is 2")
end

-- 2. compositions and one map in three forms ----------------------------------
local dipole = wb.model("dipole")
local q0, p0 = dipole:initial()
for _, sign in ipairs{-1, 1} do
  local m = wb.model("dipole", {gravity_sign = sign})
  wb.expect_near(m:energy(m:initial()), -0.04623925371591653, 1e-17,
                 string.format("dipole: H(0) at the paper's data, gravity sign %d", sign))
end
do
  local xi = dipole:vector_field(q0, p0)
  wb.expect_below(wb.norm(wb.sub(xi, {0, 1, 0}), "inf"), 1e-15, "dipole: xi(0) = e2, as the paper chose mu(0)")
end
local mid = wb.tableau.gauss(1)
local function yoshida6()
  local g = {0.78451361047755726381949763, 0.23557321335935813368479318,
             -1.17767998417887100694641568}
  local g4 = 1 - 2 * (g[1] + g[2] + g[3])
  return wb.tableau.compose(mid, {g[1], g[2], g[3], g4, g[3], g[2], g[1]}, "yoshida6"),
         {g[1], g[2], g[3], g4, g[3], g[2], g[1]}
end
local tj = wb.tableau.triple_jump(mid)
local g1 = 1 / (2 - 2 ^ (1 / 3))
local y6, y6_weights = yoshida6()
for _, case in ipairs{{"triple jump", tj, {g1, 1 - 2 * g1, g1}}, {"Yoshida 6", y6, y6_weights}} do
  local hh = 0.05
  local q1, p1 = final_state(dipole, wb.method("vcg", {tableau = case[2]}), hh, 1, q0, p0)
  local q, p = q0, p0
  local midpoint = wb.method("vcg", {tableau = mid})
  for _, gamma in ipairs(case[3]) do q, p = final_state(dipole, midpoint, gamma * hh, 1, q, p) end
  wb.expect_below(state_diff(q1, p1, q, p), 1e-15,
                  string.format("VCG %s: one step = %d midpoint steps", case[1], #case[3]))
end
do
  local qa, pa = final_state(dipole, wb.method("vrkmk", {tableau = mid, cutoff = 0}), 0.01, 50)
  local qb, pb = final_state(dipole, wb.method("vcg", {tableau = mid}), 0.01, 50)
  local qc, pc = final_state(dipole, wb.method("cmo", {tableau = mid}), 0.01, 50)
  wb.expect_below(state_diff(qa, pa, qb, pb), 1e-14, "midpoint: VRKMK (r = 0) = VCG, 50 steps")
  wb.expect_below(state_diff(qa, pa, qc, pc), 1e-14, "midpoint: VRKMK (r = 0) = eq. 12, 50 steps")
  for _, name in ipairs{"gauss2", "kutta3"} do
    local qv, pv = final_state(dipole, wb.method("vrkmk", {tableau = name, cutoff = 0}), 0.01, 50)
    local qe, pe = final_state(dipole, wb.method("cmo", {tableau = name}), 0.01, 50)
    wb.expect_below(state_diff(qv, pv, qe, pe), 1e-14,
                    "eq. 12 = VRKMK with r = 0 (" .. name .. "), 50 steps")
  end
end

-- 3. Newton lands where the fixed point does -------------------------------
for _, name in ipairs{"vrkmk", "vcg", "cmo", "rkmk"} do
  local tab = name == "vcg" and tj or wb.tableau.gauss(3)
  local qf, pf, sf = final_state(dipole, wb.method(name, {tableau = tab}), 0.02, 25)
  for _, it in ipairs{"newton", "simplified"} do
    local qn, pn, sn = final_state(dipole, wb.method(name, {tableau = tab, iteration = it}), 0.02, 25)
    wb.expect_below(state_diff(qf, pf, qn, pn), 1e-14,
                    string.format("%s: %s = fixed point, 25 steps (%.1f against %.1f iterations "
                                  .. "per step)", name, it, sn.stats.newton_iterations / 25,
                                  sf.stats.newton_iterations / 25))
    wb.check(sn.stats.jacobian_evals >= (it == "newton" and 25 or 25) and
             sf.stats.jacobian_evals == 0, name .. ": " .. it .. " counts its Jacobians")
  end
end

-- 4. claims ------------------------------------------------------------------
local claims = {
  {"vrkmk", {tableau = "implicit_midpoint"}, 2}, {"vrkmk", {tableau = "kutta3"}, 3},
  {"vrkmk", {tableau = "gauss2"}, 4}, {"vrkmk", {tableau = "gauss3"}, 6},
  {"vrkmk", {tableau = "gauss3", cutoff = 0}, 2}, {"vrkmk", {tableau = "gauss3", cutoff = 1}, 3},
  {"vrkmk", {tableau = "gauss3", cutoff = 2}, 5}, {"vrkmk", {tableau = "gauss3", cutoff = 3}, 5},
  {"vrkmk", {tableau = "gauss3", cutoff = 4}, 6}, {"vrkmk", {tableau = "gauss4"}, 8},
  {"vrkmk", {tableau = "kutta3", cutoff = 0}, 2}, {"vrkmk", {tableau = "rk4"}, 4},
  {"vcg", {}, 2}, {"vcg", {tableau = tj}, 4}, {"vcg", {tableau = y6}, 6},
  {"vcg", {tableau = "gauss2"}, 2}, {"cmo", {tableau = "gauss3"}, 2}, {"cmo", {}, 2},
  {"rkmk", {}, 4}, {"rkmk", {tableau = "rk4"}, 4}, {"rkmk", {tableau = "rk4", cutoff = 0}, 2},
  {"lie_euler", {}, 1},
}
for _, c in ipairs(claims) do
  local m = wb.method(c[1], c[2])
  local opts = {}
  for k, v in pairs(c[2]) do opts[#opts + 1] = k .. " = " .. tostring(v) end
  table.sort(opts)
  wb.check(m.order == c[3], string.format("%s {%s}: claims order %d (got %s)", c[1],
                                          table.concat(opts, ", "), c[3], tostring(m.order)))
end
for _, name in ipairs{"vrkmk", "vcg", "cmo"} do
  local p = wb.method(name).properties
  wb.check(p.symplectic and p.momentum_conserving and not p.explicit, name .. ": claims symplectic")
end
local p = wb.method("lie_euler").properties
wb.check(not p.symplectic and p.explicit, "lie_euler: explicit, not symplectic")
wb.check(not wb.method("rkmk").properties.symplectic, "rkmk: not symplectic")
wb.check(wb.method("vcg", {tableau = tj}).properties.symmetric and
         not wb.method("vrkmk", {tableau = "gauss2"}).properties.symmetric,
         "symmetric: VCG's symmetric compositions; VRKMK Gauss 2 is not claimed")

-- symmetric methods: a step of h then of -h returns
for _, spec in ipairs{{"vcg", {tableau = tj}}, {"vcg", {tableau = y6}}, {"vrkmk", {tableau = mid}},
                      {"cmo", {}}} do
  local method = wb.method(spec[1], spec[2])
  local q1, p1 = final_state(dipole, method, 0.05, 1, q0, p0)
  local q2, p2 = final_state(dipole, method, -0.05, 1, q1, p1)
  wb.expect_below(state_diff(q2, p2, q0, p0), 1e-15,
                  spec[1] .. " " .. method.options.tableau.name .. ": step h then -h returns")
end

-- momentum maps (discrete Noether) and the group
local body = wb.model("free_rigid_body")
for _, spec in ipairs{{"vrkmk", {tableau = "gauss2"}}, {"vcg", {tableau = tj}}, {"cmo", {tableau = "gauss2"}},
                      {"vrkmk", {tableau = "kutta3"}}} do
  local method = wb.method(spec[1], spec[2])
  local sol = wb.integrate{model = body, method = method, h = 0.05, steps = 400}
  local drift = 0
  for _, c in ipairs{"Lx", "Ly", "Lz"} do drift = wb.max(drift, wb.drift(sol:column(c))) end
  wb.expect_below(drift, 1e-12, string.format("free_rigid_body, %s %s: spatial momentum kept, 400 steps",
                                              spec[1], method.options.tableau.name))
  wb.expect_below(sol:max("group_residual"), 1e-14,
                  spec[1] .. " " .. method.options.tableau.name .. ": on SO(3), 400 steps")
  local solz = wb.integrate{model = dipole, method = method, h = 0.01, steps = 400}
  wb.expect_below(wb.drift(solz:column("Lz")), 1e-12,
                  spec[1] .. " " .. method.options.tableau.name .. ": the dipole's Lz kept, 400 steps")
end

-- the errors a user meets
local ok, err = pcall(wb.method, "vrkmk", {tableau = "explicit_midpoint"})
wb.check(not ok and tostring(err):find("weight b_1 is zero", 1, true) ~= nil,
         "a tableau with a zero weight is refused: " .. tostring(err))
ok, err = pcall(wb.integrate, {model = dipole, method = wb.method("vcg", {tableau = tj, max_iter = 20}),
                               h = 0.5, steps = 4})
wb.check(not ok and tostring(err):find("fixed-point iteration", 1, true) ~= nil and
         tostring(err):find("t = ", 1, true) ~= nil,
         "a fixed point that diverges stops the run, naming the time: " .. tostring(err))
ok, err = pcall(wb.integrate, {model = dipole, method = wb.method("vrkmk", {max_iter = 3}),
                               h = 0.01, steps = 4})
wb.check(not ok and tostring(err):find("did not converge", 1, true) ~= nil,
         "max_iter reached: the run stops with the reason: " .. tostring(err))
local stopped = wb.integrate{model = dipole, method = wb.method("vcg", {tableau = tj, max_iter = 20}),
                             h = 0.5, steps = 4, on_failure = "stop"}
wb.check(stopped.ok == false and #stopped.t >= 1, "on_failure = stop keeps the rows before it")
do
  local loose = wb.integrate{model = dipole, method = wb.method("vrkmk", {tol = 1e-11}), h = 0.01,
                             steps = 100}
  local tight = wb.integrate{model = dipole, method = wb.method("vrkmk"), h = 0.01, steps = 100}
  local cold = wb.integrate{model = dipole, method = wb.method("vrkmk", {warm_start = false}),
                            h = 0.01, steps = 100}
  wb.printf("vrkmk gauss2 on the dipole, h = 0.01: %.1f iterations per step to 1e-11, %.1f to "
            .. "machine precision, %.1f from the explicit guess\n",
            loose.stats.newton_iterations / 100, tight.stats.newton_iterations / 100,
            cold.stats.newton_iterations / 100)
  wb.check(loose.stats.newton_iterations < tight.stats.newton_iterations,
           "tol = 1e-11 stops earlier than machine precision")
  local q1, p1 = loose:final()
  local q2, p2 = tight:final()
  wb.expect_below(state_diff(q1, p1, q2, p2), 1e-9, "tol = 1e-11: the same solution to 1e-9")
end
