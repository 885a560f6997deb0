#!/bin/bash
# The verdict line keeps its promises:
#   - a filtered run (--only/--skip) says what it covered and never "Ready";
#   - a selection that runs nothing is a usage error, not an empty "Ready";
#   - the command the verdict names helps: `plan` (with the same --sysroot or
#     --replay) only where plan has a step to offer, else `checks --explain`.
. "$(dirname "$0")/lib.sh"

FIXDIR=$TESTS_DIR/fixtures
HEALTHY=$FIXDIR/amd-rx7900xtx-ubuntu2204-healthy
NORENDER=$FIXDIR/amd-rx7900xtx-ubuntu2204-norender
verdict() { tail -n1 "$OUT"; }

# ---- filtered runs
run 0 --sysroot "$HEALTHY" doctor --only env
[ "$(verdict)" = "4 of 41 checks run; no verdict on readiness" ] || fail "--only env verdict: $(verdict)"
# the user cannot use the GPU here, and the environment checks do not see it
run 0 --sysroot "$NORENDER" doctor --only env --level quick
assert_out_lacks "Ready"
verdict | grep -q "; no verdict on readiness$" || fail "--only env on a broken machine: $(verdict)"
run 0 --sysroot "$HEALTHY" doctor --skip env.
verdict | grep -q "^37 of 41 checks run; no verdict on readiness$" || fail "--skip env.: $(verdict)"
# a filtered run still reports what failed, with its exit status
run 1 --sysroot "$NORENDER" doctor --only perm --level quick
verdict | grep -q "^[0-9]* problems\?: " || fail "--only perm on a broken machine: $(verdict)"
# the JSON of a filtered run is the report of the checks that ran
run 0 --sysroot "$HEALTHY" --json doctor --only env
[ "$(json_get "$OUT" 'len(d["checks"])')" = 4 ] || fail "--only env --json: not 4 checks"

# ---- a selection that runs nothing
usage_error --sysroot "$HEALTHY" doctor --only perm --skip perm
assert_err_has "select no check and no probe"
usage_error --sysroot "$HEALTHY" doctor --only probe
assert_err_has "probes run only on the live machine"
usage_error --sysroot "$HEALTHY" doctor --only probe.gemm --level quick

# ---- the hint names a command that helps
run 1 --sysroot "$FIXDIR/none-server-debian12-nogpu" doctor --level quick
verdict | grep -q "checks --explain device.present" || fail "no GPU: the hint is $(verdict)"
assert_out_lacks "rocmcheck plan\`"
run 1 --sysroot "$FIXDIR/amd-rx7900xtx-docker-nokfd" doctor --level quick
assert_out_lacks "rocmcheck plan\`"
run 1 --sysroot "$NORENDER" doctor --level quick
verdict | grep -qF "run \`rocmcheck --sysroot $NORENDER plan\` for a fix script" || fail "norender: $(verdict)"

# replay: the hint keeps --replay FILE
"$ROCMCHECK" --sysroot "$NORENDER" bundle --level quick -o "$T/b.tar.gz" >/dev/null 2>&1
[ -s "$T/b.tar.gz" ] || fail "no bundle to replay"
run 1 --replay "$T/b.tar.gz" doctor --level quick
verdict | grep -qF "run \`rocmcheck --replay $T/b.tar.gz plan\` for a fix script" || fail "replay: $(verdict)"

# every fixture: a verdict that names plan names one that prints a step;
# one that does not, names a check that failed
for fx in $(fixtures); do
	run any --sysroot "$fx" doctor --level quick
	line=$(verdict)
	cmd=$(sed -n 's/.*run `\(rocmcheck [^`]* plan\)` for a fix script$/\1/p' <<<"$line")
	if [ -n "$cmd" ]; then
		eval "\"\$ROCMCHECK\" ${cmd#rocmcheck }" >"$T/plan.sh" 2>"$T/plan.err"
		rc=$?
		[ "$rc" = 0 ] || fail "$(basename "$fx"): the verdict names '$cmd', which exits $rc"
		grep -q "Nothing to do" "$T/plan.sh" && fail "$(basename "$fx"): the verdict names '$cmd', which has nothing to do"
	elif grep -q "problem" <<<"$line"; then
		id=$(sed -n 's/.*checks --explain \([a-z0-9_.]*\)` says more)$/\1/p' <<<"$line")
		[ -n "$id" ] || { fail "$(basename "$fx"): a problem verdict names no command: $line"; continue; }
		"$ROCMCHECK" --sysroot "$fx" --json doctor --level quick >"$T/r.json" 2>/dev/null
		json_get "$T/r.json" "[c['status'] for c in d['checks'] if c['id'] == '$id']" | grep -q "fail\|error" ||
			fail "$(basename "$fx"): the verdict points at $id, which did not fail"
	fi
done

finish
