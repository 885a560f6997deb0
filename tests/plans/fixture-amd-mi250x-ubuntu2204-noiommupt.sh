#!/bin/sh
# rocmcheck plan for AMD Instinct MI250X (gfx90a) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.3. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

reboot_needed=no

# Step 1 of 1 (iommu_pt): Add iommu=pt to the kernel command line [reboot]
# Fixes: system.iommu
# Several GPUs without iommu=pt on the kernel command line: RCCL warns that
# this can hang or destabilise the system. Add it and reboot.
if ! grep -q 'iommu=pt' /etc/default/grub; then
	grep -q 'iommu=pt' /etc/default/grub || sudo sed -i 's/^GRUB_CMDLINE_LINUX="/&iommu=pt /' /etc/default/grub
	sudo update-grub
	reboot_needed=yes
fi

if [ "$reboot_needed" = yes ]; then
	echo 'rocmcheck plan: reboot to finish (sudo reboot)' >&2
fi
