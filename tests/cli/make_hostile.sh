#!/bin/bash
# make_hostile.sh DIR: build a hostile sysroot in DIR (created; must not exist
# or be empty). Everything a reader could trip over: binary garbage, empty
# files, numbers that overflow uint64, missing newlines, links that point out
# of the root (absolute and through ".."), a 50 MiB sparse file where a small
# sysfs file is expected, a directory where a file is expected, a FIFO, link
# loops, and a host.ini with a malformed line.
#
# Built at test time (FIFOs and 50 MiB files do not belong in git). The
# sparse files use no disk blocks.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
root=$1
mkdir -p "$root"
if [ -n "$(ls -A "$root")" ]; then
	echo "$0: $root is not empty" >&2
	exit 2
fi
cd "$root"

# Deterministic binary garbage: NULs, high bytes, escapes, CRs, no newline at the end.
garbage() {
	printf 'ID=\377\376\000ubuntu\033[31m\r\nVERSION_ID="\000\001\002\nPRETTY_NAME="unterminated\134'
	printf '\200\201\202\203\204\205\206\207\210\211\212\213\214\215\216\217'
	printf '%s' "$(printf 'x%.0s' $(seq 1 300))"
	printf '\000\000\000=\000=\n===\n"\n'"'"'\n\134'
}

# ---- /etc, /usr/lib: os-release is garbage, the fallback is an out-of-root link
mkdir -p etc usr/lib
garbage >etc/os-release
ln -s /etc/os-release usr/lib/os-release

# ---- /proc
mkdir -p proc/sys/kernel proc/driver/nvidia proc/1
: >proc/version                                      # empty
printf '%s' "$(printf 'A%.0s' $(seq 1 5000))" >proc/cmdline   # 5000 bytes, no newline
garbage >proc/modules
ln -s /proc/self/status proc/cpuinfo                 # absolute: must be re-rooted, not followed to the host
mkdir proc/sys/kernel/osrelease                      # a directory where a file is expected
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  \n' >proc/driver/nvidia/version
ln -s ../../../../../../../../../../proc/1/cgroup proc/1/cgroup   # ".." climbing past the root: clamps to itself, a loop

# ---- KFD topology
kfd=sys/devices/virtual/kfd/kfd
mkdir -p sys/class/kfd "$kfd/topology/nodes"
ln -s ../../devices/virtual/kfd/kfd sys/class/kfd/kfd
nodes=$kfd/topology/nodes
printf '18446744073709551616' >"$kfd/topology/generation_id"  # overflows uint64, no newline

# 0: empty files
mkdir -p "$nodes/0/mem_banks/0"
: >"$nodes/0/gpu_id"
: >"$nodes/0/properties"
: >"$nodes/0/mem_banks/0/properties"

# 1: binary garbage
mkdir -p "$nodes/1"
garbage >"$nodes/1/properties"
printf 'not-a-number' >"$nodes/1/gpu_id"

# 2: numbers that overflow, a zero divisor (simd_per_cu 0), negative values, no final newline
mkdir -p "$nodes/2/mem_banks/0"
printf '1234\n' >"$nodes/2/gpu_id"
printf 'cpu_cores_count 0\nsimd_count 18446744073709551616\nsimd_per_cu 0\n'\
'gfx_target_version 99999999999999999999999\nvendor_id 4098\ndevice_id -1\n'\
'location_id 340282366920938463463374607431768211456\ndomain 4294967296\n'\
'drm_render_minor -5\nlocal_mem_size 18446744073709551615\n'\
'unique_id 0x1234\nnum_xcc 0\nmax_engine_clk_fcompute 1e309\n'\
'gfx_target_version\n  \nsimd_count 64 extra words here\nkey_with_no_value' >"$nodes/2/properties"
printf 'heap_type 1\nsize_in_bytes 184467440737095516160\nflags 0\nwidth 99999999999999999999' \
	>"$nodes/2/mem_banks/0/properties"

# 3: a directory where a file is expected
mkdir -p "$nodes/3/properties" "$nodes/3/gpu_id"

