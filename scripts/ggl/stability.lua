-- GGL paper (Kinon-Betsch-Schneider 2023), Sect. 6.3 (stability): the
-- four-particle system integrated with large steps, Figs. 31-33.
--
-- Model: four_particles with the paper's data (k13 = 50, k24 = 500, eq. 127;
--   see four_particles.lua).  Schemes: VI-S, VI-A, VI-B, EM, and EM-G for
--   comparison; Newton tolerance 1e-9, at most 40 iterations, simple guess
--   q^n (the paper's solver).
-- Runs: h = 0.01, 0.04, 0.05, 0.25, 0.675, each scheme to T = 1000 (the
--   paper's horizon for h <= 0.04; --quick: T = 60 for h <= 0.05, T = 1000
--   for the large steps, which are cheap), stopped at the first failed step.
--   Every run that stops is run again with solver = "continuation": where
--   Newton from q^n fails, the same step equations are solved along
--   h' = s h, s from 0 to 1 (the scheme is unchanged).  If that run passes
--   the failure, a converged step existed and the solver failed; if the
--   continuation also stops (the branch of solutions leaving h' = 0 ends
--   short of h), the scheme has no step there.
-- Criteria, per run: "blow-up" is the first recorded time with
--   |H - H0| > 10 H0 (the scheme's energy leaves its band); "sustained" the
--   time from which |H - H0| stays above 10 H0 until the run ends (what a
--   plot of H(t) shows as the blow-up); "N" the start of the step Newton
--   cannot solve.  A run is stable when it reaches T with its energy
--   bounded: max |H - H0| / H0 at round-off (< 1e-10), or below 0.5 without
--   drift (the maximum over the second half of [0, T] at most twice that
--   over the first half; with --quick, where T = 60 is too short for the
--   VIs' errors to reach their band, the band alone).
-- Claims checked (the paper's): for h = 0.01 and 0.04 every scheme is
--   stable to T; at h = 0.05 VI-S and VI-B blow up within the first second
--   (the scheme: their continuation ends too), VI-A and EM are stable; at
--   h = 0.25 VI-A blows up "at about t = 55" (checked: 55 +- 10 % on each
--   criterion) while EM is stable; at h = 0.675 EM is stable to T = 1000.
-- Settled here:
--   * EM at h = 0.675 (paper: "keeps stable"): with the paper's Newton it
--     fails at t = 97.2 (the Newton residual grows to 1e7); the step exists
--     -- the continuation solves it to |R| <= 1e-9 -- and with the
--     continuation EM reaches T = 1000 with |H - H0| / H0 <= 1e-11 and the
--     constraints at round-off.  Along that run Newton from q^n fails on
--     30 of 1481 steps.  The solver fails, not the scheme.  (The authors'
--     code, metis Solver.m at the paper's commit 54af28b, never stops on a
--     non-converged Newton: it keeps the iterate after 41 iterations, so
--     its figure cannot tell a solved step from an unsolved one.)  EM-G
--     alike: plain Newton fails at t = 64.1, the continuation reaches T.
--     The ggl methods' default solver is that continuation where Newton
--     from the guess fails (solver = "newton" is the paper's alone), so EM
--     at its defaults reaches T = 1000 (tests/ggl/solver_fallback.lua);
--     the runs here name their solver.
--   * VI-A at h = 0.25 (paper: blow-up "at about t = 55", read off its
--     Fig. 33, an energy plot; its criterion is not stated): first
--     |H - H0| > 10 H0 at t = 53.0 (a spike; it falls back to ~6 H0),
--     above 10 H0 for good from t = 57.5, Newton fails at t = 59.75 and
--     the continuation ends there too (the scheme).  55 lies between.
--   * VI-S and VI-B at h = 0.675 fail at the first step: the continuation
--     ends at h' = 0.425, so no step of the branch reaches 0.675.
--
-- The runs are independent: they run as wb.sweep on every core.
--
--   workbench scripts/ggl/stability.lua [--quick]
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local common = require "ggl_common"

local model = wb.model("four_particles")
local T = 1000
local step_sizes = {0.01, 0.04, 0.05, 0.25, 0.675}
local function horizon(h) return (wb.quick and h < 0.25) and 60 or T end
local labels = {}
for _, s in ipairs(common.schemes(nil, true)) do labels[#labels + 1] = s.label end
local q0, p0 = model:initial()
local E0 = model:energy(q0, p0)

wb.printf("GGL paper Sect. 6.3: stability of the four-particle system, T = %g%s, E0 = %.6g\n", T,
          wb.quick and " (60 for h <= 0.05)" or "", E0)

local function series_file(h, label, solver)
  return string.format("plots/ggl/data/stability_h%g_%s_%s.tsv", h, label, solver)
end

local function write_series(path, t, E)
  local lines = {"# t\tenergy"}
  for i = 1, #t do lines[#lines + 1] = string.format("%.17g\t%.17g", t[i], E[i]) end
  wb.write_file(path, table.concat(lines, "\n") .. "\n")
end

-- The steps of a run that Newton from the paper's guess cannot solve: each
-- step again, alone, from the run's state and carried multipliers.
local function hard_steps(method, sol, h)
  local names = {}
  for _, name in ipairs{"lambda1", "lambda2", "gamma1", "gamma2"} do
    if pcall(sol.column, sol, name) then names[#names + 1] = name end
  end
  local columns = wb.map(names, function(name) return sol:column(name) end)
  local count, first = 0, nil
  for i = 1, sol.n - 1 do
    local q, p = sol:state(i)
    local aux
    if i > 1 then
      aux = {lambda = {columns[1][i], columns[2][i]}}
      if #columns == 4 then aux.gamma = {columns[3][i], columns[4][i]} end
    end
    local one = wb.integrate{model = model, method = method, h = h, steps = 1, t0 = sol.t[i],
                             q0 = q, p0 = p, aux0 = aux, on_failure = "stop"}
    if not one.ok then count, first = count + 1, first or sol.t[i] end
  end
  return count, first
end

-- One run: its criteria (see the header) and its energy series, to a file.
local function stability_run(case)
  local h, T_run = case.h, horizon(case.h)
  local scheme
  for _, s in ipairs(common.schemes({solver = case.solver}, true)) do
    if s.label == case.scheme then scheme = s end
  end
  local steps = math.floor(T_run / h + 0.5)
  local every = math.max(1, math.floor(0.1 / h))
  local sol = wb.integrate{model = model, method = scheme.method, h = h, steps = steps,
                           every = every, on_failure = "stop"}
  local t, E = sol.t, sol:column("energy")
  local err = wb.map(E, function(e) return math.abs(e - E0) / E0 end)
  local result = {newton_failure = sol.failure_time, reached = sol.ok, t_last = t[#t],
                  iterations = sol.stats.mean_newton_iterations, steps = sol.stats.steps,
                  constraint = sol:max("constraint")}
  for i = 1, #err do
    if not (err[i] <= 10) then result.blow_up = t[i]; break end
  end
  if result.blow_up then
    local i = #err
    while i > 1 and not (err[i - 1] <= 10) do i = i - 1 end
    result.sustained = t[i]
  end
  local before = {}
  for i = 1, #err do
    if result.blow_up and t[i] >= result.blow_up then break end
    before[#before + 1] = err[i]
  end
  result.energy_error = wb.max_abs(before)
  if sol.ok then
    result.first_half = wb.max_abs_between(t, err, 0, T_run / 2)
    result.second_half = wb.max_abs_between(t, err, T_run / 2, T_run)
  end
  local stop = sol.failure and sol.failure:match("stops at h = ([%d%.e%-+]+)")
  result.branch_end = stop and tonumber(stop)
  if case.count_hard_steps and sol.ok and every == 1 then
    local options = {}
    for k, v in pairs(scheme.options) do options[k] = v end
    options.solver = "newton"
    result.hard_steps, result.first_hard_step = hard_steps(wb.method(scheme.name, options), sol, h)
  end
  write_series(series_file(h, case.scheme, case.solver), t, E)
  return result
end

local function sweep(cases)
  local out = {}
  for _, row in ipairs(wb.sweep{cases = cases, run = stability_run, progress = false}) do
    if row.status ~= "ok" then
      error(string.format("stability run h = %g, %s (%s): %s", row.h, row.scheme, row.solver,
                          tostring(row.failure)))
    end
    local series = wb.read_table(series_file(row.h, row.scheme, row.solver))
    row.t, row.E = series.t, series.energy
    -- bounded: at round-off (the energy schemes), or in a band without drift
    -- (the drift part over T = 1000 only: at T = 60 the errors of the VIs
    -- still grow towards their band as the stiff mode is excited)
    local no_drift = row.reached and (row.second_half <= 2 * row.first_half or
                                      (wb.quick and horizon(row.h) < T))
    row.stable = row.reached and (row.energy_error < 1e-10 or (row.energy_error < 0.5 and no_drift))
    out[row.h] = out[row.h] or {}
    out[row.h][row.scheme] = row
  end
  return out
end

-- the paper's solver everywhere; the runs that stop, again with continuation
local cases = {}
for _, h in ipairs(step_sizes) do
  for _, label in ipairs(labels) do cases[#cases + 1] = {h = h, scheme = label, solver = "newton"} end
end
local runs = sweep(cases)
local again = {}
for _, h in ipairs(step_sizes) do
  for _, label in ipairs(labels) do
    if not runs[h][label].reached then
      again[#again + 1] = {h = h, scheme = label, solver = "continuation",
                           count_hard_steps = label:sub(1, 2) == "EM"}
    end
  end
end
local continued = sweep(again)

---------------------------------------------------------------------------
-- Tables
---------------------------------------------------------------------------
local function cell(run)
  if not run then return "-" end
  if run.stable then return "stable" end
  if run.reached then return string.format("T, max %.2g", run.energy_error) end
  local parts = {}
  if run.blow_up then parts[#parts + 1] = string.format("E %.4g", run.blow_up) end
  if run.sustained and run.sustained ~= run.blow_up then
    parts[#parts + 1] = string.format("E+ %.4g", run.sustained)
  end
  parts[#parts + 1] = string.format("N %.4g", run.newton_failure)
  if run.branch_end then parts[#parts + 1] = string.format("(h' %.3g)", run.branch_end) end
  return table.concat(parts, ", ")
end
local header = {"h"}
for _, label in ipairs(labels) do header[#header + 1] = label end
local function print_runs(title, set)
  local rows = {}
  for _, h in ipairs(step_sizes) do
    if set[h] then
      local row = {string.format("%g", h)}
      for _, label in ipairs(labels) do row[#row + 1] = cell(set[h][label]) end
      rows[#rows + 1] = row
    end
  end
  wb.printf("%s\n", title)
  wb.print_table(header, rows, "%-22s")
end
print_runs("with the paper's Newton (stable; T, max: reached T with that max |H - H0|/H0; E: first "
           .. "|H - H0| > 10 H0; E+: above for good from; N: Newton fails at)", runs)
print_runs("the runs that stop, again with solver = continuation (h': where the branch of the "
           .. "failing step ends)", continued)
wb.printf("max |H - H0| / H0 before any blow-up (paper's Newton):\n")
do
  local rows = {}
  for _, h in ipairs(step_sizes) do
    local row = {string.format("%g", h)}
    for _, label in ipairs(labels) do row[#row + 1] = runs[h][label].energy_error end
    rows[#rows + 1] = row
  end
  wb.print_table(header, rows, "%-22.3g")
end
for _, label in ipairs{"EM", "EM-G"} do
  local c = continued[0.675] and continued[0.675][label]
  if c and c.hard_steps then
    wb.printf("h = 0.675, %s with continuation: Newton from q^n fails on %d of %d steps (first at "
              .. "t = %.4g), max |H - H0| / H0 = %.2g, max |g| = %.2g\n", label, c.hard_steps,
              c.steps, c.first_hard_step or -1, c.energy_error, c.constraint)
  end
end

do
  local em, c = runs[0.675].EM, continued[0.675] and continued[0.675].EM
  if c and c.reached and not em.reached then
    wb.printf("paper claim met with the default solver (continuation where Newton fails), not "
              .. "with the paper's Newton alone: 'EM keeps stable even for h = 0.675': Newton "
              .. "from q^n fails at t = %.4g on a step that exists\n",
              em.newton_failure)
  end
end

---------------------------------------------------------------------------
-- Figures: |H - H0| / H0 against log t, so that blow-ups at t = 0.4 and
-- the behaviour up to T = 1000 are both visible; a cross ends each run
-- that stops.
---------------------------------------------------------------------------
local figures = {[0.01] = "Fig. 31", [0.05] = "Fig. 32", [0.25] = "Fig. 33", [0.675] = "Sect. 6.3"}
local notes = {[0.01] = "all stable",
               [0.05] = "VI-S, VI-B blow up at t = 0.4",
               [0.25] = "VI-S, VI-B at once, VI-A at t = 53-60",
               [0.675] = "VI-S, VI-B have no first step"}
local floor = 1e-17
local function error_series(run)
  local x, y = {}, {}
  for i = 2, #run.t do -- t = 0 has no place on a log axis
    x[#x + 1], y[#y + 1] = run.t[i], wb.max(math.abs(run.E[i] - E0) / E0, floor)
  end
  return x, y
end
for _, h in ipairs{0.01, 0.05, 0.25, 0.675} do
  local out, markers = {}, {}
  local function stop_marker(x, y, title, style) -- drawn last, over the curves
    markers[#markers + 1] = {x = {x[#x]}, y = {y[#y]}, title = title, with = "points",
                             style = style:gsub("lw [%d.]+", "lw 3") .. " pt 2 ps 3"}
  end
  for _, label in ipairs(labels) do
    local run, c = runs[h][label], continued[h] and continued[h][label]
    local x, y = error_series(run)
    if c and c.reached then -- the continuation's curve; the paper's Newton: where it stops
      local cx, cy = error_series(c)
      out[#out + 1] = {x = cx, y = cy, title = label .. " (continuation where Newton fails)",
                       style = common.style(label)}
      stop_marker(x, y, label .. ": the paper's Newton fails", common.style(label))
    elseif #x == 1 then -- one recorded step: the marker alone carries the name
      stop_marker(x, y, string.format("%s (stops at t = %g)", label, x[1]), common.style(label))
    elseif #x > 1 then
      out[#out + 1] = {x = x, y = y, title = label, style = common.style(label)}
      if not run.reached then stop_marker(x, y, "", common.style(label)) end
    end
  end
  for _, m in ipairs(markers) do out[#out + 1] = m end
  wb.plot{enhanced = true, file = string.format("plots/ggl/fp_stability_h%g.png", h), logscale = "xy",
          key = "outside right top", size = {1000, 560}, xrange = {math.max(1, math.floor(0.1 / h)) * h, horizon(h)},
          yrange = {floor, 1e4},
          title = string.format("four particles, h = %g (%s): %s; x: the run stops", h,
                                figures[h], notes[h]),
          xlabel = "t", ylabel = "|H - H_0| / H_0 (zeros at 1e-17)", series = out}
end

---------------------------------------------------------------------------
-- Claims
---------------------------------------------------------------------------
local function stable_detail(run)
  return string.format("%s; max %.3g, first half %.3g, second half %.3g", cell(run),
                       run.energy_error, run.first_half or 0 / 0, run.second_half or 0 / 0)
end
for _, h in ipairs{0.01, 0.04} do
  for _, label in ipairs(labels) do
    local run = runs[h][label]
    wb.check(run.stable, string.format("h = %g: %s stable to T = %g (|H - H0| / H0 at "
                                       .. "round-off, or < 0.5 without drift)", h, label, horizon(h)), stable_detail(run))
  end
end
for _, label in ipairs{"VI-S", "VI-B"} do
  local run, c = runs[0.05][label], continued[0.05][label]
  wb.check(run.blow_up ~= nil and run.blow_up < 1 and c ~= nil and not c.reached
           and c.blow_up ~= nil and c.blow_up < 1,
           "h = 0.05: " .. label .. " blows up within the first second, and its continuation "
           .. "ends too: the scheme, not the solver (Fig. 32)", cell(run) .. " / " .. cell(c))
end
for _, label in ipairs{"VI-A", "EM"} do
  local run = runs[0.05][label]
  wb.check(run.stable, string.format("h = 0.05: %s stable to T = %g", label, horizon(0.05)),
           stable_detail(run))
end
do
  local run, c = runs[0.25]["VI-A"], continued[0.25]["VI-A"]
  wb.expect_in(run.blow_up or math.huge, 49.5, 60.5,
               "h = 0.25: VI-A, first |H - H0| > 10 H0 at about t = 55 (+-10 %; Fig. 33)")
  wb.expect_in(run.sustained or math.huge, 49.5, 60.5,
               "h = 0.25: VI-A, |H - H0| > 10 H0 for good from about t = 55 (+-10 %)")
  wb.expect_in(run.newton_failure or math.huge, 49.5, 60.5,
               "h = 0.25: VI-A, Newton fails at about t = 55 (+-10 %)")
  wb.check(c ~= nil and not c.reached and c.newton_failure < 60.5,
           "h = 0.25: VI-A's continuation ends too: the scheme blows up, not the solver",
           cell(c))
  local em = runs[0.25]["EM"]
  wb.check(em.stable, string.format("h = 0.25: EM stable to T = %g", T), stable_detail(em))
  wb.expect_below(em.energy_error, 1e-10, "h = 0.25: EM's energy at round-off")
end
do
  local em, c = runs[0.675]["EM"], continued[0.675] and continued[0.675]["EM"]
  wb.check(not em.reached and em.blow_up == nil,
           "h = 0.675: with the paper's Newton EM stops (Newton fails, no energy blow-up)",
           cell(em))
  wb.check(c ~= nil and c.reached and c.stable,
           "h = 0.675: EM stable to T = 1000: the step where the paper's Newton fails exists "
           .. "(continuation solves it): the solver failed, not the scheme",
           c and stable_detail(c) or "no continuation run")
  if c then
    wb.expect_below(c.energy_error, 1e-10,
                    "h = 0.675: EM with continuation, |H - H0| / H0 at round-off to T = 1000")
    wb.expect_below(c.constraint, 1e-12, "h = 0.675: EM with continuation, g(q^n) = 0 to T = 1000")
    wb.check((c.hard_steps or 0) > 0 and c.hard_steps < 0.1 * c.steps,
             "h = 0.675: Newton from q^n fails on a few of EM's steps (> 0, < 10 %)",
             string.format("%s of %d", tostring(c.hard_steps), c.steps))
  end
  local emg = continued[0.675] and continued[0.675]["EM-G"]
  wb.check(emg == nil or (emg.reached and emg.stable),
           "h = 0.675: EM-G stable to T = 1000 (with continuation where Newton fails)",
           emg and stable_detail(emg) or stable_detail(runs[0.675]["EM-G"]))
  for _, label in ipairs{"VI-S", "VI-B"} do
    local run, cc = runs[0.675][label], continued[0.675][label]
    wb.check(run.newton_failure == 0 and cc ~= nil and cc.newton_failure == 0
             and cc.branch_end ~= nil and cc.branch_end < 0.675,
             "h = 0.675: " .. label .. " has no first step: its branch of solutions ends before "
             .. "h = 0.675", cell(cc))
  end
  local via = runs[0.675]["VI-A"]
  wb.check(via.blow_up ~= nil and via.blow_up < 10, "h = 0.675: VI-A blows up at once", cell(via))
end
