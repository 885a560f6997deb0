#!/bin/sh
# rocmcheck plan for AMD Instinct MI210 (gfx90a) on Red Hat Enterprise Linux 8
# (the machine rocmcheck read). Target: ROCm 6.3. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Nothing to do: no problem found that needs a step.
