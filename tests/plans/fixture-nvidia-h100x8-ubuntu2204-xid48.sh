#!/bin/sh
# rocmcheck plan for NVIDIA H100 80GB HBM3 (sm_90) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (health.kernel_log): GPU 0000:1b:00.0 (NVIDIA H100 80GB HBM3) logged
# Xid 48: NVIDIA's action is a GPU reset. Stop the processes using it and
# reset it. If it recurs, drain the node and return the GPU with a support
# bundle.
#   sudo nvidia-smi -r -i 0000:1b:00.0
#   rocmcheck bundle --anonymize

# Note (health.kernel_log): GPU 0000:29:00.0 (NVIDIA H100 80GB HBM3) logged
# Xid 63: NVIDIA documents it as the application's error (restart the
# application), not the GPU's. Look at the program if it recurs across
# different jobs.

# Note (health.kernel_log): GPU 0000:3b:00.0 (NVIDIA H100 80GB HBM3) logged
# Xid 64: NVIDIA's action is a GPU reset. Stop the processes using it and
# reset it. If it recurs, drain the node and return the GPU with a support
# bundle.
#   sudo nvidia-smi -r -i 0000:3b:00.0
#   rocmcheck bundle --anonymize

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
