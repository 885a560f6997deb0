#!/bin/bash
# Expected GPUs (issue 28 item 3): device.present against the count of
# `doctor --expect-gpus N`, else the GRES gpu count Slurm's gres.conf or
# slurm.conf gives this node.
#   - 7 of 8 on PCI with gres.conf saying 8: fail "expected 8 GPUs, found 7",
#     the gres.conf line and the seven slots that answer as evidence;
#   - the same machine without Slurm and --expect-gpus 8: the same failure,
#     from the option; the option wins over gres.conf;
#   - 4 of 4 with slurm.conf's Gres=gpu:h100:4: pass, "as slurm.conf expects";
#   - more than expected: warn; a GPU on PCI without its driver: found, and
#     not usable (fail);
#   - a CPU node whose slurm.conf line gives it no GPU: none expected, and
#     no GPU skips; a node no Slurm file names: no expectation;
#   - Debian's /etc/slurm-llnl and configless /run/slurm/conf are read;
#   - --expect-gpus takes 1 to 256; `devices` exits 1 as device.present fails.
. "$(dirname "$0")/lib.sh"

FX=$TESTS_DIR/fixtures
MISSING=$FX/nvidia-h100x8-ubuntu2204-gpumissing
HEALTHY=$FX/nvidia-h100x4-ubuntu2204-slurmhealthy
CPU=$FX/none-server-debian12-slurmcpu

# present FIELD: device.present's status, summary or evidence ("path: text"
# lines) from the JSON report in $OUT
present() {
	"$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [c for c in d["checks"] if c["id"] == "device.present"]
assert len(r) == 1, r
r = r[0]
if sys.argv[2] == "evidence":
    for e in r.get("evidence") or []:
        print("%s: %s" % (e["path"], e["value"]))
else:
    print(r[sys.argv[2]])' "$OUT" "$1"
}
expect_present() {
	local st sum
	st=$(present status)
	sum=$(present summary)
	[ "$st" = "$1" ] && [ "$sum" = "$2" ] || { fail "device.present is $st '$sum', expected $1 '$2'"; last; }
}
evidence_has() {
	present evidence | grep -F -- "$1" >/dev/null || { fail "device.present evidence lacks '$1'"; present evidence >&2; }
}

# 7 of 8, gres.conf says 8
run 1 --sysroot "$MISSING" --json doctor --level quick
expect_present fail "expected 8 GPUs, found 7"
evidence_has "/etc/slurm/gres.conf:3: Name=gpu Type=h100 File=/dev/nvidia[0-7]"
for a in 1b 29 3b 4e 5d c4 d9; do
	evidence_has "/sys/bus/pci/devices/0000:$a:00.0: GPU "
done
present evidence | grep "0000:b3:00.0" >/dev/null && fail "the missing GPU's slot is listed as answering"
ntests=$((ntests + 1))
[ "$(present evidence | grep -c '^/sys/bus/pci/devices/')" = 7 ] || fail "not seven slots in the evidence"
# the text report says it, with the fix
run 1 --sysroot "$MISSING" doctor --level quick --only device.present
assert_out_has "GPU present: expected 8 GPUs, found 7"
assert_out_has "1 GPU of the 8 that /etc/slurm/gres.conf:3 expects is not on PCI"
# devices fails with it
run 1 --sysroot "$MISSING" devices
assert_out_has "expected 8 GPUs, found 7"

# the same machine without Slurm: no expectation, then --expect-gpus 8
M=$T/noslurm
cp -a "$MISSING" "$M"
rm -r "$M/etc/slurm"
run 0 --sysroot "$M" --json doctor --level quick --only device.present
expect_present pass "7 GPUs found (7 NVIDIA)"
run 1 --sysroot "$M" --json doctor --level quick --only device.present --expect-gpus 8
expect_present fail "expected 8 GPUs, found 7"
evidence_has "--expect-gpus: 8"
# the option wins over gres.conf
run 0 --sysroot "$MISSING" --json doctor --level quick --only device.present --expect-gpus=7
expect_present pass "7 GPUs found (7 NVIDIA), as --expect-gpus expects"

