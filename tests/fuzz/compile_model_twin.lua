-- wb.compile_model is its wb.define_model twin or is refused (issue 25).
-- Lua compares a table and a number with == without asking the table, so
-- tracing never sees `P.linear == 1` or `q[1] == 0`: the compiled model is
-- compared with the defined one when it is built and for each new
-- parameter set, values and derivatives, and refused where they differ.
local expect_error = wb.expect_error

local function spec(name, default)
  return {
    name = name, nq = 1, params = {linear = default, k = 1},
    potential = function(q, P)
      if P.linear == 1 then return 0 * q[1] end
      return P.k * (1 - math.cos(q[1]))
    end,
    initial = function() return {1}, {0} end,
  }
end

-- the branch taken at the default parameters: refused when built, with the
-- function, the point and both values
local defined = wb.define_model(spec("twin_eq_def", 1))
wb.check(defined:potential({1}) == 0, "define_model takes the branch P.linear == 1")
local message = expect_error(function() wb.compile_model(spec("twin_eq", 1)) end,
                             "the compiled potential is not the defined one at the initial state",
                             "compile_model refuses a test P.linear == 1 it cannot trace")
wb.check(message:find("q = {1}", 1, true) and message:find("compiled 0.4596976941318602", 1, true)
         and message:find("defined 0 ", 1, true) and message:find("linear = 1", 1, true)
         and message:find("== or ~=", 1, true), "the refusal names the point, both values, "
         .. "the parameters and the reason", message)
expect_error(function() wb.model("twin_eq") end, "the compiled potential is not the defined one",
             "the refused model stays refused")

-- not taken at the default: built; the parameter set that takes it refused,
-- the others as defined
local m = wb.compile_model(spec("twin_eq0", 0))
wb.check(m:potential({1}) == wb.define_model(spec("twin_eq0_def", 0)):potential({1}),
         "the compiled model at linear = 0 is the defined one")
expect_error(function() wb.model("twin_eq0", {linear = 1}) end,
             "model 'twin_eq0' with k = 1, linear = 1: the compiled potential is not the defined one",
             "wb.model refuses the parameter set whose branch tracing could not see")
local k2 = wb.model("twin_eq0", {k = 2})
wb.check(k2:potential({1}) == 2 * (1 - math.cos(1)), "another parameter set is accepted",
         k2:potential({1}))

-- a test of a coordinate against a number (sinc at 0), caught at the
-- initial state
expect_error(function()
  wb.compile_model{name = "twin_sinc", nq = 1,
                   potential = function(q) if q[1] == 0 then return 1 end return math.sin(q[1]) / q[1] end,
                   initial = function() return {0}, {1} end}
end, "the compiled potential is not the defined one at the initial state, q = {0}",
  "compile_model refuses q[1] == 0 it cannot trace")

-- math.max as Lua decides: a NaN argument first is kept
do
  local function nan_max(name)
    return {name = name, nq = 2,
            potential = function(q) return math.max(math.log(q[1]), q[2]) + q[2] ^ 2 end,
            initial = function() return {-1, 0.5}, {0, 0} end}
  end
  local d = wb.define_model(nan_max("twin_max_def"))
  local c = wb.compile_model(nan_max("twin_max"))
  local a, b = d:potential({-1, 0.5}), c:potential({-1, 0.5})
  wb.check(a ~= a and b ~= b, "math.max(NaN, x) compiled is NaN, as Lua's", string.format("%g vs %g", a, b))
  a, b = d:potential({2, 0.5}), c:potential({2, 0.5})
  wb.check(a == b, "math.max elsewhere the same", string.format("%.17g vs %.17g", a, b))
end

-- the refusal is raised at the script's line
local text = expect_error(function() wb.compile_model(spec("twin_eq_line", 1)) end,
                          "compile_model_twin.lua:", "the refusal points at the script's line")
