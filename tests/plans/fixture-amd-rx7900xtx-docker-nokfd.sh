#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (system.container, driver.kfd): Inside a container the GPU device nodes
# must be passed in: recreate the container with docker run (or podman run)
# --device /dev/kfd --device /dev/dri --group-add video --group-add render (on
# SELinux hosts also, on the host: setsebool -P container_use_devices 1).

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
