#!/bin/bash
# `fleet` and `diff` take time linear in a report's size: one report of N
# GPUs (a probe each, N checks) against one of 10 N
# (tests/cli/make_wide_report.py). The CPU time of each run, the median of
# three, may grow at most 20 times for 10 times the input: noise and a fixed
# start-up cost stay well under it, while a lookup that walks an array for
# each entry of another makes it about 100 (issue 22: 10 000 GPUs took
# 2.7 s in fleet). A ratio, not a threshold in seconds, so a slow or loaded
# machine (or a sanitizer build) does not fail it. The same for many small
# reports: 1 000 nodes against 10 000 (tests/cli/make_fleet.py, issue 25),
# where the text lists only the failing nodes (every one with -v, none with
# -q), a slow GPU fails its node, and a host name in two reports is named
# with both files.
# Under a sanitizer (ROCMCHECK_SANITIZE=ON in BUILD_DIR) all of it at a fifth
# of the sizes (200 GPUs against 2 000, 200 nodes against 2 000): what ASan
# and UBSan add is a check of every access on large inputs, which a fifth
# still gives; a run 3 to 5 times slower adds nothing to the ratios, and the
# normal build's full sizes are what catch a quadratic walk.
. "$(dirname "$0")/lib.sh"

N=1000 M=10000
if sanitized; then
	N=200 M=2000
fi
echo "sizes: $N GPUs against $((10 * N)), $((M / 10)) nodes against $M"
for n in $N $((10 * N)); do
	"$PYTHON" "$TESTS_DIR/cli/make_wide_report.py" "$T/a$n.json" $n a || fail "make_wide_report $n a"
	"$PYTHON" "$TESTS_DIR/cli/make_wide_report.py" "$T/b$n.json" $n b || fail "make_wide_report $n b"
done

# Sanity: the wide reports are read in full (every GPU, every failing check).
run 1 --json fleet "$T/a$((10 * N)).json"
[ "$(json_get "$OUT" 'd["reports"], len(d["failing_checks"])')" = "1 $((5 * N))" ] ||
	{ fail "the wide report: 1 report, $((5 * N)) failing checks"; last; }
run 1 --json diff "$T/a$N.json" "$T/b$N.json"
[ "$(json_get "$OUT" 'len(d["verdicts"]), len(d["facts"])')" = "$N $N" ] ||
	{ fail "the wide diff: $N verdicts, $N facts"; last; }

# ratio LABEL ARGS-FOR-N ARGS-FOR-10N: CPU seconds (user + system) of
# rocmcheck, the median of three runs each, and their ratio.
ratio() {
	"$PYTHON" - "$ROCMCHECK" "$@" <<'PY'
import os, resource, subprocess, sys

exe, label, small, big = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()


def cpu(args):
    times = []
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([exe] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return sorted(times)[1]


s, b = cpu(small), cpu(big)
r = b / max(s, 0.01)   # a run under 10 ms is mostly start-up: no sharper than that
print("%s: %.3f s for N, %.3f s for 10 N: %.1fx" % (label, s, b, r))
sys.exit(0 if r <= 20 else 1)
PY
}

ratio fleet "fleet $T/a$N.json" "fleet $T/a$((10 * N)).json" || fail "fleet is not linear in the report's size"

# M (10 000) nodes: a failing check on every 25th (400), three slow GPUs
# among the first 64, and node-0017's report read again from another
# directory. 10 001 reports: 404 fail (the 400 and the slow GPUs' 4), the
# rest pass. f1k holds the first tenth of them.
nfail=$((M / 25)) nbad=$((M / 25 + 4))
"$PYTHON" "$TESTS_DIR/cli/make_fleet.py" "$T/f10k" $M || fail "make_fleet.py $M"
mkdir -p "$T/f1k" "$T/again"
# shellcheck disable=SC2046
cp $(printf "$T/f10k/node-%04d.json " $(seq 0 $((M / 10 - 1)))) "$T/f1k/"
cp "$T/f10k/node-0017.json" "$T/again/"
run 1 fleet "$T/f10k" "$T/again"
assert_out_has "^rocmcheck fleet: $((M + 1)) reports: $((M + 1 - nbad)) passed, 0 with warnings, $nbad failed, 0 with errors$"
assert_out_has "^Outliers, each node counted as failed: 4 with a slow GPU, 0 with a hot GPU, 0 with a narrow link$"
assert_out_has "^Duplicates: 1 host name in more than one report (2 reports)$"
[ "$(grep -c '^node-[0-9]* ' "$OUT")" = $nbad ] || { fail "default: the $nbad failing nodes' rows"; last; }
grep '^node-[0-9]* ' "$OUT" | grep -v '^node-[0-9]*  *fail ' | head -3 | grep -q . && fail "default: a row that does not fail"
assert_out_has "^node-0017  *fail .* slow GPU duplicate name$"
assert_out_has "^$((M + 1 - nbad)) nodes that passed or warned not listed (-v lists every node)$"
assert_out_has "^  perm.kfd  *$nfail nodes: node-0024 .* ($((nfail - 20)) more)$"
assert_out_has "^  node-0017: $T/f10k/node-0017.json $T/again/node-0017.json$"
[ "$(wc -l <"$OUT")" -lt $((nbad + 46)) ] || { fail "default: $(wc -l <"$OUT") lines for $nbad failing nodes"; last; }
head -n 3 "$OUT" >"$T/summary"
run 1 -v fleet "$T/f10k" "$T/again"
[ "$(grep -c '^node-[0-9]* ' "$OUT")" = $((M + 1)) ] || { fail "-v: every node's row"; last; }
assert_out_lacks "not listed"
run 1 -q fleet "$T/f10k" "$T/again"
cmp -s "$OUT" "$T/summary" || { fail "-q: the three summary lines alone"; last; }
run 1 --json fleet "$T/f10k" "$T/again"
[ "$(json_get "$OUT" 'd["reports"], [(x["name"], len(x["sources"])) for x in d["duplicates"]]')" = "$((M + 1)) [('node-0017', 2)]" ] ||
	{ fail "JSON: $((M + 1)) reports, node-0017 twice"; last; }
ratio "fleet of reports" "fleet $T/f1k" "fleet $T/f10k" || fail "fleet is not linear in the number of reports"
ratio diff "--json diff $T/a$N.json $T/b$N.json" \
	"--json diff $T/a$((10 * N)).json $T/b$((10 * N)).json" || fail "diff is not linear in the reports' size"
finish
