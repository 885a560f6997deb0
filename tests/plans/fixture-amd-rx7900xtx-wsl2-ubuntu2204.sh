#!/bin/sh
# rocmcheck plan for this machine on Ubuntu 22.04 LTS (the machine rocmcheck
# read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Note (system.wsl): Under WSL there is no amdgpu kernel module: ROCm talks to
# the Windows driver through /dev/dxg. Install the Windows Adrenalin driver,
# then ROCm's WSL use case inside Linux.
#   sudo amdgpu-install -y --usecase=wsl,rocm --no-dkms

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
