#!/bin/bash
# --json purity: stdout is exactly one JSON document, valid against the schema;
# the exit status is the report's summary.exit_status.
. "$(dirname "$0")/lib.sh"

check_report() { # ARGS...
	run any "$@"
	if ! validate_json "$OUT"; then
		fail "rocmcheck $*: stdout is not a valid rocmcheck.report/1 document"
		last
		return
	fi
	local es
	es=$(json_get "$OUT" 'd.get("summary", {}).get("exit_status", 0)')
	[ "$STATUS" = "$es" ] || fail "rocmcheck $*: exit status $STATUS but summary.exit_status $es"
}

check_report --json
check_report doctor --json
check_report --format json doctor --level quick
check_report --format=json doctor --level standard
check_report doctor --json -v
check_report doctor --json -q --color always
check_report devices --json
[ "$(json_get "$OUT" 'list(d.keys())')" = "['schema', 'tool', 'source', 'level', 'host', 'gpus', 'stack', 'checks', 'probes', 'summary']" ] ||
	fail "devices --json is not the report of its device.present run"
[ "$(json_get "$OUT" '[c["id"] for c in d["checks"]]')" = "['device.present']" ] ||
	fail "devices --json judges by other checks than device.present"

# --color always must not leak escapes into JSON
run any doctor --json --color always
grep -q $'\033' "$OUT" && fail "ESC byte in JSON output with --color always"

# key order is stable: schema first, summary last
run any doctor --json --level quick
[ "$(json_get "$OUT" 'list(d.keys())[0] + "," + list(d.keys())[-1]')" = "schema,summary" ] ||
	fail "report keys are not in the spec's order"
[ "$(json_get "$OUT" 'd["level"]')" = quick ] || fail "level is not quick"
[ "$(json_get "$OUT" 'd["source"]["kind"]')" = live ] || fail "source.kind is not live"

# every fixture, in JSON, validates (the fixtures come with the checks work):
# doctor and devices of each, then all the reports in one Python (one
# per report was most of this test's time)
reports=()
for fx in $(fixtures); do
	for cmd in doctor devices; do
		f=$T/$(basename "$fx").$cmd.json
		args=(--json)
		[ $cmd = doctor ] && args+=(--level quick)
		run any --sysroot "$fx" $cmd "${args[@]}"
		mv "$OUT" "$f"
		echo "$STATUS" >"$f.status"
		reports+=("$f")
	done
done
validate_json "${reports[@]}" || fail "a fixture's report is not a valid rocmcheck.report/1 document"
"$PYTHON" - "${reports[@]}" <<'PY' || fail "a fixture's report: exit status or source.kind (above)"
import json, sys
bad = 0
for f in sys.argv[1:]:
    d, status = json.load(open(f)), int(open(f + ".status").read())
    want = d.get("summary", {}).get("exit_status", 0)
    if status != want:
        print(f"{f}: exit status {status} but summary.exit_status {want}", file=sys.stderr)
        bad = 1
    if f.endswith(".doctor.json") and d["source"]["kind"] != "sysroot":
        print(f"{f}: source.kind is not sysroot", file=sys.stderr)
        bad = 1
sys.exit(bad)
PY

finish
