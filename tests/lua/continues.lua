-- A helper of the Lua tests, not a test: continues(method, model, h, n)
-- is true when n steps, then n more from sol:final() (the state and the
-- method's carried unknowns), end bit for bit where 2n steps in one run
-- end.  Load it with
--
--   package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
--   local continues = require "continues"
return function(method, model, h, n)
  local whole = wb.integrate{model = model, method = method, h = h, steps = 2 * n, every = n}
  local half = wb.integrate{model = model, method = method, h = h, steps = n, every = n}
  local q, p, aux = half:final()
  local rest = wb.integrate{model = model, method = method, h = h, steps = n, every = n,
                            t0 = half.t_final, q0 = q, p0 = p, aux0 = aux}
  local a, b = wb.concat(whole:final()), wb.concat(rest:final())
  for i = 1, #a do
    if a[i] ~= b[i] then return false end
  end
  return #a == #b
end
