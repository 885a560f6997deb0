#!/bin/bash
# One JSON contract (rocmcheck(1), OUTPUT CONTRACT): every command with a JSON
# form prints one object whose "schema" is rocmcheck.NAME/1, valid against
# man/rocmcheck.NAME-1.schema.json, which `cmake --install` installs; every
# command without one refuses --json (exit 2, saying so). Each fixture's
# output of every command is validated (doctor, devices, plan, diff against
# another fixture, all of them in one fleet, bundles diffed and their
# manifests), and so are probe --backend cpu, checks, version, profiles
# list/show/validate and plan --check. A schema that accepted anything would
# pass all that, so each schema must also reject the documents it validated
# once they are broken.
. "$(dirname "$0")/lib.sh"

DOCS=$T/docs
mkdir -p "$DOCS"
ndocs=0

# A plan that cannot work (no GPU to plan for) is refused: exit 1, the
# reason on stderr, no document (cmd_plan.c).
plan_refused() {
	[ "$STATUS" = 1 ] && [ ! -s "$OUT" ] && grep -q "no plan can work" "$ERR"
}

# keep WANT ARGS...: run rocmcheck --json ARGS (any exit status), and keep
# stdout for validation against the schema rocmcheck.WANT/1.
keep() {
	local want=$1
	shift
	run any --json "$@"
	[ "$want" = plan ] || [ "$want" = plan-check ] && plan_refused && return
	if [ "$STATUS" -gt 1 ]; then
		fail "rocmcheck --json $*: exit status $STATUS"
		last
		return
	fi
	ndocs=$((ndocs + 1))
	printf '%s\n' "$want" "rocmcheck --json $*" >"$DOCS/$ndocs.want"
	cp "$OUT" "$DOCS/$ndocs.json"
}

# ---- commands without a JSON form say so: exit 2, nothing on stdout
no_json() { # ARGS...
	usage_error --json "$@"
	assert_err_has "has no JSON output"
}
no_json help
no_json help doctor
no_json help --words
no_json bundle -o "$T/never.tar.gz"
[ -e "$T/never.tar.gz" ] && fail "bundle --json wrote a bundle"
run 2 --format json help
assert_err_has "\`help\` has no JSON output"
usage_error checks --explain perm.kfd --json
# --help is still help, whatever the format
run 0 --json doctor --help
assert_out_has "usage: rocmcheck"

# Every command in the table is one or the other: a new command must choose.
"$ROCMCHECK" help --words | grep -v '^-' >"$T/commands"
[ -s "$T/commands" ] || fail "help --words lists no command"
json_commands=" doctor probe devices plan diff fleet checks profiles version "
cd "$T" || exit 1 # bundle would write into the current directory
while read -r cmd; do
	case $json_commands in
	*" $cmd "*) ;;
	*) no_json "$cmd" ;;
	esac
done <"$T/commands"
cd - >/dev/null || exit 1
if ! grep -qx bundle "$T/commands" || ! grep -qx help "$T/commands"; then
	fail "help --words lacks bundle or help"
fi

# ---- every fixture, every command
FX=$(fixtures)
[ -n "$FX" ] || fail "no fixtures"
healthy=$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy
"$ROCMCHECK" --sysroot "$healthy" --json doctor --level quick >"$T/healthy.json" 2>/dev/null
mkdir -p "$T/reports"
for fx in $FX; do
	name=$(basename "$fx")
	keep report --sysroot "$fx" doctor --level quick
	cp "$OUT" "$T/reports/$name.json"
	keep report --sysroot "$fx" devices
	keep plan --sysroot "$fx" plan
	keep diff diff "$T/healthy.json" "$T/reports/$name.json"
done
keep fleet fleet "$T/reports"
keep fleet fleet "$T/reports/amd-rx7900xtx-ubuntu2204-healthy.json" "$T/reports/nvidia-h100x8-ubuntu2204-xid79.json" \
	"$T/no-such-report.json"
