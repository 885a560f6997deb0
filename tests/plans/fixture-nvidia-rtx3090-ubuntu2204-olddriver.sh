#!/bin/sh
# rocmcheck plan for NVIDIA GeForce RTX 3090 (sm_86) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Note (cuda.toolkit): CUDA 12.4 needs NVIDIA driver 550.54.14 or newer:
# upgrade the driver (the command below installs the distribution's current
# one), then reboot, or use a CUDA build that this driver supports.
#   sudo apt-get update && sudo apt-get install -y ubuntu-drivers-common && sudo ubuntu-drivers install

# Note (framework.torch): CUDA 12.1 needs NVIDIA driver 530.30.02 or newer:
# upgrade the driver (the command below installs the distribution's current
# one), then reboot, or use a CUDA build that this driver supports.
#   sudo apt-get update && sudo apt-get install -y ubuntu-drivers-common && sudo ubuntu-drivers install

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
