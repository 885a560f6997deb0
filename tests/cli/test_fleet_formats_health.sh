#!/bin/bash
# Health results and readings in the fleet formats, without the consumers
# test_fleet_formats.sh needs (it skips without promtool): every fixture's
# --format prometheus parsed by a strict reader of the text exposition
# format, and on the health fixtures the gauges people graph (temperature,
# power, PCIe link, ECC counts, retired pages, only where the value is
# known), the NFD health label and the JUnit test cases, one per check and GPU.
. "$(dirname "$0")/lib.sh"

export SOURCE_DATE_EPOCH=1764590400
FX=$TESTS_DIR/fixtures

# prom_ok FILE: FILE is valid Prometheus text exposition (format 0.0.4):
# HELP and TYPE at most once per family and before its samples, a family's
# samples together, valid names, label values with only \\ \" \n escapes, no
# series twice, a counter never negative; every rocmcheck_gpu_* sample has
# gpu, pci and model labels.
prom_ok() {
	"$PYTHON" - "$1" <<'PY'
import math, re, sys
name_re = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"')
bad = []
types, helps, done, series = {}, set(), set(), set()
current = None
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    line = line.rstrip("\n")
    where = "line %d: %r" % (n, line)
    if line.startswith("#"):
        m = re.fullmatch(r"# (HELP|TYPE) (\S+) (.+)", line)
        if not m:
            continue
        kind, fam, rest = m.groups()
        if not name_re.fullmatch(fam):
            bad.append("bad family name, " + where)
        if fam in done or (kind == "HELP" and fam in helps) or (kind == "TYPE" and fam in types):
            bad.append("HELP/TYPE again or after samples, " + where)
        if kind == "TYPE":
            if rest not in ("counter", "gauge", "histogram", "summary", "untyped"):
                bad.append("bad type, " + where)
            types[fam] = rest
        else:
            helps.add(fam)
        continue
    m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
    if not m:
        bad.append("not a sample, " + where)
        continue
    name, labels, value = m.groups()
    if name != current:
        if name in done:
            bad.append("family split, " + where)
        if current:
            done.add(current)
        current = name
    if name not in types:
        bad.append("sample before its TYPE, " + where)
    keys = []
    if labels:
        pos = 0
        for lm in label_re.finditer(labels):
            if lm.start() != pos:
                break
            keys.append(lm.group(1))
            pos = lm.end() + (1 if labels[lm.end():lm.end() + 1] == "," else 0)
        if pos != len(labels):
            bad.append("bad labels, " + where)
    if len(set(keys)) != len(keys):
        bad.append("label twice, " + where)
    if name.startswith("rocmcheck_gpu_") and name != "rocmcheck_gpu_info" and keys[:3] != ["gpu", "pci", "model"]:
        bad.append("no gpu, pci, model labels, " + where)
    try:
        v = float(value)
    except ValueError:
        bad.append("bad value, " + where)
        continue
    if types.get(name) == "counter" and (math.isnan(v) or v < 0):
        bad.append("counter not a count, " + where)
    key = (name, labels)
    if key in series:
        bad.append("series twice, " + where)
    series.add(key)
for b in bad[:10]:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# The reader refuses what it should.
printf '# TYPE a gauge\na{x="1"} 1\n# TYPE b gauge\nb 1\na{x="2"} 1\n' >"$T/split.prom"
printf 'a 1\n' >"$T/notype.prom"
printf '# TYPE a gauge\na{x="\\q"} 1\n' >"$T/escape.prom"
printf '# TYPE a gauge\na{x="1"} 1\na{x="1"} 2\n' >"$T/twice.prom"
for f in split notype escape twice; do
	ntests=$((ntests + 1))
	prom_ok "$T/$f.prom" 2>/dev/null && fail "the exposition reader accepts $f.prom"
done

for f in $(fixtures); do
	run any --sysroot "$f" --format prometheus doctor --level quick
	prom_ok "$OUT" || fail "$(basename "$f"): not valid exposition format"
done

# prom FIXTURE: its metrics in $OUT
prom() {
	run any --sysroot "$FX/$1" --format prometheus doctor --level quick
}
L='gpu="0",pci="0000:03:00.0",model="AMD Radeon RX 7900 XTX"'

# A hot idle Radeon: hwmon temperatures, limits and power, the link.
prom amd-rx7900xtx-ubuntu2204-hotidle
assert_out_has '^rocmcheck_check_status{check="health.thermal",category="health",gpu="0"} 2$'
assert_out_has '^rocmcheck_check_status{check="health.power",category="health",gpu="0"} 1$'
assert_out_has '^# TYPE rocmcheck_gpu_temperature_celsius gauge$'
assert_out_has "^rocmcheck_gpu_temperature_celsius{$L,sensor=\"junction\"} 106\$"
assert_out_has "^rocmcheck_gpu_temperature_celsius{$L,sensor=\"edge\"} 86\$"
assert_out_has "^rocmcheck_gpu_temperature_critical_celsius{$L,sensor=\"junction\"} 110\$"
assert_out_has "^rocmcheck_gpu_power_watts{$L} 31\$"
assert_out_has "^rocmcheck_gpu_power_cap_watts{$L} 250\$"
assert_out_has "^rocmcheck_gpu_power_cap_default_watts{$L} 327\$"
assert_out_has "^rocmcheck_gpu_pcie_link_width{$L,kind=\"current\"} 16\$"
assert_out_has "^rocmcheck_gpu_pcie_link_width{$L,kind=\"max\"} 16\$"
assert_out_has "^rocmcheck_gpu_pcie_link_speed_gts{$L,kind=\"current\"} 2.5\$"
assert_out_has "^rocmcheck_gpu_pcie_link_speed_gts{$L,kind=\"max\"} 16\$"
# no RAS files on a Radeon: no ECC or page series, not zeros
assert_out_lacks '^rocmcheck_gpu_ecc_errors_total'
assert_out_lacks '^rocmcheck_gpu_retired_pages'
assert_out_lacks '^# TYPE rocmcheck_gpu_ecc_errors_total'

# A link trained x4 behind the card's own switch: the path's narrowest link.
prom amd-rx7900xtx-ubuntu2204-linkx4
assert_out_has "^rocmcheck_gpu_pcie_link_width{$L,kind=\"current\"} 4\$"
assert_out_has "^rocmcheck_gpu_pcie_link_width{$L,kind=\"max\"} 16\$"
prom amd-rx7900xtx-ubuntu2204-slotx8
assert_out_has "^rocmcheck_gpu_pcie_link_width{$L,kind=\"current\"} 8\$"

# MI300X with uncorrectable errors: RAS counts by block and type, bad pages
# by state; its peer's zeros are known zeros.
prom amd-mi300x-rhel94-rasue
M='gpu="0",pci="0000:05:00.0",model="AMD Instinct MI300X"'
assert_out_has '^rocmcheck_check_status{check="health.ecc",category="health",gpu="0"} 2$'
assert_out_has '^# TYPE rocmcheck_gpu_ecc_errors_total counter$'
assert_out_has "^rocmcheck_gpu_ecc_errors_total{$M,block=\"umc\",type=\"uncorrectable\"} 2\$"
assert_out_has "^rocmcheck_gpu_ecc_errors_total{$M,block=\"umc\",type=\"correctable\"} 14\$"
assert_out_has "^rocmcheck_gpu_retired_pages{$M,state=\"pending\"} 1\$"
assert_out_has "^rocmcheck_gpu_retired_pages{$M,state=\"failed\"} 1\$"
assert_out_has "^rocmcheck_gpu_retired_pages{$M,state=\"retired\"} 1\$"
assert_out_has '^rocmcheck_gpu_ecc_errors_total{gpu="1",pci="0000:26:00.0",model="AMD Instinct MI300X",block="umc",type="uncorrectable"} 0$'
# no hwmon in this capture: no temperature or power series
assert_out_lacks '^rocmcheck_gpu_temperature'
assert_out_lacks '^rocmcheck_gpu_power'

# NVIDIA: the driver has no hwmon, so no temperature gauge (and no zero).
for fx in nvidia-rtx4090-ubuntu2204-xid79 nvidia-rtx4090-ubuntu2204-xid13 nvidia-rtx4090-ubuntu2204-healthynoisy; do
	prom "$fx"
	assert_out_lacks '^rocmcheck_gpu_temperature'
	assert_out_lacks '^rocmcheck_gpu_power'
	assert_out_lacks '^rocmcheck_gpu_ecc_errors_total'
	assert_out_has '^rocmcheck_gpu_pcie_link_width{gpu="0",pci="0000:01:00.0",model="NVIDIA GeForce RTX 4090",kind="current"} 16$'
done
prom nvidia-rtx4090-ubuntu2204-xid79
assert_out_has '^rocmcheck_check_status{check="health.kernel_log",category="health",gpu="0"} 2$'

# NFD: the worst health status of the node, and each health result by GPU.
nfd() {
	run any --sysroot "$FX/$1" --format nfd doctor --level quick
}
nfd amd-rx7900xtx-ubuntu2204-hotidle
assert_out_has '^rocmcheck.io/health=fail$'
assert_out_has '^rocmcheck.io/check.health.thermal.gpu0=fail$'
assert_out_has '^rocmcheck.io/check.health.power.gpu0=warn$'
nfd amd-rx7900xtx-ubuntu2204-ringreset
assert_out_has '^rocmcheck.io/health=warn$'
assert_out_has '^rocmcheck.io/check.health.kernel_log.gpu0=warn$'
nfd amd-rx7900xtx-ubuntu2204-healthynoisy
assert_out_has '^rocmcheck.io/health=pass$'
assert_out_lacks '^rocmcheck.io/check.health'
nfd nvidia-rtx4090-ubuntu2204-xid79
assert_out_has '^rocmcheck.io/health=fail$'
assert_out_has '^rocmcheck.io/check.health.kernel_log.gpu0=fail$'
# no GPU judged: every health check skipped
nfd amd-rx7900xt-ubuntu2404-secureboot
assert_out_has '^rocmcheck.io/health=skip$'
# not run: no label
run 0 --sysroot "$FX/amd-rx7900xtx-ubuntu2204-hotidle" --format nfd doctor --level quick --only perm.
assert_out_lacks '^rocmcheck.io/health='

# JUnit: one test case per health check and GPU, classname rocmcheck.health.
run 1 --sysroot "$FX/amd-mi300x-rhel94-rasue" --format junit doctor --level quick
assert_out_has '<testcase classname="rocmcheck.health" name="health.ecc \[gpu 0\]" time="0.000000">'
assert_out_has '<testcase classname="rocmcheck.health" name="health.ecc \[gpu 1\]" time="0.000000"/>'
assert_out_has '<failure message="0000:05:00.0 (AMD Instinct MI300X): 2 uncorrectable memory errors (first in the umc block)" type="fail">'
run 1 --sysroot "$FX/amd-rx7900xtx-ubuntu2204-hotidle" --format junit doctor --level quick
assert_out_has '<testcase classname="rocmcheck.health" name="health.thermal \[gpu 0\]" time="0.000000">'
assert_out_has '<failure message="0000:03:00.0 (AMD Radeon RX 7900 XTX): junction at 106 °C, within 5 °C of its critical 110 °C (0 % busy)" type="fail">'

# A PCI GPU with no index (here: the RTX 4090 as a processing accelerator,
# which the inventory does not count) and a log line tied to no GPU: two
# health.kernel_log results without a GPU. Prometheus gives their worst,
# labels the readings with pci and an empty gpu; NFD one label; JUnit two
# test cases with distinct names.
U=$T/unindexed
cp -a "$FX/nvidia-rtx4090-ubuntu2204-xid79" "$U"
cls=$(readlink -f "$U/sys/bus/pci/devices/0000:01:00.0")/class
[ "${cls#"$U"/}" != "$cls" ] || fail "the fixture's class file is outside the copy"
echo 0x120000 >"$cls"
echo '[  100.000000] NVRM: Xid (PCI:0000:99:00): 13, pid=4242, name=python3, Graphics SM Warp Exception' \
	>>"$U/.rocmcheck/kernel.log"
run 1 --sysroot "$U" --format prometheus doctor --level quick
prom_ok "$OUT" || fail "unindexed: not valid exposition format"
assert_out_has '^rocmcheck_check_status{check="health.kernel_log",category="health",gpu=""} 2$'
assert_out_has '^rocmcheck_gpu_pcie_link_width{gpu="",pci="0000:01:00.0",model="10de:2684",kind="current"} 16$'
run 1 --sysroot "$U" --format nfd doctor --level quick
[ "$(grep -c '^rocmcheck.io/check.health.kernel_log=' "$OUT")" = 1 ] || fail "unindexed: not one kernel_log label"
assert_out_has '^rocmcheck.io/check.health.kernel_log=fail$'
run 1 --sysroot "$U" --format junit doctor --level quick
assert_out_has '<testcase classname="rocmcheck.health" name="health.kernel_log" time="0.000000">'
assert_out_has '<testcase classname="rocmcheck.health" name="health.kernel_log #2" time="0.000000">'
dup=$(grep -o '<testcase classname="[^"]*" name="[^"]*"' "$OUT" | sort | uniq -d)
[ -z "$dup" ] || fail "unindexed: JUnit test case names twice: $dup"
if command -v xmllint >/dev/null; then
	ntests=$((ntests + 1))
	xmllint --noout --schema "$TESTS_DIR/schemas/junit.xsd" "$OUT" 2>"$T/xmllint" ||
		{ fail "unindexed: JUnit output is not valid"; cat "$T/xmllint" >&2; }
fi
finish
