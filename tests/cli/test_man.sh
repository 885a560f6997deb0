#!/bin/bash
# The man page documents every check ID, command, option and exit status.
. "$(dirname "$0")/lib.sh"
MAN=$SOURCE_DIR/man/rocmcheck.1
[ -f "$MAN" ] || { fail "no man/rocmcheck.1"; finish; }

# rendered text, so roff escapes (\-) do not hide a name
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z "$MAN" 2>"$T/groff" || fail "groff failed on the man page"
	[ -s "$T/groff" ] && { fail "groff warnings:"; cat "$T/groff" >&2; }
	groff -man -Tascii -P-cbou "$MAN" 2>/dev/null >"$T/man.txt"
else
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$MAN" >"$T/man.txt"
fi

for section in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS CHECKS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
	grep -q "^$section" "$T/man.txt" || fail "man page has no $section section"
done
run 0 checks
tail -n +2 "$OUT" | awk '{print $1}' | while read -r id; do
	grep -qF -- "$id" "$T/man.txt" || echo "$id"
done >"$T/missing"
[ -s "$T/missing" ] && fail "man page lacks check IDs: $(tr '\n' ' ' <"$T/missing")"
for cmd in doctor probe devices plan bundle diff fleet checks profiles version help; do
	grep -q "^       $cmd" "$T/man.txt" || fail "man page COMMANDS lacks $cmd"
done
# every option row: the global rows (rocmcheck --help) and each command's
# (rocmcheck help COMMAND), as the parser prints them from its tables
run 0 --help
sed -n '/^Commands:/,/^$/p' "$OUT" | awk 'NR > 1 && NF {print $1}' >"$T/commands"
[ "$(wc -l <"$T/commands")" -ge 9 ] || fail "rocmcheck --help lists too few commands: $(cat "$T/commands")"
grep -Eo '^  (-[a-zA-Z], )?--[a-z][a-z-]*' "$OUT" | grep -Eo -- '--[a-z-]+' >"$T/options"
while read -r cmd; do
	run 0 help "$cmd"
	grep -Eo '^  (-[a-zA-Z], )?--[a-z][a-z-]*' "$OUT" | grep -Eo -- '--[a-z-]+' | sed "s/^/$cmd /"
done <"$T/commands" >>"$T/options"
[ "$(wc -l <"$T/options")" -ge 30 ] || fail "too few option rows found: $(wc -l <"$T/options")"
# bundle's options are in rocmcheck-bundle(1)
if command -v groff >/dev/null; then
	groff -man -Tascii -P-cbou "$SOURCE_DIR/man/rocmcheck-bundle.1" 2>/dev/null >"$T/bundle.txt"
else
	sed 's/\\-/-/g; s/\\f[BIRP]//g' "$SOURCE_DIR/man/rocmcheck-bundle.1" >"$T/bundle.txt"
fi
while read -r a b; do
	opt=${b:-$a}
	page=$T/man.txt
	[ "$a" = bundle ] && page=$T/bundle.txt
	grep -qF -- "$opt" "$page" || echo "${b:+$a }$opt"
done <"$T/options" >"$T/missing"
[ -s "$T/missing" ] && fail "man page lacks options: $(tr '\n' ' ' <"$T/missing")"
for section in "Option rules" "Exit status of probe" "no GPU probe ran" "rocmcheck.checks/1" "rocmcheck.version/1"; do
	grep -qF "$section" "$T/man.txt" || fail "man page lacks '$section'"
done
for opt in --sysroot --replay --format --json --profiles --color -q --quiet -v --verbose -h --help \
	--version "--level quick" "--level standard" "--level full" --only --skip --gpu "--fail-on warn" \
	--timeout --explain NO_COLOR rocmcheck-profiles; do
	grep -qF -- "$opt" "$T/man.txt" || fail "man page lacks $opt"
done
sed -n '/^EXIT STATUS/,/^[A-Z]/p' "$T/man.txt" >"$T/exit"
for st in 0 1 2 3; do
	grep -q "^       $st" "$T/exit" || fail "EXIT STATUS lacks $st"
done
grep -q 'jq' "$T/man.txt" || fail "EXAMPLES lack a jq example"
grep -qi 'slurm' "$T/man.txt" || fail "EXAMPLES lack a Slurm health check"

# rocmcheck-policy(5): groff reads it without a warning, and it names every
# key the policy reader takes
POLICY=$SOURCE_DIR/man/rocmcheck-policy.5
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z "$POLICY" 2>"$T/groff-policy" || fail "groff failed on rocmcheck-policy(5)"
	[ -s "$T/groff-policy" ] && { fail "groff warnings on rocmcheck-policy(5):"; cat "$T/groff-policy" >&2; }
fi
for key in aer_corrected_max thermal_margin_c idle_busy_percent shm_min_mib retired_pages_fail \
	uncorrectable_row_remaps_fail action more_than within mode repeat gpus \
	"\[xid" "\[signature" "\[check" "\[expect\]" "\[health\]"; do
	grep -q -- "$key" "$POLICY" || fail "rocmcheck-policy(5) lacks $key"
done
grep -q -- '--policy' "$T/man.txt" || fail "rocmcheck(1) lacks --policy"

# rocmcheck-profiles(5) documents every fix id of the shipped profiles
for id in $(sed -n 's/^\[fix \([a-z0-9_]*\)\].*/\1/p' "$SOURCE_DIR"/profiles/*.ini); do
	grep -q "^$id\b" "$SOURCE_DIR/man/rocmcheck-profiles.5" || fail "rocmcheck-profiles(5) lacks fix id $id"
done

finish
