#!/bin/bash
# `devices` lists what doctor judges: the inventory's GPUs, GPUs on PCI that
# no driver exposes (without an index), WSL's /dev/dxg; and it exits 1 exactly
# when doctor's device.present check fails. Its second table (and each JSON
# GPU's telemetry) says what the GPU's files say now: the hottest sensor and
# its limit, power and cap, the GPU's own PCIe link, VRAM use, RAS, MI300
# partitions; unknown is "-" and null, never 0; NVML-only values on NVIDIA
# are n/a (devices does not read NVML). It reads files only: no GPU library,
# milliseconds. doctor's JSON report carries the same telemetry.
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

# a container with no GPU passed in, on a guest whose PCI has six devices and
# no GPU: devices and doctor say what was seen, and system.container fails
# with device.present (it used to pass, "no GPU expected")
box=$FIXDIR/none-docker-debian12-nogpu
seen="no GPU among the 6 PCI devices visible in this container; /dev/kfd, /dev/dri and /dev/nvidia\* are not passed in"
run 1 --sysroot "$box" devices
assert_out_has "GPU present: no GPU found: $seen"
assert_out_lacks "PCI shows nothing"
assert_out_has "--device /dev/kfd --device /dev/dri"
run 1 --sysroot "$box" --json doctor --level quick --only system.container,device.present
[ "$(json_get "$OUT" '[(c["id"], c["status"]) for c in d["checks"]]')" = "[('system.container', 'fail'), ('device.present', 'fail')]" ] ||
	fail "GPU-less container: $(json_get "$OUT" '[(c["id"], c["status"], c["summary"]) for c in d["checks"]]')"
json_get "$OUT" '"\n".join(c["summary"] for c in d["checks"])' | grep -c -- "$seen" | grep -qx 2 ||
	fail "GPU-less container: the two checks word it differently: $(json_get "$OUT" '[c["summary"] for c in d["checks"]]')"
[ "$(json_get "$OUT" 'all("--gpus all" in c["fix"]["text"] and "--device /dev/kfd" in c["fix"]["text"] for c in d["checks"])')" = True ] ||
	fail "GPU-less container: a fix lacks the devices to pass in"

# The readings of a JSON report: every GPU has its telemetry, and a reading
# the files lack is null, never 0 (busy_percent and the RAS counts can be 0).
# Each FILE has a FILE.rows: the number of GPUs the text listed.
telemetry_ok() { # FILE...
	"$PYTHON" - "$@" <<'PY'
import json, sys
bad = 0
for f in sys.argv[1:]:
    d = json.load(open(f))
    rows = int(open(f + ".rows").read())
    if len(d["gpus"]) != rows:
        print(f"{f}: devices text ({rows} GPUs) and JSON ({len(d['gpus'])}) disagree on the GPUs", file=sys.stderr)
        bad = 1
    for g in d["gpus"]:
        t = g["telemetry"]
        vals = [t["temperature"]["celsius"], t["temperature"]["critical_celsius"], t["power"]["cap_watts"],
                t["power"]["default_cap_watts"], t["vram"]["used_bytes"], t["vram"]["total_bytes"],
                t["vram"]["visible_bytes"]]
        for link in [t["pcie"]] + t["pcie"]["path"]:
            vals += [link["width"], link["max_width"], link["speed_gts"], link["max_speed_gts"]]
        if any(v == 0 for v in vals):
            print(f"{f}: GPU {g['index']}: a 0 reading: {t}", file=sys.stderr)
            bad = 1
sys.exit(bad)
PY
}

# tel FILE GPU EXPR: a Python expression over GPU's telemetry `t` (d: the report)
tel() {
	"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); t=d['gpus'][int(sys.argv[2])]['telemetry']; print($3)" "$1" "$2"
}

# every fixture: devices fails exactly when doctor's device.present does, the
# JSON's gpus are the text's indexed rows (the first table; the readings
# follow a blank line, a row per GPU), and the JSON validates. The reports
# are read by one Python for all fixtures (one per report was most of the
# time of this test).
mapfile -t fxs < <(fixtures)
for fx in "${fxs[@]}"; do
	"$ROCMCHECK" --sysroot "$fx" --json doctor --level quick --only device.present >"$T/$(basename "$fx").d.json" 2>/dev/null
