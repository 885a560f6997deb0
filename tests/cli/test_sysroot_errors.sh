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

# A directory that is not a capture (no host.ini, nothing under proc/ or sys/)
# is exit 3, not an empty machine with "no GPU"; a capture below it is named.
run 3 --sysroot "$TESTS_DIR/fixtures" doctor
assert_err_has "rocmcheck: --sysroot $TESTS_DIR/fixtures is not a captured machine"
assert_err_has "did you mean $TESTS_DIR/fixtures/amd-"
[ -s "$OUT" ] && fail "a sysroot that is not a capture wrote to stdout"
run 3 --sysroot "$TESTS_DIR/fixtures" devices
mkdir -p "$T/unpacked"
"$ROCMCHECK" --sysroot "$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy" bundle --level quick \
	-o "$T/b.tar.gz" >/dev/null 2>&1 || fail "cannot make a bundle to unpack"
tar -xzf "$T/b.tar.gz" -C "$T/unpacked"
run 3 --sysroot "$T/unpacked" --json doctor --level quick
assert_err_has "did you mean $T/unpacked/sysroot?"
[ -s "$OUT" ] && fail "a bundle's top directory wrote a JSON report"
run 0 --sysroot "$T/unpacked/sysroot" doctor --level quick
mkdir "$T/empty"
run 3 --sysroot "$T/empty" doctor
assert_err_has "is not a captured machine (no .rocmcheck/host.ini, nothing under proc/ or sys/)$"
# proc/ alone makes a capture (hand-made sysroots have no host.ini)
mkdir -p "$T/handmade/proc" && echo "Linux version 6.8.0" >"$T/handmade/proc/version"
run any --sysroot "$T/handmade" doctor --level quick
grep -q "not a captured machine" "$ERR" && fail "a sysroot with proc/ content was refused"

# A bundle that does not exist, or is not an archive, is exit 3 with one line
run 3 --replay "$T/bundle.tar.gz" doctor
assert_err_has "rocmcheck: --replay $T/bundle.tar.gz: cannot read: No such file or directory"
[ -s "$OUT" ] && fail "an unreadable bundle wrote to stdout"
echo "not an archive" >"$T/junk.tar.gz"
run 3 --replay "$T/junk.tar.gz" doctor
assert_err_has "rocmcheck: --replay $T/junk.tar.gz: "

# A bundle with members nested 200 levels deep (once: a replay that never
# ended, and a SIGTERM that left the tree): refused at once by --replay,
# diff and fleet, with nothing left in $TMPDIR.
cp "$TESTS_DIR/fuzz/regressions/replay/deep-nesting" "$T/deep.tar.gz"
mkdir "$T/tmp"
for args in "--replay $T/deep.tar.gz doctor" "diff $T/deep.tar.gz $T/deep.tar.gz" "fleet $T/deep.tar.gz"; do
	# shellcheck disable=SC2086
	TMPDIR=$T/tmp timeout -s KILL 60 "$ROCMCHECK" $args >"$OUT" 2>"$ERR" </dev/null
	st=$?
	ntests=$((ntests + 1))
	[ "$st" = 137 ] && fail "rocmcheck $args: still running after 60 s"
	grep -q "nested more than 64 levels deep" "$ERR" || { fail "rocmcheck $args: no reason for the refusal"; last; }
	[ -z "$(ls -A "$T/tmp")" ] || fail "rocmcheck $args left $(ls -A "$T/tmp") in TMPDIR"
done

# broken profiles: every problem as FILE:LINE, then exit 3
mkdir "$T/profiles"
printf '[database\nversion = 1\n' >"$T/profiles/broken.ini"
run 3 --profiles "$T/profiles" doctor
grep -q "broken.ini:[0-9]" "$ERR" || { fail "no FILE:LINE message for a broken profile"; last; }
[ -s "$OUT" ] && fail "broken profiles wrote to stdout"

finish
