#!/bin/sh
# Recorder for the runs of tests/cli/test_plan_run.sh: installed on PATH
# under the name of every command a plan may call (apt-get, sudo, usermod,
# id, ...), and as a virtual environment's bin/python (python -m pip). It
# keeps the machine's state in $STATE (so a second run sees the first run's
# effects), appends every change to $STATE/changes, and touches nothing
# outside $STATE and $ROOT: paths under /etc and /boot given to grep and sed
# are redirected into $ROOT. The environment sets what is not a file: RUN_UID
# and RUN_AS (id -u, id -un: 1000 and alice), PKG_FAIL (apt-get, dnf and
# zypper fail) and PIP_FAIL=download|install (that pip command fails).
set -eu
name=${0##*/}
: "${STATE:?}" "${ROOT:?}"
/bin/mkdir -p "$STATE/pkgs" "$STATE/groups" "$STATE/modules"
change() { printf '%s\n' "$name $*" >>"$STATE/changes"; }

# Package state: $STATE/pkgs/NAME holds the version.
pkg_install() {
	case $1 in
	*amdgpu-install*)
		url=$(/bin/cat "$STATE/last_url" 2>/dev/null || printf '%s' "$1")
		printf '%s\n' "$url" >"$STATE/amdgpu-install.url"
		printf '1.0\n' >"$STATE/pkgs/amdgpu-install" ;;
	*epel-release*) printf '1.0\n' >"$STATE/pkgs/epel-release" ;;
	nvidia-driver*|nvidia-open*|cuda-drivers*|akmod-nvidia*)
		printf '1.0\n' >"$STATE/pkgs/$1"
		nvidia_smi ;;
	*) printf '1.0\n' >"$STATE/pkgs/${1##*/}" ;;
	esac
}

# An installed NVIDIA driver brings nvidia-smi: a recorder of that name; a
# newer module than any minimum the plans ask for is loaded from then on
# (the sandbox's /proc/driver/nvidia/version, which sed reads).
nvidia_smi() {
	/bin/ln -sf "$0" "${0%/*}/nvidia-smi"
	/bin/mkdir -p "$ROOT/proc/driver/nvidia"
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  999.99.99  (recorded)\n' >"$ROOT/proc/driver/nvidia/version"
}

# pip's commands; the installed torch's version is in $STATE/torch, a
# downloaded wheel is a file holding the version it installs
pip_cmd() {
	case $1 in
	show) [ -f "$STATE/torch" ] || exit 1; echo "Name: torch"; echo "Version: $(/bin/cat "$STATE/torch")" ;;
	uninstall) change "$@"; /bin/rm -f "$STATE/torch" ;;
	download)
		change "$@"
		if [ "${PIP_FAIL:-}" = download ]; then
			echo "ERROR: Could not find a version that satisfies the requirement torch (PIP_FAIL)" >&2
			exit 1
		fi
		dir='' idx=''
		while [ $# -gt 0 ]; do
			case $1 in
			-d) shift; dir=$1 ;;
			--index-url) shift; idx=$1 ;;
			esac
			shift
		done
		case $dir in
		"$STATE"/tmp.*) printf '2.9.0+%s\n' "${idx##*/}" >"$dir/torch.whl" ;;
		*) echo "recorder: pip download outside a private directory: $dir" >&2; exit 1 ;;
		esac ;;
	install)
		change "$@"
		if [ "${PIP_FAIL:-}" = install ]; then
			echo "ERROR: pip install failed (PIP_FAIL)" >&2
			exit 1
		fi
		idx='' links=''
		while [ $# -gt 0 ]; do
			case $1 in
			--index-url) shift; idx=$1 ;;
			--find-links) shift; links=$1 ;;
			esac
			shift
		done
		if [ -n "$links" ]; then
			[ -f "$links/torch.whl" ] || { echo "ERROR: no torch wheel in $links" >&2; exit 1; }
			/bin/cat "$links/torch.whl" >"$STATE/torch"
		else
			printf '2.9.0+%s\n' "${idx##*/}" >"$STATE/torch"
		fi ;;
	*) exit 2 ;;
	esac
}

