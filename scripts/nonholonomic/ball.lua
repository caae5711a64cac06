-- Seed 001 (Martin de Diego, Sato Martin de Almagro), Figure 8: a
-- homogeneous ball rolling on a rotating turntable, on SO(3) x R^2,
-- Lobatto-3 with the Cayley retraction: the errors of the four first
-- integrals.  The paper: for w_zeta and the two linear integrals the error
-- "is introduced by the solver and is in fact lower than the tolerance"
-- (MATLAB fsolve, TolX = 1e-12); the moving energy shows a bounded,
-- oscillating, "holonomic-like" error.
--
-- Model: ball_turntable; the paper gives no data, the digest's choice:
--   r = 1, a = 0.4 (a solid ball), Omega = 1, R0 = I, w0 = (0.2, 0.3, 0.5)
--   (spatial), (x0, y0) = (1, 0.5), v0 = (-0.2, 0.8) from the constraints.
--   The centre circles with period P = 2 pi (1 + a) / (a Omega) = 21.99.
-- Runs: h = 0.1, Newton tolerance 1e-12 (the paper's TolX), T = 10 P
--   (--quick: 2 P); the tolerance ladder 1e-8 .. 1e-14 over 2 P; the moving
--   energy at h = 0.1 and 0.05 over the first period; a long run at h = 0.2
--   with cay and with exp (T = 50 P; --quick: 10 P).
-- Figures (plots/nonholonomic/): ball_w_zeta, ball_Ix, ball_Iy,
--   ball_moving_energy (Fig. 8's four panels), ball_path (the centre),
--   ball_tolerance (the linear integrals' error against Newton's tolerance),
--   ball_moving_energy_long (cay against exp, h = 0.2).
-- Claims checked:
--   * w_zeta, Ix, Iy kept to the solver, "lower than the tolerance": at
--     tolerance 1e-12 their largest error over 10 P is below 1e-12; over
--     2 P it is below the tolerance (or 1e-14) for every tolerance of the
--     ladder and falls with it (by more than 100 from 1e-8 to 1e-14:
--     9.9e-13, 4.6e-13, 5.3e-15, 2.1e-15; Newton delivers its unknowns to
--     the tolerance and applies its last correction, which lands far below
--     a loose one.  Before it did, stopping at the residual test: 5.2e-9,
--     1.4e-10, 4.6e-13, 7.4e-15, checked below 10 x the tolerance and by
--     1000; over 10 P at 1e-12 the bound was 1e-10);
--   * the constraint at every node and the group to round-off;
--   * the moving energy's oscillation scales like h^4 (first period, h = 0.1
--     against 0.05: fitted exponent in [3.5, 4.5]);
--   * with exp it stays bounded over the long run (last tenth within 1.5
--     times the first); with cay it drifts slowly: its last tenth more than
--     twice its first, its drift rate (least-squares slope) more than 30
--     times exp's.
-- As the paper: w_zeta's error stays below the tolerance 1e-12 over 10 P
--   (5.1e-15, drift 1.4e-17 per unit time; Ix 8.7e-15, Iy 2.7e-15).  Before
--   Newton delivered its unknowns (issue 13) it did so over the first 4.5
--   periods only: the solver's residuals made it drift (-9.5e-15 per unit
--   time) to 2.14e-12 at 10 P (Ix, Iy: 2.5e-13); the script prints the
--   error and drift of each integral.
-- Where we differ from the paper: the moving energy with cay is bounded
--   and oscillating over the first periods (as the paper shows), but over
--   tens of periods it drifts linearly, at a rate -2.5e-7 per unit time at
--   h = 0.2 and -1.8e-9 at h = 0.1 (so proportional to h^7.1), a drift that
--   falls below the oscillation (3e-7 at h = 0.1) only after ~100 time
--   units; with exp the rate is -4.9e-12 (T = 4000).  The drift is no
--   solver artefact (tolerance 1e-14 gives the same), and not our
--   trivialisation: inversion g -> g^-1 maps this system to itself, so the
--   paper's left-trivialised scheme gives the same discrete motion.
--
--   workbench scripts/nonholonomic/ball.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "nh_common"

