#!/bin/sh
# wb.compile_model's C compiler (issue 25): stopped after
# WORKBENCH_COMPILE_TIMEOUT seconds, or when the host is interrupted, its
# whole process group killed and no temporary file left; a compile that
# takes long shows a line on a terminal, and nothing in a log.
#
#   compile_timeout.sh WORKBENCH OUTPUT_DIR
set -u
exe=$1 out=$2
rm -rf "$out"
mkdir -p "$out" || exit 2
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "  ok    $1"; }
fail() {
    failed=$((failed + 1))
    echo "  FAIL  $1"
    [ -f "$out/log" ] && sed 's/^/        /' "$out/log" | head -20
}
check() {
    what=$1
    shift
    if "$@"; then ok "$what"; else fail "$what"; fi
}
logged() { grep -qF -- "$1" "$out/log"; }

# A compiler that never finishes, with a child of its own: both pids noted.
cat >"$out/hang_cc" <<EOF
#!/bin/sh
echo \$\$ >>"$out/pids"
sleep 600 &
echo \$! >>"$out/pids"
wait
EOF
# A compiler that takes 2.5 s.
cat >"$out/slow_cc" <<'EOF'
#!/bin/sh
sleep 2.5
exec cc "$@"
EOF
chmod +x "$out/hang_cc" "$out/slow_cc"
for name in hang_model stopped_model tty_model log_model; do
    cat >"$out/$name.lua" <<EOF
wb.compile_model{name = "$name", nq = 1, potential = function(q) return q[1] ^ 2 end}
EOF
done

# none of the noted processes is alive (a zombie is not)
none_alive() {
    for pid in $(cat "$out/pids" 2>/dev/null); do
        state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)
        [ -n "$state" ] && [ "$state" != Z ] && return 1
    done
    return 0
}
# the models folder holds the generated C and nothing else of a model
only_source() {
    [ "$(ls -A "$out/cache/models" | grep -v '\.c$')" = "" ] &&
        [ "$(ls "$out/cache/models" | grep -c "^$1-.*\.c$")" = 1 ]
}
cleanup() { for pid in $(cat "$out/pids" 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done; }
trap cleanup EXIT

export WORKBENCH_CACHE_DIR="$out/cache" WORKBENCH_PLUGIN_PATH=
unset WORKBENCH_NO_PROGRESS

# 1. The timeout.
start=$(date +%s)
CC=$out/hang_cc WORKBENCH_COMPILE_TIMEOUT=1 timeout 30 "$exe" "$out/hang_model.lua" \
    >"$out/log" 2>&1
status=$?
seconds=$(($(date +%s) - start))
stopped() { [ "$status" = 1 ] && [ "$seconds" -lt 10 ]; }
check "a compiler past WORKBENCH_COMPILE_TIMEOUT=1 is stopped (status $status, $seconds s)" stopped
check "... with a message naming the compiler, the timeout and the variable" \
    logged "wb.compile_model: model 'hang_model': the C compiler '$out/hang_cc' did not finish within 1 s"
check "... its whole process group is gone" none_alive
check "... no temporary file is left" only_source hang_model
check "... and no progress line went to the log" [ "$(grep -c 'compiling' "$out/log")" = 0 ]
cleanup
rm -f "$out/pids"

# 2. Ctrl-C (SIGINT to the host alone, as the terminal's process group
# would not reach a compiler in a group of its own).
CC=$out/hang_cc "$exe" "$out/stopped_model.lua" >"$out/log" 2>&1 &
host=$!
for i in 1 2 3 4 5 6 7 8 9 10; do [ -s "$out/pids" ] && break; sleep 0.2; done
sleep 0.3
kill -INT "$host"
for i in $(seq 1 50); do kill -0 "$host" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$host" 2>/dev/null; then
    kill -9 "$host"
    fail "Ctrl-C stops the compile within 10 s"
else
    wait "$host"
    status=$?
    interrupted() { [ "$status" != 0 ] && logged "interrupted"; }
    check "Ctrl-C stops the compile and the script (status $status)" interrupted
fi
check "... the compiler's process group is gone" none_alive
check "... no temporary file is left" only_source stopped_model
cleanup

# 3. A compile of 2.5 s: a line on a terminal, none in a log.
if command -v script >/dev/null 2>&1; then
    CC=$out/slow_cc script -qec "'$exe' '$out/tty_model.lua'" /dev/null >"$out/tty" 2>&1 &
    tty=$!
    CC=$out/slow_cc "$exe" "$out/log_model.lua" >"$out/log" 2>&1
    wait "$tty"
    check "a compile of 2.5 s in a log prints no progress line" \
        [ "$(grep -c 'compiling' "$out/log")" = 0 ]
    cp "$out/tty" "$out/log"
    check "on a terminal it shows a line after 2 s" \
        logged "wb.compile_model: compiling 'tty_model' ("
    lines=$(grep -c '' "$out/cache/models/"tty_model-*.c)
    check "... with the lines of C ($lines) and the seconds" logged "($lines lines of C) ... 2 s"
else
    echo "  skip  progress on a terminal (no 'script' command)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
