-- Tableaux: generated coefficients against the closed forms (s <= 3), the
-- simplifying assumptions of each family for every s shipped, orders from
-- the rooted-tree conditions, symplecticity and symmetry, stability
-- functions, user tableaux (tables and files) and their validation.
local sqrt, r3, r6, r15 = math.sqrt, math.sqrt(3), math.sqrt(6), math.sqrt(15)

local function max_diff(T, a, b, c)
  local d = 0
  for i = 1, T.s do
    d = wb.max(d, math.abs(T.b[i] - b[i]), math.abs(T.c[i] - c[i]))
    for j = 1, T.s do d = wb.max(d, math.abs(T.a[i][j] - a[i][j])) end
  end
  return d
end

local closed = {
  {"gauss", 1, {{1/2}}, {1}, {1/2}},
  {"gauss", 2, {{1/4, 1/4 - r3/6}, {1/4 + r3/6, 1/4}}, {1/2, 1/2}, {1/2 - r3/6, 1/2 + r3/6}},
  {"gauss", 3, {{5/36, 2/9 - r15/15, 5/36 - r15/30}, {5/36 + r15/24, 2/9, 5/36 - r15/24},
                {5/36 + r15/30, 2/9 + r15/15, 5/36}}, {5/18, 4/9, 5/18},
   {1/2 - r15/10, 1/2, 1/2 + r15/10}},
  {"radau_ia", 1, {{1}}, {1}, {0}},
  {"radau_ia", 2, {{1/4, -1/4}, {1/4, 5/12}}, {1/4, 3/4}, {0, 2/3}},
  {"radau_ia", 3, {{1/9, (-1 - r6)/18, (-1 + r6)/18}, {1/9, (88 + 7*r6)/360, (88 - 43*r6)/360},
                   {1/9, (88 + 43*r6)/360, (88 - 7*r6)/360}}, {1/9, (16 + r6)/36, (16 - r6)/36},
   {0, (6 - r6)/10, (6 + r6)/10}},
  {"radau_iia", 1, {{1}}, {1}, {1}},
  {"radau_iia", 2, {{5/12, -1/12}, {3/4, 1/4}}, {3/4, 1/4}, {1/3, 1}},
  {"radau_iia", 3, {{(88 - 7*r6)/360, (296 - 169*r6)/1800, (-2 + 3*r6)/225},
                    {(296 + 169*r6)/1800, (88 + 7*r6)/360, (-2 - 3*r6)/225},
                    {(16 - r6)/36, (16 + r6)/36, 1/9}}, {(16 - r6)/36, (16 + r6)/36, 1/9},
   {(4 - r6)/10, (4 + r6)/10, 1}},
  {"lobatto_iiia", 2, {{0, 0}, {1/2, 1/2}}, {1/2, 1/2}, {0, 1}},
  {"lobatto_iiia", 3, {{0, 0, 0}, {5/24, 1/3, -1/24}, {1/6, 2/3, 1/6}}, {1/6, 2/3, 1/6}, {0, 1/2, 1}},
  {"lobatto_iiib", 2, {{1/2, 0}, {1/2, 0}}, {1/2, 1/2}, {0, 1}},
  {"lobatto_iiib", 3, {{1/6, -1/6, 0}, {1/6, 1/3, 0}, {1/6, 5/6, 0}}, {1/6, 2/3, 1/6}, {0, 1/2, 1}},
  {"lobatto_iiic", 2, {{1/2, -1/2}, {1/2, 1/2}}, {1/2, 1/2}, {0, 1}},
  {"lobatto_iiic", 3, {{1/6, -1/3, 1/6}, {1/6, 5/12, -1/12}, {1/6, 2/3, 1/6}}, {1/6, 2/3, 1/6},
   {0, 1/2, 1}},
  {"lobatto_iiic_star", 2, {{0, 0}, {1, 0}}, {1/2, 1/2}, {0, 1}},
  {"lobatto_iiic_star", 3, {{0, 0, 0}, {1/4, 1/4, 0}, {0, 1, 0}}, {1/6, 2/3, 1/6}, {0, 1/2, 1}},
}
for _, cf in ipairs(closed) do
  local T = wb.tableau[cf[1]](cf[2])
  wb.expect_below(max_diff(T, cf[3], cf[4], cf[5]), 1e-15,
                  string.format("%s s = %d matches its closed form", cf[1], cf[2]))
end

