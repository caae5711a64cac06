-- Defects found in review, each pinned by a check that failed before its fix.

local function raises(fn, pattern)
  local ok, err = pcall(fn)
  return not ok and tostring(err):find(pattern, 1, true) ~= nil, tostring(err)
end

-- 1. A tableau built by a script cannot take a built-in name (it used to
--    replace gauss2 everywhere, and overflow spark's buffers).
local ok, why = raises(function()
  return wb.tableau{name = "gauss2", a = {{0}}, b = {1}}
end, "belongs to a built-in tableau")
wb.check(ok, "a user tableau named 'gauss2' is refused", why)
ok, why = raises(function()
  return wb.tableau{name = "lobatto_iiia_iiib3", a = {{0}}, b = {1}}
end, "belongs to a built-in tableau")
wb.check(ok, "a user tableau named 'lobatto_iiia_iiib3' is refused", why)
wb.check(wb.method("rk").order == 4, "rk's default tableau is still Gauss s = 2 (order 4)")
local mine = wb.tableau{name = "mine", a = {{0}}, b = {1}}
ok, why = raises(function() return wb.method("rk", {tableau = "mine"}) end, "unknown tableau 'mine'")
wb.check(ok, "a user tableau is passed as an object, never found by name", why)
wb.check(wb.method("rk", {tableau = mine}).order == 1, "... and works as an object")

-- 2. prk with a tableau that is not a pair: refused when the option is set
--    (describe() used to dereference the missing a2).
ok, why = raises(function() return wb.method("prk", {tableau = "gauss2"}) end,
                 "is not a partitioned pair")
wb.check(ok, "prk refuses a tableau without a2, b2 at wb.method", why)

-- 3. A numeric tableau name survives garbage collection (it was read after
--    the string holding it could be collected).
collectgarbage("setpause", 0)
for i = 1, 200 do
  local T = wb.tableau{name = 1234567 + i, a = {{0, 0}, {1, 0}}, b = {0.5, 0.5}}
  if T.name ~= tostring(1234567 + i) then wb.check(false, "tableau name kept", T.name) break end
end
collectgarbage("setpause", 200)
wb.check(true, "200 tableaux with numeric names keep their names")

-- 4. Objects used from a finalizer after their own finalizer ran raise an
--    error instead of dereferencing NULL.  The guard is created before the
--    objects, so that at exit its finalizer runs after theirs.
local guard = setmetatable({}, {__gc = function(self)
  local answered = pcall(function() return self.sol.n end)
  io.stderr:write(answered and "FINALIZED SOLUTION STILL ANSWERED\n"
                           or "finalized solution refused cleanly\n")
end})
guard.model = wb.model("pendulum")
guard.sol = wb.integrate{model = guard.model, method = "rattle", h = 0.1, steps = 2}
wb.check(guard.sol.n == 3, "a solution held by a finalizer works while alive")

-- 5. rk reads (a, b, c) alone from a pair: its order is IIIA's, not the pair's.
wb.check(wb.method("rk", {tableau = "lobatto_iiia_iiib5"}).order == 8,
         "rk with the Lobatto IIIA-IIIB pair (s = 5) reports IIIA's order 8")
wb.check(wb.method("prk", {tableau = "lobatto_iiia_iiib5"}).order == 8,
         "prk with the same pair reports the pair's order 8")

-- 6. Compositions use the base's true order (beyond the tree conditions'
--    cap of 8): the triple jump of Gauss s = 5 (order 10) takes the
--    weights for p = 10, gamma1 = 1/(2 - 2^(1/11)).
local g5 = wb.tableau.gauss(5)
wb.check(g5:order() == 10, "Gauss s = 5 has order 10 (from B, C, D beyond the trees)",
         tostring(g5:order()))
local tj = wb.tableau.triple_jump(g5)
wb.expect_near(tj.b[1] / g5.b[1], 1 / (2 - 2 ^ (1 / 11)), 1e-14,
               "triple jump of an order-10 method uses gamma1 = 1/(2 - 2^(1/11))")