# synthetic reports with probe figures: the outliers' members are validated too
"$PYTHON" "$TESTS_DIR/cli/make_fleet.py" "$T/synthetic" 64 || fail "make_fleet.py"
keep fleet fleet "$T/synthetic"

# bundles, diffed (what a support engineer compares)
for name in amd-rx7900xtx-ubuntu2204-healthy amd-rx7900xtx-ubuntu2204-norender nvidia-h100x8-ubuntu2204-xid79; do
	"$ROCMCHECK" --sysroot "$TESTS_DIR/fixtures/$name" bundle -o "$T/$name.tar.gz" >/dev/null 2>&1
	[ -s "$T/$name.tar.gz" ] || fail "bundle of $name"
	ndocs=$((ndocs + 1))
	printf '%s\n' bundle "manifest.json of $name.tar.gz" >"$DOCS/$ndocs.want"
	tar -xzf "$T/$name.tar.gz" -O manifest.json >"$DOCS/$ndocs.json" || fail "no manifest.json in $name.tar.gz"
done
keep diff diff "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" "$T/amd-rx7900xtx-ubuntu2204-norender.tar.gz"
keep diff diff "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" "$T/nvidia-h100x8-ubuntu2204-xid79.tar.gz"
keep diff diff "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz" "$T/amd-rx7900xtx-ubuntu2204-healthy.tar.gz"
keep report --replay "$T/nvidia-h100x8-ubuntu2204-xid79.tar.gz" doctor --level quick

# probes run on this machine only: the host reference backend needs no GPU
keep report probe --backend cpu gemm

