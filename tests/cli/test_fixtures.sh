#!/bin/bash
# Fixture driver: runs `rocmcheck --sysroot DIR doctor --level quick` on every
# captured machine under tests/fixtures/ and checks
#   - the JSON report equals tests/expected/<fixture>.json (after normalising:
#     4-space indentation, the fixture's absolute path replaced by @FIXTURE@,
#     tool.version replaced by @VERSION@, tool.profiles.version by @PROFILES@),
#   - the JSON validates against man/rocmcheck.report-1.schema.json,
#   - the exit status is 1 when the summary counts a fail or an error, else 0,
#     and equals summary.exit_status,
#   - the process environment does not leak into a sysroot run,
#   - the text report does not crash, exits the same way and ends with a verdict.
#
# ROCMCHECK_REGEN=1 rewrites the expected files (review them by hand against
# tests/fixtures/EXPECTED.md before committing).
# ROCMCHECK_FIXTURES="name1 name2" limits the run to those fixtures.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tests_dir=${TESTS_DIR:-$(dirname "$here")}
source_dir=${SOURCE_DIR:-$(dirname "$tests_dir")}
fixtures_dir=$tests_dir/fixtures
expected_dir=$tests_dir/expected
schema=$source_dir/man/rocmcheck.report-1.schema.json
python=/usr/bin/python3

rocmcheck=${ROCMCHECK:-}
if [ -z "$rocmcheck" ]; then
	for c in "${BUILD_DIR:-}/rocmcheck" "$source_dir/build/rocmcheck"; do
		if [ -x "$c" ]; then rocmcheck=$c; break; fi
	done
fi
if [ -z "$rocmcheck" ] || [ ! -x "$rocmcheck" ]; then
	echo "SKIP: no rocmcheck binary (set ROCMCHECK)" >&2
	exit 77
fi
if [ ! -x "$python" ]; then
	echo "SKIP: $python is needed to compare JSON" >&2
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-fixtures.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# The helper: normalise a report, check it, compare it.
cat >"$work/check.py" <<'EOF'
import json
import os
import sys


def walk(v, fixture_paths):
    if isinstance(v, dict):
        return {k: walk(x, fixture_paths) for k, x in v.items()}
    if isinstance(v, list):
        return [walk(x, fixture_paths) for x in v]
    if isinstance(v, str):
        for p in fixture_paths:
            v = v.replace(p, "@FIXTURE@")
    return v


def normalise(text, fixture_paths):
    doc = json.loads(text)
    doc = walk(doc, fixture_paths)
    if isinstance(doc, dict) and isinstance(doc.get("tool"), dict) and "version" in doc["tool"]:
        doc["tool"]["version"] = "@VERSION@"
        # the profile database's version changes with every data review
        if isinstance(doc["tool"].get("profiles"), dict) and doc["tool"]["profiles"].get("version"):
            doc["tool"]["profiles"]["version"] = "@PROFILES@"
    return doc


def dump(doc):
    return json.dumps(doc, indent=4, ensure_ascii=False) + "\n"


cmd = sys.argv[1]
if cmd == "normalise":
    # normalise RAW OUT FIXTURE_PATH...
    with open(sys.argv[2], encoding="utf-8") as f:
        text = f.read()
    try:
        doc = normalise(text, sorted(sys.argv[4:], key=len, reverse=True))
    except ValueError as e:
        print(f"not JSON: {e}", file=sys.stderr)
        sys.exit(1)
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.write(dump(doc))
elif cmd == "summary":
    # summary NORMALISED -> prints "FAILS EXIT_STATUS" (fail+error count and summary.exit_status)
    with open(sys.argv[2], encoding="utf-8") as f:
        doc = json.load(f)
    s = doc.get("summary") if isinstance(doc, dict) else None
    if not isinstance(s, dict):
        print("no summary object", file=sys.stderr)
        sys.exit(1)
    bad = 0
    for k in ("fail", "error"):
        if not isinstance(s.get(k), int):
            print(f"summary.{k} is not an integer", file=sys.stderr)
            sys.exit(1)
        bad += s[k]
    # every check entry must be counted: recount from the checks array
    counts = {}
    for c in doc.get("checks", []) + doc.get("probes", []):
        counts[c.get("status")] = counts.get(c.get("status"), 0) + 1
    for k in ("pass", "warn", "fail", "skip", "error"):
        if s.get(k) != counts.get(k, 0):
            print(f"summary.{k} = {s.get(k)} but the checks and probes hold {counts.get(k, 0)}",
                  file=sys.stderr)
            sys.exit(1)
    print(bad, s.get("exit_status"))
