-- Shared by the variationalize tests that compare runs point by point:
--   local final_state = dofile(dir .. "/final_state.lua")
--   final_state.vector(m, q, p)   q, then v = m:velocity(q, p), as one vector; and #q
--   final_state.gap(x, ref, nq)   the largest difference of a component,
--                                 against the largest component of its kind
--                                 (positions, velocities) in the reference
local final_state = {}

function final_state.vector(m, q, p)
  local v = m:velocity(q, p)
  local x = {}
  for i = 1, #q do x[i] = q[i] end
  for i = 1, #v do x[#q + i] = v[i] end
  return x, #q
end

function final_state.gap(x, ref, nq)
  local largest = {0, 0}
  for i = 1, #ref do
    local kind = i <= nq and 1 or 2
    largest[kind] = math.max(largest[kind], math.abs(ref[i]))
  end
  local worst = 0
  for i = 1, #ref do
    worst = math.max(worst, math.abs(x[i] - ref[i]) / largest[i <= nq and 1 or 2])
  end
  return worst
end

return final_state
