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

# Note (perm.kfd): rocm-user is not in GID 993, which owns /dev/kfd in this
# container (the host's render or video group: the image may call that GID
# something else, or nothing). Groups inside a container come from how it is
# started, not from group changes made in the image: start it with --group-add
# 993 (Kubernetes: securityContext.supplementalGroups: [993]). On the host,
# getent group render prints that GID.

# Note (perm.render): rocm-user is not in GID 993, which owns
# /dev/dri/renderD128 in this container (the host's render or video group: the
# image may call that GID something else, or nothing). Groups inside a
# container come from how it is started, not from group changes made in the
# image: start it with --group-add 993 (Kubernetes:
# securityContext.supplementalGroups: [993]). On the host, getent group render
# prints that GID.

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
