#!/bin/sh
# Deterministic figures for bench/chain.lua: instructions per step
# (callgrind Ir) of a method on the planar pendulum_chain of N links
# (h = 1e-3, the model's default state), the difference of two runs of
# N1 and N2 steps over N2 - N1 (creating the model and the method, O(N)
# each, cancels), with the iterations per step.  Wall times on a shared
# machine are noisy; instruction counts are not: the ratio between two N
# is the cost's growth (10 for N and 10 N: linear).
#
#   bench/chain_callgrind.sh METHOD 'OPTIONS' N N1 N2 [BUILD]
# e.g. hbvm '{k = 2, s = 2}' 1000 10 20; OPTIONS is a Lua table of the
# method's options (linear_solver defaults to the method's, auto).
set -e
method=$1 options=$2 links=$3 n1=$4 n2=$5 build=${6:-build}
if [ -z "$n2" ]; then
    echo "usage: $0 METHOD 'OPTIONS' N N1 N2 [BUILD]" >&2
    exit 2
fi
script=$(mktemp /tmp/chain_callgrind.XXXXXX.lua)
trap 'rm -f "$script"' EXIT
cat > "$script" <<LUA
local steps = tonumber(arg[1])
local sol = wb.integrate{model = wb.model("pendulum_chain", {N = $links}), h = 1e-3,
                         steps = steps, every = steps, method = wb.method("$method", $options)}
assert(sol.ok, tostring(sol.failure))
print(string.format("iterations_per_step %.4f", sol.stats.mean_newton_iterations))
LUA
. "$(dirname "$0")/callgrind_ir.sh"
ir1=$(ir "$build/workbench" "$script" "$n1")
ir2=$(ir "$build/workbench" "$script" "$n2")
its1=$("$build/workbench" "$script" "$n1" | awk '/iterations_per_step/ { print $2 }')
its2=$("$build/workbench" "$script" "$n2" | awk '/iterations_per_step/ { print $2 }')
awk -v m="$method" -v o="$options" -v N="$links" -v a1="$ir1" -v a2="$ir2" -v n1="$n1" \
    -v n2="$n2" -v i1="$its1" -v i2="$its2" 'BEGIN {
    its = (i2 * n2 - i1 * n1) / (n2 - n1)
    printf "%s %s, N = %d: Ir/step %.4g (steps %d .. %d), iterations/step %.2f, Ir/iteration %.4g\n",
           m, o, N, (a2 - a1) / (n2 - n1), n1, n2, its, (a2 - a1) / (n2 - n1) / its }'