elif cmd == "validate":
    # validate SCHEMA NORMALISED...: prints the path of each that does not
    # validate (one Python for all: its start is most of the time of one)
    try:
        import jsonschema
    except ImportError:
        print("SKIP-VALIDATION: python3-jsonschema is not installed", file=sys.stderr)
        sys.exit(0)
    with open(sys.argv[2], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    for path in sys.argv[3:]:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        for e in errors[:10]:
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            print(f"  {os.path.basename(path)}: schema: {where}: {e.message}", file=sys.stderr)
        if errors:
            print(path)
    sys.exit(0)
elif cmd == "same":
    # same A B: both normalised reports equal as JSON values
    with open(sys.argv[2], encoding="utf-8") as f:
        a = json.load(f)
    with open(sys.argv[3], encoding="utf-8") as f:
        b = json.load(f)
    sys.exit(0 if a == b else 1)
else:
    sys.exit(2)
EOF

# Variables a user's shell may hold. In a sysroot run rocmcheck must read the
# environment from host.ini only, so setting them must change nothing.
poison=(
	HSA_OVERRIDE_GFX_VERSION=9.9.9
	HSA_OVERRIDE_GFX_VERSION_1=9.9.9
	ROCR_VISIBLE_DEVICES=7
	HIP_VISIBLE_DEVICES=7
	CUDA_VISIBLE_DEVICES=7
	HIP_LAUNCH_BLOCKING=1
	AMD_SERIALIZE_KERNEL=3
	PYTORCH_ROCM_ARCH=gfx000
	VIRTUAL_ENV=/nonexistent-venv
	CONDA_PREFIX=/nonexistent-conda
	ROCM_PATH=/nonexistent-rocm
	SUDO_USER=mallory
)
clean_vars=()
for p in "${poison[@]}"; do clean_vars+=(-u "${p%%=*}"); done

regen=${ROCMCHECK_REGEN:-0}
if [ "$regen" = 1 ]; then mkdir -p "$expected_dir"; fi

if [ ! -f "$schema" ]; then
	echo "note: $schema is absent, JSON schema validation skipped" >&2
fi

failures=0
count=0
fail() {
	echo "FAIL: $1: $2" >&2
	failures=$((failures + 1))
}

# A verdict line: "Ready: ..." or "N problem(s)[, M warning(s)]...", or "N warning(s)...";
# a node with no GPU that Slurm gives none: "No GPU, and slurm.conf gives this node none (...)".
verdict_re='^(Ready: .+|[0-9]+ (problem|problems|warning|warnings)([,:].*)?|No GPU, and [a-z.-]+ gives this node none \(.*\))$'

selected=${ROCMCHECK_FIXTURES:-}
names=()
normed=()
for dir in "$fixtures_dir"/*/; do
	name=$(basename "$dir")
	if [ -n "$selected" ] && ! [[ " $selected " == *" $name "* ]]; then continue; fi
	names+=("$name")
done
if [ ${#names[@]} -eq 0 ]; then
	echo "FAIL: no fixtures found under $fixtures_dir" >&2
	exit 1
fi

for name in "${names[@]}"; do
	count=$((count + 1))
	dir=$fixtures_dir/$name
	real=$(cd "$dir" && pwd -P)
	raw=$work/$name.raw.json
	norm=$work/$name.json

	# 1. JSON report, clean environment
	env "${clean_vars[@]}" NO_COLOR=1 "$rocmcheck" --sysroot "$dir" doctor --level quick --json \
		>"$raw" 2>"$work/$name.err"
	rc=$?
	if [ $rc -ge 128 ]; then
		fail "$name" "json run killed by signal $((rc - 128)); stderr: $(head -c 2000 "$work/$name.err")"
		continue
	fi
	if ! "$python" "$work/check.py" normalise "$raw" "$norm" "$dir" "$real" "${dir%/}"; then
		fail "$name" "stdout is not one JSON document (exit $rc); stderr: $(head -c 2000 "$work/$name.err")"
		continue
	fi

	# 2. exit status agrees with the summary
	if ! summary=$("$python" "$work/check.py" summary "$norm"); then
		fail "$name" "bad summary"
	else
		read -r bad sum_exit <<<"$summary"
		want=0
		if [ "$bad" -gt 0 ]; then want=1; fi
		if [ "$rc" -ne "$want" ]; then
			fail "$name" "exit status $rc, expected $want ($bad fail/error entries)"
		fi
		if [ "$sum_exit" != "$rc" ]; then
			fail "$name" "summary.exit_status is $sum_exit but the process exited $rc"
		fi
	fi

	# 3. schema: after the loop, for all reports at once
	normed+=("$norm")

	# 4. the process environment must not leak into a sysroot run
	env "${poison[@]}" NO_COLOR=1 "$rocmcheck" --sysroot "$dir" doctor --level quick --json \
		>"$work/$name.poison.raw" 2>/dev/null
	prc=$?
	if [ $prc -ne $rc ] ||
		! "$python" "$work/check.py" normalise "$work/$name.poison.raw" "$work/$name.poison.json" \
			"$dir" "$real" "${dir%/}" ||
		! "$python" "$work/check.py" same "$norm" "$work/$name.poison.json"; then
		fail "$name" "the report changes with the caller's environment (HSA_OVERRIDE_GFX_VERSION, *_VISIBLE_DEVICES, VIRTUAL_ENV, ...): a sysroot run must read [env] from host.ini only"
	fi

	# 5. text report
	env "${clean_vars[@]}" NO_COLOR=1 "$rocmcheck" --sysroot "$dir" doctor --level quick \
		>"$work/$name.txt" 2>"$work/$name.txt.err"
	trc=$?
	if [ $trc -ge 128 ]; then
		fail "$name" "text run killed by signal $((trc - 128))"
	else
		if [ $trc -ne $rc ]; then
			fail "$name" "text run exited $trc, JSON run $rc"
		fi
		last=$(grep -v '^[[:space:]]*$' "$work/$name.txt" | tail -n 1)
		if ! [[ "$last" =~ $verdict_re ]]; then
			fail "$name" "text report does not end with a verdict line; last line: '$last'"
		fi
	fi

	# 6. compare with the expected report
	exp=$expected_dir/$name.json
	if [ "$regen" = 1 ]; then
		cp "$norm" "$exp"
		echo "regenerated: ${exp#"$source_dir"/}"
	elif [ ! -f "$exp" ]; then
		fail "$name" "no expected report ${exp#"$source_dir"/} (run with ROCMCHECK_REGEN=1, then review it against tests/fixtures/EXPECTED.md)"
	elif ! cmp -s "$exp" "$norm"; then
		fail "$name" "report differs from ${exp#"$source_dir"/}:"
		diff -u "$exp" "$norm" | head -n 80 >&2
	fi
done

# 3. schema, every report that came out as one JSON document
if [ -f "$schema" ] && [ ${#normed[@]} -gt 0 ]; then
	if ! invalid=$("$python" "$work/check.py" validate "$schema" "${normed[@]}"); then
		fail schema "the validator failed"
	fi
	for norm in $invalid; do
		fail "$(basename "$norm" .json)" "report does not validate against $(basename "$schema")"
	done
fi

# An expected report without a fixture is a leftover.
if [ -z "$selected" ] && [ -d "$expected_dir" ]; then
	for exp in "$expected_dir"/*.json; do
		[ -e "$exp" ] || continue
		name=$(basename "$exp" .json)
		if [ ! -d "$fixtures_dir/$name" ]; then
			fail "$name" "tests/expected/$name.json has no fixture"
		fi
	done
fi

echo "$count fixtures, $failures failures"
[ $failures -eq 0 ]
