#!/bin/sh
# `workbench sweep` from the command line: --list, --case I (what GNU
# parallel and Slurm array tasks run), --merge; and, when a single-node
# Slurm can be brought up here (root, slurm-wlm and munge installed: CI
# does), the job array for real, merged and compared with the local run.
# usage: cli.sh WORKBENCH SCRIPT OUTDIR PLUGIN_DIR [slurm]
set -eu
wb=$1 script=$2 out=$3 plugins=$4 slurm=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out" && cd "$out"
run() { "$wb" --plugin-path "$plugins" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# the reference: a local run on every core
run "$script" local.tsv > /dev/null
[ -s local.tsv ] || fail "the local run wrote no local.tsv"

# --list: one line per case, its index first
run sweep --list "$script" cases.tsv > list.txt
[ "$(wc -l < list.txt)" = 8 ] || fail "--list printed $(wc -l < list.txt) cases, not 8"
[ "$(cut -f1 list.txt | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 " ] || fail "--list indices"

# --case I, as GNU parallel would run them, then --merge
for i in $(cut -f1 list.txt); do run sweep --case "$i" "$script" cases.tsv; done
run sweep --merge "$script" cases.tsv > merge.txt
grep -q "merged 8 of 8 case(s)" merge.txt || fail "merge: $(cat merge.txt)"
cut -f1-5 local.tsv > a && cut -f1-5 cases.tsv > b
cmp -s a b || fail "--case + --merge differ from the local run"
echo "ok: --list, --case, --merge equal the local run"

[ "$slurm" = slurm ] || exit 0
if [ "$(id -u)" != 0 ] || ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
    echo "SKIP: Slurm needs root and the packages slurm-wlm munge (CI installs them)"
    exit 77
fi
sh "$here/slurm_up.sh"
rm -rf slurm.tsv slurm.tsv.cases
run sweep --slurm --chunk 3 --submit "$script" slurm.tsv > submit.txt
job=$(sed -n 's/.*submitted job \([0-9]*\).*/\1/p' submit.txt)
[ -n "$job" ] || fail "no job submitted: $(cat submit.txt)"
for i in $(seq 1 120); do
    squeue -h -j "$job" 2>/dev/null | grep -q . || break
    sleep 0.5
done
run sweep --merge "$script" slurm.tsv > merge.txt
grep -q "merged 8 of 8 case(s)" merge.txt || fail "slurm merge: $(cat merge.txt); $(cat slurm.tsv.cases/slurm-*.out 2>/dev/null | head -20)"
cut -f1-5 slurm.tsv > c
cmp -s a c || fail "the Slurm job array differs from the local run"
echo "ok: a Slurm job array ($job, 3 tasks of up to 3 cases) equals the local run"
