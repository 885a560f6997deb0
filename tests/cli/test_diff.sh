#!/bin/bash
# `rocmcheck diff A B` on fixture pairs: the verdict that changed, with the
# fact difference that explains it (from bundles: the user's groups and the
# device nodes; from reports: the kernel), the rest apart; health verdicts
# in a group of their own with the evidence that changed, matched by (check,
# GPU); identical inputs; JSON; exit statuses and usage errors.
. "$(dirname "$0")/lib.sh"

FX=$TESTS_DIR/fixtures
for f in amd-rx7900xtx-ubuntu2204-healthy amd-rx7900xtx-ubuntu2204-norender amd-rx7900xtx-ubuntu2404-kerneltoonew; do
	"$ROCMCHECK" --sysroot "$FX/$f" bundle -o "$T/$f.tar.gz" >/dev/null 2>&1 # exit 1: the machine has problems
	[ -s "$T/$f.tar.gz" ] || fail "bundle of $f"
	"$ROCMCHECK" --sysroot "$FX/$f" --json doctor --level quick >"$T/$f.json"
done

# Permissions lost: explained by the groups and the device nodes' access.
run 1 diff "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" "$T/amd-rx7900xtx-ubuntu2204-norender.tar.gz"
assert_out_has "^  perm.kfd: pass → fail: user alice cannot open /dev/kfd"
assert_out_has "^      groups of alice: .*video,plugdev,render,lpadmin → .*dip,plugdev,lpadmin$"
assert_out_has "^      /dev/kfd: 0660 root:render, read-write → 0660 root:render, denied$"
run 1 --json diff "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" "$T/amd-rx7900xtx-ubuntu2204-norender.tar.gz"
[ "$(json_get "$OUT" 'sorted((v["id"], v["a"], v["b"]) for v in d["verdicts"])')" = \
	"[('perm.kfd', 'pass', 'fail'), ('perm.render', 'pass', 'fail')]" ] || { fail "verdicts"; last; }
[ "$(json_get "$OUT" '[f["explains_a_verdict"] for f in d["facts"] if f["what"] == "groups of alice"]')" = "[True]" ] ||
	{ fail "the groups explain it"; last; }
[ "$(json_get "$OUT" 'd["schema"], d["exit_status"]')" = "rocmcheck.diff/1 1" ] || fail "schema and exit status"

# Two bundles of one NVIDIA machine, the user-space driver updated under the
# loaded module: the versions on both sides explain driver.nvidia.
for f in nvidia-rtx4090-ubuntu2204-healthy nvidia-rtx4090-ubuntu2204-libmismatch; do
	"$ROCMCHECK" --sysroot "$FX/$f" bundle -o "$T/$f.tar.gz" >/dev/null 2>&1
	[ -s "$T/$f.tar.gz" ] || fail "bundle of $f"
done
run 1 diff "$T/nvidia-rtx4090-ubuntu2204-healthy.tar.gz" "$T/nvidia-rtx4090-ubuntu2204-libmismatch.tar.gz"
assert_out_has "^  driver.nvidia: pass → fail: the loaded nvidia kernel module is 550.54.14 but the user-space driver on disk is 550.90.07"
assert_out_has "^      nvidia user-space driver: 550.54.14 → 550.90.07$"
assert_out_has "^      file /usr/lib/x86_64-linux-gnu/libcuda.so.1: link to libcuda.so.550.54.14 → link to libcuda.so.550.90.07$"

# Captured files: two bundles of one machine, a kernel parameter and a
# modprobe option added, which no report-level fact names: each file with
# both values (one short line is shown as it is).
cp -a "$FX/amd-rx7900xtx-ubuntu2204-healthy" "$T/tuned"
sed -i 's/$/ amdgpu.ppfeaturemask=0xffffffff/' "$T/tuned/proc/cmdline"
mkdir -p "$T/tuned/etc/modprobe.d"
echo "options amdgpu noretry=0" >"$T/tuned/etc/modprobe.d/amdgpu.conf"
for f in "$FX/amd-rx7900xtx-ubuntu2204-healthy" "$T/tuned"; do
	"$ROCMCHECK" --sysroot "$f" bundle --level quick -o "$T/${f##*/}-quick.tar.gz" >/dev/null 2>&1
	[ -s "$T/${f##*/}-quick.tar.gz" ] || fail "bundle of $f"
