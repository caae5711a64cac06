-- What the work-precision studies of scripts/bench/ share: run the study,
-- print its table, and check what a work-precision diagram claims --
-- each method's error falls with h at its order (fitted above the
-- round-off floor, or the error is at that floor).
local common = {}

-- The step sizes unit / n for each n of `counts` (unit defaults to 1).
function common.steps(counts, unit)
  local h = {}
  for i, n in ipairs(counts) do h[i] = (unit or 1) / n end
  return h
end

-- study: the wb.work_precision spec plus `orders = {label = order}` (the
-- orders to check) and `tolerance` (on the fitted order).
function common.run(study)
  local result = wb.work_precision(study)
  wb.print_work_precision(result, study.title)
  local floor = study.floor or 1e-11
  for _, label in ipairs(result.labels) do
    local rows = result.by_method[label]
    local h, e = {}, {}
    for i, r in ipairs(rows) do h[i], e[i] = r.h, r.error end
    local order = study.orders and study.orders[label]
    if order then
      local fitted, used = wb.fit_order(h, e, floor)
      if used >= 2 then
        wb.expect_near(fitted, order, study.tolerance or 0.3,
                       string.format("%s: error falls like h^%d (fitted %.2f over %d steps "
                                     .. "above %.0e)", label, order, fitted, used, floor))
      else
        wb.check(e[#e] <= floor * 10, string.format("%s: at round-off on every h (%.2e)",
                                                    label, e[#e]))
      end
    end
  end
  return result
end

-- The row of `label` with the smallest error, and the cheapest row of
-- `label` (in evaluations) whose error is at most `error`.
function common.best(result, label)
  local best
  for _, r in ipairs(result.by_method[label]) do
    if not best or r.error < best.error then best = r end
  end
  return best
end

function common.cheapest_below(result, label, error)
  local cheapest
  for _, r in ipairs(result.by_method[label]) do
    if r.error <= error and (not cheapest or r.function_evals < cheapest.function_evals) then
      cheapest = r
    end
  end
  return cheapest
end

return common
