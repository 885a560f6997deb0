#!/bin/bash
# `devices` lists what doctor judges: the inventory's GPUs, GPUs on PCI that
# no driver exposes (without an index), WSL's /dev/dxg; and it exits 1 exactly
# when doctor's device.present check fails.
. "$(dirname "$0")/lib.sh"

FIXDIR=$TESTS_DIR/fixtures

# an AMD GPU on PCI with no driver bound (Secure Boot rejected amdgpu)
run 1 --sysroot "$FIXDIR/amd-rx7900xt-ubuntu2404-secureboot" devices
assert_out_lacks "No GPUs found"
grep -q "^-   amd .*0000:03:00.0  none .*(not usable: no driver bound)$" "$OUT" || { fail "no row for the unbound GPU"; last; }
assert_out_has "GPU present: no GPU found"
assert_out_has "fix: "

# WSL: the GPU is /dev/dxg, as doctor says
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-wsl2-ubuntu2204" devices
assert_out_lacks "No GPUs found"
assert_out_has "GPU under WSL .*/dev/dxg"

# nothing on PCI: no GPU, exit 1, and the reason
run 1 --sysroot "$FIXDIR/none-server-debian12-nogpu" devices
assert_out_has "No GPUs found."
assert_out_has "check that the card is seated"

# every fixture: devices fails exactly when doctor's device.present does, and
# the JSON's gpus are the text's indexed rows
for fx in $(fixtures); do
	name=$(basename "$fx")
	"$ROCMCHECK" --sysroot "$fx" --json doctor --level quick --only device.present >"$T/d.json" 2>/dev/null
	want=$(json_get "$T/d.json" "1 if d['checks'][0]['status'] in ('fail', 'error') else 0")
	run "$want" --sysroot "$fx" devices
	rows=$(grep -c '^[0-9]' "$OUT")
	run "$want" --sysroot "$fx" --json devices
	[ "$(json_get "$OUT" 'len(d["gpus"])')" = "$rows" ] || fail "$name: devices text and JSON disagree on the GPUs"
done

finish
