-- The symplecticity of the step map on T*SO(3) (the digest's check, Sect.
-- 4.4; not in the paper) and the group over 10^5 steps, on the dipole.
--
-- The form: for the right-trivialised T*G, perturb the input as
--   q' = exp(eta) q, mu' = mu + dmu, and read the output the same way,
--   eta1 = log(q1' q1^-1), dmu1 = mu1' - mu1; in these coordinates
--   omega_z((eta, dmu), (eta', dmu')) = <dmu', eta> - <dmu, eta'> - <mu, eta x eta'>,
--   W(z) its 6x6 matrix; the step is symplectic iff J^T W(z1) J = W(z0), J
--   the Jacobian, here by central differences with eps = 1e-5.
-- State (the digest's): g = g(0) of the paper, mu = (0.2, 0.01, 0.005),
--   h = 0.05, the printed gravity sign (+1, as the digest's table; the
--   property does not depend on it), stage equations to machine precision.
-- Claims checked:
--   * max |J^T W(z1) J - W(z0)| below 1e-10 (finite-difference precision)
--     for every variational method: VRKMK midpoint r = 0, Kutta 3 r = 1,
--     Gauss 4 r = 2 and r = 0, Gauss 6 r = 4; VCG midpoint, triple jump,
--     Yoshida 6; eq. 12 with Gauss 4 -- whatever their order (the digest:
--     1.7e-11 to 2.2e-11);
--   * not for the non-symplectic contrast: Lie-Euler (the digest: 3.6e-2)
--     above 1e-2, RKMK Gauss 4 on T*G above 1e-8;
--   * the check can fail: with the sign of the bracket term flipped every
--     map's defect is O(1) (the digest: about 2.5); with the stage
--     equations solved to tol = 1e-9 only, VRKMK Gauss 4's defect grows to
--     6.3e-9, a few times the tolerance (the digest expected about
--     tol / eps; we measure 4 to 6 tol for tol from 1e-9 to 1e-4: every
--     perturbed run takes the same number of sweeps, so the truncated
--     iteration is itself a smooth map whose error is O(tol));
--   * the group: max |g^T g - I| (and |det g - 1|) below 2e-13 after 10^5
--     steps of h = 0.01, physical gravity, every variational method
--     (--quick: 2000 steps; the digest: 2e-13 after 10^5).
-- Differences from the paper: none (the paper states symplecticity, it
--   does not test it).
--
--   workbench scripts/liegroup/symplecticity.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "liegroup_common"

local model = common.dipole(1)
local q0 = {1, 0, 0, 0, 0, -1, 0, 1, 0}
local p0 = {0.2, 0.01, 0.005}
local h, eps = 0.05, 1e-5

local variational = {
  {label = "VRKMK midpoint, r = 0", method = wb.method("vrkmk", {tableau = common.midpoint, cutoff = 0})},
  {label = "VRKMK Kutta 3, r = 1", method = wb.method("vrkmk", {tableau = "kutta3", cutoff = 1})},
  {label = "VRKMK Gauss 4, r = 2", method = wb.method("vrkmk", {tableau = "gauss2", cutoff = 2})},
  {label = "VRKMK Gauss 4, r = 0", method = wb.method("vrkmk", {tableau = "gauss2", cutoff = 0})},
  {label = "VRKMK Gauss 6, r = 4", method = wb.method("vrkmk", {tableau = "gauss3", cutoff = 4})},
  {label = "VCG midpoint", method = wb.method("vcg", {tableau = common.midpoint})},
  {label = "VCG triple jump", method = wb.method("vcg", {tableau = common.triple_jump})},
  {label = "VCG Yoshida 6", method = wb.method("vcg", {tableau = common.yoshida6})},
  {label = "eq. 12, Gauss 4", method = wb.method("cmo", {tableau = "gauss2"})},
}
local contrast = {
  {label = "Lie-Euler", method = wb.method("lie_euler"), above = 1e-2},
  {label = "RKMK Gauss 4 (T*G)", method = wb.method("rkmk", {tableau = "gauss2"}), above = 1e-8},
}

local rows = {}
for _, m in ipairs(variational) do
  m.defect = common.symplecticity_defect(model, m.method, q0, p0, h, eps)
  m.wrong = common.symplecticity_defect(model, m.method, q0, p0, h, eps, 1)
  rows[#rows + 1] = {m.label, m.defect, m.wrong}
end
for _, m in ipairs(contrast) do
  m.defect = common.symplecticity_defect(model, m.method, q0, p0, h, eps)
  rows[#rows + 1] = {m.label, m.defect, "-"}
end
local loose = wb.method("vrkmk", {tableau = "gauss2", tol = 1e-9})
local loose_defect = common.symplecticity_defect(model, loose, q0, p0, h, eps)
rows[#rows + 1] = {"VRKMK Gauss 4, tol 1e-9", loose_defect, "-"}
wb.printf("Symplecticity on T*SO(3): max |J^T W(z1) J - W(z0)|, h = %g, eps = %g\n", h, eps)
wb.print_table({"map", "defect", "bracket sign flipped"}, rows, "%-12.3g")

for _, m in ipairs(variational) do
  wb.expect_below(m.defect, 1e-10, m.label .. ": symplectic on T*SO(3)")
  wb.check(m.wrong > 0.1, string.format("%s: with the bracket's sign flipped the defect is %.2g",
                                        m.label, m.wrong))
end
for _, m in ipairs(contrast) do
  wb.check(m.defect > m.above, string.format("%s: not symplectic, defect %.3g > %g", m.label,
                                             m.defect, m.above))
end
wb.check(loose_defect > 100 * variational[3].defect and loose_defect > 1e-9 and loose_defect < 1e-7,
         string.format("VRKMK Gauss 4 with tol 1e-9: defect %.2g, a few times the tolerance",
                       loose_defect))

-- the group over many steps
local steps = wb.quick and 2000 or 100000
local physical = common.dipole(-1)
local series = {}
rows = {}
for _, m in ipairs(variational) do
  local sol = wb.integrate{model = physical, method = m.method, h = 0.01, steps = steps,
                           every = math.max(1, steps // 2000)}
  local r = sol:column("group_residual")
  m.group = wb.max_abs(r)
  rows[#rows + 1] = {m.label, m.group, sol.stats.seconds}
  series[#series + 1] = {x = sol.t, y = wb.map(r, function(x) return math.max(x, 1e-17) end),
                         title = m.label}
end
wb.printf("g in SO(3): max |g^T g - I|, |det g - 1| over %d steps of h = 0.01\n", steps)
wb.print_table({"method", "max residual", "seconds"}, rows, "%-12.3g")
wb.plot{file = "plots/liegroup/group_residual.png", logscale = "y", xlabel = "t",
        ylabel = "max(|g^T g - I|, |det g - 1|)", key = "top left",
        title = string.format("on the group without projection: %d steps of h = 0.01", steps),
        series = series, yrange = {1e-17, 1e-11}}
for _, m in ipairs(variational) do
  wb.expect_below(m.group, 2e-13, string.format("%s: in SO(3) to round-off after %d steps",
                                                m.label, steps))
end
