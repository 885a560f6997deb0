#!/bin/bash
# Output that cannot be written is exit status 3, never success (a full disk).
. "$(dirname "$0")/lib.sh"

[ -w /dev/full ] || { echo "no /dev/full" >&2; exit 77; }

full() {
	ntests=$((ntests + 1))
	"$ROCMCHECK" "$@" >/dev/full 2>"$ERR" </dev/null
	local st=$?
	[ "$st" = 3 ] || fail "rocmcheck $* >/dev/full: exit status $st, expected 3"
	grep -q 'rocmcheck: cannot write the output' "$ERR" || fail "rocmcheck $* >/dev/full: no message"
}

full
full doctor --level quick
full doctor --json
full -q doctor
full devices
full devices --json
full checks
full checks --explain device.present
full version
full --help
full doctor --help

finish
