#!/bin/sh
# rocmcheck plan for this machine on Ubuntu 24.04 LTS (the machine rocmcheck
# read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

reboot_needed=no

# Step 1 of 1 (mok_enroll): Enroll the DKMS module signing key (Secure Boot)
# [reboot]
# Fixes: system.secure_boot, driver.amdgpu, device.present
# Secure Boot rejects the DKMS-built amdgpu module ("Key was rejected by
# service"). Enroll the key DKMS signs with
# (/var/lib/shim-signed/mok/MOK.der), then confirm it in the MOK manager at
# the next boot (or turn Secure Boot off in the firmware).
if ! mokutil --test-key /var/lib/shim-signed/mok/MOK.der 2>/dev/null | grep -q -e 'already enrolled' -e 'enrollment request'; then
	sudo sh -c 'test -f /var/lib/shim-signed/mok/MOK.der || { echo "no DKMS signing key /var/lib/shim-signed/mok/MOK.der: rebuild the module (dkms autoinstall) first" >&2; exit 1; }'
	sudo mokutil --import /var/lib/shim-signed/mok/MOK.der
	reboot_needed=yes
fi

if [ "$reboot_needed" = yes ]; then
	echo 'rocmcheck plan: reboot to finish (sudo reboot)' >&2
fi
