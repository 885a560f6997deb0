#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Step 1 of 1 (env_set_ROCR_VISIBLE_DEVICES): Set ROCR_VISIBLE_DEVICES for
# every new shell (~/.profile)
# Fixes: device.arch, device.igpu, rocm.rocblas
# An integrated GPU is visible next to the discrete one: ROCm programs may
# pick it and crash or crawl. Restrict ROCm to the discrete GPU (index 0).
if ! grep -qsxF 'export ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f' ~/.profile; then
	printf '%s\n' 'export ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f' >> ~/.profile
fi
# By hand, in the shell you work in (a script cannot do it for you):
#   export ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  export ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f' >&2
