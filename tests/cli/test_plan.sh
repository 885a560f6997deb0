#!/bin/bash
# `rocmcheck plan`: golden plans for every fixture and for described
# machines (ROCMCHECK_REGEN=1 rewrites them: read the diff), shellcheck and
# sh -n on every script, JSON structure, doctor and plan agreeing on every
# fix command, healthy machines without steps, broken profiles, usage errors
# and the "no plan can work" cases. test_plan_run.sh runs the plans.
. "$(dirname "$0")/lib.sh"

PLANS=$TESTS_DIR/plans
REGEN=${ROCMCHECK_REGEN:-}

# NAME|ARGS (ARGS split on ';')
described=(
	"ubuntu2204-gfx1100|--os;ubuntu-22.04;--gpu;gfx1100"
	"ubuntu2404-gfx1201|--os;ubuntu-24.04;--gpu;gfx1201"
	"rhel9-gfx942|--os;rhel-9;--gpu;gfx942"
	"debian12-gfx1030|--os;debian-12;--gpu;gfx1030"
	"ubuntu2204-rtx4090|--os;ubuntu-22.04;--gpu;RTX 4090"
	"ubuntu2204-gfx1031-override|--os;ubuntu-22.04;--gpu;gfx1031"
	"ubuntu2204-rx7900xtx-rocm62|--os;ubuntu-22.04;--gpu;RX 7900 XTX;--rocm;6.2"
	"sles15-mi300x-notorch|--os;sles-15;--gpu;MI300X;--no-torch"
	"fedora-gfx1100|--os;fedora-41;--gpu;gfx1100"
	"gfx9999-unsupported|--os;ubuntu-22.04;--gpu;gfx9999"
	"ubuntu2004-gfx1201-noroute|--os;ubuntu-20.04;--gpu;gfx1201"
	"ubuntu2404-gfx1201-rocm62|--os;ubuntu-24.04;--gpu;gfx1201;--rocm;6.2"
)

# The scripts and JSON documents written, for the later sections.
scripts=()
jsons=()

check_script() {
	local f=$1 what=$2
	sh -n "$f" || fail "$what: sh -n"
	dash -n "$f" || fail "$what: dash -n"
	if command -v shellcheck >/dev/null; then
		shellcheck -s sh "$f" >&2 || fail "$what: shellcheck -s sh"
	else
		echo "note: shellcheck is not installed: scripts only checked with sh -n" >&2
	fi
	head -n1 "$f" | grep -qx '#!/bin/sh' || fail "$what: does not start with #!/bin/sh"
	grep -qx 'set -eu' "$f" || fail "$what: no set -eu"
}

# golden NAME ARGS...: exit 0 and stdout equal to tests/plans/NAME.sh, or
# exit 1 and stderr equal to tests/plans/NAME.err.
golden() {
	local name=$1
	shift
	run any "$@"
	local want_sh=$PLANS/$name.sh want_err=$PLANS/$name.err
	if [ -n "$REGEN" ]; then
		rm -f "$want_sh" "$want_err"
		if [ "$STATUS" = 0 ]; then cp "$OUT" "$want_sh"; else cp "$ERR" "$want_err"; fi
	fi
	if [ -f "$want_sh" ]; then
		[ "$STATUS" = 0 ] || { fail "plan $name: exit $STATUS, expected 0"; last; return; }
		[ -s "$ERR" ] && { fail "plan $name: wrote to stderr"; last; }
		diff -u "$want_sh" "$OUT" >&2 || fail "plan $name differs from $want_sh (ROCMCHECK_REGEN=1 rewrites it)"
		cp "$OUT" "$T/$name.sh"
		check_script "$T/$name.sh" "plan $name"
		scripts+=("$name")
		run 0 "$@" --format json
		cp "$OUT" "$T/$name.json"
		jsons+=("$name")
	elif [ -f "$want_err" ]; then
		[ "$STATUS" = 1 ] || { fail "plan $name: exit $STATUS, expected 1"; last; return; }
		[ -s "$OUT" ] && fail "plan $name: no plan, but something on stdout"
		diff -u "$want_err" "$ERR" >&2 || fail "plan $name: stderr differs from $want_err"
		grep -q 'nearest\|it knows\|describe it\|supports:' "$ERR" || fail "plan $name: no nearest alternative named"
	else
		fail "no golden plan for $name (run with ROCMCHECK_REGEN=1)"
	fi
}

