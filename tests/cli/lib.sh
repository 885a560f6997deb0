# Shared helpers for tests/cli/test_*.sh. Source it first:
#   . "$(dirname "$0")/lib.sh"
# ctest sets ROCMCHECK, SOURCE_DIR, BUILD_DIR and TESTS_DIR (tests/CMakeLists.txt);
# by hand, they default to the source tree and ./build.
# Each test calls `run STATUS ARGS...`, asserts on $OUT/$ERR, and ends with `finish`.

set -u

TESTS_DIR=${TESTS_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SOURCE_DIR=${SOURCE_DIR:-$(cd "$TESTS_DIR/.." && pwd)}
BUILD_DIR=${BUILD_DIR:-$SOURCE_DIR/build}
ROCMCHECK=${ROCMCHECK:-$BUILD_DIR/rocmcheck}
SCHEMA=$SOURCE_DIR/man/rocmcheck.report-1.schema.json
PYTHON=/usr/bin/python3

if [ ! -x "$ROCMCHECK" ]; then
	echo "no rocmcheck binary at $ROCMCHECK" >&2
	exit 1
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
OUT=$T/stdout
ERR=$T/stderr
STATUS=0
failures=0
ntests=0

# The environment a user would have: no colour forcing, a UTF-8 locale, no GPU
# variables leaking in from the developer's shell.
unset NO_COLOR HSA_OVERRIDE_GFX_VERSION HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES \
	CUDA_VISIBLE_DEVICES GPU_DEVICE_ORDINAL PYTORCH_ROCM_ARCH HIP_LAUNCH_BLOCKING \
	AMD_SERIALIZE_KERNEL AMD_SERIALIZE_COPY CUDA_LAUNCH_BLOCKING LD_DEBUG
export LC_ALL=C.UTF-8

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# Describe the last run, for failure messages.
last() {
	echo "--- stdout:" >&2
	head -c 2000 "$OUT" >&2
	echo "--- stderr:" >&2
	head -c 2000 "$ERR" >&2
}

# run EXPECTED_STATUS ARGS...: run rocmcheck with stdout in $OUT, stderr in $ERR.
run() {
	local want=$1
	shift
	ntests=$((ntests + 1))
	"$ROCMCHECK" "$@" >"$OUT" 2>"$ERR" </dev/null
	STATUS=$?
	if [ "$STATUS" -ge 128 ]; then
		fail "rocmcheck $* died from signal $((STATUS - 128))"
		last
	elif [ "$want" != any ] && [ "$STATUS" != "$want" ]; then
		fail "rocmcheck $*: exit status $STATUS, expected $want"
		last
	fi
}

# A usage error: status 2, nothing on stdout, a "rocmcheck: " line and a hint on stderr.
usage_error() {
	run 2 "$@"
	[ -s "$OUT" ] && fail "rocmcheck $*: usage error wrote to stdout"
	head -n1 "$ERR" | grep -q '^rocmcheck: ' || fail "rocmcheck $*: first stderr line is not 'rocmcheck: ...'"
	grep -q -- '--help' "$ERR" || fail "rocmcheck $*: no hint pointing at --help"
	[ "$(wc -l <"$ERR")" -le 2 ] || fail "rocmcheck $*: more than an error line and a hint on stderr"
}

assert_out_has() {
	grep -q -- "$1" "$OUT" || { fail "stdout lacks '$1'"; last; }
}
assert_out_lacks() {
	grep -q -- "$1" "$OUT" && { fail "stdout has '$1'"; last; }
	return 0
}
assert_err_has() {
	grep -q -- "$1" "$ERR" || { fail "stderr lacks '$1'"; last; }
}

# validate_json FILE...: each FILE holds exactly one JSON document, valid
# against the rocmcheck.report/1 schema; for a report with checks, the summary
# counts every entry and exit_status agrees with the statuses. Many files in
# one call share one Python (its start and the schema's load are most of the
# time of one file); with more than one, a message names its file.
validate_json() {
	"$PYTHON" - "$SCHEMA" "$@" <<'PY'
import json, sys
try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(2)
validator = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))


def problems(path):
    text = open(path, encoding="utf-8").read()
    try:
        doc = json.loads(text)  # rejects trailing text: one document only
    except ValueError as e:
        return [f"not one JSON document: {e}"]
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        return [f"schema: {'/'.join(map(str, e.path))}: {e.message}" for e in errors[:10]]
    if "checks" not in doc:
        return []
    # observe-only results that did not pass are counted apart (policy.ini)
    observed = [c for c in doc["checks"] if c.get("observe") and c["status"] not in ("pass", "skip")]
    entries = [c for c in doc["checks"] if c not in observed] + doc["probes"]
    s = doc["summary"]
    if len(observed) != s.get("observed", 0):
        return [f"summary.observed is {s.get('observed')}, entries say {len(observed)}"]
    for st in ("pass", "warn", "fail", "skip", "error"):
        n = sum(1 for c in entries if c["status"] == st)
        if n != s[st]:
            return [f"summary.{st} is {s[st]}, entries say {n}"]
    bad = any(c["status"] in ("fail", "error") for c in entries)
    if bad and s["exit_status"] != 1:
        return ["a fail/error entry but exit_status 0"]
    return []


failed = 0
for path in sys.argv[2:]:
    msgs = problems(path)
    for m in msgs:
        print((f"{path}: " if len(sys.argv) > 3 else "") + m, file=sys.stderr)
    failed += bool(msgs)
sys.exit(1 if failed else 0)
PY
}

# json_get FILE EXPR: print a Python expression over the parsed document `d`.
json_get() {
	"$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# Every fixture sysroot shipped in tests/fixtures (none: empty list).
fixtures() {
	local d
	for d in "$TESTS_DIR"/fixtures/*/; do
		[ -d "$d.rocmcheck" ] && echo "${d%/}"
	done
	return 0
}

# True for a sanitizer build (ROCMCHECK_SANITIZE=ON in BUILD_DIR): a test
# whose sizes show nothing more there may run smaller ones.
sanitized() {
	grep -q '^ROCMCHECK_SANITIZE:BOOL=ON$' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null
}

# True when this machine has a GPU that rocmcheck could find.
machine_has_gpu() {
	[ -e /dev/kfd ] || [ -e /dev/nvidia0 ] || [ -e /dev/dxg ]
}

finish() {
	if [ "$failures" -gt 0 ]; then
		echo "$failures failure(s) in $ntests runs" >&2
		exit 1
	fi
	echo "ok: $ntests runs"
	exit 0
}

# validate_schema SCHEMA FILE...: every FILE is one JSON document valid
# against the JSON schema SCHEMA (man/*.schema.json).
validate_schema() {
	"$PYTHON" - "$@" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for name in sys.argv[2:]:
    for e in sorted(v.iter_errors(json.load(open(name))), key=lambda e: list(e.path))[:5]:
        print(f"{name}: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
}
