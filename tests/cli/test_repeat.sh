#!/bin/bash
# doctor --repeat N --state FILE: a failing fixture run three times with
# --repeat 3 warns (exit 0) twice, each result saying how many runs it has
# failed, and fails (exit 1) on the third; the JSON carries "repeat"; a pass
# resets the count; a GPU's streak is its own; Prometheus and NFD see the
# same gated verdict; the state file's refusals, a torn file, and the usage
# errors.
. "$(dirname "$0")/lib.sh"

FX=$TESTS_DIR/fixtures
norender=$FX/amd-rx7900xtx-ubuntu2204-norender
healthy=$FX/amd-rx7900xtx-ubuntu2204-healthy
xid79=$FX/nvidia-h100x8-ubuntu2204-xid79
S=$T/state/rocmcheck/state

# kfd EXPR: a Python expression over perm.kfd's result `c` in the JSON in $OUT
kfd() {
	json_get "$OUT" "[$1 for c in d['checks'] if c['id'] == 'perm.kfd'][0]"
}

for n in 1 2 3 4; do
	want=0
	[ "$n" -ge 3 ] && want=1
	run $want --sysroot "$norender" --json doctor --repeat 3 --state "$S"
	validate_json "$OUT" || fail "run $n: the report is not valid"
	[ "$(json_get "$OUT" "d['summary']['exit_status']")" = "$want" ] || fail "run $n: summary.exit_status"
	[ "$(kfd "c['repeat']")" = "{'failing_runs': $n, 'needed': 3}" ] || fail "run $n: repeat is $(kfd "c.get('repeat')")"
	if [ "$n" -lt 3 ]; then
		[ "$(kfd "c['status']")" = warn ] || fail "run $n: perm.kfd is $(kfd "c['status']"), not held back as warn"
		kfd "c['summary']" | grep -q "^failing $n of 3 runs before it fails: user alice cannot open /dev/kfd" ||
			fail "run $n: summary $(kfd "c['summary']")"
		[ "$(json_get "$OUT" "d['summary']['fail']")" = 0 ] || fail "run $n: a failure was not held back"
	else
		[ "$(kfd "c['status']")" = fail ] || fail "run $n: perm.kfd is $(kfd "c['status']"), not fail"
		kfd "c['summary']" | grep -q "^user alice cannot open /dev/kfd" || fail "run $n: summary $(kfd "c['summary']")"
	fi
	# only results the gate judged have the member
	[ "$(json_get "$OUT" "sum('repeat' in c for c in d['checks'])")" = 2 ] || fail "run $n: repeat on other results"
done
ntests=$((ntests + 1))
grep -q '^fail perm\.kfd - 4 [0-9]* [0-9]* fail$' "$S" || { fail "state file: $(cat "$S")"; }
grep -q '^fail perm\.render 0000:03:00\.0 4 ' "$S" || fail "state file lacks the GPU's streak: $(cat "$S")"
[ "$(stat -c %a "$S")" = 600 ] || fail "the state file is mode $(stat -c %a "$S")"
[ "$(stat -c %a "$T/state/rocmcheck")" = 700 ] || fail "the state folder is mode $(stat -c %a "$T/state/rocmcheck")"

# the text says it too
run 0 --sysroot "$norender" doctor --repeat 5 --state "$T/text-state"
assert_out_has 'Access to /dev/kfd: failing 1 of 5 runs before it fails: user alice'

# a pass resets: the next failure is the first of three again
run 0 --sysroot "$healthy" --json doctor --repeat 3 --state "$S"
ntests=$((ntests + 1))
grep -q '^end 0$' "$S" || fail "a passing run kept streaks: $(cat "$S")"
run 0 --sysroot "$norender" --json doctor --repeat 3 --state "$S"
[ "$(kfd "c['repeat']['failing_runs']")" = 1 ] || fail "after a pass the count did not start again"