-- B(p), C(q), D(r) and the order, for every stage count shipped.
local families = {
  gauss = function(s) return 2 * s, s, s end,
  radau_ia = function(s) return 2 * s - 1, s - 1, s end,
  radau_iia = function(s) return 2 * s - 1, s, s - 1 end,
  lobatto_iiia = function(s) return 2 * s - 2, s, s - 2 end,
  lobatto_iiib = function(s) return 2 * s - 2, s - 2, s end,
  lobatto_iiic = function(s) return 2 * s - 2, s - 1, s - 1 end,
  lobatto_iiic_star = function(s) return 2 * s - 2, s - 1, s - 1 end,
}
for name, assumptions in pairs(families) do
  local worst, order_ok, first = 0, true, name:find("lobatto") and 2 or 1
  for s = first, 16 do
    local T = wb.tableau[name](s)
    local p, q, r = assumptions(s)
    worst = wb.max(worst, T:defect_B(p), T:defect_C(q), T:defect_D(r))
    order_ok = order_ok and T:order() == p and T:order(1e-10) == math.min(p, 8)
  end
  wb.expect_below(worst, 1e-13, string.format("%s s = %d..16: B(p), C(q), D(r) hold", name, first))
  wb.check(order_ok, name .. ": order = nominal (tree conditions to 8, then B, C, D)")
end
for s = 2, 6 do
  local P = wb.tableau.lobatto_iiia_iiib(s)
  wb.check(P:order() == 2 * s - 2 and P:order(1e-10) == math.min(2 * s - 2, 6),
           string.format("Lobatto IIIA-IIIB pair s = %d has partitioned order %d", s, 2 * s - 2),
           tostring(P:order()))
  wb.check(P:is_symplectic(), string.format("Lobatto IIIA-IIIB pair s = %d is symplectic", s))
end
local pair3 = wb.tableau.lobatto_iiia_iiib(3)
wb.expect_below(max_diff(pair3, {{0, 0, 0}, {5/24, 1/3, -1/24}, {1/6, 2/3, 1/6}}, {1/6, 2/3, 1/6},
                         {0, 1/2, 1}), 1e-15, "the pair's first tableau is Lobatto IIIA")
local iiib = {{1/6, -1/6, 0}, {1/6, 1/3, 0}, {1/6, 5/6, 0}}
local d = 0
for i = 1, 3 do for j = 1, 3 do d = wb.max(d, math.abs(pair3.a2[i][j] - iiib[i][j])) end end
wb.expect_below(d, 1e-15, "the pair's second tableau is Lobatto IIIB")

-- explicit methods (wb.tableau.order(T) is T:order())
for name, order in pairs({euler = 1, explicit_midpoint = 2, heun = 2, kutta3 = 3, rk4 = 4, rk38 = 4}) do
  wb.check(wb.tableau.order(wb.tableau.named(name)) == order, string.format("%s has order %d", name, order))
end

-- structure
for s = 1, 5 do
  local G = wb.tableau.gauss(s)
  local sym, defect = G:is_symplectic()
  wb.check(sym and G:is_symmetric(), string.format("Gauss s = %d is symplectic and symmetric", s),
           string.format("defect %.1e", defect))
end
wb.check(not wb.tableau.named("rk4"):is_symplectic(), "RK4 is not symplectic")
wb.check(not wb.tableau.radau_iia(3):is_symmetric(), "Radau IIA is not symmetric")
wb.check(wb.tableau.lobatto_iiia(3):is_symmetric(), "Lobatto IIIA is symmetric")

-- stability functions
local re, im = wb.tableau.gauss(1):stability(-1)
wb.expect_near(re, (1 - 0.5) / (1 + 0.5), 1e-15, "Gauss s = 1: R(-1) = (1 + z/2)/(1 - z/2)")
re = wb.tableau.named("rk4"):stability(-1)
wb.expect_near(re, 1 - 1 + 1/2 - 1/6 + 1/24, 1e-15, "RK4: R(-1) = 1 + z + z^2/2 + z^3/6 + z^4/24")
re = wb.tableau.radau_iia(1):stability(-3)
wb.expect_near(re, 1 / 4, 1e-15, "Radau IIA s = 1: R(z) = 1/(1 - z)")
for s = 1, 6 do
  local r_re, r_im = wb.tableau.gauss(s):stability(0, 7.3)
  wb.expect_near(math.sqrt(r_re ^ 2 + r_im ^ 2), 1, 1e-13,
                 string.format("Gauss s = %d: |R(iy)| = 1 on the imaginary axis", s))