# ---- golden plans: fixtures, then described machines
for fx in $(fixtures); do
	golden "fixture-$(basename "$fx")" --sysroot "$fx" plan
done
for d in "${described[@]}"; do
	IFS=';' read -r -a args <<<"${d#*|}"
	golden "${d%%|*}" plan "${args[@]}"
done
[ "${#scripts[@]}" -ge 15 ] || fail "only ${#scripts[@]} plans were checked"

# ---- JSON: valid against the shipped schema, and the schema can say no
PLAN_SCHEMA=$SOURCE_DIR/man/rocmcheck.plan-1.schema.json
files=()
for name in "${jsons[@]}"; do files+=("$T/$name.json"); done
validate_schema "$PLAN_SCHEMA" "${files[@]}" || fail "plans are not valid rocmcheck.plan/1 documents"
"$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["steps"][0]["needs_root"]="yes"; d["target"]["vendor"]="3dfx"; json.dump(d, open(sys.argv[2], "w"))' \
	"$T/${jsons[0]}.json" "$T/broken-plan.json"
validate_schema "$PLAN_SCHEMA" "$T/broken-plan.json" 2>/dev/null && fail "the plan schema accepts a broken plan"

# ---- JSON: structure, guards, order, as_root, and the script has every command
for name in "${jsons[@]}"; do
	"$PYTHON" - "$T/$name.json" "$T/$name.sh" <<'PY' || fail "plan $name: JSON"
import json, re, sys
d = json.load(open(sys.argv[1]))
script = open(sys.argv[2]).read()
# root runs a step's commands itself: no sudo at a command's start, as_root
# (defined in the prelude, and at the script's top) instead
sudo = re.compile(r"(^|[|&;(]\s*)sudo ")
uses = any("as_root " in c for s in d["steps"] for c in s["commands"])
assert (d["prelude"] is not None) == uses, "prelude"
assert not uses or d["prelude"] in script, "the script lacks the prelude"
assert d["target"]["described"] == (d["os_guard"] is not None), "os_guard"
assert not d["os_guard"] or d["os_guard"] in script, "the script lacks the OS test"
if d["steps"]:
    assert "trap plan_finish EXIT" in script, "no report when the script ends"
assert d["schema"] == "rocmcheck.plan/1", d["schema"]
for k in ("target", "steps", "notes", "reboot", "relogin", "profiles_version"):
    assert k in d, k
ids = [s["id"] for s in d["steps"]]
assert len(ids) == len(set(ids)), f"duplicate step ids {ids}"
klass = [3 if s["requires"] else 2 if s["reboot"] else 1 if s["relogin"] else 0 for s in d["steps"]]
assert klass == sorted(klass), f"reboot/relogin steps, then Python environment steps, are not last: {ids}"
for s in d["steps"]:
    for k in ("id", "title", "why", "commands", "guard", "needs_root", "reboot", "relogin", "manual", "comment",
              "requires"):
        assert k in s, f"{s['id']}: no {k}"
    assert s["why"], f"{s['id']}: no check ID says why"
    real = [c for c in s["commands"] if not c.startswith("#")]
    assert not real or s["guard"], f"{s['id']}: commands without a guard"
    assert s["needs_root"] == any("as_root " in c for c in real), f"{s['id']}: needs_root is wrong"
    for c in real:
        assert not sudo.search(c), f"{s['id']}: sudo, not as_root: {c}"
        assert not re.search(r"(^|[|&;]\s*)pip ", c), f"{s['id']}: a bare pip: {c}"
    # a pip step downloads before it removes anything
    un = [i for i, c in enumerate(real) if " -m pip uninstall " in c]
    for i in un:
        assert i > 0 and " -m pip download -d " in real[i - 1], f"{s['id']}: uninstall before the download"
        assert "--no-index --find-links" in real[i + 1], f"{s['id']}: not installed from the download"
    for c in s["commands"]:
        assert c in script, f"{s['id']}: command missing from the script: {c}"
    if s["guard"]:
        g = s["guard"][2:] if s["guard"].startswith("! ") else s["guard"]
        assert g in script, f"{s['id']}: guard missing from the script"
    for c in real:
        assert not c.startswith("sudo pip") and "sudo -i" not in c, c
assert d["reboot"] == any(s["reboot"] for s in d["steps"])
PY
done