done
healthy_q=$T/amd-rx7900xtx-ubuntu2204-healthy-quick.tar.gz
run 1 diff "$healthy_q" "$T/tuned-quick.tar.gz"
assert_out_has "^  file /proc/cmdline: BOOT_IMAGE=.* vt.handoff=7 → BOOT_IMAGE=.* vt.handoff=7 amdgpu.ppfeaturemask=0xffffffff$"
assert_out_has "^  file /etc/modprobe.d/amdgpu.conf: (none) → options amdgpu noretry=0$"
assert_out_lacks "host.ini"
run 1 --json diff "$healthy_q" "$T/tuned-quick.tar.gz"
[ "$(json_get "$OUT" '[(f["area"], f["what"], f["a"] and f["a"].split()[-1], f["b"].split()[-1]) for f in d["facts"]]')" = \
	"[('kernel', 'file /proc/cmdline', 'vt.handoff=7', 'amdgpu.ppfeaturemask=0xffffffff'), ('driver', 'file /etc/modprobe.d/amdgpu.conf', None, 'noretry=0')]" ] ||
	{ fail "file facts in JSON"; last; }
[ "$(json_get "$OUT" 'd["exit_status"]')" = 1 ] || fail "file facts: exit status 1"
# readings that change between two runs on one machine are no difference:
# a temperature, the load, the VRAM in use, gpu_metrics, an idle link's
# speed, the capture's time
cp -a "$FX/amd-rx7900xtx-ubuntu2204-healthynoisy" "$T/later"
dev=$T/later/sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0/0000:02:00.0/0000:03:00.0
echo 46000 >"$dev/hwmon/hwmon2/temp1_input"
echo 3 >"$dev/gpu_busy_percent"
echo 1073745920 >"$dev/mem_info_vram_used"
printf 'y' | dd of="$dev/gpu_metrics" bs=1 seek=40 conv=notrunc 2>/dev/null
echo "8.0 GT/s PCIe" >"$dev/current_link_speed"        # the idle link at another speed
for f in "$FX/amd-rx7900xtx-ubuntu2204-healthynoisy" "$T/later"; do
	"$ROCMCHECK" --sysroot "$f" bundle --level quick -o "$T/${f##*/}-quick.tar.gz" >/dev/null 2>&1
	[ -s "$T/${f##*/}-quick.tar.gz" ] || fail "bundle of $f"
done
run 0 diff "$T/amd-rx7900xtx-ubuntu2204-healthynoisy-quick.tar.gz" "$T/later-quick.tar.gz"
assert_out_has "^No differences"
run 0 diff "$healthy_q" "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz"   # one machine, two bundles
assert_out_has "^No differences"
# A bundle may hold files no check read (replay_scale pads one): they are
# not compared; two different machines differ only in what was read.
"$ROCMCHECK" --sysroot "$FX/amd-mi300x-rhel94-cpx" bundle --level quick -o "$T/cpx.tar.gz" >/dev/null 2>&1
run 1 --json diff "$healthy_q" "$T/cpx.tar.gz"
n=$(json_get "$OUT" 'len([x for x in d["facts"] if x["what"].startswith("file ")])')
[ "$n" -gt 20 ] && [ "$n" -le 200 ] || fail "healthy against MI300X: $n file facts"
run 1 diff "$healthy_q" "$T/cpx.tar.gz"      # each verdict names at most 10
assert_out_has "^      and [0-9]* more captured files (--format json lists them)$"
# Hundreds of files read that differ (260 modprobe.d files, every one of
# which the driver facts read) and a kernel parameter: the first 200, by
# area, the kernel's first, then how many more.
cp -a "$T/tuned" "$T/many"
for i in $(seq 260); do echo "# pad $i" >"$T/many/etc/modprobe.d/pad$i.conf"; done
"$ROCMCHECK" --sysroot "$T/many" bundle --level quick -o "$T/many.tar.gz" >/dev/null 2>&1
run 1 --json diff "$healthy_q" "$T/many.tar.gz"
n=$(json_get "$OUT" '"%d %s %s" % (len([x for x in d["facts"] if x["what"].startswith("file ")]), d["facts"][-1]["what"],
	[x["area"] for x in d["facts"] if x["what"].startswith("file ")][0])')
grep -q "^200 files: 62 more differ kernel$" <<<"$n" || { fail "200 file facts, then how many more, the kernel's first: $n"; last; }

# Reports only: a newer kernel explains system.kernel; nothing from host.ini.
run 1 diff "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/amd-rx7900xtx-ubuntu2404-kerneltoonew.json"
assert_out_has "^  system.kernel: pass → "
assert_out_has "^      kernel: 6.8.0-40-generic → "
assert_out_lacks "groups of"

