#!/bin/bash
# A hung NVIDIA driver is a verdict, not a hang (issue 28): `doctor --level
# standard` reads NVML in a child under a watchdog. Run as a whole program
# against the fake libnvidia-ml (tests/fake/nvml.c, ROCMCHECK_DL_NVML) for
# the 8 H100s of a fixture (ROCMCHECK_TEST_NVML_SYSROOT=1 reads NVML in a
# sysroot; both need a build with -DROCMCHECK_TEST_HOOKS=ON), with a 3 s
# watchdog (ROCMCHECK_TEST_NVML_TIMEOUT_S):
#   - a call that never returns on GPU 2: the run ends within 4x the
#     watchdog, health.ecc/thermal/power give error "driver unresponsive"
#     naming GPU 2 and its PCI address, GPUs 0 and 1 keep their verdicts,
#     3 to 7 are "not read"; every other check of the healthy run still
#     runs, the exit status is 1, and no process of the run is left;
#   - nvmlInit_v2 that never returns: all 8 GPUs unresponsive;
#   - a reader that outlives SIGKILL (the fake's stand-in for D state): the
#     report names its pid, and it (with the fake's tracer) is the only
#     process of the run left behind, until the tracer lets it go;
#   - rocmcheck itself never maps libnvidia-ml, only the reader does;
#   - --level quick never calls NVML.
. "$(dirname "$0")/lib.sh"

if ! grep -q '^ROCMCHECK_TEST_HOOKS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
	echo "built without ROCMCHECK_TEST_HOOKS: no fake NVML" >&2
	exit 77
fi
fake=$BUILD_DIR/tests/libnvml_fake.so
[ -f "$fake" ] || { echo "no fake NVML at $fake" >&2; exit 1; }
fixture=$TESTS_DIR/fixtures/nvidia-h100x8-ubuntu2204-xid79
timeout_s=3

run any --sysroot "$fixture" devices --json
addrs=$(json_get "$OUT" '",".join(g["pci"] for g in d["gpus"] if g["vendor"] == "nvidia")')
[ "$(tr ',' '\n' <<<"$addrs" | wc -l)" = 8 ] || { fail "the fixture does not have 8 NVIDIA GPUs: $addrs"; finish; }
addr2=$(cut -d, -f3 <<<"$addrs")

mark=rocmcheck-nvml-$$-$RANDOM
# doctor NAME [VAR=VALUE...]: doctor --level standard --json on the fixture
# with the fake NVML, into $T/NAME.json; its wall time in $took (seconds).
doctor() {
	local name=$1
	shift
	ntests=$((ntests + 1))
	local t0 t1
	t0=$(date +%s%N)
	env ROCMCHECK_DL_NVML="$fake" ROCMCHECK_TEST_NVML_SYSROOT=1 ROCMCHECK_TEST_NVML_TIMEOUT_S=$timeout_s \
		ROCMCHECK_TEST_KILL_WAIT_S=1 FAKE_NVML_BUSIDS="$addrs" FAKE_NVML_LOG="$T/$name.log" \
		RC_NVML_MARK=$mark "$@" \
		"$ROCMCHECK" --sysroot "$fixture" doctor --level standard --json >"$T/$name.json" 2>"$T/$name.err" </dev/null
	STATUS=$?
	t1=$(date +%s%N)
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	[ "$STATUS" -lt 128 ] || fail "$name: died from signal $((STATUS - 128))"
	validate_json "$T/$name.json" || fail "$name: the report does not validate"
}

# The last run ended within 4x the watchdog.
within() {
	awk -v t="$took" -v w="$timeout_s" 'BEGIN { exit !(t < 4 * w) }'
}

# The live processes that carry this run's mark (a zombie has no environ).
marked() {
	grep -l "RC_NVML_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | sort -n | tr '\n' ' '
}

# NAME: "STATUS|SUMMARY" of ID for GPU N.
verdict() {
	json_get "$T/$1.json" "[c['status'] + '|' + c['summary'] for c in d['checks'] if c['id'] == '$2' and c.get('gpu') == $3]"
}

