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

# Note (perm.nvidia): This container lost its NVIDIA devices: /dev/nvidia0,
# /dev/nvidiactl, /dev/nvidia-uvm are here but its device cgroup refuses them
# (nvidia-smi: "Failed to initialize NVML: Unknown Error"). The host's systemd
# rewrote the container's device rules (systemctl daemon-reload with the
# systemd cgroup driver) and dropped the NVIDIA nodes, which have no
# /dev/char/MAJOR:MINOR links on the host (a host fact this container cannot
# see). Recreate the container to get them back. To keep it from recurring, on
# the host run sudo nvidia-ctk system create-dev-char-symlinks --create-all
# and at every boot (a udev rule in
# /lib/udev/rules.d/71-nvidia-dev-char.rules), or pass the nodes with --device
# as well, or give Docker the cgroupfs driver ("exec-opts":
# ["native.cgroupdriver=cgroupfs"]).

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
