#!/bin/bash
# `rocmcheck fleet`: synthetic fleets with planted slow GPUs
# (tests/cli/make_fleet.py) are found exactly, noise and too-small groups are
# not; the failing checks name their nodes; every fixture's report, a support
# bundle and a directory mix are read; the JSON, Prometheus (promtool) and
# JUnit (xmllint) outputs are valid; the health fixtures' reports give each
# node's health failures and the hot GPU and narrow link among GPUs of a
# model; exit statuses and usage errors. The text lists the failing nodes
# (every node with -v, the summary alone with -q), a slow GPU alone fails
# the fleet, and host names in more than one report are named with their
# files.
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
# a slow GPU fails the node's verdict, not its report's status; the
# verdicts are the text summary's counts
[ "$(json_get "$OUT" '[(n["status"], n["verdict"]) for n in d["nodes"] if n["name"] in ("node-0017", "node-0024", "node-0000")]')" = \
	"[('pass', 'fail'), ('fail', 'fail'), ('pass', 'pass')]" ] || { fail "status and verdict per node"; last; }
[ "$(json_get "$OUT" 'sorted(d["verdicts"].items())')" = \
	"[('error', 0), ('fail', 5), ('pass', 59), ('skip', 0), ('warn', 0)]" ] || { fail "verdicts"; last; }

# The text: a slow GPU fails its node in the summary too; only the failing
# nodes get a row (every node with -v); -q prints the summary alone.
run 1 fleet "$T/fleet"
assert_out_has "^rocmcheck fleet: 64 reports: 59 passed, 0 with warnings, 5 failed, 0 with errors$"
assert_out_has "^Outliers, each node counted as failed: 3 with a slow GPU, 0 with a hot GPU, 0 with a narrow link$"
[ "$(grep -c '^node-[0-9]* ' "$OUT")" = 5 ] || { fail "the 5 failing nodes' rows, no more"; last; }
assert_out_has "^node-0017  *fail  .* slow GPU$"
assert_out_has "^59 nodes that passed or warned not listed (-v lists every node)$"
head -n 2 "$OUT" >"$T/summary"
run 1 -v fleet "$T/fleet"
[ "$(grep -c '^node-[0-9]* ' "$OUT")" = 64 ] || { fail "-v: every node's row"; last; }
assert_out_has "^node-0000  *pass "
assert_out_lacks "not listed"
run 1 -q fleet "$T/fleet"
cmp -s "$OUT" "$T/summary" || { fail "-q: the summary alone"; last; }
run 1 fleet "$T/fleet"
assert_out_has "^  perm.kfd  *2 nodes: node-0024 node-0049"
assert_out_has "node-0017 gpu 3  probe.gemm.fp16  .*, 50% of the median"
assert_out_has "group: probe.gemm.fp16 | hip | AMD Instinct MI300X gfx942 | amdgpu 6.8.5 | ROCm 6.2.0"
assert_out_lacks "node-0058 gpu"
assert_out_lacks "node-0007 gpu"

if command -v promtool >/dev/null; then
	run 1 --format prometheus fleet "$T/fleet"
	promtool check metrics <"$OUT" >"$T/promtool" 2>&1 || { fail "promtool rejects fleet metrics"; cat "$T/promtool" >&2; }
	assert_out_has '^rocmcheck_fleet_check_failures{check="perm.kfd"} 2$'
	assert_out_has '^rocmcheck_fleet_nodes{verdict="fail"} 5$'
	assert_out_has '^rocmcheck_fleet_nodes{verdict="pass"} 59$'
	assert_out_has '^rocmcheck_fleet_reports{status="fail"} 2$'
	assert_out_has '^rocmcheck_fleet_probe_outlier_ratio{node="node-0017",gpu="3",probe="probe.gemm.fp16"} 0.5'
fi
if command -v xmllint >/dev/null; then
	run 1 --format junit fleet "$T/fleet"
	xmllint --noout --schema "$TESTS_DIR/schemas/junit.xsd" "$OUT" 2>"$T/xmllint" ||
		{ fail "fleet JUnit is not valid"; cat "$T/xmllint" >&2; }
	assert_out_has 'failures="5"'