# ---- a healthy machine gets no step at all
for fx in amd-rx7900xtx-ubuntu2204-healthy nvidia-rtx4090-ubuntu2204-healthy amd-mi210-rhel810-rocm63 \
	amd-mi300x-rhel94-iommupt; do
	n=$(json_get "$T/fixture-$fx.json" 'len(d["steps"])')
	[ "$n" = 0 ] || fail "healthy fixture $fx: $n steps"
	grep -q '^# Nothing to do' "$T/fixture-$fx.sh" || fail "healthy fixture $fx: no 'Nothing to do' line"
done

# ---- doctor and plan: every command of every doctor fix is in the plan,
# as a step command, a by-hand command or a note's command (quotes aside)
for fx in $(fixtures); do
	name=fixture-$(basename "$fx")
	run any --sysroot "$fx" doctor --level quick --json
	cp "$OUT" "$T/doctor.json"
	if [ ! -f "$T/$name.json" ]; then
		# no plan (exit 1): the doctor must have said why with a failure
		grep -q '"fail"' "$T/doctor.json" || fail "$name: no plan but the doctor found no failure"
		continue
	fi
	"$PYTHON" - "$T/doctor.json" "$T/$name.json" <<'PY' || fail "$name: doctor and plan disagree"
import json, sys
doc, plan = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
# quotes aside, and an "a && b" pasting line as the script's lines a and b;
# the script's forms as the doctor's: as_root is sudo, the environment's
# interpreter is pip, the download of the wheels is their install
def norm(c):
    c = c.replace('"', "").replace("as_root ", "sudo ")
    c = c.replace("${ROCMCHECK_USER:-${SUDO_USER:-$(id -un)}}", "${SUDO_USER:-$(id -un)}")
    c = c.replace("${VIRTUAL_ENV:-${CONDA_PREFIX:-}}/bin/python -m pip ", "pip ")
    return c.replace(" -m pip download -d $pip_dl ", " -m pip install ").replace("pip download -d $pip_dl ", "pip install ")
have = set()
for s in plan["steps"]:
    have |= {norm(c) for c in s["commands"] + s["manual"]}
for n in plan["notes"]:
    have |= {norm(c) for c in n["commands"]}
missing = []
for c in doc["checks"]:
    if c["status"] not in ("warn", "fail") or not c.get("fix"):
        continue
    for cmd in c["fix"].get("commands", []):
        if norm(cmd) not in have and not all(norm(p) in have for p in cmd.split(" && ")):
            missing.append(f"{c['id']}: {cmd}")
for m in missing:
    print("not in the plan:", m, file=sys.stderr)
sys.exit(1 if missing else 0)
PY
done

# ---- running the plans: tests/cli/test_plan_run.sh executes every one of them

# ---- described machines read nothing of this one
if ! command -v strace >/dev/null; then
	echo "note: strace is not installed: the no-live-read check did not run" >&2
elif ! strace -f -qq -e trace=%file -o "$T/trace" "$ROCMCHECK" plan --os ubuntu-22.04 --gpu gfx1100 >/dev/null 2>"$T/strace.err"; then
	# ptrace is refused in some containers, and sanitizer builds do not run under strace
	echo "note: rocmcheck does not run under strace here: the no-live-read check did not run" >&2
	head -n3 "$T/strace.err" >&2
else
	# the live sysroot opens "/" and reads relative to it ("sys/class/kfd/...")
	if grep -E '"/?(sys/|proc/[0-9a-z]|dev/|etc/os-release|opt/|usr/lib/os-release)|"/", O_' "$T/trace" |
		grep -v '"/proc/self/\|"/dev/null\|"/dev/tty\|"/dev/pts\|"/dev/urandom' >&2; then
		fail "plan --os/--gpu read the machine it runs on"
	fi
	ntests=$((ntests + 1))
fi

