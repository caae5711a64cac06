#!/bin/sh
# The malformed-plugin corpus (issue 13): files a plugin folder can hold by
# accident or malice, each alone in a folder handed to `workbench list`.
# Every one must be refused with a message naming the file and the reason,
# and the host must carry on (exit 0, the shipped plugins listed, no
# signal, no sanitizer report, no hang).  A wrong-ABI plugin must be
# refused without its constructor ever running.
#
#   plugin_corpus.sh WORKBENCH SCENARIOS SEED.so WORKDIR
#
# SCENARIOS holds the constructor_* test plugins; SEED.so is a valid plugin
# whose bytes the truncated and patched cases start from.
set -u
exe=$1 scenarios=$2 seed=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 2
export WORKBENCH_PLUGIN_PATH= WORKBENCH_NO_PROGRESS=1 WORKBENCH_CACHE_DIR="$work/cache"
cases=0 failures=0 refused=0 controls=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# run_case NAME EXPECTED-TEXT: `workbench list` over folder $work/NAME
run_case() {
    name=$1 expected=$2
    cases=$((cases + 1))
    out="$work/$name.out"
    timeout 60 "$exe" --plugin-path "$work/$name" list >"$out" 2>&1
    status=$?
    if [ "$status" -ne 0 ]; then
        fail "$name: exit status $status"
    elif grep -E -q 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out"; then
        fail "$name: sanitizer report"
    elif ! grep -E -q '^model +pendulum ' "$out"; then
        fail "$name: the shipped plugins are not listed"
    elif ! grep -F -q -e "$expected" "$out"; then
        fail "$name: the output lacks: $expected"
    else
        grep -q "^refused:" "$out" && refused=$((refused + 1))
        return 0
    fi
    sed 's/^/    /' "$out" | head -20
    return 1
}

folder() { rm -rf "$work/$1" && mkdir -p "$work/$1"; }

size=$(wc -c <"$seed")

# ---- not ELF, or not a file -----------------------------------------------
folder empty && : >"$work/empty/x.so"
run_case empty "could not be loaded: not an ELF file (0 bytes)"
folder text && echo "just some text, not a shared object" >"$work/text/x.so"
run_case text "x.so' could not be loaded: not an ELF file"
folder fifo && mkfifo "$work/fifo/x.so"
run_case fifo "x.so' could not be loaded: a FIFO"
folder dir && mkdir "$work/dir/x.so"
run_case dir "x.so' could not be loaded: a folder"
folder device && ln -s /dev/zero "$work/device/x.so"
run_case device "x.so' could not be loaded: a device"
folder loop && ln -s x.so "$work/loop/x.so"
run_case loop "x.so' could not be loaded: Too many levels of symbolic links"
folder dangling && ln -s nowhere.so "$work/dangling/x.so"
run_case dangling "x.so' could not be loaded: No such file or directory"
if [ -x /bin/true ]; then
    folder executable && cp /bin/true "$work/executable/x.so"
    run_case executable "does not export the symbol 'workbench_plugin_entry'"
fi

# ---- truncated copies: a half-copied install, a build still writing ------
for cut in 16 64 200 1000 4096 $((size / 2)) $((size - 100)) $((size - 1)); do
    folder "cut$cut" && head -c "$cut" "$seed" >"$work/cut$cut/x.so"
    run_case "cut$cut" "truncated"
done

# ---- patched ELF headers ------------------------------------------------------
# patch NAME OFFSET OCTAL-BYTES EXPECTED
patch() {
    folder "$1" && cp "$seed" "$work/$1/x.so"
    printf "$3" | dd of="$work/$1/x.so" bs=1 seek="$2" conv=notrunc 2>/dev/null
    run_case "$1" "$4"
}
patch magic 1 'XLF' "not an ELF file"
patch class32 4 '\001' "a 32-bit ELF file; this host is 64-bit"
patch big_endian 5 '\002' "an ELF file of the other byte order"
patch version 6 '\007' "an ELF file of an unknown version"
patch exec_type 16 '\002\000' "an executable, not a shared object"
patch object_type 16 '\001\000' "an object file (.o), not a shared object"
patch machine 18 '\050\000' "built for another machine (ELF machine 40"
patch phnum 56 '\377\377' "truncated: its headers reach beyond"
patch phoff 32 '\377\377\377\377\000\000\000\000' "truncated: its headers reach beyond"
patch shoff 40 '\377\377\377\377\377\000\000\000' "truncated: its headers reach beyond"
patch ehsize 52 '\000\001' "its ELF header is malformed"