local model = wb.model("ball_turntable")
local a, Omega = 0.4, 1
local P = 2 * math.pi * (1 + a) / (a * Omega)
local periods = wb.quick and 2 or 10
local integrals = {"w_zeta", "Ix", "Iy"}

local function run(spec)
  return wb.integrate{model = model, method = common.lobatto(3, spec.options), h = spec.h,
                      steps = math.floor(spec.T / spec.h + 0.5), every = spec.every}
end

---------------------------------------------------------------------------
-- Figure 8: Lobatto-3, cay, h = 0.1, tolerance 1e-12
---------------------------------------------------------------------------
-- The paper: their error is "lower than the tolerance" (TolX = 1e-12).
local paper_tol = 1e-12
local main = run{h = 0.1, T = periods * P, options = {tol = paper_tol}}
local errors = {}
for _, name in ipairs(integrals) do
  errors[name] = wb.deviation(main:column(name))
  wb.expect_below(wb.max_abs(errors[name]), paper_tol,
                  string.format("%s kept below the solver's tolerance over %d periods", name,
                                periods))
end
errors.moving_energy = wb.deviation(main:column("moving_energy"))
-- Where the solver's errors accumulate past it, say where, with the drift
-- rate.
for _, name in ipairs(integrals) do
  local e, crossed = errors[name], nil
  for k, x in ipairs(e) do
    if math.abs(x) > paper_tol then crossed = main.t[k] break end
  end
  local _, slope = wb.fit_line(main.t, e)
  wb.printf("%s: max error %.2e over %d periods, %s the paper's tolerance %.0e%s; drift %.1e per "
            .. "unit time\n", name, wb.max_abs(e), periods, crossed and "above" or "below",
            paper_tol, crossed and string.format(" from t = %.0f (%.1f periods): NOT as the "
                                                 .. "paper's Fig. 8", crossed, crossed / P) or "",
            slope)
end
wb.expect_below(main:max("nonholonomic_constraint"), 1e-12, "|phi| at the nodes")
wb.expect_below(main:max("group_residual"), 1e-13, "on SO(3) x R^2 to round-off")

-- the linear integrals against the tolerance
local tolerances = {1e-8, 1e-10, 1e-12, 1e-14}
local by_tol = {}
for i, tol in ipairs(tolerances) do
  local sol = run{h = 0.1, T = 2 * P, options = {tol = tol}}
  local worst = 0
  for _, name in ipairs(integrals) do worst = math.max(worst, wb.drift(sol:column(name))) end
  by_tol[i] = worst
end
for i, tol in ipairs(tolerances) do
  wb.expect_below(by_tol[i], math.max(tol, 1e-14),
                  string.format("tolerance %.0e: the linear integrals' error (%.1e) below it",
                                tol, by_tol[i]))
