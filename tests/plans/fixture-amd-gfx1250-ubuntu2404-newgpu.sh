#!/bin/sh
# rocmcheck plan for AMD GPU gfx1250 (1002:75ff) (gfx1250) on Ubuntu 24.04 LTS
# (the machine rocmcheck read). Target: ROCm 7.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (device.arch, rocm.rocblas, framework.torch): The profile database
# (2026.11.29) is older than this machine's GPU (gfx1250): it cannot say
# whether that is supported, so it is not judged by the older releases the
# database knows (and nothing is downgraded to them). Update the database and
# run rocmcheck again.
#   rocmcheck profiles update

# Note (rocm.version): The profile database (2026.11.29) is older than this
# machine's amdgpu DKMS driver 6.20.2: it cannot say whether that is
# supported, so it is not judged by the older releases the database knows (and
# nothing is downgraded to them). Update the database and run rocmcheck again.
#   rocmcheck profiles update

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
