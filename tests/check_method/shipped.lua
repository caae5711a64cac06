-- `check-method --quick` on every method the host finds (the shipped
-- families, and any family added to plugins/ later), in shards:
--   workbench shipped.lua SHARD COUNT     checks the methods i with i % COUNT == SHARD
-- A claim that fails fails the test, except the findings listed below,
-- reported to their family's owners: each is printed, and a finding that
-- no longer fails is reported so that it can be taken off the list.
local shard, count = tonumber(arg[1]) or 0, tonumber(arg[2]) or 1
local known = {
  -- HBVM(2,2) from a perturbed consistent state of the heavy top: J3
  -- drifts linearly, 3.5e-12 per step (1.2e-8 over 3200 steps at
  -- h = 1.8e-4); from the default state it holds to 1.7e-12
  ["hbvm.hbvm heavy_top perturbed momentum_conserving"] = true,
}
for i, name in ipairs(wb.list_methods()) do
  if (i - 1) % count == shard then
    local r = wb.check_method{method = name, quick = true}
    local unexpected = 0
    for _, row in ipairs(r.rows) do
      local key = table.concat({name, row.model, row.state or "-", row.property}, " ")
      if row.ok == false and not known[key] then unexpected = unexpected + 1 end
      if row.ok == false and known[key] then print("  known finding, reported: " .. key) end
      if row.ok == true and known[key] then print("  the known finding now passes: " .. key) end
    end
    wb.check(unexpected == 0, name .. ": every claim holds on every model it applies to",
             string.format("%d of %d claims failed", unexpected, r.checked))
  end
end
