-- Shared helpers of the GGL reproduction scripts (Kinon-Betsch-Schneider,
-- "Structure-preserving integrators based on a new variational principle for
-- constrained mechanical systems", Nonlinear Dyn. 2023).  Load it with
--   package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
--   local common = require "ggl_common"
local common = {}

-- The paper's schemes (its Table 1, reconstructed in our digest):
--   VI-S  first-order GGL variational integrator (eq. 55)
--   VI-A  theta-VI, option A (g at the midpoint), theta = 1/2 (eq. 79)
--   VI-B  theta-VI, option B (trapezoidal g), theta = 1, vartheta = 1/2 (eq. 83)
--   EM    GGL energy-momentum scheme (eq. 84)
--   EM-G  Gonzalez's 1999 energy-momentum scheme (g only), the comparison
-- Each entry: label, method, and how the scheme's interval velocity v is
-- paired with the nodes for E(q, v, p) = p.v - L(q, v): VI-S solves v^n in
-- the step from t_n (the authors shift it back one index: node n), the
-- theta-VIs v^{n+1} in the step to t_{n+1} (node n+1); EM's velocity is
-- M^-1 p at every node.
function common.schemes(options, with_gonzalez)
  options = options or {}
  local function with(extra)
    local o = {}
    for k, v in pairs(options) do o[k] = v end
    for k, v in pairs(extra) do o[k] = v end
    return o
  end
  local list = {
    {label = "VI-S", name = "ggl.vi_s", options = with{}, pairing = "start"},
    {label = "VI-A", name = "ggl.vi_theta",
     options = with{theta = 0.5, constraint = "intermediate"}, pairing = "end"},
    {label = "VI-B", name = "ggl.vi_theta",
     options = with{theta = 1, constraint = "trapezoidal", vartheta = 0.5}, pairing = "end"},
    {label = "EM", name = "ggl.em", options = with{}, pairing = "momentum"},
  }
  if with_gonzalez then
    list[#list + 1] = {label = "EM-G", name = "ggl.em_gonzalez", options = with{},
                       pairing = "momentum"}
  end
  for _, s in ipairs(list) do s.method = wb.method(s.name, s.options) end
  return list
end

-- One colour per scheme, so that figures which omit a scheme (a run that
-- failed at once) keep the others' colours.
local colours = {["VI-S"] = "#9400d3", ["VI-A"] = "#009e73", ["VI-B"] = "#56b4e9",
                 EM = "#e69f00", ["EM-G"] = "#0072b2", BS99 = "#d55e00"}
-- extra: more style ("dt 2", "pt 6 ps 2"; an "lw" there replaces the 1.5)
function common.style(label, extra)
  extra = extra or ""
  local width = extra:find("lw ") and "" or "lw 1.5 "
  return string.format("%slc rgb '%s'%s", width, colours[label] or "black", extra)
end

-- Rows of a vector column group: out[i] = {x1, ..., xn} of recorded row i.
function common.vectors(sol, base, n)
  local cols = {}
  for k = 1, n do cols[k] = sol:column(base .. k) end
  local out = {}
  for i = 1, sol.n do
    local v = {}
    for k = 1, n do v[k] = cols[k][i] end
    out[i] = v
  end
  return out
end

local function dot(a, b)
  local s = 0
  for i = 1, #a do s = s + a[i] * b[i] end
  return s
end
common.dot = dot

-- The velocity belonging to each recorded node (nil where the scheme has
-- none: VI-S's last node, the theta-VIs' first).  Needs every = 1.
function common.node_velocities(model, sol, scheme)
  local nq = model.nq
  local q, p = common.vectors(sol, "q", nq), common.vectors(sol, "p", nq)
  local v = {}
  if scheme.pairing == "momentum" then
    for i = 1, sol.n do v[i] = model:velocity(q[i], p[i]) end
  else
    local interval = common.vectors(sol, "v", nq)
    for i = 1, sol.n do
      v[i] = scheme.pairing == "start" and interval[i + 1] or (i > 1 and interval[i] or nil)
    end
  end
  return q, p, v
end

-- The paper's energy function E(q, v, p) = p.v - 1/2 v.M v + V(q) at the
-- nodes that have a velocity: returns times and values.
function common.energy_function(model, sol, scheme)
  local q, p, v = common.node_velocities(model, sol, scheme)
  local M = model:mass(q[1])
  local t, E = {}, {}
  for i = 1, sol.n do
    if v[i] then
      local Mv = {}
      for r = 1, #M do Mv[r] = dot(M[r], v[i]) end
      t[#t + 1] = sol.t[i]
      E[#E + 1] = dot(p[i], v[i]) - 0.5 * dot(v[i], Mv) + model:potential(q[i])
    end
  end
  return t, E
end

-- max_k |(G(q_n) v_n)_k| at each node with a velocity (the velocity
-- constraint as the theta-VIs impose it, with their interval velocity).
function common.velocity_constraint(model, sol, scheme)
  local q, _, v = common.node_velocities(model, sol, scheme)
  local t, out = {}, {}
  for i = 1, sol.n do
    if v[i] then
      local G, worst = model:constraint_jacobian(q[i]), 0
      for k = 1, #G do worst = wb.max(worst, math.abs(dot(G[k], v[i]))) end
      t[#t + 1] = sol.t[i]
      out[#out + 1] = worst
    end
  end
  return t, out
end

-- |x_{n+1} - x_n| (the paper's "incremental changes"), at t_{n+1}.
function common.increments(t, x)
  local ti, d = {}, {}
  for i = 2, #x do
    ti[#ti + 1] = t[i]
    d[#d + 1] = math.abs(x[i] - x[i - 1])
  end
  return ti, d
end

function common.abs(x)
  return wb.map(x, math.abs)
end

-- Values below `floor` are shown at the floor on a log axis (exact zeros
-- would otherwise vanish from the figure); a NaN stays NaN.
function common.floored(x, floor)
  return wb.map(x, function(value) return wb.max(math.abs(value), floor) end)
end

function common.format_list(x, fmt)
  return table.concat(wb.map(x, function(v) return string.format(fmt or "%.3e", v) end), " ")
end

return common
