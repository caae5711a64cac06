-- Shared by the scripts of scripts/liegroup/ (Bogfjellmo-Marthinsen, "High
-- order symplectic partitioned Lie group methods", 2014): the paper's
-- methods (its Tables 1 and 2), its error norm, and the symplectic form of
-- the right-trivialised T*SO(3).
local M = {}

-- The dipole on a stick with the paper's data; sign -1 (physical gravity,
-- the default) or +1 (as printed).
function M.dipole(sign)
  return wb.model("dipole", {gravity_sign = sign or -1})
end

-- Table 2's compositions of the midpoint rule, in the DIRK form of Lemma
-- 5.4: the triple jump (gamma1 = 1/(2 - 2^(1/3))) and Yoshida's 6th-order
-- "solution A", its middle weight 1 - 2 (g1 + g2 + g3) so the weights sum
-- to 1 in floating point.
M.midpoint = wb.tableau.gauss(1)
M.triple_jump = wb.tableau.triple_jump(M.midpoint)
do
  local g = {0.78451361047755726381949763, 0.23557321335935813368479318,
             -1.17767998417887100694641568}
  local g4 = 1 - 2 * (g[1] + g[2] + g[3])
  M.yoshida6_weights = {g[1], g[2], g[3], g4, g[3], g[2], g[1]}
  M.yoshida6 = wb.tableau.compose(M.midpoint, M.yoshida6_weights, "yoshida6")
end

-- Table 1 (VRKMK, tableau and cutoff r) and Table 2 (VCG); label, order.
function M.vrkmk_methods(options)
  local function method(tableau, r)
    local opts = {tableau = tableau, cutoff = r}
    for k, v in pairs(options or {}) do opts[k] = v end
    return wb.method("vrkmk", opts)
  end
  return {
    {label = "VRKMK midpoint, r = 0", short = "VRKMK mid", order = 2,
     method = method(M.midpoint, 0)},
    {label = "VRKMK Kutta 3, r = 1", short = "VRKMK Kutta3", order = 3,
     method = method("kutta3", 1)},
    {label = "VRKMK Gauss 4, r = 2", short = "VRKMK Gauss4", order = 4,
     method = method("gauss2", 2)},
    {label = "VRKMK Gauss 6, r = 4", short = "VRKMK Gauss6", order = 6,
     method = method("gauss3", 4)},
  }
end

function M.vcg_methods(options)
  local function method(tableau)
    local opts = {tableau = tableau}
    for k, v in pairs(options or {}) do opts[k] = v end
    return wb.method("vcg", opts)
  end
  return {
    {label = "VCG midpoint", short = "VCG mid", order = 2, method = method(M.midpoint)},
    {label = "VCG triple jump (4th order)", short = "VCG TJ4", order = 4,
     method = method(M.triple_jump)},
    {label = "VCG Yoshida (6th order)", short = "VCG Y6", order = 6,
     method = method(M.yoshida6)},
  }
end

-- ---- the paper's error: |mu - mu_ref|_2 + |g - g_ref|_2 (spectral) ----------

-- the largest eigenvalue of a symmetric 3x3 matrix S (rows), closed form
local function largest_eigenvalue(S)
  local p1 = S[1][2] ^ 2 + S[1][3] ^ 2 + S[2][3] ^ 2
  local q = (S[1][1] + S[2][2] + S[3][3]) / 3
  local p2 = (S[1][1] - q) ^ 2 + (S[2][2] - q) ^ 2 + (S[3][3] - q) ^ 2 + 2 * p1
  local p = math.sqrt(p2 / 6)
  if p == 0 then return q end
  local B = {}
  for i = 1, 3 do
    B[i] = {}
    for j = 1, 3 do B[i][j] = (S[i][j] - (i == j and q or 0)) / p end
  end
  local det = B[1][1] * (B[2][2] * B[3][3] - B[2][3] * B[3][2])
            - B[1][2] * (B[2][1] * B[3][3] - B[2][3] * B[3][1])
            + B[1][3] * (B[2][1] * B[3][2] - B[2][2] * B[3][1])
  local r = math.max(-1, math.min(1, det / 2))
  return q + 2 * p * math.cos(math.acos(r) / 3)
end

-- the spectral norm of a 3x3 matrix given as 9 numbers, row-major
function M.spectral_norm(A)
  local S = {}
  for i = 1, 3 do
    S[i] = {}
    for j = 1, 3 do
      local s = 0
      for k = 1, 3 do s = s + A[3 * (k - 1) + i] * A[3 * (k - 1) + j] end
      S[i][j] = s
    end
  end
  return math.sqrt(math.max(0, largest_eigenvalue(S)))
end

function M.error(q, p, q_ref, p_ref)
  return wb.norm(wb.sub(p, p_ref), "2") + M.spectral_norm(wb.sub(q, q_ref))
end

