#!/bin/sh
# Issue 25, "sweeps that mix their cases", the parts that take several
# processes (tests/sweep/hostile.lua has the rest).
# usage: hostile.sh WORKBENCH OUTDIR CHECK, CHECK one of
#   stale       --merge takes a result only for the case it ran
#   list        every process sees the case list --list showed
#   same_out    a second sweep on the same out is refused
#   signals     SIGTERM, SIGHUP, SIGKILL to a sweep end its workers and their
#               programs
#   file_size   a file-size limit leaves whole rows only
#   slurm_path  a newline in the results path cannot end an #SBATCH line
#   output_dir  a relative --output-dir: one results file, found again
set -u
wb=$1 out=$2 check=$3
study=$(cd "$(dirname "$0")" && pwd)/hostile_study.lua
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

case $check in
stale)
    # four cases run one by one; then a case is added in front of the list
    "$wb" sweep --list "$study" r.tsv four > list.txt || fail "--list"
    for i in 1 2 3 4; do "$wb" sweep --case $i "$study" r.tsv four || fail "--case $i"; done
    "$wb" sweep --merge "$study" r.tsv front > merge.txt || fail "--merge: $(cat merge.txt)"
    cat merge.txt
    grep -q "merged 3 of 4 case(s)" merge.txt || fail "merge took files of other cases"
    grep -q "1 missing (1)" merge.txt || fail "the case that never ran is not missing"
    grep -q "case-1.tsv holds k=1, not case 1's k=0: taken for case 2" merge.txt \
        || fail "no stale file named"
    grep -q "case-4.tsv holds k=4, not case 4's k=3: not merged" merge.txt \
        || fail "no stale file named"
    # every merged row is its own case's: square = k^2
    awk -F'\t' 'NR > 1 && $2 != "" && $2 != $1 * $1 { bad = 1 } END { exit bad }' r.tsv \
        || fail "a merged row holds another case's result: $(cat r.tsv)"
    # --resubmit runs the missing one, the right one
    "$wb" sweep --merge --resubmit "$study" r.tsv front > resubmit.txt || fail "--resubmit"
    grep -q "^cases='1'$" r.tsv.slurm.sh || fail "resubmitted: $(grep ^cases= r.tsv.slurm.sh)"
    "$wb" sweep --case 1 "$study" r.tsv front || fail "--case 1"
    "$wb" sweep --merge "$study" r.tsv front > merge2.txt || fail "--merge"
    grep -q "merged 4 of 4 case(s) into .*; 0 failed, 0 missing" merge2.txt || fail "$(cat merge2.txt)"
    [ "$(cut -f1,2 r.tsv | tr '\t\n' ',,')" = "k,square,0,0,1,1,2,4,3,9," ] \
        || fail "merged: $(cut -f1,2 r.tsv)"
    ok "--merge names the stale files, takes each result for its own case only, resubmits the rest"
    ;;
list)
    # math.random: the same cases in every process
    "$wb" sweep --list "$study" r.tsv random > a.txt || fail "--list"
    "$wb" sweep --list "$study" r.tsv random > b.txt || fail "--list"
    cmp -s a.txt b.txt || fail "--list drew other cases the second time: $(head -2 a.txt b.txt)"
    "$wb" sweep --case 3 "$study" r.tsv random || fail "--case 3"
    "$wb" sweep --merge "$study" r.tsv random > merge.txt
    grep -q "merged 1 of 6" merge.txt || fail "$(cat merge.txt)"
    x_listed=$(sed -n 3p a.txt | cut -f3) x_ran=$(sed -n 2p r.tsv.cases/case-3.tsv | cut -f4)
    [ "x=$x_ran" = "$x_listed" ] || fail "--case 3 ran $x_ran, --list showed $x_listed"
    # a list that changes between --list and --case: refused, with the reason
    SWEEP_CASES=3 "$wb" sweep --list "$study" e.tsv env > /dev/null || fail "--list"
    SWEEP_CASES=4 "$wb" sweep --case 2 "$study" e.tsv env 2> err.txt
    status=$?
    cat err.txt
    [ $status = 2 ] || fail "--case on another list than --list's exited $status"
    grep -q "the case list is not the one --list or --slurm saved .*(3 case(s) then, 4 now)" err.txt \
        || fail "no reason given"
    [ ! -e e.tsv.cases/case-2.tsv ] || fail "it ran anyway"
    ok "math.random draws the same cases in every process; a list that changes is refused"
    ;;
