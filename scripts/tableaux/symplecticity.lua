-- Symplecticity, measured: the Jacobian Psi of one step (q, p) -> (q1, p1)
-- of each method, by central differences extrapolated to O(d^4)
-- (Richardson: (4 D(d/2) - D(d))/3, d = 2e-4; plain central differences
-- with d = 1e-5 leave 1e-9 at the pericentre), must satisfy
-- Psi^T J Psi = J with J = [[0, I], [-I, 0]].  Kepler problem, e = 0.5,
-- h = 0.1, at the initial state (pericentre) and at four later points of
-- the orbit; the defect is max |Psi^T J Psi - J| over the entries.
--
-- Gauss (s = 1, 2, 3) and the Lobatto IIIA-IIIB pair (s = 2, 3) must be
-- symplectic to the accuracy of the differences (1e-10); explicit RK4 and
-- Radau IIA must visibly not be (defect above 1e-6).
--
--   workbench scripts/tableaux/symplecticity.lua [--quick]   (the same; it is fast)
local model = wb.model("kepler", {e = 0.5})
local h, delta = 0.1, 2e-4

local function step(method, y)
  local sol = wb.integrate{model = model, method = method, h = h, steps = 1,
                           q0 = {y[1], y[2]}, p0 = {y[3], y[4]}}
  return wb.concat(sol:final())
end

local function defect(method, y)
  local function central(j, d)
    local plus, minus = {table.unpack(y)}, {table.unpack(y)}
    plus[j], minus[j] = y[j] + d, y[j] - d
    return wb.map(wb.sub(step(method, plus), step(method, minus)),
                  function(x) return x / (2 * d) end)
  end
  local psi = {{}, {}, {}, {}}
  for j = 1, 4 do
    local coarse, fine = central(j, delta), central(j, delta / 2)
    for i = 1, 4 do psi[i][j] = (4 * fine[i] - coarse[i]) / 3 end
  end
  local J = {{0, 0, 1, 0}, {0, 0, 0, 1}, {-1, 0, 0, 0}, {0, -1, 0, 0}}
  local worst = 0
  for i = 1, 4 do
    for j = 1, 4 do
      local s = 0
      for k = 1, 4 do
        for l = 1, 4 do s = s + psi[k][i] * J[k][l] * psi[l][j] end
      end
      worst = wb.max(worst, math.abs(s - J[i][j]))
    end
  end
  return worst
end

-- the initial state and four points along the orbit
local q0, p0 = model:initial()
local orbit = wb.integrate{model = model, method = wb.method("rk", {tableau = "gauss4"}),
                           h = 2 * math.pi / 1000, steps = 800, every = 200}
local points = {}
for i = 1, #orbit.t do
  local q, p = orbit:state(i)
  points[#points + 1] = wb.concat(q, p)
end

local methods = {
  {"rk gauss1 (implicit midpoint)", wb.method("rk", {tableau = "gauss1"}), true},
  {"rk gauss2", wb.method("rk", {tableau = "gauss2"}), true},
  {"rk gauss3", wb.method("rk", {tableau = "gauss3"}), true},
  {"prk lobatto_iiia_iiib2", wb.method("prk", {tableau = "lobatto_iiia_iiib2"}), true},
  {"prk lobatto_iiia_iiib3", wb.method("prk", {tableau = "lobatto_iiia_iiib3"}), true},
  {"rk rk4 (explicit)", wb.method("rk", {tableau = "rk4"}), false},
  {"rk radau_iia2", wb.method("rk", {tableau = "radau_iia2"}), false},
}
local rows = {}
for _, m in ipairs(methods) do
  local worst = 0
  for _, y in ipairs(points) do worst = wb.max(worst, defect(m[2], y)) end
  rows[#rows + 1] = {m[1], worst, m[2].properties.symplectic and "yes" or "no"}
  if m[3] then
    wb.expect_below(worst, 1e-10, m[1] .. ": Psi^T J Psi = J")
  else
    wb.check(worst > 1e-6, m[1] .. ": visibly not symplectic", string.format("defect %.2e", worst))
  end
  wb.check(m[2].properties.symplectic == m[3], m[1] .. ": the claimed property matches the measurement")
end
wb.printf("Kepler e = 0.5, h = %g, defect max |Psi^T J Psi - J| over %d points\n", h, #points)
wb.print_table({"method", "defect", "claims symplectic"}, rows, "%-14.3g")
