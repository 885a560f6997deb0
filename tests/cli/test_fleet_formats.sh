#!/bin/bash
# The fleet formats of `doctor`, checked by their real consumers on every
# fixture: --format prometheus with promtool (and served by node_exporter's
# textfile collector), --format junit against tests/schemas/junit.xsd with
# xmllint, --format nfd against the Kubernetes label syntax. The exit status
# is doctor's in every format; the formats are doctor's only.
. "$(dirname "$0")/lib.sh"

for tool in promtool xmllint prometheus-node-exporter; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool is not installed (ci/test-deps installs it)"
		exit 77
	fi
done

XSD=$TESTS_DIR/schemas/junit.xsd
export SOURCE_DATE_EPOCH=1764590400 # 2025-12-01T12:00:00Z

# A line of a Node Feature Discovery feature file: a comment, or
# rocmcheck.io/NAME=VALUE with NAME and VALUE Kubernetes label text.
nfd_ok() {
	"$PYTHON" - "$1" <<'PY'
import re, sys
part = r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)"
line_re = re.compile(r"^rocmcheck\.io/" + part + "=" + part + "?$")
bad = 0
names = set()
expiry = False
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if line.startswith("# +expiry-time="):
        expiry = re.fullmatch(r"# \+expiry-time=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", line) is not None
        continue
    if line.startswith("#"):
        continue
    if not line_re.match(line):
        print("bad NFD line: %r" % line, file=sys.stderr)
        bad = 1
    name = line.split("=", 1)[0]
    if name in names:
        print("label twice: %s" % name, file=sys.stderr)
        bad = 1
    names.add(name)
if not expiry:
    print("no valid # +expiry-time= line", file=sys.stderr)
    bad = 1
sys.exit(bad)
PY
}

for f in $(fixtures); do
	name=$(basename "$f")
	run any --sysroot "$f" doctor --level quick
	want=$STATUS
	run "$want" --sysroot "$f" --format prometheus doctor --level quick
	promtool check metrics <"$OUT" >"$T/promtool" 2>&1 || { fail "$name: promtool rejects the metrics"; cat "$T/promtool" >&2; }
	grep -q '^rocmcheck_check_status{check="system.kernel",category="system",gpu=""} ' "$OUT" ||
		fail "$name: no system.kernel sample"
	grep -q "^rocmcheck_exit_status $want\$" "$OUT" || fail "$name: rocmcheck_exit_status is not $want"
	grep -q '^rocmcheck_last_run_timestamp_seconds 1764590400$' "$OUT" || fail "$name: timestamp"
	# one series per label set
	dup=$(grep -v '^#' "$OUT" | sed 's/ [^ ]*$//' | sort | uniq -d)
	[ -z "$dup" ] || fail "$name: duplicate series: $dup"

	run "$want" --sysroot "$f" --format junit doctor --level quick
	xmllint --noout --schema "$XSD" "$OUT" 2>"$T/xmllint" || { fail "$name: JUnit output is not valid"; cat "$T/xmllint" >&2; }
	fails=$("$ROCMCHECK" --sysroot "$f" --json doctor --level quick | "$PYTHON" -c \
		'import json,sys; d=json.load(sys.stdin); print(d["summary"]["fail"])')
	grep -q "<testsuites name=\"rocmcheck\" tests=\"[0-9]*\" failures=\"$fails\"" "$OUT" ||
		fail "$name: JUnit failures count is not $fails"
	[ "$(grep -c '<failure ' "$OUT")" = "$fails" ] || fail "$name: not one <failure> per failed check"

	run "$want" --sysroot "$f" --format nfd doctor --level quick
	nfd_ok "$OUT" || fail "$name: NFD feature file"
	if [ "$want" = 0 ]; then
		assert_out_has '^rocmcheck.io/healthy=true$'
	else
		assert_out_has '^rocmcheck.io/healthy=false$'
	fi
	assert_out_has '^# +expiry-time=2025-12-01T14:00:00Z$'
done

