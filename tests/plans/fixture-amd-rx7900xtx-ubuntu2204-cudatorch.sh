#!/bin/sh
# rocmcheck plan for AMD Radeon RX 7900 XTX (gfx1100) on Ubuntu 22.04 LTS (the
# machine rocmcheck read). Target: ROCm 6.2. PyTorch from
# https://download.pytorch.org/whl/rocm6.2. Profile database 2026.11.29.
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
plan_steps='torch'
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

# Step 1 of 1 (torch): Install the PyTorch build for this GPU
# Fixes: framework.torch
# The installed PyTorch wheel is not built for this machine's GPUs: replace it
# with the rocm6.2 build, with the interpreter of the environment it is
# installed in. It runs in that environment only: without it, the script
# prints the commands. The new wheels are downloaded first: the installed ones
# are removed only once they are here, so a failed download leaves PyTorch as
# it was.
plan_step=torch
# Printed as they are where the step cannot run (not expanded):
# shellcheck disable=SC2016
if /home/alice/venv/bin/python -m pip show torch 2>/dev/null | grep -q '^Version: .*+rocm6\.2$'; then
	plan_done="$plan_done torch"
elif [ -x /home/alice/venv/bin/python ]; then
	pip_dl=$(mktemp -d)
	/home/alice/venv/bin/python -m pip download -d "$pip_dl" torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm6.2
	/home/alice/venv/bin/python -m pip uninstall -y torch torchvision torchaudio
	/home/alice/venv/bin/python -m pip install torch torchvision torchaudio --no-index --find-links "$pip_dl"
	rm -rf "$pip_dl"
	plan_done="$plan_done torch"
else
	echo 'rocmcheck plan: step torch skipped: it runs in the Python environment of /home/alice/venv/bin/python. Run there:' >&2
	echo '  pip_dl=$(mktemp -d)' >&2
	echo '  /home/alice/venv/bin/python -m pip download -d "$pip_dl" torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm6.2' >&2
	echo '  /home/alice/venv/bin/python -m pip uninstall -y torch torchvision torchaudio' >&2
	echo '  /home/alice/venv/bin/python -m pip install torch torchvision torchaudio --no-index --find-links "$pip_dl"' >&2
	echo '  rm -rf "$pip_dl"' >&2
	plan_skipped="$plan_skipped torch"
fi
