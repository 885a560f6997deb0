#!/bin/bash
# Colour only on a terminal; NO_COLOR turns the default (auto) off, an explicit
# --color always or never wins (no-color.org).
. "$(dirname "$0")/lib.sh"
ESC=$'\033'

has_esc() { grep -q "$ESC" "$1"; }

run any --color always
has_esc "$OUT" || fail "--color always printed no colour"
run any --color never
has_esc "$OUT" && fail "--color never printed an escape"
run any
has_esc "$OUT" && fail "colour on a pipe with --color auto"
# no-color.org: NO_COLOR changes the default only; an explicit --color wins
NO_COLOR=1 run any --color always
has_esc "$OUT" || fail "NO_COLOR=1 with --color always printed no colour (the flag wins)"
NO_COLOR=1 run any --color never
has_esc "$OUT" && fail "NO_COLOR=1 with --color never printed an escape"
NO_COLOR= run any --color always
has_esc "$OUT" || fail "an empty NO_COLOR should not turn colour off"

# On a pseudo-terminal: auto colours, unless NO_COLOR is set.
if command -v script >/dev/null; then
	TERM=xterm script -qec "$ROCMCHECK --color auto doctor --level quick 2>/dev/null" /dev/null >"$T/pty" 2>&1 </dev/null
	has_esc "$T/pty" || fail "--color auto on a terminal printed no colour"
	TERM=xterm NO_COLOR=1 script -qec "$ROCMCHECK --color auto doctor --level quick 2>/dev/null" /dev/null >"$T/pty" 2>&1 </dev/null
	has_esc "$T/pty" && fail "NO_COLOR=1 on a terminal printed an escape"
	TERM=xterm NO_COLOR=1 script -qec "$ROCMCHECK doctor --level quick 2>/dev/null" /dev/null >"$T/pty" 2>&1 </dev/null
	has_esc "$T/pty" && fail "NO_COLOR=1 on a terminal (no --color) printed an escape"
	TERM=xterm NO_COLOR=1 script -qec "$ROCMCHECK --color always doctor --level quick 2>/dev/null" /dev/null >"$T/pty" 2>&1 </dev/null
	has_esc "$T/pty" || fail "NO_COLOR=1 --color always on a terminal printed no colour"
	TERM=dumb script -qec "$ROCMCHECK doctor --level quick 2>/dev/null" /dev/null >"$T/pty" 2>&1 </dev/null
	has_esc "$T/pty" && fail "TERM=dumb on a terminal printed an escape"
	ntests=$((ntests + 5))
else
	echo "script(1) not found: pseudo-terminal cases not run" >&2
fi

# Glyphs in a UTF-8 locale, ASCII otherwise.
run any doctor --level quick
grep -q '\[XX\]\|\[ok\]\|\[--\]' "$OUT" && fail "ASCII glyphs in a UTF-8 locale"
LC_ALL=C run any doctor --level quick
grep -q '\[XX\]\|\[ok\]\|\[--\]' "$OUT" || fail "no ASCII glyphs in the C locale"
LC_ALL=C grep -q -P '[\x80-\xff]' "$OUT" && fail "non-ASCII bytes in the C locale"

finish
