#!/bin/sh
# rocmcheck plan for gfx1030 on Debian 12 (a described machine). Target: ROCm
# 7.1. PyTorch from https://download.pytorch.org/whl/rocm7.1. Profile database
# 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user: the commands that need root run through sudo (as_root), or
# directly when the script runs as root; as root, ROCMCHECK_USER=NAME names
# the user it is for (SUDO_USER does under sudo). Every step is guarded, so
# running it again changes nothing. A failed step stops it with a non-zero
# exit status, and it says which steps are done and which are not.
set -eu

# Note (system.os): AMD lists Debian 12 for Instinct GPUs only with ROCm 7.1:
# a Radeon GPU (gfx1030) runs with the same packages, but AMD does not support
# that combination.

# This plan is for Debian 12: on another OS it stops before it changes
# anything.
if ! { [ "$(sed -n 's/^ID="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release)" = debian ] && sed -n 's/^VERSION_ID="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release | grep -q -e '^12$' -e '^12\.'; }; then
	echo 'rocmcheck plan: this plan is for Debian 12, and /etc/os-release says this machine runs another OS: nothing done (rocmcheck plan writes the plan for this machine)' >&2
	exit 1
fi

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
relogin_needed=no
reboot_needed=no
plan_steps='kernel_check env_clean_bashrc env_clean_profile env_clean_environment groups rocm_install torch'
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
	if [ "$relogin_needed" = yes ]; then
		echo 'rocmcheck plan: log out and back in so that the new group membership applies' >&2
	fi
	if [ "$reboot_needed" = yes ]; then
		echo 'rocmcheck plan: reboot to finish (as root: reboot)' >&2
	fi
	exit "$plan_rc"
}
trap plan_finish EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Step 1 of 7 (kernel_check): Check that the running kernel is a series ROCm
# 7.1 supports here (6.1)
# Fixes: system.kernel
# Only a warning: the DKMS build of the amdgpu driver may fail on other
# series.
plan_step=kernel_check
if ! uname -r | grep -q -e '^6\.1\.'; then
	echo "rocmcheck plan: warning: Kernel $(uname -r) is not a series ROCm 7.1 supports on Debian 12 (supported: 6.1). The amdgpu DKMS build fails on newer kernels: boot a supported kernel, or install ROCm without DKMS (amdgpu-install --no-dkms) to use the in-tree driver. An older kernel needs a newer series from the distribution (Ubuntu: its HWE kernel), not --no-dkms." >&2
fi
plan_done="$plan_done kernel_check"

# Step 2 of 7 (env_clean_bashrc): Remove HIP_LAUNCH_BLOCKING,
# AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, CUDA_LAUNCH_BLOCKING,
# HSA_OVERRIDE_GFX_VERSION from ~/.bashrc
# Fixes: env.launch_blocking, env.hsa_override
# Debugging switches serialise every GPU launch, and a leftover
# HSA_OVERRIDE_GFX_VERSION makes the runtime load code for another GPU: remove
# them wherever they are set. A script cannot change the shell it was started
# from: unset them there yourself.
plan_step=env_clean_bashrc
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' ~/.bashrc; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' ~/.bashrc
fi
plan_done="$plan_done env_clean_bashrc"
# By hand, in the shell you work in (a script cannot do it for you):
#   unset HIP_LAUNCH_BLOCKING AMD_SERIALIZE_KERNEL AMD_SERIALIZE_COPY CUDA_LAUNCH_BLOCKING
#   unset HSA_OVERRIDE_GFX_VERSION

# Step 3 of 7 (env_clean_profile): Remove HIP_LAUNCH_BLOCKING,
# AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, CUDA_LAUNCH_BLOCKING,
# HSA_OVERRIDE_GFX_VERSION from ~/.profile
# Fixes: env.launch_blocking, env.hsa_override
# So that new shells do not set them again.
plan_step=env_clean_profile
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' ~/.profile; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' ~/.profile
fi
plan_done="$plan_done env_clean_profile"

# Step 4 of 7 (env_clean_environment): Remove HIP_LAUNCH_BLOCKING,
# AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, CUDA_LAUNCH_BLOCKING,
# HSA_OVERRIDE_GFX_VERSION from /etc/environment
# Fixes: env.launch_blocking, env.hsa_override
# So that new shells do not set them again.
plan_step=env_clean_environment
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' /etc/environment; then
	as_root sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' /etc/environment
fi
plan_done="$plan_done env_clean_environment"

