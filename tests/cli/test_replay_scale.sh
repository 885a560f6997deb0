#!/bin/bash
# A replay costs what the bundle holds, not a file made and removed per
# entry (issue 25: a 50 KB bundle of ~1 400 entries took 2 s to replay).
# The healthy fixture's bundle (N entries) against the same bundle padded
# with 10 N entries no check reads (documentation directories and files):
#   - doctor, devices, diff and fleet read the padded bundle as the plain
#     one (the same verdicts; the padding is there, in the archive);
#   - the CPU time of `doctor --replay` (user + system, the median of three
#     runs each) may grow at most 4 times for 11 times the entries: reading
#     into memory measures about 2 (libarchive's header parsing is most of
#     an entry's cost), unpacking to disk measured 20;
#   - nothing is written to TMPDIR while replaying.
# A ratio, not a threshold in seconds, so a slow or loaded machine (or a
# sanitizer build) does not fail it.
. "$(dirname "$0")/lib.sh"

FIXTURE=$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy
run 0 --sysroot "$FIXTURE" bundle -o "$T/plain.tar.gz"
[ -s "$T/plain.tar.gz" ] || { fail "no bundle written"; last; }

# the same bundle with 10 N irrelevant entries: N/2*10 directories, each
# with one file, below sysroot/usr/share/doc
"$PYTHON" - "$T/plain.tar.gz" "$T/padded.tar.gz" <<'PY' || fail "cannot pad the bundle"
import io, sys, tarfile

src, dst = sys.argv[1], sys.argv[2]
with tarfile.open(src, "r:gz") as t:
    members = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()]
n = len(members)
with tarfile.open(dst, "w:gz") as out:
    for m, data in members:
        out.addfile(m, io.BytesIO(data) if data is not None else None)
    for i in range(n * 10 // 2):
        d = tarfile.TarInfo(f"sysroot/usr/share/doc/pad{i}")
        d.type, d.mode = tarfile.DIRTYPE, 0o755
        out.addfile(d)
        body = f"padding {i}\n".encode()
        f = tarfile.TarInfo(f"sysroot/usr/share/doc/pad{i}/README")
        f.size, f.mode = len(body), 0o644
        out.addfile(f, io.BytesIO(body))
PY
n_plain=$("$PYTHON" -c 'import sys, tarfile; print(len(tarfile.open(sys.argv[1]).getmembers()))' "$T/plain.tar.gz")
n_padded=$("$PYTHON" -c 'import sys, tarfile; print(len(tarfile.open(sys.argv[1]).getmembers()))' "$T/padded.tar.gz")
[ "$n_padded" -ge $((11 * n_plain - 1)) ] || fail "padded bundle: $n_padded entries for $n_plain"

# The same verdicts from both, whichever command reads them.
verdicts() {
	"$PYTHON" -c '
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["checks"]:
    print(json.dumps([c["id"], c["gpu"], c["status"], c["summary"]]))
print("exit", r["summary"]["exit_status"])' "$1"
}
for b in plain padded; do
	mkdir -p "$T/tmp-$b"
	TMPDIR=$T/tmp-$b "$ROCMCHECK" --replay "$T/$b.tar.gz" --json doctor --level quick >"$T/$b.json" 2>"$T/$b.err"
	verdicts "$T/$b.json" >"$T/$b.verdicts" || fail "--replay $b: not a report: $(head -c 300 "$T/$b.err")"
	[ -z "$(ls -A "$T/tmp-$b")" ] || fail "--replay $b wrote to TMPDIR: $(ls -A "$T/tmp-$b")"
	TMPDIR=$T/tmp-$b "$ROCMCHECK" --replay "$T/$b.tar.gz" devices >"$T/$b.devices" 2>&1 ||
		fail "--replay $b devices: $(head -c 300 "$T/$b.devices")"
done
cmp -s "$T/plain.verdicts" "$T/padded.verdicts" || fail "the padded bundle's verdicts differ: $(diff "$T/plain.verdicts" "$T/padded.verdicts" | head -5)"
[ "$(wc -l <"$T/plain.verdicts")" -gt 10 ] || fail "few verdicts: $(cat "$T/plain.verdicts")"
cmp -s "$T/plain.devices" "$T/padded.devices" || fail "devices differ"
grep -q "7900 XTX" "$T/plain.devices" || fail "devices: no 7900 XTX: $(cat "$T/plain.devices")"
run 0 diff "$T/plain.tar.gz" "$T/padded.tar.gz"
run 0 fleet "$T/plain.tar.gz" "$T/padded.tar.gz"
assert_out_has "^rocmcheck fleet: 2 reports"

# CPU seconds (user + system), the median of three runs each, and the ratio.
"$PYTHON" - "$ROCMCHECK" "$T/plain.tar.gz" "$T/padded.tar.gz" <<'PY' || fail "replay time grows with entries no check reads"
import resource, subprocess, sys

exe, plain, padded = sys.argv[1:]


def cpu(bundle):
    times = []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([exe, "--replay", bundle, "doctor"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return sorted(times)[1]


s, b = cpu(plain), cpu(padded)
r = b / max(s, 0.005)   # a run under 5 ms is start-up: no sharper than that
print("replay: %.3f s for the bundle, %.3f s padded to 11 times its entries: %.1fx" % (s, b, r))
sys.exit(0 if r <= 4 else 1)
PY

finish
