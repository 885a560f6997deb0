#!/bin/bash
# rocmcheck against a hostile sysroot (built by make_hostile.sh at test time):
#   - it must not crash or hang: no signal, no timeout (a 30 s watchdog); the
#     times are printed, and only checked when ROCMCHECK_HOSTILE_MAX_MS /
#     ROCMCHECK_HOSTILE_BIG_MAX_MS are set (a shared CI machine under load
#     is no place for a timed test; ci/bench gives the figures);
#   - exit status as spec/cli.md says: 1 for this readable-but-broken tree
#     (fail/error entries), 3 for a sysroot it cannot use at all;
#   - it reports `error` with evidence where it cannot decide (garbage
#     os-release, the malformed host.ini line as host.ini:LINE);
#   - a tree with 20 000 KFD nodes and site-packages entries gives a small
#     report: the caps say in source.errors what was left out;
#   - it never reads outside the root (checked under strace when it works):
#     the only paths outside the root it may open are its own shared
#     libraries, locale data, /dev/null, /dev/tty and its own /proc/self.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tests_dir=${TESTS_DIR:-$(dirname "$here")}
source_dir=${SOURCE_DIR:-$(dirname "$tests_dir")}
schema=$source_dir/man/rocmcheck.report-1.schema.json
python=/usr/bin/python3
max_ms=${ROCMCHECK_HOSTILE_MAX_MS:-}

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
	echo "SKIP: $python is needed to read the report" >&2
	exit 77