# Debian's /etc/slurm-llnl; configless /run/slurm/conf
mkdir -p "$M/etc/slurm-llnl"
printf '# the cluster'"'"'s file\nNodeName=hgx-a[01-16] Name=gpu Type=h100 File=/dev/nvidia[0-7]\n' >"$M/etc/slurm-llnl/gres.conf"
run 1 --sysroot "$M" --json doctor --level quick --only device.present
expect_present fail "expected 8 GPUs, found 7"
evidence_has "/etc/slurm-llnl/gres.conf:2: NodeName=hgx-a[01-16] Name=gpu Type=h100 File=/dev/nvidia[0-7]"
rm -r "$M/etc/slurm-llnl"
mkdir -p "$M/run/slurm/conf"
printf 'NodeName=DEFAULT Gres=gpu:h100:8\nNodeName=hgx-a[01-16] CPUs=224\n' >"$M/run/slurm/conf/slurm.conf"
run 1 --sysroot "$M" --json doctor --level quick --only device.present
expect_present fail "expected 8 GPUs, found 7"
evidence_has "/run/slurm/conf/slurm.conf:2: NodeName=hgx-a[01-16] CPUs=224"
# another node's line is not this node's
sed -i 's/hgx-a\[01-16\]/hgx-a[08-16]/' "$M/run/slurm/conf/slurm.conf"
run 0 --sysroot "$M" --json doctor --level quick --only device.present
expect_present pass "7 GPUs found (7 NVIDIA)"

# 4 of 4 from slurm.conf (gres.conf leaves the devices to AutoDetect)
run 0 --sysroot "$HEALTHY" --json doctor --level quick
expect_present pass "4 GPUs found (4 NVIDIA), as slurm.conf expects"
evidence_has "/etc/slurm/slurm.conf:7: NodeName=hgx4-[01-32] Gres=gpu:h100:4 Sockets=2 CoresPerSocket=56"
# more than expected: a warning (the expectation is out of date)
run 0 --sysroot "$HEALTHY" --json doctor --level quick --only device.present --expect-gpus 2
expect_present warn "expected 2 GPUs, found 4"
run 1 --sysroot "$HEALTHY" doctor --level quick --only device.present --expect-gpus 2 --fail-on warn
assert_out_has "The node has more GPUs than --expect-gpus says"
# a GPU on PCI that no driver serves: found, and not usable
U=$T/unbound
cp -a "$HEALTHY" "$U"
rm "$U/sys/bus/pci/drivers/nvidia/0000:3b:00.0" "$(readlink -f "$U/sys/bus/pci/devices/0000:3b:00.0")/driver"
run 1 --sysroot "$U" --json doctor --level quick --only device.present
expect_present fail "expected 4 GPUs, found 4, 1 not usable"
evidence_has "/sys/bus/pci/devices/0000:3b:00.0: 10de:2330, no driver bound: not usable"

# a CPU node: its slurm.conf line gives it no GPU, so none is expected and
# device.present skips, citing the line
run 0 --sysroot "$CPU" --json doctor --level quick --only device.present
expect_present skip "no GPU, and slurm.conf gives node cpu017 none"
evidence_has "/etc/slurm/slurm.conf:5: NodeName=cpu[001-064] CPUs=64"
# a node no Slurm line names (a login node reading the cluster's files): no
# expectation; device.present says what it says on the machine without Slurm
run 1 --sysroot "$FX/none-server-debian12-nogpu" --json doctor --level quick --only device.present
want_st=$(present status)
want_sum=$(present summary)
L=$T/login
cp -a "$CPU" "$L"
sed -i 's/^nodename = cpu017$/nodename = login1/' "$L/.rocmcheck/host.ini"
run 1 --sysroot "$L" --json doctor --level quick --only device.present
expect_present "$want_st" "$want_sum"
present summary | grep -q expected && fail "a node Slurm does not name got an expectation"

# the option's values
for v in 0 257 -1 eight ""; do
	usage_error --sysroot "$MISSING" doctor --expect-gpus "$v"
done
usage_error --sysroot "$MISSING" doctor --expect-gpus
run 0 --sysroot "$MISSING" doctor --help
assert_out_has "--expect-gpus N"
finish
