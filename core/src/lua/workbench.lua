-- The Lua half of the `workbench` module (the C half is core/src/lua_*.c).
-- Post-processing only: checks, convergence orders, plots, tables, files.
-- It runs once when the host starts, with the module table as argument.
local wb = ...

local format, abs, log, huge = string.format, math.abs, math.log, math.huge

---------------------------------------------------------------------------
-- Script arguments: `workbench script.lua --quick x` gives wb.quick = true
-- and wb.args = {"--quick", "x"}.
---------------------------------------------------------------------------
function wb._set_args(args)
  wb.args = args
  wb.quick = false
  for _, a in ipairs(args) do
    if a == "--quick" then wb.quick = true end
  end
end
wb._set_args({})

function wb.printf(fmt, ...)
  io.write(format(fmt, ...))
end

---------------------------------------------------------------------------
-- Checks: one line each; the host prints "N passed, M failed" at the end
-- and exits non-zero when M > 0.
---------------------------------------------------------------------------
local passed, failed = 0, 0

local function report(ok, message, detail)
  if ok then passed = passed + 1 else failed = failed + 1 end
  io.write(format("  %-4s  %s%s\n", ok and "ok" or "FAIL", message,
                  detail and ("  (" .. detail .. ")") or ""))
  io.flush()
  return ok
end

local function is_number(x) return type(x) == "number" and x == x end

function wb.check(cond, message, detail)
  return report(cond and true or false, message or "check", detail)
end

-- The arguments of the expect_* checks: the measured value may be nil or
-- NaN (the check fails), any other argument of the wrong type is an error
-- naming it.
local function check_arguments(who, value, ...)
  if value ~= nil and type(value) ~= "number" then
    error(format("%s: argument 1 (value) must be a number, got %s", who, type(value)), 3)
  end
  local names = {...}
  for i = 1, #names, 2 do
    local name, x = names[i], names[i + 1]
    if type(x) ~= "number" then
      error(format("%s: argument %d (%s) must be a number, got %s", who, (i + 1) // 2 + 1,
                   name, type(x)), 3)
    end
  end
end

local function shown(value, fmt)
  if value == nil then return "nil" end
  return format(fmt, value)
end

-- |value - target| <= tol
function wb.expect_near(value, target, tol, message)
  check_arguments("wb.expect_near", value, "target", target, "tol", tol)
  local ok = is_number(value) and abs(value - target) <= tol
  return report(ok, message or "expect_near",
                format("value %s, target %.6g, tolerance %.3g", shown(value, "%.6g"), target, tol))
end

-- value <= bound
function wb.expect_below(value, bound, message)
  check_arguments("wb.expect_below", value, "bound", bound)
  local ok = is_number(value) and value <= bound
  return report(ok, message or "expect_below",
                format("value %s <= %.4g", shown(value, "%.4g"), bound))
end

-- lo <= value <= hi
function wb.expect_in(value, lo, hi, message)
  check_arguments("wb.expect_in", value, "lo", lo, "hi", hi)
  local ok = is_number(value) and value >= lo and value <= hi
  return report(ok, message or "expect_in",
                format("value %s in [%.4g, %.4g]", shown(value, "%.4g"), lo, hi))
end

-- fn() raises an error whose text contains `text` (plain, not a pattern);
-- returns the error text.
function wb.expect_error(fn, text, message)
  if type(fn) ~= "function" or type(text) ~= "string" then
    error("wb.expect_error: give a function and the text its error must contain", 2)
  end
  local ok, err = pcall(fn)
  local shown_text = tostring(err)
  report(not ok and shown_text:find(text, 1, true) ~= nil, message or "expect_error",
         ok and "no error raised" or (shown_text:gsub("\n.*", "")))
  return shown_text
end

function wb.results() return passed, failed end

function wb._summary()
  io.write(format("%d passed, %d failed\n", passed, failed))
  io.flush()
  return failed
end

---------------------------------------------------------------------------
-- Vectors and norms
---------------------------------------------------------------------------
function wb.norm(v, kind)
  kind = kind or "inf"
  if kind == "inf" then return wb.max_abs(v) end
  local s = 0
  if kind == "1" or kind == 1 then
    for _, x in ipairs(v) do s = s + abs(x) end
  elseif kind == "2" or kind == 2 then
    for _, x in ipairs(v) do s = s + x * x end
    s = math.sqrt(s)
  else
    error("wb.norm: kind must be 'inf', '1' or '2'", 2)
  end
  return s
end

function wb.sub(a, b)
  if #a ~= #b then error(format("wb.sub: lengths differ (%d and %d)", #a, #b), 2) end
  local d = {}
  for i = 1, #a do d[i] = a[i] - b[i] end
  return d
end

