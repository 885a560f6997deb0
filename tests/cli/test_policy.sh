#!/bin/bash
# The operator's policy (--policy FILE, man/rocmcheck-policy.5) as the
# consumers see it: the verdict and exit status, the evidence naming the
# rule's line, the JSON report (schema), Prometheus (promtool), the NFD
# labels and the Slurm health check's drain reason.
. "$(dirname "$0")/lib.sh"
FX=$TESTS_DIR/fixtures
Q=(doctor --level quick)

# A node whose users' jobs raise Xid 13 (fixture: twice in a second), and
# the same node after a storm: seven more within 8 minutes.
XID13=$FX/nvidia-rtx4090-ubuntu2204-xid13
STORM=$T/storm
cp -a "$XID13" "$STORM"
for i in 0 1 2 3 4 5 6; do
	printf '[%d.000000] NVRM: Xid (PCI:0000:01:00): 13, pid=5%d, name=python3, Graphics Exception: ESR 0x504648=0x102000e 0x504650=0x0\n' \
		$((6000 + i * 80)) "$i"
done >>"$STORM/.rocmcheck/kernel.log"

cat >"$T/xid13.ini" <<'EOF'
; Xid 13 now and then is the users' code; a storm is a sick GPU
[xid 13]
action = fail
more_than = 5
within = 10m
EOF

kl() { json_get "$OUT" "[c['status'] for c in d['checks'] if c['id'] == 'health.kernel_log'][0]"; }

# no policy: every Xid 13 warns
run 0 --sysroot "$STORM" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = warn ] || fail "the storm without a policy: $(kl), expected warn"
json_get "$OUT" "'policy' in d" | grep -q False || fail "a report without a policy has a policy member"

# the storm fails by the count rule; the rule's file and line are in the evidence
run 1 --sysroot "$STORM" --policy "$T/xid13.ini" --json "${Q[@]}" --only health.kernel_log
validate_json "$OUT" || fail "the report with a policy does not match the schema"
[ "$(kl)" = fail ] || fail "the storm with the policy: $(kl), expected fail"
json_get "$OUT" "[c['summary'] for c in d['checks'] if c['id'] == 'health.kernel_log'][0]" | grep -q "policy $T/xid13.ini:2" ||
	fail "the summary does not name the rule"
json_get "$OUT" "d['policy']['rules'][0]" >"$T/rule"
grep -q "'line': 2" "$T/rule" && grep -q "'section': '\[xid 13\]'" "$T/rule" &&
	grep -q "action = fail, more_than = 5, within = 600s" "$T/rule" || { fail "the JSON policy rule"; cat "$T/rule" >&2; }
run 1 --sysroot "$STORM" --policy "$T/xid13.ini" -v "${Q[@]}" --only health.kernel_log
assert_out_has "^policy: $T/xid13.ini (1 rule)"
assert_out_has "  $T/xid13.ini:2: \[xid 13\] action = fail, more_than = 5, within = 600s"
assert_out_has "evidence: $T/xid13.ini:2: Xid 13: fail when more than 5 within 600 s: 7 within 600 s, applies (policy)"

# the fixture's own two Xid 13 stay a warning: the rule does not apply
run 0 --sysroot "$XID13" --policy "$T/xid13.ini" -v "${Q[@]}" --only health.kernel_log
assert_out_has "2 within 600 s, does not apply (policy)"
run 0 --sysroot "$XID13" --policy "$T/xid13.ini" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = warn ] || fail "two Xid 13 with the policy: $(kl), expected warn"

# a wider window takes in the fixture's first two as well: 9 > 5 within an hour
sed 's/within = 10m/within = 2h/' "$T/xid13.ini" >"$T/wide.ini"
run 1 --sysroot "$STORM" --policy "$T/wide.ini" --json "${Q[@]}" --only health.kernel_log
json_get "$OUT" "[e['value'] for c in d['checks'] if c['id'] == 'health.kernel_log' for e in c['evidence'] if 'policy' in e['value']][0]" |
	grep -q "9 within 7200 s, applies" || fail "the 2 h window does not count all nine"

# ignore an Xid: the driver's own "fallen off the bus" line still fails,
# until its signature is ignored too
printf '[xid 79]\naction = ignore\n' >"$T/ignore79.ini"
run 1 --sysroot "$FX/nvidia-rtx4090-ubuntu2204-xid79" --policy "$T/ignore79.ini" -v "${Q[@]}" --only health.kernel_log
assert_out_has 'GPU fell off the bus: "'
assert_out_has "evidence: $T/ignore79.ini:1: Xid 79: action = ignore (policy)"
printf '[signature fallen-off-bus]\naction = ignore\n' >>"$T/ignore79.ini"
run any --sysroot "$FX/nvidia-rtx4090-ubuntu2204-xid79" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = fail ] || fail "Xid 79 without a policy: $(kl), expected fail"
run 0 --sysroot "$FX/nvidia-rtx4090-ubuntu2204-xid79" --policy "$T/ignore79.ini" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = pass ] || fail "Xid 79 ignored by the policy: $(kl), expected pass"
json_get "$OUT" "[e for c in d['checks'] if c['id'] == 'health.kernel_log' for e in c['evidence']]" | grep -q "Xid 79: action = ignore (policy)" ||
	fail "the ignored Xid is not in the evidence"

