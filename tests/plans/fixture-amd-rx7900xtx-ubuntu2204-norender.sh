#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

relogin_needed=no

# Step 1 of 1 (groups): Add the user to the groups that own the GPU device
# nodes [log in again]
# Fixes: perm.kfd, perm.render
# alice is not in the group(s) render,video that own /dev/kfd and
# /dev/dri/renderD*: add the user, then log out and back in.
if ! { id -nG alice | grep -qw render && id -nG alice | grep -qw video; }; then
	sudo usermod -aG render,video alice
	relogin_needed=yes
fi

if [ "$relogin_needed" = yes ]; then
	echo 'rocmcheck plan: log out and back in so that the new group membership applies' >&2
fi
