#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 24.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (system.kernel): Kernel 6.11.0-19-generic is not a series ROCm 6.2
# supports on Ubuntu 24.04 LTS (supported: 6.8). The amdgpu DKMS build fails
# on newer kernels: boot a supported kernel, or install ROCm without DKMS
# (amdgpu-install --no-dkms) to use the in-tree driver. An older kernel needs
# a newer series from the distribution (Ubuntu: its HWE kernel), not
# --no-dkms.

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
