#!/bin/bash
# A sysroot that cannot be read is exit status 3 with one clear line on stderr.
. "$(dirname "$0")/lib.sh"

run 3 --sysroot "$T/does-not-exist" doctor
assert_err_has "rocmcheck: cannot read sysroot $T/does-not-exist: No such file or directory"
[ -s "$OUT" ] && fail "an unreadable sysroot wrote to stdout"

echo "not a directory" >"$T/file"
run 3 --sysroot "$T/file" doctor
assert_err_has "rocmcheck: cannot read sysroot $T/file: Not a directory"

run 3 --sysroot "$T/does-not-exist" --json doctor
[ -s "$OUT" ] && fail "an unreadable sysroot wrote to stdout in JSON mode"
run 3 --sysroot "$T/does-not-exist" devices
run 3 doctor --sysroot "$T/does-not-exist"

if [ "$(id -u)" != 0 ]; then
	mkdir "$T/locked" && chmod 000 "$T/locked"
	run 3 --sysroot "$T/locked" doctor
	chmod 700 "$T/locked"
fi

# --replay is accepted but bundles are not readable yet
run 3 --replay "$T/bundle.tar.gz" doctor
assert_err_has "rocmcheck: --replay: support bundles are not supported by this build yet"

# broken profiles: every problem as FILE:LINE, then exit 3
mkdir "$T/profiles"
printf '[database\nversion = 1\n' >"$T/profiles/broken.ini"
run 3 --profiles "$T/profiles" doctor
grep -q "broken.ini:[0-9]" "$ERR" || { fail "no FILE:LINE message for a broken profile"; last; }
[ -s "$OUT" ] && fail "broken profiles wrote to stdout"

finish
