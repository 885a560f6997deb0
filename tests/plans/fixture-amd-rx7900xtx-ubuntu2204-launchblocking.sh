#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Step 1 of 3 (env_clean_bashrc): Remove HIP_LAUNCH_BLOCKING from ~/.bashrc
# Fixes: env.launch_blocking
# Launch-serialising variables are set (HIP_LAUNCH_BLOCKING): they are
# debugging switches that make every kernel launch wait for the previous one,
# not tuning options. Unset them here and remove them from shell profiles and
# job scripts. A script cannot change the shell it was started from: unset
# them there yourself.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' ~/.bashrc; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' ~/.bashrc
fi
# By hand, in the shell you work in (a script cannot do it for you):
#   unset HIP_LAUNCH_BLOCKING

# Step 2 of 3 (env_clean_profile): Remove HIP_LAUNCH_BLOCKING from ~/.profile
# Fixes: env.launch_blocking
# So that new shells do not set them again.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' ~/.profile; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' ~/.profile
fi

# Step 3 of 3 (env_clean_environment): Remove HIP_LAUNCH_BLOCKING from
# /etc/environment
# Fixes: env.launch_blocking
# So that new shells do not set them again.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' /etc/environment; then
	sudo sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' /etc/environment
fi

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  unset HIP_LAUNCH_BLOCKING' >&2
