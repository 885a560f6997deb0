#!/bin/bash
# Advice that fits the machine (issue 24, class 5): routes that exist there.
#   - NVIDIA-only fixtures: no ROCm/AMD/amdgpu/HIP wording in any judged
#     result's summary or fix (system.os and system.kernel included), in the
#     text report or in the plan; AMD-only fixtures: no NVIDIA wording in the
#     system, driver and device results.
#   - Container fixtures (docker, podman): no reboot, kernel, headers, DKMS,
#     modprobe, GRUB, MOK or initramfs command in the doctor's fixes or in the
#     plan; a host-side fix says so and names the run flags to recreate the
#     container with. Also on two variants made here: an image without ROCm
#     (its install route takes no DKMS, no headers, no reboot) and an NVIDIA
#     container whose host driver was updated without a reboot.
#   - An iGPU beside a dGPU: the firmware-setup option is offered beside the
#     visible-devices variable.
. "$(dirname "$0")/lib.sh"

FIXDIR=$TESTS_DIR/fixtures

# scan JSON VENDOR_ABSENT REGEX [ID_PREFIXES]: print every judged (not
# skipped) result's summary, fix text, command or manual that matches REGEX,
# unless the report lists a GPU of VENDOR_ABSENT (the wording is then right).
cat >"$T/scan.py" <<'EOF'
import json, re, sys
doc = json.load(open(sys.argv[1]))
if any(g.get("vendor") == sys.argv[2] for g in doc.get("gpus") or []):
    sys.exit(0)
pat = re.compile(sys.argv[3])
prefixes = tuple(sys.argv[4].split(",")) if len(sys.argv) > 4 else ("",)
for c in doc["checks"]:
    if c["status"] == "skip" or not c["id"].startswith(prefixes):
        continue
    fx = c.get("fix") or {}
    for what, t in [("summary", c.get("summary")), ("fix", fx.get("text")), ("manual", fx.get("manual"))] + \
            [("command", x) for x in fx.get("commands") or []]:
        if t and pat.search(t):
            print("%s %s: %s" % (c["id"], what, t[:200]))
EOF
# host CHECK JSON: the fix commands and reboot flags of a container report.
cat >"$T/host.py" <<'EOF'
import json, re, sys
pat = re.compile(sys.argv[2])
for c in json.load(open(sys.argv[1]))["checks"]:
    fx = c.get("fix") or {}
    if fx.get("reboot"):
        print("%s: fix reboots" % c["id"])
    for x in fx.get("commands") or []:
        if pat.search(x):
            print("%s: %s" % (c["id"], x))
EOF

AMD_WORDS='\bROCm\b|\bAMD\b|\bamdgpu\b|\bHIP\b|Radeon|Instinct|\bKFD\b|/dev/kfd'
HOST_CMDS='\breboot\b|modprobe|(^|[^-])\bdkms\b|amdgpu-dkms|update-grub|grub2-mkconfig|grubby|mokutil|update-initramfs|dracut|apt-get install.* linux-(headers|modules|image)'

# nvidia_only FIXTURE: no AMD wording where the report lists no AMD GPU
nvidia_only() {
	local fx=$FIXDIR/$1 hits
	run any --sysroot "$fx" doctor --json
	cp "$OUT" "$T/report.json"
	hits=$("$PYTHON" "$T/scan.py" "$T/report.json" amd "$AMD_WORDS")
	[ -z "$hits" ] || fail "$1: AMD wording in the report: $hits"
	"$PYTHON" -c 'import json,sys; sys.exit(any(g.get("vendor")=="amd" for g in json.load(open(sys.argv[1])).get("gpus") or []))' \
		"$T/report.json" || return 0
	run any --sysroot "$fx" doctor
	grep -E "$AMD_WORDS" "$OUT" | grep -v '^rocmcheck ' >"$T/hits"
	[ -s "$T/hits" ] && fail "$1: AMD wording in the text report: $(head -3 "$T/hits")"
	run any --sysroot "$fx" plan
	grep -E "$AMD_WORDS" "$OUT" "$ERR" >"$T/hits"
	[ -s "$T/hits" ] && fail "$1: AMD wording in the plan: $(head -3 "$T/hits")"
	return 0
}