# a GPU's streak is its own, in Prometheus and NFD as in JSON
P=$T/prom-state
for n in 1 2; do
	run $((n - 1)) --sysroot "$xid79" --format prometheus doctor --level quick --repeat 2 --state "$P"
	assert_out_has "^rocmcheck_exit_status $((n - 1))$"
	assert_out_has "^rocmcheck_check_status{check=\"health.kernel_log\",category=\"health\",gpu=\"5\"} $n$"
	assert_out_has '^rocmcheck_check_status{check="health.kernel_log",category="health",gpu="4"} 0$'
done
grep -q '^fail health\.kernel_log 0000:b3:00\.0 2 ' "$P" || fail "the GPU's PCI address is not the subject: $(cat "$P")"
N=$T/nfd-state
run 0 --sysroot "$xid79" --format nfd doctor --level quick --repeat 2 --state "$N"
assert_out_has '^rocmcheck.io/healthy=true$'
assert_out_has '^rocmcheck.io/check.health.kernel_log.gpu5=warn$'
run 1 --sysroot "$xid79" --format nfd doctor --level quick --repeat 2 --state "$N"
assert_out_has '^rocmcheck.io/healthy=false$'
assert_out_has '^rocmcheck.io/health=fail$'

# --repeat 1 (the default) keeps no state
run 1 --sysroot "$norender" doctor --repeat 1 --state "$T/never/state"
ntests=$((ntests + 1))
[ -e "$T/never" ] && fail "--repeat 1 made a state file"

# a torn state file: a warning, and the run counts as the first
printf 'rocmcheck-state 1\nrun 5\nfail perm.kfd - 2 1 5 fa' >"$T/torn"
run 0 --sysroot "$norender" --json doctor --repeat 2 --state "$T/torn"
assert_err_has "rocmcheck: warning: the state file $T/torn is damaged (line 3: the last line is cut (no newline)); starting from an empty state"
[ "$(kfd "c['repeat']['failing_runs']")" = 1 ] || fail "a torn file was read"
grep -q '^end 2$' "$T/torn" || fail "the torn file was not rewritten"

# refusals: exit 3, the reason on stderr, nothing on stdout
ln -s "$T/torn" "$T/link"
run 3 --sysroot "$norender" doctor --repeat 2 --state "$T/link"
assert_err_has "rocmcheck: refusing the state file $T/link: it is a symbolic link"
[ -s "$OUT" ] && fail "a refused state file still printed a report"
if [ "$(id -u)" = 0 ]; then
	cp "$T/torn" "$T/theirs"
	chown 65534 "$T/theirs"
	run 3 --sysroot "$norender" doctor --repeat 2 --state "$T/theirs"
	assert_err_has "refusing the state file $T/theirs: it belongs to uid 65534, not to root (uid 0)"
fi
# another process holds the lock: the run waits, then gives up saying so
if command -v flock >/dev/null; then
	flock "$S.lock" sleep 12 &
	holder=$!
	sleep 0.3
	run 3 --sysroot "$norender" doctor --repeat 3 --state "$S"
	assert_err_has "stayed locked by another process for 10000 ms"
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
fi

# usage errors
usage_error --sysroot "$norender" doctor --repeat 0
usage_error --sysroot "$norender" doctor --repeat 1001
usage_error --sysroot "$norender" doctor --repeat 3
assert_err_has 'needs --state FILE'
usage_error --sysroot "$norender" doctor --repeat 3 --state "$S" --fail-on warn
assert_err_has 'give one'
usage_error --sysroot "$norender" doctor --repeat 3 --state ""

# the default state file: as a user other than root, under XDG_STATE_HOME
# (root's, /var/lib/rocmcheck/state, is this machine's: not touched here)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	U=$(mktemp -d /tmp/rocmcheck-xdg.XXXXXX)
	chown 65534 "$U"
	ntests=$((ntests + 1))
	XDG_STATE_HOME=$U/xdg setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$ROCMCHECK" doctor --level quick --repeat 2 >/dev/null 2>"$ERR"
	[ "$?" -le 1 ] || { fail "a live run as nobody with --repeat"; cat "$ERR" >&2; }
	[ -f "$U/xdg/rocmcheck/state" ] || fail "no state file under XDG_STATE_HOME"
	[ "$(stat -c %u "$U/xdg/rocmcheck/state")" = 65534 ] || fail "the state file is not the user's"
	rm -rf "$U"
fi
finish
