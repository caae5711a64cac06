-- A method refuses a model it cannot integrate, before any step, with an
-- error that names both and says what is missing.
local function has(text, part)
  return type(text) == "string" and text:find(part, 1, true) ~= nil
end

-- RATTLE requires wb.holonomic/1; the Kepler problem is unconstrained.
local kepler = wb.model("kepler")
local ok, err = pcall(wb.integrate, {model = kepler, method = wb.method("classic.rattle"),
                                     h = 0.1, t_end = 1})
wb.check(not ok, "RATTLE on kepler raises an error")
wb.check(has(err, "wb.holonomic/1"), "the error names the missing extension 'wb.holonomic/1'",
         tostring(err))
wb.check(has(err, "kepler"), "the error names the model", tostring(err))
wb.check(has(err, "rattle"), "the error names the method", tostring(err))

-- Stormer-Verlet handles unconstrained models only; the pendulum has a
-- holonomic constraint (and does provide wb.mechanical/1, so this is the
-- `handles` check, not the `requires` one).
local pendulum = wb.model("pendulum")
ok, err = pcall(wb.integrate, {model = pendulum, method = wb.method("classic.verlet"),
                               h = 0.1, t_end = 1})
wb.check(not ok, "Stormer-Verlet on the pendulum raises an error")
wb.check(has(err, "holonomic constraint"), "the error mentions holonomic constraints",
         tostring(err))
wb.check(has(err, "pendulum") and has(err, "verlet"), "the error names model and method",
         tostring(err))

-- After a refusal the same objects still work with compatible partners.
local sol = wb.integrate{model = kepler, method = wb.method("classic.verlet"), h = 0.01,
                         t_end = 0.1}
wb.check(#sol.t == 11, "Stormer-Verlet on kepler after the refusals", tostring(#sol.t))
sol = wb.integrate{model = pendulum, method = wb.method("classic.rattle"), h = 0.01, t_end = 0.1}
wb.check(#sol.t == 11, "RATTLE on the pendulum after the refusals", tostring(#sol.t))
