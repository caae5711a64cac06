#!/bin/sh
# The reliability report (issue 13): every bad-input suite of tests/fuzz,
# with a longer budget than the test suite's, and the counts it reached.
#
#   sh tests/fuzz/reliability.sh BUILD_DIR [SECONDS] [SEED]
#
# BUILD_DIR: a build tree (build, or build-sanitize for ASan and UBSan).
# Prints one line per suite: cases tried, how they ended, crashes.
set -u
build=$(cd "$1" && pwd) seconds=${2:-30} seed=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
exe=$build/workbench
out=$build/test-output/reliability
rm -rf "$out" && mkdir -p "$out"
export WORKBENCH_NO_PROGRESS=1 WORKBENCH_PLUGIN_PATH=
crashes=0

run() { # run NAME COMMAND...: its output into $out/NAME.txt; a signal is a crash
    name=$1
    shift
    "$@" >"$out/$name.txt" 2>&1
    status=$?
    if [ "$status" -ge 128 ] || grep -E -q 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out/$name.txt"; then
        crashes=$((crashes + 1))
        echo "$name: CRASH (exit status $status), see $out/$name.txt"
    fi
    return 0
}

echo "reliability report: $(git -C "$here" log --oneline -1 2>/dev/null | cut -c1-60)"
echo "build $build, ${seconds} s per fuzzer, seed $seed"
echo
run corpus sh "$here/plugin_corpus.sh" "$exe" "$build/tests/plugins/scenarios/fuzz" \
    "$build/tests/plugins/scenarios/fuzz/constructor_marker.so" "$out/corpus"
grep "^plugin corpus:" "$out/corpus.txt"
run strings "$exe" --output-dir "$out/strings" "$here/plot_strings.lua"
grep -E "strings in|literals read back|passed," "$out/strings.txt" | sed 's/^ *ok */hostile strings: /'
run tableau "$build/tests/fuzz/tableau_fuzz" "$seconds" "$seed" "$out" "$here/corpus/tableau"
grep -E "^(tableau files|expressions):" "$out/tableau.txt"
WORKBENCH_CACHE_DIR= WORKBENCH_PROBE_TIMEOUT=5 run plugins "$build/tests/fuzz/plugin_fuzz" \
    "$seconds" "$seed" "$build/models/pendulum.so" "$out" "$out" "$here/corpus/plugins"
grep "^plugin files:" "$out/plugins.txt"
run api "$exe" --output-dir "$out/api" "$here/api_fuzz.lua" "$seconds" "$seed"
grep "API fuzz:" "$out/api.txt" | sed 's/^ *ok *//'
run regressions "$exe" --output-dir "$out/regressions" "$here/regressions.lua"
echo "regression checks: $(tail -1 "$out/regressions.txt")"
run temporaries sh "$here/temp_cleanup.sh" "$exe" "$here/stream_forever.lua" \
    "$build/tests/plugins/scenarios/fuzz_crash" "$out/temporaries"
echo "temporary files: $(grep -c '^ok:' "$out/temporaries.txt") signal cases clean, $(grep -c FAIL "$out/temporaries.txt") failed"
echo
echo "crashes: $crashes"
[ "$crashes" -eq 0 ]
