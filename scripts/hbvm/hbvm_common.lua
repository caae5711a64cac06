-- Shared helpers of the line-integral (HBVM) reproduction scripts in this
-- folder: agreement with the paper's printed numbers and the claims of a
-- table, the per-table error metrics, the RK4 reference and the
-- self-difference tables of Tables 3 and 4, table printing and plot
-- series, and the exact solution of the planar pendulum.  Not a
-- reproduction by itself; a script loads it with
--
--   package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
--   local common = require "hbvm_common"
local common = {}

local format, abs, floor, log = string.format, math.abs, math.floor, math.log

---------------------------------------------------------------------------
-- Agreement with the paper, and the claims of a table
---------------------------------------------------------------------------

-- |ours - paper| in units of half the last of `digits` (default 2)
-- significant digits of the paper's value: <= 1 means the two agree to
-- that many significant digits.
function common.margin(ours, paper, digits)
  local unit = 10 ^ (floor(log(abs(paper), 10)) - (digits or 2) + 1)
  return abs(ours - paper) / (0.5 * unit)
end

-- One check per column: every paper entry above `floor_value` (1e-9)
-- agrees with ours to `digits` (2) significant digits.  labels[i] names
-- row i; a paper list shorter than ours checks its rows only.
function common.check_column(what, ours, paper, labels, floor_value, digits)
  floor_value, digits = floor_value or 1e-9, digits or 2
  local used, worst, worst_i = 0, -1, nil
  for i, p in ipairs(paper) do
    if p > floor_value and ours[i] then
      used = used + 1
      local m = common.margin(ours[i], p, digits)
      if m ~= m or m > worst then worst, worst_i = m, i end
    end
  end
  local detail = used == 0 and "no entries"
    or format("%d entries; worst %s: %.4e vs paper %.4e, %.3f%% apart, margin %.2f of 1",
              used, labels[worst_i], ours[worst_i], paper[worst_i],
              100 * abs(ours[worst_i] - paper[worst_i]) / paper[worst_i], worst)
  return wb.check(used > 0 and worst <= 1,
                  format("%s: every entry above %s agrees with the paper to %d digits", what,
                         format("%g", floor_value):gsub("e%-0", "e-"), digits), detail)
end

-- Agreement with every digit the paper prints: its value p, printed with
-- `digits` significant digits, stands for the interval p +- half a unit
-- of the last digit; ours must lie in that interval, widened by our own
-- round-off floor floors[i] (the spread of our value between two solvers
-- that both iterate to machine precision, plus 4 ulp).  The detail gives
-- the worst entry, how much of the half unit it uses, and its distance to
-- the interval's edge in units of its floor: an entry that uses 0.99 of
-- the half unit but lies 1e4 floors inside is decided, not lucky.  Entries
-- within one floor of the edge are counted as undecided (and pass).
function common.check_printed(what, ours, paper, floors, labels, digits)
  local used, worst, worst_i, undecided, failed = 0, -1, nil, 0, false
  for i, p in ipairs(paper) do
    if p > 1e-9 and ours[i] then
      used = used + 1
      local half = 0.5 * 10 ^ (floor(log(abs(p), 10)) - digits + 1)
      local dist = abs(ours[i] - p)
      local f = floors[i] + 4 * 2.220446049250313e-16 * abs(ours[i])
      if not (dist <= half + f) then failed = true end
      if abs(half - dist) <= f then undecided = undecided + 1 end
      local share = dist / half
      if share ~= share or share > worst then worst, worst_i = share, i end
    end
  end
  local detail = "no entries"
  if used > 0 then
    local i = worst_i
    local half = 0.5 * 10 ^ (floor(log(abs(paper[i]), 10)) - digits + 1)
    local f = floors[i] + 4 * 2.220446049250313e-16 * abs(ours[i])
    detail = format("%d entries, %d undecided; worst %s: ours %.9e vs printed %s, %.2f of the "
                    .. "half unit, %.2g inside the edge = %.3g floors of %.2g", used, undecided,
                    labels[i], ours[i], format("%." .. (digits - 1) .. "e", paper[i]), worst,
                    half - abs(ours[i] - paper[i]), (half - abs(ours[i] - paper[i])) / f, f)
  end
  return wb.check(used > 0 and not failed,
                  format("%s: every entry above 1e-9 rounds to the paper's %d printed digits (our "
                         .. "round-off floor included)", what, digits), detail)
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

local column_names = {e_s = "e_s", e_l = "e_lam", e_hc = "e_hc"}

-- "n = 0", "n = 1", ...: the row labels of a table r
function common.labels(r)
  return wb.map(r.n, function(n) return "n = " .. n end)
end