# ---- options
run 0 plan --os ubuntu-22.04 --gpu gfx1100 --no-torch --format json
[ "$(json_get "$OUT" 'len([s for s in d["steps"] if s["id"] == "torch"])')" = 0 ] || fail "--no-torch kept the torch step"
run 0 plan --os ubuntu-22.04 --gpu gfx1100 --json
json_get "$OUT" 'd["target"]["rocm"]' | grep -qx '7.1' || fail "--json: not the JSON plan"
run 0 --json plan --os ubuntu-22.04 --gpu "rx 7900 xtx"
json_get "$OUT" 'd["target"]["gpu"]' | grep -qx 'AMD Radeon RX 7900 XTX' || fail "model names are case-insensitive"
run 0 plan --os ubuntu-22.04 --gpu gfx1100 --format sh
assert_out_has '^#!/bin/sh'
run 0 --format sh plan --os ubuntu-22.04 --gpu gfx1100
assert_out_has '^#!/bin/sh'
usage_error --format sh doctor
usage_error --format sh devices
usage_error doctor --format sh
run 0 --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" plan --rocm 6.4 --format json
json_get "$OUT" '[s["id"] for s in d["steps"]]' | grep -q rocm_install || fail "--rocm 6.4 on a 6.2 machine: no install step"
run 0 --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" plan --rocm 6.2 --format json
[ "$(json_get "$OUT" 'len(d["steps"])')" = 0 ] || fail "--rocm 6.2 on a 6.2 machine: steps"
run 0 --sysroot "$TESTS_DIR/fixtures/nvidia-rtx4090-ubuntu2204-healthy" plan --torch --format json
[ "$(json_get "$OUT" 'len(d["steps"])')" = 0 ] || fail "--torch on NVIDIA with a CUDA wheel installed: steps"
run 0 --sysroot "$TESTS_DIR/fixtures/amd-mi210-rhel810-rocm63" plan --torch --format json
json_get "$OUT" 'd["target"]["torch_index"]' | grep -qx 'https://download.pytorch.org/whl/rocm6.3' ||
	fail "--torch on a ROCm 6.3 machine without PyTorch: not the rocm6.3 wheel"
run 0 --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-cudatorch" plan --no-torch --format json
[ "$(json_get "$OUT" 'len(d["steps"])')" = 0 ] || fail "--no-torch: the torch step stayed"
json_get "$OUT" '" ".join(c for n in d["notes"] for c in n["commands"])' | grep -q 'pip install' ||
	fail "--no-torch: the doctor's torch fix is not shown in a note"

