#!/bin/sh
# rocmcheck plan for AMD Radeon RX 6700 XT (gfx1031) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Step 1 of 1 (env_set_HSA_OVERRIDE_GFX_VERSION): Set HSA_OVERRIDE_GFX_VERSION
# for every new shell (~/.profile)
# Fixes: device.arch, rocm.rocblas, framework.torch
# gfx1031 is not in the installed ROCm's list, but its family runs code built
# for 10.3.0, and HSA_OVERRIDE_GFX_VERSION makes the runtime use that code.
# The override is a debugging aid AMD does not support: some kernels may fail.
# The per-node form (HSA_OVERRIDE_GFX_VERSION_ and the GPU's KFD node id)
# applies to one GPU only and needs ROCm 6.2 or newer. Add the line to your
# shell profile to keep it.
if ! grep -qsxF 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' ~/.profile; then
	printf '%s\n' 'export HSA_OVERRIDE_GFX_VERSION=10.3.0' >> ~/.profile
fi
# By hand, in the shell you work in (a script cannot do it for you):
#   export HSA_OVERRIDE_GFX_VERSION=10.3.0

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  export HSA_OVERRIDE_GFX_VERSION=10.3.0' >&2
