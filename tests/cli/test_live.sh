#!/bin/bash
# A live run on this machine. Without a GPU: device.present fails, exit 1,
# nothing crashes; --level quick loads no GPU library.
. "$(dirname "$0")/lib.sh"

for level in quick standard; do
	run any doctor --level "$level"
	case $STATUS in 0|1) ;; *) fail "live doctor --level $level: exit status $STATUS"; last ;; esac
	tail -n1 "$OUT" | grep -Eq 'problem|Ready|No problems' || fail "live doctor --level $level: no verdict on the last line"
	run any doctor --level "$level" --json
	validate_json "$OUT" || fail "live doctor --level $level --json does not validate"
done
run any -v doctor
run any -q doctor
grep -q '✓' "$OUT" && fail "-q printed a passing check"
run any devices
case $STATUS in 0|1) ;; *) fail "live devices: exit status $STATUS"; last ;; esac

if ! machine_has_gpu; then
	run 1 doctor --level quick --json
	[ "$(json_get "$OUT" '[c["status"] for c in d["checks"] if c["id"] == "device.present"]')" = "['fail']" ] ||
		fail "no GPU here, but device.present does not fail"
	[ "$(json_get "$OUT" 'd["summary"]["exit_status"]')" = 1 ] || fail "summary.exit_status is not 1"
	run 1 doctor --level quick
	assert_out_has 'problem'
	run 1 devices
	assert_out_has 'No GPUs found'
	assert_out_has 'GPU present: no GPU found'
fi

# --level quick must not load a GPU runtime: the dynamic loader tells.
ntests=$((ntests + 1))
LD_DEBUG=libs "$ROCMCHECK" doctor --level quick >/dev/null 2>"$T/ld" </dev/null
grep -q 'find library=libjansson' "$T/ld" || { fail "LD_DEBUG=libs output not understood (no libjansson line)"; head -5 "$T/ld" >&2; }
if grep -Ei 'libamdhip64|libcuda|libhsa|librocm|libnvidia-ml|libcudart' "$T/ld" >"$T/gpu-libs"; then
	fail "--level quick loaded a GPU library:"
	head -5 "$T/gpu-libs" >&2
fi
ntests=$((ntests + 1))
LD_DEBUG=libs "$ROCMCHECK" doctor --level quick --json >/dev/null 2>"$T/ld" </dev/null
grep -Eqi 'libamdhip64|libcuda|libhsa|librocm' "$T/ld" && fail "--level quick --json loaded a GPU library"

finish
