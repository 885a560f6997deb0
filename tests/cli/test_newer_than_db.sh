#!/bin/bash
# A machine newer than the profile database (issue 26 item 3): a ROCm, CUDA,
# amdgpu DKMS, NVIDIA driver or PyTorch release newer than every one it lists,
# a gfx target or NVIDIA PCI id past the ones it knows, a kernel series past
# its newest. On the fixtures made for it, each affected check warns (never
# fails) naming the database's own version and `rocmcheck profiles update`,
# and neither the doctor's fixes nor `plan` downgrade anything to the
# releases the database knows.
. "$(dirname "$0")/lib.sh"

FIXDIR=$TESTS_DIR/fixtures
run 0 --json version
db=$(json_get "$OUT" 'd["profiles"]["version"]')
[ -n "$db" ] || fail "no database version from version --json"

# judged FIXTURE STATUS CHECK[:GPU]...: the doctor's exit status, and each
# named check warns with the database's version and the update.
judged() {
	local fx=$1 want=$2
	shift 2
	run "$want" --sysroot "$FIXDIR/$fx" --json doctor --level quick
	cp "$OUT" "$T/$fx.json"
	"$PYTHON" - "$T/$fx.json" "$db" "$@" <<'PY' || fail "$fx: doctor"
import json, re, sys
doc, db, wanted = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3:]
bad = []
for w in wanted:
    cid, _, gpu = w.partition(":")
    rs = [c for c in doc["checks"] if c["id"] == cid and (not gpu or c.get("gpu") == int(gpu))]
    if len(rs) != 1:
        bad.append(f"{w}: {len(rs)} results")
        continue
    c = rs[0]
    fix = c.get("fix") or {}
    if c["status"] != "warn":
        bad.append(f"{w}: {c['status']}, not warn: {c['summary']}")
    if f"profile database ({db})" not in c["summary"] or "rocmcheck profiles update" not in c["summary"]:
        bad.append(f"{w}: summary names neither the database {db} nor the update: {c['summary']}")
    if fix.get("commands") != ["rocmcheck profiles update"] or f"({db}) is older than this machine" not in fix.get("text", ""):
        bad.append(f"{w}: fix is not the database update: {fix}")
# no fix of any check installs a ROCm release, a wheel or a kernel
for c in doc["checks"]:
    for cmd in (c.get("fix") or {}).get("commands", []):
        if re.search(r"amdgpu-install|pip install|apt-get install|dnf install|grub-reboot|downgrade", cmd):
            bad.append(f"{c['id']}: installs: {cmd}")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# planned FIXTURE: the plan has no step, only notes naming the update
planned() {
	local fx=$1
	run 0 --sysroot "$FIXDIR/$fx" plan --format json
	"$PYTHON" - "$OUT" <<'PY' || fail "$fx: plan"
import json, sys
d = json.load(open(sys.argv[1]))
bad = [f"step {s['id']}: {s['commands']}" for s in d["steps"]]
if not any("rocmcheck profiles update" in n["commands"] for n in d["notes"]):
    bad.append("no note names rocmcheck profiles update")
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	run 0 --sysroot "$FIXDIR/$fx" plan
	assert_out_lacks 'amdgpu-install\|pip install\|apt-get install'
}

# ROCm 7.5, kernel series 7.1, PyTorch 2.12 (a ROCm 7.5 build)
judged amd-rx7900xtx-ubuntu2404-newerthandb 0 system.kernel rocm.version framework.torch
json_get "$T/amd-rx7900xtx-ubuntu2404-newerthandb.json" '[c["status"] for c in d["checks"] if c["id"] == "device.arch"][0]' |
	grep -qx pass || fail "newerthandb: gfx1100 is supported through the newest release: device.arch must pass"
planned amd-rx7900xtx-ubuntu2404-newerthandb

# gfx1250 and amdgpu DKMS 6.20 with ROCm 7.2; rocBLAS has no gfx1250 files
# (a fact of the files: rocm.rocblas fails), and nothing is downgraded
judged amd-gfx1250-ubuntu2404-newgpu 1 device.arch:0 rocm.version
"$PYTHON" - "$T/amd-gfx1250-ubuntu2404-newgpu.json" <<'PY' || fail "newgpu: rocblas and torch fixes"
import json, sys
d = json.load(open(sys.argv[1]))
for cid in ("rocm.rocblas", "framework.torch"):
    c = [c for c in d["checks"] if c["id"] == cid][0]
    assert (c.get("fix") or {}).get("commands") == ["rocmcheck profiles update"], (cid, c.get("fix"))
PY
planned amd-gfx1250-ubuntu2404-newgpu

# RTX 5090's PCI id, driver 600, CUDA 13.2, PyTorch 2.12+cu132
judged nvidia-rtx5090-ubuntu2204-newerthandb 0 device.arch:0 cuda.toolkit framework.torch
grep -q 'NVIDIA driver 600.20.03 than every driver branch it knows' "$T/nvidia-rtx5090-ubuntu2204-newerthandb.json" ||
	fail "rtx5090: cuda.toolkit does not name the driver newer than the database"
planned nvidia-rtx5090-ubuntu2204-newerthandb

# what the database knows is judged as before: an installed ROCm 6.2 that
# does not list the kernel keeps its kernel_supported verdict
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-ubuntu2404-kerneltoonew" --json doctor --level quick --only system.kernel
assert_out_has 'DKMS amdgpu builds fail there'
assert_out_lacks 'profiles update'

finish
