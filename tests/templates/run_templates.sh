#!/bin/sh
# run_templates.sh -- the plugin templates, used the way a researcher
# outside the source tree uses them:
#
#   1. install the build tree into a fresh prefix (cmake --install);
#   2. copy the INSTALLED templates and compile each with exactly
#        cc -shared -fPIC $(pkg-config --cflags workbench-plugin) X.c -o X.so
#      (plus a strict rebuild: -std=c11 -Wall -Wextra -Werror, linked with
#      --no-undefined against libc/libm only, one exported symbol);
#   3. run the INSTALLED workbench with --plugin-path: `list` shows both
#      plugins, `check-model template_model` passes, and
#      template_check.lua measures order, energy and error paths.
#
# usage: run_templates.sh CMAKE BUILD_DIR TEMPLATE_SOURCE_DIR CHECK_SCRIPT WORK_DIR
# Exits non-zero, with the reason on stderr, at the first failing step.

set -eu

if [ $# -ne 5 ]; then
    echo "usage: $0 CMAKE BUILD_DIR TEMPLATE_SOURCE_DIR CHECK_SCRIPT WORK_DIR" >&2
    exit 2
fi
CMAKE=$1
BUILD_DIR=$2
TEMPLATE_SOURCE_DIR=$3
CHECK_SCRIPT=$4
WORK=$5

PREFIX=$WORK/prefix
SRC=$WORK/src             # the researcher's copies of the templates
PLUGINS=$WORK/plugins     # the plugins they build
STRICT=$WORK/strict       # the same, built with every warning an error
OUT=$WORK/output          # the script's output folder
TEMPLATES="model_template constrained_model_template integrator_template"

fail() {
    echo "run_templates.sh: FAILED: $*" >&2
    exit 1
}

step() {
    echo
    echo "== $*"
}

note() {
    echo "run_templates.sh: NOTE: $*"
}

# A step's output goes to a log file, shown in full when the step fails.
show_log_and_fail() {
    log=$1
    shift
    cat "$log" >&2 || true
    fail "$*"
}

# Nothing from the caller's environment may change what is tested.
unset DESTDIR WORKBENCH_PLUGIN_PATH WORKBENCH_OUTPUT_DIR PKG_CONFIG_LIBDIR \
      PKG_CONFIG_SYSROOT_DIR 2>/dev/null || true
WORKBENCH_NO_PROGRESS=1
export WORKBENCH_NO_PROGRESS
# wb.compile_model (in template_check.lua) compiles against the installed
# headers and caches its plugins here
WORKBENCH_CACHE_DIR=$WORK/cache
export WORKBENCH_CACHE_DIR

rm -rf "$WORK"
mkdir -p "$WORK" "$SRC" "$PLUGINS" "$STRICT" "$OUT" || fail "cannot create $WORK"

# ---- 1. install --------------------------------------------------------------
step "cmake --install $BUILD_DIR --prefix $PREFIX"
"$CMAKE" --install "$BUILD_DIR" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 ||
    show_log_and_fail "$WORK/install.log" "cmake --install exited with status $?"
WORKBENCH=$PREFIX/bin/workbench
[ -x "$WORKBENCH" ] || fail "the install has no executable $WORKBENCH"

# GNUInstallDirs may choose lib or lib/<multiarch> (Debian, prefix /usr):
# look for the .pc file instead of guessing.
PC_FILES=$(find "$PREFIX" -name workbench-plugin.pc -path '*/pkgconfig/*')
[ -n "$PC_FILES" ] || fail "the install has no workbench-plugin.pc under $PREFIX"
[ "$(echo "$PC_FILES" | wc -l)" -eq 1 ] || fail "several workbench-plugin.pc files: $PC_FILES"
PC_FILE=$PC_FILES
PC_DIR=$(dirname "$PC_FILE")
LIB_DIR=$(dirname "$PC_DIR")
echo "pkg-config file: $PC_FILE"

# ---- 2. pkg-config -------------------------------------------------------------
step "pkg-config workbench-plugin (PKG_CONFIG_PATH=$PC_DIR)"
PKG_CONFIG_PATH=$PC_DIR
export PKG_CONFIG_PATH
pkg-config --exists workbench-plugin || fail "pkg-config cannot find workbench-plugin in $PC_DIR"
found_dir=$(pkg-config --variable=pcfiledir workbench-plugin)
[ "$found_dir" = "$PC_DIR" ] ||
    fail "pkg-config picked up $found_dir/workbench-plugin.pc instead of the one in $PC_DIR"

# The .pc file is relocatable (prefix=${pcfiledir}/...): it must resolve to
# the prefix we installed into, whatever prefix the build was configured with.
pc_prefix=$(pkg-config --variable=prefix workbench-plugin)
[ "$(cd "$pc_prefix" && pwd -P)" = "$(cd "$PREFIX" && pwd -P)" ] ||
    fail "the installed workbench-plugin.pc resolves prefix=$pc_prefix, not the install prefix $PREFIX"
PREFIX=$(cd "$PREFIX" && pwd -P)

CFLAGS_PC=$(pkg-config --cflags workbench-plugin) || fail "pkg-config --cflags workbench-plugin"
LIBS_PC=$(pkg-config --libs workbench-plugin) || fail "pkg-config --libs workbench-plugin"
INCLUDE_DIR=$(pkg-config --variable=includedir workbench-plugin)
TEMPLATES_DIR=$(pkg-config --variable=templatesdir workbench-plugin)
echo "cflags: $CFLAGS_PC"
echo "libs:   $LIBS_PC"
INCLUDE_DIR=$(cd "$INCLUDE_DIR" && pwd -P) || fail "no include folder $INCLUDE_DIR"
case "$INCLUDE_DIR" in
    "$PREFIX"/*) ;;
    *) fail "includedir $INCLUDE_DIR is outside the install prefix $PREFIX" ;;
esac
[ -f "$INCLUDE_DIR/workbench/workbench.h" ] || fail "no $INCLUDE_DIR/workbench/workbench.h"

# ---- 3. the installed templates ---------------------------------------------------
step "templates installed in $TEMPLATES_DIR"
for f in model_template.c constrained_model_template.c integrator_template.c README.md; do
    [ -s "$TEMPLATES_DIR/$f" ] || fail "the install lacks $TEMPLATES_DIR/$f (or it is empty)"
    cmp -s "$TEMPLATES_DIR/$f" "$TEMPLATE_SOURCE_DIR/$f" ||
        fail "$TEMPLATES_DIR/$f differs from $TEMPLATE_SOURCE_DIR/$f (stale build or install?)"
done
cp "$TEMPLATES_DIR/model_template.c" "$TEMPLATES_DIR/constrained_model_template.c" \
   "$TEMPLATES_DIR/integrator_template.c" "$SRC/" ||
    fail "cannot copy the templates to $SRC"

# ---- 4. compile out of tree ---------------------------------------------------------
for t in $TEMPLATES; do
    step "cc -shared -fPIC \$(pkg-config --cflags workbench-plugin) $t.c -o $t.so"
    (cd "$SRC" && cc -shared -fPIC $(pkg-config --cflags workbench-plugin) $t.c -o $t.so) \
        >"$WORK/cc-$t.log" 2>&1 || show_log_and_fail "$WORK/cc-$t.log" "compiling $t.c"
    cat "$WORK/cc-$t.log"
    mv "$SRC/$t.so" "$PLUGINS/$t.so" || fail "cannot move $t.so to $PLUGINS"

    step "strict: -std=c11 -Wall -Wextra -Werror, -Wl,--no-undefined with libc/libm only"
    cc -std=c11 -Wall -Wextra -Werror -shared -fPIC $CFLAGS_PC "$SRC/$t.c" \
        -o "$STRICT/$t.so" $LIBS_PC -Wl,--no-undefined >"$WORK/strict-$t.log" 2>&1 ||
        show_log_and_fail "$WORK/strict-$t.log" \
            "$t.c does not build cleanly with -Wall -Wextra, or needs symbols beyond libc/libm"
    if command -v nm >/dev/null 2>&1; then
        exports=$(nm -D --defined-only "$PLUGINS/$t.so" | awk 'NF == 3 && $2 ~ /[A-Z]/ { print $3 }')
        [ "$exports" = "workbench_plugin_entry" ] ||
            fail "$t.so must export only workbench_plugin_entry; it exports: $exports"
        echo "exports: $exports"
    else
        note "nm not found: the exported-symbol check is skipped"
    fi
done

# ---- 5. run the installed host -----------------------------------------------------
PLUGIN_ARGS="--plugin-path $PLUGINS"
INSTALLED_PLUGINS=$LIB_DIR/workbench/plugins
[ -f "$INSTALLED_PLUGINS/classic.so" ] || fail "the install has no $INSTALLED_PLUGINS/classic.so"
# The installed host finds its installed plugins relative to itself, whether
# the library folder is lib or lib/<multiarch>: no --plugin-path for them.

step "$WORKBENCH $PLUGIN_ARGS list"
"$WORKBENCH" $PLUGIN_ARGS list >"$WORK/list.txt" 2>&1 ||
    show_log_and_fail "$WORK/list.txt" "workbench list exited with status $?"
cat "$WORK/list.txt"
grep -q "^model  *template_model .*$PLUGINS/model_template.so" "$WORK/list.txt" ||
    fail "workbench list does not show template_model from $PLUGINS"
grep -q "^model  *template_surface .*$PLUGINS/constrained_model_template.so" "$WORK/list.txt" ||
    fail "workbench list does not show template_surface from $PLUGINS"
grep -q "^integrator  *template_family .*$PLUGINS/integrator_template.so" "$WORK/list.txt" ||
    fail "workbench list does not show template_family from $PLUGINS"
grep -q "template_family.symplectic_euler  *order 1" "$WORK/list.txt" ||
    fail "workbench list does not show template_family.symplectic_euler (order 1)"
# The host prints the path it loaded, e.g. <prefix>/bin/../lib/...: compare
# physical folders.
classic_path=$(awk '$1 == "integrator" && $2 == "classic" { print $NF }' "$WORK/list.txt")
[ -n "$classic_path" ] || fail "workbench list does not show the classic family"
classic_dir=$(cd "$(dirname "$classic_path")" && pwd -P) || fail "no folder for $classic_path"
[ "$classic_dir" = "$(cd "$INSTALLED_PLUGINS" && pwd -P)" ] ||
    fail "the installed host loaded classic from $classic_path, not from $INSTALLED_PLUGINS"
if grep -q "^refused:" "$WORK/list.txt"; then
    fail "workbench list refused some plugin files (see above)"
fi

step "$WORKBENCH $PLUGIN_ARGS check-model template_model"
"$WORKBENCH" $PLUGIN_ARGS check-model template_model >"$WORK/check-model.txt" 2>&1 ||
    show_log_and_fail "$WORK/check-model.txt" "check-model template_model exited with status $?"
cat "$WORK/check-model.txt"
grep -q "^template_model: 0 check(s) failed" "$WORK/check-model.txt" ||
    fail "check-model template_model did not report 0 failed checks"
grep -q "potential_hessian .* ok" "$WORK/check-model.txt" ||
    fail "check-model did not compare the analytic Hessian"

step "$WORKBENCH $PLUGIN_ARGS check-model template_surface"
"$WORKBENCH" $PLUGIN_ARGS check-model template_surface >"$WORK/check-surface.txt" 2>&1 ||
    show_log_and_fail "$WORK/check-surface.txt" "check-model template_surface exited with status $?"
cat "$WORK/check-surface.txt"
grep -q "^template_surface: 0 check(s) failed" "$WORK/check-surface.txt" ||
    fail "check-model template_surface did not report 0 failed checks"
grep -q "constraint_third_contract .* ok" "$WORK/check-surface.txt" ||
    fail "check-model did not compare the constrained template's third derivatives"
"$WORKBENCH" $PLUGIN_ARGS check-model template_surface c=0 >"$WORK/check-surface-c0.txt" 2>&1 ||
    show_log_and_fail "$WORK/check-surface-c0.txt" "check-model template_surface c=0 failed"
tail -n 1 "$WORK/check-surface-c0.txt"

step "$WORKBENCH $PLUGIN_ARGS check-model template_model lambda=0 mass=3 omega_y=2.5 energy=4"
"$WORKBENCH" $PLUGIN_ARGS check-model template_model lambda=0 mass=3 omega_y=2.5 energy=4 \
    >"$WORK/check-model-linear.txt" 2>&1 ||
    show_log_and_fail "$WORK/check-model-linear.txt" "check-model with lambda=0 failed"
tail -n 1 "$WORK/check-model-linear.txt"

step "$WORKBENCH $PLUGIN_ARGS --output-dir $OUT $CHECK_SCRIPT"
status=0
"$WORKBENCH" $PLUGIN_ARGS --output-dir "$OUT" "$CHECK_SCRIPT" >"$WORK/check.txt" 2>&1 || status=$?
cat "$WORK/check.txt"
[ "$status" -eq 0 ] || fail "template_check.lua exited with status $status"
summary=$(tail -n 1 "$WORK/check.txt")
echo "$summary" | grep -Eq '^[1-9][0-9]* passed, 0 failed$' ||
    fail "template_check.lua did not end with 'N passed, 0 failed' (last line: $summary)"

echo
echo "run_templates.sh: all steps passed"
