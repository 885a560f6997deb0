# shellcheck shell=bash
# Shared by test_completion.sh (bash) and test_completion_zsh.sh: each
# defines `offers WORD...`, which completes the last WORD of
# `rocmcheck WORD...` and writes the replies, sorted, one a line, to $T/got;
# then sources this file (after lib.sh) for the assertions below.

# expect WHAT WORD...: the replies are exactly WHAT (words separated by spaces).
expect() {
	local want=$1
	shift
	offers "$@"
	tr ' ' '\n' <<<"$want" | sed '/^$/d' | LC_ALL=C sort >"$T/want"
	cmp -s "$T/got" "$T/want" || fail "completing 'rocmcheck $*': got '$(tr '\n' ' ' <"$T/got")', want '$want'"
}

# expect_file FILE WORD...: the replies are the lines of FILE.
expect_file() {
	local file=$1
	shift
	offers "$@"
	LC_ALL=C sort "$file" >"$T/want"
	[ -s "$T/want" ] || fail "completing 'rocmcheck $*': nothing expected (a broken table?)"
	cmp -s "$T/got" "$T/want" ||
		fail "completing 'rocmcheck $*': got '$(tr '\n' ' ' <"$T/got")', want '$(tr '\n' ' ' <"$T/want")'"
}

# The option rows a help text in $OUT prints, one spelling a line.
help_rows() {
	grep -Eo '^  (-[a-zA-Z], )?--[a-z][a-z-]*' "$OUT" | grep -Eo -- '-[a-zA-Z]\b|--[a-z-]+'
}

# The commands (--help) are the first word's completions, and every command
# offers its option rows (help COMMAND) and the global rows it takes (those
# of --help but --version), no more, no less: the completion cannot drift
# from the option tables. Leaves the commands in $T/commands.
expect_commands_and_options() {
	run 0 --help
	sed -n '/^Commands:/,/^$/p' "$OUT" | awk 'NR > 1 && NF {print $1}' >"$T/commands"
	[ "$(wc -l <"$T/commands")" -ge 9 ] || fail "rocmcheck --help lists too few commands"
	help_rows | grep -vx -- --version >"$T/globals" # --version only before a command
	expect_file "$T/commands" ""
	local cmd
	while read -r cmd; do
		run 0 help "$cmd"
		{ help_rows; cat "$T/globals"; } >"$T/opts"
		expect_file "$T/opts" "$cmd" -
	done <"$T/commands"
}
