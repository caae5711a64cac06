-- Run with --plugin-path folders that hold only refused plugins (wrong
-- ABI, no entry symbol, not an ELF file, malformed descriptors): the host
-- warns, carries on, and the in-tree plugins work as usual.
local function has(text, part)
  return type(text) == "string" and text:find(part, 1, true) ~= nil
end

local ok, pendulum = pcall(wb.model, "pendulum")
wb.check(ok, "wb.model('pendulum') works next to refused plugins",
         not ok and tostring(pendulum) or nil)
if ok then
  local sol = wb.integrate{model = pendulum, method = "classic.rattle", h = 0.01, t_end = 0.1}
  wb.check(#sol.t == 11, "RATTLE ran 10 steps on the pendulum", tostring(#sol.t))
  wb.expect_below(sol:max("constraint"), 1e-10, "|g(q)| stays at the Newton tolerance")
end

-- A refused model is simply not there: a clean Lua error, not a crash.
local ok_abi, err_abi = pcall(wb.model, "wrong_abi")
wb.check(not ok_abi, "wb.model('wrong_abi') raises an error")
wb.check(has(err_abi, "unknown model 'wrong_abi'"), "the error names the model", tostring(err_abi))
wb.check(has(err_abi, "pendulum"), "the error lists the models that are available",
         tostring(err_abi))

-- Same for the refused integrator families and their methods.
for _, spec in ipairs{"missing_step.euler", "bad_option_default.euler", "name_mismatch.euler"} do
  local ok_m, err_m = pcall(wb.method, spec)
  wb.check(not ok_m and has(err_m, "unknown method '" .. spec .. "'"),
           "wb.method('" .. spec .. "') raises 'unknown method'", tostring(err_m))
end

-- The refused plugins are not listed either.
local listed = {}
for _, name in ipairs(wb.list_models()) do listed[name] = true end
wb.check(listed.pendulum and not listed.wrong_abi, "wb.list_models() has pendulum, not wrong_abi")
