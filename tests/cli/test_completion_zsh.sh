#!/bin/bash
# The zsh completion (contrib/completion/_rocmcheck): autoloaded in `zsh -f`
# with the built binary on PATH and compadd, compset and _files replaced by
# functions that print what they are given, it must offer what the binary's
# option rows and tables say. Skipped (77) without zsh (ci/test-deps installs it).
. "$(dirname "$0")/lib.sh"
command -v zsh >/dev/null || { echo "zsh is not installed: skipping" >&2; exit 77; }

mkdir -p "$T/bin"
ln -s "$ROCMCHECK" "$T/bin/rocmcheck"
cat >"$T/drive.zsh" <<'EOF'
# drive.zsh WORD...: complete the last WORD of `rocmcheck WORD...`; one reply a line
fpath=("$COMPLETION_DIR" $fpath)
autoload -Uz _rocmcheck
# compadd: the words that match (in any case with -M), and with -d ARRAY
# what zsh would show for each, a line each in $DESC_OUT
compadd() {
	local suffix= a desc= nocase=
	local -a _words_shown
	integer i=0
	while (( $# )); do
		case $1 in
		--) shift; break ;;
		-S) suffix=$2; shift 2 ;;
		-d) desc=$2; shift 2 ;;
		-M) nocase=1; shift 2 ;;
		*) shift ;;
		esac
	done
	[[ -n $desc ]] && _words_shown=("${(@P)desc}")
	for a in "$@"; do
		(( i++ ))
		if [[ -n $nocase ]]; then
			[[ ${a:l} == "${PREFIX:l}"* ]] || continue
		else
			[[ $a == "$PREFIX"* ]] || continue
		fi
		print -r -- "$IPREFIX$a$suffix"
		[[ -n $desc ]] && print -r -- "$_words_shown[i]" >>$DESC_OUT
	done
	return 0
}
compset() {
	[[ $1 == -P ]] || return 1
	local m=${(M)PREFIX##$~2}
	[[ -n $m ]] || return 1
	IPREFIX+=$m
	PREFIX=${PREFIX#"$m"}
}
_files() { print -r -- "<files$1>" }
words=(rocmcheck "$@")
CURRENT=$#words
PREFIX=$words[CURRENT]
IPREFIX=
_rocmcheck
EOF

# offers WORD...: the replies, sorted, to $T/got (completion_lib.sh).
# What zsh would show beside each word goes to $T/desc.
offers() {
	ntests=$((ntests + 1))
	: >"$T/desc"
	PATH=$T/bin:$PATH COMPLETION_DIR=$SOURCE_DIR/contrib/completion DESC_OUT=$T/desc \
		zsh -f "$T/drive.zsh" "$@" 2>"$T/zerr" |
		LC_ALL=C sort >"$T/got"
	[ -s "$T/zerr" ] && { fail "zsh said, completing 'rocmcheck $*':"; cat "$T/zerr" >&2; }
}
# shellcheck source=completion_lib.sh
. "$(dirname "$0")/completion_lib.sh"
expect_commands_and_options

expect --level doctor --le
expect "quick standard full" doctor --level ""
expect "--level=full" doctor --level=fu
expect "text json sh prometheus junit nfd markdown" --format ""
expect "hip cuda cpu" probe --backend ""
run 0 checks
tail -n +2 "$OUT" | awk '$1 ~ /^perm\./ {print $1}' >"$T/perm"
expect_file "$T/perm" checks --explain perm.
sed 's/^/system.os,/' "$T/perm" >"$T/list"
expect_file "$T/list" doctor --only system.os,perm.
offers probe ""
if ! grep -qx gemm.fp32 "$T/got" || ! grep -qx gemm "$T/got"; then
	fail "probe offers no gemm, gemm.fp32: $(tr '\n' ' ' <"$T/got")"
fi
offers plan --os ""
if ! grep -qx ubuntu-22.04 "$T/got" || ! grep -qx fedora- "$T/got"; then
	fail "plan --os offers $(tr '\n' ' ' <"$T/got")"
fi
offers plan --gpu gfx11
if ! grep -qx gfx1100 "$T/got" || grep -qv '^gfx11' "$T/got"; then
	fail "plan --gpu gfx11 offers $(tr '\n' ' ' <"$T/got")"
fi
# the GPU slugs are lower case: "RX-79" finds them all the same
offers plan --gpu RX-79
if ! grep -qx rx-7900-xtx "$T/got" || grep -qiv '^rx-79' "$T/got"; then
	fail "plan --gpu RX-79 offers $(tr '\n' ' ' <"$T/got")"
fi

# descriptions: each command and option with its help, as --help prints it
offers ""
run 0 --help
want=$(sed -n 's/^  doctor  *//p' "$OUT")
grep -qxF "doctor -- $want" "$T/desc" || fail "no description for doctor: $(grep '^doctor' "$T/desc")"
[ "$(wc -l <"$T/desc")" = "$(wc -l <"$T/commands")" ] || fail "commands without a description: $(cat "$T/desc")"
offers doctor --le
grep -qx -- "--level -- quick: static checks only, no GPU library is loaded; standard (default): .*" "$T/desc" ||
	fail "no description for doctor --level: $(cat "$T/desc")"
offers --
grep -qx -- "--json -- same as --format json" "$T/desc" || fail "no description for --json: $(cat "$T/desc")"
grep -qv -- ' -- .' "$T/desc" && fail "an option without a description: $(grep -v -- ' -- .' "$T/desc")"

expect --level --sysroot /tmp doctor --le
expect "<files-/>" --sysroot ""
expect "<files>" doctor -o ""
expect "list show validate update" profiles ""
expect "" doctor -- --le

finish
