#!/bin/sh
# Issue 25, "sweeps that mix their cases", the parts that take several
# processes (tests/sweep/hostile.lua has the rest).
# usage: hostile.sh WORKBENCH OUTDIR CHECK, CHECK one of
#   signals     SIGTERM, SIGHUP, SIGKILL to a sweep end its workers and their
#               programs
set -u
wb=$1 out=$2 check=$3
study=$(cd "$(dirname "$0")" && pwd)/hostile_study.lua
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

case $check in
signals)
    for sig in TERM HUP KILL; do
        rm -rf pids && mkdir pids
        "$wb" "$study" r.tsv endless "$PWD/pids" > /dev/null 2>&1 &
        parent=$!
        for i in $(seq 50); do [ -s pids/1 ] && [ -s pids/2 ] && break; sleep 0.1; done
        [ -s pids/1 ] && [ -s pids/2 ] || fail "the workers did not start"
        kill -$sig $parent
        wait $parent
        sleep 0.5
        for pid in $(cat pids/1 pids/2); do
            state=$(sed 's/^[0-9]* ([^)]*) \(.\).*/\1/' /proc/$pid/stat 2>/dev/null)
            if [ -n "$state" ] && [ "$state" != Z ]; then
                kill -KILL $(cat pids/1 pids/2) 2>/dev/null
                fail "SIG$sig to the sweep left process $pid running ($(cat /proc/$pid/cmdline | tr '\0' ' '))"
            fi
        done
        ok "SIG$sig to the sweep ends its workers and the program one started"
    done
    ;;
*)
    fail "unknown check '$check'"
    ;;
esac
