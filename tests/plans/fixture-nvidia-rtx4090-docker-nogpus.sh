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

# Note (system.container): Inside a container the NVIDIA device nodes must be
# passed in: run it with docker run --gpus all (the NVIDIA Container Toolkit
# on the host), under Podman with --device nvidia.com/gpu=all (CDI, after
# nvidia-ctk cdi generate on the host: Podman's --gpus passes nothing), or
# with --device for each of /dev/nvidiactl, /dev/nvidia0. If docker run --gpus
# all says 'could not select device driver "" with capabilities: [[gpu]]', the
# toolkit is not configured for this Docker: on the host run sudo nvidia-ctk
# runtime configure --runtime=docker and restart Docker (Docker installed as a
# snap does not use it: install Docker's own packages).

# Note (perm.nvidia): Inside a container the NVIDIA device nodes must be
# passed in: run it with docker run --gpus all (the NVIDIA Container Toolkit
# on the host), under Podman with --device nvidia.com/gpu=all (CDI, after
# nvidia-ctk cdi generate on the host: Podman's --gpus passes nothing), or
# with --device for each of /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm. If
# docker run --gpus all says 'could not select device driver "" with
# capabilities: [[gpu]]', the toolkit is not configured for this Docker: on
# the host run sudo nvidia-ctk runtime configure --runtime=docker and restart
# Docker (Docker installed as a snap does not use it: install Docker's own
# packages).

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
