#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Note (system.tuning): This container's /dev/shm is 64 MiB: PyTorch
# DataLoader workers share batches through it and die with "Bus error". Start
# the container with --shm-size=8g or --ipc=host (Kubernetes: an emptyDir with
# medium Memory at /dev/shm).

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
