#!/bin/sh
# rocmcheck plan for AMD Instinct MI300X (gfx942) on Red Hat Enterprise Linux
# 9 (the machine rocmcheck read). Target: ROCm 6.3. Profile database
# 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (system.tuning): Automatic NUMA balancing moves pages under running GPU
# jobs: AMD's Instinct tuning guides turn it off.
#   sudo sysctl -w kernel.numa_balancing=0
#   echo kernel.numa_balancing=0 | sudo tee /etc/sysctl.d/90-gpu-numa.conf

# Note (health.kernel_log, health.ecc): GPU 0000:05:00.0 (AMD Instinct MI300X)
# has uncorrectable memory errors: drain the node, reset the GPU to retire the
# pages, and return it when they recur (AMD's service guide); attach a support
# bundle.
#   sudo amd-smi bad-pages
#   rocmcheck bundle --anonymize

# Note (health.partition): GPU 0000:05:00.0 (AMD Instinct MI300X) is in
# another partition mode than its peers: set every GPU of the node to one mode
# (SPX), with no job running (a memory-partition change needs a driver reload
# or reboot).

# Note (health.partition): GPU 0000:26:00.0 (AMD Instinct MI300X) is in CPX
# mode, which makes 8 GPUs of it, but KFD shows 1: the partition change did
# not complete (a process held the GPU) or some partitions failed to start,
# and ROCm sees the wrong GPU count. With no job on the GPU, set its compute
# partition to CPX again (amd-smi's set command) or reboot, then check that
# rocminfo lists 8 agents for 0000:26:00.0.

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