# 4: a FIFO where a file is expected (a blocking read would hang forever)
mkdir -p "$nodes/4"
printf '4444\n' >"$nodes/4/gpu_id"
mkfifo "$nodes/4/properties"

# 5: a 50 MiB sparse file where a few hundred bytes are expected
mkdir -p "$nodes/5"
printf '5555\n' >"$nodes/5/gpu_id"
truncate -s 50M "$nodes/5/properties"

# 6, 7: links out of the root, absolute and relative
mkdir -p "$nodes/6" "$nodes/7"
ln -s /etc/passwd "$nodes/6/properties"
ln -s ../../../../../../../../../../etc/shadow "$nodes/7/properties"
ln -s /etc/hostname "$nodes/6/gpu_id"

# 8: link loops
mkdir -p "$nodes/8"
ln -s properties.b "$nodes/8/properties"
ln -s properties "$nodes/8/properties.b"
ln -s gpu_id "$nodes/8/gpu_id"

# 9: a plausible GPU (gfx1100) so that the checks have something to judge,
#    with CRLF line ends, tabs, duplicate keys and no final newline
mkdir -p "$nodes/9/mem_banks/0"
printf '9999' >"$nodes/9/gpu_id"
printf 'cpu_cores_count 0\r\nsimd_count\t192\r\nsimd_per_cu 2\r\ngfx_target_version 110000\r\n'\
'gfx_target_version 90010\r\nvendor_id 4098\r\ndevice_id 29772\r\nlocation_id 768\r\ndomain 0\r\n'\
'drm_render_minor 128\r\nlocal_mem_size 0' >"$nodes/9/properties"
printf 'heap_type 1\nsize_in_bytes 25753026560' >"$nodes/9/mem_banks/0/properties"

# odd node directory names
mkdir -p "$nodes/99999999999999999999999" "$nodes/-1" "$nodes/x"
ln -s /tmp "$nodes/10"                               # a node that is a link out of the root
ln -s . "$nodes/11"                                  # a node that is a link to its parent

# ---- PCI
dev=sys/devices/pci0000:00/0000:00:01.1/0000:03:00.0
mkdir -p "$dev" sys/bus/pci/devices sys/bus/pci/drivers/amdgpu
ln -s ../../../devices/pci0000:00/0000:00:01.1/0000:03:00.0 sys/bus/pci/devices/0000:03:00.0
printf '0x1002' >"$dev/vendor"                       # no newline
printf '0x744c\n' >"$dev/device"
printf '0x030000\n' >"$dev/class"
printf '0xZZZZ\n' >"$dev/subsystem_vendor"
: >"$dev/subsystem_device"
printf '18446744073709551616\n' >"$dev/mem_info_vram_total"
printf -- '-1\n' >"$dev/mem_info_gtt_total"
truncate -s 50M "$dev/mem_info_vram_used"
mkfifo "$dev/current_link_speed"
ln -s ../../../../../../../../../../../../bus/pci/drivers/amdgpu "$dev/driver"
mkdir -p "$dev/drm/renderD128"
ln -s ../.. "$dev/drm/renderD128/device"
mkdir -p sys/class/drm
ln -s ../../devices/pci0000:00/0000:00:01.1/0000:03:00.0/drm/renderD128 sys/class/drm/renderD128
ln -s /dev/null sys/class/drm/renderD129             # absolute, out of the root
ln -s renderD130 sys/class/drm/renderD130            # self loop
# a PCI "device" that is a link out of the root, one that is a garbage file, one with a huge name
ln -s ../../../../../../../../../../../tmp sys/bus/pci/devices/0000:04:00.0
garbage >sys/bus/pci/devices/0000:05:00.0
mkdir -p "sys/bus/pci/devices/$(printf 'f%.0s' $(seq 1 250))"

# ---- drivers
mkdir -p sys/module/amdgpu sys/module/nvidia
mkfifo sys/module/amdgpu/initstate
truncate -s 50M sys/module/amdgpu/version
garbage >sys/module/nvidia/version

