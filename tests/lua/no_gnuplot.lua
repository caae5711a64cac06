-- Without gnuplot (this test runs with an empty PATH) a plot still writes
-- its data and its gnuplot script, warns, and the script carries on.
local function exists(path)
  local f = io.open(wb.output_path(path), "r")
  if f then f:close() end
  return f ~= nil
end
local sol = wb.integrate{model = wb.model("pendulum"), method = "rattle", h = 0.01, t_end = 1}
local ok, err = pcall(wb.plot, {file = "figures/energy.png", xlabel = "t",
                                series = {{x = sol.t, y = sol:column("energy"), title = "E"}}})
wb.check(ok, "a plot without gnuplot raises no error", not ok and tostring(err) or nil)
wb.check(exists("figures/energy.dat") and exists("figures/energy.gp"),
         "the data and the gnuplot script are written")
wb.check(not exists("figures/energy.png"), "no figure, and no half-written one")
pcall(wb.plot, {file = "figures/second.png", series = {{x = {0, 1}, y = {0, 1}}}})
wb.check(exists("figures/second.gp"), "later plots carry on")
