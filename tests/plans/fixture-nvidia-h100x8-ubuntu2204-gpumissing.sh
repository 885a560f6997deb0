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

# Note (device.present): 1 GPU of the 8 that /etc/slurm/gres.conf:3 expects is
# not on PCI: fallen off the bus, without power, or its link did not train.
# Drain the node; check the BMC's event log, reseat the GPU and its riser or
# cables, and power-cycle the node (a cold boot, not a reboot).

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
