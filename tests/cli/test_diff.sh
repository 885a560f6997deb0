#!/bin/bash
# `rocmcheck diff A B` on fixture pairs: the verdict that changed, with the
# fact difference that explains it (from bundles: the user's groups and the
# device nodes; from reports: the kernel), the rest apart; identical inputs;
# JSON; exit statuses and usage errors.
. "$(dirname "$0")/lib.sh"

FX=$TESTS_DIR/fixtures
for f in amd-rx7900xtx-ubuntu2204-healthy amd-rx7900xtx-ubuntu2204-norender amd-rx7900xtx-ubuntu2404-kerneltoonew; do
	"$ROCMCHECK" --sysroot "$FX/$f" bundle -o "$T/$f.tar.gz" >/dev/null 2>&1 # exit 1: the machine has problems
	[ -s "$T/$f.tar.gz" ] || fail "bundle of $f"
	"$ROCMCHECK" --sysroot "$FX/$f" --json doctor --level quick >"$T/$f.json"
done

# Permissions lost: explained by the groups and the device nodes' access.
run 1 diff "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" "$T/amd-rx7900xtx-ubuntu2204-norender.tar.gz"
assert_out_has "^  perm.kfd: pass → fail: user alice cannot open /dev/kfd"
assert_out_has "^      groups of alice: .*video,plugdev,render,lpadmin → .*dip,plugdev,lpadmin$"
assert_out_has "^      /dev/kfd: 0660 root:render, read-write → 0660 root:render, denied$"
run 1 --json diff "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" "$T/amd-rx7900xtx-ubuntu2204-norender.tar.gz"
[ "$(json_get "$OUT" 'sorted((v["id"], v["a"], v["b"]) for v in d["verdicts"])')" = \
	"[('perm.kfd', 'pass', 'fail'), ('perm.render', 'pass', 'fail')]" ] || { fail "verdicts"; last; }
[ "$(json_get "$OUT" '[f["explains_a_verdict"] for f in d["facts"] if f["what"] == "groups of alice"]')" = "[True]" ] ||
	{ fail "the groups explain it"; last; }
[ "$(json_get "$OUT" 'd["schema"], d["exit_status"]')" = "rocmcheck.diff/1 1" ] || fail "schema and exit status"

# Reports only: a newer kernel explains system.kernel; nothing from host.ini.
run 1 diff "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/amd-rx7900xtx-ubuntu2404-kerneltoonew.json"
assert_out_has "^  system.kernel: pass → "
assert_out_has "^      kernel: 6.8.0-40-generic → "
assert_out_lacks "groups of"

# Identical: nothing differs, exit 0; the same report as a bundle and as JSON
# differ only in what the bundle adds (nothing to compare against: no verdict).
run 0 diff "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/amd-rx7900xtx-ubuntu2204-healthy.json"
assert_out_has "No differences"
run any --json diff "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz"
[ "$(json_get "$OUT" 'len(d["verdicts"])')" = 0 ] || { fail "a report and its bundle: no verdict differs"; last; }

# Not inputs: exit 3; usage errors.
echo '{"schema": "rocmcheck.fleet/1"}' >"$T/other.json"
run 3 diff "$T/other.json" "$T/amd-rx7900xtx-ubuntu2204-healthy.json"
assert_err_has "not a rocmcheck.report/1 report"
run 3 diff "$T/nonexistent.json" "$T/amd-rx7900xtx-ubuntu2204-healthy.json"
usage_error diff "$T/other.json"
usage_error --sysroot "$FX/amd-rx7900xtx-ubuntu2204-healthy" diff "$T/other.json" "$T/other.json"
finish