done
"$PYTHON" - "$T" "${fxs[@]}" >"$T/wants" <<'PY' || fail "doctor --only device.present: a report without its result"
import json, os, sys
for fx in sys.argv[2:]:
    d = json.load(open(os.path.join(sys.argv[1], os.path.basename(fx) + ".d.json")))
    print(fx, 1 if d["checks"][0]["status"] in ("fail", "error") else 0)
PY
devs=()
while read -r fx want; do
	name=$(basename "$fx")
	run "$want" --sysroot "$fx" devices
	rows=$(awk 'NF == 0 { exit } /^[0-9]/' "$OUT" | wc -l)
	readings=$(sed -n '/^GPU TEMP/,/^$/p' "$OUT" | grep -c '^[0-9]')
	[ "$readings" = 0 ] || [ "$readings" = "$rows" ] || fail "$name: $rows GPUs but $readings rows of readings"
	run "$want" --sysroot "$fx" --json devices
	mv "$OUT" "$T/$name.devices.json"
	echo "$rows" >"$T/$name.devices.json.rows"
	devs+=("$T/$name.devices.json")
done <"$T/wants"
[ "${#devs[@]}" = "${#fxs[@]}" ] || fail "devices of ${#fxs[@]} fixtures, ${#devs[@]} run"
validate_json "${devs[@]}" || fail "a fixture's devices --json is not a valid report (above)"
telemetry_ok "${devs[@]}" || fail "a fixture's devices --json: GPUs or telemetry (above)"

# files only: no GPU runtime, management library or libdrm on a sysroot
# (LD_DEBUG=files lists what the loader opened), and milliseconds (it takes
# about 10 ms; the bound is loose for slow and sanitizer builds)
hot=$FIXDIR/amd-rx7900xtx-ubuntu2204-hotidle
for args in devices "--json devices"; do
	ntests=$((ntests + 1))
	# shellcheck disable=SC2086
	LD_DEBUG=files LD_DEBUG_OUTPUT=$T/ld "$ROCMCHECK" --sysroot "$hot" $args >"$OUT" 2>"$ERR" </dev/null
	libs=$(cat "$T"/ld.* 2>/dev/null | sed -n 's/.*file=\([^ ]*\) .*/\1/p' | sort -u)
	rm -f "$T"/ld.*
	grep -q '^libjansson' <<<"$libs" || fail "devices $args: LD_DEBUG=files shows no libjansson: $libs"
	gpu_libs=$(grep -E '^lib(nvidia-ml|cuda|cudart|amdhip64|hsa-runtime64|amd_smi|rocm_smi64|drm)' <<<"$libs")
	[ -z "$gpu_libs" ] || fail "devices $args loads $(tr '\n' ' ' <<<"$gpu_libs")"
done
for fx in "$hot" "$FIXDIR/amd-mi300x-rhel94-rasue" "$FIXDIR/nvidia-h100x8-ubuntu2204-xid79"; do
	start=${EPOCHREALTIME/./}
	run 0 --sysroot "$fx" devices
	ms=$(((${EPOCHREALTIME/./} - start) / 1000))
	[ "$ms" -lt 2000 ] || fail "devices on $(basename "$fx") took $ms ms"
done

# hot idle RX 7900 XTX: junction 106 °C of its 110 °C limit, the power cap
# lowered to 250 W from its default 327 W; in 80 columns. VRAM in whole MiB
# in both tables, the unit of doctor's device.vram (and of rocm-smi and
# nvidia-smi): one unit wherever rocmcheck prints it
run 0 --sysroot "$hot" devices
assert_out_has '^0   amd  *AMD Radeon RX 7900 XTX  gfx1100   24560 MiB   0000:03:00.0 '
assert_out_lacks 'GiB'
"$ROCMCHECK" --sysroot "$hot" doctor --level quick -v 2>/dev/null | grep -q '24560 MiB of VRAM' ||
	fail "doctor -v does not print the 24560 MiB devices prints"