fi
case $rocmcheck in /*) ;; *) rocmcheck=$PWD/$rocmcheck ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-hostile.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
root=$work/root
if ! bash "$here/make_hostile.sh" "$root"; then
	echo "FAIL: make_hostile.sh could not build the tree" >&2
	exit 1
fi
root=$(cd "$root" && pwd -P)
bad_line=$(grep -n '^this line is malformed' "$root/.rocmcheck/host.ini" | cut -d: -f1)
# Run from an empty directory outside the root: a relative open would show up.
mkdir "$work/cwd"
cd "$work/cwd" || exit 1

failures=0
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# run NAME ARGS...: run rocmcheck with a watchdog; sets rc and ms.
run() {
	local name=$1 start end
	shift
	start=${EPOCHREALTIME/./}
	NO_COLOR=1 timeout -k 2 30 "$rocmcheck" "$@" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	end=${EPOCHREALTIME/./}
	ms=$(((end - start) / 1000))
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		fail "$name: hung (killed by the 30 s watchdog)"
	elif [ $rc -ge 128 ]; then
		fail "$name: killed by signal $((rc - 128)); stderr: $(head -c 2000 "$work/$name.err")"
	elif [ -n "$max_ms" ] && [ "$ms" -gt "$max_ms" ]; then
		fail "$name: took $ms ms (limit $max_ms ms)"
	fi
	echo "$name: $ms ms" >&2
}

# ---- 1. JSON report
run json --sysroot "$root" doctor --level quick --json
if [ $rc -ne 1 ]; then
	fail "json: exit status $rc, expected 1 (the tree is readable; its broken facts are errors); stderr: $(head -c 2000 "$work/json.err")"
fi
cat >"$work/judge.py" <<'EOF'
import json
import sys

path, bad_line, schema_path = sys.argv[1], sys.argv[2], sys.argv[3]
problems = []
try:
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")        # must be valid UTF-8 whatever the files held
    doc = json.loads(text)
except (UnicodeDecodeError, ValueError) as e:
    print(f"stdout is not one UTF-8 JSON document: {e}")
    sys.exit(1)

checks = doc.get("checks", []) if isinstance(doc, dict) else []
errors = [c for c in checks if isinstance(c, dict) and c.get("status") == "error"]
if not errors:
    problems.append("no check reports `error`")
for c in errors:
    ev = c.get("evidence")
    if not isinstance(ev, list) or not ev:
        problems.append(f"{c.get('id')}: error without evidence")
    elif not all(isinstance(e, dict) and (e.get("path") or e.get("value")) for e in ev):
        problems.append(f"{c.get('id')}: error evidence without path or value")
    if not c.get("summary"):
        problems.append(f"{c.get('id')}: error without a summary")

osc = [c for c in checks if isinstance(c, dict) and c.get("id") == "system.os"]
if not osc:
    problems.append("no system.os result")
elif osc[0].get("status") != "error":
    problems.append(f"system.os is {osc[0].get('status')!r}, expected 'error' for a garbage /etc/os-release")
elif "os-release" not in json.dumps(osc[0].get("evidence")):
    problems.append("system.os error does not name os-release in its evidence")

if f"host.ini:{bad_line}" not in text:
    problems.append(f"the malformed host.ini line is not reported as host.ini:{bad_line}")

s = doc.get("summary", {}) if isinstance(doc, dict) else {}
if not isinstance(s, dict) or s.get("exit_status") != 1 or not s.get("error"):
    problems.append(f"summary {s!r}: expected error >= 1 and exit_status 1")

# contents of files outside the root must never appear
for needle in ("root:x:0:0", "/bin/bash\n", "daemon:x:"):
    if needle in text:
        problems.append(f"the report contains {needle!r}: a file outside the root was read")

if schema_path != "-":
    try:
        import jsonschema
        with open(schema_path, encoding="utf-8") as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        for e in list(cls(schema).iter_errors(doc))[:5]:
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            problems.append(f"schema: {where}: {e.message}")
    except ImportError:
        pass

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
EOF
if [ $rc -lt 128 ]; then
	s=-
	if [ -f "$schema" ]; then s=$schema; else echo "note: $schema is absent, schema validation skipped" >&2; fi
	if ! out=$("$python" "$work/judge.py" "$work/json.out" "$bad_line" "$s"); then
		while IFS= read -r line; do fail "json: $line"; done <<<"$out"
	fi
fi

# ---- 2. text report, plain and verbose (evidence printed)
verdict_re='^(Ready: .+|[0-9]+ (problem|problems|warning|warnings)([,:].*)?)$'
for mode in text verbose; do
	if [ $mode = text ]; then
		run $mode --sysroot "$root" doctor --level quick
	else
		run $mode --sysroot "$root" -v doctor --level quick
	fi
	[ $rc -ge 128 ] && continue
	if [ $rc -ne 1 ]; then
		fail "$mode: exit status $rc, expected 1"
	fi
	last=$(grep -av '^[[:space:]]*$' "$work/$mode.out" | tail -n 1)
	if ! [[ "$last" =~ $verdict_re ]]; then
		fail "$mode: does not end with a verdict line; last line: '$last'"
	fi
	# NO_COLOR is set: an escape or NUL byte in the output came from a hostile file
	if LC_ALL=C grep -aq $'\x1b' "$work/$mode.out" || [ "$(tr -cd '\000' <"$work/$mode.out" | wc -c)" -ne 0 ]; then
		fail "$mode: raw ESC or NUL bytes from the sysroot reach the terminal (escape evidence before printing)"
	fi
done

# ---- 3. a sysroot that cannot be used at all: exit 3
run missing --sysroot "$work/does-not-exist" doctor --level quick --json
[ $rc -lt 128 ] && [ $rc -ne 3 ] && fail "missing sysroot: exit status $rc, expected 3"
run notadir --sysroot "$root/proc/version" doctor --level quick --json
[ $rc -lt 128 ] && [ $rc -ne 3 ] && fail "sysroot that is a file: exit status $rc, expected 3"

# ---- 4. a huge tree: 20 000 KFD nodes, 20 000 site-packages entries. The
# caps keep the run fast and its report small, and the report says a cap
# was hit.
big=$work/big
max_big_ms=${ROCMCHECK_HOSTILE_BIG_MAX_MS:-}
if "$python" - "$big" <<'PYBIG'
import os
import sys

root = sys.argv[1]
nodes = os.path.join(root, "sys/devices/virtual/kfd/kfd/topology/nodes")
os.makedirs(nodes)
os.makedirs(os.path.join(root, "sys/class/kfd"))
os.symlink("../../devices/virtual/kfd/kfd", os.path.join(root, "sys/class/kfd/kfd"))
props = ("simd_count 192\nsimd_per_cu 2\ngfx_target_version 110000\nvendor_id 4098\n"
         "device_id 29772\nlocation_id 768\ndomain 0\ndrm_render_minor 128\n")
for i in range(20000):
    d = os.path.join(nodes, str(i))
    os.mkdir(d)
    with open(os.path.join(d, "gpu_id"), "w") as f:
        f.write(f"{i + 1}\n")
    with open(os.path.join(d, "properties"), "w") as f:
        f.write(props)
site = os.path.join(root, "usr/lib/python3/dist-packages")
os.makedirs(site)
for i in range(20000):
    os.mkdir(os.path.join(site, f"pkg{i}"))
os.mkdir(os.path.join(site, "torch"))
PYBIG
then
	run big --sysroot "$big" doctor --level quick --json
	if [ $rc -lt 128 ]; then
		[ $rc -gt 1 ] && fail "big: exit status $rc, expected 0 or 1; stderr: $(head -c 2000 "$work/big.err")"
		[ -n "$max_big_ms" ] && [ "$ms" -gt "$max_big_ms" ] && fail "big: took $ms ms (limit $max_big_ms ms)"
		size=$(wc -c <"$work/big.out")
		[ "$size" -gt 2000000 ] && fail "big: the report is $size bytes (the caps should keep it small)"
		if ! "$python" -c '
import json, sys
doc = json.load(open(sys.argv[1]))
errs = doc.get("source", {}).get("errors", [])
sys.exit(0 if any("KFD nodes" in e and "256" in e for e in errs) else 1)' "$work/big.out"; then
			fail "big: source.errors does not say that the KFD node cap was hit"
		fi
		grep -q 'warning: .*KFD nodes' "$work/big.err" || fail "big: no warning on stderr about the KFD node cap"
		echo "big tree: ${ms} ms, report $size bytes" >&2
	fi
	rm -rf "$big"
else
	fail "could not build the big tree"
fi

# ---- 5. nothing outside the root is opened
if ! command -v strace >/dev/null 2>&1; then
	echo "note: strace is not installed (apt-get install -y strace); the out-of-root check is skipped" >&2
elif ! strace -f -qq -o /dev/null true 2>/dev/null; then
	echo "note: strace cannot trace here (ptrace not permitted); the out-of-root check is skipped" >&2
else
	log=$work/strace.log
	NO_COLOR=1 timeout -k 2 60 strace -f -qq -y -s 4096 -o "$log" \
		-e trace=open,openat,openat2,readlink,readlinkat \
		"$rocmcheck" --sysroot "$root" doctor --level quick --json >/dev/null 2>"$work/strace.err"
	src=$?
	if [ $src -ge 124 ]; then
		fail "strace run: exit status $src"
	fi
	ldd "$rocmcheck" 2>/dev/null | grep -o '/[^ ]*' >"$work/libs" || :
	cat >"$work/paths.py" <<'EOF'
import os
import re
import sys

log, root, binary, libs_file = sys.argv[1:5]
root = root.rstrip("/")
libs = set()
with open(libs_file) as f:
    for line in f:
        p = line.strip()
        if p:
            libs.add(p)
            libs.add(os.path.realpath(p))
lib_names = {os.path.basename(p) for p in libs}

ALLOWED_EXACT = {"/etc/ld.so.cache", "/etc/ld.so.preload", "/dev/null", "/dev/tty",
                 "/etc/localtime", os.path.realpath(binary), binary}
ALLOWED_PREFIX = ("/usr/lib/locale/", "/usr/share/locale/", "/usr/share/locale-langpack/",
                  "/usr/lib/x86_64-linux-gnu/gconv/", "/usr/share/zoneinfo/",
                  "/proc/self/",                      # sanitizers read their own maps
                  "/sys/devices/system/cpu/",         # glibc's processor count
                  # rocmcheck's own installed profile database (profiles update):
                  # the tool's knowledge, not the machine's, used on captures too
                  "/var/lib/rocmcheck/profiles/",
                  os.path.join(os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"),
                               "rocmcheck/profiles/"))


def inside(p):
    return p == root or p.startswith(root + "/")


def allowed(p):
    if p in ALLOWED_EXACT or p in libs or p.startswith(ALLOWED_PREFIX):
        return True
    if re.match(r"^/proc/\d+/", p):                   # /proc/<own pid>/..., as /proc/self
        return True
    # the loader probing its search path for a needed library
    return os.path.basename(p) in lib_names and "/lib" in p


def unescape(s):
    return re.sub(r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)",
                  lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "x"
                  else chr(int(m.group(1), 8)) if m.group(1)[0].isdigit()
                  else {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


call = re.compile(r'^(?:\d+\s+)?(?:<\.\.\. )?(open|openat|openat2|readlink|readlinkat)\b[^(]*\('
                  r'(?:(AT_FDCWD|-?\d+)(?:<([^>]*)>)?,\s*)?"((?:[^"\\]|\\.)*)"')
ret = re.compile(r'=\s+\d+<([^>]*)>\s*$')
bad = []
with open(log, errors="replace") as f:
    for line in f:
        m = call.match(line)
        if not m:
            continue
        name, fd, fdpath, path = m.group(1), m.group(2), m.group(3), unescape(m.group(4))
        if name in ("open", "readlink") or path.startswith("/"):
            req = path
        else:
            base = fdpath if fdpath else "?"
            req = os.path.join(base, path)
        req = os.path.normpath(req)
        r = ret.search(line)
        got = r.group(1) if r else None
        if inside(req):
            # asked for a path in the root: whatever was opened must be in the root too
            if got and got.startswith("/") and not inside(got) and got not in ("/dev/null",):
                bad.append(f"escaped the root: {line.strip()}")
        elif not allowed(req):
            bad.append(f"outside the root: {line.strip()}")
for b in bad[:20]:
    print(b)
sys.exit(1 if bad else 0)
EOF
	if ! out=$("$python" "$work/paths.py" "$log" "$root" "$rocmcheck" "$work/libs"); then
		while IFS= read -r line; do fail "strace: $line"; done <<<"$out"
	fi
fi

if [ $failures -ne 0 ]; then
	echo "$failures failures" >&2
	exit 1
fi
echo "hostile sysroot: ok"