end
wb.check(by_tol[#by_tol] < 1e-2 * by_tol[1],
         string.format("... and it falls with the tolerance (%.1e at %.0e, %.1e at %.0e)", by_tol[1],
                       tolerances[1], by_tol[#by_tol], tolerances[#tolerances]))

-- the moving energy's oscillation over the first period, h = 0.1 and 0.05
local first = {}
for i, h in ipairs{0.1, 0.05} do
  local sol = run{h = h, T = P, options = {tol = 1e-13, step_tol = 1e-15, iteration = "newton"}}
  first[i] = wb.drift(sol:column("moving_energy"))
end
local exponent = math.log(first[1] / first[2]) / math.log(2)
wb.expect_in(exponent, 3.5, 4.5, string.format("the moving energy's error scales like h^4 over the "
                                               .. "first period (%.2e, %.2e: exponent %.2f)",
                                               first[1], first[2], exponent))

-- long run at h = 0.2: cay drifts, exp does not
local long_periods = wb.quick and 10 or 50
local long = {}
for _, retraction in ipairs{"cay", "exp"} do
  local sol = run{h = 0.2, T = long_periods * P, every = 5,
                  options = {tol = 1e-12, retraction = retraction}}
  local e = wb.deviation(sol:column("moving_energy"))
  local _, slope = wb.fit_line(sol.t, e)
  local early, late = wb.tenths(e)
  long[retraction] = {t = sol.t, e = e, slope = slope, early = early, late = late,
                      seconds = sol.stats.seconds}
end
wb.check(long.exp.late <= 1.5 * long.exp.early,
         string.format("exp: the moving energy stays bounded over %d periods (first tenth %.2e, "
                       .. "last %.2e)", long_periods, long.exp.early, long.exp.late))
wb.check(long.cay.late > 2 * long.cay.early and math.abs(long.cay.slope) > 30 * math.abs(long.exp.slope),
         string.format("cay: the moving energy drifts (first tenth %.2e, last %.2e; rate %.2e per "
                       .. "unit time, exp %.2e)", long.cay.early, long.cay.late, long.cay.slope,
                       long.exp.slope))

wb.printf("ball on a turntable, Lobatto-3, h = 0.1, tol 1e-12, T = %d periods (%.1f):\n", periods,
          periods * P)
for _, name in ipairs{"w_zeta", "Ix", "Iy", "moving_energy"} do
  wb.printf("  max |%s - %s(0)| = %.3e\n", name, name, wb.max_abs(errors[name]))
end
wb.printf("linear integrals against the tolerance: %s at %s\n", common.format_list(by_tol, "%.2e"),
          common.format_list(tolerances, "%.0e"))
wb.printf("moving energy, first period: h = 0.1: %.3e, h = 0.05: %.3e (exponent %.2f)\n", first[1],
          first[2], exponent)
wb.printf("moving energy, h = 0.2 over %d periods: drift rate cay %.3e, exp %.3e per unit time\n",
          long_periods, long.cay.slope, long.exp.slope)

---------------------------------------------------------------------------
-- Figures
---------------------------------------------------------------------------
local labels = {w_zeta = "w_zeta (vertical spin)", Ix = "r w_xi - Omega x / (1 + a)",
                Iy = "r w_eta - Omega y / (1 + a)", moving_energy = "moving energy"}
for i, name in ipairs{"w_zeta", "Ix", "Iy", "moving_energy"} do
  wb.plot{file = "plots/nonholonomic/ball_" .. name .. ".png",
          title = string.format("ball on a turntable (Fig. 8), Lobatto-3, cay, h = 0.1, tol 1e-12: %s",
                                labels[name]),
          xlabel = "t", ylabel = "error",
          series = {{x = main.t, y = errors[name], title = name, style = common.style(i)}}}
end
wb.plot{file = "plots/nonholonomic/ball_path.png", title = "ball on a turntable: the centre's path",
        xlabel = "x", ylabel = "y", commands = {"set size ratio -1"},
        series = {{x = main:column("q10"), y = main:column("q11"), title = "(x, y)",
                   style = common.style(1)}}}
wb.plot{file = "plots/nonholonomic/ball_tolerance.png", logscale = "xy", key = "bottom right",
        title = "ball: largest error of w_zeta, Ix, Iy over 2 periods against Newton's tolerance",
        xlabel = "Newton tolerance", ylabel = "max error",
        series = {{x = tolerances, y = by_tol, with = "linespoints", style = common.style(1, true),
                   title = "linear integrals"},
                  {x = tolerances, y = tolerances, style = "lw 1 dt 2 lc rgb 'black'",
                   title = "= tolerance"}}}
wb.plot{file = "plots/nonholonomic/ball_moving_energy_long.png", key = "bottom left",
        title = string.format("ball: moving energy error, Lobatto-3, h = 0.2, %d periods", long_periods),
        xlabel = "t", ylabel = "error",
        series = {{x = long.cay.t, y = long.cay.e, title = "cay (drifts)", style = common.style(2)},
                  {x = long.exp.t, y = long.exp.e, title = "exp (bounded)", style = common.style(1)}}}
