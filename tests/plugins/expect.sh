#!/bin/sh
# Run a command and check its exit status and its output (stdout and
# stderr together), for tests that exercise the `workbench` executable.
#
#   expect.sh [CHECK]... -- COMMAND [ARG]...
#
#   --status 0|nonzero|N   exit status (default: 0)
#   --contains TEXT        some line contains TEXT (fixed string)
#   --lacks TEXT           no line contains TEXT
#   --matches ERE          some line matches the extended regex ERE
#   --absent ERE           no line matches ERE
#   --env NAME=VALUE       run COMMAND with this variable set (repeatable)
#
# Every check is evaluated (not just the first failing one); on any
# failure the command's full output is printed.  A crash or a sanitizer
# report always fails.
set -u

checks=$(mktemp) || exit 2
output=$(mktemp) || exit 2
trap 'rm -f "$checks" "$output"' EXIT
want_status=0

while [ $# -gt 0 ]; do
    case $1 in
    --status) want_status=$2; shift 2 ;;
    --contains | --lacks | --matches | --absent)
        printf '%s\t%s\n' "$1" "$2" >>"$checks"; shift 2 ;;
    --env) export "$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "expect.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "expect.sh: no command after --" >&2; exit 2; }

"$@" >"$output" 2>&1
status=$?
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

case $want_status in
nonzero) [ "$status" -ne 0 ] || fail "exit status 0, expected non-zero" ;;
*) [ "$status" -eq "$want_status" ] || fail "exit status $status, expected $want_status" ;;
esac
# A crash or a sanitizer report is never what a test wants -- not even one
# that expects a non-zero status (-DWB_SANITIZE=ON builds).
[ "$status" -lt 128 ] || fail "killed by signal $((status - 128))"
! grep -E -q -e 'ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:' "$output" ||
    fail "sanitizer report"

tab=$(printf '\t')
while IFS=$tab read -r kind text; do
    case $kind in
    --contains) grep -F -q -e "$text" "$output" || fail "output lacks: $text" ;;
    --lacks) ! grep -F -q -e "$text" "$output" || fail "output contains: $text" ;;
    --matches) grep -E -q -e "$text" "$output" || fail "no line matches: $text" ;;
    --absent) ! grep -E -q -e "$text" "$output" || fail "a line matches: $text" ;;
    esac
done <"$checks"

if [ "$failures" -gt 0 ]; then
    echo "---- output of: $* (exit status $status)"
    cat "$output"
    echo "----"
    exit 1
fi
echo "ok: $* (exit status $status, $(wc -l <"$output") lines of output)"
exit 0