# ---- Secure Boot: a variable shorter than its 4-byte attribute header
mkdir -p sys/firmware/efi/efivars
printf '\006\000\000' >sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c

# ---- ROCm: link loop, bad versions, a file where the library directory is expected
mkdir -p opt/rocm-6.2.0/.info opt/rocm-6.2.0/lib/rocblas opt/rocm-9/.info \
	opt/rocm-6.3.0/include/rocm-core etc/alternatives
ln -s /etc/alternatives/rocm opt/rocm
ln -s /opt/rocm etc/alternatives/rocm                # /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm
printf '6.99999999999999999999.0-1\n' >opt/rocm-6.2.0/.info/version
garbage >opt/rocm-9/.info/version
: >opt/rocm-6.2.0/lib/rocblas/library                # a file, not a directory
ln -s /etc/passwd opt/rocm-6.2.0/lib/libamdhip64.so.6
printf '#define ROCM_VERSION_MAJOR 99999999999999999999\n#define ROCM_VERSION_MINOR\n' \
	>opt/rocm-6.3.0/include/rocm-core/rocm_version.h
mkdir -p "opt/rocm-$(printf '9%.0s' $(seq 1 40)).0.0"

# ---- DKMS: a loop
mkdir -p var/lib/dkms
ln -s /var/lib/dkms/amdgpu var/lib/dkms/amdgpu

# ---- CUDA: truncated JSON, a loop
mkdir -p usr/local/cuda-12.4
printf '{ "cuda" : { "name" : "CUDA SDK", "version" : ' >usr/local/cuda-12.4/version.json
ln -s /usr/local/cuda usr/local/cuda
printf '{"cuda": {"version": 12.4}}' >usr/local/cuda-12.4/version.json.bak

# ---- Python frameworks
site=home/alice/venv/lib/python3.10/site-packages
mkdir -p "$site/torch" "$site/torch-2.4.0+rocm6.1.dist-info" "$site/tensorflow"
printf "__version__ = '2.4.0\000+rocm6.1\nhip: Optional[str] = '\377\376\ncuda = None\ncuda = '12.1'\nhip = \"" \
	>"$site/torch/version.py"
truncate -s 50M "$site/torch-2.4.0+rocm6.1.dist-info/METADATA"
ln -s /usr/lib/python3/dist-packages/tensorflow "$site/tensorflow/__init__.py"
mkdir -p "$site/torch/lib"
ln -s /lib/x86_64-linux-gnu/libc.so.6 "$site/torch/lib/libamdhip64.so"
mkdir -p home/alice/.local/lib
ln -s / home/alice/.local/lib/python3.10             # a site directory that is the host's root

# ---- WSL / container markers that point outside
mkdir -p usr/lib/wsl
ln -s /usr/lib usr/lib/wsl/lib
ln -s /etc/hostname .dockerenv

# ---- host.ini: a malformed line (must be reported as host.ini:LINE), odd values
mkdir -p .rocmcheck
cat >.rocmcheck/host.ini <<'EOF'
[capture]
format = 1
source = hand-made hostile sysroot (tests/cli/make_hostile.sh)

[uname]
sysname = Linux
release = 6.99999999999999999999.0-generic
machine = x86_64
this line is malformed: it has no equals sign
nodename = hostile

[user]
name = alice
uid = 99999999999999999999
gid = -1
groups =
home = /home/alice

[env]
VIRTUAL_ENV = /home/alice/venv
HSA_OVERRIDE_GFX_VERSION = 99999999999.0.0
HSA_OVERRIDE_GFX_VERSION_99999999999999999999 = 11.0.0
ROCR_VISIBLE_DEVICES = ,,,-1,99999999999999999999,GPU-
HIP_LAUNCH_BLOCKING = yes

[device /dev/kfd]
type = char
mode = 99999
owner =
group = render
access = sometimes

[device ../../etc/passwd]
type = char
access = rw

[unknown section
EOF
