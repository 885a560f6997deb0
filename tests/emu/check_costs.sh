#!/bin/bash
# unit.kernel_emu_banks: runs the cost-model builds of the kernel emulator
# (kernel_emu_cost_VARIANT, tests/emu/emu_cost.cpp) and holds the kernels to
# the model: no shared-memory site over 2-way, every global load coalesced,
# except the sites bank_allow.txt lists with a reason. A listed site that no
# longer breaks the rule fails too (a stale entry), so the list follows the
# kernels as they are fixed. Prints every site's line (the table).
#
# usage: check_costs.sh ALLOWLIST VARIANT EXE [VARIANT EXE ...]
#        check_costs.sh --selftest   (the checker against made-up reports)
set -u

# check ALLOWLIST REPORT: the verdict on the banks:/coalesce: lines of REPORT
check() {
	awk -v allowfile="$1" '
	BEGIN {
		while ((getline line < allowfile) > 0) {
			if (line ~ /^[ \t]*(#|$)/)
				continue
			split(line, f, /[ \t]+/)
			if (f[4] == "") {
				printf "FAIL %s: no reason given: %s\n", allowfile, line
				bad++
				continue
			}
			key = f[1] " " f[2] " " f[3]
			allow[key] = 1
		}
	}
	function allowed(k, v, s,    w) {
		if ((k " " v " " s) in allow) { used[k " " v " " s] = 1; return 1 }
		w = k " * " s
		if (w in allow) { used[w] = 1; return 1 }
		return 0
	}
	$1 == "banks:" {
		n = $5; sub(/-way/, "", n)
		if (n + 0 > 2 && !allowed($2, $3, $4)) {
			printf "FAIL %s %s %s: %s-way bank conflict (at most 2-way unless %s lists it)\n", $2, $3, $4, n, allowfile
			bad++
		}
	}
	$1 == "coalesce:" && /\(load,/ && /not coalesced/ {
		if (!allowed($2, $3, $4)) {
			printf "FAIL %s %s %s: global load not coalesced (%s)\n", $2, $3, $4, $5
			bad++
		}
	}
	END {
		for (k in allow)
			if (!(k in used)) {
				printf "FAIL %s: stale entry, the site is within the model now or gone: %s\n", allowfile, k
				bad++
			}
		exit bad ? 1 : 0
	}' "$2"
}

if [ "${1:-}" = "--selftest" ]; then
	t=$(mktemp -d) || exit 1
	trap 'rm -rf "$t"' EXIT
	cat > "$t/report" <<'EOF'
banks: gemm_fp16 cuda gemm.hip:10 16-way (store, 4 B/lane, 8 accesses)
banks: gemm_fp16 cuda gemm.hip:20 2-way (load, 16 B/lane, 8 accesses)
coalesce: conv_fp32 cuda conv.hip:30 100/5 (load, 32-byte segments, 4 needed, not coalesced)
coalesce: conv_fp32 cuda conv.hip:40 100/5 (store, 32-byte segments, 4 needed, not coalesced)
EOF
	fails=0
	expect() {   # expect VERDICT WHAT: VERDICT 0 pass, 1 fail
		check "$t/allow" "$t/report" > "$t/out"
		rc=$?
		if [ "$rc" != "$1" ]; then
			echo "FAIL selftest: $2 (exit $rc)"
			cat "$t/out"
			fails=$((fails + 1))
		else
			echo "ok selftest: $2"
		fi
	}
	printf 'gemm_fp16 cuda gemm.hip:10 the transpose\nconv_fp32 * conv.hip:30 the gather\n' > "$t/allow"
	expect 0 "listed conflicts pass; a 2-way load and a store not coalesced need no entry"
	printf 'conv_fp32 * conv.hip:30 the gather\n' > "$t/allow"
	expect 1 "an unlisted 16-way store fails"
	printf 'gemm_fp16 cuda gemm.hip:10 the transpose\n' > "$t/allow"
	expect 1 "an unlisted uncoalesced load fails"
	printf 'gemm_fp16 cuda gemm.hip:10 the transpose\nconv_fp32 * conv.hip:30 the gather\ngemm_fp16 cuda gemm.hip:20 fixed\n' > "$t/allow"
	expect 1 "a stale entry fails"
	printf 'gemm_fp16 cuda gemm.hip:10\nconv_fp32 * conv.hip:30 the gather\n' > "$t/allow"
	expect 1 "an entry without a reason fails"
	exit $((fails ? 1 : 0))
fi

if [ $# -lt 3 ] || [ $(($# % 2)) -ne 1 ]; then
	echo "usage: $0 ALLOWLIST VARIANT EXE [VARIANT EXE ...] | --selftest" >&2
	exit 2
fi
allow=$1
shift
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
: > "$t/report"
fails=0
while [ $# -gt 0 ]; do
	v=$1 exe=$2
	shift 2
	# one 128x128 block tile and a k of 32: every GEMM site runs, and fast
	if ! "$exe" 128 128 32 > "$t/$v" 2>&1; then
		echo "FAIL $v: the cost-model emulator failed:"
		cat "$t/$v"
		fails=$((fails + 1))
	fi
	if ! grep -q '^banks: ' "$t/$v"; then
		echo "FAIL $v: no banks: lines"
		fails=$((fails + 1))
	fi
	grep -E '^(banks|coalesce): ' "$t/$v" >> "$t/report"
done
cat "$t/report"
check "$allow" "$t/report" || fails=$((fails + 1))
if [ "$fails" -ne 0 ]; then
	echo "FAIL: the kernels break the cost model (README.md, the kernel emulator's cost model)"
	exit 1
fi
echo "ok: every shared-memory site at most 2-way and every global load coalesced, or listed in $allow"