case $name in
sudo) exec "$@" ;;
nvidia-smi) exit 0 ;;
ubuntu-drivers) change "$@"; nvidia_smi ;;
apt-get|dnf|zypper)
	change "$@"
	if [ -n "${PKG_FAIL:-}" ]; then
		echo "$name: recorded failure (PKG_FAIL): unable to fetch some archives" >&2
		exit 100
	fi
	# zypper checks the signature of a package it downloads: AMD's key must
	# be in the RPM database first (rpm --import), unless the checks are off
	if [ "$name" = zypper ]; then
		case " $* " in
		*" --no-gpg-checks "*) ;;
		*" install "*http*://repo.radeon.com/*.rpm*)
			[ -f "$STATE/keys/rocm.gpg.key" ] || {
				echo "zypper: Signature verification failed: the key of repo.radeon.com is not trusted" >&2
				exit 4
			} ;;
		esac
	fi
	for a in "$@"; do
		case $a in
		-*|install|update|refresh|module|config-manager|addrepo) ;;
		http*://*.repo) ;;
		http*://*) pkg_install "$a" ;;
		*) pkg_install "$a" ;;
		esac
	done ;;
crb|update-grub|grub2-mkconfig|update-initramfs|dracut|dkms) change "$@" ;;
wget|curl)
	change "$@"
	out=''
	while [ $# -gt 0 ]; do
		case $1 in
		-O|-o) shift; out=$1 ;;
		http*) printf '%s\n' "$1" >"$STATE/last_url" ;;
		esac
		shift
	done
	# the download lands where the plan asked, which must be a private
	# directory of this run (mktemp -d below)
	if [ -n "$out" ]; then
		case $out in
		"$STATE"/tmp.*/*) /bin/cat "$STATE/last_url" >"$out" ;;
		*) echo "recorder: $name writes outside a private directory: $out" >&2; exit 1 ;;
		esac
	fi ;;
mktemp)
	[ "${1:-}" = -d ] || exit 2
	n=0
	while [ -e "$STATE/tmp.$n" ]; do n=$((n + 1)); done
	/bin/mkdir -m 700 "$STATE/tmp.$n"
	echo "$STATE/tmp.$n" ;;
rm)
	# only what this run made
	for a in "$@"; do
		case $a in
		-*) ;;
		"$STATE"/tmp.*) /bin/rm -rf "$a" ;;
		*) echo "recorder: rm outside the run's directories: $a" >&2; exit 1 ;;
		esac
	done ;;
dpkg-deb)
	# --field FILE Package: a downloaded installer names its package
	[ "$1" = --field ] && [ -f "$2" ] || { echo "dpkg-deb: cannot read $2" >&2; exit 2; }
	case $(/bin/cat "$2") in
	*/amdgpu-install*) echo amdgpu-install ;;
	*) echo unknown ;;
	esac ;;
tee)
	change "$@"
	for a in "$@"; do
		case $a in
		-*) ;;
		/etc/*) /bin/mkdir -p "$ROOT${a%/*}"; /bin/cat >"$ROOT$a" ;;
		*) echo "recorder: tee outside /etc: $a" >&2; exit 1 ;;
		esac
	done ;;
sh)
	# sudo sh -c 'test -f KEY ...': files under /var and /etc are the sandbox's
	[ "$1" = -c ] || exit 2
	script=$(printf '%s\n' "$2" | /bin/sed -e "s| /var/| $ROOT/var/|g" -e "s| /etc/| $ROOT/etc/|g")
	exec /bin/sh -c "$script" ;;
amdgpu-install)
	change "$@"
	[ -f "$STATE/pkgs/amdgpu-install" ] || { echo "amdgpu-install: not installed" >&2; exit 127; }
	case $* in
	*--usecase=wsl*) ver=6.1.3 ;;
	*)
		# the release folder of the installer's URL: .../amdgpu-install/6.2.4/...
		ver=$(/bin/sed -n 's|.*/amdgpu-install/\([0-9.]*\)/.*|\1|p' "$STATE/amdgpu-install.url") ;;
	esac
	printf '%s.0-1\n' "$ver" >"$STATE/pkgs/rocm-core"
	printf '%s\n' "$ver" >"$STATE/pkgs/rocm-hip" ;;
dpkg-query)
	fmt='' pkg=''
	while [ $# -gt 0 ]; do
		case $1 in
		-W) ;;
		-f) shift; fmt=$1 ;;
		-f*) fmt=${1#-f} ;;
		*) pkg=$1 ;;
		esac
		shift
	done
	[ -f "$STATE/pkgs/$pkg" ] || { echo "dpkg-query: no packages found matching $pkg" >&2; exit 1; }
	case $fmt in
	*Status*) printf 'install ok installed' ;;
	*Version*) printf '%s' "$(/bin/cat "$STATE/pkgs/$pkg")" ;;
	esac ;;
