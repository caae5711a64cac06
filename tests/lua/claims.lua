-- The driver checks what each method claims of every step it accepts
-- (core/src/run/claims.c), whatever the method's own acceptance test said
-- (issue 25).  Each section failed on 348b971, where every run below
-- reported ok or ran on.
local function refused(sol, claim)
  return not sol.ok and sol.failure ~= nil and sol.failure:find(claim, 1, true) ~= nil
end

---------------------------------------------------------------------------
-- nonholonomic.lobatto on the nonholonomic particle at coarse steps: its
-- Newton test judged Phi against sum_j |A_aj| max|v|, which the
-- unconstrained vy inflated, and it accepted |Phi| = 0.158 (65 % of its
-- terms |vz| + |y vx|) at h = 3, 1.75e18 at h = 5.
---------------------------------------------------------------------------
local particle = wb.model("nonholonomic_particle")
for _, options in ipairs{{}, {s = 2}, {retraction = "exp"}} do
  local method = wb.method("nonholonomic.lobatto", options)
  local label = "lobatto" .. (options.s and " s = 2" or options.retraction and " exp" or "")
  for _, h in ipairs{3, 5, 8} do
    local sol = wb.integrate{model = particle, method = method, h = h, steps = 100,
                             on_failure = "stop", progress = false}
    wb.check(refused(sol, "nonholonomic.lobatto accepted a state that breaks its claim "
                          .. "Phi(q, v) = 0: phi1 = "),
             string.format("%s, h = %g: the driver refuses the step that breaks Phi = 0", label, h),
             tostring(sol.failure))
    wb.check(sol:max("nonholonomic_constraint") < 1e-6,
             string.format("%s, h = %g: the rows it kept keep Phi = 0", label, h),
             string.format("max |Phi| %.3g over %d rows", sol:max("nonholonomic_constraint"),
                           #sol.t))
  end
end
-- the same run at h = 3 without the check: what 348b971 reported
do
  local sol = wb.integrate{model = particle, method = wb.method("nonholonomic.lobatto"), h = 3,
                           steps = 100, check_claims = false, progress = false}
  wb.check(sol.ok and sol:max("nonholonomic_constraint") > 0.1,
           "check_claims = false: the broken run goes through, as it did before the check",
           string.format("ok %s, max |Phi| %.3g", tostring(sol.ok),
                         sol:max("nonholonomic_constraint")))
end

---------------------------------------------------------------------------
-- Between recorded rows too: every = 1000 records only the first and the
-- last row, and the check still stops the run within 64 steps of the first
-- broken one.
---------------------------------------------------------------------------
do
  local method = wb.method("nonholonomic.lobatto", {s = 2})
  local every_step = wb.integrate{model = particle, method = method, h = 3, steps = 100,
                                  on_failure = "stop", progress = false}
  local sparse = wb.integrate{model = particle, method = method, h = 3, steps = 100,
                              every = 1000, on_failure = "stop", progress = false}
  local first = tonumber(every_step.failure:match("^step (%d+)"))
  local later = tonumber(sparse.failure and sparse.failure:match("^step (%d+)") or "")
  wb.check(refused(sparse, "breaks its claim Phi") and later and later >= first
           and later < first + 64,
           "every = 1000: the claim is checked between recorded rows (every 64 steps)",
           string.format("refused at step %s, with every = 1 at step %d", tostring(later), first))
  -- the final state is the last accepted one; the carried unknowns are
  -- gone with the refused step
  local q, p, aux = every_step:final()
  local qr, pr = every_step:state(#every_step.t)
  wb.check(aux == nil and q[2] == qr[2] and p[3] == pr[3],
           "sol:final() after a refused step: the last accepted q and p, aux nil",
           string.format("aux %s", tostring(aux)))
end

---------------------------------------------------------------------------
-- The other claims: the energy of a method that says it conserves it,
-- the group of a method that says it stays on it (tests/check_method/
-- false_claims.c); g and G M^-1 p: tests/plugins/bad_projection.lua and
-- bad_point.lua.
---------------------------------------------------------------------------
do
  local kepler = wb.model("kepler")
  local sol = wb.integrate{model = kepler, method = wb.method("false_claims.euler"), h = 0.01,
                           steps = 100, on_failure = "stop", progress = false}
  wb.check(refused(sol, "false_claims.euler accepted a state that breaks its claim energy "
                        .. "conserved: the energy went from -0.5000000000000002 to")
           and #sol.t == 1,
           "explicit Euler claiming energy conservation: its first step refused",
           tostring(sol.failure))
  local body = wb.model("free_rigid_body")
  sol = wb.integrate{model = body, method = wb.method("false_claims.drift"), h = 0.01,
                     steps = 100, on_failure = "stop", progress = false}
  wb.check(refused(sol, "false_claims.drift accepted a state that breaks its claim q on the "
                        .. "group: the group residual went from")
           and #sol.t == 1,
           "a method drifting off the group it claims to stay on: its first step refused",
           tostring(sol.failure))
  sol = wb.integrate{model = body, method = wb.method("false_claims.drift"), h = 0.01,
                     steps = 100, check_claims = false, progress = false}
  wb.check(sol.ok and sol:max("group_residual") > 1e-5,
           "check_claims = false: the drift runs on (what is measured without the check)",
           string.format("group residual %.3g", sol:max("group_residual")))
end

---------------------------------------------------------------------------
-- The check's own input: a boolean.
---------------------------------------------------------------------------
do
  local ok, err = pcall(wb.integrate, {model = particle, method = wb.method("nonholonomic.lobatto"),
                                       h = 0.1, steps = 1, check_claims = "no"})
  wb.check(not ok and tostring(err):find("field 'check_claims' must be true or false, got a string",
                                         1, true) ~= nil,
           "check_claims = 'no' is refused", tostring(err))
end

---------------------------------------------------------------------------
-- Found by a review of the check (each failed on its first version):
-- a loose tol gave a tolerance of 1000 tol = 1 (Phi all of its terms
-- passed); a start at rest took its floor from the first state judged,
-- which then set its own bound; and with no floor at rest, correct runs
-- were refused on round-off (G M^-1 p = 1.4e-17 against terms 2.8e-17).
---------------------------------------------------------------------------
do
  local sol = wb.integrate{model = particle, method = wb.method("nonholonomic.lobatto", {tol = 1e-3}),
                           h = 5, steps = 100, on_failure = "stop", progress = false}
  wb.check(refused(sol, "breaks its claim Phi(q, v) = 0"),
           "tol = 1e-3: the claim's tolerance stays below the residual's own size",
           tostring(sol.failure))
  sol = wb.integrate{model = particle, method = wb.method("nonholonomic.lobatto"), h = 5,
                     steps = 100, every = 100, q0 = {1, 0.5, 0}, p0 = {0, 0, 0},
                     on_failure = "stop", progress = false}
  wb.check(refused(sol, "breaks its claim Phi(q, v) = 0"),
           "a start at rest, every = 100: the broken state does not set its own floor",
           tostring(sol.failure))
  local rest = {
    {"double_spherical_pendulum", "classic.rattle", {0, 0, -1, 0, 0, -2}},
    {"pendulum_chain", "classic.rattle", {0, -1, 0, -2, 0, -3, 0, -4}},
    {"pendulum_chain", "spark.spark", {0, -1, 0, -2, 0, -3, 0, -4}},
    {"spherical_pendulum", "spark.spark", {0, 0, -1}},
    {"pendulum", "classic.rattle", {math.sin(1e-8), -math.cos(1e-8)}},
    {"pendulum", "spark.spark", {math.sin(1e-4), -math.cos(1e-4)}},
  }
  for _, case in ipairs(rest) do
    local p0 = {}
    for i = 1, #case[3] do p0[i] = 0 end
    local run = wb.integrate{model = wb.model(case[1]), method = wb.method(case[2]), h = 0.01,
                             steps = 500, every = 1, q0 = case[3], p0 = p0,
                             on_failure = "stop", progress = false}
    wb.check(run.ok, string.format("%s from rest (or near it), %s: its round-off is no broken "
                                   .. "claim", case[1], case[2]), tostring(run.failure))
  end
end
