#!/bin/bash
# One cross-check over every fixture's report: a fix must agree with the rest
# of the report it is printed in (spec/checks.md, "what a fix must satisfy";
# issue 10). For `doctor --level quick --json` of each fixture:
#   - no fix reinstalls what the report says is installed: the PyTorch build
#     a framework.torch result is about, or the installed ROCm release;
#   - no two fixes disagree: a variable exported with two values, exported
#     and unset, two different ROCm releases installed;
#   - no fix overrides the target of a GPU that another fix hides (an
#     integrated GPU is hidden, never overridden);
#   - no fix does what another check says fails: DKMS (or kernel headers
#     for it) where system.kernel says DKMS builds fail, `modprobe amdgpu`
#     while system.secure_boot says the module's key is rejected;
#   - no fix installs packages with signature checks turned off.
# The DKMS rule must meet at least one fixture where system.kernel says
# DKMS fails and a ROCm install is advised (else it proves nothing).
# The rules are also run on made-up reports that break each of them, so a
# rule that stops matching fails here instead of passing silently.
# ROCMCHECK_FIXTURES="name1 name2" limits the run.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tests_dir=${TESTS_DIR:-$(dirname "$here")}
fixtures_dir=$tests_dir/fixtures
python=/usr/bin/python3
rocmcheck=${ROCMCHECK:-}
if [ -z "$rocmcheck" ] || [ ! -x "$rocmcheck" ]; then
	echo "SKIP: no rocmcheck binary (set ROCMCHECK)" >&2
	exit 77
fi
if [ ! -x "$python" ]; then
	echo "SKIP: $python is needed to read the reports" >&2
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-fixcheck.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

cat >"$work/rules.py" <<'EOF'
import json
import re
import sys

