#!/bin/bash
# `rocmcheck plan`, executed: every fixture's plan and the --os/--gpu plans
# of every OS in the profiles (an AMD and an NVIDIA GPU each) run under
# `sh -eu` among recording stand-ins (tests/plans/recorder.sh) for apt-get,
# dnf, zypper, sudo, usermod, mokutil, pip, modprobe, wget, ... in a
# throwaway directory (for a fixture, with its boot command line in
# /etc/default/grub and its modprobe.d):
#   1. a fresh machine: pip missing, USER unset: the script runs to its end;
#   2. again, pip present but outside a virtual environment (it refuses with
#      externally-managed-environment): nothing changes;
#   P. in a virtual environment with an old PyTorch, the download of the new
#      wheels failing: the script exits non-zero, saying which steps are
#      done, and the old PyTorch is still there;
#   3. in a virtual environment: only the pip steps run;
#   4. again: nothing changes, and every guard holds (plan --check agrees);
#   R. on a fresh machine as root with no sudo on PATH, ROCMCHECK_USER
#      naming the user: the commands of run 1, none through sudo; again:
#      nothing changes; without ROCMCHECK_USER, a groups step fails, saying
#      how to name the user, and adds nobody (never root);
#   F. on a fresh machine whose package manager fails: a plan that uses it
#      exits non-zero, naming the failed step and the steps done.
# The commands runs 1 and 3 recorded are compared with tests/plans/NAME.run
# (ROCMCHECK_REGEN=1 rewrites them: read the diff).
#
# The plans must never reach the real system, and CI runs this as root:
# PATH holds only the stand-ins (an unknown command fails the run instead of
# running), the scripts run as an unprivileged user (setpriv) without a
# network (unshare -n), and a probe checks that the system is read-only
# there before any plan runs. Without a way to drop root the test skips (77).
. "$(dirname "$0")/lib.sh"

PLANS=$TESTS_DIR/plans
REGEN=${ROCMCHECK_REGEN:-}
RECORDED="sudo apt-get dnf zypper crb dpkg-query rpm usermod id modprobe lsmod update-grub grub2-mkconfig
	mokutil wget curl amdgpu-install ubuntu-drivers uname grep sed mktemp rm dpkg-deb tee sh
	update-initramfs dkms readlink update-alternatives alternatives"

# ---- isolation
ISO=()
if [ "$(id -u)" = 0 ]; then
	if ! command -v setpriv >/dev/null; then
		echo "skip: running as root and setpriv (util-linux) is missing: cannot run plans unprivileged" >&2
		exit 77
	fi
	ISO=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	if unshare -n true 2>/dev/null; then
		ISO=(unshare -n "${ISO[@]}")
	fi
elif unshare -r -n true 2>/dev/null; then
	ISO=(unshare -r -n)
fi
own() { [ "$(id -u)" = 0 ] && chown -R 65534:65534 "$@"; return 0; }
# a directory the unprivileged user reaches (TMPDIR may be root's alone)
RUNROOT=
for base in "${TMPDIR:-/tmp}" /tmp; do
	RUNROOT=$(mktemp -d "$base/rocmcheck-planrun.XXXXXX") || continue
	chmod 755 "$RUNROOT"
	own "$RUNROOT"
	"${ISO[@]}" /bin/sh -c "test -w '$RUNROOT'" 2>/dev/null && break
	rm -rf "$RUNROOT"
	RUNROOT=
done
[ -n "$RUNROOT" ] || { echo "skip: no directory the unprivileged user can write" >&2; exit 77; }
trap 'rm -rf "$T" "$RUNROOT"' EXIT
# the binary too: the checkout may be in a directory only root can read
cp "$ROCMCHECK" "$RUNROOT/rocmcheck"
chmod 755 "$RUNROOT/rocmcheck"
ROCMCHECK_RUN=$RUNROOT/rocmcheck
probe=/etc/rocmcheck-planrun-probe.$$
if "${ISO[@]}" /bin/sh -c "echo x >$probe" 2>/dev/null || [ -e "$probe" ]; then
	rm -f "$probe"
	echo "skip: the isolated user can write $probe: plans would reach the real system" >&2
	exit 77
fi