fi
# A node is one <failure> or one <error>, by its verdict: node-0017's slow
# GPU with a report that erred is an error, counted once.
cp -r "$T/fleet" "$T/fleet-err"
"$PYTHON" - "$T/fleet-err/node-0017.json" <<'PY' || fail "editing node-0017"
import json, sys
d = json.load(open(sys.argv[1]))
d["summary"]["status"] = "error"
json.dump(d, open(sys.argv[1], "w"))
PY
run 1 --format junit fleet "$T/fleet-err"
assert_out_has '<testsuite name="rocmcheck fleet" tests="64" failures="4" errors="1">'
[ "$(grep -A1 'name="node-0017"' "$OUT" | grep -c '<error message="a slow GPU" type="outlier">')" = 1 ] ||
	{ fail "node-0017: one <error> for the erred report with a slow GPU"; last; }
if command -v xmllint >/dev/null; then
	xmllint --noout --schema "$TESTS_DIR/schemas/junit.xsd" "$OUT" 2>"$T/xmllint" ||
		{ fail "fleet JUnit with an erred node is not valid"; cat "$T/xmllint" >&2; }
fi
run 1 --json fleet "$T/fleet-err"
[ "$(json_get "$OUT" '[(n["status"], n["verdict"]) for n in d["nodes"] if n["name"] == "node-0017"], d["verdicts"]["error"], d["verdicts"]["fail"]')" = \
	"[('error', 'error')] 1 4" ] || { fail "an erred node with a slow GPU: verdict error"; last; }

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

# A slow GPU alone fails the fleet: node-0017 is the only problem among the
# first 20 nodes; the first 17 are all well.
mkdir -p "$T/slow" "$T/well"
cp "$T/fleet"/node-00[01][0-9].json "$T/slow/"
cp "$T/slow"/node-000[0-9].json "$T/slow"/node-001[0-6].json "$T/well/"
run 1 fleet "$T/slow"
assert_out_has "^rocmcheck fleet: 20 reports: 19 passed, 0 with warnings, 1 failed, 0 with errors$"
assert_out_has "^node-0017  *fail "
run 1 -q fleet "$T/slow"
[ "$(wc -l <"$OUT")" = 2 ] || { fail "-q: the counts and the outliers"; last; }
run 0 -q fleet "$T/well"
assert_out_has "^rocmcheck fleet: 17 reports: 17 passed, 0 with warnings, 0 failed, 0 with errors$"
[ "$(wc -l <"$OUT")" = 1 ] || { fail "-q on a healthy fleet: one line"; last; }
run 0 fleet "$T/well"
assert_out_lacks "^NODE"
assert_out_has "^17 nodes that passed or warned not listed"

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

# Health: four copies of a healthy but noisy node (junction 45 °C), one that
# runs hot at idle (106 °C, and a lowered power cap and small BAR that warn),
# one whose link above a x16 card trained x4, and an NVIDIA node with Xid 79,
# each renamed through its host name. The hot GPU and the narrow link are
# outliers of their model; every node's warning and failing health checks are
# listed with their GPU; the healthy copies alone, or two GPUs of a model,
# give no outlier.
mkdir -p "$T/health"
# as_node FIXTURE HOST: the fixture's report as node HOST
as_node() {
	"$ROCMCHECK" --sysroot "$TESTS_DIR/fixtures/$1" --json doctor --level quick >"$T/one.json"
	"$PYTHON" - "$T/one.json" "$2" "$T/health/$2.json" <<'PY' || fail "renaming $1 to $2"
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["hostname"] = sys.argv[2]
json.dump(d, open(sys.argv[3], "w"))
PY
}
for i in 1 2 3 4; do as_node amd-rx7900xtx-ubuntu2204-healthynoisy "ws-0$i"; done
mkdir -p "$T/healthy" "$T/pair"
cp "$T/health"/ws-0*.json "$T/healthy/"
run 0 fleet "$T/healthy"
assert_out_lacks "Health"
as_node amd-rx7900xtx-ubuntu2204-hotidle ws-hot
as_node amd-rx7900xtx-ubuntu2204-linkx4 ws-x4
as_node nvidia-rtx4090-ubuntu2204-xid79 ws-xid
cp "$T/health/ws-01.json" "$T/health/ws-hot.json" "$T/pair/"
run 1 --json fleet "$T/pair"
[ "$(json_get "$OUT" 'd["health_outliers"], [n["health_outliers"] for n in d["nodes"]]')" = "[] [[], []]" ] ||
	{ fail "two GPUs of a model are not judged"; last; }

