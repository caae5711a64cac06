-- The driver evaluates what a run records and nothing else (issue 12): the
-- energy and the invariants only at recorded steps, not at every step.  A
-- Lua model counts its invariant's calls: over 1000 steps, every = 1, 100,
-- 1000 and 2^53 (the ends only) give 1001, 11, 2 and 2 rows and as many
-- calls; a streamed run the same.
local calls = 0
local model = wb.define_model{
  name = "recording_counter", nq = 2,
  mass = 1,
  potential = function(q) return (q[1] ^ 2 + q[2] ^ 2) / 2 end,
  invariants = {L = function(q, p) calls = calls + 1; return q[1] * p[2] - q[2] * p[1] end},
  initial = function() return {1, 0}, {0, 1} end,
}
local steps = 1000
for _, every in ipairs{1, 100, 1000, 2 ^ 53} do
  for _, stream in ipairs{false, true} do
    calls = 0
    local path = stream and wb.output_path("recording_cost.tsv") or nil
    local sol = wb.integrate{model = model, method = "verlet", h = 0.01, steps = steps,
                             every = every, stream = path}
    local rows = math.floor(steps / math.min(every, steps)) + 1
    local label = string.format("every = %g%s", every, stream and ", streamed" or "")
    wb.check(calls == rows, label .. ": the invariant evaluated once per recorded row",
             string.format("%d calls, %d rows", calls, rows))
    if not stream then
      wb.check(#sol:column("L") == rows, label .. ": rows recorded", tostring(#sol:column("L")))
    end
  end
end
