#!/bin/bash
# contrib/slurm/rocmcheck-healthcheck's drain reason, on any machine: a
# stand-in scontrol that keeps the node's reason in a file, shows it the way
# `scontrol show node` does ("Reason=... [root@TIME]") and, like the real
# one, drops one leading and one trailing '"' of reason=. (The real Slurm
# runs it in test_slurm_healthcheck.sh where slurm-wlm is installed.)
#   - a failing health check drains with its ID, the GPU's index and PCI
#     address and the quoted log line or finding; a health failure is named
#     before a configuration one;
#   - a second run for the same reason leaves the node alone;
#   - the reason stays within 200 bytes, cut at a character;
#   - a healthy node is resumed, an admin's drain never touched;
#   - the node is SLURMD_NODENAME (what slurmd sets) when SLURM_NODE is not
#     given, and rocmcheck reads Slurm's files for that name;
#   - a CPU node (no GPU, no GRES gpu in its slurm.conf line) is healthy.
. "$(dirname "$0")/lib.sh"
unset SLURMD_NODENAME SLURM_NODE

FX=$TESTS_DIR/fixtures
HC=$SOURCE_DIR/contrib/slurm/rocmcheck-healthcheck
STATE=$T/reason
mkdir -p "$T/bin"
cat >"$T/bin/scontrol" <<'SH'
#!/bin/sh
state=${FAKE_SCONTROL_STATE:?}
case "$1 $2" in
"show node")
	echo "NodeName=$3 Arch=x86_64 CoresPerSocket=8"
	if [ -s "$state" ]; then
		echo "   State=IDLE+DRAIN ThreadsPerCore=2"
		echo "   Reason=$(cat "$state") [root@2025-12-01T12:00:00]"
	else
		echo "   State=IDLE ThreadsPerCore=2"
	fi
	;;
update\ *)
	printf '%s\n' "$*" >>"$state.calls"
	for a; do
		case $a in
		reason=*) r=${a#reason=}; r=${r#\"}; r=${r%\"}; printf '%s' "$r" >"$state" ;;
		state=resume) : >"$state" ;;
		esac
	done
	;;
*) exit 1 ;;
esac
SH
chmod +x "$T/bin/scontrol"

# hc SYSROOT: the health check on SYSROOT; its output in $OUT, status in $STATUS
hc() {
	ntests=$((ntests + 1))
	FAKE_SCONTROL_STATE=$STATE SCONTROL=$T/bin/scontrol SLURM_NODE=node17 ROCMCHECK=$ROCMCHECK \
		ROCMCHECK_ARGS="--sysroot $1" sh "$HC" >"$OUT" 2>"$ERR"
	STATUS=$?
}
calls() {
	if [ -f "$STATE.calls" ]; then wc -l <"$STATE.calls"; else echo 0; fi
}
# expect_reason TEXT: the node is drained with exactly TEXT
expect_reason() {
	[ "$(cat "$STATE" 2>/dev/null)" = "$1" ] ||
		{ fail "reason is '$(cat "$STATE" 2>/dev/null)', expected '$1'"; last; }
}

# Xid 79: the GPU fell off the bus. The reason ends with the quoted line's
# closing quote (scontrol keeps it because the wrapper quotes the reason).
xid79="rocmcheck: health.kernel_log: gpu 0 (0000:01:00.0): Xid 79: \"NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\""
hc "$FX/nvidia-rtx4090-ubuntu2204-xid79"
[ "$STATUS" = 1 ] || fail "xid79: exit $STATUS, expected 1"
expect_reason "$xid79"
grep -qF "drained node17: $xid79" "$OUT" || { fail "xid79: no 'drained' line"; last; }
# again: drained already for this reason, scontrol not asked to update
hc "$FX/nvidia-rtx4090-ubuntu2204-xid79"
[ "$STATUS" = 1 ] || fail "xid79 again: exit $STATUS, expected 1"
[ "$(calls)" = 1 ] || fail "xid79 again: scontrol update called $(calls) times, expected once"
[ -s "$OUT" ] && { fail "xid79 again: said something"; last; }

