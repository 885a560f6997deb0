#!/bin/bash
# doctor --format markdown and a bundle's report.md, read by a real renderer:
# cmark-gfm (GitHub's CommonMark with its table extension; Debian's
# cmark-gfm, installed by ci/test-deps), run with --unsafe so that any raw
# HTML a value smuggled in would come out as HTML, not be dropped.
#   - every fixture: the Markdown renders; its only HTML is our one
#     <details>/<summary>; the table in it has a row of five cells for every
#     check result and probe of the JSON report; every fix command of a
#     problem is a line of a fenced code block;
#   - hostile values (`|`, backticks, <img>, **, $, </details>) in the OS name
#     and in a venv path that a fix command holds: the text comes out as the
#     same text, the table keeps its rows, the fence is longer than the
#     backtick run; make_hostile.sh's tree renders the same way;
#   - planted secrets (host name, GPU serial, IP, MAC, password= on the kernel
#     command line, a user name in a home path) that the JSON report holds are
#     in neither the Markdown nor a bundle's report.md (with and without
#     --anonymize); an anonymised bundle's report.md uses the bundle's own
#     pseudonyms;
#   - --format markdown is for doctor only.
. "$(dirname "$0")/lib.sh"

if ! command -v cmark-gfm >/dev/null; then
	echo "SKIP: cmark-gfm is not installed (ci/test-deps installs it)" >&2
	exit 77
fi