# ---- the plans: NAME|ARGS (ARGS split on ';'), and the os-release they run on
plans=()
for fx in $(fixtures); do
	plans+=("fixture-$(basename "$fx")|--sysroot;$fx;plan")
done
oses=$(sed -n 's/^\[os \([^]]*\)\]$/\1/p' "$SOURCE_DIR"/profiles/os.ini)
for os in $oses; do
	plans+=("os-$os-gfx1100|plan;--os;$os;--gpu;gfx1100")
	plans+=("os-$os-rtx4090|plan;--os;$os;--gpu;RTX 4090")
done

# os-release of an OS key: "ubuntu-24.04" -> ID=ubuntu VERSION_ID="24.04",
# with point releases as the distributions write them (RHEL 9.4, SLES 15.6);
# and a kernel release the OS ships (uname -r of the stand-in)
os_release() {
	local key=$1 id ver
	case $key in
	rhel-8) id=rhel ver=8.10 ;;
	rhel-9) id=rhel ver=9.4 ;;
	rhel-10) id=rhel ver=10.0 ;;
	sles-15) id=sles ver=15.6 ;;
	fedora) id=fedora ver=41 ;;
	*-*) id=${key%-*} ver=${key##*-} ;;
	*) id=$key ver=1 ;;
	esac
	printf 'ID=%s\nVERSION_ID="%s"\n' "$id" "$ver"
}
kernel_release() {
	case $1 in
	ubuntu-20.04 | ubuntu-22.04) echo 5.15.0-126-generic ;;
	debian-12) echo 6.1.0-28-amd64 ;;
	rhel-8) echo 4.18.0-553.el8_10.x86_64 ;;
	rhel-9) echo 5.14.0-427.13.1.el9_4.x86_64 ;;
	rhel-10) echo 6.12.0-55.9.1.el10_0.x86_64 ;;
	sles-15) echo 6.4.0-150600.21-default ;;
	fedora) echo 6.11.4-301.fc41.x86_64 ;;
	*) echo 6.8.0-45-generic ;;
	esac
}

# sandbox NAME: a fresh throwaway machine under $RUNROOT/NAME
sandbox() {
	local sb=$RUNROOT/$1 c
	rm -rf "$sb"
	mkdir -p "$sb/bin" "$sb/state" "$sb/home" "$sb/venv" "$sb/root/etc/default" "$sb/root/var/lib/dkms" \
		"$sb/root/var/lib/shim-signed/mok"
	cp "$PLANS/recorder.sh" "$sb/recorder"
	chmod 755 "$sb/recorder"
	for c in $RECORDED; do ln -s ../recorder "$sb/bin/$c"; done
	mkdir -p "$sb/venv/bin"
	ln -s ../../recorder "$sb/venv/bin/python"
	printf 'export HIP_LAUNCH_BLOCKING=1\nexport HSA_OVERRIDE_GFX_VERSION=10.3.0\nalias ll="ls -l"\n' >"$sb/home/.bashrc"
	printf 'HIP_LAUNCH_BLOCKING=1\nPATH="/usr/bin:/bin"\n' >"$sb/root/etc/environment"
	printf 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX=""\n' >"$sb/root/etc/default/grub"
	: >"$sb/root/var/lib/dkms/mok.pub"
	: >"$sb/root/var/lib/shim-signed/mok/MOK.der"
	os_release "${2:-ubuntu-22.04}" >"$sb/root/etc/os-release"
	kernel_release "${2:-ubuntu-24.04}" >"$sb/root/.kernel-release"
	# a fixture's machine (NAME fixture-FIXTURE[.run]): its boot command line,
	# as /etc/default/grub holds it, and its modprobe.d, which the fixes for a
	# driver kept off edit
	case $1 in
	fixture-*)
		local fx=$TESTS_DIR/fixtures/${1#fixture-} words
		fx=${fx%%.*}
		if [ -f "$fx/proc/cmdline" ]; then
			words=$(tr ' ' '\n' <"$fx/proc/cmdline" | grep -v -e '^BOOT_IMAGE=' -e '^root=' -e '^ro$' -e '^$' | tr '\n' ' ')
			printf 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="%s"\nGRUB_CMDLINE_LINUX=""\n' "${words% }" >"$sb/root/etc/default/grub"
		fi
		if [ -d "$fx/etc/modprobe.d" ]; then cp -r "$fx/etc/modprobe.d" "$sb/root/etc/"; fi ;;
	esac
	own "$sb"
}

