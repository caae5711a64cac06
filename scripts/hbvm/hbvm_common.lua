-- Shared helpers of the line-integral (HBVM) reproduction scripts in this
-- folder: agreement with the paper's printed numbers, convergence rates,
-- the per-table error metrics, table printing, and the exact solution of
-- the planar pendulum.  Not a reproduction by itself; a script loads it
-- with
--
--   package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
--   local common = require "hbvm_common"
local common = {}

local format, abs, floor, log = string.format, math.abs, math.floor, math.log

---------------------------------------------------------------------------
-- Agreement with the paper
---------------------------------------------------------------------------

-- |ours - paper| in units of half the second significant digit of the
-- paper's value: <= 1 means the two agree to two significant digits.
function common.margin(ours, paper)
  local unit = 10 ^ (floor(log(abs(paper), 10)) - 1)
  return abs(ours - paper) / (0.5 * unit)
end

-- One check per column: every paper entry above `floor` (1e-9) agrees
-- with ours to two significant digits.  labels[i] names row i.
function common.check_column(what, ours, paper, labels, floor_value)
  floor_value = floor_value or 1e-9
  local used, worst, worst_i = 0, -1, nil
  for i, p in ipairs(paper) do
    if p > floor_value and ours[i] then
      used = used + 1
      local m = common.margin(ours[i], p)
      if not (m <= worst) then worst, worst_i = m, i end
    end
  end
  local detail = used == 0 and "no entries"
    or format("%d entries; worst %s: %.4e vs paper %.4e, %.2f%% apart, margin %.2f of 1",
              used, labels[worst_i], ours[worst_i], paper[worst_i],
              100 * abs(ours[worst_i] - paper[worst_i]) / paper[worst_i], worst)
  return wb.check(used > 0 and worst <= 1,
                  what .. ": every entry above 1e-9 agrees with the paper to 2 digits", detail)
end