# in_container SYSROOT NAME: no host-side command anywhere
in_container() {
	local hits
	run any --sysroot "$1" doctor --json
	cp "$OUT" "$T/report.json"
	hits=$("$PYTHON" "$T/host.py" "$T/report.json" "$HOST_CMDS")
	[ -z "$hits" ] || fail "$2: a host-side command in the container's fixes: $hits"
	run any --sysroot "$1" plan
	grep -v '^[[:space:]]*#' "$OUT" | grep -v "^[[:space:]]*echo '" | grep -E "$HOST_CMDS|reboot_needed=yes" >"$T/hits"
	[ -s "$T/hits" ] && fail "$2: a host-side step in the container's plan: $(head -3 "$T/hits")"
	return 0
}

n=0
for fx in "$FIXDIR"/nvidia-*/; do
	nvidia_only "$(basename "$fx")"
	n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "only $n NVIDIA fixtures"

for fx in "$FIXDIR"/amd-*/; do
	run any --sysroot "$fx" doctor --json
	cp "$OUT" "$T/report.json"
	hits=$("$PYTHON" "$T/scan.py" "$T/report.json" nvidia '\bNVIDIA\b|\bCUDA\b' system.,driver.,device.)
	[ -z "$hits" ] || fail "$(basename "$fx"): NVIDIA wording in the report: $hits"
done

n=0
for fx in "$FIXDIR"/*-docker-*/ "$FIXDIR"/*-podman-*/; do
	in_container "$fx" "$(basename "$fx")"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n container fixtures"

# The host's driver is not loaded (ROCm/ROCm-docker#107): the fix is the
# host's, by hand, and the container recreated with its device flags.
run 1 --sysroot "$FIXDIR/amd-rx7900xtx-docker-hostnoamdgpu" doctor --only driver.amdgpu
assert_out_has "runs on the host's kernel and amdgpu driver"
assert_out_has 'On the host, by hand: The amdgpu kernel module is not loaded'
assert_out_has 'recreate the container with docker run (or podman run) --device /dev/kfd --device /dev/dri'
assert_out_lacks '^ *sudo modprobe'
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-docker-hostnoamdgpu" plan
assert_out_has '^# Note (driver.amdgpu[^)]*): This container runs on the host'
assert_out_lacks '^plan_steps=.*kernel_headers'

# An image without ROCm: the user space only, never the DKMS driver.
cp -a "$FIXDIR/amd-rx7900xtx-docker-healthy" "$T/norocm"
rm -rf "$T"/norocm/opt/rocm*
in_container "$T/norocm" "docker-healthy without ROCm"
run 0 --sysroot "$T/norocm" plan
assert_out_has 'amdgpu-install -y --usecase=rocm --no-dkms$'

# The host's NVIDIA driver updated without a reboot (module 550.90.07, the
# libraries the toolkit mounts 550.54.14): a host-side reboot, stated so.
cp -a "$FIXDIR/nvidia-rtx4090-docker-healthy" "$T/nvmismatch"
sed -i 's/550\.54\.14/550.90.07/' "$T/nvmismatch/proc/driver/nvidia/version" "$T/nvmismatch/sys/module/nvidia/version"
in_container "$T/nvmismatch" "docker-healthy with a driver mismatch"
run 1 --sysroot "$T/nvmismatch" doctor --only driver.nvidia
assert_out_has "runs on the host's kernel and NVIDIA driver"
assert_out_has 'recreate the container with docker run --gpus all (Podman: --device nvidia.com/gpu=all'

# iGPU beside a dGPU: the variable, and the firmware option by hand.
run 0 --sysroot "$FIXDIR/amd-igpu-rx7900xtx-ubuntu2204-visible" doctor --only device.igpu
assert_out_has 'export ROCR_VISIBLE_DEVICES=GPU-'
assert_out_has 'by hand in the firmware (UEFI/BIOS) setup'
run 0 --sysroot "$FIXDIR/amd-igpu-rx7900xtx-ubuntu2204-visible" plan
assert_out_has '^# .*firmware (UEFI/BIOS) setup'

finish