# in_sandbox SB [VAR=VALUE...] -- COMMAND...: as the plan's user, with only
# the stand-ins on PATH and no USER
in_sandbox() {
	local sb=$1
	shift
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	"${ISO[@]}" env -i PATH="$sb/bin" HOME="$sb/home" STATE="$sb/state" ROOT="$sb/root" LC_ALL=C \
		"${vars[@]}" "$@"
}

snapshot() { (cd "$1" && find home root -type f -print0 | sort -z | xargs -0 md5sum); }

# run_plan SB N [VAR=VALUE...]: run N of the script; its changes in $SB/changes.N
run_plan() {
	local sb=$1 n=$2
	shift 2
	in_sandbox "$sb" "$@" -- /bin/sh -eu "$sb/plan.sh" >"$sb/out.$n" 2>"$sb/err.$n"
	local rc=$?
	if [ -f "$sb/state/changes" ]; then mv "$sb/state/changes" "$sb/changes.$n"; else : >"$sb/changes.$n"; fi
	snapshot "$sb" >"$sb/files.$n"
	return $rc
}

nplans=0 nskipped=0 ncommands=0
for entry in "${plans[@]}"; do
	name=${entry%%|*}
	IFS=';' read -r -a args <<<"${entry#*|}"
	run any "${args[@]}"
	if [ "$STATUS" = 1 ] && [ ! -s "$OUT" ]; then
		# no plan can work here (an OS without a route for the GPU): said on stderr
		grep -q 'no plan can work' "$ERR" || { fail "$name: exit 1 without saying why"; last; }
		nskipped=$((nskipped + 1))
		continue
	fi
	[ "$STATUS" = 0 ] || { fail "$name: plan exit $STATUS"; last; continue; }
	os=ubuntu-22.04
	case $name in os-*) os=${args[2]} ;; esac
	sandbox "$name" "$os"
	sb=$RUNROOT/$name
	cp "$OUT" "$sb/plan.sh"
	run any "${args[@]}" --format json
	cp "$OUT" "$T/$name.json"
	own "$sb"
	if command -v shellcheck >/dev/null; then
		shellcheck -s sh "$sb/plan.sh" >&2 || fail "$name: shellcheck -s sh"
	fi
	# From the plan's JSON, in one Python (four took a quarter of this test):
	# whether a step needs PyTorch; the interpreter a step names ("[ -x
	# /path/bin/python ]": that environment is not on this machine, so every
	# run prints its commands); how many steps run real commands; and the
	# guards that run 4 checks, into $T/guards.
	"$PYTHON" - "$T/$name.json" "$T/guards" >"$T/plan.facts" <<'PY'
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
print("yes" if any(s["requires"] for s in steps) else "")
print(" ".join(s["requires"][5:-2] for s in steps if (s["requires"] or "").startswith("[ -x ")))
print(sum(1 for s in steps if not s.get("requires") and
          any(not c.startswith("#") and not c.startswith("echo ") for c in s["commands"])))
with open(sys.argv[2], "w") as f:
    print("\n".join(s["guard"] for s in steps if s["guard"] and not s["id"] == "kernel_check"), file=f)
