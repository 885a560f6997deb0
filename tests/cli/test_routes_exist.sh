#!/bin/bash
# Routes that exist on that machine (issue 24, class 5): a GA kernel below
# the ROCm release's series moves to the distribution's HWE kernel (never
# --no-dkms nor an older ROCm); a mainline kernel gets no linux-headers
# package that no archive carries; two ROCm installs are switched with
# update-alternatives --set (a script cannot answer --config's prompt), to
# the install the rest of the machine fits. Each fixture's doctor fix and the
# plan step that runs it.
. "$(dirname "$0")/lib.sh"

FIXDIR=$TESTS_DIR/fixtures

# Ubuntu 20.04 on its GA kernel 5.4, ROCm 6.1 (5.15 only): the HWE kernel
F=amd-mi50-ubuntu2004-gakernel
run 1 --sysroot "$FIXDIR/$F" doctor --level quick -v --only system.kernel
assert_out_has 'kernel 5.4.0-216-generic (series 5.4) is older than 5.15'
assert_out_has "hardware-enablement kernel (series 5.15)"
assert_out_has '^         sudo apt-get install -y linux-generic-hwe-20.04$'
assert_out_lacks 'no-dkms'
assert_out_lacks 'older ROCm'
run 0 --sysroot "$FIXDIR/$F" plan
assert_out_has "^plan_steps='kernel_hwe'$"
assert_out_has "^if ! dpkg-query -W -f='\${Status}' linux-generic-hwe-20.04 2>/dev/null | grep -q 'ok installed'; then$"
assert_out_has '^	as_root apt-get install -y linux-generic-hwe-20.04$'
assert_out_has '^	reboot_needed=yes$'
assert_out_lacks 'no-dkms'
assert_out_lacks 'linux-headers-5.4.0-216-generic'

# described: Ubuntu 20.04 under ROCm 6.1 (5.15 only, the HWE series) installs
# the HWE kernel unless the running one is a listed series; 22.04 (whose GA
# 5.15 is listed) does not
run 0 plan --os ubuntu-20.04 --gpu gfx1100
assert_out_has "^plan_steps='.*kernel_hwe rocm_install"
assert_out_has "^if ! uname -r | grep -q -e '^5..15..'; then$"
assert_out_has '^	as_root apt-get install -y linux-generic-hwe-20.04$'
run 0 plan --os ubuntu-22.04 --gpu gfx1100
assert_out_lacks 'linux-generic-hwe'

# a mainline kernel (6.2.0-060200-generic) inside the window: DKMS stays,
# and its headers come from where the kernel came from
F=amd-rx7900xtx-ubuntu2204-mainline
run 1 --sysroot "$FIXDIR/$F" doctor --level quick -v --only rocm.install
assert_out_has "# 6.2.0-060200-generic is not a kernel from the distribution's archive"
assert_out_lacks 'apt-get install -y linux-headers-6.2.0-060200-generic'
assert_out_lacks 'no-dkms'
run 0 --sysroot "$FIXDIR/$F" plan
assert_out_lacks 'apt-get install -y linux-headers-6.2.0-060200-generic'
assert_out_has '^	as_root amdgpu-install -y --usecase=rocm$'

# two installs, /opt/rocm on the newest, whose window the loaded driver is
# outside: --set to the one that fits, never --config
F=amd-rx7900xtx-ubuntu2204-tworocm
run 0 --sysroot "$FIXDIR/$F" doctor --level quick -v --only rocm.install
assert_out_has 'not at /opt/rocm-6.2.0, the install the rest of the machine fits'
assert_out_has '^         sudo update-alternatives --set rocm /opt/rocm-6.2.0$'
assert_out_lacks 'alternatives --config'
assert_out_lacks 'export ROCM_PATH'
run 0 --sysroot "$FIXDIR/$F" plan
assert_out_has "^plan_steps='rocm_switch'$"
assert_out_has '^if ! \[ "$(readlink -f /opt/rocm)" = "$(readlink -f /opt/rocm-6.2.0)" \]; then$'
assert_out_has '^	as_root update-alternatives --set rocm /opt/rocm-6.2.0$'

finish