# ---- damaged dynamic sections (the mutation fuzzer's finds, kept in
# corpus/plugins/): the loader would follow each index or address -----------
corpus=$(dirname "$0")/corpus/plugins
dynamic_case() { # NAME EXPECTED
    folder "$1" && cp "$corpus/$1.bin" "$work/$1/x.so"
    run_case "$1" "$2"
}
dynamic_case version_index_past_table "a symbol names a version the object neither needs nor defines"
dynamic_case init_into_function "changed memory the process owns"

# ---- constructors -------------------------------------------------------------
marker="$work/constructor-ran"
export WB_TEST_MARKER="$marker"
folder wrong_abi && cp "$scenarios/constructor_wrong_abi.so" "$work/wrong_abi/"
rm -f "$marker"
run_case wrong_abi "was built against workbench ABI" &&
    { [ ! -e "$marker" ] || fail "wrong_abi: its constructor ran"; }
folder marker_control && cp "$scenarios/constructor_marker.so" "$work/marker_control/"
rm -f "$marker"
cases=$((cases + 1))
timeout 60 "$exe" --plugin-path "$work/marker_control" list >"$work/marker_control.out" 2>&1
if grep -E -q '^model +constructor_marker ' "$work/marker_control.out" && [ -e "$marker" ]; then
    controls=$((controls + 1))
else
    fail "marker_control: the well-formed plugin is not listed or its constructor did not run"
fi
folder crash && cp "$scenarios/constructor_crash.so" "$work/crash/"
run_case crash "loading or unloading it killed a test process (signal 11"
folder exits && cp "$scenarios/constructor_exit.so" "$work/exits/"
run_case exits "exited (status 3) without a verdict"
folder hang && cp "$scenarios/constructor_hang.so" "$work/hang/"
WORKBENCH_PROBE_TIMEOUT=1 run_case hang "did not finish within 1 s in a test process"
folder scribble && cp "$scenarios/constructor_scribble.so" "$work/scribble/"
run_case scribble "changed memory the process owns (its stack, arguments or environment)"
# the verdict is cached: no second wait, the same message
start=$(date +%s)
WORKBENCH_PROBE_TIMEOUT=1 run_case hang "did not finish within 1 s in a test process"
[ $(($(date +%s) - start)) -lt 1 ] || echo "note: the cached verdict took a second or more"
grep -q "constructor_hang.so" "$work/cache/plugin-verdicts" ||
    fail "the hanging plugin's verdict is not in the cache"
# a changed file is probed again
touch "$work/hang/constructor_hang.so"
WORKBENCH_PROBE_TIMEOUT=1 run_case hang "did not finish within 1 s in a test process"

# ---- discovery beyond 512 entries ---------------------------------------------
folder many && seq -f "$work/many/a%03g.so" 0 599 | xargs touch
cp "$scenarios/constructor_marker.so" "$work/many/zzz_last.so"
cases=$((cases + 1))
timeout 60 "$exe" --plugin-path "$work/many" list >"$work/many.out" 2>&1
n=$(grep -c "could not be loaded: not an ELF file (0 bytes)" "$work/many.out")
if [ "$n" -ge 1200 ] && grep -E -q '^model +constructor_marker ' "$work/many.out"; then
    controls=$((controls + 1))
else
    fail "many: $n refusals (600 expected, each warned and listed), the 601st file not loaded"
fi

echo "plugin corpus: $cases cases, $refused refused cleanly, $controls well-formed plugins loaded" \
     "(one alone, one after 600 refused files), $failures failures, crashes 0"
[ "$failures" -eq 0 ]