end

-- composition
local tj = wb.tableau.triple_jump(wb.tableau.gauss(1))
wb.check(tj.s == 3 and tj:order() == 4 and tj:is_symmetric(),
         "triple jump of the midpoint rule: 3 stages, order 4, symmetric")
wb.check(wb.tableau.suzuki(wb.tableau.gauss(2)):order() == 6, "Suzuki composition of Gauss s = 2: order 6")
local ok, err = pcall(wb.tableau.triple_jump, wb.tableau.radau_iia(2))
wb.check(not ok and tostring(err):find("not symmetric", 1, true), "composition refuses a non-symmetric base")

-- user tableaux: from tables, from a file, and their validation
local heun = wb.tableau{name = "my_heun", a = {{0, 0}, {1, 0}}, b = {1/2, 1/2}}
wb.check(heun:order() == 2 and heun.c[2] == 1, "a tableau from Lua tables; c defaults to the row sums")
local expect_error = wb.expect_error
expect_error(function() wb.tableau{a = {{0, 0}, {1}}, b = {1/2, 1/2}} end,
             "a must be square: row 2 has 1 entries, expected 2", "non-square a")
expect_error(function() wb.tableau{a = {{0, 0}, {1, 0}}, b = {1}} end, "b has 1 entries, but a is 2x2",
             "b of the wrong length")
expect_error(function() wb.tableau{a = {{0, 0}, {1, 0}}, b = {1/2, 1/2}, c = {0}} end,
             "c has 1 entries", "c of the wrong length")
expect_error(function() wb.tableau{a = {{0, 0}, {0 / 0, 0}}, b = {1/2, 1/2}} end, "is not finite",
             "non-finite entry")
expect_error(function() wb.tableau{a = {{0, 0}, {1, 0}}, b = {1/2, 1/2}, a2 = {{0}}} end,
             "a2 has 1 rows, a has 2", "partitioned pair of different sizes")
local T, warning = wb.tableau{name = "odd_c", a = {{0, 0}, {1, 0}}, b = {1/2, 1/2}, c = {0, 0.9}}
wb.check(T ~= nil and warning and warning:find("row(s) 2", 1, true),
         "c not the row sums: accepted with a warning naming the row", warning)
local P, both = wb.tableau{name = "odd_pair", a = {{0, 0}, {1, 0}}, b = {1/2, 1/2},
                           c = {0, 0.9}, a2 = {{0, 0}, {1, 0}}, c2 = {0.1, 1}}
wb.check(P ~= nil and both and both:find("c is not the row sums of a in row(s) 2", 1, true)
         and both:find("c2 is not the row sums of a2 in row(s) 1", 1, true),
         "c and c2 both off: one warning names both", both)

-- Orders beyond the tree conditions' cap come from B, C, D, rounded up to
-- even for a symmetric method: the triple jump of Gauss s = 5 (order 10)
-- has order 12; Lobatto IIIA-IIIB pairs (common q, r give only 2s - 3)
-- keep their 2s - 2.
wb.check(wb.tableau.triple_jump(wb.tableau.gauss(5)):order() == 12,
         "triple jump of Gauss s = 5: order 12")
for s = 5, 7 do
  local pair = wb.tableau.named("lobatto_iiia_iiib" .. s)
  wb.check(pair:order() == 2 * s - 2, "Lobatto IIIA-IIIB s = " .. s .. ": pair order " .. 2 * s - 2,
           tostring(pair:order()))
end

local file = wb.output_path("gauss2.tab")
wb.write_file("gauss2.tab", [[
# the 2-stage Gauss method, with exact expressions
name file_gauss2
a
  1/4             1/4-sqrt(3)/6
  1/4+sqrt(3)/6   1/4
b
  1/2 1/2
c
  1/2-sqrt(3)/6 1/2+sqrt(3)/6
]])
local loaded = wb.tableau.load(file)
wb.expect_below(max_diff(loaded, wb.tableau.gauss(2).a, wb.tableau.gauss(2).b, wb.tableau.gauss(2).c),
                1e-15, "a tableau file with expressions loads to Gauss s = 2")
wb.check(loaded.name == "file_gauss2" and loaded:order() == 4, "the loaded tableau keeps its name and order")
wb.write_file("gauss2.tab", "a\n 0 0\n 1 zero\nb\n 0.5 0.5\n")
expect_error(function() wb.tableau.load(file) end, "line 3: 'zero' is not a number",
             "a bad number in a tableau file names the line")
