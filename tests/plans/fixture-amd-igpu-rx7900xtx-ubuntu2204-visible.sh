#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Which steps are done, and which are left: said when the script ends,
# however it ends (a failed command stops it, under set -e).
plan_steps='env_set_ROCR_VISIBLE_DEVICES'
plan_step='' plan_done='' plan_skipped=''
plan_finish() {
	plan_rc=$?
	trap - EXIT
	if [ "$plan_rc" != 0 ]; then
		plan_left=
		for plan_s in $plan_steps; do
			case " $plan_done $plan_skipped $plan_step " in
			*" $plan_s "*) ;;
			*) plan_left="$plan_left $plan_s" ;;
			esac
		done
		echo "rocmcheck plan: step ${plan_step:-?} failed (exit status $plan_rc). Done:${plan_done:- none}. Skipped:${plan_skipped:- none}. Not run:${plan_left:- none}." >&2
	else
		echo "rocmcheck plan: done:${plan_done:- none}${plan_skipped:+; skipped (cannot run here):$plan_skipped}" >&2
	fi
	exit "$plan_rc"
}
trap plan_finish EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Step 1 of 1 (env_set_ROCR_VISIBLE_DEVICES): Set ROCR_VISIBLE_DEVICES for
# every new shell (~/.profile)
# Fixes: device.arch, device.igpu, rocm.rocblas
# An integrated GPU is visible next to the discrete one: ROCm programs may
# pick it and crash or crawl. Restrict ROCm to the discrete GPU (index 0). Or,
# by hand in the firmware (UEFI/BIOS) setup, when no display is connected to
# the integrated GPU: turn it off (the option is called Integrated Graphics,
# iGPU or UMA Frame Buffer, set to Disabled; on some boards Primary Display =
# PCIe first), so that no program sees it at all.
plan_step=env_set_ROCR_VISIBLE_DEVICES
if ! grep -qsxF 'export ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f' ~/.profile; then
	printf '%s\n' 'export ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f' >> ~/.profile
fi
plan_done="$plan_done env_set_ROCR_VISIBLE_DEVICES"
# By hand, in the shell you work in (a script cannot do it for you):
#   export ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  export ROCR_VISIBLE_DEVICES=GPU-a1ffc9d1799c317f' >&2
