#!/bin/sh
# The compiled-model cache and the plugin-verdict cache trust only what is
# the user's own (issue 25).  Another user is simulated by a folder or
# file that others may write (chmod g+w / o+w) and, when this runs as
# root, by one that belongs to `nobody`.
#
#   compile_cache.sh WORKBENCH PLUGIN_SCENARIO_DIR OUTPUT_DIR INCLUDE_DIR
#
# PLUGIN_SCENARIO_DIR holds constructor_marker.so (its constructor writes
# $WB_TEST_MARKER) and constructor_crash.so; INCLUDE_DIR the source tree's
# headers (core/include).
set -u
ulimit -c 0 # the control of step 4 crashes on purpose
exe=$1 scenarios=$2 out=$3 include=$4
rm -rf "$out"
mkdir -p "$out" || exit 2
passed=0 failed=0
marker=$out/marker

ok() { passed=$((passed + 1)); echo "  ok    $1"; }
fail() {
    failed=$((failed + 1))
    echo "  FAIL  $1"
    [ -f "$out/log" ] && sed 's/^/        /' "$out/log" | head -20
}
check() { # check DESCRIPTION COMMAND...: the command's status decides
    what=$1
    shift
    if "$@"; then ok "$what"; else fail "$what"; fi
}
logged() { grep -qF -- "$1" "$out/log"; }
mode() { stat -c %a "$1"; }

cat >"$out/model.lua" <<'EOF'
local m = wb.compile_model{name = "cache_probe", nq = 1,
                           potential = function(q) return q[1] ^ 2 / 2 end}
print("loaded " .. m.name .. " " .. wb._compiled_models.cache_probe)
EOF

# run [VAR=VALUE]...: the script with a clean environment for the cache
run() {
    rm -f "$marker"
    env -u HOME -u XDG_CACHE_HOME -u WORKBENCH_CACHE_DIR -u TMPDIR WORKBENCH_PLUGIN_PATH= \
        WORKBENCH_NO_PROGRESS=1 WB_TEST_MARKER="$marker" "$@" "$exe" "$out/model.lua" \
        >"$out/log" 2>&1
}

# 1. A fresh cache folder is created 0700; the build's name is the key.
run HOME="$out/home"
check "a build in a fresh cache folder loads" logged "loaded cache_probe"
check "the cache folder is created 0700" [ "$(mode "$out/home/.cache/workbench")" = 700 ]
check "its models folder is created 0700" [ "$(mode "$out/home/.cache/workbench/models")" = 700 ]
so=$(ls "$out/home/.cache/workbench/models/"*.so 2>/dev/null | head -1)
name=$(basename "$so")

# 2. HOME unset: workbench-cache-<uid> in the shared temporary folder.
# Someone made it first and planted a plugin under the name the next run
# computes: refused, nothing of it runs.
tmp=$out/tmp
shared=$tmp/workbench-cache-$(id -u)
mkdir -p "$shared/models" && chmod 1777 "$tmp"
cp "$scenarios/constructor_marker.so" "$shared/models/$name"
chmod 755 "$shared" "$shared/models"
chmod 777 "$shared"
run TMPDIR="$tmp"
check "a shared cache folder writable by all users is refused" \
    logged "the cache folder '$shared' is writable by its group and all users (mode 0777)"
check "... and the plugin planted there never ran" [ ! -e "$marker" ]
# The same folder named by WORKBENCH_CACHE_DIR: the same rules.
chmod 775 "$shared"
run WORKBENCH_CACHE_DIR="$shared"
check "a cache folder writable by its group is refused" logged "is writable by its group"
check "... and the plugin planted there never ran" [ ! -e "$marker" ]
chmod 755 "$shared"
chmod 777 "$shared/models"
run WORKBENCH_CACHE_DIR="$shared"
check "a models folder writable by all users is refused" \
    logged "the cache folder '$shared/models' is writable by its group and all users"
check "... and the plugin planted there never ran" [ ! -e "$marker" ]
chmod 755 "$shared/models"
if [ "$(id -u)" = 0 ]; then
    chown -R nobody "$shared"
    run WORKBENCH_CACHE_DIR="$shared"
    check "a cache folder of another user (nobody) is refused" \
        logged "the cache folder '$shared' belongs to user $(id -u nobody), not to you (user 0)"
    check "... and the plugin planted there never ran" [ ! -e "$marker" ]
    chown -R 0 "$shared"
else
    echo "  skip  a cache folder of another user (not root: cannot chown)"
fi

# 3. The folder is the user's, the cached plugin is not: refused.
chmod 664 "$shared/models/$name"
run WORKBENCH_CACHE_DIR="$shared"
check "a cached plugin writable by its group is refused" \
    logged "the cached plugin '$shared/models/$name' is writable by its group (mode 0664)"