EXPORT = re.compile(r"^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
UNSET = re.compile(r"^unset ((?:[A-Za-z_][A-Za-z0-9_]* ?)+)$")
INDEX = re.compile(r"--index-url \S*/whl/(rocm[0-9.]+|cu[0-9]+)\b")
BUILD = re.compile(r"backend (ROCm|CUDA) ([0-9]+)\.([0-9]+)")
ROCM_DEB = re.compile(r"amdgpu-install[_/]([0-9]+\.[0-9]+)")
HEADERS = re.compile(r"\b(linux-headers-|kernel-devel|kernel-headers-|kernel-default-devel)")
UNSIGNED = re.compile(r"(--no-gpg-checks|--nogpgcheck|--no-gpgcheck|--allow-unauthenticated|--nosignature|trusted=yes)")


def fixes(doc):
    for c in doc.get("checks", []):
        fx = c.get("fix") or {}
        for cmd in fx.get("commands") or []:
            yield c, cmd.strip()


def where(c):
    return c["id"] + ("" if c.get("gpu") is None else " (GPU %d)" % c["gpu"])


def installed_tag(c):
    """The wheel tag of the build a framework result is about: rocm6.1, cu121."""
    for e in c.get("evidence", []):
        m = BUILD.search(e.get("value", ""))
        if m:
            return ("rocm%s.%s" if m.group(1) == "ROCm" else "cu%s%s") % (m.group(2), m.group(3))
    return None


def check(doc):
    bad = []
    exports, unsets = {}, {}
    for c, cmd in fixes(doc):
        m = EXPORT.match(cmd)
        if m:
            exports.setdefault(m.group(1), {}).setdefault(m.group(2), set()).add(where(c))
        m = UNSET.match(cmd)
        if m:
            for v in m.group(1).split():
                unsets.setdefault(v, set()).add(where(c))
    # one value per variable, never exported and unset
    for var, vals in exports.items():
        if len(vals) > 1:
            bad.append("%s is exported with %d values: %s" % (
                var, len(vals), "; ".join("%s by %s" % (v, ", ".join(sorted(w))) for v, w in sorted(vals.items()))))
        if var in unsets:
            bad.append("%s is exported by %s and unset by %s" % (
                var, ", ".join(sorted(set().union(*vals.values()))), ", ".join(sorted(unsets[var]))))
    # an integrated GPU is hidden, never overridden
    hides = any(v in exports for v in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"))
    gpus = {g.get("kfd_node"): g for g in doc.get("gpus", []) if g.get("kfd_node") is not None}
    for var in exports:
        m = re.match(r"^HSA_OVERRIDE_GFX_VERSION_([0-9]+)$", var)
        g = gpus.get(int(m.group(1))) if m else None
        if hides and g is not None and g.get("integrated"):
            bad.append("%s overrides the integrated GPU %d that another fix hides" % (var, g["index"]))
    if hides and "HSA_OVERRIDE_GFX_VERSION" in exports:
        dgpu_needs = any(c["id"] == "device.arch" and c["status"] == "warn" and c.get("gpu") is not None
                         and not next((g for g in doc.get("gpus", []) if g["index"] == c["gpu"]), {}).get("integrated")
                         and "HSA_OVERRIDE_GFX_VERSION" in c.get("summary", "")
                         for c in doc.get("checks", []))
        if not dgpu_needs:
            bad.append("HSA_OVERRIDE_GFX_VERSION is set for a GPU that another fix hides")
    # no reinstall of what is installed
    for c, cmd in fixes(doc):
        m = INDEX.search(cmd)
        if m and c["id"].startswith("framework.") and installed_tag(c) == m.group(1):
            bad.append("%s reinstalls the %s build that is installed: %s" % (where(c), m.group(1), cmd))
    rocm = ((doc.get("stack") or {}).get("rocm") or {}).get("version")
    releases = {}
    for c, cmd in fixes(doc):
        for rel in ROCM_DEB.findall(cmd):
            releases.setdefault(rel, set()).add(where(c))
            if rocm and rocm.startswith(rel + ".") and "--usecase=wsl" not in cmd:
                bad.append("%s reinstalls ROCm %s, which is installed: %s" % (where(c), rocm, cmd))
    if len(releases) > 1:
        bad.append("fixes install different ROCm releases: %s" % "; ".join(
            "%s by %s" % (r, ", ".join(sorted(w))) for r, w in sorted(releases.items())))
    # nothing another check says fails
    status = {}
    for c in doc.get("checks", []):
        status.setdefault(c["id"], []).append(c)
    dkms_fails = any(c["status"] == "warn" and "DKMS" in c.get("summary", "") for c in status.get("system.kernel", []))
    sb_rejects = any(c["status"] == "fail" for c in status.get("system.secure_boot", []))
    for c, cmd in fixes(doc):
        if dkms_fails and "amdgpu-install" in cmd and "--usecase" in cmd and "--no-dkms" not in cmd:
            bad.append("%s installs the DKMS driver, which system.kernel says fails to build: %s" % (where(c), cmd))
        if dkms_fails and c["id"].startswith("rocm.") and HEADERS.search(cmd) and any(
                "--no-dkms" in k for k in c["fix"].get("commands") or []):
            bad.append("%s installs kernel headers for a DKMS build it leaves out: %s" % (where(c), cmd))
        if UNSIGNED.search(cmd):
            bad.append("%s installs with signature checks off: %s" % (where(c), cmd))
        if sb_rejects and c["id"] != "system.secure_boot" and re.search(r"\bmodprobe amdgpu\b", cmd):
            bad.append("%s loads amdgpu, which Secure Boot rejects until the key is enrolled: %s" % (where(c), cmd))
    return bad


def dkms_rule_met(doc):
    """system.kernel says DKMS fails and a ROCm install is advised."""
    kernel = [c for c in doc.get("checks", []) if c["id"] == "system.kernel"]
    fails = any(c["status"] == "warn" and "DKMS" in c.get("summary", "") for c in kernel)
    return fails and any("amdgpu-install" in cmd and "--usecase" in cmd for _, cmd in fixes(doc))


def made_up():
    """Reports that break each rule once: every one must be caught."""
    def chk(cid, status, cmds, gpu=None, summary="", evidence=()):
        return {"id": cid, "status": status, "gpu": gpu, "summary": summary, "evidence": list(evidence),
                "fix": {"text": "t", "commands": cmds}}
    igpu = {"index": 1, "kfd_node": 2, "integrated": True}
    dgpu = {"index": 0, "kfd_node": 1, "integrated": False}
    torch_ev = [{"path": "torch/version.py", "value": "torch 2.4.0+rocm6.1, backend ROCm 6.1"}]
    return [
        ("two values", {"checks": [chk("a.a", "warn", ["export X=1"]), chk("b.b", "warn", ["export X=2"])]}),
        ("export and unset", {"checks": [chk("a.a", "warn", ["export X=1"]), chk("b.b", "warn", ["unset X"])]}),
        ("override a hidden iGPU", {"gpus": [dgpu, igpu], "checks": [
            chk("device.arch", "warn", ["export HSA_OVERRIDE_GFX_VERSION_2=10.3.0"], gpu=1),
            chk("device.igpu", "warn", ["export ROCR_VISIBLE_DEVICES=0"])]}),
        ("global override for a hidden iGPU", {"gpus": [dgpu, igpu], "checks": [
            chk("device.arch", "warn", ["export HSA_OVERRIDE_GFX_VERSION=10.3.0"], gpu=1,
                summary="HSA_OVERRIDE_GFX_VERSION=10.3.0 makes it run"),
            chk("device.igpu", "warn", ["export ROCR_VISIBLE_DEVICES=0"])]}),
        ("reinstall the wheel", {"checks": [chk("framework.torch", "warn", [
            "pip install torch --index-url https://download.pytorch.org/whl/rocm6.1"], evidence=torch_ev)]}),
        ("reinstall ROCm", {"stack": {"rocm": {"version": "6.2.0"}}, "checks": [chk("rocm.version", "warn", [
            "wget https://repo.radeon.com/amdgpu-install/6.2.4/ubuntu/jammy/amdgpu-install_6.2.60204-1_all.deb"])]}),
        ("two releases", {"checks": [
            chk("device.arch", "fail", ["wget https://repo.radeon.com/amdgpu-install/6.3/x/amdgpu-install_6.3.60300-1_all.deb"]),
            chk("rocm.version", "warn", ["wget https://repo.radeon.com/amdgpu-install/7.1/x/amdgpu-install_7.1.70100-1_all.deb"])]}),
        ("DKMS where it fails", {"checks": [
            chk("system.kernel", "warn", [], summary="DKMS amdgpu builds fail there"),
            chk("rocm.install", "fail", ["sudo amdgpu-install -y --usecase=rocm"])]}),
        ("headers for a build without DKMS", {"checks": [
            chk("system.kernel", "warn", [], summary="DKMS amdgpu builds fail there"),
            chk("rocm.install", "fail", ["sudo apt-get install -y linux-headers-6.18.0 linux-modules-extra-6.18.0",
                                         "sudo amdgpu-install -y --usecase=rocm --no-dkms"])]}),
        ("signature checks off", {"checks": [chk("rocm.install", "fail", [
            "sudo zypper --non-interactive --no-gpg-checks install https://repo.radeon.com/x.rpm"])]}),
        ("modprobe under Secure Boot", {"checks": [
            chk("system.secure_boot", "fail", ["sudo mokutil --import /var/lib/dkms/mok.pub"]),
            chk("driver.amdgpu", "fail", ["sudo modprobe amdgpu"])]}),
    ]


if sys.argv[1] == "dkms-met":
    with open(sys.argv[2], encoding="utf-8") as f:
        sys.exit(0 if dkms_rule_met(json.load(f)) else 1)
if sys.argv[1] == "selftest":
    missed = [name for name, doc in made_up() if not check(doc)]
    for name in missed:
        print("rule not caught on a made-up report: %s" % name, file=sys.stderr)
    sys.exit(1 if missed else 0)
with open(sys.argv[2], encoding="utf-8") as f:
    problems = check(json.load(f))
for p in problems:
    print("  " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF

failures=0
if ! "$python" "$work/rules.py" selftest; then
	echo "FAIL: the consistency rules miss a made-up contradiction" >&2
	failures=$((failures + 1))
fi

selected=${ROCMCHECK_FIXTURES:-}
count=0
dkms_met=0
for dir in "$fixtures_dir"/*/; do
	name=$(basename "$dir")
	if [ -n "$selected" ] && ! [[ " $selected " == *" $name "* ]]; then continue; fi
	count=$((count + 1))
	NO_COLOR=1 "$rocmcheck" --sysroot "$dir" doctor --level quick --json >"$work/$name.json" 2>/dev/null
	rc=$?
	if [ $rc -ge 2 ]; then
		echo "FAIL: $name: doctor exited $rc" >&2
		failures=$((failures + 1))
		continue
	fi
	if ! "$python" "$work/rules.py" report "$work/$name.json"; then
		echo "FAIL: $name: a fix contradicts its report (above)" >&2
		failures=$((failures + 1))
	fi
	if "$python" "$work/rules.py" dkms-met "$work/$name.json"; then
		dkms_met=$((dkms_met + 1))
	fi
done
if [ -z "$selected" ] && [ $dkms_met -eq 0 ]; then
	echo "FAIL: no fixture has a ROCm install where system.kernel says DKMS fails: the DKMS rule proves nothing" >&2
	failures=$((failures + 1))
fi
echo "$count fixtures, $failures failures"
[ $failures -eq 0 ]