usage_error plan --os ubuntu-22.04
usage_error plan --gpu gfx1100
usage_error plan --os ubuntu-22.04 --gpu gfx1100 --format xml
usage_error plan --os ubuntu-22.04 --gpu "Voodoo 5 6000"
usage_error plan --os ubuntu-22.04 --gpu "RX 7900"
usage_error plan --os ubuntu-22.04 --gpu gfx1100 --rocm 9.9
usage_error plan --os ubuntu-22.04 --gpu gfx1100 --rocm latest
usage_error plan --os ubuntu-22.04 --gpu "RTX 4090" --rocm 6.2
usage_error --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" plan --os ubuntu-22.04 --gpu gfx1100
usage_error plan --bogus
# an OS the profiles do not know is a bad value (2), and the error names
# what --os takes, in the form the documentation gives (fedora-41)
usage_error plan --os plan9-4 --gpu gfx1100
assert_err_has "no install route for 'plan9-4'; it knows: ubuntu-20.04, "
assert_err_has 'fedora-<release>'
usage_error plan --os windows-11 --gpu gfx1100
usage_error plan --os '' --gpu gfx1100
usage_error plan --torch --no-torch --os ubuntu-22.04 --gpu gfx1100
assert_err_has '--no-torch conflicts with --torch'
usage_error --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" plan --check
# --check runs only the guards (read-only tests) here; test_plan_run.sh runs it in its sandboxes
run any plan --os ubuntu-22.04 --gpu gfx1100 --check --format json
"$PYTHON" - "$OUT" "$STATUS" <<'PY' || fail "plan --check --format json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rocmcheck.plan-check/1", d["schema"]
assert all(s["status"] in ("done", "pending", "warn", "cannot_run") for s in d["steps"]), d["steps"]
assert d["pending"] == sum(s["status"] == "pending" for s in d["steps"])
assert d["done"] == sum(s["status"] == "done" for s in d["steps"])
assert d["cannot_run"] == sum(s["status"] == "cannot_run" for s in d["steps"])
assert all((s["status"] == "cannot_run") == (s["why_not_here"] is not None) for s in d["steps"])
want = "1" if d["pending"] or d["other_os"] else "0"
assert sys.argv[2] == want, f"exit {sys.argv[2]} with {d['pending']} pending, other OS {d['other_os']}"
PY
# --check for another OS than this machine's says so: no step can run here,
# none is pending, and the exit status is 1 (the plan is not this machine's)
os_id=$(sed -n 's/^ID="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null)
other=fedora-41 other_gpu=gfx1100
[ "$os_id" = fedora ] && other=debian-12 other_gpu=gfx1030
run 1 plan --os "$other" --gpu "$other_gpu" --check
assert_out_has '^rocmcheck plan --check: the plan is for .*another OS: no step can run here'
assert_out_has 'cannot_run .*(cannot run here: the plan is for '
grep -q '^  pending' "$OUT" && fail "--check on another OS: a step is pending"
run 1 plan --os "$other" --gpu "$other_gpu" --check --format json
[ "$(json_get "$OUT" 'd["other_os"] and d["pending"] == 0 and d["cannot_run"] == len(d["steps"]) > 0')" = True ] ||
	fail "--check --format json on another OS"
run any --json plan --os ubuntu-22.04 --gpu gfx1100 --check
json_get "$OUT" 'd["schema"]' | grep -qx 'rocmcheck.plan-check/1' || fail "--json plan --check: not the check document"
run any plan --os ubuntu-22.04 --gpu gfx1100 --check
head -n1 "$OUT" | grep -q '^rocmcheck plan --check: ' || { fail "plan --check: no summary line"; last; }
run 0 plan --help
assert_out_has '--check'

run 0 plan --help
assert_out_has '--os ID-VERSION'

# ---- broken profiles: exit 3 with the FILE:LINE message of each case
nbad=0
for case in "$TESTS_DIR"/profiles-bad/*/; do
	dir=$T/bad-$(basename "$case")
	mkdir -p "$dir"
	cp "$SOURCE_DIR"/profiles/*.ini "$dir/"
	cp "$case"/*.ini "$dir/"
	run 3 --profiles "$dir" plan --os ubuntu-22.04 --gpu gfx1100
	want=$(head -n1 "$case/expect")
	want=${want//zz-case.ini/$dir/zz-case.ini}
	grep -qF -- "$want" "$ERR" || { fail "profiles-bad/$(basename "$case"): stderr lacks '$want'"; last; }
	[ -s "$OUT" ] && fail "profiles-bad/$(basename "$case"): a plan from broken profiles"
	nbad=$((nbad + 1))
done
[ "$nbad" -ge 8 ] || fail "only $nbad broken-profile cases"

# ---- a hostile capture cannot put commands into the script
hostile=$T/hostile
cp -r "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-norender" "$hostile"
sed -i 's/^name = alice$/name = alice;touch${IFS}\/tmp\/pwned/' "$hostile/.rocmcheck/host.ini"
run 0 --sysroot "$hostile" plan --format json
[ "$(json_get "$OUT" 'len(d["steps"])')" = 0 ] || fail "hostile user name: a step was planned"
grep -q 'not safe' "$OUT" || fail "hostile user name: no note says why"
# the note carries the doctor's command, the value quoted
[ "$(json_get "$OUT" 'd["notes"][0]["commands"][0]')" = "sudo usermod -aG render,video 'alice;touch\${IFS}/tmp/pwned'" ] ||
	{ fail "hostile user name: the note lacks the quoted command"; last; }
# the doctor's fix, in text and in JSON, quotes the value as one word; run
# as fix.commands' consumer would (dash, no sudo or usermod on PATH), it
# creates nothing
run 1 --sysroot "$hostile" doctor --level quick
assert_out_has "sudo usermod -aG render,video 'alice;touch\${IFS}/tmp/pwned'"
run 1 --sysroot "$hostile" --json doctor --level quick
json_get "$OUT" '"\n".join(c for r in d["checks"] for c in (r.get("fix") or {}).get("commands", []))' >"$T/cmds"
sed -i 's|/tmp/pwned|'"$T"'/pwned|' "$T/cmds"
grep -q usermod "$T/cmds" || fail "hostile user name: no usermod command in fix.commands"
while IFS= read -r c; do PATH=/nonexistent /bin/dash -c "$c" >/dev/null 2>&1; done <"$T/cmds"
[ -e "$T/pwned" ] && fail "hostile user name: running fix.commands ran the machine's value"
sed -i 's/^release = .*/release = 6.8.0$(reboot)/' "$hostile/.rocmcheck/host.ini"
run 3 --sysroot "$hostile" plan
assert_err_has 'not safe in a shell script'

finish