PY
	{ read -r torch; read -r interp; read -r real; } <"$T/plan.facts"

	# plan --check before anything ran (a described machine: the guards run in the sandbox)
	described=
	case $name in os-*) described=yes ;; esac
	if [ -n "$described" ]; then
		in_sandbox "$sb" -- "$ROCMCHECK_RUN" "${args[@]}" --check >"$sb/check.0" 2>&1
		rc=$?
		[ "$rc" = 1 ] || { fail "$name: plan --check on a fresh machine: exit $rc, expected 1"; cat "$sb/check.0" >&2; }
	fi

	# 1. fresh machine: no pip, no USER, set -eu
	snapshot "$sb" >"$sb/files.0"
	run_plan "$sb" 1 || { fail "$name: run 1 (no pip, USER unset) failed"; cat "$sb/err.1" >&2; continue; }
	if [ -n "$torch" ]; then
		grep -q 'step torch skipped' "$sb/err.1" || fail "$name: run 1 did not say the torch step was skipped"
		grep -q '^pip \|^python -m pip ' "$sb/changes.1" && fail "$name: pip ran outside a virtual environment"
	fi
	if [ "$real" -gt 0 ] && [ ! -s "$sb/changes.1" ] && cmp -s "$sb/files.0" "$sb/files.1"; then
		fail "$name: $real steps, but the first run changed nothing"
	fi
	if grep -q '^# By hand' "$sb/plan.sh"; then
		grep -q 'by hand' "$sb/err.1" || fail "$name: the by-hand commands were not printed when the script ended"
	fi

	# 2. pip present, outside a virtual environment: it refuses; nothing else changes
	ln -s ../recorder "$sb/bin/pip"
	run_plan "$sb" 2 || { fail "$name: run 2 (pip outside a venv) failed"; cat "$sb/err.2" >&2; }
	[ -s "$sb/changes.2" ] && { fail "$name: run 2 changed something:"; cat "$sb/changes.2" >&2; }
	cmp -s "$sb/files.1" "$sb/files.2" || fail "$name: run 2 changed files"

	# P. an old PyTorch in the environment, and the new wheels cannot be
	# downloaded: the step fails, the script says so, nothing is removed
	if [ -n "$torch" ] && [ -z "$interp" ]; then
		echo 2.4.0+cpu >"$sb/state/torch"
		own "$sb"
		if run_plan "$sb" P VIRTUAL_ENV="$sb/venv" PIP_FAIL=download; then
			fail "$name: the PyTorch download failed, but the script exited 0"
		fi
		grep -q 'rocmcheck plan: step torch failed (exit status [1-9][0-9]*)\. Done: .*\. Skipped: none\. Not run: none\.' "$sb/err.P" ||
			{ fail "$name: a failed PyTorch step: no report of the steps"; cat "$sb/err.P" >&2; }
		grep -qx 2.4.0+cpu "$sb/state/torch" || fail "$name: the download failed, and the installed PyTorch is gone"
		grep -q 'uninstall' "$sb/changes.P" && fail "$name: PyTorch was uninstalled before the new wheels were here"
		grep -v '^python -m pip download ' "$sb/changes.P" >&2 && fail "$name: run P changed more than it downloaded"
		ntests=$((ntests + 1))
	fi

	# 3. in a virtual environment: only the pip steps
	run_plan "$sb" 3 VIRTUAL_ENV="$sb/venv" || { fail "$name: run 3 (in a venv) failed"; cat "$sb/err.3" >&2; }
	if grep -v '^python -m pip ' "$sb/changes.3" >&2; then fail "$name: run 3 changed more than the Python environment"; fi
	if [ -n "$interp" ]; then
		grep -q 'step torch skipped: it runs in the Python environment of' "$sb/err.3" ||
			fail "$name: run 3 did not say that $interp is missing"
	elif [ -n "$torch" ] && [ ! -s "$sb/changes.3" ]; then
		fail "$name: run 3 did not install PyTorch in the venv"
	fi

	# 4. nothing left to do
	run_plan "$sb" 4 VIRTUAL_ENV="$sb/venv" || { fail "$name: run 4 failed"; cat "$sb/err.4" >&2; }
	[ -s "$sb/changes.4" ] && { fail "$name: run 4 changed something:"; cat "$sb/changes.4" >&2; }
	cmp -s "$sb/files.3" "$sb/files.4" || fail "$name: run 4 changed files"
	while IFS= read -r g; do
		[ -n "$g" ] || continue
		# the absent interpreter's guard cannot hold here (see run 3)
		[ -n "$interp" ] && case $g in "$interp "*) continue ;; esac
		in_sandbox "$sb" VIRTUAL_ENV="$sb/venv" -- /bin/sh -c "$g" ||
			fail "$name: after the runs, the guard still says to do it: $g"
	done <"$T/guards"
	if [ -n "$described" ]; then
		in_sandbox "$sb" VIRTUAL_ENV="$sb/venv" -- "$ROCMCHECK_RUN" "${args[@]}" --check >"$sb/check.4" 2>&1 ||
			{ fail "$name: plan --check after the runs: steps pending"; cat "$sb/check.4" >&2; }
	fi

	# what the runs did to files no stand-in records
	if grep -q 'env_clean_bashrc' "$sb/plan.sh"; then
		grep -q 'alias ll' "$sb/home/.bashrc" || fail "$name: removed an unrelated ~/.bashrc line"
		grep -q '^PATH=' "$sb/root/etc/environment" || fail "$name: removed PATH from /etc/environment"
	fi
	if grep -q 'iommu=pt' "$sb/plan.sh"; then
		grep -q 'GRUB_CMDLINE_LINUX="iommu=pt ' "$sb/root/etc/default/grub" || fail "$name: iommu=pt not added"
	fi
	if grep -q 'usermod' "$sb/plan.sh"; then
		[ -f "$sb/state/groups/alice" ] && grep -qx render "$sb/state/groups/alice" ||
			fail "$name: the user running the plan (alice, USER unset) is not in render"
	fi

	# R. as root, no sudo on PATH: the user is named, never root
	sandbox "$name.root" "$os"
	rb=$RUNROOT/$name.root
	cp "$sb/plan.sh" "$rb/plan.sh"
	rm "$rb/bin/sudo"
	own "$rb"
	run_plan "$rb" 1 RUN_UID=0 RUN_AS=root ROCMCHECK_USER=alice ||
		{ fail "$name: as root without sudo (ROCMCHECK_USER=alice): exit $?"; cat "$rb/err.1" >&2; }
	grep 'sudo is not installed\|sudo: not found' "$rb/err.1" >&2 && fail "$name: as root, the script wanted sudo"
	if [ -n "$described" ]; then
		# converged: without a virtual environment the PyTorch step cannot
		# run here, which is not pending (a provisioning loop ends)
		in_sandbox "$rb" RUN_UID=0 RUN_AS=root ROCMCHECK_USER=alice -- "$ROCMCHECK_RUN" "${args[@]}" --check \
			>"$rb/check.1" 2>&1 || { fail "$name: as root, plan --check after run 1: exit $?, expected 0"; cat "$rb/check.1" >&2; }
		if [ -n "$torch" ]; then
			grep -q '^  cannot_run *torch .*(cannot run here: it runs in an active virtual or conda environment' "$rb/check.1" ||
				{ fail "$name: plan --check without a virtual environment: torch not 'cannot run here'"; cat "$rb/check.1" >&2; }
		fi
	fi
	sed "s|$sb|SANDBOX|g" "$sb/changes.1" >"$T/user.changes"
	sed "s|$rb|SANDBOX|g" "$rb/changes.1" >"$T/root.changes"
	diff -u "$T/user.changes" "$T/root.changes" >&2 || fail "$name: as root, other commands than the user's run 1"
	run_plan "$rb" 2 RUN_UID=0 RUN_AS=root ROCMCHECK_USER=alice ||
		{ fail "$name: as root, run 2 failed"; cat "$rb/err.2" >&2; }
	[ -s "$rb/changes.2" ] && { fail "$name: as root, run 2 changed something:"; cat "$rb/changes.2" >&2; }
	cmp -s "$rb/files.1" "$rb/files.2" || fail "$name: as root, run 2 changed files"
	if grep -q 'usermod' "$sb/plan.sh"; then
		[ -f "$rb/state/groups/alice" ] && grep -qx render "$rb/state/groups/alice" ||
			fail "$name: as root, ROCMCHECK_USER=alice is not in render"
	fi
	if grep -q 'usermod .*ROCMCHECK_USER:-' "$sb/plan.sh"; then
		if run_plan "$rb" 3 RUN_UID=0 RUN_AS=root; then
			fail "$name: as root, no user named: the groups step did not fail"
		fi
		grep -q 'ROCMCHECK_USER=NAME' "$rb/err.3" || { fail "$name: as root, no user named: no message"; cat "$rb/err.3" >&2; }
		grep -q 'step groups failed' "$rb/err.3" || fail "$name: as root, no user named: the report does not name the step"
		grep -q '^usermod' "$rb/changes.3" && fail "$name: as root, no user named: usermod ran"
		[ -e "$rb/state/groups/root" ] && fail "$name: root was added to a group"
	fi
	ntests=$((ntests + 1))

	# F. the package manager fails: a plan that uses it stops, saying so
	sandbox "$name.pmfail" "$os"
	fb=$RUNROOT/$name.pmfail
	cp "$sb/plan.sh" "$fb/plan.sh"
	own "$fb"
	if [ -n "$described" ]; then
		# on another OS, the plan stops before it changes anything, and
		# --check says that the plan is not this machine's
		cp "$fb/root/etc/os-release" "$T/os-release"
		printf 'ID=plan9\nVERSION_ID="4"\n' >"$fb/root/etc/os-release"
		if run_plan "$fb" O; then fail "$name: on another OS, the plan ran"; fi
		grep -q 'this plan is for .*another OS: nothing done' "$fb/err.O" || fail "$name: on another OS: no message"
		[ -s "$fb/changes.O" ] && fail "$name: on another OS, the plan changed something"
		in_sandbox "$fb" -- "$ROCMCHECK_RUN" "${args[@]}" --check >"$fb/check.O" 2>&1
		rc=$?
		[ "$rc" = 1 ] && grep -q '^rocmcheck plan --check: the plan is for .*another OS' "$fb/check.O" ||
			{ fail "$name: plan --check on another OS: exit $rc"; cat "$fb/check.O" >&2; }
		cp "$T/os-release" "$fb/root/etc/os-release"
	fi
	if grep -q '^apt-get \|^dnf \|^zypper ' "$sb/changes.1"; then
		if run_plan "$fb" 1 PKG_FAIL=1; then
			fail "$name: the package manager failed, but the script exited 0"
		fi
		grep -q 'rocmcheck plan: step [A-Za-z0-9_]* failed (exit status 100)\. Done: .*\. Not run: .*\.' "$fb/err.1" ||
			{ fail "$name: a failed package manager: no report of the steps"; cat "$fb/err.1" >&2; }
	else
		run_plan "$fb" 1 PKG_FAIL=1 || { fail "$name: no package manager step, and yet it failed"; cat "$fb/err.1" >&2; }
	fi
	ntests=$((ntests + 1))

	# the recorded commands, as reviewed in tests/plans/NAME.run
	{
		echo "# run 1: a fresh machine, pip missing, USER unset"
		cat "$sb/changes.1"
		echo "# run 3: in a virtual environment"
		cat "$sb/changes.3"
	} | sed "s|$sb|SANDBOX|g" >"$T/$name.run"
	ncommands=$((ncommands + $(cat "$sb/changes.1" "$sb/changes.3" | wc -l)))
	[ -n "$REGEN" ] && cp "$T/$name.run" "$PLANS/$name.run"
	if [ ! -f "$PLANS/$name.run" ]; then
		fail "$name: no tests/plans/$name.run (ROCMCHECK_REGEN=1 writes it)"
	else
		diff -u "$PLANS/$name.run" "$T/$name.run" >&2 ||
			fail "$name: the commands run differ from tests/plans/$name.run (ROCMCHECK_REGEN=1 rewrites it)"
	fi
	nplans=$((nplans + 1))
	ntests=$((ntests + 1))