-- The claims of one method's table r (fields n, h and the error columns)
-- against the paper's p (the same fields), for each {field, nominal, tol}
-- of `orders`: every entry above 1e-9 agrees with the paper to
-- options.digits (2) digits, and the order fitted over rows
-- options.first (1) .. #r.h, entries above options.floor (1e-10), agrees
-- with the paper's and is near nominal within tol.
function common.check_table(name, r, p, orders, options)
  options = options or {}
  for _, o in ipairs(orders) do
    common.check_column(name .. " " .. column_names[o[1]], r[o[1]], p[o[1]], common.labels(r),
                        nil, options.digits)
  end
  local first = options.first or 1
  for _, o in ipairs(orders) do
    common.check_order(name .. " " .. column_names[o[1]], {table.unpack(r.h, first)},
                       {table.unpack(r[o[1]], first, #r.h)}, {table.unpack(p[o[1]], first, #r.h)},
                       o[2], o[3], options.floor)
  end
end

-- The orders of the true errors over rows first..#r.h: state 2, the
-- multiplier against lambda(t_n) 1 and against lambda(t_n + h/2) 2, within
-- tol[1], tol[2], tol[3].
function common.check_true_orders(name, r, first, tol)
  local hs = {table.unpack(r.h, first)}
  wb.expect_near(wb.fit_order(hs, {table.unpack(r.true_s, first)}), 2, tol[1],
                 name .. ": true state error, order 2")
  wb.expect_near(wb.fit_order(hs, {table.unpack(r.true_start, first)}), 1, tol[2],
                 name .. ": true multiplier error against lambda(t_n), order 1")
  wb.expect_near(wb.fit_order(hs, {table.unpack(r.true_mid, first)}), 2, tol[3],
                 name .. ": true multiplier error against lambda(t_n + h/2), order 2")
end

-- max over the tables results[s] of their column `field` (NaN kept)
function common.worst(results, field)
  local m = 0
  for _, r in ipairs(results) do m = wb.max(m, wb.max_abs(r[field])) end
  return m
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

-- Append to `series` ours against h (linespoints, lw 1.5 and `marks`,
-- default "pt 7") and, when `paper` is given, the paper's values on the
-- same h (circles), both in `color`:
--   common.paper_series(series, {h =, ours =, paper =, title =,
--                                paper_title = "paper", color =, marks =})
function common.paper_series(series, spec)
  local color = "lc rgb '" .. spec.color .. "'"
  series[#series + 1] = {x = spec.h, y = spec.ours, title = spec.title, with = "linespoints",
                         style = "lw 1.5 " .. (spec.marks or "pt 7") .. " " .. color}
  if spec.paper then
    series[#series + 1] = {x = spec.h, y = {table.unpack(spec.paper, 1, #spec.h)},
                           title = spec.paper_title or "paper", with = "points",
                           style = "pt 6 ps 2 " .. color}
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
    worst = wb.max(worst, s)
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
    es = wb.max(es, wb.norm(d))
    if j < samples then
      for c = 1, #la do
        el = wb.max(el, abs(la[c][j * stride + 2] - lb[c][2 * j * stride + 2]))
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
    for c = 1, #cols do worst = wb.max(worst, abs(cols[c][i] - exact[c])) end
  end
  return worst
end

---------------------------------------------------------------------------
-- Tables 3 and 4: the RK4 reference, the true errors, the self-differences
---------------------------------------------------------------------------

-- The index-1 formulation by classic.rk4 at h = 0.1 * 2^-exponent on
-- [0, 10], recorded on the grid of the half steps of the finest HBVM run
-- (h = 0.1 * 2^-n_max), so that it holds every t_n and t_n + h/2 of the
-- ladder; its accuracy is the max-norm distance to the run at twice the
-- step (RK4's error at the finer step is 1/15 of it).  Prints both.
-- Returns {sol =, accuracy =, model =, n_max =, at = function(row)}, at
-- giving the state and the multiplier vector of a recorded row.
function common.reference(model, n_max, exponent)
  local function run(e)
    return wb.integrate{model = model, method = "rk4", h = 0.1 * 2 ^ -e, steps = 100 * 2 ^ e,
                        every = 2 ^ (e - n_max - 1)}
  end
  local fine, coarse = run(exponent), run(exponent - 1)
  local accuracy = 0
  for i = 1, fine.n do
    accuracy = wb.max(accuracy, wb.norm(wb.sub(common.state(fine, i), common.state(coarse, i))))
  end
  wb.printf("reference: classic.rk4 (index 1) at h = 0.1 * 2^-%d differs from h = 0.1 * 2^-%d "
            .. "by %.2e; drift off g = 0: %.2e\n", exponent, exponent - 1, accuracy,
            fine:max("constraint"))
  local cache = {}
  local function at(row)
    if not cache[row] then
      local q, p = fine:state(row)
      cache[row] = {wb.concat(q, p), model:multiplier(q, p)}
    end
    return cache[row][1], cache[row][2]
  end
  return {sol = fine, accuracy = accuracy, model = model, n_max = n_max, at = at}
end

-- True errors of an HBVM run with h = 0.1 * 2^-n against the reference:
-- max_n ||y_n - y(t_n)||_inf, the same for the positions alone, and
-- max_n ||lambda_n - lambda(t)||_inf of the steps [t_n, t_n+1] with
-- t = t_n and t = t_n + h/2.
function common.true_errors(sol, n, ref)
  local stride = 2 ^ (ref.n_max + 1 - n) -- reference rows per step
  local nq, lam = ref.model.nq, common.lambda_columns(sol, ref.model)
  local e_state, e_q, e_start, e_mid = 0, 0, 0, 0
  for i = 1, sol.n do
    local d = wb.sub(common.state(sol, i), (ref.at((i - 1) * stride + 1)))
    e_state, e_q = wb.max(e_state, wb.norm(d)), wb.max(e_q, wb.max_abs(d, 1, nq))
    if i < sol.n then -- the step that starts at row i ends at row i + 1
      local _, l_start = ref.at((i - 1) * stride + 1)
      local _, l_mid = ref.at((i - 1) * stride + stride // 2 + 1)
      for c = 1, #lam do
        e_start = wb.max(e_start, abs(lam[c][i + 1] - l_start[c]))
        e_mid = wb.max(e_mid, abs(lam[c][i + 1] - l_mid[c]))
      end
    end
  end
  return e_state, e_q, e_start, e_mid
end

-- One method's Table 3 or 4: runs with h = 0.1 * 2^-n, n = 0..n_max + 1,
-- on [0, 10]; row n = 0..n_max holds the self-differences of runs n and
-- n + 1 (e_s, e_l), and run n's e_hc (in the norm hc_norm, "inf" or "1"),
-- e_H, e_g, mean Newton sweeps per step and true errors (true_s, true_q,
-- true_start, true_mid).
function common.self_difference_table(model, method, ref, hc_norm)
  local runs = {}
  for n = 0, ref.n_max + 1 do
    runs[n] = wb.integrate{model = model, method = method, h = 0.1 * 2 ^ -n, steps = 100 * 2 ^ n}
  end
  local r = {n = {}, h = {}, e_s = {}, e_l = {}, e_hc = {}, e_H = {}, e_g = {}, sweeps = {},
             true_s = {}, true_q = {}, true_start = {}, true_mid = {}}
  for n = 0, ref.n_max do
    local i, sol = n + 1, runs[n]
    r.n[i], r.h[i] = n, 0.1 * 2 ^ -n
    r.e_s[i], r.e_l[i] = common.self_difference(sol, runs[n + 1], model, 2 ^ n, 100)
    r.e_hc[i] = common.hidden_constraint(sol, model, hc_norm)
    r.e_H[i], r.e_g[i] = sol:max("energy_error_abs"), sol:max("constraint")
    r.sweeps[i] = sol.stats.mean_newton_iterations
    r.true_s[i], r.true_q[i], r.true_start[i], r.true_mid[i] = common.true_errors(sol, n, ref)
  end
  return r
end

-- Print a self-difference table r beside the paper's p, then its true
-- errors (the positions alone too when `positions`).
function common.print_self_difference(title, r, p, positions)
  local function rate(values)
    return {name = "rate", values = wb.rates(r.h, values), fmt = "%.2f", width = 5}
  end
  local n = {name = "n", values = r.n, fmt = "%d", width = 2}
  common.print_columns(title, {
    n, {name = "e_s", values = r.e_s}, {name = "paper", values = p.e_s}, rate(r.e_s),
    {name = "e_lam", values = r.e_l}, {name = "paper", values = p.e_l}, rate(r.e_l),
    {name = "e_H", values = r.e_H, fmt = "%.1e", width = 7},
    {name = "e_g", values = r.e_g, fmt = "%.1e", width = 7},
    {name = "e_hc", values = r.e_hc}, {name = "paper", values = p.e_hc}, rate(r.e_hc),
    {name = "sweeps", values = r.sweeps, fmt = "%.2f", width = 6},
  }, #r.h)
  local columns = {n, {name = "state", values = r.true_s}, rate(r.true_s)}
  if positions then
    columns[#columns + 1] = {name = "q only", values = r.true_q}
    columns[#columns + 1] = rate(r.true_q)
  end
  columns[#columns + 1] = {name = "lam vs t_n", values = r.true_start}
  columns[#columns + 1] = rate(r.true_start)
  columns[#columns + 1] = {name = "lam vs t_n+h/2", values = r.true_mid, width = 14}
  columns[#columns + 1] = rate(r.true_mid)
  common.print_columns("  true errors against the reference (not in the paper)", columns, #r.h)
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
