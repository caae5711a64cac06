-- check_method.lua -- wb.check_method and `workbench check-method`: a
-- method against the claims it makes (embedded in the binary).
--
--   local result = wb.check_method{method = "rattle", options = {tol = 1e-12},
--                                  models = {"pendulum"}, quick = true}
--   -- result.failures == 0 when every claim held
--
-- For every installed model the method applies to (or the models given),
-- from the model's default state and from a perturbed consistent one, each
-- claim of the method at these options is measured:
--
--   order            the fitted order of a ladder of step sizes against a
--                    reference of higher order (or the method at h/16)
--   symplectic       Psi^T J Psi = J for the Jacobian of one step, on the
--                    constraint manifold (vector-space models)
--   symmetric        a step with h, then -h, comes back
--   energy_conserving, momentum_conserving (each momentum map), the
--                    constraint levels at the nodes (g, G M^-1 p, Phi),
--                    staying on the group, explicit (no Newton iteration)
--   bounded energy   for symplectic and symmetric methods: the energy error
--                    of the last tenth of a long run within twice that of
--                    the first (no drift)
--   continuation     N + N steps from sol:final() equal 2N steps, bit for bit
--
-- Time and step sizes come from the model's own time scale at its state:
-- tau = min(|q| / |v|, sqrt(|q| / |M^-1 grad V|)) (1 / |xi| on a group).
local wb = ...

local format, abs, sqrt, huge = string.format, math.abs, math.sqrt, math.huge

local function norm(v) return wb.norm(v, "2") end

local function scale_of(v)
  local n = norm(v)
  return n > 0 and n or 1
end

-- the radius of curvature of the constraint manifold: |G_k| / |D^2 g_k|
-- over the constraints, D^2 g_k by central differences of the Jacobian
local function constraint_radius(model, q)
  if model.n_constraints == 0 then return huge end
  local ok, G = pcall(model.constraint_jacobian, model, q)
  if not ok then return huge end
  local n, radius = #q, huge
  local d = 1e-6 * scale_of(q)
  local second = {}
  for k = 1, model.n_constraints do second[k] = 0 end
  for j = 1, n do
    local plus, minus = {table.unpack(q)}, {table.unpack(q)}
    plus[j], minus[j] = q[j] + d, q[j] - d
    local Gp, Gm = model:constraint_jacobian(plus), model:constraint_jacobian(minus)
    for k = 1, model.n_constraints do
      for i = 1, n do second[k] = second[k] + ((Gp[k][i] - Gm[k][i]) / (2 * d)) ^ 2 end
    end
  end
  for k = 1, model.n_constraints do
    if second[k] > 0 then radius = math.min(radius, norm(G[k]) / sqrt(second[k])) end
  end
  return radius
end

