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

# Note (cuda.fabric_manager): Install NVIDIA Fabric Manager of exactly the
# driver's version (550.90.07) from NVIDIA's CUDA repository, hold it so that
# an upgrade cannot split it from the driver, and start it.
#   sudo apt-get update && sudo apt-get install -y --allow-downgrades nvidia-fabricmanager-550=550.90.07-1
#   sudo apt-mark hold nvidia-fabricmanager-550
#   sudo systemctl enable --now nvidia-fabricmanager

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