# Packages and DKMS: the kernel that is too new for the ROCm release comes
# with its own kernel packages, and the DKMS amdgpu that was never built for
# it (from reports and from bundles alike).
run 1 diff "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/amd-rx7900xtx-ubuntu2404-kerneltoonew.json"
assert_out_has "^      package linux-image-6.11.0-19-generic: (none) → 6.11.0-19.19~24.04.1$"
assert_out_has "^      package rocm-core: 6.2.0.60200-66~22.04 → 6.2.2.60202-116~24.04$"
assert_out_has "^      dkms amdgpu: 6.8.5-2009582.22.04 (built for 6.8.0-40-generic) → 6.8.5-2041575.24.04 (built for no kernel)$"
assert_out_has "^      package libdrm-amdgpu1:i386: 2.4.113-2~ubuntu0.22.04.1 → (none)$"
assert_out_lacks "package bash"
assert_out_lacks "linux-image-6.5.0-35"   # removed, its configuration left: not installed
run 1 --json diff "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" "$T/amd-rx7900xtx-ubuntu2404-kerneltoonew.tar.gz"
[ "$(json_get "$OUT" '[(f["area"], f["a"], f["b"], f["explains_a_verdict"]) for f in d["facts"] if f["what"] == "package amdgpu-dkms"]')" = \
	"[('packages', '1:6.8.5.60200-2009582.22.04', '1:6.8.5.60202-2041575.24.04', True)]" ] || { fail "amdgpu-dkms from bundles"; last; }
# the bundle keeps only the GPU stack's stanzas of dpkg's database
tar -xzf "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" -C "$T" sysroot/var/lib/dpkg/status || fail "dpkg status in the bundle"
grep -q "^Package: rocm-core$" "$T/sysroot/var/lib/dpkg/status" || fail "rocm-core kept"
grep -q "^Package: linux-image-6.5.0-35-generic$" "$T/sysroot/var/lib/dpkg/status" || fail "a removed kernel's stanza kept as it was"
! grep -q "^Package: \(bash\|libc6\|openssh-server\)$" "$T/sysroot/var/lib/dpkg/status" || fail "other packages left out"

# RPM captures: host.ini [packages] (what `rpm -qa` listed), round-tripped
# through bundles; noarch is no part of a package's name
for f in amd-mi210-rhel810-rocm63 amd-mi300x-rhel94-iommupt; do
	"$ROCMCHECK" --sysroot "$FX/$f" bundle -o "$T/$f.tar.gz" >/dev/null 2>&1
	[ -s "$T/$f.tar.gz" ] || fail "bundle of $f"
done
run 1 diff "$T/amd-mi210-rhel810-rocm63.tar.gz" "$T/amd-mi300x-rhel94-iommupt.tar.gz"
assert_out_has "^      package kernel-core: 4.18.0-553.el8_10 → 5.14.0-427.13.1.el9_4$"
assert_out_has "^      package amdgpu-dkms: 1:6.10.5.60302-2109964.el8 → 1:6.10.5.60303-2125197.el9$"
assert_out_has "^      dkms amdgpu: 6.10.5-2109964.el8 (built for 4.18.0-553.el8_10.x86_64) → 6.10.5-2125197.el9 (built for 5.14.0-427.13.1.el9_4.x86_64)$"

