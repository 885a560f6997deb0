#!/bin/bash
# `fleet` and `diff` take time linear in a report's size: one report of N
# GPUs (a probe each, N checks) against one of 10 N
# (tests/cli/make_wide_report.py). The CPU time of each run, the median of
# three, may grow at most 20 times for 10 times the input: noise and a fixed
# start-up cost stay well under it, while a lookup that walks an array for
# each entry of another makes it about 100 (issue 22: 10 000 GPUs took
# 2.7 s in fleet). A ratio, not a threshold in seconds, so a slow or loaded
# machine (or a sanitizer build) does not fail it.
. "$(dirname "$0")/lib.sh"

N=1000
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
ratio diff "--json diff $T/a$N.json $T/b$N.json" \
	"--json diff $T/a$((10 * N)).json $T/b$((10 * N)).json" || fail "diff is not linear in the reports' size"
finish