# an amdgpu signature promoted: the ring that timed out and reset
printf '[signature reset]\naction = fail\n[signature ring-timeout]\naction = fail\n' >"$T/strict.ini"
run 0 --sysroot "$FX/amd-rx7900xtx-ubuntu2204-ringreset" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = warn ] || fail "ring reset without a policy: $(kl), expected warn"
run 1 --sysroot "$FX/amd-rx7900xtx-ubuntu2204-ringreset" --policy "$T/strict.ini" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = fail ] || fail "ring reset promoted: $(kl), expected fail"

# a threshold: the noisy healthy machine's few corrected PCIe errors
run 0 --sysroot "$FX/amd-rx7900xtx-ubuntu2204-healthynoisy" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = pass ] || fail "healthynoisy without a policy: $(kl), expected pass"
printf '[health]\naer_corrected_max = 1\n' >"$T/aer.ini"
run 0 --sysroot "$FX/amd-rx7900xtx-ubuntu2204-healthynoisy" --policy "$T/aer.ini" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = warn ] || fail "healthynoisy with aer_corrected_max = 1: $(kl), expected warn"
json_get "$OUT" "d['policy']['rules'][0]['rule']" | grep -qx "aer_corrected_max = 1" || fail "the threshold rule in JSON"

# observe-only: the x4 link is reported, never fails the run
LINK=$FX/amd-rx7900xtx-ubuntu2204-linkx4
printf '[check health.pcie_link]\nmode = observe\n' >"$T/observe.ini"
run 1 --sysroot "$LINK" --json "${Q[@]}" --only health.
json_get "$OUT" "[c['status'] for c in d['checks'] if c['id'] == 'health.pcie_link'][0]" | grep -qx fail ||
	fail "the x4 link does not fail without a policy"
run any --sysroot "$LINK" --policy "$T/observe.ini" --json "${Q[@]}" --only health.
validate_json "$OUT" || fail "the observe-only report does not match the schema"
json_get "$OUT" "[(c['status'], c.get('observe')) for c in d['checks'] if c['id'] == 'health.pcie_link'][0]" |
	grep -qx "('fail', True)" || fail "health.pcie_link is not a failing observe-only result"
others=$(json_get "$OUT" "sum(1 for c in d['checks'] if c['status'] in ('fail', 'error') and not c.get('observe'))")
want=$([ "$others" = 0 ] && echo 0 || echo 1)
[ "$STATUS" = "$want" ] || fail "observe-only: exit status $STATUS with $others other failures"
json_get "$OUT" "d['summary']['observed']" | grep -qx 1 || fail "summary.observed is not 1"
run any --sysroot "$LINK" --policy "$T/observe.ini" "${Q[@]}" --only health.pcie_link
[ "$STATUS" = 0 ] || fail "only the observe-only check: exit status $STATUS"
assert_out_has "(observe-only)"
assert_out_has "1 observe-only result did not pass"

# NFD: the node's health label leaves the observe-only result out, its own label stays
run any --sysroot "$LINK" --format nfd "${Q[@]}" --only health.pcie_link
assert_out_has '^rocmcheck.io/health=fail$'
run 0 --sysroot "$LINK" --policy "$T/observe.ini" --format nfd "${Q[@]}" --only health.pcie_link
assert_out_has '^rocmcheck.io/health=pass$'
assert_out_has '^rocmcheck.io/healthy=true$'
assert_out_has '^rocmcheck.io/check.health.pcie_link.gpu0=fail$'

# Prometheus: the status stays, a gauge marks the check observe-only; promtool reads it
run 0 --sysroot "$LINK" --policy "$T/observe.ini" --format prometheus "${Q[@]}" --only health.pcie_link
assert_out_has '^rocmcheck_check_status{check="health.pcie_link",category="health",gpu="0"} 2$'
assert_out_has '^rocmcheck_check_observe_only{check="health.pcie_link"} 1$'
if command -v promtool >/dev/null; then
	promtool check metrics <"$OUT" >"$T/promtool" 2>&1 || { fail "promtool rejects the exposition"; cat "$T/promtool" >&2; }
fi

# the Slurm health check: an observe-only failure never names the reason
SCTL=$T/scontrol
cat >"$SCTL" <<EOF
#!/bin/sh
case "\$1" in
show) echo "NodeName=n1 State=IDLE"; exit 0 ;;
update) printf '%s\n' "\$*" >>"$T/updates"; exit 0 ;;
esac
EOF
chmod +x "$SCTL"
HC=$SOURCE_DIR/contrib/slurm/rocmcheck-healthcheck
: >"$T/updates"
ROCMCHECK=$ROCMCHECK SCONTROL=$SCTL SLURM_NODE=n1 ROCMCHECK_ARGS="--sysroot $LINK --policy $T/observe.ini" \
	ROCMCHECK_DOCTOR_ARGS="--level quick --only health." sh "$HC" >"$T/hc.out" 2>&1