# The healthy run: NVML answers, every NVIDIA GPU is judged.
doctor healthy
base_status=$STATUS
for id in health.ecc health.thermal health.power; do
	n=$(json_get "$T/healthy.json" "sum(1 for c in d['checks'] if c['id'] == '$id' and c['status'] in ('pass', 'warn'))")
	[ "$n" = 8 ] || fail "healthy: $id judged $n of 8 GPUs"
done
grep -q '^nvmlShutdown -1 ok' "$T/healthy.log" || fail "healthy: NVML was not shut down"
# only the reader maps the library: the dynamic loader's log prefixes each
# line with the process's pid (rocmcheck's own loaded libjansson at start)
mkdir "$T/ld"
doctor ld LD_DEBUG=files LD_DEBUG_OUTPUT="$T/ld/ld"
main_pid=$(cat "$T"/ld/ld.* | sed -n 's/^ *\([0-9]*\):.*file=libjansson.*/\1/p' | head -1)
nvml_pids=$(cat "$T"/ld/ld.* | sed -n 's/^ *\([0-9]*\):.*file=[^ ]*libnvml_fake.*/\1/p' | sort -u | tr '\n' ' ')
[ -n "$main_pid" ] || fail "LD_DEBUG=files: no log of rocmcheck's own start"
[ -n "$nvml_pids" ] || fail "LD_DEBUG=files: no process loaded the fake NVML"
case " $nvml_pids" in *" $main_pid "*) fail "rocmcheck itself ($main_pid) mapped NVML: $nvml_pids" ;; esac
ids() { json_get "$T/$1.json" "sorted(set(c['id'] for c in d['checks']))"; }

# GPU 2 hangs in nvmlDeviceGetTemperature.
doctor hang FAKE_NVML_HANG=nvmlDeviceGetTemperature@2
[ "$STATUS" = 1 ] || fail "hang: exit status $STATUS, expected 1"
within || fail "hang: the run took $took s, over 4 x $timeout_s s"
for id in health.ecc health.thermal health.power; do
	v=$(verdict hang "$id" 2)
	grep -q "^\['error|GPU 2, $addr2 (.*): driver unresponsive: nvmlDeviceGetTemperature did not return within $timeout_s s" <<<"$v" ||
		fail "hang: $id for GPU 2: $v"
	for g in 0 1; do
		grep -Eq "^\['(pass|warn)\|" <<<"$(verdict hang "$id" $g)" || fail "hang: $id for GPU $g: $(verdict hang "$id" $g)"
	done
	for g in 3 7; do
		grep -q "^\['error|GPU $g, .*: NVML read failed: not read: NVML hung on $addr2 (its device 2)" <<<"$(verdict hang "$id" $g)" ||
			fail "hang: $id for GPU $g: $(verdict hang "$id" $g)"
	done
done
[ "$(ids hang)" = "$(ids healthy)" ] || fail "hang: other checks ran than in the healthy run"
[ "$(json_get "$T/hang.json" "len(d['checks'])")" = "$(json_get "$T/healthy.json" "len(d['checks'])")" ] ||
	fail "hang: a different number of results than the healthy run"
