#!/bin/sh
# rocmcheck plan for NVIDIA L40S (sm_89) on Ubuntu 22.04 LTS (the machine
# rocmcheck read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (health.bar): GPU 0000:01:00.0 (NVIDIA L40S): BAR1, the CPU's window on
# its VRAM, is only 256 MiB of 49152 MiB: peer-to-peer and GPUDirect RDMA
# transfers go through the small window or fail. In the firmware setup, enable
# "Above 4G Decoding" and "Re-Size BAR Support" (in a VM: give the guest a
# 64-bit MMIO window larger than the GPU's memory); a board with a display
# mode (L40S, A40) gets its large BAR1 in compute mode, set with NVIDIA's
# Display Mode Selector. Then boot again.

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
