-- rk's start = "corrected" (gni_irk2's starting values, derived for any
-- collocation tableau: plugins/rk/corrected_start.h; the coefficients
-- against the published ones and the start's order in
-- tests/unit/corrected_start_test.c): the forces at the last nodes, at both
-- step points and at a point beyond the step on the last collocation
-- polynomial start the stages (two more force evaluations a step).
-- Checked on Kepler (e = 0.5, h = 0.01, 20000 steps) and the outer solar
-- system (h = 10 d, 2000 steps), Gauss s = 2, 4, 6, fixed point (the
-- default auto stays there):
--   * the three starts land on the same solution (the iteration runs to
--     round-off whatever the start; measured differences 2e-14 .. 1.4e-12
--     after 20000 Kepler steps, below 3e-13 on the solar system);
--   * force evaluations per step, measured (gni_irk2, the yardstick of
--     bench/gauss_vs_gni.lua: Kepler 5.0 / 6.2 / 8.0, solar 6.0 / 6.0 / 8.0):
--       Kepler   extrapolate 5.28 / 8.77 / 7.84, corrected 6.17 / 6.85 / 8.02
--       solar    extrapolate 6.00 / 8.00 / 6.01, corrected 6.00 / 6.01 / 8.01
--     the corrected start's sweeps (evaluations less 2, over s) are fewer
--     than the extrapolated start's in every case;
--   * a tableau that is not collocation (Radau IA), or whose nodes include
--     both step points (Lobatto IIIA, where the start would gain no order),
--     runs as "extrapolate"; Radau IIA (its last node is the step's end)
--     takes the corrected start (8.53 evaluations a step at h = 0.01,
--     extrapolate 7.03: the order gained does not pay at this h).
local kepler, solar = wb.model("kepler", {e = 0.5}), wb.model("outer_solar_system")

local function run(model, tableau, start, h, steps)
  local sol = wb.integrate{model = model, h = h, steps = steps, every = steps,
                           method = wb.method("rk", {tableau = tableau, start = start})}
  return sol.stats.mean_function_evals, wb.concat(sol:final())
end

local bounds = { -- evaluations per step the corrected start must beat (measured + 2 %)
  kepler = {[2] = 6.29, [4] = 6.99, [6] = 8.18},
  solar = {[2] = 6.13, [4] = 6.13, [6] = 8.17},
}
for _, case in ipairs{{"kepler", kepler, 0.01, 20000, 1e-11}, {"solar", solar, 10, 2000, 1e-12}} do
  local name, model, h, steps, agree = case[1], case[2], case[3], case[4], case[5]
  for _, s in ipairs{2, 4, 6} do
    local g = wb.tableau.gauss(s)
    local label = string.format("%s, Gauss s = %d", name, s)
    local e_plain, y_plain = run(model, g, "plain", h, steps)
    local e_extra, y_extra = run(model, g, "extrapolate", h, steps)
    local e_corr, y_corr = run(model, g, "corrected", h, steps)
    print(string.format("%s: evaluations per step plain %.3f, extrapolate %.3f, corrected %.3f",
                        label, e_plain, e_extra, e_corr))
    wb.expect_below(wb.norm(wb.sub(y_corr, y_plain)), agree,
                    label .. ": corrected and plain starts reach the same solution")
    wb.expect_below(wb.norm(wb.sub(y_corr, y_extra)), agree,
                    label .. ": corrected and extrapolated starts reach the same solution")
    wb.expect_below(e_corr, bounds[name][s], label .. ": corrected start's evaluations per step")
    wb.expect_below((e_corr - 2) / s, (e_extra) / s,
                    label .. ": corrected start's sweeps per step below the extrapolated start's")
  end
end

-- not collocation: the corrected start falls back to the extrapolated one
local e_extra, y_extra = run(kepler, "radau_ia3", "extrapolate", 0.01, 2000)
local e_corr, y_corr = run(kepler, "radau_ia3", "corrected", 0.01, 2000)
wb.check(e_extra == e_corr and wb.norm(wb.sub(y_extra, y_corr)) == 0,
         "Radau IA (not collocation): start = corrected runs as extrapolate")
local e_lobatto, y_lobatto = run(kepler, "lobatto_iiia3", "extrapolate", 0.01, 2000)
local e_lobatto_c, y_lobatto_c = run(kepler, "lobatto_iiia3", "corrected", 0.01, 2000)
wb.check(e_lobatto == e_lobatto_c and wb.norm(wb.sub(y_lobatto, y_lobatto_c)) == 0,
         "Lobatto IIIA (0 and 1 nodes): start = corrected runs as extrapolate")
-- collocation with the node 1 (Radau IIA: the step's end is a node, taken once)
local e_plain, y_plain = run(kepler, "radau_iia3", "plain", 0.01, 2000)
e_corr, y_corr = run(kepler, "radau_iia3", "corrected", 0.01, 2000)
print(string.format("Radau IIA 3, Kepler: evaluations per step plain %.3f, corrected %.3f",
                    e_plain, e_corr))
wb.expect_below(wb.norm(wb.sub(y_corr, y_plain)), 1e-12,
                "Radau IIA 3: corrected and plain starts reach the same solution")
wb.expect_below(e_corr, 0.8 * e_plain, "Radau IIA 3: the corrected start saves evaluations over plain (measured 8.60 against 11.32)")
