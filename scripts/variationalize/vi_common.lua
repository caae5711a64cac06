-- Shared helpers of the variationalize scripts (Patrick, Cuell, Spiteri,
-- Zhang, "On converting any one-step method to a variational integrator of
-- the same order", seed 003; digest shared/notes/003.md): the digest's test
-- problems with their data, reference solutions, the discrete momentum
-- map, and the prototype's Tables A-E.  Not a reproduction by itself; a
-- script loads it with
--
--   package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
--   local common = require "vi_common"
--
-- The paper has no numerical section: every number here is from the
-- digest's pure-Python prototype ([PROTO]), not from the paper.
local common = {}

local format, abs, sin, cos = string.format, math.abs, math.sin, math.cos

---------------------------------------------------------------------------
-- The digest's problems (its labels P1, P2, P3)
---------------------------------------------------------------------------

-- P1: spherical pendulum, m = gamma = l = 1, q0 = (sin 1, 0, -cos 1),
-- v0 = (0, 1, 0); reference at T = 1 (RK4, h = 1e-4, index-1 ODE).
function common.p1()
  return {name = "spherical_pendulum", label = "P1 spherical pendulum",
          model = wb.model("spherical_pendulum", {m = 1, l = 1, g = 1}),
          q0 = {sin(1), 0, -cos(1)}, p0 = {0, 1, 0},
          reference_T1 = {0.26172872178593, 0.75294796997562, -0.60379419565105,
                          -1.01940250966105, 0.28240666162353, -0.08971499502994}}
end

-- P2: double spherical pendulum, all parameters 1, x1 = (sin 1, 0, -cos 1),
-- x2 = x1 + (0, sin 0.5, -cos 0.5), v1 = (0, 1, 0), v2 = (0.5, 1, 0).
function common.p2()
  local x1 = {sin(1), 0, -cos(1)}
  return {name = "double_spherical_pendulum", label = "P2 double spherical pendulum",
          model = wb.model("double_spherical_pendulum", {m1 = 1, m2 = 1, l1 = 1, l2 = 1, g = 1}),
          q0 = {x1[1], x1[2], x1[3], x1[1], x1[2] + sin(0.5), x1[3] - cos(0.5)},
          p0 = {0, 1, 0, 0.5, 1, 0}}
end

-- P3: M = diag(1, 2), V = -cos q1 + q2^2 / 2 + 0.1 q1 q2^2, w = (0.7, -0.4;
-- 0.3, 0.5): the pendulum_oscillator model's defaults.
function common.p3()
  local model = wb.model("pendulum_oscillator")
  local q0, p0 = model:initial()
  return {name = "pendulum_oscillator", label = "P3 pendulum_oscillator", model = model,
          q0 = q0, p0 = p0}
end

-- The rotationally symmetric unconstrained companion (not in the digest).
function common.hat()
  local model = wb.model("mexican_hat")
  local q0, p0 = model:initial()
  return {name = "mexican_hat", label = "mexican_hat", model = model, q0 = q0, p0 = p0}
end

-- The method with layer `layer` and bias (am, am + 1); more options merged.
function common.vi(layer, am, more)
  local options = {layer = layer, alpha_minus = am}
  for k, v in pairs(more or {}) do options[k] = v end
  return wb.method("vi", options)
end

-- A line style: the colour says the layer, the dash and the point the bias.
local layer_colours = {euler = "#9400d3", heun = "#e69f00", kutta3 = "#d7191c", rk4 = "#0072b2",
                       gauss1 = "#009e73", gauss2 = "#56b4e9", radau_iia2 = "#000000"}
function common.style(layer, am)
  local dash = am == 0 and 1 or am == -0.5 and 2 or 3
  local point = am == 0 and 7 or am == -0.5 and 5 or 9
  return format('lc rgb "%s" lw 1.5 dt %d pt %d', layer_colours[layer] or "#555555", dash, point)
end

function common.bias_label(am)
  return format("(%g, %g)", am, am + 1)
end

-- max over the components of (q, p) at the end of `sol` against the vector `ref`
function common.final_error(sol, ref)
  return wb.max_abs(wb.sub(wb.concat(sol:final()), ref))
end

-- A reference (q, p) at T: classical RK4 on the index-1 ODE (classic.rk4)
-- at step h, and its difference from the run at 2h (the digest's check).
function common.reference(problem, T, h)
  local function run(step)
    return wb.concat(wb.integrate{model = problem.model, method = "rk4", h = step, t_end = T,
                                  q0 = problem.q0, p0 = problem.p0}:final())
  end
  local fine = run(h)
  return fine, wb.max_abs(wb.sub(fine, run(2 * h)))
end

---------------------------------------------------------------------------
-- The discrete momentum map J = mu . xi(qbar) (digest 2.3)
---------------------------------------------------------------------------

-- J_k for every recorded row of `sol`, generator `index` (1-based) of the
-- model's invariants; the columns qbar1.., mu1.. are the method's aux.
function common.discrete_momentum(sol, model, index, n)
  local qbar, mu = {}, {}
  for i = 1, n do
    qbar[i] = sol:column("qbar" .. i)
    mu[i] = sol:column("mu" .. i)
  end
  local J, q = {}, {}
  for r = 1, #qbar[1] do
    for i = 1, n do q[i] = qbar[i][r] end
    local xi = model:generator(index, q)
    local s = 0
    for i = 1, n do s = s + mu[i][r] * xi[i] end
    J[r] = s
  end
  return J
end

---------------------------------------------------------------------------
-- The prototype's tables (digest section 4)
---------------------------------------------------------------------------

-- Table A: P1, T = 1, max-norm error of (q, v) at h = 0.2, 0.1, 0.05, 0.025
common.table_a = {
  euler = {[0] = {6.654e-2, 3.798e-2, 1.992e-2, 1.015e-2},
           [-0.5] = {6.698e-3, 1.690e-3, 4.235e-4, 1.059e-4},
           [-0.3] = {3.098e-2, 1.614e-2, 8.182e-3, 4.112e-3}},
  heun = {[0] = {1.111e-2, 2.727e-3, 7.019e-4, 1.773e-4},
          [-0.5] = {2.801e-3, 7.109e-4, 1.784e-4, 4.464e-5},
          [-0.3] = {4.093e-3, 1.047e-3, 2.635e-4, 6.602e-5}},
  kutta3 = {[0] = {7.659e-4, 7.545e-5, 8.356e-6, 9.835e-7},
            [-0.5] = {4.131e-5, 2.574e-6, 1.608e-7, 1.005e-8},
            [-0.3] = {1.642e-4, 1.695e-5, 1.914e-6, 2.270e-7}},
  rk4 = {[0] = {3.249e-5, 2.163e-6, 1.377e-7, 8.660e-9},
         [-0.5] = {2.189e-6, 1.385e-7, 8.686e-9, 5.433e-10},
         [-0.3] = {6.013e-6, 3.806e-7, 2.380e-8, 1.486e-9}},
}
common.table_a_h = {0.2, 0.1, 0.05, 0.025}

-- Table B: P2, T = 1, at h = 0.1, 0.05, 0.025
common.table_b = {
  {"rk4", 0, {7.040e-5, 4.186e-6, 2.586e-7}},
  {"kutta3", -0.5, {8.711e-5, 5.449e-6, 3.406e-7}},
  {"heun", -0.3, {2.835e-3, 7.082e-4, 1.771e-4}},
}
common.table_b_h = {0.1, 0.05, 0.025}

-- Table D: iterations of the paper's (corrected) iteration on the first
-- step of P1 with RK4, to 1e-14, biases (0, 1), (-1/2, 1/2), (-0.3, 0.7)
common.table_d = {[0.1] = {36, 27, 30}, [0.05] = {22, 19, 20}}

-- ours / prototype's: the relative difference
function common.relative(ours, theirs)
  return abs(ours - theirs) / abs(theirs)
end

return common
