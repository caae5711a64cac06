-- m:applies_to(model) means "can be set up" (issue 13's class: an answer
-- that is not the truth).  It checked the descriptor alone (extensions,
-- constraint kinds), so EM and EM-G said they applied to modified_pendulum,
-- whose constraint is not quadratic, and refused only when integrate()
-- created them; a method may now refuse a model's structure before any
-- instance (wb_method.check_model, ABI 1.6), and applies_to asks it.
local modified = wb.model("modified_pendulum")
for _, name in ipairs{"em", "em_gonzalez"} do
  local ok, why = wb.method(name):applies_to(modified)
  wb.check(not ok and why:find("quadratic constraints", 1, true) ~= nil,
           name .. " does not apply to modified_pendulum, and says why", tostring(why))
  wb.check(wb.method(name):applies_to(wb.model("spherical_pendulum")),
           name .. " applies to the spherical pendulum")
end
local ok, why = wb.method("em", {discrete_gradient = "greenspan"}):applies_to(
  wb.model("pendulum_chain", {N = 3}))
wb.check(not ok and why:find("greenspan", 1, true) ~= nil,
         "em with discrete_gradient = greenspan does not apply without potential invariants",
         tostring(why))

-- Every installed method on every installed model at its defaults: where
-- applies_to says yes, the method is set up (one step of h = 1e-4 runs, or
-- fails in the step, never at set-up); where it says no, integrate refuses
-- with the same reason.
local pairs_tried, set_up_failures, disagreements = 0, {}, {}
for _, model_name in ipairs(wb.list_models()) do
  local model = wb.model(model_name)
  for _, name in ipairs(wb.list_methods()) do
    local method = wb.method(name)
    local applies, reason = method:applies_to(model)
    local ran, err = pcall(wb.integrate, {model = model, method = method, h = 1e-4, steps = 1})
    pairs_tried = pairs_tried + 1
    local at_set_up = not ran and tostring(err):find("could not be set up", 1, true)
    if applies and at_set_up then
      set_up_failures[#set_up_failures + 1] = name .. " on " .. model_name .. ": " .. tostring(err)
    elseif not applies and (ran or not tostring(err):find(reason, 1, true)) then
      disagreements[#disagreements + 1] = name .. " on " .. model_name
    end
  end
end
for _, line in ipairs(set_up_failures) do print("  " .. line) end
wb.check(#set_up_failures == 0, string.format("every (method, model) pair that applies is set up "
         .. "(%d pairs)", pairs_tried), table.concat(set_up_failures, "; "))
wb.check(#disagreements == 0, "every pair that does not apply is refused by integrate with its reason",
         table.concat(disagreements, "; "))