-- Least-squares order of errs against hs over the entries above
-- floor_value, for ours and for the paper's column (same rows); checks
-- that they agree within tol and that ours is near the nominal order.
function common.check_order(what, hs, ours, paper, nominal, tol, floor_value)
  floor_value = floor_value or 1e-10
  local h_used, o_used, p_used = {}, {}, {}
  for i = 1, #hs do
    if ours[i] and paper[i] and ours[i] > floor_value and paper[i] > floor_value then
      h_used[#h_used + 1], o_used[#o_used + 1], p_used[#p_used + 1] = hs[i], ours[i], paper[i]
    end
  end
  local fitted = wb.fit_order(h_used, o_used)
  local fitted_paper = wb.fit_order(h_used, p_used)
  wb.expect_near(fitted, fitted_paper, 0.05,
                 format("%s: fitted order %.3f, the paper's numbers give %.3f (%d points)",
                        what, fitted, fitted_paper, #h_used))
  wb.expect_near(fitted, nominal, tol, format("%s: fitted order near %g", what, nominal))
  return fitted, fitted_paper
end

-- Pairwise rates log(e_i-1 / e_i) / log(h_i-1 / h_i).
function common.rates(hs, errs)
  local r = {}
  for i = 2, #hs do
    if errs[i] and errs[i - 1] and errs[i] > 0 and errs[i - 1] > 0 then
      r[i] = log(errs[i - 1] / errs[i]) / log(hs[i - 1] / hs[i])
    end
  end
  return r
end

---------------------------------------------------------------------------
-- Tables
---------------------------------------------------------------------------

-- columns = {{name =, values =, fmt = "%.4e"}, ...}; nil values print "-".
function common.print_columns(title, columns, count)
  io.write(title, "\n")
  local widths, line = {}, {}
  for c, col in ipairs(columns) do
    widths[c] = math.max(#col.name, col.width or 10)
    line[c] = format("%-" .. widths[c] .. "s", col.name)
  end
  io.write("  ", table.concat(line, "  "), "\n")
  for i = 1, count do
    for c, col in ipairs(columns) do
      local v = col.values[i]
      local text = v == nil and "-" or (type(v) == "number" and format(col.fmt or "%.4e", v) or tostring(v))
      line[c] = format("%-" .. widths[c] .. "s", text)
    end
    io.write("  ", table.concat(line, "  "), "\n")
  end
end

---------------------------------------------------------------------------
-- Solutions and metrics
---------------------------------------------------------------------------

-- Names of the multiplier columns: "lambda" for one constraint, else
-- "lambda1", "lambda2", ...
function common.lambda_names(model)
  local m = model.n_constraints
  if m == 1 then return {"lambda"} end
  local names = {}
  for c = 1, m do names[c] = "lambda" .. c end
  return names
end

function common.lambda_columns(sol, model)
  local cols = {}
  for c, name in ipairs(common.lambda_names(model)) do cols[c] = sol:column(name) end
  return cols
end

-- The state (q, p) of recorded row i as one vector.
function common.state(sol, i)
  local q, p = sol:state(i)
  return wb.concat(q, p)
end

-- max over the recorded rows of |G M^-1 p| in the given norm ("1" or "inf").
function common.hidden_constraint(sol, model, norm)
  if norm ~= "1" then return sol:max("hidden_constraint") end
  local cols = {}
  for c = 1, model.n_constraints do cols[c] = sol:column("gv" .. c) end
  local worst = 0
  for i = 1, sol.n do
    local s = 0
    for c = 1, #cols do s = s + abs(cols[c][i]) end
    if s > worst then worst = s end
  end
  return worst
end

-- The metric of Tables 3 and 4: the runs with h (a) and h/2 (b), compared
-- on the coarse grid t_j = j * dt, j = 0..samples (rows j*stride + 1),
-- max-norm; and the multipliers of the steps starting at t_j,
-- j = 0..samples-1 (each is recorded in the row of its step's end).
function common.self_difference(a, b, model, stride, samples)
  local es, el = 0, 0
  local la, lb = common.lambda_columns(a, model), common.lambda_columns(b, model)
  for j = 0, samples do
    local d = wb.sub(common.state(a, j * stride + 1), common.state(b, 2 * j * stride + 1))
    es = math.max(es, wb.norm(d))
    if j < samples then
      for c = 1, #la do
        el = math.max(el, abs(la[c][j * stride + 2] - lb[c][2 * j * stride + 2]))
      end
    end
  end
  return es, el
end

-- max_n |lambda_n - reference(t)| over the recorded rows, with t the time
-- the multiplier is attributed to ("start": t_n, the paper's comparison;
-- "mid": t_n + h/2); reference(t) returns the exact multiplier vector.
function common.multiplier_error(sol, model, reference, attribution)
  local cols = common.lambda_columns(sol, model)
  local times = sol:times(common.lambda_names(model)[1], attribution)
  local worst = 0
  for i = 2, sol.n do -- row 1 (t0) has no step behind it
    local exact = reference(times[i])
    for c = 1, #cols do worst = math.max(worst, abs(cols[c][i] - exact[c])) end
  end
  return worst
end

---------------------------------------------------------------------------
-- The planar pendulum in closed form (Table 1)
---------------------------------------------------------------------------

local function agm(a, b)
  while abs(a - b) > 1e-16 * a do a, b = (a + b) / 2, math.sqrt(a * b) end
  return a
end

-- Jacobi sn, cn, dn of (u | m), 0 <= m < 1, by the descending Landen
-- (AGM) transformation (Abramowitz-Stegun 16.4), after reducing u modulo
-- the period 4K so that the phase stays small.
function common.ellipj(u, m)
  local K = math.pi / (2 * agm(1, math.sqrt(1 - m)))
  u = u - 4 * K * floor((u + 2 * K) / (4 * K))
  local a, c, b = {1}, {math.sqrt(m)}, math.sqrt(1 - m)
  local n = 1
  while abs(c[n]) > 1e-17 do
    a[n + 1], c[n + 1], b = (a[n] + b) / 2, (a[n] - b) / 2, math.sqrt(a[n] * b)
    n = n + 1
  end
  local phi = 2 ^ (n - 1) * a[n] * u
  for j = n, 2, -1 do phi = (phi + math.asin(c[j] / a[j] * math.sin(phi))) / 2 end
  local sn, cn = math.sin(phi), math.cos(phi)
  return sn, cn, math.sqrt(1 - m * sn * sn), 4 * K
end

-- The paper's pendulum (m = l = g = 1, q0 = (0, -1), p0 = (1, 0)): the
-- angle from the downward vertical swings to pi/3, so with k = sin(pi/6)
-- = 1/2 and sn, cn, dn of (t | k^2 = 1/4):
--   sin(theta/2) = sn/2,  theta' = cn,  x = sn dn,  y = -(1 - sn^2/2),
--   px = cn (1 - sn^2/2),  py = cn sn dn,  lambda = (3 cos(theta) - 1)/2
-- (the multiplier of g = |q|^2 - 1).  Returns q, p, {lambda}.
function common.pendulum_exact(t)
  local sn, cn, dn = common.ellipj(t, 0.25)
  local c = 1 - sn * sn / 2 -- cos(theta)
  return {sn * dn, -c}, {cn * c, cn * sn * dn}, {(3 * c - 1) / 2}
end

function common.pendulum_period()
  local _, _, _, period = common.ellipj(0, 0.25)
  return period
end

return common