# Step 5 of 7 (groups): Add the user to the groups that own the GPU device
# nodes [log in again]
# Fixes: perm.kfd, perm.render
# "${ROCMCHECK_USER:-${SUDO_USER:-$(id -un)}}" is not in the group(s)
# render,video that own /dev/kfd and /dev/dri/renderD*: add the user, then log
# out and back in.
plan_step=groups
if ! { id -nG "${ROCMCHECK_USER:-${SUDO_USER:-$(id -un)}}" | grep -qw render && id -nG "${ROCMCHECK_USER:-${SUDO_USER:-$(id -un)}}" | grep -qw video; }; then
	[ "${ROCMCHECK_USER:-${SUDO_USER:-$(id -un)}}" != root ] || { echo 'rocmcheck plan: this runs as root and names no user: run it as ROCMCHECK_USER=NAME sh SCRIPT, or with sudo from the account of the user to add' >&2; false; }
	as_root usermod -aG render,video "${ROCMCHECK_USER:-${SUDO_USER:-$(id -un)}}"
	relogin_needed=yes
fi
plan_done="$plan_done groups"

# Step 6 of 7 (rocm_install): Install ROCm 7.1 [reboot]
# Fixes: rocm.install
# No HIP runtime is installed. Install ROCm 7.1 for Debian 12 with the
# commands below. Reboot afterwards: the amdgpu driver it builds is loaded at
# the next boot.
plan_step=rocm_install
if ! dpkg-query -W -f='${Version}' rocm-core 2>/dev/null | grep -q '^7\.1\.'; then
	as_root apt-get update
	as_root apt-get install -y linux-headers-"$(uname -r)"
	as_root apt-get install -y wget
	rocm_dl=$(mktemp -d)
	wget -O "$rocm_dl/amdgpu-install.deb" https://repo.radeon.com/amdgpu-install/7.1.1/ubuntu/jammy/amdgpu-install_7.1.1.70101-1_all.deb
	dpkg-deb --field "$rocm_dl/amdgpu-install.deb" Package | grep -qx amdgpu-install
	as_root apt-get install -y "$rocm_dl/amdgpu-install.deb"
	rm -rf "$rocm_dl"
	as_root amdgpu-install -y --usecase=rocm
	reboot_needed=yes
fi
plan_done="$plan_done rocm_install"

# Step 7 of 7 (torch): Install the PyTorch build for this GPU
# Fixes: framework.torch
# PyTorch built for this GPU, from https://download.pytorch.org/whl/rocm7.1
# (it replaces any other build). It runs only in an active virtual or conda
# environment: run the script there, or it prints the commands to run in one.
# The new wheels are downloaded first: the installed ones are removed only
# once they are here, so a failed download leaves PyTorch as it was.
plan_step=torch
# Printed as they are where the step cannot run (not expanded):
# shellcheck disable=SC2016
if [ -n "${VIRTUAL_ENV:-}${CONDA_PREFIX:-}" ] && "${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python" -m pip show torch 2>/dev/null | grep -q '^Version: .*+rocm7\.1$'; then
	plan_done="$plan_done torch"
elif [ -n "${VIRTUAL_ENV:-}${CONDA_PREFIX:-}" ] && [ -x "${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python" ]; then
	pip_dl=$(mktemp -d)
	"${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python" -m pip download -d "$pip_dl" torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm7.1
	"${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python" -m pip uninstall -y torch torchvision torchaudio
	"${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python" -m pip install torch torchvision torchaudio --no-index --find-links "$pip_dl"
	rm -rf "$pip_dl"
	plan_done="$plan_done torch"
else
	echo 'rocmcheck plan: step torch skipped: it runs in an active virtual or conda environment. Run there:' >&2
	echo '  pip_dl=$(mktemp -d)' >&2
	echo '  "${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python" -m pip download -d "$pip_dl" torch torchvision torchaudio --index-url https://download.pytorch.org/whl/rocm7.1' >&2
	echo '  "${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python" -m pip uninstall -y torch torchvision torchaudio' >&2
	echo '  "${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python" -m pip install torch torchvision torchaudio --no-index --find-links "$pip_dl"' >&2
	echo '  rm -rf "$pip_dl"' >&2
	plan_skipped="$plan_skipped torch"
fi

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  unset HIP_LAUNCH_BLOCKING AMD_SERIALIZE_KERNEL AMD_SERIALIZE_COPY CUDA_LAUNCH_BLOCKING' >&2
echo '  unset HSA_OVERRIDE_GFX_VERSION' >&2