# Identical: nothing differs, exit 0; the same report as a bundle and as JSON
# differ only in what the bundle adds (nothing to compare against: no verdict).
run 0 diff "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/amd-rx7900xtx-ubuntu2204-healthy.json"
assert_out_has "No differences"
# a result without a status (or with one that is not a string), as a
# hand-edited report may have, is the same as itself (fuzz_reports found it)
"$PYTHON" - "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/nostatus.json" <<'PY' || fail "editing the report"
import json, sys
d = json.load(open(sys.argv[1]))
del d["checks"][0]["status"]
d["checks"][1]["status"] = 7
json.dump(d, open(sys.argv[2], "w"))
PY
run 0 diff "$T/nostatus.json" "$T/nostatus.json"
assert_out_has "No differences"
run 1 diff "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/nostatus.json"
assert_out_has "^Verdicts that differ (2):$"
# A key given twice (two GPUs with one index, a package in two versions,
# two results of one check without a GPU) is compared with the same one of
# the other side, the second numbered: a report equals itself, and a change
# to the second is the one difference.
"$PYTHON" - "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/twice-a.json" "$T/twice-b.json" <<'PY' || fail "making twice"
import copy, json, sys
d = json.load(open(sys.argv[1]))
g = copy.deepcopy(d["gpus"][0]); g["pci"] = "0000:09:00.0"; d["gpus"].append(g)
d["stack"].setdefault("packages", {}).setdefault("installed", [])
d["stack"]["packages"]["installed"] += [{"name": "kernel-devel", "version": "1"}, {"name": "kernel-devel", "version": "2"}]
r = copy.deepcopy(d["checks"][0]); r["gpu"] = None
r1, r2 = copy.deepcopy(r), copy.deepcopy(r); r1["status"] = "pass"; r2["status"] = "fail"; r1["id"] = r2["id"] = "system.twice"
d["checks"] += [r1, r2]
json.dump(d, open(sys.argv[2], "w"))
d["gpus"][-1]["pci"] = "0000:0a:00.0"
d["stack"]["packages"]["installed"][-1]["version"] = "3"
d["checks"][-1]["status"] = "warn"
json.dump(d, open(sys.argv[3], "w"))
PY
run 0 diff "$T/twice-a.json" "$T/twice-a.json"
assert_out_has "No differences"
run 1 --json diff "$T/twice-a.json" "$T/twice-b.json"
[ "$(json_get "$OUT" 'sorted((f["what"], f["a"], f["b"]) for f in d["facts"]), [(v["id"], v["a"], v["b"]) for v in d["verdicts"]]')" = \
	"[('GPU 0 #2', 'AMD Radeon RX 7900 XTX, gfx1100, 0000:09:00.0', 'AMD Radeon RX 7900 XTX, gfx1100, 0000:0a:00.0'), ('package kernel-devel #2', '2', '3')] [('system.twice', 'fail', 'warn')]" ] ||
	{ fail "the second of a key, compared with the second"; last; }
run any --json diff "$T/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz"
[ "$(json_get "$OUT" 'len(d["verdicts"])')" = 0 ] || { fail "a report and its bundle: no verdict differs"; last; }

# Health: a node that runs hot at idle against a healthy one. The health
# verdicts come apart from the others, each with the evidence that changed
# (the temperature, the power cap); the Xid 79 line of an NVIDIA node; a
# health verdict of GPU 1 is matched by (id, gpu), not taken for GPU 0's.
for f in amd-rx7900xtx-ubuntu2204-healthynoisy amd-rx7900xtx-ubuntu2204-hotidle amd-rx7900xtx-ubuntu2204-linkx4 \
	nvidia-rtx4090-ubuntu2204-healthynoisy nvidia-rtx4090-ubuntu2204-xid79; do
	"$ROCMCHECK" --sysroot "$FX/$f" --json doctor --level quick >"$T/$f.json"
done
noisy=$T/amd-rx7900xtx-ubuntu2204-healthynoisy.json
run 1 diff "$noisy" "$T/amd-rx7900xtx-ubuntu2204-hotidle.json"
assert_out_has "^Health verdicts that differ (3):$"
assert_out_lacks "^Verdicts that differ"
assert_out_has "^  health.thermal (gpu 0): pass → fail: 0000:03:00.0 (AMD Radeon RX 7900 XTX): junction at 106 °C"
assert_out_has "^    evidence that changed:$"
assert_out_has "^      /sys/bus/pci/devices/0000:03:00.0/hwmon/hwmon2/temp2_input: 45.0 °C (crit 110.0 °C) → 106.0 °C (crit 110.0 °C)$"
assert_out_has "^  health.power (gpu 0): pass → warn: "
assert_out_has "^      /sys/bus/pci/devices/0000:03:00.0/power_dpm_force_performance_level: auto → low$"
assert_out_has "^  health.bar (gpu 0): pass → warn: "
assert_out_lacks "no difference in the facts it reads"
run 1 --json diff "$noisy" "$T/amd-rx7900xtx-ubuntu2204-hotidle.json"
[ "$(json_get "$OUT" 'sorted((v["id"], v["gpu"], v["a"], v["b"], v["health"]) for v in d["verdicts"])')" = \
	"[('health.bar', 0, 'pass', 'warn', True), ('health.power', 0, 'pass', 'warn', True), ('health.thermal', 0, 'pass', 'fail', True)]" ] ||
	{ fail "health verdicts"; last; }
[ "$(json_get "$OUT" '[(e["a"], e["b"]) for v in d["verdicts"] if v["id"] == "health.thermal" for e in v["evidence"] if e["path"].endswith("temp2_input")]')" = \
	"[('45.0 °C (crit 110.0 °C)', '106.0 °C (crit 110.0 °C)')]" ] || { fail "the temperature in the JSON evidence"; last; }
