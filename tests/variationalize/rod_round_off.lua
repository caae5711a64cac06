-- variationalize.vi where a row's round-off floor is that of the unknowns
-- (issue 13): tethered_satellites with l = 0.01 (its declared bound) keeps
-- positions of size z0 = 20 with tethers of 0.01, so each momentum row of
-- the discrete Euler-Lagrange equations moves by ~|p| / l x eps |q| when q2
-- moves by its last bit (the pull-backs' curvature), 1e3 x the size of the
-- row's own terms.  Newton's test, relative to those terms, could not be
-- met: every h from 9e-5 down to 1e-7 failed within 3 .. 11 steps ("did not
-- converge (max |residual| 3.3e-13 ...)", stalled against a floor
-- eps sum_j |J_ij| |x_j| = 8.9e-13), while 3.65e-4 stepped.  Each row's
-- scale now takes in the unknowns' round-off (del.c, unknowns_round_off):
-- every h steps and agrees with RATTLE at h / 100 (measured 1.1e-8 .. 4.2e-7 of
-- each component's size).
local format = string.format
local steps = 20
local model = wb.model("tethered_satellites", {l = 0.01})

local function final(method, options, h, count)
  local sol = wb.integrate{model = model, method = wb.method(method, options), h = h,
                           steps = count, every = count, on_failure = "stop"}
  return sol
end

local q0, p0 = model:initial()
local n = #q0
local x0 = wb.concat(q0, model:velocity(q0, p0))
local function state(sol)
  local q, p = sol:final()
  return wb.concat(q, model:velocity(q, p))
end

-- the largest gap of a component over its own size s_i (max of |x_i(0)|,
-- |x_i(T)|, |x_i(T) - x_i(0)|: a tether's relative motion against its own
-- size, not the orbit's) + 1e-6 of the largest of its kind (positions,
-- velocities), as tests/fuzz/accuracy.lua measures
local function gap(x, reference)
  local size, largest = {}, {0, 0}
  for i = 1, #x do
    size[i] = math.max(math.abs(x0[i]), math.abs(reference[i]), math.abs(reference[i] - x0[i]))
    local kind = i <= n and 1 or 2
    largest[kind] = math.max(largest[kind], size[i])
  end
  local worst = 0
  for i = 1, #x do
    local scale = size[i] + 1e-6 * largest[i <= n and 1 or 2]
    worst = math.max(worst, math.abs(x[i] - reference[i]) / scale)
  end
  return worst
end

for _, h in ipairs{9.12805e-5, 1e-5, 1e-6, 1e-7} do
  local run = final("vi", {}, h, steps)
  wb.check(run.ok, format("tethered_satellites l = 0.01, h = %g: vi steps %d steps", h, steps),
           run.failure and tostring(run.failure):gsub(";.*", "") or nil)
  if run.ok then
    local reference = state(final("classic.rattle", {}, h / 100, 100 * steps))
    wb.expect_below(gap(state(run), reference), 1e-6,
                    format("h = %g: (q, v) follows RATTLE at h/100, each component in its own size", h))
  end
end
