#!/bin/bash
# Support bundles end to end:
#   - every fixture: bundle it (--sysroot), replay it, the static verdicts are
#     the same (id, GPU, status, summary of every check), and so is the exit status;
#   - the live machine: bundle it and replay it;
#   - redaction: a fixture whose environment is full of secrets leaves none of
#     their values in any byte of the archive;
#   - secrets on the kernel command line (password=, luks.key=, api_token=)
#     leave the bundle, with and without --anonymize, every spelling of an
#     address leaves under --anonymize, and the replay's verdicts (iommu=pt
#     read from the redacted command line) are the original's;
#   - --anonymize leaves no host name, user name or serial, and every fixture
#     still replays to the same verdicts;
#   - the file is 0600 with the default name; --replay of a corrupt or hostile
#     archive is one line on stderr and exit 3, with nothing left behind.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tests_dir=${TESTS_DIR:-$(dirname "$here")}
rocmcheck=${ROCMCHECK:-}
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
if [ -z "$rocmcheck" ] || [ ! -x "$rocmcheck" ] || [ -z "$python" ]; then
	echo "SKIP: needs ROCMCHECK and python3" >&2
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-bundle.XXXXXX") || exit 1
# replay directories go here, so the test can see that none is left behind
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$work"' EXIT

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# manifest_valid FILE...: valid against the shipped rocmcheck.bundle/1 schema
manifest_valid() {
	"$python" - "$tests_dir/../man/rocmcheck.bundle-1.schema.json" "$@" <<'PY'
import json, sys
import jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
bad = 0
for name in sys.argv[2:]:
    for e in list(v.iter_errors(json.load(open(name))))[:5]:
        print(f"{name}: {'/'.join(map(str, e.path))}: {e.message}", file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
}

# verdicts FILE.json: one line per check result
verdicts() {
	"$python" -c '
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["checks"]:
    print(json.dumps([c["id"], c["gpu"], c["status"], c["summary"]]))
print("exit", r["summary"]["exit_status"])
' "$1"
}

# statuses FILE.json: the same without the summaries
statuses() { verdicts "$1" | "$python" -c '
import json, sys
for l in sys.stdin:
    print(json.dumps(json.loads(l)[:3]) if l.startswith("[") else l.strip())
'; }

leftovers() { ls -A "$TMPDIR"; }

fixtures=()
for d in "$tests_dir"/fixtures/*/ "$tests_dir"/bundle-data/*/; do
	[ -f "$d/.rocmcheck/host.ini" ] && fixtures+=("${d%/}")
done
[ ${#fixtures[@]} -gt 0 ] || { echo "SKIP: no fixtures" >&2; exit 77; }

# 1. round trip of every fixture (the manifests validated together after
# it: one Python for all, whose start is most of the time of one)
manifests=()
for f in "${fixtures[@]}"; do
	name=$(basename "$f")
	"$rocmcheck" --sysroot "$f" doctor --level quick --json >"$work/$name.a.json" 2>/dev/null
	ra=$?
	"$rocmcheck" --sysroot "$f" bundle --level quick -o "$work/$name.tar.gz" >/dev/null 2>"$work/err"
	rb=$?
	[ "$rb" = "$ra" ] || fail "$name: bundle exit $rb, doctor $ra: $(cat "$work/err")"
	"$rocmcheck" --replay "$work/$name.tar.gz" doctor --level quick --json >"$work/$name.c.json" 2>"$work/err"
	rc=$?
	[ "$rc" = "$ra" ] || fail "$name: replay exit $rc, doctor $ra: $(cat "$work/err")"
	if ! diff <(verdicts "$work/$name.a.json") <(verdicts "$work/$name.c.json") >"$work/diff"; then
		fail "$name: replayed verdicts differ:"
		head -20 "$work/diff" >&2
	fi
	mkdir -p "$work/$name.m"
	if tar -xzf "$work/$name.tar.gz" -C "$work/$name.m" manifest.json; then
		manifests+=("$work/$name.m/manifest.json")
	else
		fail "$name: no manifest.json in the bundle"
	fi
	perm=$(stat -c %a "$work/$name.tar.gz")
	[ "$perm" = 600 ] || fail "$name: bundle mode $perm, expected 600"
done
manifest_valid "${manifests[@]}" || fail "a manifest.json is not a valid rocmcheck.bundle/1 (above)"
[ -z "$(leftovers)" ] || fail "replay left $(leftovers) in TMPDIR"
# the schema can say no: a file entry without its sum
first=$(basename "${fixtures[0]}")
"$python" -c 'import json,sys; m=json.load(open(sys.argv[1])); f=[e for e in m["entries"] if e["type"]=="file"][0]; del f["sha256"]; json.dump(m, open(sys.argv[2], "w"))' \
	"$work/$first.m/manifest.json" "$work/broken-manifest.json"
manifest_valid "$work/broken-manifest.json" 2>/dev/null && fail "the bundle schema accepts a file without sha256"

# 2. the live machine (whatever it is): bundle, then replay
"$rocmcheck" bundle --level quick -o "$work/live.tar.gz" >"$work/out" 2>"$work/err"
rl=$?
if [ "$rl" != 0 ] && [ "$rl" != 1 ]; then
	fail "live bundle: exit $rl: $(cat "$work/err")"
else
	tar -tzf "$work/live.tar.gz" >"$work/live.list" || fail "live bundle: tar cannot list it"
	for e in manifest.json report.json report.txt sysroot/.rocmcheck/host.ini logs/kernel.txt; do
		grep -qx "$e" "$work/live.list" || fail "live bundle: no $e"
	done
	"$rocmcheck" --replay "$work/live.tar.gz" doctor --level quick --json >"$work/live.c.json" 2>"$work/err"
	rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "live replay: exit $rc: $(cat "$work/err")"
	# every check the capture can answer says the same as the live report inside the bundle
	tar -xzf "$work/live.tar.gz" -C "$work" report.json
	"$python" - "$work/report.json" "$work/live.c.json" <<'PY' || fail "live replay: static verdicts differ"
import json, sys
live = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
r = {(c["id"], c["gpu"]): c for c in rep["checks"]}
bad = 0
for c in live["checks"]:
    o = r.get((c["id"], c["gpu"]))
    if o is None:
        print("missing in replay:", c["id"]); bad += 1; continue
    if o["status"] == "skip" and "live machine" in (o["summary"] or ""):
        continue   # live-only checks
    if (o["status"], o["summary"]) != (c["status"], c["summary"]):
        print(c["id"], c["status"], c["summary"], "->", o["status"], o["summary"]); bad += 1
sys.exit(1 if bad else 0)
PY
	# tool output: argv, exit status and timing recorded for each command run
	tar -xzf "$work/live.tar.gz" -C "$work" manifest.json
	manifest_valid "$work/manifest.json" || fail "live bundle: manifest.json is not a valid rocmcheck.bundle/1"
	"$python" - "$work/manifest.json" <<'PY' || fail "live bundle: commands not recorded"
import json, sys
m = json.load(open(sys.argv[1]))
cmds = m["commands"]
assert len(cmds) >= 5, cmds
for c in cmds:
    assert c["argv"], c
    assert "skipped" in c or ("exit_status" in c and "timed_out" in c and "truncated" in c), c
PY
	# the kernel log read from /dev/kmsg carries dmesg's "[seconds.micro]"
	# stamps: the first 20 records' stamps as dmesg prints them
	if tar -xzOf "$work/live.tar.gz" sysroot/.rocmcheck/kernel.log >"$work/klog" 2>/dev/null &&
		[ -s "$work/klog" ] && dmesg >"$work/dmesg" 2>/dev/null && [ -s "$work/dmesg" ]; then
		head -n 20 "$work/klog" | sed 's/\].*/]/' >"$work/klog.stamps"
		head -n 20 "$work/dmesg" | sed 's/\].*/]/' | cmp -s - "$work/klog.stamps" ||
			fail "live bundle: kernel.log stamps differ from dmesg's: $(head -n 3 "$work/klog.stamps" | tr '\n' ' ')"
	else
		echo "note: no live kernel log or no dmesg here: the kernel.log stamps are not compared"
	fi
fi

# 2b. an RPM machine: its packages come from `rpm -qa` (this machine is a dpkg
# one, so a test hook asks the fake rpm below) into host.ini [packages],
# the GPU stack's only; a replay reads them back
mkdir -p "$work/fakebin"
cat >"$work/fakebin/rpm" <<'SH'
#!/bin/sh
[ "$1 $2 $3" = "-qa --qf %{NAME} %{ARCH} %|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\n" ] || { echo "rpm: unexpected $*" >&2; exit 9; }
printf '%s\n' "bash x86_64 5.1.8-9.el9" "rocm-core x86_64 6.3.3.60303-74.el9" \
	"amdgpu-dkms noarch 1:6.10.5.60303-2125197.el9" "gpg-pubkey (none) 8483c65d-5ccc5b19" \
	"kernel-core x86_64 5.14.0-427.13.1.el9_4" "rocm[evil] x86_64 1" "rocblas x86_64 4.3.0 extra"
SH
chmod +x "$work/fakebin/rpm"
PATH="$work/fakebin:$PATH" ROCMCHECK_TEST_RPM=1 "$rocmcheck" bundle --level quick -o "$work/rpm.tar.gz" >/dev/null 2>&1
rl=$?
if [ "$rl" != 0 ] && [ "$rl" != 1 ]; then
	fail "rpm bundle: exit $rl"
else
	tar -xzOf "$work/rpm.tar.gz" sysroot/.rocmcheck/host.ini >"$work/rpm.ini"
	sed -n '/^\[packages\]/,/^\[/p' "$work/rpm.ini" | grep -v '^;\|^\[\|^$' >"$work/rpm.pk"
	printf '%s\n' "rocm-core.x86_64 = 6.3.3.60303-74.el9" "amdgpu-dkms.noarch = 1:6.10.5.60303-2125197.el9" \
		"kernel-core.x86_64 = 5.14.0-427.13.1.el9_4" | cmp -s - "$work/rpm.pk" ||
		fail "rpm bundle: [packages] is not the GPU stack's lines of rpm -qa: $(cat "$work/rpm.pk")"
	# a capture whose [packages] says so, with no dpkg database: the report's packages
	cp -r "$TESTS_DIR/fixtures/amd-mi300x-rhel94-iommupt" "$work/rhel"
	sed -i '/^\[packages\]/,$d' "$work/rhel/.rocmcheck/host.ini"
	sed -n '/^\[packages\]/,$p' "$work/rpm.ini" >>"$work/rhel/.rocmcheck/host.ini"
	"$rocmcheck" --sysroot "$work/rhel" --json doctor --level quick >"$work/rhel.json"
	"$python" - "$work/rhel.json" <<'PY' || fail "rpm capture: packages not read back from host.ini"
import json, sys
p = json.load(open(sys.argv[1]))["stack"]["packages"]
assert p["database"] == "rpm", p
assert [(i["name"], i["arch"], i["version"]) for i in p["installed"]] == [
    ("amdgpu-dkms", "noarch", "1:6.10.5.60303-2125197.el9"),
    ("kernel-core", "x86_64", "5.14.0-427.13.1.el9_4"),
    ("rocm-core", "x86_64", "6.3.3.60303-74.el9")], p
PY
fi

# 3. redaction: an environment full of secrets
base=${fixtures[0]}
for f in "${fixtures[@]}"; do
	case $f in *healthy*) base=$f; break ;; esac
done
sec=$work/secret-root
cp -a "$base" "$sec"
cat >>"$sec/.rocmcheck/host.ini" <<'EOF'

[env]
GITHUB_TOKEN = ghp_R3dact1onTestTokenAAAA
HF_TOKEN = hf_SuperSecretValueBBBB
AWS_SECRET_ACCESS_KEY = wJalrXUtnFEMI/K7MDENG/bPxRfiCYCCCC
DB_PASSWORD = Pa55w0rdDDDD
MY_API_KEY = key-EEEE-value
SESSION_COOKIE = cookieFFFF
https_proxy = http://proxyuser:Pr0xyPassGGGG@proxy.corp:3128
PIP_INDEX_URL = https://pipuser:P1pPassHHHH@pypi.corp/simple
ROCM_PATH = https://rocmuser:R0cmPassIIII@mirror.corp/rocm
LD_LIBRARY_PATH = /opt/lib:https://ldtoken_JJJJ@host/x
EOF
"$rocmcheck" --sysroot "$sec" bundle --level quick -o "$work/secrets.tar.gz" >/dev/null 2>"$work/err"
rs=$?
[ "$rs" = 0 ] || [ "$rs" = 1 ] || fail "secrets bundle: exit $rs: $(cat "$work/err")"
gzip -dc "$work/secrets.tar.gz" >"$work/secrets.tar" || fail "secrets bundle: not gzip"
for s in ghp_R3dact1onTestTokenAAAA hf_SuperSecretValueBBBB wJalrXUtnFEMI/K7MDENG/bPxRfiCYCCCC \
	Pa55w0rdDDDD key-EEEE-value cookieFFFF Pr0xyPassGGGG proxyuser P1pPassHHHH pipuser R0cmPassIIII \
	rocmuser ldtoken_JJJJ; do
	if grep -aqF "$s" "$work/secrets.tar"; then
		fail "secret '$s' is in the bundle"
	fi
done
tar -xzf "$work/secrets.tar.gz" -C "$work" sysroot/.rocmcheck/host.ini
grep -q "^ROCM_PATH = https://<redacted>@mirror.corp/rocm$" "$work/sysroot/.rocmcheck/host.ini" ||
	fail "a variable rocmcheck reads lost more than its credentials: $(grep ROCM_PATH "$work/sysroot/.rocmcheck/host.ini")"
grep -q "GITHUB_TOKEN" "$work/sysroot/.rocmcheck/host.ini" &&
	fail "a variable rocmcheck does not read is kept"

# 3b. secrets on the kernel command line (issue 22): a copy of the two-GPU
#     iommu=pt fixture, whose system.iommu check reads /proc/cmdline
kc=$work/cmdline-root
cp -a "$tests_dir/fixtures/amd-mi300x-rhel94-iommupt" "$kc"
kc_secrets="Hunter2CmdSecret /etc/cryptkeys/LuksKeyFile9 ApiTok3nCmdline Quoted-Phrase-Secret"
kc_addrs="192.168.7.5 10.55.66.77 10.55.66.1 aa:bb:cc:dd:ee:0f aa-bb-cc-dd-ee-0f aabb.ccdd.ee0f"
sed -i 's|$| password=Hunter2CmdSecret luks.key=/etc/cryptkeys/LuksKeyFile9 api_token=ApiTok3nCmdline rd.luks.key="Quoted-Phrase-Secret two" ip=::ffff:192.168.7.5 ip=10.55.66.77::10.55.66.1:255.255.255.0:node:eth0:off ifname=eth0:aa:bb:cc:dd:ee:0f BOOTIF=01-aa-bb-cc-dd-ee-0f hw=aabb.ccdd.ee0f amdgpu.ppfeaturemask=0xffffffff|' \
	"$kc/proc/cmdline"
"$rocmcheck" --sysroot "$kc" doctor --level quick --json >"$work/kc.a.json" 2>/dev/null
ra=$?
grep -q '"id": *"system.iommu"' "$work/kc.a.json" || fail "cmdline: no system.iommu in the report"
for anon in "" --anonymize; do
	what="cmdline${anon:+ $anon}"
	rm -rf "$work/kc.m"
	mkdir "$work/kc.m"
	"$rocmcheck" --sysroot "$kc" bundle $anon --level quick -o "$work/kc.tar.gz" >/dev/null 2>"$work/err"
	rb=$?
	[ "$rb" = "$ra" ] || fail "$what: bundle exit $rb, doctor $ra: $(cat "$work/err")"
	tar -xzf "$work/kc.tar.gz" -C "$work/kc.m" || { fail "$what: tar cannot read the bundle"; continue; }
	gzip -dc "$work/kc.tar.gz" >"$work/kc.tar"
	got=$(cat "$work/kc.m/sysroot/proc/cmdline")
	for s in $kc_secrets; do
		grep -aqF "$s" "$work/kc.tar" && fail "$what: secret '$s' is in the bundle: $got"
	done
	for t in iommu=pt amd_iommu=on amdgpu.ppfeaturemask=0xffffffff 'password=<redacted>' 'luks.key=<redacted>' \
		'api_token=<redacted>' 'rd.luks.key="<redacted>"'; do
		[[ " $got " == *" $t "* ]] || fail "$what: '$t' is not in the bundle's proc/cmdline: $got"
	done
	"$python" -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/kc.m/report.json" ||
		fail "$what: the bundle's report.json no longer parses"
	if [ -n "$anon" ]; then
		for a in $kc_addrs; do
			grep -aqiF "$a" "$work/kc.tar" && fail "$what: address '$a' is in the bundle: $got"
		done
		[[ $got == *" ip=ipv6-"*" ip=ipv4-"*"::ipv4-"*":255.255.255.0:"* ]] ||
			fail "$what: ip= not anonymised in place: $got"
	fi
	"$rocmcheck" --replay "$work/kc.tar.gz" doctor --level quick --json >"$work/kc.c.json" 2>"$work/err"
	rc=$?
	[ "$rc" = "$ra" ] || fail "$what: replay exit $rc, doctor $ra: $(cat "$work/err")"
	# pseudonyms show in some summaries ("user user-1 can open ..."): statuses then
	cmp=verdicts
	[ -n "$anon" ] && cmp=statuses
	if ! diff <($cmp "$work/kc.a.json") <($cmp "$work/kc.c.json") >"$work/diff"; then
		fail "$what: replayed verdicts differ:"
		head -20 "$work/diff" >&2
	fi
done

# 4. --anonymize: no host name, user name or serial; same verdicts
anon_src=""
for f in "${fixtures[@]}"; do
	if grep -rqs "unique_id" "$f/sys" && grep -q "^name = [a-z]" "$f/.rocmcheck/host.ini" &&
		! grep -q "^name = root" "$f/.rocmcheck/host.ini"; then
		anon_src=$f
		break
	fi
done
[ -n "$anon_src" ] || anon_src=$base
host=$(sed -n 's/^nodename = //p' "$anon_src/.rocmcheck/host.ini")
user=$(sed -n 's/^name = //p' "$anon_src/.rocmcheck/host.ini")
serials=$(grep -rhs "^unique_id " "$anon_src/sys" | awk '$2 != 0 {print $2}' | sort -u)
"$rocmcheck" --sysroot "$anon_src" doctor --level quick --json >"$work/anon.a.json" 2>/dev/null
"$rocmcheck" --sysroot "$anon_src" bundle --anonymize --level quick -o "$work/anon.tar.gz" >"$work/out" 2>"$work/err"
grep -q "anonymised" "$work/out" || fail "anonymize: the command does not say so"
gzip -dc "$work/anon.tar.gz" >"$work/anon.tar"
for s in $host $user $serials; do
	[ ${#s} -ge 3 ] || continue
	if grep -aqw "$s" "$work/anon.tar"; then
		fail "anonymize: '$s' is still in the bundle"
	fi
done
[ -n "$host" ] && ! grep -aq "host-1" "$work/anon.tar" && fail "anonymize: no host pseudonym"
"$rocmcheck" --replay "$work/anon.tar.gz" doctor --level quick --json >"$work/anon.c.json" 2>/dev/null
# the user name is part of some summaries ("user alice can open ..."): compare statuses
"$python" - "$work/anon.a.json" "$work/anon.c.json" <<'PY' || fail "anonymize: replayed statuses differ"
import json, sys
a, c = (json.load(open(p)) for p in sys.argv[1:3])
sa = [(x["id"], x["gpu"], x["status"]) for x in a["checks"]]
sc = [(x["id"], x["gpu"], x["status"]) for x in c["checks"]]
if sa != sc:
    print(sa, sc)
sys.exit(0 if sa == sc else 1)
PY

# 4b. every fixture anonymised replays to the same statuses (an address-like
#     version such as WSL's kernel release 5.15.153.1-microsoft-standard-WSL2
#     must stay what it is)
for f in "${fixtures[@]}"; do
	name=$(basename "$f")
	"$rocmcheck" --sysroot "$f" bundle --anonymize --level quick -o "$work/$name.anon.tar.gz" >/dev/null 2>&1
	"$rocmcheck" --replay "$work/$name.anon.tar.gz" doctor --level quick --json >"$work/$name.d.json" 2>/dev/null
	diff <(statuses "$work/$name.a.json") <(statuses "$work/$name.d.json") >"$work/diff" ||
		{ fail "$name --anonymize: replayed statuses differ:"; head -10 "$work/diff" >&2; }
done

# 5. the default name, in the current directory, mode 0600
mkdir "$work/cwd"
(cd "$work/cwd" && "$rocmcheck" --sysroot "$base" bundle --level quick >/dev/null 2>&1)
made=$(ls "$work/cwd")
[[ $made =~ ^rocmcheck-bundle-.+-[0-9]{8}T[0-9]{6}Z\.tar\.gz$ ]] || fail "default name: '$made'"
[ -n "$made" ] && [ "$(stat -c %a "$work/cwd/$made")" = 600 ] || fail "default name: not 0600"

# 6. an output that cannot be written: exit 3, nothing half-written
"$rocmcheck" --sysroot "$base" bundle --level quick -o "$work/no/such/dir/b.tar.gz" >/dev/null 2>"$work/err"
[ $? = 3 ] || fail "unwritable output: not exit 3"
grep -q "^rocmcheck: bundle: cannot create" "$work/err" || fail "unwritable output: $(cat "$work/err")"

# 7. --replay of what is not a bundle: one line, exit 3, nothing left behind
printf 'not an archive\n' >"$work/text.tar.gz"
head -c 300 "$work/$(basename "$base").tar.gz" >"$work/trunc.tar.gz"
"$python" - "$work" <<'PY'
import io, sys, tarfile
w = sys.argv[1]
def make(name, members):
    with tarfile.open(f"{w}/{name}", "w:gz") as t:
        for m, data in members:
            t.addfile(m, io.BytesIO(data) if data is not None else None)
def reg(n, data=b"x"):
    i = tarfile.TarInfo(n); i.size = len(data); return (i, data)
def sym(n, target):
    i = tarfile.TarInfo(n); i.type = tarfile.SYMTYPE; i.linkname = target; return (i, None)
def dev(n):
    i = tarfile.TarInfo(n); i.type = tarfile.CHRTYPE; i.devmajor, i.devminor = 1, 3; return (i, None)
make("dotdot.tar.gz", [reg("sysroot/etc/os-release"), reg("../evil-dotdot")])
make("abs.tar.gz", [reg("sysroot/etc/os-release"), reg(f"{w}/evil-abs")])
make("symlink.tar.gz", [reg("sysroot/etc/os-release"), sym("sysroot/up", "../../.."), reg("sysroot/up/evil-link")])
make("dev.tar.gz", [reg("sysroot/etc/os-release"), dev("sysroot/dev/evil-null")])
PY
for a in text trunc dotdot abs symlink dev missing; do
	"$rocmcheck" --replay "$work/$a.tar.gz" doctor --level quick >"$work/out" 2>"$work/err"
	r=$?
	[ "$r" = 3 ] || fail "--replay $a: exit $r"
	[ "$(wc -l <"$work/err")" = 1 ] || fail "--replay $a: not one line: $(cat "$work/err")"
	grep -q "^rocmcheck: --replay $work/$a.tar.gz: " "$work/err" || fail "--replay $a: $(cat "$work/err")"
	[ ! -s "$work/out" ] || fail "--replay $a: printed a report"
done
ls "$work" "$work/.." | grep -q evil && fail "a hostile entry was written outside"
[ -z "$(leftovers)" ] || fail "replay left $(leftovers) in TMPDIR"

# 7b. every command says it read a bundle: source kind "replay", the bundle's path
for cmd in doctor devices; do
	"$rocmcheck" --replay "$work/$(basename "$base").tar.gz" $cmd --json 2>/dev/null >"$work/src.json"
	"$python" - "$work/src.json" "$work/$(basename "$base").tar.gz" <<'PY' || fail "$cmd --replay: source is not the bundle: $(head -c 300 "$work/src.json")"
import json, sys
s = json.load(open(sys.argv[1]))["source"]
sys.exit(0 if s["kind"] == "replay" and s["path"] == sys.argv[2] else 1)
PY
done
[ -z "$(leftovers)" ] || fail "replay left $(leftovers) in TMPDIR"

# 8. ended by a signal while replaying: nothing was written to disk (the
#    bundle is read into memory), nothing is left, and the status says the
#    signal (test hook: rocmcheck stops right after reading the bundle)
if grep -q '^ROCMCHECK_TEST_HOOKS:BOOL=ON' "${BUILD_DIR:-}/CMakeCache.txt" 2>/dev/null; then
	for sig in TERM INT HUP; do
		: >"$work/err"
		# a background job starts with SIGINT ignored; give it back its default
		ROCMCHECK_TEST_FAULT=replay_pause "$python" -c '
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$rocmcheck" --replay "$work/$(basename "$base").tar.gz" doctor --level quick \
			>/dev/null 2>"$work/err" &
		pid=$!
		for _ in $(seq 200); do
			grep -q "replaying in" "$work/err" && break
			sleep 0.05
		done
		grep -qx "rocmcheck: test: replaying in memory" "$work/err" ||
			fail "signal $sig: the replay did not start: $(cat "$work/err")"
		[ -z "$(leftovers)" ] || fail "signal $sig: the replay wrote $(leftovers) in TMPDIR"
		kill -s "$sig" "$pid"
		wait "$pid"
		r=$?
		want=$((128 + $(kill -l "$sig")))
		[ "$r" = "$want" ] || fail "signal $sig: exit $r, want $want"
		[ -z "$(leftovers)" ] || fail "signal $sig: replay left $(leftovers) in TMPDIR"
		rm -rf "${TMPDIR:?}"/*
	done
else
	echo "note: built without ROCMCHECK_TEST_HOOKS: the signal cases are not run" >&2
fi

if [ "$failures" -gt 0 ]; then
	echo "$failures failure(s)" >&2
	exit 1
fi
echo "bundle: ${#fixtures[@]} fixtures round-tripped; live, redaction, anonymize and hostile cases passed"
