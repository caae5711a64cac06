#!/bin/sh
# Temporary files never outlive the process that writes them (issue 13): a
# streamed run killed by SIGTERM, SIGHUP or SIGINT, or dying of a crash in
# a plugin, leaves no temporary file; one killed by SIGKILL leaves one,
# which the next run writing into the folder removes.
#
#   temp_cleanup.sh WORKBENCH SCRIPT PLUGIN-DIR WORKDIR
set -u
exe=$1 script=$2 plugins=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 2
export WORKBENCH_NO_PROGRESS=1 WORKBENCH_PLUGIN_PATH="$plugins"
# whatever happens, no run writes more than 50 MB or lives longer than 60 s
ulimit -f 100000
ulimit -t 60
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

temporaries() { find "$1" -name '.*.tmp[0-9]*' | wc -l; }

# start NAME [ARG]: the long run in the background, once its temporary
# file exists
start() {
    mkdir -p "$work/$1"
    "$exe" --output-dir "$work/$1" "$script" ${2:-} >"$work/$1.out" 2>&1 &
    pid=$!
    i=0
    while [ "$(temporaries "$work/$1")" -eq 0 ] && [ $i -lt 200 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    [ "$(temporaries "$work/$1")" -gt 0 ] || fail "$1: no temporary file appeared"
}

# (a background job of a shell ignores SIGQUIT, and the workbench keeps an
# ignored signal ignored: SIGQUIT is not tried here)
for sig in TERM HUP INT; do
    start "$sig"
    kill -"$sig" "$pid"
    wait "$pid"
    status=$?
    [ "$status" -ne 0 ] || fail "$sig: exit status 0"
    n=$(temporaries "$work/$sig")
    [ "$n" -eq 0 ] && echo "ok: SIG$sig (exit status $status): no temporary file left" ||
        fail "SIG$sig: $n temporary file(s) left"
done

# a crash in the plugin's potential, in the middle of the streamed run
mkdir -p "$work/crash"
"$exe" --output-dir "$work/crash" "$script" crash >"$work/crash.out" 2>&1
status=$?
n=$(temporaries "$work/crash")
[ "$status" -ne 0 ] || fail "crash: exit status 0"
[ "$n" -eq 0 ] && echo "ok: a crashing plugin (exit status $status): no temporary file left" ||
    fail "crash: $n temporary file(s) left"

# SIGKILL cannot be caught: the next run into the folder removes the file
start KILL
kill -KILL "$pid"
wait "$pid" 2>/dev/null
[ "$(temporaries "$work/KILL")" -eq 1 ] || fail "KILL: expected the one stale temporary file"
echo 'wb.write_file("other.txt", "x")' >"$work/write_other.lua"
"$exe" --output-dir "$work/KILL" "$work/write_other.lua" >/dev/null 2>&1 || fail "KILL: the next run failed"
n=$(temporaries "$work/KILL")
[ "$n" -eq 0 ] && echo "ok: SIGKILL: the next run removed the stale temporary file" ||
    fail "KILL: $n stale temporary file(s) left after the next run"
[ "$failures" -eq 0 ]