rpm)
	[ "${1:-}" = -E ] && { echo 41; exit 0; }
	if [ "${1:-}" = --import ]; then
		change "$@"
		/bin/mkdir -p "$STATE/keys"
		: >"$STATE/keys/${2##*/}"
		exit 0
	fi
	qf='' pkg=''
	while [ $# -gt 0 ]; do
		case $1 in
		-q) ;;
		--qf) shift; qf=$1 ;;
		*) pkg=$1 ;;
		esac
		shift
	done
	if [ ! -f "$STATE/pkgs/$pkg" ]; then echo "package $pkg is not installed"; exit 1; fi
	if [ -n "$qf" ]; then printf '%s' "$(/bin/cat "$STATE/pkgs/$pkg")"; else echo "$pkg-1.0"; fi ;;
usermod)
	change "$@"
	[ "$1" = -aG ] || exit 2
	printf '%s\n' "$2" | /usr/bin/tr ',' '\n' >>"$STATE/groups/$3" ;;
id)
	# the user who runs the plan (sudo keeps it in SUDO_USER)
	[ "$1" = -un ] && { echo "${RUN_AS:-alice}"; exit 0; }
	[ "$1" = -u ] && { echo "${RUN_UID:-1000}"; exit 0; }
	[ "$1" = -nG ] || exit 2
	printf '%s ' "$2"
	[ -f "$STATE/groups/$2" ] && /usr/bin/tr '\n' ' ' <"$STATE/groups/$2"
	printf '\n' ;;
modprobe) change "$@"; : >"$STATE/modules/$1" ;;
lsmod)
	echo "Module                  Size  Used by"
	for m in "$STATE"/modules/*; do [ -e "$m" ] && echo "${m##*/} 16384 0"; done
	: ;;
mokutil)
	case $1 in
	--import) change "$@"; : >"$STATE/mok" ;;
	--test-key) [ -f "$STATE/mok" ] && echo "$2 is already in the enrollment request" ;;
	esac
	: ;;
python)
	# a virtual environment's interpreter: python -m pip
	if [ "${1:-}" != -m ] || [ "${2:-}" != pip ]; then
		echo "recorder: python $*: not recorded" >&2
		exit 127
	fi
	shift 2
	name="python -m pip"
	pip_cmd "$@" ;;
pip)
	# a distribution's pip outside a virtual environment (PEP 668)
	case $1 in
	install|uninstall|download)
		if [ -z "${VIRTUAL_ENV:-}" ]; then
			echo "error: externally-managed-environment" >&2
			exit 1
		fi ;;
	esac
	pip_cmd "$@" ;;
readlink)
	# readlink -f PATH: /opt/rocm resolves to what update-alternatives set
	p=${2:-}
	if [ "$p" = /opt/rocm ] && [ -f "$STATE/rocm-alternative" ]; then /bin/cat "$STATE/rocm-alternative"; else printf '%s\n' "$p"; fi ;;
update-alternatives|alternatives)
	change "$@"
	if [ "${1:-}" = --set ] && [ "${2:-}" = rocm ]; then printf '%s\n' "$3" >"$STATE/rocm-alternative"; fi ;;
uname)
	# the sandbox's kernel release, else Ubuntu 24.04's
	if [ "${1:-}" = -r ]; then
		if [ -f "$ROOT/.kernel-release" ]; then /bin/cat "$ROOT/.kernel-release"; else echo 6.8.0-45-generic; fi
	else
		echo Linux
	fi ;;
grep|sed)
	if [ "$name" = sed ]; then
		for a in "$@"; do [ "$a" = -i ] && change "$@"; done
	fi
	# the arguments hold spaces: rebuild them one by one, redirecting files
	n=$#
	i=0
	while [ $i -lt $n ]; do
		a=$1
		shift
		case $a in
		/etc/*|/boot/*|/proc/driver/*) a=$ROOT$a ;;
		esac
		set -- "$@" "$a"
		i=$((i + 1))
	done
	exec "/bin/$name" "$@" ;;
*) echo "recorder: $name is not recorded" >&2; exit 127 ;;
esac