run 1 diff "$noisy" "$T/amd-rx7900xtx-ubuntu2204-linkx4.json"
assert_out_has "^  health.pcie_link (gpu 0): pass → fail: .* trained at x4 though both ends support x16$"
assert_out_has "^      /sys/bus/pci/devices/0000:01:00.0/current_link_width: x16 of x16 (port 0000:00:01.1 x16), 16.0 of 16.0 GT/s → x4 of x16 (port 0000:00:01.1 x16), 16.0 of 16.0 GT/s$"
run 1 diff "$T/nvidia-rtx4090-ubuntu2204-healthynoisy.json" "$T/nvidia-rtx4090-ubuntu2204-xid79.json"
assert_out_has "^  health.kernel_log (gpu 0): pass → fail: .*Xid 79"
assert_out_has "^      /.rocmcheck/kernel.log line 7: (none) → NVRM: Xid (PCI:0000:01:00): 79, "
# two GPUs: B's GPU 1 runs hot, GPU 0 is unchanged
"$PYTHON" - "$noisy" "$T/two-a.json" "$T/two-b.json" <<'PY' || fail "two-GPU reports"
import copy, json, sys
d = json.load(open(sys.argv[1]))
g1 = dict(d["gpus"][0], index=1, pci="0000:43:00.0")
d["gpus"].append(g1)
d["checks"] += [dict(copy.deepcopy(c), gpu=1) for c in d["checks"] if c["category"] == "health" and c["gpu"] == 0]
json.dump(d, open(sys.argv[2], "w"))
for c in d["checks"]:
    if c["id"] == "health.thermal" and c["gpu"] == 1:
        c["status"] = "fail"
        c["evidence"][0]["value"] = "107.0 °C (crit 110.0 °C)"
json.dump(d, open(sys.argv[3], "w"))
PY
run 1 --json diff "$T/two-a.json" "$T/two-b.json"
[ "$(json_get "$OUT" '[(v["id"], v["gpu"], v["a"], v["b"], [e["b"] for e in v["evidence"]]) for v in d["verdicts"]]')" = \
	"[('health.thermal', 1, 'pass', 'fail', ['107.0 °C (crit 110.0 °C)'])]" ] || { fail "matched by (id, gpu)"; last; }

# Not inputs: exit 3; usage errors.
echo '{"schema": "rocmcheck.fleet/1"}' >"$T/other.json"
run 3 diff "$T/other.json" "$T/amd-rx7900xtx-ubuntu2204-healthy.json"
assert_err_has "not a rocmcheck.report/1 report"
run 3 diff "$T/nonexistent.json" "$T/amd-rx7900xtx-ubuntu2204-healthy.json"

# Hostile inputs: a report just over the 64 MiB cap (a real one, padded with
# JSON whitespace), a FIFO (opened without blocking: `timeout` turns a hang
# into a failure), a directory, a device: exit 3 with one line.
healthy=$T/amd-rx7900xtx-ubuntu2204-healthy.json
cp "$healthy" "$T/big.json"
head -c $((64 * 1024 * 1024 + 1 - $(stat -c %s "$T/big.json"))) /dev/zero | tr '\0' ' ' >>"$T/big.json"
mkfifo "$T/fifo.json"
mkdir "$T/dir.json"
printf '#!/bin/sh\nexec timeout 20 "%s" "$@"\n' "$ROCMCHECK" >"$T/timed"
chmod +x "$T/timed"
real=$ROCMCHECK
ROCMCHECK=$T/timed
for bad in "big.json:larger than 64 MiB, the most a report may be" "fifo.json:not a regular file (a FIFO)" \
	"dir.json:not a regular file (a directory)"; do
	run 3 diff "$healthy" "$T/${bad%%:*}"
	[ "$(cat "$ERR")" = "rocmcheck: diff: $T/${bad%%:*}: ${bad#*:}" ] || { fail "diff of ${bad%%:*}: one line"; last; }
	[ -s "$OUT" ] && fail "diff of ${bad%%:*}: nothing on stdout"
done
run 3 diff /dev/zero "$healthy"
[ "$(cat "$ERR")" = "rocmcheck: diff: /dev/zero: not a regular file (a character device)" ] || { fail "diff of a device"; last; }
ROCMCHECK=$real
usage_error diff "$T/other.json"
usage_error --sysroot "$FX/amd-rx7900xtx-ubuntu2204-healthy" diff "$T/other.json" "$T/other.json"
finish