check "... and it never ran" [ ! -e "$marker" ]
chmod 644 "$shared/models/$name"
if [ "$(id -u)" = 0 ]; then
    chown nobody "$shared/models/$name"
    run WORKBENCH_CACHE_DIR="$shared"
    check "a cached plugin of another user is refused" \
        logged "the cached plugin '$shared/models/$name' belongs to user $(id -u nobody)"
    check "... and it never ran" [ ! -e "$marker" ]
fi
rm -f "$shared/models/$name"
run TMPDIR="$tmp"
check "with the planted file gone the model is built and loads" logged "loaded cache_probe"

# 4. The verdict cache: a verdict "loads cleanly" planted for a plugin
# whose constructor crashes would have the host load it without a test
# process.  In a folder or file that others may write it is not read.
crash=$out/crash
mkdir -p "$crash" && cp "$scenarios/constructor_crash.so" "$crash/"
verdicts() { # a verdicts file for this host that accepts constructor_crash.so
    mkdir -p "$1"
    {
        printf 'workbench plugin verdicts 1 %s\n' "$(stat -L -c '%i:%s:%.9Y' "$exe")"
        set -- $(stat -c '%d %i %s %.9Y' "$crash/constructor_crash.so")
        # mtime in ns: the seconds, then the nine digits of the fraction
        printf '%s\t%s\t%s\t%s%s\t1\t%s\t\n' "$1" "$2" "$3" "${4%.*}" "${4#*.}" \
            "$crash/constructor_crash.so"
    } >"$1/plugin-verdicts"
}
refused_cleanly() { [ "$status" = 0 ] && logged "killed a test process"; }
list() {
    env WORKBENCH_CACHE_DIR="$1" WORKBENCH_PLUGIN_PATH= "$exe" --plugin-path "$crash" list \
        >"$out/log" 2>&1
}
verdicts "$out/verdicts_file" && chmod 700 "$out/verdicts_file"
chmod 666 "$out/verdicts_file/plugin-verdicts"
list "$out/verdicts_file"
status=$?
check "a verdicts file writable by others is not read: the crashing plugin is refused" \
    refused_cleanly
check "... with a warning naming the file" \
    logged "plugin verdicts are not cached: the verdicts file '$out/verdicts_file/plugin-verdicts' is writable by its group and all users"
verdicts "$out/verdicts_dir" && chmod 770 "$out/verdicts_dir"
chmod 600 "$out/verdicts_dir/plugin-verdicts"
list "$out/verdicts_dir"
status=$?
check "verdicts in a folder writable by its group are not read" refused_cleanly
verdicts "$out/verdicts_own" && chmod 700 "$out/verdicts_own"
chmod 600 "$out/verdicts_own/plugin-verdicts"
list "$out/verdicts_own"
status=$?
check "control: the user's own verdicts are read (the planted one is trusted)" [ "$status" != 0 ]

# 5. The key holds the headers the generated code includes: a changed
# header builds a new plugin.  An install tree: bin/workbench finds
# ../include/workbench.
tree=$out/tree
mkdir -p "$tree/bin" "$tree/include" && cp "$exe" "$tree/bin/workbench" &&
    cp -r "$include/workbench" "$tree/include/"
exe_saved=$exe
exe=$tree/bin/workbench
run WORKBENCH_CACHE_DIR="$out/headers"
first=$(ls "$out/headers/models/"*.so 2>/dev/null | wc -l)
echo "/* changed */" >>"$tree/include/workbench/holonomic_projection.h"
run WORKBENCH_CACHE_DIR="$out/headers"
second=$(ls "$out/headers/models/"*.so 2>/dev/null | wc -l)
rebuilt() { [ "$first" = 1 ] && [ "$second" = 2 ] && logged "loaded cache_probe"; }
check "a changed header builds a new plugin ($first, then $second builds)" rebuilt
exe=$exe_saved

# 6. Another machine's build under the same name (a shared home): built
# again, not refused.  The build's ELF machine patched to AArch64 (183).
own=$out/home/.cache/workbench/models/$name
printf '\267\000' | dd of="$own" bs=1 seek=18 conv=notrunc 2>/dev/null
run HOME="$out/home"
check "another machine's build is built again and loads" logged "loaded cache_probe"
check "... the file is this machine's again" \
    [ "$(od -An -tu2 -j18 -N2 "$own" | tr -d ' ')" != 183 ]

# 7. Under umask 002 the compiler makes a group-writable file: the cache
# writes its plugins 0755, so the next run loads its own build.
umask 002
run WORKBENCH_CACHE_DIR="$out/umask"
run WORKBENCH_CACHE_DIR="$out/umask"
check "under umask 002 the next run loads the cached build" logged "loaded cache_probe"
check "... which is mode 755" \
    [ "$(mode "$(ls "$out/umask/models/"*.so | head -1)")" = 755 ]
umask 022

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
