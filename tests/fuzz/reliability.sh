#!/bin/sh
# The reliability report (issue 13): every bad-input suite of tests/fuzz,
# with a longer budget than the test suite's, and the counts it reached.
#
#   sh tests/fuzz/reliability.sh BUILD_DIR [SECONDS] [SEED]
#
# BUILD_DIR: a build tree (build, or build-sanitize for ASan and UBSan).
# Prints one line per suite as the suite says it, then the same counts as
# the table of README's "reliability" paragraph (paste it there to update
# it): cases tried, how they ended, crashes.  Exit status 1 on a crash.
set -u
build=$(cd "$1" && pwd) seconds=${2:-30} seed=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
exe=$build/workbench
out=$build/test-output/reliability
rm -rf "$out" && mkdir -p "$out"
export WORKBENCH_NO_PROGRESS=1 WORKBENCH_PLUGIN_PATH=
crashes=0 table=

run() { # run NAME COMMAND...: its output into $out/NAME.txt; a signal is a crash
    name=$1
    shift
    "$@" >"$out/$name.txt" 2>&1
    status=$?
    crashed=0
    if [ "$status" -ge 128 ] || grep -E -q 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out/$name.txt"; then
        crashed=1 crashes=$((crashes + 1))
        echo "$name: CRASH (exit status $status), see $out/$name.txt"
    fi
    return 0
}

row() { # row SUITE CASES ENDED: a line of the table, with the last run's crash
    table="$table| $1 | $2 | $3 | $crashed |
"
}

# summary_row SUITE FILE PREFIX: the suite's line "PREFIX: N word (detail), how
# they ended[, crashes 0 ...]" as a row
summary_row() {
    line=$(grep "^$3:" "$2" | head -1)
    echo "$line"
    cases=$(echo "$line" | sed -E -n 's/^[^:]*: ([0-9]+) [a-z]+( \([^)]*\))?, .*$/\1\2/p')
    ended=$(echo "$line" | sed -E -n 's/^[^:]*: [0-9]+ [a-z]+( \([^)]*\))?, (.*)$/\2/p' |
            sed -E 's/, crashes 0.*$//')
    row "$1" "${cases:-?}" "${ended:-no summary: see $2}"
}

commit=$(git -C "$here" log -1 --format=%h 2>/dev/null)
dirty=$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null | head -1)
kind="Release"
grep -q '^WB_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && kind="ASan/UBSan"
echo "reliability report: commit $commit${dirty:+ (with uncommitted changes)}, $kind build," \
     "${seconds} s per fuzzer, seed $seed"
echo

run corpus sh "$here/plugin_corpus.sh" "$exe" "$build/tests/plugins/scenarios/fuzz" \
    "$build/tests/plugins/scenarios/fuzz/constructor_marker.so" "$out/corpus"
summary_row 'malformed plugins (`plugin_corpus.sh`)' "$out/corpus.txt" "plugin corpus"

run strings "$exe" --output-dir "$out/strings" "$here/plot_strings.lua"
drawn=$(sed -E -n 's/^ *ok *([0-9]+ strings in [0-9]+ plots): all drawn.*/\1/p' "$out/strings.txt")
literals=$(sed -E -n 's/^ *ok *([0-9]+) literals read back.*/\1/p' "$out/strings.txt")
checks=$(tail -1 "$out/strings.txt")
echo "hostile strings: $drawn, all drawn; $literals literals read back by gnuplot; checks: $checks"
row 'hostile strings through plots (`plot_strings.lua`)' "${drawn:-?}; ${literals:-?} literals" \
    "all drawn, each literal read back by gnuplot as itself; checks: $checks"

run tableau "$build/tests/fuzz/tableau_fuzz" "$seconds" "$seed" "$out" "$here/corpus/tableau"
summary_row 'tableau files (`tableau_fuzz.c`)' "$out/tableau.txt" "tableau files"
summary_row 'tableau expressions (`tableau_fuzz.c`)' "$out/tableau.txt" "expressions"

WORKBENCH_CACHE_DIR= WORKBENCH_PROBE_TIMEOUT=5 run plugins "$build/tests/fuzz/plugin_fuzz" \
    "$seconds" "$seed" "$build/models/pendulum.so" "$out" "$out" "$here/corpus/plugins"
summary_row 'plugin files (`plugin_fuzz.c`)' "$out/plugins.txt" "plugin files"

run api "$exe" --output-dir "$out/api" "$here/api_fuzz.lua" "$seconds" "$seed"
sed -E -i 's/^ *ok *(API fuzz:)/\1/' "$out/api.txt"
summary_row 'Lua API calls (`api_fuzz.lua`)' "$out/api.txt" "API fuzz"

run regressions "$exe" --output-dir "$out/regressions" "$here/regressions.lua"
checks=$(tail -1 "$out/regressions.txt")
echo "regression checks: $checks"
passed=$(echo "$checks" | sed -E -n 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p')
row 'one check per defect class (`regressions.lua`)' \
    "$(echo "${passed:-? 0}" | awk '{print $1 + $2}')" "$checks"

run temporaries sh "$here/temp_cleanup.sh" "$exe" "$here/stream_forever.lua" \
    "$build/tests/plugins/scenarios/fuzz_crash" "$out/temporaries"
clean=$(grep -c '^ok:' "$out/temporaries.txt") failed=$(grep -c FAIL "$out/temporaries.txt")
echo "temporary files: $clean signal cases clean, $failed failed"
row 'signals against temporary files (`temp_cleanup.sh`)' "$((clean + failed))" \
    "$clean left no temporary file, $failed failed"

echo
echo "crashes: $crashes"
echo
echo "Measured on commit $commit${dirty:+ (with uncommitted changes)}, $kind build, $seconds s" \
     "per fuzzer, seed $seed (\`sh tests/fuzz/reliability.sh BUILD_DIR $seconds $seed\`):"
echo
echo "| suite | cases | how they ended | crashes |"
echo "|---|---|---|---|"
printf '%s' "$table"
[ "$crashes" -eq 0 ]
