#!/bin/bash
# ci/fn-lengths: no function in src/ or probes/ is over 120 lines (a /* phase */
# comment inside a long function is the name of a helper waiting to be
# written). The allow-list below is empty and must stay so: an entry must
# name a function that is still over the limit. And the script measures what
# it says on a file made here.
set -u
: "${SOURCE_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
limit=120
allowed=""

cd "$SOURCE_DIR" || fail "no source dir"
out=$(ci/fn-lengths --over $limit src probes) || fail "ci/fn-lengths failed: $out"
grep -q "^fn-lengths: [0-9]* functions, median [0-9]* lines, [0-9]* over $limit$" <<<"$out" || fail "summary: $out"
long=$(grep -v "^fn-lengths: " <<<"$out" | sed 's/^[0-9]* \([^:]*\):[0-9]* \(.*\)$/\1 \2/')
while read -r file name; do
	[ -n "$file" ] || continue
	grep -qxF "$file $name" <<<"$allowed" || fail "$file: $name is over $limit lines: split it into named helpers ($out)"
done <<<"$long"
while read -r entry; do
	grep -qxF "$entry" <<<"$long" || fail "$entry is no longer over $limit lines: remove it from the allow-list"
done <<<"$allowed"

# the measure: signature line to closing brace, braces in column 0
mkdir -p "$tmp/src"
{
	printf '/* a comment */\nstatic int small(int a,\n\t\t int b)\n{\n\treturn a + b;\n}\n\n'
	printf 'static const int table[] = {\n\t1,\n};\n\n'
	printf 'int big(void)\n{\n'
	for i in $(seq 1 130); do printf '\tcall(%d);\n' "$i"; done
	printf '}\n'
} >"$tmp/src/x.c"
out=$(cd "$tmp" && "$SOURCE_DIR/ci/fn-lengths" --over $limit src) || fail "fn-lengths on the sample: $out"
grep -qx "133 src/x.c:12 big" <<<"$out" || fail "big is 133 lines from line 12: $out"
grep -q "small" <<<"$out" && fail "small is not over $limit: $out"
grep -qx "fn-lengths: 2 functions, median 133 lines, 1 over $limit" <<<"$out" || fail "sample summary: $out"
out=$(cd "$tmp" && "$SOURCE_DIR/ci/fn-lengths" src) || fail "fn-lengths without a limit: $out"
grep -qx "5 src/x.c:2 small" <<<"$out" || fail "small is 5 lines from line 2: $out"
exit 0