# What the failing fixture says, label by label and series by series.
norender=$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-norender
run 1 --sysroot "$norender" --format nfd doctor --level quick
assert_out_has '^rocmcheck.io/check.perm.kfd=fail$'
assert_out_has '^rocmcheck.io/gpu.arch.gfx1100=true$'
assert_out_has '^rocmcheck.io/gpu.model=AMD-Radeon-RX-7900-XTX$'
run 1 --sysroot "$norender" --format prometheus doctor --level quick
assert_out_has '^rocmcheck_check_status{check="perm.kfd",category="permissions",gpu=""} 2$'
assert_out_has '^rocmcheck_gpu_info{index="0",vendor="amd",arch="gfx1100",name="AMD Radeon RX 7900 XTX",pci="0000:03:00.0"} 1$'
run 1 --sysroot "$norender" --format junit doctor --level quick
assert_out_has '<testcase classname="rocmcheck.permissions" name="perm.kfd" time="0.000000">'
assert_out_has 'sudo usermod -aG render,video alice</failure>'

# node_exporter's textfile collector serves the file as written.
mkdir -p "$T/textfile"
"$ROCMCHECK" --sysroot "$norender" --format prometheus doctor --level quick >"$T/textfile/rocmcheck.prom"
port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T/textfile" >"$T/exporter.log" 2>&1 &
exporter=$!
"$PYTHON" - "$port" >"$T/metrics" <<'PY'
import sys, time, urllib.request
url = "http://127.0.0.1:%s/metrics" % sys.argv[1]
for _ in range(100):
    try:
        sys.stdout.write(urllib.request.urlopen(url, timeout=2).read().decode())
        break
    except OSError:
        time.sleep(0.1)
PY
kill "$exporter" 2>/dev/null
wait "$exporter" 2>/dev/null
ntests=$((ntests + 1))
grep -q '^rocmcheck_check_status{category="permissions",check="perm.kfd",gpu=""} 2$' "$T/metrics" ||
	{ fail "node_exporter does not serve rocmcheck_check_status"; tail -5 "$T/exporter.log" >&2; }
grep -q '^node_textfile_scrape_error 0$' "$T/metrics" || fail "node_exporter reports a textfile scrape error"

# --output: the file node_exporter and NFD read is replaced whole. A reader
# polling it during 200 rewrites never sees a partial file (40 in a
# sanitizer build: each is five times slower there while the reader spins
# on a core, and the replacement is the same code).
rewrites=200
sanitized && rewrites=40
out=$T/textfile/rocmcheck.prom
run 1 --sysroot "$norender" --format prometheus doctor --level quick --output "$out"
[ -s "$OUT" ] && fail "--output also wrote to stdout"
"$ROCMCHECK" --sysroot "$norender" --format prometheus doctor --level quick >"$T/direct.prom"
cmp -s "$out" "$T/direct.prom" || fail "--output differs from standard output"
[ "$(stat -c %a "$out")" = 644 ] || fail "--output file mode $(stat -c %a "$out"), expected 644"
"$PYTHON" - "$out" >"$T/reader.log" 2>&1 <<'PY' &
import os, sys, time
path, bad, reads = sys.argv[1], 0, 0
end = time.time() + 600
while not os.path.exists(path + ".stop") and time.time() < end:
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        continue
    reads += 1
    if not text.endswith("\n") or "rocmcheck_last_run_timestamp_seconds" not in text:
        bad += 1
print("reads", reads, "partial", bad)
sys.exit(1 if bad or reads == 0 else 0)
PY
reader=$!
for i in $(seq $rewrites); do
	SOURCE_DATE_EPOCH=$((1764590400 + i)) "$ROCMCHECK" --sysroot "$norender" --format prometheus doctor --level quick \
		--output "$out" 2>>"$T/writer.err"
done
touch "$out.stop"
ntests=$((ntests + 1))
wait "$reader" || { fail "a reader saw a partial file: $(cat "$T/reader.log")"; cat "$T/writer.err" >&2; }
echo "reader: $(cat "$T/reader.log")"
grep -q "^rocmcheck_last_run_timestamp_seconds $((1764590400 + rewrites))\$" "$out" || fail "the last rewrite is not the file"
ls "$T/textfile" | grep -v -e '^rocmcheck.prom$' -e '^rocmcheck.prom.stop$' && fail "temporary files left behind"
# into a FIFO: written in place, the FIFO stays one
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
run 1 --sysroot "$norender" --format nfd doctor --level quick --output "$T/fifo"
wait
[ -p "$T/fifo" ] || fail "the FIFO was replaced"
grep -q '^rocmcheck.io/healthy=false$' "$T/fifo.out" || fail "nothing came through the FIFO"

# doctor's only; a typo names the formats.
usage_error --format prometheus devices
usage_error --format junit plan
usage_error --sysroot "$norender" doctor --format promethus
finish
