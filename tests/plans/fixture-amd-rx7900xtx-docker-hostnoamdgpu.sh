#!/bin/sh
# rocmcheck plan for this machine on Ubuntu 22.04 LTS (the machine rocmcheck
# read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (system.container): Inside a container the GPU device nodes must be
# passed in: recreate the container with docker run (or podman run) --device
# /dev/kfd --device /dev/dri --group-add video --group-add render (on SELinux
# hosts also, on the host: setsebool -P container_use_devices 1).

# Note (driver.amdgpu, device.present): This container runs on the host's
# kernel and amdgpu driver: nothing done inside it changes them. On the host,
# by hand: The amdgpu kernel module is not loaded on kernel 6.8.0-40-generic.
# Install this kernel's headers and extra modules, load it, and read dmesg if
# it still fails. There: `sudo apt-get install -y
# linux-headers-6.8.0-40-generic linux-modules-extra-6.8.0-40-generic`, then
# `sudo modprobe amdgpu`, then `sudo dmesg | grep -i -e amdgpu -e kfd | tail
# -n 20`. Then recreate the container with docker run (or podman run) --device
# /dev/kfd --device /dev/dri --group-add video --group-add render (and
# --shm-size=8g or --ipc=host for PyTorch).

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
