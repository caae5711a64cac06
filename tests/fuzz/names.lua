-- Names a model declares for its invariants become solution columns: a
-- space would shift every column of a written table, a built-in name would
-- shadow one.  Refused when the model is created, with the reason; a
-- family's carried unknown named like a model's invariant is refused when
-- a run would record both.
local function refused(name, part)
  local ok, err = pcall(wb.model, name)
  wb.check(not ok and tostring(err):find(part, 1, true),
           "wb.model('" .. name .. "') refused: " .. part, tostring(err))
end
refused("names_space", "invariant 1 is named 'L z', not an identifier")
refused("names_builtin", "invariant 1 is named 'energy_error', the name of a built-in column")
refused("names_numbered", "invariant 1 is named 'q1', the name of a built-in numbered column")
refused("names_twice", "two invariants are named 'J'")

local m = wb.model("names_ok")
local sol = wb.integrate{model = m, method = "aux_ok.euler", h = 0.01, t_end = 0.1}
wb.check(sol:column("h")[1] == 0.5 and #sol:column("force") == 11,
         "the control: invariant h and aux force are columns of their own")
local ok, err = pcall(wb.integrate, {model = m, method = "aux_like_invariant.euler", h = 0.01,
                                     t_end = 0.1})
wb.check(not ok and tostring(err):find("two columns would be named 'h'", 1, true),
         "an aux unknown named like the model's invariant is refused", tostring(err))
