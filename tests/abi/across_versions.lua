-- Plugins of other minor versions under this host: a model and a family
-- built against the ABI 1.0 headers, and a model and a family whose array
-- elements carry members of a later minor version.

-- 1. ABI 1.0: parameters, check-model's view, integration, aux columns.
local osc = wb.model("v1_0_oscillator", {k = 4})
wb.expect_near(osc.params.m, 2, 0, "1.0 model: default parameter m read with the 1.0 stride")
wb.expect_near(osc.params.k, 4, 0, "1.0 model: parameter k set")
local euler = wb.method("v1_0_family.euler", {scale = 1, order = "drift_kick", label = "x"})
wb.check(euler.options.order == "drift_kick" and euler.options.label == "x",
         "1.0 method: choice and string options set through 1.0 option specs")
local ok, err = pcall(wb.method, "v1_0_family.euler", {scale = 0})
wb.check(not ok and tostring(err):find("scale 0 makes no step", 1, true),
         "1.0 method: its validate() runs: " .. tostring(err))
local sol = wb.integrate{model = osc, method = euler, h = 0.01, steps = 1000}
wb.expect_below(sol:max("energy_error"), 0.05, "1.0 on 1.0: symplectic Euler keeps the energy")
wb.expect_below(math.abs(sol:column("L")[1001] - sol:column("L")[1]), 1e-13,
                "1.0 on 1.0: angular momentum conserved")
local v = sol:column("drift_v1")
wb.check(v[1] ~= v[1] and v[2] == v[2], "1.0 aux column recorded, NaN before the first interval")
local q, p, aux = sol:final()
wb.check(aux.drift_v and #aux.drift_v == 2, "1.0 method: sol:final() returns its aux")
ok, err = pcall(wb.integrate, {model = osc, method = euler, h = 0.01, steps = 10, q0 = q,
                               p0 = p, aux0 = aux})
wb.check(not ok and tostring(err):find("built against ABI 1.0 and cannot continue", 1, true),
         "1.0 method: aux0 refused with the reason: " .. tostring(err))
local gauss = wb.integrate{model = osc, method = wb.method("rk", {tableau = "gauss2"}),
                           h = 0.1, steps = 100}
wb.expect_below(gauss:max("energy_error"), 1e-6, "1.1 method on the 1.0 model (Gauss 2)")
local kepler = wb.integrate{model = wb.model("kepler"), method = euler, h = 1e-3, steps = 100}
wb.check(kepler.ok, "1.0 method on a 1.1 model")

-- 2. A later minor version's larger array elements.
local fosc = wb.model("future_oscillator")
wb.expect_near(fosc.params.k, 8, 0, "1.2 model: parameters read with its element size")
wb.expect_near(fosc:energy({1}, {0}), 4, 1e-15, "1.2 model: k reaches the model")
local fe = wb.method("future.euler", {gain = 2.5, kind = "fancy"})
wb.check(fe.options.tol == 1e-9 and fe.options.kind == "fancy" and fe.options.gain == 2.5,
         "1.2 method: defaults and values read with its option spec size")
local fs = wb.integrate{model = fosc, method = fe, h = 0.01, steps = 10}
wb.expect_near(fs:column("seen")[11], 2.5, 0,
               "1.2 method: option values handed over in its element size, unknown member 0")
wb.check(fs:column("v")[2] == fs:column("v")[2], "1.2 method: its aux specs read in stride")

-- 3. An extension id the host does not know, through the model view.
local damped = wb.integrate{model = fosc, method = "future.damped", h = 0.01, steps = 10}
wb.expect_near(damped:column("c")[11], 0.125, 0, "view passthrough: test.damping/1 reached")
ok, err = pcall(wb.integrate, {model = wb.model("kepler"), method = "future.damped", h = 0.01,
                               steps = 1})
wb.check(not ok and tostring(err):find("test.damping/1", 1, true),
         "a model without the unknown id is refused, naming it: " .. tostring(err))

-- 4. An aux unknown at a fraction of the step, and start() given h.
do
  local alpha, h = 0.3, 0.02
  local st = wb.method("future.staggered", {alpha = alpha})
  local q0, p0 = {1.0}, {0.7}
  local s = wb.integrate{model = fosc, method = st, h = h, steps = 5, q0 = q0, p0 = p0}
  local t, tq = s.t, s:times("qbar")
  local ok_times = true
  for i = 1, #t do ok_times = ok_times and math.abs(tq[i] - (t[i] + alpha * h)) < 1e-15 end
  wb.check(ok_times, "sol:times: a WB_AUX_AT_OFFSET column belongs to t + alpha h")
  -- qbar at t0 = q0 + alpha h M^-1 p0, computed at start() from the run's h
  local v0 = fosc:velocity(q0, p0)[1]
  wb.expect_near(s:column("qbar")[1], q0[1] + alpha * h * v0, 1e-15,
                 "start() receives the run's h: the first staggered point")
  local q, p, aux = s:final()
  local more = wb.integrate{model = fosc, method = st, h = h, steps = 5, q0 = q, p0 = p,
                            aux0 = aux, t0 = s.t_final}
  local whole = wb.integrate{model = fosc, method = st, h = h, steps = 10, q0 = q0, p0 = p0}
  wb.check(more:final() and select(3, more:final()).qbar[1] == select(3, whole:final()).qbar[1],
           "the staggered point continues exactly through aux0")
end
