#!/bin/bash
# `version`, `--version`, and every help text.
. "$(dirname "$0")/lib.sh"

run 0 version
head -n1 "$OUT" | grep -Eq '^rocmcheck [0-9]+\.[0-9]+\.[0-9]+' || fail "version: first line is not 'rocmcheck X.Y.Z'"
assert_out_has '^kernel targets:'
# one line per vendor; the CUDA one names the compiler of its kernels and the
# driver they need, or why there are none
assert_out_has '^  hip:'
assert_out_has '^  rtc:'
if grep -q '^  cuda: none (' "$OUT"; then
	assert_out_lacks '^  cuda: NVRTC'
else
	assert_out_has '^  cuda: NVRTC 12\.[0-9]*\.[0-9]*: sm_70,sm_75,sm_80,sm_86,sm_89,sm_90,sm_90a cubins + compute_70 PTX, needs driver >= 525\.60\.13 (cubins), >= [0-9.]* (PTX)$'
fi
assert_out_has '^profiles: '
cp "$OUT" "$T/version"
run 0 --version
cmp -s "$OUT" "$T/version" || fail "--version differs from version"
# version --json: the same facts, machine-readable
run 0 version --json
"$PYTHON" - "$OUT" "$T/version" <<'PY' || fail "version --json"
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
assert d["schema"] == "rocmcheck.version/1", d
assert text.startswith("rocmcheck %s\n" % d["version"]), d["version"]
runtimes = [t["runtime"] for t in d["kernel_targets"]]
assert "hip" in runtimes and "rtc" in runtimes, runtimes
for t in d["kernel_targets"]:
    assert ("  %s: %s\n" % (t["runtime"], t["targets"])) in text or ("  %s:%s\n" % (t["runtime"], t["targets"])) in text, t
assert d["profiles"]["source"] == "embedded" and d["profiles"]["version"] in text, d["profiles"]
PY
run 0 --json --version
json_ok=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["schema"])' "$OUT")
[ "$json_ok" = rocmcheck.version/1 ] || fail "--json --version: $json_ok"

for h in -h --help; do
	run 0 $h
	assert_out_has '^usage: rocmcheck'
	[ -s "$ERR" ] && fail "rocmcheck $h wrote to stderr"
done
run 0 --help
# every command of spec/cli.md is listed, and has its own help
for cmd in doctor probe devices plan bundle checks profiles version; do
	grep -q "^  $cmd " "$OUT" || fail "--help does not list $cmd"
done
cp "$OUT" "$T/main-help"
for opt in --sysroot --replay --format --json --profiles --color -q --quiet -v --verbose -h --help; do
	grep -q -- "$opt" "$T/main-help" || fail "--help does not mention $opt"
done
for cmd in doctor probe devices plan bundle checks profiles version; do
	run 0 "$cmd" --help
	assert_out_has 'usage: '
	run 0 --help "$cmd"
	assert_out_has 'usage: '
	run 0 "$cmd" -h
done
run 0 doctor --help
for opt in --level quick standard full --only --skip --gpu --fail-on --timeout; do
	assert_out_has "$opt"
done
# `help [COMMAND]` prints what --help prints
run 0 help
cp "$OUT" "$T/help"
cmp -s "$T/help" "$T/main-help" || fail "help differs from --help"
for cmd in doctor probe devices plan bundle checks profiles version; do
	run 0 "$cmd" --help
	cp "$OUT" "$T/cmd-help"
	run 0 help "$cmd"
	cmp -s "$OUT" "$T/cmd-help" || fail "help $cmd differs from $cmd --help"
done
usage_error help frobnicate
assert_err_has "unknown command 'frobnicate'"
usage_error help doctor plan
# every command's help lists its options from its rows, one per line
run 0 help probe
for opt in --gpu --backend --size --iterations --timeout --duration --variant; do
	grep -q "^  $opt " "$OUT" || fail "probe --help lacks the row $opt"
done
# help wins over a broken sysroot: nothing is read for it
run 0 --sysroot "$T/nope" doctor --help

finish
