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

finish
