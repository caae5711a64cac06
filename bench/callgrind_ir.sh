# Sourced by the bench/*_callgrind.sh scripts: ir COMMAND... prints the
# instructions (callgrind Ir) of the command's own process (the host may
# start children, which are left out).
ir() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 |
        awk '/Command:/ { pid = $1 } /Collected/ { if ($1 == pid) print $4 }'
}
