-- Seed 001: Lobatto-2 is a "nonholonomic RATTLE" with a carried
-- multiplier.  For L = |v|^2/2 - U(q) (M = I) and linear constraints
-- A(q) v = 0 the method with s = 2 has the closed form of the digest
-- (section 3.3), in the paper's sign of lambda (= -nu):
--
--   p_half = p_k + h/2 (-grad U(q_k) + A(q_k)^T lambda_k)      (the CARRIED lambda_k)
--   q_k+1  = q_k + h p_half
--   (A A^T)(q_k+1) lambda_k+1 = -(2/h) A(q_k+1) (p_half - h/2 grad U(q_k+1))
--   p_k+1  = p_half + h/2 (-grad U(q_k+1) + A(q_k+1)^T lambda_k+1),
--
-- explicit but for one k x k solve.  This script steps that scheme in Lua,
-- from the model's gradient and its constraint alone (A's rows from
-- Phi(q, e_j), Phi being linear), and compares it step by step with
-- nonholonomic.lobatto at s = 2 (full Newton to round-off: tol 1e-13, step_tol
-- 1e-15) on the three vector-space models of the paper: the particle, the
-- transmission (eps = 1/2, oscillating regime) and the chaotic system
-- (member 7 of the J = 20 ensemble; a short horizon, since its chaos
-- amplifies any round-off difference).
-- Claim checked: the two agree to round-off in q, p and the multiplier at
-- every step (max difference < 1e-12 relative to the state's size).
--
--   workbench scripts/nonholonomic/closed_form.lua [--quick]   (--quick: a tenth of the steps)
local cases = {
  {model = wb.model("nonholonomic_particle"), h = 0.05, steps = 2000, label = "particle"},
  {model = wb.model("cvt", {eps = 0.5}), h = 0.1, steps = 2000, label = "cvt, eps = 1/2"},
  {model = wb.model("chaotic_nonholonomic", {members = 20, member = 7}), h = 0.05,
   steps = 200, label = "chaotic, j = 7"},
}

local function matrix_is_identity(M)
  for i = 1, #M do
    for j = 1, #M do
      if M[i][j] ~= (i == j and 1 or 0) then return false end
    end
  end
  return true
end

-- A(q): row a has entries Phi_a(q, e_j)
local function constraint_matrix(model, q)
  local n, A = #q, {}
  for j = 1, n do
    local e = {}
    for i = 1, n do e[i] = (i == j) and 1 or 0 end
    local phi = model:nonholonomic_constraints(q, e)
    for a = 1, #phi do
      A[a] = A[a] or {}
      A[a][j] = phi[a]
    end
  end
  return A
end

-- solve C x = b for a small dense C (Gaussian elimination, partial pivoting)
local function solve(C, b)
  local n = #b
  local M, x = {}, {}
  for i = 1, n do M[i] = {table.unpack(C[i])}; M[i][n + 1] = b[i] end
  for c = 1, n do
    local pivot = c
    for r = c + 1, n do if math.abs(M[r][c]) > math.abs(M[pivot][c]) then pivot = r end end
    M[c], M[pivot] = M[pivot], M[c]
    for r = c + 1, n do
      local f = M[r][c] / M[c][c]
      for k = c, n + 1 do M[r][k] = M[r][k] - f * M[c][k] end
    end
  end
  for i = n, 1, -1 do
    local sum = M[i][n + 1]
    for k = i + 1, n do sum = sum - M[i][k] * x[k] end
    x[i] = sum / M[i][i]
  end
  return x
end

local function closed_form_step(model, q, p, lambda, h)
  local n, k = #q, #lambda
  local g, A = model:gradient(q), constraint_matrix(model, q)
  local half, q1 = {}, {}
  for i = 1, n do
    local force = -g[i]
    for a = 1, k do force = force + A[a][i] * lambda[a] end
    half[i] = p[i] + 0.5 * h * force
    q1[i] = q[i] + h * half[i]
  end
  local g1, A1 = model:gradient(q1), constraint_matrix(model, q1)
  local C, rhs = {}, {}
  for a = 1, k do
    C[a] = {}
    for b = 1, k do
      local sum = 0
      for i = 1, n do sum = sum + A1[a][i] * A1[b][i] end
      C[a][b] = sum
    end
    local sum = 0
    for i = 1, n do sum = sum + A1[a][i] * (half[i] - 0.5 * h * g1[i]) end
    rhs[a] = -2 / h * sum
  end
  local lambda1 = solve(C, rhs)
  local p1 = {}
  for i = 1, n do
    local force = -g1[i]
    for a = 1, k do force = force + A1[a][i] * lambda1[a] end
    p1[i] = half[i] + 0.5 * h * force
  end
  return q1, p1, lambda1
end

local method = wb.method("lobatto", {s = 2, tol = 1e-13, step_tol = 1e-15, iteration = "newton"})
local rows = {}
for _, c in ipairs(cases) do
  local m = c.model
  local steps = wb.quick and c.steps // 10 or c.steps
  local q0, p0 = m:initial()
  wb.check(matrix_is_identity(m:mass(q0)), c.label .. ": M = I (the closed form assumes it)")
  local sol = wb.integrate{model = m, method = method, h = c.h, steps = steps}
  local nq = #q0
  local q, p = q0, p0
  local nu0 = m:nonholonomic_multiplier(q0, p0)
  local lambda = {}
  for a = 1, #nu0 do lambda[a] = -nu0[a] end
  local nu_column = sol:column("nu")
  local columns_q, columns_p = {}, {}
  for i = 1, nq do
    columns_q[i], columns_p[i] = sol:column("q" .. i), sol:column("p" .. i)
  end
  local dq, dp, dnu, scale = 0, 0, 0, 0
  for step = 1, steps do
    q, p, lambda = closed_form_step(m, q, p, lambda, c.h)
    for i = 1, nq do
      dq = wb.max(dq, math.abs(q[i] - columns_q[i][step + 1]))
      dp = wb.max(dp, math.abs(p[i] - columns_p[i][step + 1]))
      scale = math.max(scale, math.abs(q[i]), math.abs(p[i]))
    end
    dnu = wb.max(dnu, math.abs(-lambda[1] - nu_column[step + 1]))
  end
  rows[#rows + 1] = {c.label, c.h, tostring(steps), dq, dp, dnu}
  wb.expect_below(math.max(dq, dp, dnu) / math.max(1, scale), 1e-12,
                  string.format("%s: Lobatto-2 = the closed form to round-off over %d steps "
                                .. "(q %.1e, p %.1e, nu %.1e)", c.label, steps, dq, dp, dnu))
end
wb.printf("Lobatto-2 (Newton) against the closed-form carried-multiplier scheme\n")
wb.print_table({"model", "h", "steps", "max|dq|", "max|dp|", "max|dnu|"}, rows, "%-14.3g")
