-- `check-method --quick` on every method the host finds (the shipped
-- families, and any family added to plugins/ later), in shards:
--   workbench shipped.lua SHARD COUNT     checks the (method, model) pairs i with
--                                         i % COUNT == SHARD
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
-- Shards of (method, model) pairs, dealt round-robin: one method's models
-- spread over the shards (variationalize.vi alone takes 45 s on its 15).
local models = {}
for _, model in ipairs(wb.list_models()) do models[#models + 1] = wb.model(model) end
local mine, order, pair = {}, {}, 0
for _, name in ipairs(wb.list_methods()) do
  local method = wb.method(name)
  for _, m in ipairs(models) do
    if method:applies_to(m) then
      pair = pair + 1
      if (pair - 1) % count == shard then
        if not mine[name] then mine[name], order[#order + 1] = {}, name end
        table.insert(mine[name], m)
      end
    end
  end
end
for _, name in ipairs(order) do
  local r = wb.check_method{method = name, quick = true, models = mine[name]}
  local unexpected = 0
  for _, row in ipairs(r.rows) do
    local key = table.concat({name, row.model, row.state or "-", row.property}, " ")
    if row.ok == false and not known[key] then unexpected = unexpected + 1 end
    if row.ok == false and known[key] then print("  known finding, reported: " .. key) end
    if row.ok == true and known[key] then print("  the known finding now passes: " .. key) end
  end
  wb.check(unexpected == 0, name .. ": every claim holds on every model of this shard",
           string.format("%d of %d claims failed on %d model(s)", unexpected, r.checked, #mine[name]))
end