run 1 --json fleet "$T/health"
[ "$(json_get "$OUT" '[(o["node"], o["gpu"], o["model"], o["kind"], o["value"], o["model_value"], o["group_size"]) for o in d["health_outliers"]]')" = \
	"[('ws-hot', 0, 'AMD Radeon RX 7900 XTX', 'temperature', 106.0, 45.0, 6), ('ws-x4', 0, 'AMD Radeon RX 7900 XTX', 'link_width', 4.0, 16.0, 6)]" ] ||
	{ fail "health outliers: the hot GPU and the narrow link"; last; }
[ "$(json_get "$OUT" '[(n["name"], n["health_outliers"]) for n in d["nodes"][:3]]')" = \
	"[('ws-hot', ['temperature']), ('ws-x4', ['link_width']), ('ws-xid', [])]" ] || { fail "health outlier nodes, worst first"; last; }
[ "$(json_get "$OUT" '[(h["id"], h["gpu"], h["status"]) for n in d["nodes"] if n["name"] == "ws-hot" for h in n["health"]]')" = \
	"[('health.thermal', 0, 'fail'), ('health.power', 0, 'warn'), ('health.bar', 0, 'warn')]" ] || { fail "ws-hot's health"; last; }
[ "$(json_get "$OUT" '[(n["name"], n["categories"]["health"], len(n["health"])) for n in d["nodes"] if n["name"] in ("ws-xid", "ws-01")]')" = \
	"[('ws-xid', 'fail', 1), ('ws-01', 'pass', 0)]" ] || { fail "health category and lists"; last; }
[ "$(json_get "$OUT" 'sorted((f["id"], f["nodes"]) for f in d["failing_checks"] if f["id"].startswith("health."))')" = \
	"[('health.kernel_log', ['ws-xid']), ('health.pcie_link', ['ws-x4']), ('health.thermal', ['ws-hot'])]" ] ||
	{ fail "health failures are failing checks"; last; }
# A report from before gpus[].telemetry (an older rocmcheck): its GPUs give no
# figure, so the hot GPU among healthy peers is no outlier, and fleet says why.
mkdir -p "$T/old"
cp "$T/health"/ws-0*.json "$T/old/"
"$PYTHON" - "$T/health/ws-hot.json" "$T/old/ws-hot.json" <<'PY' || fail "stripping telemetry"
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["gpus"]:
    del g["telemetry"]
json.dump(d, open(sys.argv[2], "w"))
PY
run 1 --json fleet "$T/old"
[ "$(json_get "$OUT" 'd["health_outliers"], sorted((n["name"], n["no_telemetry"]) for n in d["nodes"])')" = \
	"[] [('ws-01', False), ('ws-02', False), ('ws-03', False), ('ws-04', False), ('ws-hot', True)]" ] ||
	{ fail "a report without telemetry: no figures, said so"; last; }
run 1 fleet "$T/old"
assert_out_has "^No GPU readings (a report without gpus\[\].telemetry, .*): ws-hot$"