same_out)
    "$wb" "$study" r.tsv slow > a.txt 2>&1 &
    first=$!
    # until the first holds its lock (a second at most: its cases take two)
    for i in $(seq 10); do [ -e r.tsv.lock ] && break; sleep 0.1; done
    "$wb" "$study" r.tsv quick > b.txt 2>&1
    status=$?
    wait $first || fail "the first sweep failed: $(cat a.txt)"
    cat b.txt
    [ $status != 0 ] || fail "the second sweep on the same out ran: $(cat r.tsv)"
    grep -q "is being written by another sweep (process $first holds" b.txt || fail "no reason"
    [ "$(cut -f1,2 r.tsv | tr '\t\n' ',,')" = "k,square,1,1,2,4,3,9," ] || fail "r.tsv: $(cat r.tsv)"
    [ ! -e r.tsv.lock ] || fail "the lock file stayed"
    ok "a second sweep on the same out is refused; the first one's rows are all there"
    ;;
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
file_size)
    # 1024 bytes (ulimit -f counts 512-byte blocks in sh): the header and
    # three rows fit, the fourth row is cut
    (ulimit -f 2; "$wb" "$study" r.tsv wide > a.txt 2>&1)
    cat a.txt
    [ "$(tail -c 1 r.tsv | od -An -c | tr -d ' ')" = '\n' ] || fail "r.tsv ends in a row cut short"
    grep -q "could be written (a full disk or a file-size limit?); they were taken back" a.txt \
        || fail "no reason given"
    [ "$(awk -F'\t' '{ print NF }' r.tsv | sort -u)" = 6 ] || fail "a row is not whole: $(cat r.tsv)"
    "$wb" "$study" r.tsv wide > b.txt 2>&1 || fail "the rerun: $(cat b.txt)"
    [ "$(awk -F'\t' '{ print NF }' r.tsv | sort -u)" = 6 ] || fail "a row is not whole: $(cat r.tsv)"
    [ "$(wc -l < r.tsv)" = 9 ] || fail "$(wc -l < r.tsv) lines"
    ok "a write cut by the file-size limit is taken back; the rerun completes the file"
    ;;
slurm_path)
    out='x
touch INJECTED
.tsv'
    "$wb" sweep --slurm --out "$out" "$study" > a.txt 2> err.txt
    status=$?
    cat err.txt
    [ $status != 0 ] || fail "a results path with a newline was accepted"
    grep -q "holds a newline or another control character" err.txt || fail "no reason"
    ! ls ./*.slurm.sh > /dev/null 2>&1 || fail "a batch script was written"
    # a plain path with a space and a quote: the #SBATCH line stays one line
    "$wb" sweep --slurm --out "it's a.tsv" "$study" "" four > b.txt || fail "$(cat b.txt)"
    grep -c '^#SBATCH --output=' "it's a.tsv.slurm.sh" | grep -qx 1 || fail "the #SBATCH line"
    ok "a newline in the results path is refused before any batch script is written"
    ;;
output_dir)
    "$wb" --output-dir rel "$study" r.tsv four > a.txt 2>&1 || fail "$(cat a.txt)"
    [ ! -e rel/rel ] || fail "rows went to two files: $(find rel -type f)"
    [ "$(cut -f1,2 rel/r.tsv | tr '\t\n' ',,')" = "k,square,1,1,2,4,3,9,4,16," ] \
        || fail "rel/r.tsv: $(cat rel/r.tsv)"
    cp rel/r.tsv before.tsv
    "$wb" --output-dir rel "$study" r.tsv four > b.txt 2>&1 || fail "$(cat b.txt)"
    cmp -s before.tsv rel/r.tsv || fail "the rerun ran the cases again"
    ok "a relative --output-dir: one results file, and a rerun finds its rows"
    ;;
*)
    fail "unknown check '$check'"
    ;;
esac