# ---- the commands that read no machine
keep checks checks
keep version version
keep version --version
keep profiles-list profiles list
keep profiles-validate profiles validate
for bad in "$TESTS_DIR"/profiles-bad/*/; do
	keep profiles-validate profiles validate "$bad"
	[ "$STATUS" = 1 ] || fail "profiles validate $bad: exit status $STATUS, expected 1"
done
# profiles update, refused (an unsigned archive from a file:// mirror; the
# installed and good cases are validated in test_profiles_update.sh)
printf 'not an archive\n' >"$T/mirror.tar.gz"
printf 'not a signature\n' >"$T/mirror.tar.gz.sig"
XDG_DATA_HOME=$T/xdg ROCMCHECK_TEST_SYSTEM_PROFILES=$T/sys keep profiles-update profiles update --url "file://$T/mirror.tar.gz"
[ "$STATUS" = 1 ] || fail "profiles update of an unsigned archive: exit status $STATUS, expected 1"
keep profiles-show profiles show gfx1100
keep profiles-show profiles show 6.2
keep profiles-show profiles show "RX 7900 XTX"
keep profiles-show profiles show gpu h100-pcie
keep profiles-show profiles show 12.4
keep profiles-show profiles show fix groups
keep profiles-show profiles show os ubuntu-22.04
keep profiles-show profiles show route ubuntu-22.04 '*'
keep profiles-show profiles show no-such-entry
[ "$STATUS" = 1 ] || fail "profiles show no-such-entry: exit status $STATUS, expected 1"
[ "$(json_get "$OUT" 'len(d["entries"])')" = 0 ] || fail "profiles show no-such-entry: entries are not empty"
# plan --check reads this machine: against every OS the profiles know
for os in $("$ROCMCHECK" help --words plan | sed -n 's/^--os [^ ]* //p' | tr ' ' '\n' | grep -v -- '-$'); do
	keep plan-check plan --os "$os" --gpu gfx1100 --check
done
keep plan-check plan --check
keep plan-check plan --os ubuntu-22.04 --gpu "RTX 4090" --check

# ---- validate every document; then break each and expect the schema to notice
"$PYTHON" - "$SOURCE_DIR/man" "$DOCS" "$ndocs" <<'PY' || fail "the documents do not keep the contract (above)"
import copy, glob, json, os, sys
import jsonschema

man, docs, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
validators = {}
for path in sorted(glob.glob(os.path.join(man, "rocmcheck.*-1.schema.json"))):
    schema = json.load(open(path))
    jsonschema.Draft202012Validator.check_schema(schema)
    name = os.path.basename(path)[len("rocmcheck."):-len("-1.schema.json")]
    if schema.get("title") != f"rocmcheck.{name}/1" or schema["properties"]["schema"].get("const") != f"rocmcheck.{name}/1":
        print(f"{path}: title or schema const is not rocmcheck.{name}/1", file=sys.stderr)
        sys.exit(1)
    validators[name] = jsonschema.Draft202012Validator(schema)

bad = 0
seen = {}
for i in range(1, n + 1):
    want, cmd = open(f"{docs}/{i}.want").read().splitlines()
    text = open(f"{docs}/{i}.json", encoding="utf-8").read()
    try:
        doc = json.loads(text)  # one document, nothing after it
    except ValueError as e:
        print(f"{cmd}: not one JSON document: {e}", file=sys.stderr)
        bad += 1
        continue
    if not isinstance(doc, dict) or doc.get("schema") != f"rocmcheck.{want}/1":
        print(f"{cmd}: not an object with \"schema\": \"rocmcheck.{want}/1\"", file=sys.stderr)
        bad += 1
        continue
    if want not in validators:
        print(f"{cmd}: no man/rocmcheck.{want}-1.schema.json", file=sys.stderr)
        bad += 1
        continue
    if list(doc)[0] != "schema":
        print(f"{cmd}: \"schema\" is not the first key", file=sys.stderr)
        bad += 1
    errors = sorted(validators[want].iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"{cmd}: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
    bad += bool(errors)
    seen.setdefault(want, []).append(doc)

unused = sorted(set(validators) - set(seen))
if unused:
    print(f"schemas no output was validated against: {unused}", file=sys.stderr)
    bad += 1


def mutations(doc, required):
    """Broken copies: each required member removed, each member's type changed
    (a member the schema does not describe is not part of the contract)."""
    for key in list(doc):
        if key in required:
            d = copy.deepcopy(doc)
            del d[key]
            yield f"without {key}", d
        d = copy.deepcopy(doc)
        d[key] = {"unexpected": [True]} if not isinstance(doc[key], dict) else "unexpected"
        yield f"{key} of another type", d
    d = copy.deepcopy(doc)
    d["schema"] = d["schema"].replace("/1", "/2")
    yield "schema /2", d
    for key, val in doc.items():  # one level down: the first entry of each list
        if isinstance(val, list) and val and isinstance(val[0], dict):
            for k in val[0]:
                d = copy.deepcopy(doc)
                d[key][0][k] = {"unexpected": [True]}
                yield f"{key}[0].{k} of another type", d


missed = 0
tried = 0
for want, group in sorted(seen.items()):
    for doc in group[:3]:
        for what, d in mutations(doc, validators[want].schema.get("required", [])):
            tried += 1
            if validators[want].is_valid(d):
                print(f"rocmcheck.{want}/1 accepts a document {what}", file=sys.stderr)
                missed += 1
print(f"{n} documents against {len(validators)} schemas; {tried} broken copies, {missed} accepted")
sys.exit(1 if bad or missed else 0)
PY

# ---- what the outputs name is installed
cmake --install "$BUILD_DIR" --prefix "$T/inst" >"$T/install.log" 2>&1 || {
	fail "cmake --install"
	cat "$T/install.log" >&2
}
for f in "$SOURCE_DIR"/man/rocmcheck.*-1.schema.json; do
	cmp -s "$f" "$T/inst/share/rocmcheck/$(basename "$f")" || fail "$(basename "$f") is not installed"
	grep -qF "$(basename "$f" | sed 's/-/\\-/g')" "$SOURCE_DIR/man/rocmcheck.1" ||
		fail "$(basename "$f") is not in rocmcheck(1)"
done

finish
