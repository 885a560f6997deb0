#!/bin/sh
# rocmcheck plan for AMD Radeon 780M Graphics (gfx1103) on Ubuntu 22.04 LTS
# (the machine rocmcheck read). Target: ROCm 6.2. Profile database 2026.11.29.
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
plan_steps='env_set_HSA_OVERRIDE_GFX_VERSION'
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

# Step 1 of 1 (env_set_HSA_OVERRIDE_GFX_VERSION): Set HSA_OVERRIDE_GFX_VERSION
# for every new shell (~/.profile)
# Fixes: device.arch, rocm.rocblas
# gfx1103 is not in the installed ROCm's list, but its family runs code built
# for 11.0.0, and HSA_OVERRIDE_GFX_VERSION makes the runtime use that code.
# The override is a debugging aid AMD does not support: some kernels may fail.
# The per-node form (HSA_OVERRIDE_GFX_VERSION_ and the GPU's KFD node id)
# applies to one GPU only and needs ROCm 6.2 or newer. Add the line to your
# shell profile to keep it.
plan_step=env_set_HSA_OVERRIDE_GFX_VERSION
if ! grep -qsxF 'export HSA_OVERRIDE_GFX_VERSION=11.0.0' ~/.profile; then
	printf '%s\n' 'export HSA_OVERRIDE_GFX_VERSION=11.0.0' >> ~/.profile
fi
plan_done="$plan_done env_set_HSA_OVERRIDE_GFX_VERSION"
# By hand, in the shell you work in (a script cannot do it for you):
#   export HSA_OVERRIDE_GFX_VERSION=11.0.0

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  export HSA_OVERRIDE_GFX_VERSION=11.0.0' >&2