# A hot idle GPU: the health check's finding replaces rocmcheck's own reason.
hc "$FX/amd-rx7900xtx-ubuntu2204-hotidle"
[ "$STATUS" = 1 ] || fail "hotidle: exit $STATUS, expected 1"
expect_reason "rocmcheck: health.thermal: gpu 0 (0000:03:00.0): junction at 106 °C, within 5 °C of its critical 110 °C (0 % busy)"
[ "$(calls)" = 2 ] || fail "hotidle: scontrol update called $(calls) times, expected twice"

# Uncorrectable memory errors on GPU 0 of two MI300X, beside a tuning warning.
hc "$FX/amd-mi300x-rhel94-rasue"
expect_reason 'rocmcheck: health.kernel_log: gpu 0 (0000:05:00.0): uncorrectable memory errors: "amdgpu 0000:05:00.0: amdgpu: 2 uncorrectable hardware errors detected in umc block"'

# A long log line: cut to 200 bytes, marked, whole characters only.
hc "$FX/nvidia-h100x8-ubuntu2204-xid48"
ntests=$((ntests + 1))
r=$(cat "$STATE")
[ "$(printf '%s' "$r" | wc -c)" -le 200 ] || fail "xid48: reason over 200 bytes: $r"
case $r in
'rocmcheck: health.kernel_log: gpu 0 (0000:1b:00.0): Xid 48: "NVRM: Xid (PCI:0000:1b:00): 48, '*...) ;;
*) fail "xid48: reason '$r'" ;;
esac
# ... and when the cut falls inside a character (the log line made of
# two-byte characters), that character goes whole
W=$T/wide
cp -a "$FX/nvidia-rtx4090-ubuntu2204-xid79" "$W"
wide=$(printf 'é%.0s' $(seq 90))
sed -i "s/GPU has fallen off the bus\./GPU has fallen off the bus. $wide/" "$W/.rocmcheck/kernel.log"
hc "$W"
ntests=$((ntests + 1))
n=$(wc -c <"$STATE")
if [ "$n" -gt 200 ] || [ "$n" -lt 190 ]; then fail "wide: reason of $n bytes"; fi
"$PYTHON" -c 'import sys; t = open(sys.argv[1], "rb").read(); t.decode("utf-8"); assert t.endswith("é...".encode()), t' \
	"$STATE" || fail "wide: reason is not whole UTF-8 characters ending in '...': $(cat "$STATE")"

# A health failure is named before a configuration one: a PCI GPU without an
# index (the inventory counts no processing accelerator from NVIDIA) fails
# device.present first, then health.kernel_log with its PCI address.
U=$T/unindexed
cp -a "$FX/nvidia-rtx4090-ubuntu2204-xid79" "$U"
echo 0x120000 >"$(readlink -f "$U/sys/bus/pci/devices/0000:01:00.0")/class"
hc "$U"
expect_reason "rocmcheck: health.kernel_log: PCI GPU 0000:01:00.0 (10de:2684, driver nvidia, no GPU index): Xid 79: \"NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\""

# A GPU gone from PCI leaves no log line: gres.conf gives the node 8, 7
# answer, and device.present says so; the same from --expect-gpus in
# ROCMCHECK_DOCTOR_ARGS on a machine without Slurm's files.
hc "$FX/nvidia-h100x8-ubuntu2204-gpumissing"
[ "$STATUS" = 1 ] || fail "gpumissing: exit $STATUS, expected 1"
expect_reason 'rocmcheck: device.present: expected 8 GPUs, found 7'
M=$T/noslurm
cp -a "$FX/nvidia-h100x8-ubuntu2204-gpumissing" "$M"
rm -r "$M/etc/slurm"
: >"$STATE"   # resumed by hand: the drain below is the option's
ROCMCHECK_DOCTOR_ARGS="--level quick --expect-gpus 8" hc "$M"
[ "$STATUS" = 1 ] || fail "--expect-gpus: exit $STATUS, expected 1"
expect_reason 'rocmcheck: device.present: expected 8 GPUs, found 7'
ROCMCHECK_DOCTOR_ARGS="--level quick --expect-gpus 7" hc "$M"
[ "$STATUS" = 0 ] || fail "--expect-gpus 7: exit $STATUS, expected 0"
[ -s "$STATE" ] && fail "--expect-gpus 7: not resumed: $(cat "$STATE")"

