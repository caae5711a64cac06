-- Helpers shared by the seed-001 scripts (Martin de Diego and Sato
-- Martin de Almagro, "High-order geometric methods for nonholonomic
-- mechanical systems"): the method, reference solutions by an independent
-- method, errors, and the formatting of lists.
local common = {}

-- The paper's Lobatto-s with the workbench defaults and the given options.
function common.lobatto(s, options)
  local o = {s = s}
  for k, v in pairs(options or {}) do o[k] = v end
  return wb.method("lobatto", o)
end

-- The final state of a run, and the carried multiplier.
function common.final(model, method, h, t_end, extra)
  local spec = {model = model, method = method, h = h, t_end = t_end, every = 2 ^ 53}
  for k, v in pairs(extra or {}) do spec[k] = v end
  local sol = wb.integrate(spec)
  local q, p, aux = sol:final()
  return {q = q, p = p, nu = aux.nu, sol = sol}
end

-- A reference at t_end by an independent method: classical RK4 in the
-- index-1 form (rkmk4 on a Lie group) at h = 1e-4, with the consistent
-- multiplier of its final state.
function common.reference(model, t_end, h)
  local method = wb.method(model.lie_group and "rkmk4" or "rk4")
  local r = common.final(model, method, h or 1e-4, t_end)
  r.nu = model:nonholonomic_multiplier(r.q, r.p)
  return r
end

-- max |x - ref| / max |ref|
function common.relative_error(x, ref)
  local scale = wb.norm(ref, "inf")
  return wb.norm(wb.sub(x, ref), "inf") / (scale > 0 and scale or 1)
end

function common.format_list(values, fmt)
  local out = {}
  for i, v in ipairs(values) do out[i] = string.format(fmt or "%.3g", v) end
  return table.concat(out, " ")
end

-- A step size list h0, h0/2, ... (n values)
function common.halvings(h0, n)
  local h = {}
  for i = 1, n do h[i] = h0 / 2 ^ (i - 1) end
  return h
end

-- The order of the multiplier (Cor. 5.2.1): s for even s, s - 1 for odd s.
function common.multiplier_order(s)
  return s % 2 == 0 and s or s - 1
end

local colours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}
function common.style(i, points)
  return string.format("lw 2 lc rgb '%s'%s", colours[(i - 1) % #colours + 1],
                       points and " pt 7 ps 1" or "")
end

return common