function wb.concat(...)
  local out = {}
  for _, v in ipairs({...}) do
    for _, x in ipairs(v) do out[#out + 1] = x end
  end
  return out
end

-- max |t[i]| over i in [first, last] (default: all); a NaN, once seen, stays
function wb.max_abs(t, first, last)
  local m = 0
  for i = first or 1, last or #t do
    local a = abs(t[i])
    if a ~= a or a > m then m = a end
  end
  return m
end

-- The largest argument, NaN as soon as one argument is NaN (math.max
-- skips a NaN: math.max(0, 0/0) == 0, so a running maximum built on it
-- hides a diverged value).
function wb.max(...)
  local n = select("#", ...)
  if n == 0 then error("wb.max: give at least one number", 2) end
  local m = ...
  if m ~= m then return m end
  for i = 2, n do
    local x = select(i, ...)
    if x ~= x then return x end
    if x > m then m = x end
  end
  return m
end

-- x[i] - x[1] for every i: the change from the first value
function wb.deviation(x)
  local out = {}
  for i = 1, #x do out[i] = x[i] - x[1] end
  return out
end

-- max_i |x[i] - x[1]|: the drift of a conserved quantity (NaN kept)
function wb.drift(x)
  return wb.max_abs(wb.deviation(x))
end

-- max |x[i]| over the i with a <= t[i] <= b (0 if none); a NaN stays
function wb.max_abs_between(t, x, a, b)
  local m = 0
  for i = 1, #x do
    if t[i] >= a and t[i] <= b then
      local v = abs(x[i])
      if v ~= v or v > m then m = v end
    end
  end
  return m
end

-- max |x| over the first and over the last tenth of x: the first and the
-- last k = max(1, #x // 10) entries.  Returns first, last (NaN kept).
function wb.tenths(x)
  local k = math.max(1, #x // 10)
  return wb.max_abs(x, 1, k), wb.max_abs(x, #x - k + 1, #x)
end

function wb.linspace(a, b, n)
  local t = {}
  for i = 0, n - 1 do t[i + 1] = a + (b - a) * i / (n - 1) end
  return t
end

function wb.map(t, f)
  local out = {}
  for i, x in ipairs(t) do out[i] = f(x, i) end
  return out
end

---------------------------------------------------------------------------
-- Convergence orders
---------------------------------------------------------------------------

-- Least-squares line y = a + b x through the points (x[i], y[i]):
-- returns the intercept a and the slope b (NaN with fewer than two
-- distinct x; a NaN among the points gives NaN).
function wb.fit_line(x, y)
  if #x ~= #y then error(format("wb.fit_line: %d x values and %d y values", #x, #y), 2) end
  local n, sx, sy, sxx, sxy = #x, 0, 0, 0, 0
  for i = 1, n do
    sx, sy, sxx, sxy = sx + x[i], sy + y[i], sxx + x[i] * x[i], sxy + x[i] * y[i]
  end
  if n < 2 then return 0 / 0, 0 / 0 end
  local b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
  return (sy - b * sx) / n, b
end

-- Pairwise orders: r[i] = log(e[i-1] / e[i]) / log(h[i-1] / h[i]) for
-- i >= 2 (r[1] and the entries next to a missing error are nil).
function wb.rates(h, e)
  local r = {}
  for i = 2, #h do
    if e[i] and e[i - 1] then r[i] = log(e[i - 1] / e[i]) / log(abs(h[i - 1] / h[i])) end
  end
  return r
end

-- Least-squares slope of log(err) against log(h) over the points whose
-- error is finite and above `floor`; returns slope, number of points used.
function wb.fit_order(h, err, floor)
  floor = floor or 0
  local x, y = {}, {}
  for i = 1, #h do
    local e = err[i]
    if is_number(e) and e > floor and e < huge then
      x[#x + 1], y[#y + 1] = log(abs(h[i])), log(e)
    end
  end
  if #x < 2 then return 0 / 0, #x end
  local _, slope = wb.fit_line(x, y)
  return slope, #x
end

local function quantity_of(sol, quantity)
  if type(quantity) == "function" then return quantity(sol) end
  local q, p = sol:final()
  if quantity == nil or quantity == "qp" then return wb.concat(q, p) end
  if quantity == "q" then return q end
  if quantity == "p" then return p end
  error(format("wb.order: quantity must be 'qp', 'q', 'p' or a function, got %s",
               tostring(quantity)), 3)
end

-- A progress line on stderr across the runs of a helper (wb.order,
-- wb.work_precision, wb.check_method): update(i, detail) before run i,
-- done() at the end.  `want` is the helper's progress = field: true or
-- false, or nil for the default: shown when stderr is a terminal
-- (WORKBENCH_NO_PROGRESS turns it off), like the progress bar of one run.
function wb._progress(who, total, want)
  if want == nil then want = wb._progress_enabled() end
  if not want then return function() end, function() end end
  local shown = false
  local function update(i, detail)
    io.stderr:write(format("\r  %s: run %d of %d%s\27[K", who, i, total,
                           detail and ("  " .. detail) or ""))
    io.stderr:flush()
    shown = true
  end
  local function done()
    if shown then io.stderr:write("\r\27[K") io.stderr:flush() end
  end
  return update, done
end

-- The step sizes of a study: h = {...}, or steps = {...} over t_end - t0.
local function step_sizes(spec, who)
  if spec.h ~= nil and spec.steps ~= nil then
    error(who .. ": give h = {...} or steps = {...}, not both", 3)
  end
  if spec.steps ~= nil then
    if type(spec.steps) ~= "table" or not spec.t_end then
      error(who .. ": steps = {...} needs t_end (h = (t_end - t0) / steps)", 3)
    end
    local h = {}
    for i, n in ipairs(spec.steps) do
      if type(n) ~= "number" or n < 1 or n % 1 ~= 0 then
        error(format("%s: steps[%d] must be a whole number >= 1", who, i), 3)
      end
      h[i] = (spec.t_end - (spec.t0 or 0)) / n
    end
    return h
  end
  return spec.h
end

-- wb.order{ h = {...} (or steps = {...} with t_end),
--   run = function(h) return vector end          -- or the fields below
--   model =, method =, t_end =, t0 =, q0 =, p0 =, quantity = "qp"|"q"|"p"|function(sol),
--   reference = {h = | steps = , method = } | function() return vector end | vector,
--   norm = "inf"|"1"|"2", relative = false, floor = <error floor> }
-- returns {h =, errors =, orders = (pairwise), order = (least squares), used =,
--          reference = vector}
local order_fields = {h = true, steps = true, run = true, model = true, method = true,
                      t_end = true, t0 = true, q0 = true, p0 = true, quantity = true,
                      reference = true, norm = true, relative = true, floor = true,
                      progress = true}
function wb.order(spec)
  if type(spec) ~= "table" then error("wb.order: give a table {h = {...}, ...}", 2) end
  for k in pairs(spec) do
    if not order_fields[k] then
      error(format("wb.order: unknown field '%s' (fields: h, steps, run, model, method, t_end, "
                   .. "t0, q0, p0, quantity, reference, norm, relative, floor, progress)", tostring(k)), 2)
    end
  end
  local hs = step_sizes(spec, "wb.order")
  if type(hs) ~= "table" or #hs < 2 then
    error("wb.order: give h = {at least two step sizes} or steps = {at least two counts}", 2)
  end
  local run = spec.run
  if not run then
    if not (spec.model and spec.method and spec.t_end) then
      error("wb.order: give run = function(h) or model, method and t_end", 2)
    end
    run = function(h, method, steps)
      local sol = wb.integrate{model = spec.model, method = method or spec.method,
                               h = not steps and h or nil, steps = steps,
                               t_end = spec.t_end, t0 = spec.t0, q0 = spec.q0,
                               p0 = spec.p0, every = 2 ^ 53}
      return quantity_of(sol, spec.quantity)
    end
  end
  local first = (type(spec.reference) == "table" and (spec.reference.h or spec.reference.steps)) and 1 or 0
  local total = #hs + first   -- the reference, when it is a run, is run 1
  local update, done = wb._progress("wb.order", total, spec.progress)
  local ref = spec.reference
  if type(ref) == "function" then
    ref = ref()
  elseif type(ref) == "table" and (ref.h or ref.steps) then
    update(1, "reference")
    if ref.steps and not spec.run then
      ref = run(nil, ref.method, ref.steps)
    else
      ref = run(ref.h or (spec.t_end - (spec.t0 or 0)) / ref.steps, ref.method)
    end
  elseif type(ref) ~= "table" then
    done()
    error("wb.order: reference must be {h = ...} or {steps = ...}, a function or a vector", 2)
  end
  local norm_kind = spec.norm or "inf"
  local scale = spec.relative and wb.norm(ref, norm_kind) or 1
  local result = {h = {}, errors = {}, orders = {}, reference = ref}
  for i, h in ipairs(hs) do
    update(i + first, format("h = %.4g", h))
    local v = (spec.steps and not spec.run) and run(nil, nil, spec.steps[i]) or run(h)
    if #v ~= #ref then
      done()
      error(format("wb.order: the run gives %d numbers, the reference %d", #v, #ref), 2)
    end
    result.h[i] = h
    result.errors[i] = wb.norm(wb.sub(v, ref), norm_kind) / scale
  end
  done()
  result.orders = wb.rates(result.h, result.errors)
  local floor = spec.floor or 1e-12 * math.max(1, wb.norm(ref, norm_kind)) / scale
  result.order, result.used = wb.fit_order(result.h, result.errors, floor)
  return result
end

-- Print an order study as a table.
function wb.print_order(result, label)
  io.write(format("%s\n  %-12s %-12s %s\n", label or "convergence", "h", "error", "order"))
  for i, h in ipairs(result.h) do
    io.write(format("  %-12.4g %-12.4e %s\n", h, result.errors[i],
                    result.orders[i] and format("%.3f", result.orders[i]) or "-"))
  end
  io.write(format("  fitted order %.3f over %d points\n", result.order, result.used))
end

---------------------------------------------------------------------------
-- Work-precision: how we compare methods.  For each method and step size,
-- the error at t_end (the norm of wb.order against one reference), the CPU
-- seconds of the run (the fastest of `repeats`), the force evaluations and
-- Newton (or fixed-point) iterations; a table, and the two standard
-- figures: error against CPU time and against evaluations, log-log, one
-- curve per method.
--
-- wb.work_precision{ model =, t_end =, methods = {m1, {method = m2, label =, h = {...}}, ...},
--   h = {...} (each method's own h = ... wins), reference = {h =, method =} | function | vector,
--   quantity =, norm =, t0 =, q0 =, p0 =, repeats = 1,
--   figure = "plots/<folder>/<name>" (writes <name>_time.png and <name>_evals.png),
--   table = "<file>.tsv", title = }
-- returns {rows = {{method =, h =, steps =, error =, seconds =, function_evals =,
--          evals_per_step =, newton_iterations =, iteration =}, ...}, by_method =
--          {label = {rows...}}, labels = {...}, reference = vector}
---------------------------------------------------------------------------
local function work_precision_methods(spec)
  if type(spec.methods) ~= "table" or #spec.methods == 0 then
    error("wb.work_precision: methods must list at least one method", 3)
  end
  local list = {}
  for i, entry in ipairs(spec.methods) do
    local e = (type(entry) == "table" and entry.method) and entry or {method = entry}
    local method = type(e.method) == "string" and wb.method(e.method) or e.method
    if type(method) ~= "userdata" and type(method) ~= "table" then
      error(format("wb.work_precision: methods[%d] is not a method or {method = ...}", i), 3)
    end
    local h = e.h or e.steps and step_sizes({steps = e.steps, t_end = spec.t_end, t0 = spec.t0},
                                              "wb.work_precision")
              or step_sizes(spec, "wb.work_precision")
    if type(h) ~= "table" or #h == 0 then
      error(format("wb.work_precision: methods[%d] has no step sizes (h = {...} or steps = {...})",
                   i), 3)
    end
    list[i] = {label = e.label or tostring(e.method.name or method.name or e.method),
               method = method, h = h}
  end
  return list
end

function wb.work_precision(spec)
  if type(spec) ~= "table" or not spec.model or not spec.t_end then
    error("wb.work_precision: give a table with model, t_end, methods and h", 2)
  end
  local methods = work_precision_methods(spec)
  local repeats = spec.repeats or 1
  local function run(method, h)
    local best, sol
    for _ = 1, repeats do
      local start = os.clock()
      local s = wb.integrate{model = spec.model, method = method, h = h, t_end = spec.t_end,
                             t0 = spec.t0, q0 = spec.q0, p0 = spec.p0, every = 2 ^ 53}
      local cpu = os.clock() - start
      if not best or cpu < best then best, sol = cpu, s end
    end
    return sol, best
  end
  local ref = spec.reference
  if type(ref) == "function" then
    ref = ref()
  elseif type(ref) == "table" and ref.h then
    ref = quantity_of((run(ref.method or methods[1].method, ref.h)), spec.quantity)
  elseif type(ref) ~= "table" then
    error("wb.work_precision: reference must be {h = , method = }, a function or a vector", 2)
  end
  local norm_kind = spec.norm or "inf"
  local scale = spec.relative and wb.norm(ref, norm_kind) or 1
  local result = {rows = {}, by_method = {}, labels = {}, reference = ref}
  local total, count = 0, 0
  for _, m in ipairs(methods) do total = total + #m.h end
  local update, done = wb._progress("wb.work_precision", total, spec.progress)
  for _, m in ipairs(methods) do
    result.labels[#result.labels + 1] = m.label
    result.by_method[m.label] = {}
    for _, h in ipairs(m.h) do
      count = count + 1
      update(count, format("%s, h = %.4g", m.label, h))
      local sol, cpu = run(m.method, h)
      local v = quantity_of(sol, spec.quantity)
      local row = {method = m.label, h = h, steps = sol.stats.steps,
                   error = wb.norm(wb.sub(v, ref), norm_kind) / scale, seconds = cpu,
                   function_evals = sol.stats.function_evals,
                   evals_per_step = sol.stats.mean_function_evals,
                   newton_iterations = sol.stats.newton_iterations,
                   iteration = sol.stats.iteration}
      result.rows[#result.rows + 1] = row
      table.insert(result.by_method[m.label], row)
    end
  end
  done()
  local columns = {"method", "h", "steps", "error", "seconds", "function_evals",
                   "evals_per_step", "newton_iterations", "iteration"}
  if spec.table then
    local lines = {table.concat(columns, "\t")}
    for _, r in ipairs(result.rows) do
      local cells = {}
      for i, c in ipairs(columns) do
        local v = r[c]
        cells[i] = type(v) == "number" and format("%.17g", v) or wb._tsv_text(tostring(v))
      end
      lines[#lines + 1] = table.concat(cells, "\t")
    end
    wb.write_file(spec.table, table.concat(lines, "\n") .. "\n")
  end
  if spec.figure then
    for _, axis in ipairs{{"seconds", "_time.png", "CPU seconds"},
                          {"function_evals", "_evals.png", "force evaluations"}} do
      local series = {}
      for _, label in ipairs(result.labels) do
        local x, y = {}, {}
        for _, r in ipairs(result.by_method[label]) do
          if r.error > 0 and r[axis[1]] > 0 then x[#x + 1], y[#y + 1] = r[axis[1]], r.error end
        end
        if #x > 0 then
          series[#series + 1] = {x = x, y = y, title = label, with = "linespoints"}
        end
      end
      if #series > 0 then
        wb.plot{file = spec.figure .. axis[2], logscale = "xy", series = series,
                xlabel = axis[3], ylabel = format("error at t = %.6g", spec.t_end),
                title = spec.title, key = "outside right"}
      end
    end
  end
  return result
end

-- Print a work-precision study as a table.
function wb.print_work_precision(result, label)
  io.write((label or "work-precision") .. "\n")
  local rows = {}
  for _, r in ipairs(result.rows) do
    rows[#rows + 1] = {r.method, r.h, r.steps, r.error, r.seconds, r.function_evals,
                       r.evals_per_step, r.newton_iterations / math.max(1, r.steps), r.iteration}
  end
  wb.print_table({"method", "h", "steps", "error", "CPU s", "evaluations", "evals/step",
                  "iter/step", "iteration"}, rows, "%-14.4g")
end

-- The work a method of a work-precision study needs for an error `target`:
-- the line log error = a + b log work fitted to its rows whose error lies
-- in (floor, ceiling) (default 1e-13 and 0.1: above round-off, inside the
-- asymptotic range), solved for `target`.  `work` is "function_evals"
-- (the default) or "seconds".  Returns the work and the slope b; the work
-- is NaN when fewer than two rows are in range or b > -0.1 (timings too
-- short to fit).
function wb.work_for_error(result, label, target, options)
  local rows = type(result) == "table" and result.by_method and result.by_method[label]
  if not rows then
    error(format("wb.work_for_error: no method labelled %s in this study", tostring(label)), 2)
  end
  if not is_number(target) or target <= 0 then
    error("wb.work_for_error: the target error must be a positive number", 2)
  end
  options = options or {}
  local work = options.work or "function_evals"
  local floor, ceiling = options.floor or 1e-13, options.ceiling or 0.1
  local x, y = {}, {}
  for _, r in ipairs(rows) do
    local w = r[work]
    if not is_number(w) then
      error(format("wb.work_for_error: work must be 'function_evals' or 'seconds', got %s",
                   tostring(work)), 2)
    end
    if w > 0 and r.error > floor and r.error < ceiling then
      x[#x + 1], y[#y + 1] = log(w), log(r.error)
    end
  end
  if #x < 2 then return 0 / 0, 0 / 0 end
  local a, b = wb.fit_line(x, y)
  if not (b < -0.1) then return 0 / 0, b end
  return math.exp((log(target) - a) / b), b
end

---------------------------------------------------------------------------
-- Plots through gnuplot.  The data go next to the figure (.dat), the
-- script too (.gp); both are written whole or not at all.
--
-- No text reaches gnuplot as script: every title, label and file name is
-- written as a literal of octal escapes (wb._gnuplot_literal), which
-- gnuplot reads as data after its backquote and macro substitution.  Text
-- is shown as it is (gnuplot's "noenhanced"); a plot with enhanced = true,
-- or one string wrapped by wb.enhanced(s), asks for gnuplot's enhanced-text
-- markup instead (J_1, 2^{-1/2}, {/Symbol a}); wb.literal(s) shows one
-- string as it is inside an enhanced plot.  The fields that are gnuplot
-- syntax by purpose (logscale, key, with, style, commands) are checked
-- against what they may hold.
---------------------------------------------------------------------------
local gnuplot_warned = false
local text_mark = {}   -- metatable of wb.enhanced / wb.literal values
local marks = setmetatable({}, {__mode = "k"})   -- the values it made

local function marked(s, enhanced, who)
  if marks[s] then s = s.text end
  if type(s) ~= "string" and type(s) ~= "number" then
    error(format("%s: give a string, got %s", who, type(s)), 3)
  end
  local t = setmetatable({text = tostring(s), enhanced = enhanced}, text_mark)
  marks[t] = true
  return t
end
text_mark.__index = {}
text_mark.__tostring = function(t) return t.text end
text_mark.__concat = function(a, b) return tostring(a) .. tostring(b) end
text_mark.__metatable = false

-- wb.enhanced("J_1"): shown with gnuplot's enhanced-text markup
function wb.enhanced(s) return marked(s, true, "wb.enhanced") end
-- wb.literal("my_name"): shown exactly as written, also in an enhanced plot
function wb.literal(s) return marked(s, false, "wb.literal") end

-- The gnuplot literal and the enhanced flag for a text field.
local function plot_text(value, enhanced, what)
  if marks[value] then
    return wb._gnuplot_literal(value.text), value.enhanced
  end
  if type(value) ~= "string" and type(value) ~= "number" then
    error(format("wb.plot: %s must be a string, got %s", what, type(value)), 3)
  end
  return wb._gnuplot_literal(tostring(value)), enhanced
end

local function text_option(value, enhanced, what)
  local literal, e = plot_text(value, enhanced, what)
  return literal .. (e and " enhanced" or " noenhanced")
end

local function strip_extension(path)
  return (path:gsub("%.[%w]+$", ""))
end

local function data_value(x, log_axis)
  if not is_number(x) or x == huge or x == -huge then return "NaN" end
  if log_axis and x <= 0 then return "NaN" end
  return format("%.17g", x)
end

local function words_of(text, allowed, what)
  if type(text) ~= "string" then
    error(format("wb.plot: %s must be a string, got %s", what, type(text)), 4)
  end
  for word in text:gmatch("%S+") do
    if not allowed[word] and not word:match("^%-?%d+%.?%d*$") then
      local list = {}
      for w in pairs(allowed) do list[#list + 1] = w end
      table.sort(list)
      error(format("wb.plot: %s: '%s' is not one of %s (or a number)", what, word,
                   table.concat(list, ", ")), 4)
    end
  end
  return text
end

local function set_of(...)
  local s = {}
  for _, w in ipairs({...}) do s[w] = true end
  return s
end

local key_words = set_of("top", "bottom", "left", "right", "center", "inside", "outside",
                         "lmargin", "rmargin", "tmargin", "bmargin", "above", "below",
                         "over", "under", "box", "nobox", "opaque", "noopaque", "off", "on",
                         "horizontal", "vertical", "reverse", "noreverse", "invert",
                         "noinvert", "Left", "Right", "samplen", "spacing", "width",
                         "height", "maxcols", "maxrows", "auto", "fixed", "default")
local with_words = set_of("lines", "points", "linespoints", "dots", "impulses", "steps",
                          "fsteps", "histeps", "boxes")
local style_words = set_of("lw", "linewidth", "lt", "linetype", "lc", "linecolor", "rgb",
                           "rgbcolor", "dt", "dashtype", "pt", "pointtype", "ps",
                           "pointsize", "pi", "pointinterval", "pn", "pointnumber", "solid",
                           "black", "bgnd", "variable", "palette", "nohidden3d")

-- A series style: words of style_words, numbers, and quoted colour names
-- or dash patterns ('black', '#ff0000', '.-', "(10,5)").
local function check_style(style, i)
  if type(style) ~= "string" then
    error(format("wb.plot: series %d: style must be a string, got %s", i, type(style)), 3)
  end
  local rest = style
  while true do
    rest = rest:match("^%s*(.*)$")
    if rest == "" then return style end
    local token = rest:match("^'[#%w_%.%- ]*'") or rest:match('^"[#%w_%.%- ]*"')
                  or rest:match("^%(%s*%d+[%d%s,%.]*%)") or rest:match("^%-?%d*%.?%d+")
                  or rest:match("^%a+")
    if not token or (token:match("^%a") and not style_words[token]) then
      error(format("wb.plot: series %d: style '%s': cannot use '%s' (line styles: lw, lt, "
                   .. "lc rgb 'colour', dt, pt, ps and numbers)", i, style,
                   token or rest:sub(1, 12)), 3)
    end
    rest = rest:sub(#token + 1)
  end
end

-- commands = {"set size ratio -1", ...}: set and unset commands, one per
-- string, with no function call, no pipe, no backquote, no macro and no
-- command separator; nothing that writes or reads a file.
local forbidden_words = set_of("system", "output", "print", "table", "terminal", "term",
                               "load", "call", "eval", "shell", "save", "cd", "loadpath",
                               "fontpath", "psdir", "fit", "exit", "quit", "reread", "pause",
                               "import", "plugin", "history", "historysize", "macros")
local function check_command(c, i)
  if type(c) ~= "string" then
    error(format("wb.plot: commands[%d] must be a string, got %s", i, type(c)), 3)
  end
  local why
  if not (c:match("^%s*set%s") or c:match("^%s*unset%s")) then
    why = "only 'set ...' and 'unset ...' commands are taken"
  elseif c:find("[%c`@;|!$\"\\]") then
    why = "it holds a control character or one of ` @ ; | ! $ \" \\"
  elseif c:find("[%a_][%w_]*%s*%(") then
    why = "it calls a function"
  else
    for word in c:gmatch("[%a_][%w_]*") do
      if forbidden_words[word:lower()] then why = "'" .. word .. "' is not allowed here" end
    end
  end
  if why then error(format("wb.plot: commands[%d] '%s': %s", i, c, why), 3) end
  return c
end

local function check_range(range, what)
  if type(range) ~= "table" or not is_number(range[1]) or not is_number(range[2])
     or abs(range[1]) == huge or abs(range[2]) == huge then
    error(format("wb.plot: %s must be {lo, hi}, two finite numbers", what), 3)
  end
  return range
end

-- wb.plot{file =, title =, xlabel =, ylabel =, logscale = "x"|"y"|"xy",
--   series = {{x =, y =, title =, with = "lines", style = "lw 2"}, ...},
--   size = {w, h}, key = "top right", xrange = {a, b}, yrange = {a, b},
--   commands = {"set grid", ...}, enhanced = false}
local plot_fields = set_of("file", "series", "title", "xlabel", "ylabel", "logscale", "size",
                           "key", "xrange", "yrange", "commands", "enhanced")
local series_fields = set_of("x", "y", "title", "with", "style")

local function check_fields(t, known, what)
  for k in pairs(t) do
    if not known[k] then
      local list = {}
      for w in pairs(known) do list[#list + 1] = w end
      table.sort(list)
      error(format("wb.plot: %s has no field '%s' (fields: %s)", what, tostring(k),
                   table.concat(list, ", ")), 3)
    end
  end
end

-- The default line styles: 12 colours a reader can tell apart and 5 dash
-- patterns, cycling together, so that two series share both only after 60.
local palette = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                 "#e377c2", "#17becf", "#7f7f7f", "#bcbd22", "#000000", "#aec7e8"}
local dashes = {"solid", "(12,6)", "(3,4)", "(14,5,3,5)", "(6,3,2,3,2,3)"}
local function default_style(i, with)
  local colour = palette[(i - 1) % #palette + 1]
  -- dashes cycle with a period prime to the colours': a curve that
  -- coincides with an earlier one shows the earlier one in its gaps, and
  -- each later curve is a little thinner, leaving the earlier one's edges
  local dash = dashes[(i - 1) % #dashes + 1]
  local width = math.max(1.0, 2.6 - 0.25 * (i - 1))
  local style = format("lw %.1f lc rgb '%s' dt %s", width, colour, dash)
  if with == "points" or with == "linespoints" then
    style = style .. format(" pt %d ps 1.2", (i - 1) % 13 + 1)
  end
  return style
end

function wb.plot(spec)
  if type(spec) ~= "table" then error("wb.plot: give a table", 2) end
  check_fields(spec, plot_fields, "the plot")
  if type(spec.file) ~= "string" then error("wb.plot: field 'file' (figure path) is required", 2) end
  if spec.file:find("\0", 1, true) then error("wb.plot: field 'file' holds a NUL byte", 2) end
  if type(spec.series) ~= "table" or #spec.series == 0 then
    error("wb.plot: field 'series' must list at least one {x =, y =}", 2)
  end
  local ext = spec.file:match("%.(%w+)$")
  if ext ~= "png" and ext ~= "svg" then
    error("wb.plot: the figure must end in .png or .svg, got " .. spec.file, 2)
  end
  local enhanced = spec.enhanced and true or false
  -- written through wb.write_file (relative to the output root); gnuplot
  -- reads and writes the resolved paths
  local base = strip_extension(spec.file)
  local datafile, scriptfile = base .. ".dat", base .. ".gp"
  local figure = wb.output_path(spec.file)
  local data_path = wb.output_path(datafile)
  local logscale = spec.logscale or ""
  if type(logscale) ~= "string" or not (logscale == "" or logscale == "x" or logscale == "y"
                                        or logscale == "xy" or logscale == "yx") then
    error(format("wb.plot: logscale must be \"x\", \"y\" or \"xy\", got %s",
                 type(logscale) == "string" and "'" .. logscale .. "'" or type(logscale)), 2)
  end
  local logx, logy = logscale:find("x") ~= nil, logscale:find("y") ~= nil
  local size = spec.size or {900, 560}
  local function pixels(x) return is_number(x) and x % 1 == 0 and x >= 16 and x <= 20000 end
  if type(size) ~= "table" or not pixels(size[1]) or not pixels(size[2]) then
    error("wb.plot: size must be {width, height} in whole pixels from 16 to 20000", 2)
  end
  -- the legend outside the data, on the right, unless placed
  local key = words_of(spec.key or "outside right top", key_words, "key")
  local data, plots = {}, {}
  for i, s in ipairs(spec.series) do
    if type(s) ~= "table" or type(s.x) ~= "table" or type(s.y) ~= "table" then
      error(format("wb.plot: series %d needs tables x and y", i), 2)
    end
    check_fields(s, series_fields, format("series %d", i))
    if #s.x ~= #s.y then
      error(format("wb.plot: series %d has %d x values and %d y values", i, #s.x, #s.y), 2)
    end
    local with = words_of(s.with or "lines", with_words, format("series %d: with", i))
    if with:find("%s") then error(format("wb.plot: series %d: with is one word", i), 2) end
    local style = s.style and check_style(s.style, i) or default_style(i, with)
    data[#data + 1] = format("# series %d: %s\n", i,
                             tostring(s.title or ""):gsub("%c", " "))
    for k = 1, #s.x do
      data[#data + 1] = data_value(s.x[k], logx) .. "\t" .. data_value(s.y[k], logy) .. "\n"
    end
    data[#data + 1] = "\n\n"
    plots[i] = format("%s index %d using 1:2 with %s %s title %s",
                      '""', i - 1, with,
                      style, s.title and text_option(s.title, enhanced, "series title") or '""')
  end
  wb.write_file(datafile, table.concat(data))
  local lines = {
    "# generated by the workbench",
    "if (!exists(\"outfile\")) outfile = " .. wb._gnuplot_literal(figure, "path"),
    ext == "png" and format("set terminal pngcairo size %d,%d enhanced font \"Sans,10\"",
                                    math.tointeger(size[1]), math.tointeger(size[2]))
                  or format("set terminal svg size %d,%d enhanced", math.tointeger(size[1]),
                            math.tointeger(size[2])),
    "set output outfile",
    "set grid",
    "set key " .. key,
  }
  if spec.title then lines[#lines + 1] = "set title " .. text_option(spec.title, enhanced, "title") end
  if spec.xlabel then lines[#lines + 1] = "set xlabel " .. text_option(spec.xlabel, enhanced, "xlabel") end
  if spec.ylabel then lines[#lines + 1] = "set ylabel " .. text_option(spec.ylabel, enhanced, "ylabel") end
  if logscale ~= "" then lines[#lines + 1] = "set logscale " .. logscale end
  if spec.xrange then
    local r = check_range(spec.xrange, "xrange")
    lines[#lines + 1] = format("set xrange [%.17g:%.17g]", r[1], r[2])
  end
  if spec.yrange then
    local r = check_range(spec.yrange, "yrange")
    lines[#lines + 1] = format("set yrange [%.17g:%.17g]", r[1], r[2])
  end
  lines[#lines + 1] = logx and "set format x \"10^{%L}\"" or "set format x \"%g\""
  lines[#lines + 1] = logy and "set format y \"10^{%L}\"" or "set format y \"%g\""
  if spec.commands ~= nil and type(spec.commands) ~= "table" then
    error("wb.plot: commands must be a table of strings", 2)
  end
  for i, c in ipairs(spec.commands or {}) do lines[#lines + 1] = check_command(c, i) end
  -- curves first, then the series with markers, so that a curve never
  -- hides the marks of a series that coincides with it
  local ordered = {}
  for pass = 1, 2 do
    for i, s in ipairs(spec.series) do
      local marks_it = (s.with or "lines") ~= "lines" and (s.with or "lines") ~= "steps"
      if (pass == 2) == marks_it then ordered[#ordered + 1] = plots[i] end
    end
  end
  ordered[1] = wb._gnuplot_literal(data_path, "path") .. ordered[1]:sub(3)
  lines[#lines + 1] = "plot " .. table.concat(ordered, ", \\\n     ")
  wb.write_file(scriptfile, table.concat(lines, "\n") .. "\n")
  local ok, why = wb._run_gnuplot(wb.output_path(scriptfile), figure)
  if not ok then
    if why == "missing" then
      if not gnuplot_warned then
        io.stderr:write("workbench: warning: gnuplot not found: wrote data and scripts, no figures\n")
        gnuplot_warned = true
      end
    else
      error("wb.plot: " .. why, 2)
    end
  end
  return figure
end

---------------------------------------------------------------------------
-- Tables and files
---------------------------------------------------------------------------

-- A text cell of a tab-separated file, one line and UTF-8 whatever the
-- text: tab, newline, CR and backslash escaped (\t, \n, \r, \\), a byte
-- that is no part of a UTF-8 character as \xHH (python's strict readers
-- refuse the file otherwise), and a cell that begins with a double quote
-- written as a CSV quoted field ("" for each quote in it), which python's
-- csv and pandas would otherwise read as the start of a field spanning
-- lines; `quoted` writes any cell so (a string that would read back as a
-- number, say).  wb._tsv_untext reads one back.
local tsv_escapes = {["\\"] = "\\\\", ["\t"] = "\\t", ["\n"] = "\\n", ["\r"] = "\\r"}
local tsv_unescapes = {["\\"] = "\\", t = "\t", n = "\n", r = "\r"}

local function utf8_escaped(s)
  local ok, bad = utf8.len(s)
  if ok then return s end
  local parts, at = {}, 1
  while not ok do
    parts[#parts + 1] = s:sub(at, bad - 1) .. string.format("\\x%02X", s:byte(bad))
    at = bad + 1
    ok, bad = utf8.len(s, at)
    if ok then break end
  end
  parts[#parts + 1] = s:sub(at)
  return table.concat(parts)
end

function wb._tsv_text(s, quoted)
  s = utf8_escaped((s:gsub("[\\\t\n\r]", tsv_escapes)))
  if quoted or s:sub(1, 1) == '"' then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

function wb._tsv_untext(cell)
  local quoted = cell:match('^"(.*)"$')
  if quoted and not quoted:gsub('""', ""):find('"', 1, true) then
    cell = quoted:gsub('""', '"')
  end
  local out, at = {}, 1
  while true do
    local i = cell:find("\\", at, true)
    if not i then break end
    out[#out + 1] = cell:sub(at, i - 1)
    local hex = cell:match("^x(%x%x)", i + 1)
    if hex then
      out[#out + 1] = string.char(tonumber(hex, 16))
      at = i + 4
    else
      local c = cell:sub(i + 1, i + 1)
      out[#out + 1] = tsv_unescapes[c] or "\\" .. c
      at = i + 2
    end
  end
  out[#out + 1] = cell:sub(at)
  return table.concat(out)
end

-- Read a tab-separated file written by the workbench (sol:write, stream =):
-- returns {columns = {names...}, name = {values...}, ...}.  NaN and the
-- infinities come back as they were written (nan, -nan, inf, -inf); a field
-- that is not a number, or a row of the wrong width, is an error naming the
-- line.
local special_numbers = {nan = 0 / 0, ["-nan"] = 0 / 0, ["+nan"] = 0 / 0, inf = huge,
                         ["+inf"] = huge, ["-inf"] = -huge, infinity = huge,
                         ["+infinity"] = huge, ["-infinity"] = -huge}
local function table_number(field)
  return tonumber(field) or special_numbers[field:lower()]
end

function wb.read_table(path)
  local f, err = io.open(wb.output_path(path), "r")
  if not f then error("wb.read_table: " .. err, 2) end
  -- the header: a line of column names (files of earlier versions: a
  -- comment line "# t q1 ...")
  local header = f:read("l")
  if not header or not header:find("%S") then
    f:close()
    error("wb.read_table: '" .. path .. "' has no header line of column names", 2)
  end
  if header:sub(1, 1) == "#" then header = header:sub(2) end
  local first = header:match("%S+")
  if table_number(first) then
    f:close()
    error(format("wb.read_table: '%s' starts with numbers, not a header line of column names",
                 path), 2)
  end
  local result = {columns = {}}
  for name in header:gmatch("%S+") do
    result.columns[#result.columns + 1] = name
    result[name] = {}
  end
  local row, lineno, width = 0, 1, #result.columns
  for line in f:lines() do
    lineno = lineno + 1
    if line:find("%S") then
      row = row + 1
      local k = 0
      for field in line:gmatch("%S+") do
        k = k + 1
        local x = table_number(field)
        if k > width or x == nil then
          f:close()
          error(format("wb.read_table: '%s' line %d: %s", path, lineno, k > width
                       and format("more than the %d columns of the header", width)
                       or format("'%s' in column '%s' is not a number", field:sub(1, 40),
                                 result.columns[k])), 2)
        end
        result[result.columns[k]][row] = x
      end
      if k < width then
        f:close()
        error(format("wb.read_table: '%s' line %d: %d values for the %d columns of the header",
                     path, lineno, k, width), 2)
      end
    end
  end
  f:close()
  return result
end

-- Print rows as an aligned table: wb.print_table({"h", "error"}, {{0.1, 1e-3}, ...})
function wb.print_table(header, rows, fmt)
  fmt = fmt or "%-14.6g"
  local line = {}
  for i, h in ipairs(header) do line[i] = format("%-14s", h) end
  io.write("  " .. table.concat(line, " ") .. "\n")
  for _, r in ipairs(rows) do
    for i, x in ipairs(r) do
      line[i] = type(x) == "number" and format(fmt, x) or format("%-14s", tostring(x))
    end
    io.write("  " .. table.concat(line, " ", 1, #r) .. "\n")
  end
end

---------------------------------------------------------------------------
-- Errors of the helpers written in Lua point at the script's line: an
-- error raised inside the workbench's own Lua (or by a C function it
-- called, which carries no line) is raised again at the first frame of the
-- script; an error of the script's own code (a run function, a model
-- function) keeps its line.
---------------------------------------------------------------------------
local embedded_chunks = {}
for _, name in ipairs{"workbench.lua", "sweep.lua", "autodiff.lua", "model_definition.lua",
                      "model_compiler.lua", "check_method.lua"} do
  embedded_chunks[name] = true
end

local function at_user_line(f)
  return function(...)
    local packed = table.pack(pcall(f, ...))
    if packed[1] then return table.unpack(packed, 2, packed.n) end
    local message = packed[2]
    if type(message) ~= "string" then error(message, 0) end
    local chunk, rest = message:match("^([^:\n]+):%d+: (.*)$")
    if chunk and not embedded_chunks[chunk] then error(message, 0) end
    error(rest or message, wb._user_level())
  end
end

-- `workbench check-method` calls the checker itself: no script to point at,
-- and its own errors keep the line they were raised at
wb._check_method = wb.check_method
for _, name in ipairs{"order", "print_order", "work_precision", "print_work_precision", "plot",
                      "read_table", "print_table", "check_method", "read_results"} do
  if wb[name] then wb[name] = at_user_line(wb[name]) end
end
wb.tableau.load = at_user_line(wb.tableau.load)

return wb
