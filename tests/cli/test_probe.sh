#!/bin/bash
# rocmcheck probe as a whole program, on the cpu backend (no GPU needed);
# with a build configured -DROCMCHECK_TEST_HOOKS=ON also the injected faults.
set -u
: "${ROCMCHECK:?}" "${BUILD_DIR:?}"
export LC_ALL=C.UTF-8   # doctor's glyphs: ✓ pass, ! warn, ✗ fail, - skip
PY=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! "$ROCMCHECK" probe --help >/dev/null 2>&1; then
	echo "the probe command is not wired into this binary yet: skipped" >&2
	exit 77
fi

out=$("$ROCMCHECK" probe --backend cpu 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "probe --backend cpu exited $rc: $out"
grep -q '^  ✓ probe.gemm.fp32' <<<"$out" || fail "no passing gemm.fp32 in: $out"
grep -q '^  ✓ probe.gemm.fp16' <<<"$out" || fail "no passing gemm.fp16 in: $out"
grep -q '^  - probe.rtc' <<<"$out" || fail "rtc should skip on cpu: $out"
for p in conv conv.fp16 amp bandwidth; do
	grep -q "^  ✓ probe.$p: " <<<"$out" || fail "no passing $p in: $out"
done
for p in blas.fp32 blas.fp16 dnn.fp32 dnn.fp16; do
	grep -q "^  - probe.$p: .*for the cpu backend" <<<"$out" || fail "$p should skip on cpu: $out"
done
# without a GPU: the verdict's next step is doctor's and plan's (no plan can
# work here), never "run rocmcheck plan", which would refuse
if [ ! -e /dev/kfd ] && [ ! -e /dev/nvidia0 ] && [ ! -e /dev/dxg ]; then
	out=$("$ROCMCHECK" probe gemm 2>/dev/null)
	verdict=$(tail -n1 <<<"$out")
	grep -q 'no script can fix this' <<<"$verdict" || fail "probe without a GPU: verdict '$verdict'"
	grep -q 'rocmcheck plan' <<<"$verdict" && fail "probe without a GPU points at plan: '$verdict'"
	"$ROCMCHECK" plan >/dev/null 2>&1 && fail "plan without a GPU did not refuse (then probe may point at it)"
fi
# the timed probe runs only when named
! grep -q 'probe.sustained' <<<"$out" || fail "probe without names ran probe.sustained: $out"

# probe.sustained: the GEMM under load, verified first and last, figures
# and sensors (none on the cpu backend: null, never 0) as schema-valid JSON
json=$("$ROCMCHECK" probe sustained --backend cpu --duration 1 --json 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "probe sustained exited $rc: $json"
$PY - "$json" "$SOURCE_DIR/man/rocmcheck.report-1.schema.json" <<'PYEOF' || fail "bad sustained JSON: $json"
import json, sys
r = json.loads(sys.argv[1])
try:
    import jsonschema
    jsonschema.validate(r, json.load(open(sys.argv[2])))
except ImportError:
    pass
assert r["level"] == "full", r["level"]
assert [p["id"] for p in r["probes"]] == ["probe.sustained"]
p = r["probes"][0]
assert p["status"] == "pass" and p["verification"] == "freivalds+sampled" and p["nan_count"] == 0, p
assert p["shape"] == {"m": 384, "n": 384, "k": 384}, p["shape"]
m = p["metrics"]
assert m["launches"] >= 2 and 0 < m["tflops_min"] <= p["tflops"] <= m["tflops_max"], m
assert m["spread"] >= 0 and m["throttle_ratio"] > 0, m
for k in ("temp_start_c", "temp_end_c", "temp_max_c", "power_avg_w", "power_cap_w", "sclk_mhz_start", "sclk_mhz_end"):
    assert k in m and m[k] is None, (k, m)
assert "temperature and power unknown" in p["summary"], p["summary"]
assert r["summary"]["exit_status"] == 0
PYEOF
out=$("$ROCMCHECK" probe probe.sustained --backend cpu --duration=1 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "probe probe.sustained --duration=1 exited $rc: $out"
# on a CPU shared with other work the last launches can be slower than the
# first: the probe then warns "not steady", as it should; either line shows
# the text form works
grep -q -e '^  ✓ probe.sustained: .*correct at the start and the end' \
	-e '^  ! probe.sustained: .*correct, but not steady' <<<"$out" || fail "sustained text: $out"

# the probes of issue 5 by group name, as JSON valid against the schema
json=$("$ROCMCHECK" probe conv amp bandwidth blas dnn --backend cpu --json 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "probe conv amp bandwidth blas dnn exited $rc"
$PY - "$json" "$SOURCE_DIR/man/rocmcheck.report-1.schema.json" <<'PYEOF' || fail "bad JSON: $json"
import json, sys
r = json.loads(sys.argv[1])
try:
    import jsonschema
    jsonschema.validate(r, json.load(open(sys.argv[2])))
except ImportError:
    pass
ids = [p["id"] for p in r["probes"]]
assert ids == ["probe.conv", "probe.conv.fp16", "probe.amp", "probe.bandwidth", "probe.blas.fp32",
               "probe.blas.fp16", "probe.dnn.fp32", "probe.dnn.fp16"], ids
p = {x["id"]: x for x in r["probes"]}
for c in ("probe.conv", "probe.conv.fp16"):
    assert p[c]["status"] == "pass" and p[c]["shape"] == {"m": 64, "n": 784, "k": 576}, p[c]
    assert p[c]["verification"] == "freivalds+sampled" and p[c]["tflops"] > 0
a = p["probe.amp"]
assert a["status"] == "pass" and a["verification"] == "host replay", a
assert a["metrics"]["overflow_detected"] == 1 and a["metrics"]["skipped_steps"] == 1, a
assert a["metrics"]["fp16_speedup"] > 0
b = p["probe.bandwidth"]
assert b["status"] == "pass" and b["verification"] == "exact" and b["gbs"] > 0, b
for k in ("copy_gbs", "triad_gbs", "memcpy_gbs", "h2d_gbs", "d2h_gbs"):
    assert b["metrics"][k] > 0, k
assert "link_gbs" not in b["metrics"]
for x in ("probe.blas.fp32", "probe.blas.fp16", "probe.dnn.fp32", "probe.dnn.fp16"):
    assert p[x]["status"] == "skip" and p[x]["summary"], p[x]
    assert p[x]["metrics"] is None
assert r["summary"]["exit_status"] == 0
PYEOF

json=$("$ROCMCHECK" probe gemm --backend cpu --json 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "probe --json exited $rc"
$PY - "$json" <<'PYEOF' || fail "bad JSON: $json"
import json, sys
r = json.loads(sys.argv[1])
assert r["schema"] == "rocmcheck.report/1"
ids = [p["id"] for p in r["probes"]]
assert ids == ["probe.gemm.fp32", "probe.gemm.fp16"], ids
for p in r["probes"]:
    assert p["status"] == "pass", p
    assert p["verification"] == "freivalds+sampled"
    assert p["nan_count"] == 0
    assert p["shape"]["m"] > 0 and p["tflops"] > 0
    assert p["expected_tflops"] is None and p["ratio"] is None
assert r["summary"]["exit_status"] == 0
PYEOF

for bad in "--size huge" "--backend opencl" "--iterations 0" "--timeout x" "nosuchprobe" "--frobnicate" \
	"sustained --duration 0" "sustained --duration 601" "sustained --duration 1.5" "sustained --duration x" \
	"sustained --duration" "gemm --duration 5" "--duration 5" "--variant tensor" "--variant" \
	"conv --variant simt" "gemm.fp32 --variant cpu"; do
	# shellcheck disable=SC2086
	"$ROCMCHECK" probe --backend cpu $bad >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || fail "probe $bad exited $rc, want 2"
done

# --variant: the fp16 GEMM kernel it names runs, and the report says so; one
# the device lacks is an error naming those it has (exit 1)
json=$("$ROCMCHECK" probe gemm blas.fp16 --backend cpu --variant cpu --json 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "probe gemm --variant cpu exited $rc: $json"
$PY - "$json" <<'PYEOF' || fail "probe --variant cpu: $json"
import json, sys
r = json.loads(sys.argv[1])
v = {p["id"]: p["variant"] for p in r["probes"]}
assert v["probe.gemm.fp16"] == "cpu" and v["probe.gemm.fp32"] == "cpu", v
PYEOF
json=$("$ROCMCHECK" probe gemm.fp16 --backend cpu --variant wgmma --json 2>/dev/null); rc=$?
[ $rc -eq 1 ] || fail "probe --variant wgmma on the host exited $rc, want 1: $json"
$PY - "$json" <<'PYEOF' || fail "probe --variant wgmma: $json"
import json, sys
p = json.loads(sys.argv[1])["probes"][0]
assert p["status"] == "error", p
assert "--variant wgmma: not available" in p["summary"] and "variants: cpu" in p["summary"], p
PYEOF

# doctor's renderer: the header, a "probes" section, the counts line and the verdict
out=$("$ROCMCHECK" probe --backend cpu 2>/dev/null)
grep -q '^rocmcheck [0-9.]* on .*, level standard$' <<<"$out" || fail "probe text has no header: $out"
grep -q '^probes$' <<<"$out" || fail "probe text has no probes section: $out"
grep -Eq '^[0-9]+ passed, 0 warnings, 0 failed, 0 errors, [0-9]+ skipped$' <<<"$out" || fail "probe counts: $out"
! grep -q '(cpu, cpu)' <<<"$out" || fail "the host named twice: $out"
# -q keeps only what is not a pass, -v adds the details
out=$("$ROCMCHECK" probe gemm --backend cpu -q 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "probe -q exited $rc"
! grep -q 'probe.gemm' <<<"$out" || fail "probe -q printed the passes: $out"
out=$("$ROCMCHECK" probe gemm --backend cpu -v 2>/dev/null)
grep -q '^    details: backend cpu' <<<"$out" || fail "probe -v printed no details: $out"
# the host is filled as doctor fills it
json=$("$ROCMCHECK" probe gemm.fp32 --backend cpu --json 2>/dev/null)
$PY - "$json" <<'PYEOF' || fail "probe --json host: $json"
import json, sys
r = json.loads(sys.argv[1])
assert r["host"]["kernel"] and r["host"]["arch"] and r["host"]["hostname"], r["host"]
assert r["source"]["kind"] == "live", r["source"]
PYEOF
# probe names are the IDs without "probe.", selected as doctor --only selects
json=$("$ROCMCHECK" probe conv --backend cpu --json 2>/dev/null)
[ "$($PY -c 'import json,sys; print(" ".join(p["id"] for p in json.loads(sys.argv[1])["probes"]))' "$json")" = \
	"probe.conv probe.conv.fp16" ] || fail "probe conv: not probe.conv and probe.conv.fp16: $json"
"$ROCMCHECK" probe conv.fp32 --backend cpu >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "probe conv.fp32 (no such ID) exited $rc, want 2"

# a probe command that ran no probe on any GPU fails: with no AMD GPU here,
# `probe gemm --backend hip` verifies nothing
if ! "$ROCMCHECK" devices --json 2>/dev/null | grep -q '"vendor": "amd"'; then
	out=$("$ROCMCHECK" probe gemm --backend hip 2>"$BUILD_DIR/probe-nogpu.err"); rc=$?
	[ $rc -eq 1 ] || fail "probe gemm --backend hip without an AMD GPU exited $rc, want 1: $out"
	grep -q '^rocmcheck: no GPU probe ran: no usable hip GPU found' "$BUILD_DIR/probe-nogpu.err" ||
		fail "no 'no GPU probe ran' on stderr: $(cat "$BUILD_DIR/probe-nogpu.err")"
	grep -q '^  ✗ probe.gemm.fp32: no GPU probe ran: ' <<<"$out" || fail "no failed gemm.fp32 entry: $out"
	json=$("$ROCMCHECK" probe gemm --backend hip --json 2>/dev/null); rc=$?
	[ $rc -eq 1 ] || fail "probe --json without a GPU exited $rc, want 1"
	$PY - "$json" <<'PYEOF' || fail "no-GPU JSON: $json"
import json, sys
r = json.loads(sys.argv[1])
assert r["summary"]["exit_status"] == 1 and r["summary"]["fail"] == 2, r["summary"]
PYEOF
	rm -f "$BUILD_DIR/probe-nogpu.err"
fi
# --gpu names a GPU of this machine, as for doctor
"$ROCMCHECK" probe --gpu 99 >/dev/null 2>"$BUILD_DIR/probe-gpu.err"; rc=$?
[ $rc -eq 2 ] || fail "probe --gpu 99 exited $rc, want 2"
grep -q 'there is no GPU 99' "$BUILD_DIR/probe-gpu.err" || fail "probe --gpu 99: $(cat "$BUILD_DIR/probe-gpu.err")"
rm -f "$BUILD_DIR/probe-gpu.err"

if grep -q '^ROCMCHECK_TEST_HOOKS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
	check_fault() { # fault probe expected-text [extra options]
		local fault=$1 probe=$2 text=$3; shift 3
		local o
		o=$(ROCMCHECK_TEST_FAULT=$fault ROCMCHECK_TEST_FAULT_PROBE=$probe \
			"$ROCMCHECK" probe gemm --backend cpu "$@" 2>/dev/null); local r=$?
		[ $r -eq 1 ] || fail "fault $fault exited $r, want 1: $o"
		grep -q "^  ✗ probe.$probe: .*$text" <<<"$o" || fail "fault $fault: no '$text' in: $o"
		# the rest of the report is intact
		local other=gemm.fp16; [ "$probe" = gemm.fp16 ] && other=gemm.fp32
		grep -q "^  ✓ probe.$other" <<<"$o" || fail "fault $fault: $other missing or not pass: $o"
	}
	check_fault crash gemm.fp32 "crashed with signal 11"
	check_fault hang gemm.fp16 "timed out after 2 s" --timeout 2
	check_fault wrong gemm.fp32 "wrong result"
	check_fault nan gemm.fp16 "NaN"

	# conv, amp, bandwidth: the fault hits one probe, the rest pass
	o=$(ROCMCHECK_TEST_FAULT=wrong ROCMCHECK_TEST_FAULT_PROBE=conv.fp16 "$ROCMCHECK" probe conv amp --backend cpu 2>/dev/null); r=$?
	[ $r -eq 1 ] || fail "conv fault exited $r: $o"
	grep -q '^  ✗ probe.conv.fp16: .*wrong result' <<<"$o" || fail "conv.fp16 fault: $o"
	grep -q '^  ✓ probe.conv' <<<"$o" || fail "conv.fp32 after a fault: $o"
	grep -q '^  ✓ probe.amp' <<<"$o" || fail "amp after a fault: $o"
	o=$(ROCMCHECK_TEST_FAULT=nan ROCMCHECK_TEST_FAULT_PROBE=bandwidth "$ROCMCHECK" probe bandwidth --backend cpu 2>/dev/null); r=$?
	[ $r -eq 1 ] || fail "bandwidth fault exited $r: $o"
	grep -q '^  ✗ probe.bandwidth: .*NaN' <<<"$o" || fail "bandwidth fault: $o"
	# a device that misses the overflow of an AMP step
	o=$(ROCMCHECK_TEST_FAULT=amp_nodetect "$ROCMCHECK" probe amp --backend cpu 2>/dev/null); r=$?
	[ $r -eq 1 ] || fail "amp_nodetect exited $r: $o"
	grep -q '^  ✗ probe.amp: .*the injected fp16 overflow was not detected on the device at step 3' <<<"$o" \
		|| fail "amp_nodetect: $o"
	grep -q 'fix: Mixed-precision training' <<<"$o" || fail "amp_nodetect fix: $o"

	# probe.sustained: right when cold and wrong when hot fails; a device
	# that slows down as it runs warns with the throttling text
	o=$(ROCMCHECK_TEST_FAULT=wrong_last "$ROCMCHECK" probe sustained --backend cpu --duration 1 2>/dev/null); r=$?
	[ $r -eq 1 ] || fail "wrong_last exited $r: $o"
	grep -q '^  ✗ probe.sustained: .*right at the start, then after [0-9]* launches: wrong result' <<<"$o" \
		|| fail "wrong_last: $o"
	grep -q 'fix: Correct when cold, wrong after running hot' <<<"$o" || fail "wrong_last fix: $o"
	o=$(ROCMCHECK_TEST_FAULT=throttle "$ROCMCHECK" probe sustained --backend cpu --duration 2 2>/dev/null); r=$?
	[ $r -eq 0 ] || fail "throttle exited $r: $o"
	grep -q '^  ! probe.sustained: .*the last 10% of launches ran at [0-9]*% of the speed of the first 10%.*likely thermal or power throttling' <<<"$o" \
		|| fail "throttle: $o"
	grep -q 'fix: Likely thermal or power throttling.*power cap' <<<"$o" || fail "throttle fix: $o"

	# rocmcheck ended while a probe hangs: the probe's process goes with it
	ROCMCHECK_TEST_FAULT=hang ROCMCHECK_TEST_FAULT_PROBE=gemm.fp32 "$ROCMCHECK" probe gemm.fp32 --backend cpu --timeout 60 \
		>/dev/null 2>&1 &
	parent=$!
	child=
	for _ in $(seq 200); do
		child=$(pgrep -P "$parent" | head -n 1)
		[ -n "$child" ] && break
		sleep 0.05
	done
	[ -n "$child" ] || fail "hang: no probe process under $parent"
	kill -TERM "$parent"
	wait "$parent"
	r=$?
	[ $r -eq 143 ] || fail "SIGTERM during a probe: exit $r, want 143"
	# gone or a zombie (a container's init may not reap it at once)
	alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"; }
	if [ -n "$child" ]; then
		for _ in $(seq 100); do
			alive "$child" || break
			sleep 0.05
		done
		alive "$child" && { fail "the hung probe $child outlived rocmcheck"; kill -KILL "$child"; }
	fi
else
	echo "built without ROCMCHECK_TEST_HOOKS: injected faults not checked" >&2
fi
exit 0