assert_out_has '^GPU TEMP/CRIT  *POWER/CAP  *PCIE NOW/MAX  *VRAM USED  *ECC$'
assert_out_has '^0   junction 106/110°C  31/250 W   x16/16 2.5/16 GT/s  1024/24560 MiB  no RAS$'
assert_out_has "^GPU 0: power cap 250 W, its default 327 W$"
assert_out_lacks "PARTITION"
wide=$(sed -n '/^GPU TEMP/,$p' "$OUT" | while IFS= read -r l; do [ "${#l}" -gt 80 ] && echo "$l"; done)
[ -z "$wide" ] || fail "hot idle: readings wider than 80 columns: $wide"
LC_ALL=C run 0 --sysroot "$hot" devices
assert_out_has "junction 106/110 C "
run 0 --sysroot "$hot" --json devices
[ "$(tel "$OUT" 0 't["temperature"]')" = "{'sensor': 'junction', 'celsius': 106.0, 'critical_celsius': 110.0}" ] ||
	fail "hot idle: JSON temperature $(json_get "$OUT" 'd["gpus"][0]["telemetry"]["temperature"]')"
[ "$(tel "$OUT" 0 't["power"]')" = "{'watts': 31.0, 'cap_watts': 250.0, 'default_cap_watts': 327.0}" ] ||
	fail "hot idle: JSON power $(json_get "$OUT" 'd["gpus"][0]["telemetry"]["power"]')"
[ "$(tel "$OUT" 0 '(t["busy_percent"], t["performance_level"], t["vram"]["visible_bytes"], t["ecc"]["ras"], t["ecc"]["uncorrectable"], t["note"])')" = "(0, 'low', 268435456, False, None, None)" ] ||
	fail "hot idle: JSON busy, level, BAR, RAS $(json_get "$OUT" 'd["gpus"][0]["telemetry"]')"

# the link trained at x4 between the card's switch and the root port: the
# GPU's own link says x16, and a note names the narrow hop
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-ubuntu2204-linkx4" devices
assert_out_has '^0   junction 45/110°C .* x16/16 2.5/16 GT/s '
assert_out_has "^GPU 0: x4 is the narrowest link on its path: 0000:01:00.0 to 0000:00:01.1$"
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-ubuntu2204-linkx4" --json devices
[ "$(tel "$OUT" 0 '(t["pcie"]["width"], t["pcie"]["max_width"], t["pcie"]["path"][0]["pci"], sorted(((h["width"], h["pci"], h["up"]) for h in t["pcie"]["path"] if h["width"]), key=lambda h: h[0])[0])')" = "(16, 16, '0000:03:00.0', (4, '0000:01:00.0', '0000:00:01.1'))" ] ||
	fail "linkx4: JSON pcie $(json_get "$OUT" 'd["gpus"][0]["telemetry"]["pcie"]')"
# a link as wide all the way up: no note
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-ubuntu2204-healthy" devices
assert_out_lacks "narrowest"

# MI300X: 2 uncorrectable errors and one page each retired, pending and
# failed on GPU 0 (SPX), none on GPU 1 (CPX); no hwmon in the capture: "-"
mi=$FIXDIR/amd-mi300x-rhel94-rasue
run 0 --sysroot "$mi" devices
assert_out_has '^GPU TEMP/CRIT .* ECC  *PARTITION$'
assert_out_has '^0   -  *-  *x16/- 32/- GT/s  -/196592 MiB  UE 2, 1R 1P 1F  SPX/NPS1$'
assert_out_has '^1   -  *-  *x16/- 32/- GT/s  -/196592 MiB  UE 0  *CPX/NPS1$'
assert_out_has "^ECC pages: R retired, P pending (retired at the next reset), F failed to retire$"
run 0 --sysroot "$mi" --json devices
[ "$(json_get "$OUT" '[tuple(g["telemetry"]["ecc"][k] for k in ("ras", "uncorrectable", "retired_pages", "pending_pages", "failed_pages")) + (g["telemetry"]["partition"]["compute"],) for g in d["gpus"]]')" = "[(True, 2, 1, 1, 1, 'SPX'), (True, 0, 0, 0, 0, 'CPX')]" ] ||
	fail "MI300X: JSON ecc and partition $(json_get "$OUT" '[g["telemetry"]["ecc"] for g in d["gpus"]]')"
[ "$(tel "$OUT" 0 '(t["temperature"]["celsius"], t["power"]["watts"], t["vram"]["used_bytes"], "no hwmon" in t["note"])')" = "(None, None, None, True)" ] ||
	fail "MI300X: unknown readings are not null"

