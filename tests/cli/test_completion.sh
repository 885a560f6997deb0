#!/bin/bash
# The bash completion (contrib/completion/rocmcheck.bash): sourced with the
# built binary on PATH, its function is called the way bash calls it, and
# what it offers must be what the binary's option rows and tables say.
. "$(dirname "$0")/lib.sh"
SCRIPT=$SOURCE_DIR/contrib/completion/rocmcheck.bash
[ -f "$SCRIPT" ] || { fail "no $SCRIPT"; finish; }

if command -v shellcheck >/dev/null; then
	shellcheck -s bash "$SCRIPT" >&2 || fail "shellcheck finds problems in rocmcheck.bash"
else
	echo "shellcheck is not installed: not linting rocmcheck.bash" >&2
fi

mkdir -p "$T/bin" "$T/f/dir"
ln -s "$ROCMCHECK" "$T/bin/rocmcheck"
touch "$T/f/file.json"
PATH=$T/bin:$PATH
# shellcheck source=../../contrib/completion/rocmcheck.bash
. "$SCRIPT"
complete -p rocmcheck 2>/dev/null | grep -q -- '-F _rocmcheck rocmcheck' ||
	fail "the script does not register _rocmcheck for rocmcheck"

# offers WORD...: the words of a command line, the last the one being
# completed, as bash splits them (COMP_WORDBREAKS holds "="); the replies,
# sorted, go to $T/got, one a line.
offers() {
	COMP_WORDS=(rocmcheck "$@")
	COMP_CWORD=$#
	COMP_LINE="rocmcheck $*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	ntests=$((ntests + 1))
	_rocmcheck
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | LC_ALL=C sort >"$T/got"
}
# shellcheck source=completion_lib.sh
. "$(dirname "$0")/completion_lib.sh"
expect_commands_and_options
expect_file "$T/commands" help ""
expect "devices diff doctor" d

# option names and the words of options with fixed values
expect --level doctor --le
expect "quick standard full" doctor --level ""
expect "full" doctor --level = fu
expect "quick standard full" bundle --level = ""
expect "--level=full" doctor --level=fu   # "=" taken out of COMP_WORDBREAKS
expect "text json sh prometheus junit nfd markdown" --format ""
expect "json junit" fleet --format j
expect "hip cuda cpu" probe --backend ""
expect "small medium large" probe --size ""
expect "auto always never" --color ""
expect "warn" doctor --fail-on ""
expect "" doctor --timeout ""             # a number: nothing to offer
expect "--words" help --w

# check and probe IDs, from `rocmcheck checks`
run 0 checks
tail -n +2 "$OUT" | awk '$1 ~ /^perm\./ {print $1}' >"$T/perm"
expect_file "$T/perm" checks --explain perm.
sed 's/^/system.os,/' "$T/perm" >"$T/list"
expect_file "$T/list" doctor --only system.os,perm.
expect_file "$T/perm" doctor --skip = perm.
tail -n +2 "$OUT" | awk '$2 == "probe" {sub(/^probe\./, "", $1); print $1}' >"$T/probes"
offers probe ""
grep -Fxvf "$T/got" "$T/probes" >"$T/missing"
[ -s "$T/missing" ] && fail "probe does not offer: $(tr '\n' ' ' <"$T/missing")"
grep -qx 'gemm' "$T/got" || fail "probe does not offer the prefix gemm"
grep -q '^system\.\|^probe\.' "$T/got" && fail "probe offers a check ID or a probe. prefix"
expect "gemm gemm.fp32 gemm.fp16" probe --size small ge

# plan --os and --gpu: what the profiles know, and the binary takes each one
offers plan --os ""
grep -qx ubuntu-22.04 "$T/got" || fail "plan --os does not offer ubuntu-22.04: $(tr '\n' ' ' <"$T/got")"
grep -qx fedora- "$T/got" || fail "plan --os does not offer fedora-"
cp "$T/got" "$T/os"
while read -r os; do
	case $os in *-) os=${os}41 ;; esac
	run any --profiles "$SOURCE_DIR/profiles" plan --os "$os" --gpu gfx1100
	[ "$STATUS" = 2 ] && { fail "plan --os $os: offered but a usage error"; last; }
done <"$T/os"
offers plan --gpu gfx11
grep -qx gfx1100 "$T/got" || fail "plan --gpu gfx11 does not offer gfx1100: $(tr '\n' ' ' <"$T/got")"
grep -qv '^gfx11' "$T/got" && fail "plan --gpu gfx11 offers $(tr '\n' ' ' <"$T/got")"
expect "rx-7900-gre rx-7900-xt rx-7900-xtx" plan --os debian-12 --gpu rx-79
# in any case: the slugs are lower case, a user types "RX"
expect "rx-7900-gre rx-7900-xt rx-7900-xtx" plan --gpu RX-79
expect "--gpu=rx-7900-gre --gpu=rx-7900-xt --gpu=rx-7900-xtx" plan --gpu=Rx-79
expect "gfx1100 gfx1101 gfx1102 gfx1103" plan --gpu GFX110
expect "quick" doctor --level Q
offers plan --gpu ""
grep -qx sm_89 "$T/got" || fail "plan --gpu does not offer sm_89"
offers plan --rocm 6.
grep -qx 6.2 "$T/got" || fail "plan --rocm 6. does not offer 6.2: $(tr '\n' ' ' <"$T/got")"
grep -qv '^6\.' "$T/got" && fail "plan --rocm 6. offers $(tr '\n' ' ' <"$T/got")"

# global options before the command, their values, files and directories
expect --level --sysroot "$T/f/dir" doctor --le
expect --level -q --format json doctor --le
expect "--online --only" --profiles="$T/f/dir" doctor --on
expect "$T/f/dir" --sysroot "$T/f/d"
expect "$T/f/dir $T/f/file.json" doctor -o "$T/f/"
expect "$T/f/dir" profiles validate "$T/f/d"
expect "list show validate update" profiles ""
expect "$T/f/dir $T/f/file.json" diff "$T/f/"
expect "" doctor -- --le                  # after "--", no options

finish
