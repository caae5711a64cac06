#!/bin/sh
# Every output loads in python's strict readers, whatever the names (issue
# 25): output_names.lua writes data files, streams and their JSON metadata
# under a Latin-1 file name, with a tableau name cut at 63 bytes inside a
# character and a model plugin in a Latin-1 folder, and a work-precision
# table whose labels hold quotes, tabs and newlines; each .json must load
# in json.load (UTF-8, no NaN), each .tsv in csv.reader(strict=True) as one
# record a line, every record as wide as the header.  Skipped (77) without
# python3.
#
#   output_readers.sh WORKBENCH SCRIPT MODEL-PLUGIN WORKDIR
set -u
exe=$1 script=$2 plugin=$3 work=$4
command -v python3 >/dev/null 2>&1 || { echo "python3 not found: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work/out" || exit 2
plugins=$(printf '%s/plugins-caf\351' "$work")
mkdir -p "$plugins" && cp "$plugin" "$plugins/" || exit 2
WORKBENCH_NO_PROGRESS=1 WORKBENCH_PLUGIN_PATH= WORKBENCH_CACHE_DIR="$work/cache" \
    "$exe" --plugin-path "$plugins" --output-dir "$work/out" "$script" \
    "$(basename "$plugin" .so)" || exit 1
python3 - "$work/out" <<'PYTHON'
import csv, json, os, sys

def refuse(constant):
    raise ValueError("not JSON: " + constant)

def shown(path):
    return os.fsencode(path).decode("utf-8", "backslashreplace")

def check_json(path):
    with open(path, encoding="utf-8", errors="strict") as f:
        json.load(f, parse_constant=refuse)

def check_tsv(path):
    with open(path, "rb") as f:
        lines = f.read().count(b"\n")
    with open(path, encoding="utf-8", errors="strict", newline="") as f:
        records = list(csv.reader(f, delimiter="\t", strict=True))
    if len(records) != lines:
        raise ValueError("%d records in %d lines" % (len(records), lines))
    widths = sorted(set(len(r) for r in records))
    if len(widths) != 1:
        raise ValueError("records of %s fields" % widths)

checked, failed = 0, 0
for folder, _, files in os.walk(sys.argv[1]):
    for name in sorted(files):
        path = os.path.join(folder, name)
        check = check_json if name.endswith(".json") else check_tsv if name.endswith(".tsv") else None
        if not check:
            continue
        checked += 1
        try:
            check(path)
            print("ok:", shown(path))
        except Exception as e:
            failed += 1
            print("FAIL:", shown(path), "--", type(e).__name__, e)
print("%d file(s) read, %d failed" % (checked, failed))
sys.exit(1 if failed or checked < 5 else 0)
PYTHON
