#!/bin/bash
# GPU names from libdrm's amdgpu.ids and pci.ids (README "GPU names"): the
# built-in copies name an MI300X VF and a Radeon 780M that no profile model
# knows; a machine's own pci.ids (over 1 MiB, as the real one is) names a GPU
# nothing else does and is read only up to the vendors asked about; a bundle
# keeps only the lines that name the machine's GPUs, and its replay names
# them the same.
. "$(dirname "$0")/lib.sh"

FIXDIR=$TESTS_DIR/fixtures

run 0 --sysroot "$FIXDIR/amd-mi300xvf-rhel94-sriov" devices
assert_out_has "^0   amd     AMD Instinct MI300X VF  "
assert_out_lacks "AMD GPU gfx942"
run any --sysroot "$FIXDIR/amd-radeon780m-ubuntu2204-apu" devices
assert_out_has "^0   amd     AMD Radeon 780M Graphics (integrated)  "
# one PCI id, two boards: the revision (and CUs) tell them apart
run 0 --sysroot "$FIXDIR/amd-rx7900xt-ubuntu2204-healthy" devices
assert_out_has "^0   amd     AMD Radeon RX 7900 XT  "
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-ubuntu2204-healthy" devices
assert_out_has "^0   amd     AMD Radeon RX 7900 XTX  "

# The gfx90c iGPU (1002:1638) has no amdgpu.ids row and no profile model:
# the machine's pci.ids names it, its subsystem line first.
M=$T/machine
cp -a "$FIXDIR/nvidia-rtx4090-ubuntu2204-gfx90cigpu" "$M"
sub=$(cat "$M"/sys/bus/pci/devices/0000:13:00.0/subsystem_vendor "$M"/sys/bus/pci/devices/0000:13:00.0/subsystem_device |
	sed 's/^0x//' | tr '\n' ' ' | sed 's/ $//')
mkdir -p "$M/usr/share/misc"
"$PYTHON" - "$M/usr/share/misc/pci.ids" "$sub" <<'PY'
import sys
out, sub = sys.argv[1], sys.argv[2]
with open(out, "w") as f:
    f.write("# a pci.ids of the real one's size\n0001  First vendor\n")
    for i in range(0x0002, 0x1002):
        f.write("%04x  Vendor %d\n\t0001  A device of it\n" % (i, i))
    f.write("1002  Advanced Micro Devices, Inc. [AMD/ATI]\n")
    f.write("\t1638  Cezanne [Radeon Vega Series / Radeon Vega Mobile Series]\n")
    f.write("\t\t1002 ffff  Another board\n\t\t%s  Cezanne of this machine\n" % sub)
    for i in range(0x1003, 0x10de):
        f.write("%04x  Vendor %d\n\t0001  A device of it\n" % (i, i))
    f.write("10de  NVIDIA Corporation\n\t2684  AD102 [GeForce RTX 4090]\n")
    for i in range(0x10df, 0xfff0):
        f.write("%04x  Vendor %d\n\t0001  A device of it\n" % (i, i))
PY
size=$(wc -c <"$M/usr/share/misc/pci.ids")
[ "$size" -gt 1048576 ] || fail "the test's pci.ids is only $size bytes"
run 0 --sysroot "$M" devices
assert_out_has "^0   amd     Cezanne of this machine (integrated)  "
assert_out_has "^1   nvidia  NVIDIA GeForce RTX 4090  "

# the bundle keeps the lines that name the machine's GPUs (not 2 MiB, and
# not the empty stand-in of a file over the 1 MiB a bundle copies)
run 0 --sysroot "$M" bundle --level quick -o "$T/b.tar.gz"
mkdir "$T/b"
tar -C "$T/b" -xzf "$T/b.tar.gz" || fail "bundle does not unpack"
kept=$T/b/sysroot/usr/share/misc/pci.ids
if [ -f "$kept" ]; then
	[ "$(cat "$kept")" = "$(printf '1002  Advanced Micro Devices, Inc. [AMD/ATI]\n\t1638  Cezanne [Radeon Vega Series / Radeon Vega Mobile Series]\n\t\t%s  Cezanne of this machine\n10de  NVIDIA Corporation\n\t2684  AD102 [GeForce RTX 4090]' "$sub")" ] ||
		{ fail "the bundle's pci.ids holds more or less than the GPU's lines"; cat "$kept" >&2; }
else
	fail "the bundle has no pci.ids"
fi
run 0 --replay "$T/b.tar.gz" devices
assert_out_has "^0   amd     Cezanne of this machine (integrated)  "

finish
