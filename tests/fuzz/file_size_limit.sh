#!/bin/sh
# A file-size limit (ulimit -f) is a failed write like a full disk (issue
# 25): the process must not die of SIGXFSZ (exit 153), every writer says
# "writing '...' failed: File too large", atomic writers keep the file they
# replace, a stream keeps its complete rows (file_size_limit.lua checks the
# files), and no temporary file is left.  A print past the limit makes the
# run fail with a message instead of exiting 0 with a cut-off output.
#
#   file_size_limit.sh WORKBENCH SCRIPT WORKDIR
set -u
exe=$1 script=$2 work=$3
rm -rf "$work" && mkdir -p "$work/out" || exit 2
export WORKBENCH_NO_PROGRESS=1
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# only the workbench runs under the limit (64 blocks: 32 KB in dash, 64 KB
# in bash); its output goes through a pipe, which the limit does not cover
( ulimit -f 64 && "$exe" --output-dir "$work/out" "$script"; echo $? >"$work/status" ) 2>&1 |
    tee "$work/log"
status=$(cat "$work/status")
[ "$status" = 0 ] && echo "ok: the script ran to its end and its checks passed" ||
    fail "the script exited with status $status (153: killed by SIGXFSZ)"
n=$(find "$work/out" -name '.*.tmp[0-9]*' | wc -l)
[ "$n" -eq 0 ] && echo "ok: no temporary file left" || fail "$n temporary file(s) left"

# standard output into a file past the limit
echo 'for i = 1, 2000 do print(string.rep("y", 99)) end' >"$work/print.lua"
( ulimit -f 64 && "$exe" "$work/print.lua" >"$work/printed.txt" 2>"$work/print.err"
  echo $? >"$work/status" )
status=$(cat "$work/status")
[ "$status" = 1 ] && grep -q "writing the standard output failed" "$work/print.err" &&
    echo "ok: a print past the limit fails the run with a message" ||
    fail "print past the limit: status $status, stderr: $(cat "$work/print.err")"
# the plugin verdict cache (some 3 KB) past a 1 KB limit: not written,
# no temporary file, the run unharmed
mkdir -p "$work/cache"
( ulimit -f 2 && WORKBENCH_CACHE_DIR="$work/cache" "$exe" list >/dev/null 2>"$work/list.err"
  echo $? >"$work/status" )
status=$(cat "$work/status")
left=$(ls -A "$work/cache")
[ "$status" = 0 ] && [ -z "$left" ] &&
    echo "ok: a verdict cache past the limit is not written, the run carries on" ||
    fail "verdict cache past the limit: status $status, left: $left"
[ "$failures" -eq 0 ]
