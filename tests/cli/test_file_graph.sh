#!/bin/bash
# ci/file-graph: no circle among the files of probes/, nor among those of
# src/ and probes/ together (STYLE.md: dependencies point one way inside a
# folder too), and the script does find a circle when there is one.
set -u
: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$SOURCE_DIR/ci/file-graph" "$BUILD_DIR" probes); rc=$?
[ $rc -eq 0 ] || fail "circles in probes/: $out"
grep -q "^file-graph: [0-9]* files under probes, 0 circle(s)$" <<<"$out" || fail "summary: $out"

# src/ and probes/ together: no circle either (the command table depends on
# the commands, the checks' table on the checks, a check on the probes that
# run it, and nothing calls back)
out=$("$SOURCE_DIR/ci/file-graph" "$BUILD_DIR" src probes); rc=$?
[ $rc -eq 0 ] || fail "circles in src/ and probes/: $out"
grep -q "^file-graph: [0-9]* files under src probes, 0 circle(s)$" <<<"$out" || fail "src summary: $out"

# two files that call each other, and a third that only calls one
d=$tmp/build/CMakeFiles/rocmcheck_core.dir/probes
mkdir -p "$d"
printf 'int b(void);\nint a(void) { return b(); }\n' >"$tmp/a.c"
printf 'int a(void);\nint b(void) { return a() + 1; }\n' >"$tmp/b.c"
printf 'int a(void);\nint c(void) { return a(); }\n' >"$tmp/c.c"
for f in a b c; do cc -c -o "$d/$f.c.o" "$tmp/$f.c" || fail "cc $f"; done
out=$("$SOURCE_DIR/ci/file-graph" "$tmp/build" probes); rc=$?
[ $rc -eq 1 ] || fail "a circle must exit 1: $out"
grep -q "^circle: probes/a.c <-> probes/b.c$" <<<"$out" || fail "circle line: $out"
grep -q "probes/a.c -> probes/b.c (b)" <<<"$out" || fail "edge line: $out"
grep -q "probes/c.c" <<<"$(grep circle <<<"$out")" && fail "c.c is in no circle: $out"
"$SOURCE_DIR/ci/file-graph" "$tmp/none" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no objects must exit 2"
exit 0