run 1 fleet "$T/health"
assert_out_has "^NODE  *STATUS .* env health network probes$"
assert_out_has "^ws-hot  *fail .* hot GPU$"
assert_out_has "^ws-x4  *fail .* narrow link$"
assert_out_has "^Health checks that warned or failed:$"
assert_out_has "^  ws-hot:$"
assert_out_has "^    health.thermal (gpu 0) fail: 0000:03:00.0 (AMD Radeon RX 7900 XTX): junction at 106 °C"
assert_out_has "^    health.power (gpu 0) warn: "
assert_out_has "^    health.kernel_log (gpu 0) fail: 0000:01:00.0 (NVIDIA GeForce RTX 4090): Xid 79"
assert_out_lacks "^  ws-01:$"
assert_out_has "^  node ws-hot GPU 0 (AMD Radeon RX 7900 XTX) at 106 °C, model median 45 °C (of 6)$"
assert_out_has "^  node ws-x4 GPU 0 (AMD Radeon RX 7900 XTX) link x4, the model's most common x16 (of 6)$"
run 1 --format prometheus fleet "$T/health"
assert_out_has '^rocmcheck_fleet_hot_gpu_celsius{node="ws-hot",gpu="0",model="AMD Radeon RX 7900 XTX"} 106$'
assert_out_has '^rocmcheck_fleet_narrow_link_lanes{node="ws-x4",gpu="0",model="AMD Radeon RX 7900 XTX"} 4$'
assert_out_has '^rocmcheck_fleet_check_failures{check="health.thermal"} 1$'
if command -v promtool >/dev/null; then
	promtool check metrics <"$OUT" >"$T/promtool" 2>&1 || { fail "promtool rejects health metrics"; cat "$T/promtool" >&2; }
fi
run 1 --format junit fleet "$T/health"
assert_out_has 'failures="3"'
assert_out_has '<failure message="failed: health.thermal; a hot GPU" type="fail">gpu 0 at 106 °C, model median 45 °C (of 6)&#10;'
if command -v xmllint >/dev/null; then
	xmllint --noout --schema "$TESTS_DIR/schemas/junit.xsd" "$OUT" 2>"$T/xmllint" ||
		{ fail "fleet JUnit with health is not valid"; cat "$T/xmllint" >&2; }
fi

# Duplicate host names: ws-01's report again from another directory, and
# ws-02's under the host name WS-02 (host names compare without case). Each
# is listed with the files it came from, in the order read, and its row says
# so when shown; the fleet does not fail for it.
mkdir -p "$T/dup"
cp "$T/health/ws-01.json" "$T/dup/"
"$PYTHON" - "$T/health/ws-02.json" "$T/dup/upper.json" <<'PY' || fail "renaming ws-02"
import json, sys
d = json.load(open(sys.argv[1]))
d["host"]["hostname"] = "WS-02"
json.dump(d, open(sys.argv[2], "w"))
PY
run 0 fleet "$T/healthy" "$T/dup"
assert_out_has "^rocmcheck fleet: 6 reports: "
assert_out_has "^Duplicates: 2 host names in more than one report (4 reports)$"
assert_out_has "^Host names in more than one report (the files they came from):$"
assert_out_has "^  ws-01: $T/healthy/ws-01.json $T/dup/ws-01.json$"
assert_out_has "^  ws-02: $T/healthy/ws-02.json $T/dup/upper.json$"
run 0 -v fleet "$T/healthy" "$T/dup"
assert_out_has "^ws-01  .* duplicate name$"
grep '^ws-03 ' "$OUT" | grep -q 'duplicate' && { fail "ws-03 is no duplicate"; last; }
run 0 --json fleet "$T/healthy" "$T/dup"
[ "$(json_get "$OUT" '[(x["name"], [s.split("/")[-2:] for s in x["sources"]]) for x in d["duplicates"]]')" = \
	"[('ws-01', [['healthy', 'ws-01.json'], ['dup', 'ws-01.json']]), ('ws-02', [['healthy', 'ws-02.json'], ['dup', 'upper.json']])]" ] ||
	{ fail "JSON duplicates"; last; }
run 1 --json fleet "$T/fleet"
[ "$(json_get "$OUT" 'd["duplicates"]')" = "[]" ] || { fail "no duplicates: an empty list"; last; }

usage_error fleet
usage_error --sysroot "$healthy" fleet "$T/ok"
usage_error --format nfd fleet "$T/ok"
finish