# NVIDIA: no hwmon, RAS or memory use in files: n/a, never 0
nv=$FIXDIR/nvidia-rtx4090-ubuntu2204-healthy
run 0 --sysroot "$nv" devices
assert_out_has '^0   n/a  *n/a  *x16/- 16/- GT/s  n/a  *n/a$'
assert_out_has "^n/a: the nvidia driver gives these only through NVML (nvidia-smi)"
sed -n '/^GPU TEMP/,$p' "$OUT" | grep -Eq '(^| )0(/| W|°| MiB)' && { fail "NVIDIA: a 0 reading"; last; }
run 0 --sysroot "$nv" --json devices
[ "$(tel "$OUT" 0 '(t["temperature"]["celsius"], t["power"]["watts"], t["power"]["cap_watts"], t["vram"]["used_bytes"], t["ecc"]["ras"], t["ecc"]["uncorrectable"], t["pcie"]["width"], "NVML" in t["note"])')" = "(None, None, None, None, None, None, 16, True)" ] ||
	fail "NVIDIA: JSON telemetry $(json_get "$OUT" 'd["gpus"][0]["telemetry"]')"

# An AMD iGPU (KFD node, GPU 0) beside an NVIDIA card (GPU 1): each vendor
# numbers its own GPUs, so the card is CUDA_VISIBLE_DEVICES=0; the table says
# so, a note explains it, and the JSON gives visible_as
mix=$FIXDIR/nvidia-rtx4090-ubuntu2204-gfx90cigpu
run 0 --sysroot "$mix" devices
assert_out_has '^GPU VENDOR .* RENDER  *VISIBLE AS$'
assert_out_has '^0   amd .*(integrated) .* 512 MiB .*/dev/dri/renderD129  ROCR_VISIBLE_DEVICES=0$'
assert_out_has '^1   nvidia .*RTX 4090 .*/dev/dri/renderD128  CUDA_VISIBLE_DEVICES=0$'
assert_out_has '^VISIBLE AS: each vendor numbers its own GPUs'
run 0 --sysroot "$mix" --json devices
[ "$(json_get "$OUT" '[(g["index"], g["visible_as"]["index"], g["visible_as"]["variables"]) for g in d["gpus"]]')" = "[(0, 0, ['ROCR_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES']), (1, 0, ['CUDA_VISIBLE_DEVICES'])]" ] ||
	fail "iGPU + dGPU: JSON visible_as $(json_get "$OUT" '[g.get("visible_as") for g in d["gpus"]]')"
# the number shown is the one the variable takes: with CUDA_VISIBLE_DEVICES=0
# the card stays visible (rocmcheck applies the runtimes' rule); with its GPU
# column's 1 it is hidden
for v in 0 1; do
	rm -rf "$T/mix"
	cp -a "$mix" "$T/mix"
	sed -i "s/^\[env\]\$/[env]\nCUDA_VISIBLE_DEVICES = $v/" "$T/mix/.rocmcheck/host.ini"
	run any --sysroot "$T/mix" --json devices
	want=$([ "$v" = 0 ] && echo True || echo False)
	[ "$(json_get "$OUT" 'd["gpus"][1]["visible"]')" = "$want" ] ||
		fail "CUDA_VISIBLE_DEVICES=$v: the RTX 4090's visible is $(json_get "$OUT" 'd["gpus"][1]["visible"]'), want $want"
done
run any --sysroot "$T/mix" devices
assert_out_has '^1   nvidia .*CUDA_VISIBLE_DEVICES=0  (hidden by \*_VISIBLE_DEVICES)$'
# one vendor: the numbers agree and no note is needed
run 0 --sysroot "$FIXDIR/amd-rx7900xtx-ubuntu2204-healthy" devices
assert_out_has '  ROCR_VISIBLE_DEVICES=0$'
assert_out_lacks '^VISIBLE AS:'

# doctor's report carries the same telemetry (what fleet compares across nodes)
"$ROCMCHECK" --sysroot "$hot" --json doctor --level quick >"$T/d.json" 2>/dev/null
run 0 --sysroot "$hot" --json devices
[ "$(json_get "$T/d.json" '[g["telemetry"] for g in d["gpus"]]')" = "$(json_get "$OUT" '[g["telemetry"] for g in d["gpus"]]')" ] ||
	fail "doctor --json and devices --json differ in telemetry"
[ "$(json_get "$T/d.json" 'd["gpus"][0]["telemetry"]["temperature"]["celsius"]')" = 106.0 ] || fail "doctor --json telemetry"

finish
