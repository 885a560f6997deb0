#!/bin/sh
# rocmcheck plan for AMD Instinct MI210 (gfx90a) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.3. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Step 1 of 3 (env_clean_bashrc): Remove HSA_OVERRIDE_GFX_VERSION from
# ~/.bashrc
# Fixes: env.hsa_override
# HSA_OVERRIDE_GFX_VERSION makes the runtime load code built for another
# target than this GPU's own, which it does not need or which is of another
# family: kernels fault. Remove it here and from shell profiles and service
# files. A script cannot change the shell it was started from: unset them
# there yourself.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' ~/.bashrc; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' ~/.bashrc
fi
# By hand, in the shell you work in (a script cannot do it for you):
#   unset HSA_OVERRIDE_GFX_VERSION

# Step 2 of 3 (env_clean_profile): Remove HSA_OVERRIDE_GFX_VERSION from
# ~/.profile
# Fixes: env.hsa_override
# So that new shells do not set them again.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' ~/.profile; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' ~/.profile
fi

# Step 3 of 3 (env_clean_environment): Remove HSA_OVERRIDE_GFX_VERSION from
# /etc/environment
# Fixes: env.hsa_override
# So that new shells do not set them again.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' /etc/environment; then
	sudo sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' /etc/environment
fi

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  unset HSA_OVERRIDE_GFX_VERSION' >&2