-- the model's time scale at (q, p): the time to cross its length scale
-- (|q|, or the constraints' radius of curvature) at its speed, or to be
-- accelerated across it
local function time_scale(model, q, p)
  local ok, v = pcall(model.velocity, model, q, p)
  local speed = ok and norm(v) or 0
  if model.lie_group then return speed > 0 and 1 / speed or 1 end
  local tau = huge
  local size = math.min(scale_of(q), constraint_radius(model, q))
  if speed > 0 then tau = size / speed end
  local okg, grad = pcall(model.gradient, model, q)
  if okg then
    local okv, acc = pcall(model.velocity, model, q, grad)
    local a = okv and norm(acc) or 0
    if a > 0 then tau = math.min(tau, sqrt(size / a)) end
  end
  -- the fastest oscillation of the potential: |M^-1 D^2 V| >= omega^2
  local okh, H = pcall(model.hessian, model, q)
  if okh then
    local rho = 0
    for j = 1, #q do
      local column = {}
      for i = 1, #q do column[i] = H[i][j] end
      local okv, w = pcall(model.velocity, model, q, column)
      if okv then rho = rho + norm(w) ^ 2 end
    end
    if rho > 0 then tau = math.min(tau, 1 / rho ^ 0.25) end
  end
  return tau < huge and tau or 1
end

local function run(model, method, q0, p0, h, steps, extra)
  local spec = {model = model, method = method, q0 = q0, p0 = p0, h = h, steps = steps,
                every = 2 ^ 53, on_failure = "stop", progress = false,
                -- the claims are what is measured here: the driver must not refuse them
                check_claims = false}
  for k, v in pairs(extra or {}) do spec[k] = v end
  local ok, sol = pcall(wb.integrate, spec)
  if not ok then return nil, tostring(sol) end
  if not sol.ok then return nil, sol.failure, sol end
  return sol
end

local function state_of(sol) return wb.concat(sol:final()) end

-- a consistent state near (q, p): every position moved by a few per cent
-- of |q| and every velocity by a few per cent of the speed (through the
-- mass matrix, so that light and heavy bodies move alike), then projected
-- back onto the constraints; on a group only the momentum moves
local function perturbed(model, q, p)
  local q1, p1 = {}, {}
  if model.lie_group then
    local ps = scale_of(p)
    for i = 1, #q do q1[i] = q[i] end
    for i = 1, #p do p1[i] = p[i] + 0.05 * ps * math.cos(2.3 * i + 0.1) end
  else
    local qs = scale_of(q)
    local speed = scale_of(model:velocity(q, p))
    local dv = {}
    for i = 1, #q do
      q1[i] = q[i] + 0.03 * qs * math.sin(1.7 * i + 0.3)
      dv[i] = 0.05 * speed * math.cos(2.3 * i + 0.1)
    end
    local M = model:mass(q)
    for i = 1, #p do
      local s = p[i]
      for j = 1, #p do s = s + M[i][j] * dv[j] end
      p1[i] = s
    end
  end
  local ok, qc, pc = pcall(model.project, model, q1, p1)
  if not ok then return nil end
  return qc, pc
end

---------------------------------------------------------------------------
-- Reference methods of high order, the first that applies wins
---------------------------------------------------------------------------
local function reference_candidates()
  local list = {}
  local function add(name, options)
    local ok, m = pcall(wb.method, name, options)
    if ok then list[#list + 1] = m end
  end
  add("rk.rk", {tableau = wb.tableau.gauss(4)})
  -- a little above the round-off floor of its residual (1e-12 stalls at
  -- small steps on stiff models)
  add("spark.spark", {s = 5, tol = 1e-11})
  add("nonholonomic.lobatto", {s = 6})
  add("classic.rkmk4")
  return list
end

-- the final state of a run of the first candidate of higher order that
-- applies and runs, else of the method itself at a sixteenth of the step
local function reference_state(model, method, q0, p0, t_end, steps)
  for _, ref in ipairs(reference_candidates()) do
    if ref:describe_for(model).order >= method:describe_for(model).order + 2
       and ref:applies_to(model) then
      for _, factor in ipairs{2, 4} do
        local sol = run(model, ref, q0, p0, t_end / (factor * steps), factor * steps)
        if sol then return state_of(sol), format("%s at h/%d", ref.name, factor) end
      end
    end
  end
  local sol = run(model, method, q0, p0, t_end / (16 * steps), 16 * steps)
  if sol then return state_of(sol), "itself at h/16" end
  return nil
end

---------------------------------------------------------------------------
-- The measurements
---------------------------------------------------------------------------
-- One ladder over [0, t_end]: the step sizes and the relative errors of
-- the runs that succeeded, and the reference's name.
local function ladder(model, method, q0, p0, t_end, counts)
  local xref, ref_name = reference_state(model, method, q0, p0, t_end, counts[#counts])
  if not xref then return nil, "no reference run succeeded" end
  local hs, errors = {}, {}
  for _, n in ipairs(counts) do
    local sol = run(model, method, q0, p0, t_end / n, n)
    if sol then
      hs[#hs + 1] = t_end / n
      errors[#errors + 1] = wb.norm(wb.sub(state_of(sol), xref)) / scale_of(xref)
    end
  end
  return hs, errors, ref_name
end

-- The fitted order over [0, tau] with tau / 16 ... tau / 64 (128): where the
-- errors are at round-off the interval grows, four times at a time
local function measure_order(model, method, q0, p0, tau, quick)
  local counts = quick and {16, 32, 64} or {16, 32, 64, 128}
  local floor = 1e-11
  local t_end, hs, errors, ref_name = tau
  for _ = 1, 4 do
    hs, errors, ref_name = ladder(model, method, q0, p0, t_end, counts)
    if not hs then return nil, errors end
    local above = 0
    for _, e in ipairs(errors) do if e > floor then above = above + 1 end end
    if above >= #counts - 1 then break end
    t_end = 4 * t_end
  end
  if #hs < 2 then return nil, "fewer than two step sizes of the ladder ran" end
  local order, used = wb.fit_order(hs, errors, floor)
  if used < 2 then
    return nil, format("errors at round-off (%.1e) even over %.3g: the ladder cannot show an order",
                       errors[1], t_end)
  end
  local shown = {}
  for i, e in ipairs(errors) do shown[i] = format("%.1e", e) end
  return order, format("errors %s at h = %.3g/%d.., reference %s", table.concat(shown, ", "),
                       t_end, counts[1], ref_name)
end

-- the coordinate directions of (q, p), each scaled to 1e-3 of its block's
-- size; the perturbed points are projected back onto the constraints, so
-- their images span the manifold's tangent space
local function directions(model, q, p, relative)
  local n = #q
  -- positions moved by a fraction of |q|, each momentum by its own mass
  -- times that fraction of the speed: bodies of very different masses
  -- (the solar system) move alike
  local M = model:mass(q)
  local speed = scale_of(model:velocity(q, p))
  local dirs = {}
  for j = 1, 2 * n do
    local e = {}
    for i = 1, 2 * n do e[i] = 0 end
    e[j] = j <= n and relative * scale_of(q) or relative * M[j - n][j - n] * speed
    dirs[j] = e
  end
  return dirs
end

-- Psi^T J Psi = J restricted to the constraint manifold: for projected
-- directions xi_i (central differences of the projection) and their
-- images Psi xi_i (central differences of the step), Richardson-
-- extrapolated, the defect max |w(Psi xi_i, Psi xi_j) - w(xi_i, xi_j)|
-- relative to the largest w(xi_i, xi_j)
local function symplectic_defect(model, method, q, p, h, relative)
  local n = #q
  local x = wb.concat(q, p)
  local delta = 1
  local function split(y)
    local a, b = {}, {}
    for i = 1, n do a[i], b[i] = y[i], y[n + i] end
    return a, b
  end
  local failure
  local function projected(y)
    local qa, pa = split(y)
    local ok, qc, pc = pcall(model.project, model, qa, pa)
    if not ok then failure = tostring(qc) return nil end
    return wb.concat(qc, pc)
  end
  local function step(y)
    local qa, pa = split(y)
    local sol, why = run(model, method, qa, pa, h, 1)
    if not sol then failure = why return nil end
    return state_of(sol)
  end
  -- D f(x) d by central differences, Richardson-extrapolated
  local function derivative(f, d)
    local function central(eps)
      local plus, minus = {}, {}
      for i = 1, 2 * n do plus[i], minus[i] = x[i] + eps * d[i], x[i] - eps * d[i] end
      local fp, fm = f(plus), f(minus)
      if not fp or not fm then return nil end
      local out = {}
      for i = 1, 2 * n do out[i] = (fp[i] - fm[i]) / (2 * eps) end
      return out
    end
    local coarse, fine = central(delta), central(delta / 2)
    if not coarse or not fine then return nil end
    local out = {}
    for i = 1, 2 * n do out[i] = (4 * fine[i] - coarse[i]) / 3 end
    return out
  end
  local composite = function(y)
    local yp = projected(y)
    return yp and step(yp)
  end
  local xi, psi = {}, {}
  for j, d in ipairs(directions(model, q, p, relative)) do
    xi[j] = derivative(projected, d)
    psi[j] = derivative(composite, d)
    if not xi[j] or not psi[j] then return nil, failure end
  end
  -- w(a, b) and the sum of its terms' sizes (what round-off is relative to)
  local function omega(a, b)
    local s, size = 0, 0
    for i = 1, n do
      local u, v = a[i] * b[n + i], a[n + i] * b[i]
      s, size = s + u - v, size + abs(u) + abs(v)
    end
    return s, size
  end
  -- each pair's defect relative to the size of its terms; pairs whose
  -- terms are all tiny next to the largest are round-off only
  local sizes, largest = {}, 0
  for i = 1, #xi do
    sizes[i] = {}
    for j = i + 1, #xi do
      local _, s0 = omega(xi[i], xi[j])
      local _, s1 = omega(psi[i], psi[j])
      sizes[i][j] = math.max(s0, s1)
      largest = math.max(largest, sizes[i][j])
    end
  end
  local defect = 0
  for i = 1, #xi do
    for j = i + 1, #xi do
      local size = sizes[i][j]
      if size > 1e-8 * largest then
        local w1 = omega(psi[i], psi[j])
        local w0 = omega(xi[i], xi[j])
        defect = wb.max(defect, abs(w1 - w0) / size)
      end
    end
  end
  return defect
end

-- The defect is truncation (shrinking with the perturbation) plus the
-- solver's noise (growing as it shrinks): the least over three sizes.  A
-- method that is not symplectic has a defect no perturbation size removes.
local function measure_symplectic(model, method, q, p, h)
  local best, why
  for _, relative in ipairs{1e-2, 1e-3, 1e-4} do
    local d, w = symplectic_defect(model, method, q, p, h, relative)
    if d and (not best or d < best) then best = d end
    why = why or w
  end
  return best, why
end

local function measure_symmetric(model, method, q, p, h)
  local there, why = run(model, method, q, p, h, 1)
  if not there then return nil, why end
  local q1, p1 = there:final()
  local back, why2 = run(model, method, q1, p1, -h, 1)
  if not back then return nil, why2 end
  local x0 = wb.concat(q, p)
  return wb.norm(wb.sub(state_of(back), x0)) / scale_of(x0)
end

local function measure_continuation(model, method, q, p, h, steps)
  local whole, why = run(model, method, q, p, h, 2 * steps)
  if not whole then return nil, why end
  local half = run(model, method, q, p, h, steps)
  if not half then return nil, "the first half failed" end
  local qh, ph, aux = half:final()
  local rest = run(model, method, qh, ph, h, steps, {t0 = half.t_final, aux0 = aux})
  if not rest then return nil, "the continued half failed" end
  local a, b = state_of(whole), state_of(rest)
  local differ = 0
  for i = 1, #a do
    if a[i] ~= b[i] then differ = differ + 1 end
  end
  return differ
end

-- H and g polynomials of degree <= 2 (then a line-integral method's
-- quadrature is exact): sixth differences of V along a few lines vanish
-- relative to V's size, the mass is constant and the constraints declared
-- quadratic
local function quadratic_model(model, q)
  if model.lie_group or not model.mass_constant then return false end
  if model.n_constraints > 0 then
    local ok, g = pcall(model.constraints, model, q)
    if not ok then return false end
  end
  local size = scale_of(q)
  for line = 1, 3 do
    local d = {}
    for i = 1, #q do d[i] = size * 0.2 * math.sin(1.3 * i * line + line) end
    local values = {}
    for k = 0, 3 do
      local y = {}
      for i = 1, #q do y[i] = q[i] + k * d[i] end
      local ok, v = pcall(model.potential, model, y)
      if not ok then return false end
      values[k + 1] = v
    end
    local third = values[4] - 3 * values[3] + 3 * values[2] - values[1]
    local magnitude = 0
    for _, v in ipairs(values) do magnitude = math.max(magnitude, abs(v)) end
    if abs(third) > 1e-9 * math.max(magnitude, 1e-300) then return false end
  end
  return model.n_constraints == 0 or model.constraints_quadratic
end

---------------------------------------------------------------------------
-- One model: every claim, as rows {model, state, property, claimed,
-- measured, verdict, note}
---------------------------------------------------------------------------
local function check_model_claims(method, model, spec, add, note)
  -- the claims on this model (an order may depend on the model)
  local described = method:describe_for(model)
  local props, tol, claimed_order = described.properties, spec.tol, described.order
  local q0, p0 = model:initial()
  local states = {{"default", q0, p0}}
  local qp, pp = perturbed(model, q0, p0)
  if qp then states[2] = {"perturbed", qp, pp} end
  -- a method may refuse a model it claims to handle only when it is set up
  local first, refusal = run(model, method, q0, p0, 1e-3 * time_scale(model, q0, p0), 1)
  if not first and refusal and refusal:find("could not be set up", 1, true) then
    return refusal
  end
  local long_steps = spec.quick and 2000 or 20000
  -- the model's time scale, shortened (by 4 at a time) while the method
  -- cannot run at tau / 16 from the default state: constraint forces and
  -- stiff springs set time scales the state alone does not show
  local tau = time_scale(model, q0, p0)
  for _ = 1, 4 do
    if run(model, method, q0, p0, tau / 16, 64) then break end
    tau = tau / 4
  end
  local h = tau / 16

  -- the order, from the default state
  if claimed_order > 0 then
    local order, note = measure_order(model, method, q0, p0, tau, spec.quick)
    if not order then
      add("default", "order", claimed_order, "-", false, note)
    else
      local ok = order >= claimed_order - 0.3
      local verdict_note = note
      if ok and order > claimed_order + 0.7 then
        verdict_note = format("above the claim: the order depends on the model, which the "
                              .. "method does not say (describe_model); %s", note)
      end
      add("default", "order", claimed_order, format("%.2f", order), ok, verdict_note)
    end
  end

  for _, s in ipairs(states) do
    local label, q, p = s[1], s[2], s[3]
    local sol, why, partial = run(model, method, q, p, h, long_steps, {every = 1})
    if not sol and partial and #partial >= 100 then
      -- the claims hold or not on the steps it took; the stop is reported
      note(label, format("stopped after %d of %d steps: %s", #partial - 1, long_steps, why))
      sol = partial
    elseif not sol then
      note(label, format("the run of %d steps could not start or stopped early: %s",
                         long_steps, why))
    end
    if sol then
      local steps = #sol - 1
      local function bound(property, column, claimed_text)
        local value = sol:max(column)
        add(label, property, claimed_text or "yes", format("%.1e", value), value <= tol,
            format("max %s over %d steps, tolerance %.0e", column, steps, tol))
      end
      if props.position_constraint and model.n_constraints > 0 then bound("position_constraint", "constraint") end
      if props.velocity_constraint and model.n_constraints > 0 then bound("velocity_constraint", "hidden_constraint") end
      if props.nonholonomic_constraint and model.n_nonholonomic > 0 then
        bound("nonholonomic_constraint", "nonholonomic_constraint")
      end
      -- the driver's column: |E - E0| relative to the run's energy scale,
      -- max(|E0|, |T0| + |V0|) (E0 may vanish); absolute when that scale is 0
      local energy_error = sol:column("energy_error")
      local function bound_energy(property, claimed_text)
        local value = wb.max_abs(energy_error)
        add(label, property, claimed_text or "yes", format("%.1e", value), value <= tol,
            format("max |E - E0| / max(|E0|, |T0| + |V0|) over %d steps, tolerance %.0e", steps, tol))
      end
      if props.energy_conserving then bound_energy("energy_conserving") end
      if props.lie_group and model.lie_group then
        local value = sol:max("group_residual")
        add(label, "lie_group", "yes", format("%.1e", value), value <= 1e-11,
            "max group residual, tolerance 1e-11")
      end
      if props.conserving_if_polynomial and quadratic_model(model, q) then
        bound_energy("conserving_if_polynomial", "H quadratic")
        if model.n_constraints > 0 then bound("conserving_if_polynomial", "constraint", "g quadratic") end
      end
      if props.momentum_conserving then
        for i, name in ipairs(model.invariant_names) do
          if model:generator(i, q) then
            local column = sol:column(name)
            local drift = wb.drift(column) / math.max(1, abs(column[1]))
            add(label, "momentum_conserving", name, format("%.1e", drift), drift <= tol,
                format("drift of the momentum map %s over %d steps", name, steps))
          end
        end
      end
      if (props.symplectic or props.symmetric) and not props.energy_conserving then
        -- bounded: the running maximum of |E - E0| saturates.  R(T) / R(T/2)
        -- near 1 is bounded; near 2 over two doublings is a linear drift; a
        -- slow oscillation of the error looks like growth until the run
        -- covers it, so the run is lengthened (4 times) before judging
        local function growth(e)
          local n = #e
          local function R(k) return wb.max_abs(e, 1, math.max(1, k)) end
          return R(n) / R(n // 2), R(n // 2) / R(n // 4), R(n)
        end
        local floor = 1e-10
        local r1, _, top = growth(energy_error)
        local verdict, measured, why
        if top <= floor or r1 <= 1.5 then
          verdict, measured = true, format("R(T)/R(T/2) %.2f", r1)
          why = format("running max of |E - E0| / max(|E0|, |T0| + |V0|) saturates (%.1e) over %d steps",
                       top, steps)
        else
          local long = run(model, method, q, p, h, 4 * steps, {every = 4})
          if long then
            local e = long:column("energy_error")
            local r2, r3, top2 = growth(e)
            measured = format("%.2f, %.2f", r3, r2)
            why = format("R(T)/R(T/2) over the last two doublings of %d steps (max %.1e)",
                         4 * steps, top2)
            if top2 <= floor or r2 <= 1.5 then
              verdict = true
            elseif r2 >= 1.8 and r3 >= 1.8 then
              verdict = false
              why = "grows linearly: " .. why
            end
          end
        end
        if verdict == nil then
          note(label, "bounded energy not judged: the energy error has not settled within "
                      .. (measured and (4 * steps .. " steps (growth " .. measured .. ")") or "the run"))
        else
          add(label, "bounded_energy", "no drift", measured, verdict, why)
        end
      end
      if props.explicit then
        local n = sol.stats.newton_iterations
        add(label, "explicit", "yes", format("%d Newton", n), n == 0, "iterations over the run")
      end
    end
    if props.symmetric then
      local defect, why2 = measure_symmetric(model, method, q, p, h)
      if defect then
        add(label, "symmetric", "yes", format("%.1e", defect), defect <= tol,
            "|Phi_-h(Phi_h(x)) - x| / |x|")
      else
        note(label, "symmetry not measured: " .. tostring(why2))
      end
    end
    if props.symplectic and not model.lie_group and model.n_nonholonomic == 0 then
      -- at a long step (tau / 2, else tau / 4 or tau / 16), where a method
      -- that is not symplectic shows a defect of O((h / tau)^(p+1)) well
      -- above the differences' noise
      local defect, why2
      for _, factor in ipairs{8, 4, 1} do
        defect, why2 = measure_symplectic(model, method, q, p, factor * h)
        if defect then break end
      end
      if defect then
        add(label, "symplectic", "yes", format("%.1e", defect), defect <= spec.symplectic_tol,
            "max |w(Psi xi, Psi eta) - w(xi, eta)| relative to its terms, on the constraints")
      else
        note(label, "symplecticity not measured: " .. tostring(why2))
      end
    end
    local differ, why3 = measure_continuation(model, method, q, p, h, spec.quick and 20 or 100)
    if differ then
      add(label, "continuation", "bitwise", format("%d differ", differ), differ == 0,
          "N + N steps from sol:final() vs 2N steps")
    else
      note(label, "continuation not measured: " .. tostring(why3))
    end
  end
end

---------------------------------------------------------------------------
-- wb.check_method
---------------------------------------------------------------------------
local function options_text(method)
  local keys = {}
  for k in pairs(method.options) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do parts[#parts + 1] = format("%s = %s", k, tostring(method.options[k])) end
  return table.concat(parts, ", ")
end

local fields = {method = true, options = true, models = true, quick = true, tol = true,
                symplectic_tol = true, print = true, progress = true}

function wb.check_method(spec)
  local level = wb._user_level and wb._user_level() or 2
  if type(spec) == "string" then spec = {method = spec} end
  if type(spec) ~= "table" then error("wb.check_method: give {method = name or wb.method, ...}", level) end
  for k in pairs(spec) do
    if not fields[k] then
      error(format("wb.check_method: unknown field '%s' (fields: method, options, models, quick, "
                   .. "tol, symplectic_tol, print, progress)", tostring(k)), level)
    end
  end
  local method = spec.method
  if type(method) == "string" then method = wb.method(method, spec.options) end
  if type(method) ~= "userdata" then error("wb.check_method: field 'method' must be a method or its name", level) end
  local cfg = {tol = spec.tol or 1e-8, symplectic_tol = spec.symplectic_tol or 1e-5,
               quick = spec.quick == nil and wb.quick or spec.quick}
  -- a progress line on a terminal, cleared before each printed row
  local update, clear = function() end, function() end
  local say = spec.print == false and function() end
              or function(...) clear() io.write(format(...)) io.flush() end
  -- every installed model the method applies to; a model named in
  -- spec.models that it does not apply to is reported, never dropped
  local models, not_applicable = {}, {}
  for _, name in ipairs(spec.models or wb.list_models()) do
    local m = type(name) == "string" and wb.model(name) or name
    local applies, why = method:applies_to(m)
    if applies then
      local ok, err = pcall(m.initial, m)
      if ok then models[#models + 1] = m else why = "no initial state: " .. tostring(err) end
      applies = ok
    end
    if not applies and spec.models then
      not_applicable[#not_applicable + 1] = {model = m.name, reason = why}
    end
  end
  if spec.models and #models == 0 then
    local reasons = {}
    for _, s in ipairs(not_applicable) do reasons[#reasons + 1] = s.reason end
    error(format("%s applies to none of the models given: %s", method.name,
                 table.concat(reasons, "; ")), level)
  end
  local claims = {}
  for k, v in pairs(method.properties) do if v then claims[#claims + 1] = k end end
  table.sort(claims)
  say("check-method %s (%s): order %d, claims %s\n", method.name, options_text(method),
      method.order, #claims > 0 and table.concat(claims, ", ") or "nothing")
  say("  %-26s %-10s %-22s %-12s %-16s %s\n", "model", "state", "property", "claimed",
      "measured", "verdict")
  local result = {method = method.name, rows = {}, failures = 0, checked = 0, models = {},
                  skipped = {}}
  for _, s in ipairs(not_applicable) do
    result.skipped[#result.skipped + 1] = s
    say("  %-26s %-10s not applicable: %s\n", s.model, "-", s.reason)
  end
  update, clear = wb._progress("check-method " .. method.name, #models, spec.progress)
  for index, m in ipairs(models) do
    update(index, m.name)
    result.models[#result.models + 1] = m.name
    local started = wb.clock()
    local function note(state, text)
      result.rows[#result.rows + 1] = {model = m.name, state = state, property = "note", note = text}
      say("  %-26s %-10s note: %s\n", m.name, state, text)
    end
    local ok, err = pcall(check_model_claims, method, m, cfg,
      function(state, property, claimed, measured, pass, note)
        local row = {model = m.name, state = state, property = property, claimed = claimed,
                     measured = measured, ok = pass, note = note}
        result.rows[#result.rows + 1] = row
        result.checked = result.checked + 1
        if not pass then result.failures = result.failures + 1 end
        say("  %-26s %-10s %-22s %-12s %-16s %s%s\n", m.name, state, property, tostring(claimed),
            tostring(measured), pass and "ok" or "FAIL",
            (not pass or (note and note:find("above the claim", 1, true))) and note and ("  (" .. note .. ")") or "")
      end, note)
    if ok and err then
      result.skipped[#result.skipped + 1] = {model = m.name, reason = err}
      say("  %-26s %-10s not applicable: %s\n", m.name, "-", err)
    elseif not ok then
      result.failures = result.failures + 1
      result.rows[#result.rows + 1] = {model = m.name, property = "error", ok = false, note = tostring(err)}
      say("  %-26s %-10s %-22s FAIL  (%s)\n", m.name, "-", "error", tostring(err))
    end
    if wb.clock() - started > 30 then
      say("  (%s took %.0f s)\n", m.name, wb.clock() - started)
    end
  end
  clear()
  say("%s: %d claim(s) checked on %d model(s), %d failed\n", method.name, result.checked,
      #models + #not_applicable - #result.skipped, result.failures)
  return result
end

-- the measurements, for tests and for scripts that want one of them
wb._method_measurements = {time_scale = time_scale, symplectic_defect = symplectic_defect,
                           symplectic = measure_symplectic, symmetric = measure_symmetric,
                           order = measure_order, continuation = measure_continuation,
                           perturbed = perturbed}
