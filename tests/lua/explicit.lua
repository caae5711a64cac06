-- Stormer-Verlet and RK4: orders on the unconstrained Kepler problem
-- (e = 0.5) and the planar pendulum's index-1 formulation; the structural
-- contrast with RATTLE on the constrained pendulum.
local kepler = wb.model("kepler", {e = 0.5})
local ladder = {0.02, 0.01, 0.005, 0.0025}

local verlet = wb.order{model = kepler, method = "verlet", t_end = 2, h = ladder,
                        reference = {h = 0.0025 / 16}}
wb.print_order(verlet, "Stormer-Verlet, Kepler e = 0.5")
wb.expect_in(verlet.order, 1.9, 2.1, "Stormer-Verlet order")

local rk4 = wb.order{model = kepler, method = "rk4", t_end = 2, h = ladder,
                     reference = {h = 0.0025 / 8}}
wb.print_order(rk4, "RK4, Kepler e = 0.5")
wb.expect_in(rk4.order, 3.8, 4.2, "RK4 order")

-- Verlet conserves angular momentum exactly for a central force and keeps
-- the energy bounded; RK4 drifts.
local long = wb.integrate{model = kepler, method = "verlet", h = 0.01, steps = 20000}
wb.expect_below(wb.drift(long:column("L")), 1e-12,
                "Verlet conserves angular momentum to round-off")
local first, last = wb.tenths(long:column("energy_error"))
wb.expect_below(last, 2 * first, "Verlet energy error bounded (last tenth <= 2 x first)")
local drift = wb.integrate{model = kepler, method = "rk4", h = 0.01, steps = 20000}
local d = drift:column("energy_error")
local function mean(t, a, b)
  local s = 0
  for i = a, b do s = s + t[i] end
  return s / (b - a + 1)
end
local tenth = #d // 10 -- the windows of wb.tenths
local early, late = mean(d, 1, tenth), mean(d, #d - tenth + 1, #d)
wb.check(math.abs(late) > 5 * math.abs(early), "RK4 energy drifts secularly (mean error grows ~linearly)",
         string.format("mean %.2e over t in [0, 20], %.2e over [180, 200]", early, late))

-- RK4 on the index-1 pendulum: order 4, constraints drift (not projected)
local pend = wb.model("pendulum")
local rk4p = wb.order{model = pend, method = "rk4", t_end = 1, h = {0.02, 0.01, 0.005},
                      reference = {h = 0.005 / 8}}
wb.expect_in(rk4p.order, 3.8, 4.2, "RK4 order on the index-1 pendulum")
local rk4run = wb.integrate{model = pend, method = "rk4", h = 0.01, t_end = 10}
local rattlerun = wb.integrate{model = pend, method = "rattle", h = 0.01, t_end = 10}
wb.check(rk4run:max("constraint") > 1e3 * rattlerun:max("constraint"),
         "RK4 drifts off the constraint, RATTLE stays on it",
         string.format("%.1e vs %.1e", rk4run:max("constraint"), rattlerun:max("constraint")))