# check_md MD JSON [LITERAL...]: render MD and check it against the JSON
# report of the same run; each LITERAL must come out as that very text.
check_md() {
	cmark-gfm --unsafe -e table "$1" >"$1.html" || { fail "cmark-gfm failed on $1"; return; }
	"$PYTHON" - "$1.html" "$2" "${@:3}" <<'PY'
import html, json, re, sys
from html.parser import HTMLParser

class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.stack, self.text = [], [], []
        self.rows, self.cells, self.code, self.in_details = [], None, [], 0
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.stack.append(tag)
        if tag == "details":
            self.in_details += 1
        if tag == "tr" and self.in_details and "tbody" in self.stack:
            self.cells = 0
        if tag == "td" and self.cells is not None:
            self.cells += 1
        if tag == "code" and "pre" in self.stack:
            self.code.append("")
    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass
        if tag == "tr" and self.cells is not None:
            self.rows.append(self.cells)
            self.cells = None
    def handle_data(self, d):
        self.text.append(d)
        if self.stack[-2:] == ["pre", "code"]:
            self.code[-1] += d
    def handle_comment(self, d):
        self.tags.append("!--")

name, rep = sys.argv[1], json.load(open(sys.argv[2]))
page = open(name, encoding="utf-8").read()
p = P()
p.feed(page)
bad = []
allowed = {"h3", "h4", "p", "strong", "code", "pre", "ul", "li", "table", "thead", "tbody", "tr", "th", "td",
           "details", "summary"}
extra = sorted(set(p.tags) - allowed)
if extra:
    bad.append(f"HTML beyond ours: {extra}")
if p.tags.count("details") != 1 or p.tags.count("summary") != 1:
    bad.append(f"{p.tags.count('details')} <details>, {p.tags.count('summary')} <summary>")
want = len(rep["checks"]) + len(rep["probes"])
trs = len([t for t in p.tags if t == "tr"])
if len(p.rows) != want:
    bad.append(f"{len(p.rows)} rows in the <details> table, the report has {want} results")
if any(n != 5 for n in p.rows):
    bad.append(f"rows of other than five cells: {[n for n in p.rows if n != 5]}")
if trs != want + 1:
    bad.append(f"{trs} <tr> in all, expected {want} and a header")
text = "".join(p.text)
for lit in sys.argv[3:]:
    if lit not in text:
        bad.append(f"the text lacks {lit!r}")
# every fix command of a problem is a line of a code block, as the JSON has
# it but for the pseudonyms ("user-1", "/home/home-1", "serial-2", and a hex
# or decimal serial's "a0000002", "10000003")
pseudo = re.compile(r"(?:/home/)?(?:host|user|home|serial|ipv4|ipv6|mac)-[0-9]+|\b[a1]0+[0-9a-f]+\b")
lines = [re.compile(".+?".join(re.escape(x) for x in pseudo.split(l)))
         for c in p.code for l in c.split("\n")]
ids = [c for c in rep["checks"] if c["status"] in ("warn", "fail", "error")] + \
      [c for c in rep["probes"] if c["status"] in ("warn", "fail", "error")]
for c in ids:
    for cmd in ((c.get("fix") or {}).get("commands") or []):
        if not any(l.fullmatch(cmd) for l in lines):
            bad.append(f"{c['id']}: command not in a code block: {cmd}")
for b in bad:
    print(f"{name}: {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
	[ $? = 0 ] || fail "$1 does not render as expected"
}

# md_run NAME SYSROOT [DOCTOR-OPTION...]: the JSON report and the Markdown
# of one doctor run
md_run() {
	local n=$1 root=$2
	shift 2
	ntests=$((ntests + 1))
	"$ROCMCHECK" --sysroot "$root" --json doctor "$@" >"$T/$n.json" 2>"$T/$n.err"
	local rj=$?
	"$ROCMCHECK" --sysroot "$root" --format markdown doctor "$@" >"$T/$n.md" 2>"$T/$n.err"
	local rm=$?
	[ "$rj" = "$rm" ] || fail "$n: exit $rm with markdown, $rj with json"
	[ "$rm" -lt 2 ] || fail "$n: exit $rm: $(head -c 300 "$T/$n.err")"
}

# 1. every fixture
nfix=0
while read -r f; do
	n=fx-$(basename "$f")
	md_run "$n" "$f" && check_md "$T/$n.md" "$T/$n.json"
	nfix=$((nfix + 1))
done < <(fixtures)
[ "$nfix" -gt 0 ] || fail "no fixtures"

# 2. hostile values where the Markdown shows them: the OS name (machine list
#    and system.os's finding) and a venv path that framework.torch's fix runs
evil='Evil | <img src=x onerror=alert(1)> **bold** `tick` ```` [x](javascript:y) &amp; $x$ </details> _u_'
venv='/opt/ev````il|<img src=x onerror=alert(2)>*x*'
h=$T/hostile
cp -a "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-cudatorch" "$h"
# set_line FILE PREFIX LINE: the line starting with PREFIX becomes LINE
set_line() {
	"$PYTHON" -c 'import sys
f, pre, new = sys.argv[1:]
t = open(f).read().split("\n")
open(f, "w").write("\n".join(new if l.startswith(pre) else l for l in t))' "$@"
}
set_line "$h/etc/os-release" PRETTY_NAME= "PRETTY_NAME=\"$evil\""
mkdir -p "$h/opt"
mv "$h/home/alice/venv" "$h$venv"
set_line "$h/.rocmcheck/host.ini" "VIRTUAL_ENV = " "VIRTUAL_ENV = $venv"
md_run hostile "$h"
grep -qF "$venv/bin/python' -m pip" "$T/hostile.json" || fail "hostile: framework.torch's fix does not run the venv's python"
check_md "$T/hostile.md" "$T/hostile.json" "$evil" "$venv/lib/python3.10/site-packages/torch"
grep -q '^`````sh$' "$T/hostile.md" || fail "hostile: no five-backtick fence around a command holding four"

# make_hostile.sh's tree: garbage everywhere, still one table and no HTML
if bash "$TESTS_DIR/cli/make_hostile.sh" "$T/garbage" 2>/dev/null; then
	md_run garbage "$T/garbage" --level quick
	check_md "$T/garbage.md" "$T/garbage.json"
else
	fail "make_hostile.sh could not build its tree"
fi

# 3. planted secrets: a two-GPU capture whose system.iommu warning quotes the
#    kernel command line, with a venv in the user's home
s=$T/secret
cp -a "$TESTS_DIR/fixtures/amd-mi250x-ubuntu2204-noiommupt" "$s"
host=zqhost-secret7 user=zquser9 serial=9f1e2d3c4b5a6978 ip=10.66.77.88 mac=52:54:00:ab:cd:ef
pw=Hunter2ZqPass
sed -i "s|^nodename = .*|nodename = $host|; s|^name = root|name = $user|; s|^uid = 0|uid = 1000|;
	s|^groups = root|groups = $user render video|; s|^home = /root|home = /home/$user|" "$s/.rocmcheck/host.ini"
sed -i "/^PATH = /a VIRTUAL_ENV = /home/$user/venv" "$s/.rocmcheck/host.ini"
mkdir -p "$s/home/$user"
cp -a "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-cudatorch/home/alice/venv" "$s/home/$user/venv"
for u in $(find "$s/sys/devices" -name unique_id); do echo "$serial" >"$u"; done
sed -i "s|\$| password=$pw ip=$ip::10.66.77.1:255.255.255.0:$host:eth0:off BOOTIF=01-${mac//:/-} ifname=eth0:$mac rd.tag=$serial|" \
	"$s/proc/cmdline"
planted="$host $user $serial $ip ${mac//:/-} $mac $pw"
md_run secret "$s"
for v in $planted; do
	grep -qiF -- "$v" "$T/secret.json" || fail "planted '$v' is not in the JSON report: the test plants it nowhere"
	grep -qiF -- "$v" "$T/secret.md" && fail "planted '$v' is in the Markdown"
done
check_md "$T/secret.md" "$T/secret.json" "password=<redacted>" "/venv/lib/python3.10/site-packages/torch"
grep -q "home-1/venv" "$T/secret.md" || fail "secret: the venv path is not shown with the home's pseudonym"
for anon in "" --anonymize; do
	what="bundle${anon:+ $anon}"
	rm -rf "$T/b"
	mkdir "$T/b"
	ntests=$((ntests + 1))
	"$ROCMCHECK" --sysroot "$s" bundle $anon -o "$T/b.tar.gz" >/dev/null 2>"$T/b.err"
	[ $? -lt 2 ] || { fail "$what: $(cat "$T/b.err")"; continue; }
	tar -xzf "$T/b.tar.gz" -C "$T/b" report.md report.json manifest.json sysroot/.rocmcheck/host.ini ||
		{ fail "$what: no report.md in the bundle"; continue; }
	for v in $planted; do
		grep -qiF -- "$v" "$T/b/report.md" && fail "$what: planted '$v' is in report.md"
	done
	grep -q '"path": "report.md"' "$T/b/manifest.json" || fail "$what: the manifest does not list report.md"
	check_md "$T/b/report.md" "$T/b/report.json" "password=<redacted>"
	if [ -n "$anon" ]; then
		# the pseudonym of the home is the one the bundle's host.ini has
		home=$(sed -n 's/^home = //p' "$T/b/sysroot/.rocmcheck/host.ini")
		grep -qF "in $home/venv/lib" "$T/b/report.md" ||
			fail "$what: report.md's venv path is not under the bundle's home ($home)"
	fi
done

# 4. markdown is doctor's only
usage_error --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" --format markdown devices
assert_err_has "markdown is for"

finish
