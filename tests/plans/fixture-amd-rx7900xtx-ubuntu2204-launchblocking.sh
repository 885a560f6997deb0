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

# as_root COMMAND...: COMMAND as root: directly when the script runs as root
# (minimal images and containers have no sudo), else through sudo.
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "rocmcheck plan: $1 needs root, and sudo is not installed: run the script as root" >&2
		return 1
	fi
}

# Which steps are done, and which are left: said when the script ends,
# however it ends (a failed command stops it, under set -e).
plan_steps='env_clean_bashrc env_clean_profile env_clean_environment'
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

# Step 1 of 3 (env_clean_bashrc): Remove HIP_LAUNCH_BLOCKING from ~/.bashrc
# Fixes: env.launch_blocking
# Launch-serialising variables are set (HIP_LAUNCH_BLOCKING): they are
# debugging switches that make every kernel launch wait for the previous one,
# not tuning options. Unset them here and remove them from shell profiles and
# job scripts. A script cannot change the shell it was started from: unset
# them there yourself.
plan_step=env_clean_bashrc
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' ~/.bashrc; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' ~/.bashrc
fi
plan_done="$plan_done env_clean_bashrc"
# By hand, in the shell you work in (a script cannot do it for you):
#   unset HIP_LAUNCH_BLOCKING

# Step 2 of 3 (env_clean_profile): Remove HIP_LAUNCH_BLOCKING from ~/.profile
# Fixes: env.launch_blocking
# So that new shells do not set them again.
plan_step=env_clean_profile
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' ~/.profile; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' ~/.profile
fi
plan_done="$plan_done env_clean_profile"

# Step 3 of 3 (env_clean_environment): Remove HIP_LAUNCH_BLOCKING from
# /etc/environment
# Fixes: env.launch_blocking
# So that new shells do not set them again.
plan_step=env_clean_environment
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' /etc/environment; then
	as_root sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' /etc/environment
fi
plan_done="$plan_done env_clean_environment"

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  unset HIP_LAUNCH_BLOCKING' >&2
