#!/bin/sh
# Deterministic figures for bench/gauss_vs_gni.lua: instructions per step
# (callgrind Ir) of rk with the defaults a user gets (Gauss s through the
# ABI) and of the yardstick bench/gni_irk2.c, each the difference of two
# runs of N1 and N2 steps over N2 - N1 (start-up cancels), with the force
# evaluations per step of both.  Timings on a shared machine are noisy;
# instruction counts are not.
#
#   bench/gauss_vs_gni_callgrind.sh kepler|solar S N1 N2 [BUILD]
# e.g. kepler 2 20000 60000 (h = 0.01), solar 4 2000 6000 (h = 10 days).
# START=auto|plain|extrapolate|corrected picks rk's start (default: rk's own, auto).
set -e
problem=$1 s=$2 n1=$3 n2=$4 build=${5:-build}
case $problem in
kepler) h=0.01 model='wb.model("kepler", {e = 0.5})' ;;
solar) h=10 model='wb.model("outer_solar_system")' ;;
*) echo "usage: $0 kepler|solar S N1 N2 [BUILD]" >&2; exit 2 ;;
esac
start_option=${START:+, start = \"$START\"}
script=$(mktemp /tmp/gauss_vs_gni.XXXXXX.lua)
trap 'rm -f "$script"' EXIT
cat > "$script" <<LUA
local steps = tonumber(arg[1])
local sol = wb.integrate{model = $model, h = $h, steps = steps, every = steps,
                         method = wb.method("rk", {tableau = wb.tableau.gauss($s)$start_option})}
print(string.format("evals_per_step %.4f", sol.stats.mean_function_evals))
LUA
. "$(dirname "$0")/callgrind_ir.sh"
ours1=$(ir "$build/workbench" "$script" "$n1")
ours2=$(ir "$build/workbench" "$script" "$n2")
gni1=$(ir "$build/bench/bench_gni_irk2" "$problem" "$s" "$n1" "$h")
gni2=$(ir "$build/bench/bench_gni_irk2" "$problem" "$s" "$n2" "$h")
evals=$("$build/workbench" "$script" "$n2" | awk '/evals_per_step/ { print $2 }')
gni_evals=$("$build/bench/bench_gni_irk2" "$problem" "$s" "$n2" "$h" |
            awk '{ for (i = 1; i < NF; i++) if ($i == "evals_per_step") print $(i + 1) }')
awk -v p="$problem" -v s="$s" -v a1="$ours1" -v a2="$ours2" -v g1="$gni1" -v g2="$gni2" \
    -v n="$((n2 - n1))" -v e="$evals" -v ge="$gni_evals" 'BEGIN {
    printf "%s s = %d: Ir/step rk %.0f, gni %.0f, ratio %.3f; evaluations/step rk %s, gni %s\n",
           p, s, (a2 - a1) / n, (g2 - g1) / n, (a2 - a1) / (g2 - g1), e, ge }'