done

# Secure Boot without the DKMS key: the plan stops, saying so, and imports nothing
name=fixture-amd-rx7900xt-ubuntu2404-secureboot
if [ -f "$T/$name.run" ]; then
	sandbox nokey
	sb=$RUNROOT/nokey
	"$ROCMCHECK" --sysroot "$TESTS_DIR/fixtures/${name#fixture-}" plan >"$sb/plan.sh"
	rm "$sb/root/var/lib/shim-signed/mok/MOK.der"
	own "$sb"
	if run_plan "$sb" 1; then
		fail "secure boot without the key file: the plan went on"
	fi
	grep -q 'no DKMS signing key .*/var/lib/shim-signed/mok/MOK.der' "$sb/err.1" ||
		{ fail "secure boot without the key file: no message"; cat "$sb/err.1" >&2; }
	grep -q '^mokutil --import' "$sb/changes.1" && fail "secure boot without the key file: mokutil --import ran"
	ntests=$((ntests + 1))
else
	fail "$name: its plan did not run"
fi

# every expected list belongs to a plan that ran
for f in "$PLANS"/*.run; do
	[ -e "$f" ] || continue
	[ -f "$T/$(basename "$f")" ] || fail "$(basename "$f"): no such plan ran (stale expected list)"
done
[ "$nplans" -ge 25 ] || fail "only $nplans plans ran"
echo "plans run: $nplans (no plan possible: $nskipped), commands recorded: $ncommands" >&2
finish
