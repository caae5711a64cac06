-- Writes a figure whose legend has entries that show nothing (zeros on a
-- log axis, points above the y range) beside a good one and an untitled
-- one; the test figures_bad_detected runs scripts/check_figures.lua on it
-- and expects both bad entries named.
wb.plot{file = "plots/bad/figure.png", logscale = "y", yrange = {1e-3, 1},
        series = {{x = {0, 1, 2}, y = {0.1, 0.2, 0.3}, title = "fine"},
                  {x = {0, 1}, y = {0, 0}, title = "zeros on a log axis"},
                  {x = {0, 1}, y = {5, 6}, title = "above the range"},
                  {x = {0}, y = {100}, title = ""}}}
wb.check(true, "figure written")
