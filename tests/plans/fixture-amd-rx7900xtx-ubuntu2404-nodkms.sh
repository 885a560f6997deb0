#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 24.04 LTS (the
# machine rocmcheck read). Target: ROCm 7.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

# Note (system.kernel): Kernel 6.18.14-061814-generic is not a series ROCm 7.2
# supports on Ubuntu 24.04 LTS (supported: 6.8, 6.14). The amdgpu DKMS build
# fails on newer kernels: boot a supported kernel, or install ROCm without
# DKMS (amdgpu-install --no-dkms) to use the in-tree driver.

reboot_needed=no

# Step 1 of 1 (rocm_install): Install ROCm 7.2 [reboot]
# Fixes: rocm.install
# No HIP runtime is installed. Install ROCm 7.2 for Ubuntu 24.04 LTS with the
# commands below. Reboot afterwards: the amdgpu driver it builds is loaded at
# the next boot.
if ! dpkg-query -W -f='${Version}' rocm-core 2>/dev/null | grep -q '^7\.2\.'; then
	sudo apt-get update
	sudo apt-get install -y wget
	rocm_dl=$(mktemp -d)
	wget -O "$rocm_dl/amdgpu-install.deb" https://repo.radeon.com/amdgpu-install/7.2/ubuntu/noble/amdgpu-install_7.2.70200-1_all.deb
	dpkg-deb --field "$rocm_dl/amdgpu-install.deb" Package | grep -qx amdgpu-install
	sudo apt-get install -y "$rocm_dl/amdgpu-install.deb"
	rm -rf "$rocm_dl"
	sudo amdgpu-install -y --usecase=rocm --no-dkms
	reboot_needed=yes
fi

if [ "$reboot_needed" = yes ]; then
	echo 'rocmcheck plan: reboot to finish (sudo reboot)' >&2
fi
