#!/bin/bash
# ci/file-graph: no circle among the files of probes/, none among those of
# src/ but the command layer's (STYLE.md: dependencies point one way inside a
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

# src/: the one circle left is cli.c with the commands it dispatches to (and
# out_text.c, which asks cli.c about colour); each file of a circle must be
# one of these, named, so the allowance can only shrink.
allowed="src/cli.c
src/cmd_bundle.c
src/cmd_checks.c
src/cmd_devices.c
src/cmd_doctor.c
src/cmd_plan.c
src/cmd_probe.c
src/cmd_version.c
src/out_text.c"
# prints why and returns 1 when file-graph's output $1 has another circle
src_circles_allowed() {
	local circles f
	circles=$(grep "^circle: " <<<"$1")
	[ "$(grep -c "^circle: " <<<"$1")" -le 1 ] || { echo "more than one circle"; return 1; }
	# shellcheck disable=SC2013 # file names are words
	for f in $(sed 's/^circle: //; s/ <-> / /g' <<<"$circles"); do
		grep -qxF -- "$f" <<<"$allowed" || { echo "a circle through $f"; return 1; }
	done
}
out=$("$SOURCE_DIR/ci/file-graph" "$BUILD_DIR" src); rc=$?
grep -q "^file-graph: [0-9]* files under src, [0-9]* circle(s)$" <<<"$out" || fail "src summary: $out"
grep -q "^file-graph: [0-9]* files under src, 0 circle(s)$" <<<"$out" && [ $rc -ne 0 ] && fail "no circle, exit $rc"
why=$(src_circles_allowed "$out") || fail "src/: $why: $out"
# the rule itself: a subset of the allowed circle passes, any other file fails
src_circles_allowed "circle: src/cli.c <-> src/cmd_plan.c" >/dev/null || fail "allowed subset refused"
src_circles_allowed "circle: src/checks.c <-> src/check_rocm.c" >/dev/null && fail "checks circle allowed"
src_circles_allowed "circle: src/cli.c <-> src/cmd_plan.c <-> src/plan.c" >/dev/null && fail "plan.c allowed"
src_circles_allowed "$(printf 'circle: src/cli.c <-> src/cmd_plan.c\ncircle: src/cli.c <-> src/out_text.c')" >/dev/null &&
	fail "two circles allowed"

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
