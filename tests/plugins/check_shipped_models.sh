#!/bin/sh
# `workbench check-model` on every model the host finds on its default
# search path (the in-tree models/ and anything added there since), plus a
# check that the models named on the command line are among them.
#
#   check_shipped_models.sh WORKBENCH_EXE [REQUIRED_MODEL]...
set -u
exe=$1
shift

list=$("$exe" list 2>&1) || { echo "FAIL: '$exe list' exited non-zero"; echo "$list"; exit 1; }
models=$(printf '%s\n' "$list" | awk '$1 == "model" { print $2 }')
failed=0

for required in "$@"; do
    printf '%s\n' "$models" | grep -x -q -e "$required" ||
        { echo "FAIL: model '$required' is not listed"; failed=$((failed + 1)); }
done

count=0
for model in $models; do
    count=$((count + 1))
    if out=$("$exe" check-model "$model" 2>&1); then
        echo "ok:   check-model $model"
    else
        echo "FAIL: check-model $model"
        printf '%s\n' "$out"
        failed=$((failed + 1))
    fi
done

[ "$count" -gt 0 ] || { echo "FAIL: no models listed"; failed=$((failed + 1)); }
echo "$count model(s) checked, $failed failure(s)"
[ "$failed" -eq 0 ]