# Without a health failure, the first failing check as before.
hc "$FX/amd-rx7900xtx-ubuntu2204-norender"
expect_reason 'rocmcheck: perm.kfd: user alice cannot open /dev/kfd read-write (group render, mode 0660): "Unable to open /dev/kfd read-write: Permission denied"'

# Healthy again (a warning is healthy): resumed.
hc "$FX/amd-rx7900xtx-ubuntu2204-ringreset"
[ "$STATUS" = 0 ] || fail "ringreset: exit $STATUS, expected 0"
[ -s "$STATE" ] && fail "ringreset: not resumed: $(cat "$STATE")"
grep -q 'node17 passes again; resumed' "$OUT" || { fail "ringreset: no 'resumed' line"; last; }
before=$(calls)
hc "$FX/amd-rx7900xtx-ubuntu2204-healthynoisy"
[ "$STATUS" = 0 ] || fail "healthy and not drained: exit $STATUS, expected 0"
[ "$(calls)" = "$before" ] || fail "healthy and not drained: scontrol update called"

# An admin's drain is left alone, failing or healthy.
printf 'admin maintenance' >"$STATE"
before=$(calls)
hc "$FX/nvidia-rtx4090-ubuntu2204-xid79"
[ "$STATUS" = 1 ] || fail "admin drain, xid79: exit $STATUS, expected 1"
grep -qF "node17 already drained by someone else (admin maintenance); $xid79" "$OUT" || { fail "admin drain: not said"; last; }
hc "$FX/amd-rx7900xtx-ubuntu2204-healthynoisy"
[ "$(calls)" = "$before" ] || fail "admin drain: scontrol update called"
expect_reason "admin maintenance"

# A CPU node: no GPU, and its slurm.conf line gives it no GRES gpu. Healthy:
# no drain, and an admin's drain stays.
hc "$FX/none-server-debian12-slurmcpu"
[ "$STATUS" = 0 ] || { fail "CPU node: exit $STATUS, expected 0"; last; }
expect_reason "admin maintenance"
# The node name: SLURMD_NODENAME, as slurmd sets it for its health check
# (the host name is cpu017), and rocmcheck reads Slurm's files for it: the
# fixture's slurm.conf gives gpu03 eight GPUs.
G=$T/gpu03
cp -a "$FX/none-server-debian12-slurmcpu" "$G"
sed -i 's/^\[env\]$/&\nSLURMD_NODENAME = gpu03/' "$G/.rocmcheck/host.ini"
: >"$STATE"
ntests=$((ntests + 1))
FAKE_SCONTROL_STATE=$STATE SCONTROL=$T/bin/scontrol SLURMD_NODENAME=gpu03 ROCMCHECK=$ROCMCHECK \
	ROCMCHECK_ARGS="--sysroot $G" sh "$HC" >"$OUT" 2>"$ERR"
STATUS=$?
[ "$STATUS" = 1 ] || fail "SLURMD_NODENAME: exit $STATUS, expected 1"
expect_reason 'rocmcheck: device.present: expected 8 GPUs, found 0'
grep -q "nodename=gpu03 state=drain" "$STATE.calls" || fail "SLURMD_NODENAME: not the node drained: $(tail -n 1 "$STATE.calls")"
printf 'admin maintenance' >"$STATE"

# rocmcheck cannot run: exit 2, node left as it is.
hc /nonexistent
[ "$STATUS" = 2 ] || fail "no sysroot: exit $STATUS, expected 2"
expect_reason "admin maintenance"
grep -q 'left as it is' "$ERR" || { fail "no sysroot: not said"; last; }
finish
