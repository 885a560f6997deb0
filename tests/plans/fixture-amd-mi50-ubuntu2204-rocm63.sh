#!/bin/sh
# rocmcheck plan for AMD Instinct MI50 (gfx906) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.3. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (device.arch): Nothing to change now (no downgrade): ROCm 6.3 supports
# the AMD Instinct MI50. Upgrade no further than ROCm 6.3: from 6.4 on, ROCm
# and its rocBLAS no longer support gfx906.

# Nothing to do: no step is needed (the notes above say what a script cannot
# do).
