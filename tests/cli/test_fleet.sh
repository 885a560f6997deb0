#!/bin/bash
# `rocmcheck fleet`: synthetic fleets with planted slow GPUs
# (tests/cli/make_fleet.py) are found exactly, noise and too-small groups are
# not; the failing checks name their nodes; every fixture's report, a support
# bundle and a directory mix are read; the JSON, Prometheus (promtool) and
# JUnit (xmllint) outputs are valid; exit statuses and usage errors.
. "$(dirname "$0")/lib.sh"

"$PYTHON" "$TESTS_DIR/cli/make_fleet.py" "$T/fleet" 64

run 1 --json fleet "$T/fleet"
[ "$(json_get "$OUT" 'sorted((o["node"], o["gpu"], o["probe"]) for o in d["outliers"])')" = \
	"[('node-0017', 3, 'probe.gemm.fp16'), ('node-0040', 0, 'probe.gemm.fp16'), ('node-0052', 6, 'probe.bandwidth')]" ] ||
	{ fail "the planted outliers, exactly"; last; }
[ "$(json_get "$OUT" '[(f["id"], f["nodes"]) for f in d["failing_checks"]]')" = "[('perm.kfd', ['node-0024', 'node-0049'])]" ] ||
	{ fail "failing checks"; last; }
# worst first (a slow GPU counts as a failure), then by name
[ "$(json_get "$OUT" 'd["reports"], [n["name"] for n in d["nodes"][:5]], d["exit_status"]')" = \
	"64 ['node-0017', 'node-0024', 'node-0040', 'node-0049', 'node-0052'] 1" ] ||
	{ fail "reports, worst first"; json_get "$OUT" '[n["name"] for n in d["nodes"][:5]]' >&2; }
[ "$(json_get "$OUT" 'sorted(n["name"] for n in d["nodes"] if n["outlier"])')" = "['node-0017', 'node-0040', 'node-0052']" ] ||
	{ fail "outlier nodes"; last; }

run 1 fleet "$T/fleet"
assert_out_has "^rocmcheck fleet: 64 reports: 62 passed, 0 with warnings, 2 failed, 0 with errors"
assert_out_has "^  perm.kfd  *2 nodes: node-0024 node-0049"
assert_out_has "node-0017 gpu 3  probe.gemm.fp16  .*, 50% of the median"
assert_out_has "group: probe.gemm.fp16 | hip | AMD Instinct MI300X gfx942 | amdgpu 6.8.5 | ROCm 6.2.0"
assert_out_lacks "node-0058 gpu"
assert_out_lacks "node-0007 gpu"

if command -v promtool >/dev/null; then
	run 1 --format prometheus fleet "$T/fleet"
	promtool check metrics <"$OUT" >"$T/promtool" 2>&1 || { fail "promtool rejects fleet metrics"; cat "$T/promtool" >&2; }
	assert_out_has '^rocmcheck_fleet_check_failures{check="perm.kfd"} 2$'
	assert_out_has '^rocmcheck_fleet_probe_outlier_ratio{node="node-0017",gpu="3",probe="probe.gemm.fp16"} 0.5'
fi
if command -v xmllint >/dev/null; then
	run 1 --format junit fleet "$T/fleet"
	xmllint --noout --schema "$TESTS_DIR/schemas/junit.xsd" "$OUT" 2>"$T/xmllint" ||
		{ fail "fleet JUnit is not valid"; cat "$T/xmllint" >&2; }
	assert_out_has 'failures="5"'
fi

# Every fixture's report, a bundle, and a file that is not a report.
mkdir -p "$T/mix"
for f in $(fixtures); do
	"$ROCMCHECK" --sysroot "$f" --json doctor --level quick >"$T/mix/$(basename "$f").json"
done
healthy=$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy
"$ROCMCHECK" --sysroot "$healthy" bundle -o "$T/mix/bundled.tar.gz" >/dev/null 2>&1
[ -s "$T/mix/bundled.tar.gz" ] || fail "making a bundle"
n=$(ls "$T/mix"/*.json | wc -l)
run 1 --json fleet "$T/mix"
[ "$(json_get "$OUT" 'd["reports"]')" = "$((n + 1))" ] || { fail "fixtures and a bundle: $((n + 1)) reports"; last; }
json_get "$OUT" '[x["source"] for x in d["nodes"]]' | grep -q 'bundled.tar.gz' || fail "the bundle's report"
echo '{"schema": "something/else"}' >"$T/mix/other.json"
run 1 fleet "$T/mix"
assert_out_has "other.json: not a rocmcheck.report/1 report"
assert_out_has "; 1 unreadable"

# Healthy only: exit 0. Nothing readable: exit 3.
mkdir -p "$T/ok"
cp "$T/mix/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/ok/"
run 0 fleet "$T/ok"
run 3 fleet "$T/mix/other.json"
assert_err_has "no report could be read"
run 3 fleet "$T/nonexistent"

# Hostile inputs: a report just over the 64 MiB cap (a real one, padded with
# JSON whitespace), a FIFO (opened without blocking: `timeout` turns a hang
# into a failure), a FIFO named like a bundle, a device. One line each; what
# can be read still is, and a directory's FIFO is passed over.
mkdir -p "$T/hostile"
cp "$T/ok/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/hostile/big.json"
head -c $((64 * 1024 * 1024 + 1 - $(stat -c %s "$T/hostile/big.json"))) /dev/zero | tr '\0' ' ' >>"$T/hostile/big.json"
mkfifo "$T/hostile/fifo.json" "$T/hostile/fifo.tar.gz"
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$ROCMCHECK" >"$T/timed"
chmod +x "$T/timed"
real=$ROCMCHECK
ROCMCHECK=$T/timed
run 3 fleet "$T/hostile/big.json"
assert_err_has "^rocmcheck: fleet: $T/hostile/big.json: larger than 64 MiB, the most a report may be$"
run 3 fleet "$T/hostile/fifo.json"
assert_err_has "^rocmcheck: fleet: $T/hostile/fifo.json: not a regular file (a FIFO)$"
run 3 fleet "$T/hostile/fifo.tar.gz"
assert_err_has "^rocmcheck: fleet: $T/hostile/fifo.tar.gz: not a regular file$"
run 3 fleet /dev/zero
assert_err_has "^rocmcheck: fleet: /dev/zero: not a regular file (a character device)$"
run 1 fleet "$T/ok" "$T/hostile/big.json" "$T/hostile/fifo.json" "$T/hostile/fifo.tar.gz" /dev/null
assert_out_has "^rocmcheck fleet: 1 report: .*; 4 unreadable$"
cp "$T/ok/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/hostile/"
mkdir "$T/hostile/dir.json"
run 1 --json fleet "$T/hostile"
[ "$(json_get "$OUT" 'd["reports"], [u.split("/")[-1] for u in d["unreadable"]]')" = \
	"1 ['big.json: larger than 64 MiB, the most a report may be']" ] || { fail "a directory of hostile inputs"; last; }
ROCMCHECK=$real

usage_error fleet
usage_error --sysroot "$healthy" fleet "$T/ok"
usage_error --format nfd fleet "$T/ok"
finish
