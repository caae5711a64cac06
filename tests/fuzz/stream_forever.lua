-- A streamed run that would take hours, for tests/fuzz/temp_cleanup.sh to
-- interrupt: its temporary file must go with it.  arg[1]: "crash" uses
-- crash_in_step_model (a SIGSEGV in the middle of the run).
local model = arg[1] == "crash" and wb.model("crash_in_step_model", {after = 2000000})
              or wb.model("kepler")
-- bounded: 10^9 steps, a row every 1000 (the test also caps time and size)
wb.integrate{model = model, method = "verlet", h = 1e-3, steps = 1e9, stream = "run.tsv",
             every = 1000}
