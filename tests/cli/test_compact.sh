#!/bin/bash
# doctor's default text view is compact: one line per category, every
# warn/fail/error in full, each distinct fix once with the checks it serves;
# -v shows every check; the JSON is the same whatever the view.
. "$(dirname "$0")/lib.sh"

NORENDER=$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-norender

run 1 --sysroot "$NORENDER" doctor --level quick
assert_out_has "^✓ system: 4 passed, 3 skipped$"
assert_out_has "^- network: 1 skipped$"
assert_out_has "^✗ permissions: 2 failed, 1 skipped$"
assert_out_has "^  ✗ Access to /dev/kfd: user alice cannot open"
assert_out_has "^    fix (also for perm.render (GPU 0)): "
assert_out_has "^    fix: the same as for perm.kfd above$"
assert_out_lacks "Kernel release supported"
[ "$(grep -c "sudo usermod" "$OUT")" = 1 ] || fail "the shared fix is printed $(grep -c "sudo usermod" "$OUT") times"
[ "$(wc -l <"$OUT")" -le 20 ] || fail "the default view of a machine with one problem takes $(wc -l <"$OUT") lines"
compact=$(wc -l <"$OUT")

run 1 --sysroot "$NORENDER" -v doctor --level quick
assert_out_has "^  ✓ Kernel release supported: "
[ "$(grep -c "sudo usermod" "$OUT")" = 2 ] || fail "-v does not print every fix"
[ "$(wc -l <"$OUT")" -gt "$compact" ] || fail "-v is not longer than the default view"

run 1 --sysroot "$NORENDER" -q doctor --level quick
[ "$(grep -c "sudo usermod" "$OUT")" = 1 ] || fail "-q prints the shared fix twice"
assert_out_lacks "✓"

# the JSON does not depend on the view
"$ROCMCHECK" --sysroot "$NORENDER" --json doctor --level quick >"$T/a.json" 2>/dev/null
"$ROCMCHECK" --sysroot "$NORENDER" --json -v doctor --level quick >"$T/b.json" 2>/dev/null
cmp -s "$T/a.json" "$T/b.json" || fail "-v changes the JSON"

finish
