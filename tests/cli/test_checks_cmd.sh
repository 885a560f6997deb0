#!/bin/bash
# `checks` lists the catalog of spec/checks.md; `checks --explain ID` explains each.
. "$(dirname "$0")/lib.sh"

run 0 checks
head -n1 "$OUT" | grep -q '^ID  *CATEGORY  *TITLE' || fail "checks: no header line"
tail -n +2 "$OUT" | awk '{print $1}' >"$T/ids"
[ -s "$T/ids" ] || fail "checks listed nothing"

# every ID of the contract (spec/checks.md) is in the table
for id in system.kernel system.os system.wsl system.container system.secure_boot system.iommu \
	driver.amdgpu driver.kfd driver.nvidia device.present device.arch device.igpu device.vram \
	perm.kfd perm.render perm.nvidia rocm.install rocm.version rocm.runtime rocm.rocblas \
	cuda.driver cuda.toolkit framework.torch framework.tensorflow \
	env.launch_blocking env.hsa_override env.visible_devices env.pytorch_rocm_arch; do
	grep -qx "$id" "$T/ids" || fail "checks: $id of spec/checks.md is missing"
done
[ "$(sort "$T/ids" | uniq -d)" = "" ] || fail "checks: duplicate IDs: $(sort "$T/ids" | uniq -d)"

while read -r id; do
	run 0 checks --explain "$id"
	head -n1 "$OUT" | grep -q "^$id: " || fail "checks --explain $id: first line is not '$id: TITLE'"
	assert_out_has '^category: '
	assert_out_has '^flags: '
	[ "$(wc -l <"$OUT")" -ge 5 ] || fail "checks --explain $id: no explanation text"
done <"$T/ids"

run 0 checks --explain rocm.runtime
assert_out_has 'loads a GPU runtime'

# the probes are in the table, and --explain knows them
for id in probe.rtc probe.gemm.fp32 probe.gemm.fp16 probe.conv probe.conv.fp16 probe.amp probe.bandwidth \
	probe.blas.fp32 probe.dnn.fp16 probe.sustained; do
	grep -qx "$id" "$T/ids" || fail "checks: probe $id is missing"
done
run 0 checks --explain probe.gemm.fp32
assert_out_has '^probe.gemm.fp32: FP32 GEMM on the GPU$'
assert_out_has '^category: probe$'

# --explain wraps at 80 columns when stdout is not a terminal
awk 'length($0) > 80 { bad = 1 } END { exit bad }' "$OUT" || fail "checks --explain has a line over 80 columns"
run 0 checks --explain system.secure_boot
awk 'length($0) > 80 { print; bad = 1 } END { exit bad }' "$OUT" >"$T/long" || fail "system.secure_boot: lines over 80: $(cat "$T/long")"
[ "$(wc -l <"$OUT")" -ge 8 ] || fail "system.secure_boot: not wrapped"

# --json: every check and probe ID, with category, title, flags and what it reads
run 0 checks --json
"$PYTHON" - "$OUT" "$T/ids" <<'PY' || fail "checks --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rocmcheck.checks/1", d["schema"]
ids = open(sys.argv[2]).read().split()
assert [c["id"] for c in d["checks"]] == ids, "checks --json and checks list other IDs"
for c in d["checks"]:
    assert c["kind"] == ("probe" if c["id"].startswith("probe.") else "check"), c
    assert c["category"] and c["title"], c
    assert set(c["flags"]) <= {"live_only", "runtime", "per_gpu"}, c
    assert c["reads"] and "\n" not in c["reads"], c
perm = {c["id"]: c for c in d["checks"]}["perm.kfd"]
assert perm["reads"].startswith("Reads /dev/kfd"), perm
PY
usage_error checks --json --explain perm.kfd

finish
