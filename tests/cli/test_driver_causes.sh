#!/bin/bash
# Why a kernel driver is not loaded, read from the capture before a fix is
# prescribed (driver.amdgpu, and device.present which shares its fix), and the
# sudo caller of a capture judged by perm.*: each fixture's finding, its fix
# (never "install the headers and modprobe" where something else keeps amdgpu
# off) and the plan step that runs it, with its guard.
. "$(dirname "$0")/lib.sh"

FIXDIR=$TESTS_DIR/fixtures

# doctor FIXTURE: the quick report of one fixture, verbose, in $OUT
doctor() {
	run 1 --sysroot "$FIXDIR/$1" doctor --level quick -v --only driver.,device.present,perm.
}
plan() {
	run 0 --sysroot "$FIXDIR/$1" plan
}

doctor amd-rx7900xt-ubuntu2404-nomodeset
assert_out_has 'the kernel command line has nomodeset, which keeps amdgpu from loading  \[driver.amdgpu\]'
assert_out_has "sudo sed -i -E 's/\[\[:space:\]\]\*\\\\<nomodeset\\\\>//g' /etc/default/grub"
assert_out_has '! command -v grubby >/dev/null || sudo grubby --update-kernel=ALL --remove-args=nomodeset'
assert_out_has '^         sudo update-grub$'
assert_out_lacks 'sudo modprobe amdgpu'
assert_out_lacks 'linux-headers-'
plan amd-rx7900xt-ubuntu2404-nomodeset
assert_out_has "^plan_steps='module_cmdline'$"
assert_out_has '^if grep -qw -- nomodeset /etc/default/grub; then$'
assert_out_has '^	reboot_needed=yes$'

doctor amd-rx7900xt-ubuntu2404-blacklist
assert_out_has '/etc/modprobe.d/blacklist-amdgpu.conf line 2 says "blacklist amdgpu", which keeps amdgpu from loading'
assert_out_has 'evidence: /etc/modprobe.d/blacklist-amdgpu.conf: line 2: blacklist amdgpu'
grep -qF "(blacklist|install)[[:space:]]+amdgpu([[:space:]]|\$)/# &/' /etc/modprobe.d/blacklist-amdgpu.conf" "$OUT" ||
	fail "the blacklist fix does not comment out the line"
assert_out_has 'update-initramfs -u'
assert_out_lacks 'linux-headers-'
plan amd-rx7900xt-ubuntu2404-blacklist
assert_out_has "^plan_steps='module_blacklist'$"
assert_out_has "^if grep -qsE '^\[\[:space:\]\]\*(blacklist|install)"
assert_out_has '^	as_root modprobe amdgpu$'

doctor amd-rx7900xt-ubuntu2404-lockdown
assert_out_has "Secure Boot's lockdown rejects the module until its key is enrolled"
assert_out_has 'kernel.log: line 5: Lockdown: modprobe: unsigned module loading is restricted'
assert_out_has 'sudo mokutil --import /var/lib/shim-signed/mok/MOK.der'
assert_out_lacks 'sudo modprobe amdgpu'
plan amd-rx7900xt-ubuntu2404-lockdown
assert_out_has "^plan_steps='mok_enroll'$"

doctor amd-rx7900xt-ubuntu2404-dkmsoldkernel
assert_out_has 'the DKMS amdgpu is built for kernel 6.8.0-41-generic, not the running 6.8.0-45-generic'
assert_out_has '^         sudo dkms autoinstall -k 6.8.0-45-generic$'
plan amd-rx7900xt-ubuntu2404-dkmsoldkernel
assert_out_has "^plan_steps='amdgpu_dkms_kernel'$"
assert_out_has "^if ! lsmod | grep -q '^amdgpu '; then$"
assert_out_has '^	as_root dkms autoinstall -k 6.8.0-45-generic$'

doctor amd-rx7900xt-debian12-nofirmware
assert_out_has 'amdgpu is loaded but does not drive the AMD GPU at 0000:03:00.0; amdgpu could not load its firmware amdgpu/psp_13_0_0_sos.bin'
assert_out_has '^         sudo apt-get install -y firmware-amd-graphics$'
assert_out_lacks 'sudo modprobe amdgpu'
assert_out_has 'amdgpu drives no GPU: it could not load its firmware (see driver.amdgpu)  \[driver.kfd\]'
plan amd-rx7900xt-debian12-nofirmware
assert_out_has "^plan_steps='amdgpu_firmware'$"
assert_out_has "^if ! dpkg-query -W -f='\${Status}' firmware-amd-graphics"

# the existing Secure Boot fixture keeps its fix; a healthy machine names no cause
doctor amd-rx7900xt-ubuntu2404-secureboot
assert_out_has 'Secure Boot is on and a DKMS amdgpu is installed'
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-ubuntu2204-healthy" doctor --level quick -v --only driver.amdgpu
assert_out_has 'amdgpu is loaded (DKMS 6.8.5)'

# a capture made through sudo that names the caller only in [env] SUDO_USER:
# judged for alice from the capture's etc/group, and the fix adds alice, never root
doctor amd-rx7900xtx-ubuntu2204-sudoenv
assert_out_has 'user alice (SUDO_USER: running as root via sudo, judged for that user) cannot open /dev/kfd read-write'
assert_out_has 'evidence: /etc/group: alice: adm cdrom sudo dip plugdev lpadmin alice'
assert_out_has '^         sudo usermod -aG render,video alice$'
assert_out_lacks 'user root can open'
assert_out_lacks 'usermod -aG render,video root'
plan amd-rx7900xtx-ubuntu2204-sudoenv
assert_out_has '^	as_root usermod -aG render,video alice$'

finish
