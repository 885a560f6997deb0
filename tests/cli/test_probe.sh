#!/bin/bash
# rocmcheck probe as a whole program, on the cpu backend (no GPU needed);
# with a build configured -DROCMCHECK_TEST_HOOKS=ON also the injected faults.
set -u
: "${ROCMCHECK:?}" "${BUILD_DIR:?}"
PY=/usr/bin/python3
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! "$ROCMCHECK" probe --help >/dev/null 2>&1; then
	echo "the probe command is not wired into this binary yet: skipped" >&2
	exit 77
fi

out=$("$ROCMCHECK" probe --backend cpu 2>/dev/null); rc=$?
[ $rc -eq 0 ] || fail "probe --backend cpu exited $rc: $out"
grep -q '^pass  *probe.gemm.fp32' <<<"$out" || fail "no passing gemm.fp32 in: $out"
grep -q '^pass  *probe.gemm.fp16' <<<"$out" || fail "no passing gemm.fp16 in: $out"
grep -q '^skip  *probe.rtc' <<<"$out" || fail "rtc should skip on cpu: $out"

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

for bad in "--size huge" "--backend opencl" "--iterations 0" "--timeout x" "nosuchprobe" "--frobnicate"; do
	# shellcheck disable=SC2086
	"$ROCMCHECK" probe --backend cpu $bad >/dev/null 2>&1; rc=$?
	[ $rc -eq 2 ] || fail "probe $bad exited $rc, want 2"
done

if grep -q '^ROCMCHECK_TEST_HOOKS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
	check_fault() { # fault probe expected-text [extra options]
		local fault=$1 probe=$2 text=$3; shift 3
		local o
		o=$(ROCMCHECK_TEST_FAULT=$fault ROCMCHECK_TEST_FAULT_PROBE=$probe \
			"$ROCMCHECK" probe gemm --backend cpu "$@" 2>/dev/null); local r=$?
		[ $r -eq 1 ] || fail "fault $fault exited $r, want 1: $o"
		grep -q "^fail  *probe.$probe .*$text" <<<"$o" || fail "fault $fault: no '$text' in: $o"
		# the rest of the report is intact
		local other=gemm.fp16; [ "$probe" = gemm.fp16 ] && other=gemm.fp32
		grep -q "^pass  *probe.$other" <<<"$o" || fail "fault $fault: $other missing or not pass: $o"
	}
	check_fault crash gemm.fp32 "crashed with signal 11"
	check_fault hang gemm.fp16 "timed out after 2 s" --timeout 2
	check_fault wrong gemm.fp32 "wrong result"
	check_fault nan gemm.fp16 "NaN"
else
	echo "built without ROCMCHECK_TEST_HOOKS: injected faults not checked" >&2
fi
exit 0