hc=$?
if grep -q 'state=drain' "$T/updates"; then
	grep -q 'health.pcie_link' "$T/updates" && fail "the Slurm check drained for an observe-only check: $(cat "$T/updates")"
else
	[ "$hc" = 0 ] || fail "the Slurm check exited $hc without draining: $(cat "$T/hc.out")"
fi

# a bundle keeps the policy its run judged by; its replay judges the same,
# unless another policy is named
run any --sysroot "$LINK" --policy "$T/observe.ini" bundle --level quick -o "$T/b.tar.gz"
[ -s "$T/b.tar.gz" ] || { fail "no bundle"; last; }
tar -xzOf "$T/b.tar.gz" --wildcards '*sysroot/.rocmcheck/policy.ini' >"$T/bp.ini" 2>/dev/null
cmp -s "$T/bp.ini" "$T/observe.ini" || fail "the bundle does not hold the policy: $(head -c 200 "$T/bp.ini")"
run 0 --replay "$T/b.tar.gz" "${Q[@]}" --only health.pcie_link
assert_out_has "^policy: /.rocmcheck/policy.ini (1 rule)"
assert_out_has "(observe-only)"
run 1 --replay "$T/b.tar.gz" --policy /dev/null "${Q[@]}" --only health.pcie_link
assert_out_lacks "(observe-only)"

# [check ID] repeat: held back as a warning for one run, then failing;
# [expect] gpus: device.present names the policy's line
printf '[check health.kernel_log]\nrepeat = 2\n[expect]\ngpus = 2\n' >"$T/repeat.ini"
X79=$FX/nvidia-rtx4090-ubuntu2204-xid79
run 1 --sysroot "$X79" --policy "$T/repeat.ini" --json "${Q[@]}" --only health.kernel_log,device.present --state "$T/state"
[ "$(kl)" = warn ] || fail "run 1 of 2: health.kernel_log $(kl), expected warn"
json_get "$OUT" "[c['repeat'] for c in d['checks'] if c['id'] == 'health.kernel_log'][0]" | grep -q "'failing_runs': 1, 'needed': 2" ||
	fail "run 1: the repeat mark"
json_get "$OUT" "[c['summary'] for c in d['checks'] if c['id'] == 'device.present'][0]" | grep -qx "expected 2 GPUs, found 1" ||
	fail "the policy's [expect] gpus"
json_get "$OUT" "[c['fix']['text'] for c in d['checks'] if c['id'] == 'device.present'][0]" | grep -q "$T/repeat.ini:4" ||
	fail "device.present's fix does not name the policy's line"
run 1 --sysroot "$X79" --policy "$T/repeat.ini" "${Q[@]}" --only health.kernel_log --state "$T/state"
assert_out_has "✗ GPU errors in the kernel log"
# a replayed capture never counts runs without --state
run 1 --sysroot "$X79" --policy "$T/repeat.ini" --json "${Q[@]}" --only health.kernel_log
[ "$(kl)" = fail ] || fail "a capture without --state held the failure back"

# what is wrong with a policy: every problem with its line, exit status 3, no report
printf '[xid 13]\naction = explode\n[check health.nosuch]\nmode = observe\n' >"$T/bad.ini"
run 3 --sysroot "$XID13" --policy "$T/bad.ini" "${Q[@]}"
[ -s "$OUT" ] && fail "a bad policy still printed a report"
grep -q "^rocmcheck: policy: $T/bad.ini:2: bad value for 'action': \"explode\"" "$ERR" || { fail "no line for the bad action"; last; }
grep -q "^rocmcheck: policy: $T/bad.ini:3: no check 'health.nosuch'" "$ERR" || { fail "no line for the unknown check"; last; }
printf '[check perm.kdf]\nmode = observe\n' >"$T/typo.ini"
run 3 --sysroot "$XID13" --policy "$T/typo.ini" "${Q[@]}"
grep -q "^rocmcheck: policy: $T/typo.ini:1: no check 'perm.kdf' (did you mean \`perm.kfd\`?" "$ERR" ||
	{ fail "no suggestion for a mistyped check"; last; }
run 3 --sysroot "$XID13" --policy "$T/missing.ini" "${Q[@]}"
grep -q "missing.ini: No such file or directory" "$ERR" || { fail "a missing policy file"; last; }
mkfifo "$T/fifo"
run 3 --sysroot "$XID13" --policy "$T/fifo" "${Q[@]}"
grep -q "not a regular file" "$ERR" || { fail "a FIFO as the policy"; last; }
# /dev/null: an empty policy, a report like no policy's but saying so
run 0 --sysroot "$XID13" --policy /dev/null "${Q[@]}" --only health.kernel_log
assert_out_has "^policy: /dev/null (0 rules)"

finish
