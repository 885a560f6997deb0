#!/bin/sh
# rocmcheck plan for NVIDIA GeForce RTX 4090 (sm_89) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Note (system.container): Inside a container the NVIDIA device nodes must be
# passed in: run it with docker run --gpus all (the NVIDIA Container Toolkit
# on the host), under Podman with --device nvidia.com/gpu=all (CDI, after
# nvidia-ctk cdi generate on the host), or with --device for each of
# /dev/nvidiactl, /dev/nvidia0.

# Note (perm.nvidia): Inside a container the NVIDIA device nodes must be
# passed in: run it with docker run --gpus all (the NVIDIA Container Toolkit
# on the host), under Podman with --device nvidia.com/gpu=all (CDI, after
# nvidia-ctk cdi generate on the host), or with --device for each of
# /dev/nvidia0, /dev/nvidiactl, /dev/nvidia-uvm.

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