grep -q "nvmlDeviceGetHandleByIndex_v2 3" "$T/hang.log" && fail "hang: GPU 3 was asked after GPU 2 hung"
left=$(marked)
[ -z "$left" ] || fail "hang: processes left behind: $left"
# the text form says it too, with the fix; the error alone makes the exit
# status 1 where the same checks pass with NVML answering
text_ecc() {
	ntests=$((ntests + 1))
	env ROCMCHECK_DL_NVML="$fake" ROCMCHECK_TEST_NVML_SYSROOT=1 ROCMCHECK_TEST_NVML_TIMEOUT_S=$timeout_s \
		FAKE_NVML_BUSIDS="$addrs" "$@" \
		"$ROCMCHECK" --sysroot "$fixture" doctor --level standard --only health.ecc >"$OUT" 2>"$ERR" </dev/null
	STATUS=$?
}
text_ecc
[ "$STATUS" = 0 ] || { fail "healthy, text: exit status $STATUS, expected 0"; last; }
text_ecc FAKE_NVML_HANG=nvmlDeviceGetTemperature@2
[ "$STATUS" = 1 ] || { fail "hang, text: exit status $STATUS, expected 1"; last; }
assert_out_has "^  E GPU memory errors .*(GPU 2): GPU 2, $addr2 (.*): driver unresponsive: nvmlDeviceGetTemperature"
assert_out_has "the NVIDIA driver did not answer"
assert_out_has "reboot"

# nvmlInit_v2 never returns: every NVIDIA GPU is unresponsive.
doctor init FAKE_NVML_HANG=nvmlInit_v2
[ "$STATUS" = 1 ] || fail "init: exit status $STATUS, expected 1"
within || fail "init: the run took $took s, over 4 x $timeout_s s"
n=$(json_get "$T/init.json" "sum(1 for c in d['checks'] if c['id'].startswith('health.') and c['status'] == 'error' and 'driver unresponsive: nvmlInit_v2 did not return' in c['summary'])")
[ "$n" = 24 ] || fail "init: $n unresponsive results, expected 3 checks x 8 GPUs"
[ "$(ids init)" = "$(ids healthy)" ] || fail "init: other checks ran than in the healthy run"
left=$(marked)
[ -z "$left" ] || fail "init: processes left behind: $left"

# The reader outlives SIGKILL: reported with its pid, the only one left.
doctor stuck FAKE_NVML_STUCK=nvmlDeviceGetEccMode@2 FAKE_NVML_STUCK_S=8 FAKE_NVML_PIDFILE="$T/pids"
[ "$STATUS" = 1 ] || fail "stuck: exit status $STATUS, expected 1"
within || fail "stuck: the run took $took s, over 4 x $timeout_s s"
read -r stuck_pid tracer_pid <"$T/pids"
if [ "$stuck_pid" = noptrace ]; then
	echo "ptrace refused here: the stuck reader was not simulated" >&2
else
	v=$(verdict stuck health.ecc 2)
	grep -q "driver unresponsive: nvmlDeviceGetEccMode did not return within $timeout_s s; the reader (pid $stuck_pid) outlived SIGKILL: stuck in the driver (D state), left behind" <<<"$v" ||
		fail "stuck: health.ecc for GPU 2: $v"
	left=$(marked)
	[ "$left" = "$tracer_pid " ] || fail "stuck: processes left behind: '$left', expected only the tracer $tracer_pid"
	[ -e "/proc/$stuck_pid" ] || fail "stuck: the stuck reader $stuck_pid is gone already"
	# the tracer lets go: nothing of the run runs any more
	for _ in $(seq 100); do
		[ -e "/proc/$tracer_pid" ] || break
		sleep 0.1
	done
	left=$(marked)
	[ -z "$left" ] || fail "stuck: processes left after the tracer: $left"
	state=$(awk '{print $3}' "/proc/$stuck_pid/stat" 2>/dev/null)
	case $state in ''|Z) ;; *) fail "stuck: the reader $stuck_pid is still running (state $state)" ;; esac
fi

# --level quick never calls NVML.
ntests=$((ntests + 1))
env ROCMCHECK_DL_NVML="$fake" ROCMCHECK_TEST_NVML_SYSROOT=1 FAKE_NVML_BUSIDS="$addrs" FAKE_NVML_LOG="$T/quick.log" \
	"$ROCMCHECK" --sysroot "$fixture" doctor --level quick --json >"$OUT" 2>"$ERR" </dev/null
[ -s "$T/quick.log" ] && fail "--level quick called NVML: $(head -3 "$T/quick.log")"

[ "$base_status" -le 1 ] || fail "healthy: exit status $base_status"
finish
