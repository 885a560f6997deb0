#!/bin/sh
# rocmcheck plan for NVIDIA GeForce RTX 4090 (sm_89) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (health.kernel_log): GPU 0000:01:00.0 (NVIDIA GeForce RTX 4090) logged
# Xid 31: NVIDIA documents it as the application's error (restart the
# application), not the GPU's. Look at the program if it recurs across
# different jobs.

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
