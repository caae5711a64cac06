-- Seed 001 (Martin de Diego, Sato Martin de Almagro), Figures 3 and 7:
-- convergence of the nonholonomic Lobatto IIIA-IIIB method (Lobatto-s,
-- s = 2..5) on the nonholonomic particle (Fig. 3, a vector space) and on
-- the vertical disc on SE(2) with the Cayley retraction (Fig. 7).
--
-- Models and data (the paper gives none; the digest's choices):
--   nonholonomic_particle: q0 = (1, 0.5, 0), v0 = (0.3, 0.8, 0.15), T = 2;
--   vertical_disc: m = 1, Iz = 0.5, (x, y, theta) = (1, 0, 0.3), rolling
--   speed 0.5, turning rate 1, T = 2.
-- Reference: the paper's "h = 1e-4", by an independent method: classical
--   RK4 in index-1 form (rkmk4 on SE(2)) at h = 1e-4, and the consistent
--   multiplier of its final state.  Its own error is about 2e-14 on the
--   particle and 4e-13 on the disc (3.6e-13 against Lobatto-5 at h = 0.01;
--   5e-13 before the disc was left-trivialised), so orders are fitted over the errors
--   above 1e-12 (particle) and 1e-11 (disc).
-- Step sizes: s = 2, 3, 4: 0.2 .. 0.0125 (halving); s = 5: 0.4, 0.25, 0.2,
--   0.1, 0.05, 0.025; orders fitted by least squares over the errors above
--   the floor (the multiplier over the three smallest h, since its error
--   for s = 4, 5 is pre-asymptotic at h >= 0.25); Newton tolerance 1e-13 on the
--   residuals, and converged once an update is below 1e-15 (round-off).
-- Errors: relative max-norm errors at T of q (the group element's six
--   numbers on SE(2)), p (mu) and the multiplier; and the largest |Phi| at
--   the nodes over the run.
-- Claims checked: slopes 2s - 2 for q and p; the multiplier's slope s for
--   even s and s - 1 for odd s (2, 2, 4, 4: it lags the other variables
--   from s = 3 on, Cor. 5.2.1); |Phi| at Newton's tolerance at every node
--   (all but mu's at s = 5 on the disc, below).
-- The group method is the paper's, left-trivialised (G = g tau(Xi), mu the
--   body momentum): vertical_disc is declared on SE(2)^op, on which the
--   workbench's right-trivialised ABI is SE(2)'s left trivialisation (issue
--   13; until then the disc was right-trivialised, G = tau(Xi) g, the
--   mirror-image method, with the same orders and other error constants).
--   The disc's errors now agree with the digest's prototype of the paper's
--   scheme (absolute errors, h = 0.025; s = 4: h = 0.05): mu 1.05e-4,
--   5.13e-9, 5.98e-12 (prototype 1.05e-4, 5.13e-9, 5.80e-12; before
--   8.5e-5, 4.2e-9, 1.8e-12), nu at s = 3 6.64e-5 (prototype 6.64e-5;
--   before 4.5e-5), g at s = 4 1.12e-11 (prototype 1.11e-11; before
--   2.7e-12).  Relative errors at h = 0.025 (s = 4, 5: 0.05, 0.4), before ->
--   now: g 1.81e-4, 4.13e-9 (unchanged), 2.44e-12 -> 1.02e-11, 1.20e-9 ->
--   5.44e-9; mu 1.51e-4 -> 2.11e-4, 7.35e-9 -> 1.03e-8, 3.11e-12 -> 1.20e-11,
--   6.95e-9 -> 2.93e-10; fitted orders g 2.01, 3.99, 5.99, 8.12 (were 2.01,
--   3.99, 6.01, 8.08), mu 2.02, 3.98, 5.99 (were 2.01, 3.98, 6.00) and 5.29
--   at s = 5 (was 8.19), see below.
-- mu at s = 5 on the disc: not checked.  The body momentum's leading error
--   term changes sign near h = 0.45 (m v1 off by +9.3e-10 at h = 0.5,
--   -1.5e-10 at 0.4) and the next one (h^10) still lowers the local order
--   to 7.2, 7.5, 7.7 over h = 0.25, 0.2, 1/6, 1/8 (against Lobatto-6 at
--   h = 0.02), where the errors, 2.4e-11 .. 1.4e-13, reach the reference's
--   own (3.6e-13): its order 8 is not resolved in double precision, and the
--   fit over the errors above 1e-11 (h = 0.4, 0.25) gives 5.29.  The table
--   and figure show it; g (8.12) and nu (4.00) are checked.
--
--   workbench scripts/nonholonomic/convergence.lua [--quick]
--   (--quick: s = 2..4, h = 0.1, 0.05, 0.025 (s = 4: 0.2 .. 0.05), reference
--   at h = 2e-4)
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "nh_common"

local T = 2
local tol = 1e-13 -- and step_tol 1e-15, full Newton: it runs to round-off
local stages = wb.quick and {2, 3, 4} or {2, 3, 4, 5}
local ladders = {
  [2] = common.halvings(0.2, 5), [3] = common.halvings(0.2, 5),
  [4] = common.halvings(0.2, 5), [5] = {0.4, 0.25, 0.2, 0.1, 0.05, 0.025},
}
if wb.quick then
  ladders = {[2] = {0.1, 0.05, 0.025}, [3] = {0.1, 0.05, 0.025}, [4] = {0.2, 0.1, 0.05}}
end

local studies = {
  {model = "nonholonomic_particle", figure = "fig3_particle", label = "particle (Fig. 3)",
   floor = 1e-12, names = {q = "q", p = "p"}},
  {model = "vertical_disc", figure = "fig7_disc", label = "disc on SE(2), cay (Fig. 7)",
   floor = 1e-11, names = {q = "g", p = "mu"}, p_order_unresolved = {[5] = true}},
}

for _, study in ipairs(studies) do
  local model = wb.model(study.model)
  local ref = common.reference(model, T, wb.quick and 2e-4 or 1e-4)
  study.results = {}
  wb.printf("\n%s: relative errors at T = %g against %s at h = %g\n", study.label, T,
            model.lie_group and "rkmk4" or "rk4", wb.quick and 2e-4 or 1e-4)
  for _, s in ipairs(stages) do
    local r = {s = s, h = ladders[s], q = {}, p = {}, nu = {}, phi = {}, energy = {}}
    for i, h in ipairs(r.h) do
      local run = common.final(model, common.lobatto(s, {tol = tol, step_tol = 1e-15, iteration = "newton"}), h, T, {every = 1})
      r.q[i] = common.relative_error(run.q, ref.q)
      r.p[i] = common.relative_error(run.p, ref.p)
      r.nu[i] = common.relative_error(run.nu, ref.nu)
      r.phi[i] = run.sol:max("nonholonomic_constraint")
      r.energy[i] = run.sol:max("energy_error_abs")
    end
    r.q_order = wb.fit_order(r.h, r.q, study.floor)
    r.p_order = wb.fit_order(r.h, r.p, study.floor)
    -- the multiplier over its three smallest steps (its asymptotic range)
    local n = #r.h
    r.nu_order = wb.fit_order({table.unpack(r.h, n - 2, n)}, {table.unpack(r.nu, n - 2, n)},
                              study.floor)
    study.results[#study.results + 1] = r
    local rows = {}
    for i, h in ipairs(r.h) do rows[i] = {h, r.q[i], r.p[i], r.nu[i], r.phi[i]} end
    wb.printf("Lobatto-%d\n", s)
    wb.print_table({"h", "err " .. study.names.q, "err " .. study.names.p, "err nu", "max|Phi|"},
                   rows, "%-14.3g")
    wb.printf("  fitted orders: %s %.2f, %s %.2f, nu %.2f (expected %d, %d, %d)\n",
              study.names.q, r.q_order, study.names.p, r.p_order, r.nu_order, 2 * s - 2,
              2 * s - 2, common.multiplier_order(s))
  end
end

---------------------------------------------------------------------------
-- Claims
---------------------------------------------------------------------------
for _, study in ipairs(studies) do
  for _, r in ipairs(study.results) do
    local s, expected = r.s, 2 * r.s - 2
    local what = string.format("%s, Lobatto-%d", study.label, s)
    wb.expect_in(r.q_order, expected - 0.3, expected + 0.5,
                 string.format("%s: %s has order %d (%.2f)", what, study.names.q, expected, r.q_order))
    if study.p_order_unresolved and study.p_order_unresolved[s] then
      wb.printf("%s: %s's order %d not resolved here (fitted %.2f; see the header)\n", what,
                study.names.p, expected, r.p_order)
    else
      wb.expect_in(r.p_order, expected - 0.3, expected + 0.5,
                   string.format("%s: %s has order %d (%.2f)", what, study.names.p, expected, r.p_order))
    end
    local nu_expected = common.multiplier_order(s)
    wb.expect_in(r.nu_order, nu_expected - 0.3, nu_expected + 0.4,
                 string.format("%s: the multiplier has order %d (%.2f)", what, nu_expected,
                               r.nu_order))
    if s >= 3 then
      local i = #r.h
      wb.check(r.nu[i] > 10 * math.max(r.q[i], r.p[i]),
               string.format("%s: the multiplier lags (h = %g: %.2e against %.2e)", what, r.h[i],
                             r.nu[i], math.max(r.q[i], r.p[i])))
    end
    wb.expect_below(wb.max(table.unpack(r.phi)), 1e-13,
                    string.format("%s: |Phi| at Newton's tolerance at every node", what))
  end
end

---------------------------------------------------------------------------
-- Figures: one file per panel
---------------------------------------------------------------------------
local function panel(study, field, ylabel, title, file)
  local series = {}
  for i, r in ipairs(study.results) do
    local order = field == "q" and r.q_order or field == "p" and r.p_order
                  or field == "nu" and r.nu_order or nil
    series[#series + 1] = {
      x = r.h, y = r[field], with = "linespoints", style = common.style(i, true),
      title = order and string.format("Lobatto-%d (slope %.2f)", r.s, order)
              or string.format("Lobatto-%d", r.s)}
  end
  wb.plot{file = "plots/nonholonomic/" .. study.figure .. "_" .. file .. ".png",
          title = study.label .. ": " .. title, xlabel = "h", ylabel = ylabel,
          logscale = "xy", key = "bottom right", series = series}
end
for _, study in ipairs(studies) do
  panel(study, "q", "relative error", "error in " .. study.names.q .. " at T = 2", study.names.q)
  panel(study, "p", "relative error", "error in " .. study.names.p .. " at T = 2", study.names.p)
  panel(study, "nu", "relative error", "error in the multiplier at T = 2 (it lags)", "multiplier")
  panel(study, "phi", "max |Phi|", "velocity constraint at the nodes (Newton tol. 1e-13)",
        "constraint")
end
panel(studies[2], "energy", "max |E - E0|", "energy error over [0, 2]", "energy")
