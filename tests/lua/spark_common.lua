-- What spark's tests share: a run with every = steps, option tables
-- merged, the distance between two runs' final states, and whether a run
-- continued from sol:final() equals the whole run bit for bit.
local M = {}

function M.run(model, options, h, steps)
  return wb.integrate{model = model, method = wb.method("spark", options), h = h, steps = steps,
                      every = steps}
end

function M.with(options, extra)
  local all = {}
  for k, v in pairs(options) do all[k] = v end
  for k, v in pairs(extra) do all[k] = v end
  return all
end

function M.gap(a, b) return wb.norm(wb.sub(wb.concat(a:final()), wb.concat(b:final()))) end

function M.continues(model, options, h, n)
  local whole = M.run(model, options, h, 2 * n)
  local half = M.run(model, options, h, n)
  local q, p, aux = half:final()
  local rest = wb.integrate{model = model, method = wb.method("spark", options), h = h,
                            steps = n, every = n, t0 = half.t_final, q0 = q, p0 = p, aux0 = aux}
  local a, b = wb.concat(whole:final()), wb.concat(rest:final())
  return #a == #b and wb.norm(wb.sub(a, b)) == 0
end

return M