-- The digest's prototype errors at t = 0.5 (physical sign), N = 5, 10, 20,
-- 50, 100, 200, 500 steps (h = 0.5 / N), as printed there: strings, so that
-- the number of digits it printed is known.
M.digest_steps = {5, 10, 20, 50, 100, 200, 500}
M.digest = {
  ["VRKMK mid"] = {"3.61e-3", "9.23e-4", "2.32e-4", "3.72e-5", "9.29e-6", "2.32e-6", "3.72e-7"},
  ["VRKMK Kutta3"] = {"4.28e-4", "1.03e-5", "1.19e-6", "1.67e-7", "2.48e-8", "3.35e-9", "2.24e-10"},
  ["VRKMK Gauss4"] = {"1.25e-5", "7.78e-7", "4.85e-8", "1.24e-9", "7.76e-11", "4.85e-12", "1.28e-13"},
  ["VRKMK Gauss6"] = {"7.85e-9", "1.18e-10", "1.82e-12", "8.9e-15"},
  ["VCG mid"] = {"3.61e-3", "9.23e-4", "2.32e-4", "3.72e-5", "9.29e-6", "2.32e-6", "3.72e-7"},
  ["VCG TJ4"] = {"6.13e-4", "4.17e-5", "2.67e-6", "6.87e-8", "4.30e-9", "2.69e-10", "8.72e-12"},
  ["VCG Y6"] = {"2.38e-6", "4.09e-8", "6.54e-10", "2.75e-12"},
}

-- |value - printed| in half units of the printed value's last digit: at
-- most 1 when value rounds to what the digest printed.
function M.digest_units(value, printed)
  local mantissa, exponent = printed:match("^([%d.]+)e([-+]?%d+)$")
  local decimals = #(mantissa:match("%.(%d+)$") or "")
  local half_unit = 0.5 * 10 ^ (tonumber(exponent) - decimals)
  return math.abs(value - tonumber(printed)) / half_unit
end

-- The largest digest_units over the steps where the digest's value lies at
-- least 100 times above `floor` (the round-off floor of the runs); errors[i]
-- belongs to steps[i], which must be among M.digest_steps.  Also returns
-- the number of values compared.
function M.digest_distance(short, steps, errors, floor)
  local printed = M.digest[short]
  local worst, compared = 0, 0
  for i, n in ipairs(steps) do
    for k, dn in ipairs(M.digest_steps) do
      local d = printed[k]
      if dn == n and d and tonumber(d) >= 100 * floor then
        worst, compared = wb.max(worst, M.digest_units(errors[i], d)), compared + 1
      end
    end
  end
  return worst, compared
end

-- the state at t_end from the model's initial state
function M.final(model, method, h, t_end)
  local sol = wb.integrate{model = model, method = method, h = h, t_end = t_end, every = 2 ^ 53}
  local q, p = sol:final()
  return q, p, sol
end

-- ---- the symplectic form of T*SO(3), right-trivialised (digest 4.4) ----------

local function cross(a, b)
  return {a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1]}
end
M.cross = cross

local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end

-- omega_z((eta, dmu), (eta', dmu')) = <dmu', eta> - <dmu, eta'> - <mu, eta x eta'>
-- as the 6x6 matrix on the basis (e_1, 0) .. (0, e_3)
local function form(mu, bracket_sign)
  bracket_sign = bracket_sign or -1
  local W = {}
  local function basis(a)
    local eta, dmu = {0, 0, 0}, {0, 0, 0}
    if a <= 3 then eta[a] = 1 else dmu[a - 3] = 1 end
    return eta, dmu
  end
  for a = 1, 6 do
    W[a] = {}
    local eta, dmu = basis(a)
    for b = 1, 6 do
      local eta2, dmu2 = basis(b)
      W[a][b] = dot(dmu2, eta) - dot(dmu, eta2) + bracket_sign * dot(mu, cross(eta, eta2))
    end
  end
  return W
end

-- max |J^T W(z1) J - W(z0)| for one step of h from (q0, p0), J the step
-- map's Jacobian in the coordinates q' = exp(eta) q, mu' = mu + dmu by
-- central differences of step eps; bracket_sign +1 flips the sign of the
-- <mu, [eta, eta']> term (a wrong form: the control)
function M.symplecticity_defect(model, method, q0, p0, h, eps, bracket_sign)
  local function step(q, p)
    local sol = wb.integrate{model = model, method = method, h = h, steps = 1, q0 = q, p0 = p}
    return sol:final()
  end
  local q1, p1 = step(q0, p0)
  local q1inv = model:inverse(q1)
  local J = {}
  for b = 1, 6 do
    local out = {}
    for s, sign in ipairs{1, -1} do
      local eta, mu = {0, 0, 0}, {p0[1], p0[2], p0[3]}
      if b <= 3 then eta[b] = sign * eps else mu[b - 3] = mu[b - 3] + sign * eps end
      local q = model:compose(model:exp(eta), q0)
      local qs, ps = step(q, mu)
      local e1 = model:log(model:compose(qs, q1inv))
      out[s] = {e1[1], e1[2], e1[3], ps[1] - p1[1], ps[2] - p1[2], ps[3] - p1[3]}
    end
    for a = 1, 6 do
      J[a] = J[a] or {}
      J[a][b] = (out[1][a] - out[2][a]) / (2 * eps)
    end
  end
  local W0, W1 = form(p0, bracket_sign), form(p1, bracket_sign)
  local defect = 0
  for a = 1, 6 do
    for b = 1, 6 do
      local s = 0
      for i = 1, 6 do
        for j = 1, 6 do s = s + J[i][a] * W1[i][j] * J[j][b] end
      end
      defect = wb.max(defect, math.abs(s - W0[a][b]))
    end
  end
  return defect
end

-- reference slope lines through (x0, y0): {x =, y =, title =}
function M.slope(order, x_list, x0, y0, title)
  local y = {}
  for i, x in ipairs(x_list) do y[i] = y0 * (x / x0) ^ order end
  return {x = x_list, y = y, title = title, style = "lw 1 dt 2 lc rgb \"gray50\""}
end

return M
