#!/bin/sh
# rocmcheck plan for AMD Instinct MI300X (gfx942) on SUSE Linux Enterprise
# Server 15 (a described machine). Target: ROCm 7.2. Profile database
# 2026.11.29.
#
# rocmcheck wrote this script and ran none of it. Review it, then run it as
# your user (not as root): it calls sudo only for the commands that need it.
# Every step is guarded, so running it again changes nothing.
set -eu

relogin_needed=no
reboot_needed=no

# Step 1 of 6 (kernel_check): Check that the running kernel is a series ROCm
# 7.2 supports here (6.4)
# Fixes: system.kernel
# Only a warning: the DKMS build of the amdgpu driver may fail on other
# series.
if ! uname -r | grep -q -e '^6\.4\.'; then
	echo "rocmcheck plan: warning: Kernel $(uname -r) is not a series ROCm 7.2 supports on SUSE Linux Enterprise Server 15 (supported: 6.4). The amdgpu DKMS build fails on newer kernels: boot a supported kernel, or install ROCm without DKMS (amdgpu-install --no-dkms) to use the in-tree driver." >&2
fi

# Step 2 of 6 (env_clean_bashrc): Remove HIP_LAUNCH_BLOCKING,
# AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, CUDA_LAUNCH_BLOCKING,
# HSA_OVERRIDE_GFX_VERSION from ~/.bashrc
# Fixes: env.launch_blocking, env.hsa_override
# Debugging switches serialise every GPU launch, and a leftover
# HSA_OVERRIDE_GFX_VERSION makes the runtime load code for another GPU: remove
# them wherever they are set. A script cannot change the shell it was started
# from: unset them there yourself.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' ~/.bashrc; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' ~/.bashrc
fi
# By hand, in the shell you work in (a script cannot do it for you):
#   unset HIP_LAUNCH_BLOCKING AMD_SERIALIZE_KERNEL AMD_SERIALIZE_COPY CUDA_LAUNCH_BLOCKING
#   unset HSA_OVERRIDE_GFX_VERSION

# Step 3 of 6 (env_clean_profile): Remove HIP_LAUNCH_BLOCKING,
# AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, CUDA_LAUNCH_BLOCKING,
# HSA_OVERRIDE_GFX_VERSION from ~/.profile
# Fixes: env.launch_blocking, env.hsa_override
# So that new shells do not set them again.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' ~/.profile; then
	sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' ~/.profile
fi

# Step 4 of 6 (env_clean_environment): Remove HIP_LAUNCH_BLOCKING,
# AMD_SERIALIZE_KERNEL, AMD_SERIALIZE_COPY, CUDA_LAUNCH_BLOCKING,
# HSA_OVERRIDE_GFX_VERSION from /etc/environment
# Fixes: env.launch_blocking, env.hsa_override
# So that new shells do not set them again.
if grep -qs -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=' -e '^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=' /etc/environment; then
	sudo sed -i -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HIP_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_KERNEL=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}AMD_SERIALIZE_COPY=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}CUDA_LAUNCH_BLOCKING=/d' -e '/^[[:space:]]*\(export[[:space:]]\{1,\}\)\{0,1\}HSA_OVERRIDE_GFX_VERSION=/d' /etc/environment
fi

# Step 5 of 6 (groups): Add the user to the groups that own the GPU device
# nodes [log in again]
# Fixes: perm.kfd, perm.render
# "${SUDO_USER:-$(id -un)}" is not in the group(s) render,video that own
# /dev/kfd and /dev/dri/renderD*: add the user, then log out and back in.
if ! { id -nG "${SUDO_USER:-$(id -un)}" | grep -qw render && id -nG "${SUDO_USER:-$(id -un)}" | grep -qw video; }; then
	sudo usermod -aG render,video "${SUDO_USER:-$(id -un)}"
	relogin_needed=yes
fi

# Step 6 of 6 (rocm_install): Install ROCm 7.2 [reboot]
# Fixes: rocm.install
# No HIP runtime is installed. Install ROCm 7.2 for SUSE Linux Enterprise
# Server 15 with the commands below. Reboot afterwards: the amdgpu driver it
# builds is loaded at the next boot.
if ! rpm -q --qf '%{VERSION}' rocm-core 2>/dev/null | grep -q '^7\.2\.'; then
	sudo zypper --non-interactive install kernel-default-devel
	sudo rpm --import https://repo.radeon.com/rocm/rocm.gpg.key
	sudo zypper --non-interactive install https://repo.radeon.com/amdgpu-install/7.2/sle/"$(sed -n 's/^VERSION_ID="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release)"/amdgpu-install-7.2.70200-1.noarch.rpm
	sudo zypper --non-interactive refresh
	sudo amdgpu-install -y --usecase=rocm
	reboot_needed=yes
fi

echo 'rocmcheck plan: by hand, in the shell you work in (a script cannot do it for you):' >&2
echo '  unset HIP_LAUNCH_BLOCKING AMD_SERIALIZE_KERNEL AMD_SERIALIZE_COPY CUDA_LAUNCH_BLOCKING' >&2
echo '  unset HSA_OVERRIDE_GFX_VERSION' >&2

if [ "$relogin_needed" = yes ]; then
	echo 'rocmcheck plan: log out and back in so that the new group membership applies' >&2
fi
if [ "$reboot_needed" = yes ]; then
	echo 'rocmcheck plan: reboot to finish (sudo reboot)' >&2
fi
