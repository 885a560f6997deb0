#!/bin/bash
# Where `-o` writes (src/outfile.h): a regular file is replaced once the
# bundle is complete; a character device, a FIFO, a link to one and `-` are
# written in place and stay what they are; a directory is refused with exit 3.
# A full device is "No space left on device", for -o and for stdout alike.
# A replaced file keeps its mode (a bundle's loses group and other bits) and,
# as root, its owner and group; `plan -o` writes the script by the same rule.
. "$(dirname "$0")/lib.sh"

FIX=$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy
bundle() {
	local want=$1
	shift
	run "$want" --sysroot "$FIX" bundle --level quick "$@"
}

# Devices of our own when we may make them: a regression then replaces a copy,
# never the machine's /dev/null. Without root the real ones are safe to use
# (nobody but root can rename onto /dev).
if [ "$(id -u)" = 0 ] && mknod "$T/null" c 1 3 2>/dev/null && mknod "$T/full" c 1 7 2>/dev/null; then
	null=$T/null full=$T/full
else
	null=/dev/null full=/dev/full
fi
is_chr() {
	[ -c "$1" ] && [ ! -L "$1" ] || fail "$1 is no longer a character device: $(ls -l "$1")"
}

bundle 0 -o "$null"
is_chr "$null"
assert_out_has "Support bundle written: $null ("

bundle 3 -o "$full"
is_chr "$full"
assert_err_has "rocmcheck: bundle: cannot write $full: No space left on device"
assert_out_lacks "Support bundle written"

# a link to a device: the device is written, the link stays a link
ln -s "$null" "$T/link"
bundle 0 -o "$T/link"
[ -L "$T/link" ] || fail "-o onto a symbolic link replaced the link"
is_chr "$null"

# a FIFO: the reader gets the whole bundle, the FIFO stays a FIFO
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/from-fifo" &
reader=$!
bundle 0 -o "$T/fifo"
wait "$reader"
[ -p "$T/fifo" ] || fail "-o onto a FIFO replaced the FIFO"
gzip -t "$T/from-fifo" 2>/dev/null || fail "what came through the FIFO is not a whole gzip stream"
tar -tzf "$T/from-fifo" | grep -qx manifest.json || fail "the bundle read from the FIFO has no manifest.json"

# -: the bundle is stdout, the note goes to stderr
bundle 0 -o -
gzip -t "$OUT" 2>/dev/null || fail "-o - did not write one gzip stream to stdout"
assert_err_has "Support bundle written: standard output ("
# /dev/stdout into a pipe: the same
"$ROCMCHECK" --sysroot "$FIX" bundle --level quick -o /dev/stdout 2>"$ERR" </dev/null | gzip -t 2>/dev/null ||
	fail "-o /dev/stdout: stdout is not one gzip stream (a message mixed in?)"

# - onto a terminal: refused, no archive on the screen (script(1) gives a pty)
if command -v script >/dev/null; then
	ntests=$((ntests + 1))
	script -qec "'$ROCMCHECK' --sysroot '$FIX' bundle --level quick -o -" /dev/null </dev/null >"$T/tty" 2>&1
	rc=$?
	[ "$rc" = 3 ] || fail "-o - on a terminal: exit $rc, expected 3"
	grep -q "refusing to write a gzip archive to a terminal" "$T/tty" || fail "-o - on a terminal: $(head -c 300 "$T/tty")"
fi

# a regular file is replaced whole, readable only by its owner
echo "old content" >"$T/reg.tar.gz"
chmod 644 "$T/reg.tar.gz"
bundle 0 -o "$T/reg.tar.gz"
gzip -t "$T/reg.tar.gz" || fail "the regular file was not replaced by the bundle"
[ "$(stat -c %a "$T/reg.tar.gz")" = 600 ] || fail "the bundle is not mode 0600"

# a replaced file keeps its mode: a report over a 0600 file stays 0600, a
# plan over a 0750 script stays 0750; a bundle is never more open than 0600
modes() { stat -c '%a %U:%G' "$1"; }
echo old >"$T/report.txt"
chmod 600 "$T/report.txt"
run 0 --sysroot "$FIX" doctor --level quick -o "$T/report.txt"
[ "$(stat -c %a "$T/report.txt")" = 600 ] || fail "doctor -o over a 0600 file: $(modes "$T/report.txt")"
grep -q old "$T/report.txt" && fail "doctor -o did not replace the file"
plan=(plan --os ubuntu-22.04 --gpu gfx1100)
run 0 "${plan[@]}"
cp "$OUT" "$T/plan.want"
echo old >"$T/plan.sh"
chmod 750 "$T/plan.sh"
run 0 "${plan[@]}" -o "$T/plan.sh"
[ -s "$OUT" ] && fail "plan -o FILE also wrote to stdout: $(head -c 200 "$OUT")"
cmp -s "$T/plan.want" "$T/plan.sh" || fail "plan -o FILE differs from plan's stdout"
[ "$(stat -c %a "$T/plan.sh")" = 750 ] || fail "plan -o over a 0750 script: $(modes "$T/plan.sh")"
run 0 "${plan[@]}" --format json -o "$T/plan.json"
$PYTHON -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/plan.json" || fail "plan --json -o: not JSON"
[ "$(stat -c %a "$T/plan.json")" = 644 ] || fail "plan -o, a new file: $(modes "$T/plan.json")"
run 0 "${plan[@]}" -o -
cmp -s "$T/plan.want" "$OUT" || fail "plan -o - differs from plan's stdout"
# a plan that cannot be made leaves the old file as it was
run 1 plan --os ubuntu-22.04 --gpu gfx9999 -o "$T/plan.sh"
cmp -s "$T/plan.want" "$T/plan.sh" || fail "a failed plan -o changed the file"
run 3 "${plan[@]}" -o "$T/dir-for-plan/x.sh"
assert_err_has "cannot create $T/dir-for-plan/x.sh"
echo old >"$T/private.tar.gz"
chmod 640 "$T/private.tar.gz"
bundle 0 -o "$T/private.tar.gz"
[ "$(stat -c %a "$T/private.tar.gz")" = 600 ] || fail "bundle over a 0640 file: $(modes "$T/private.tar.gz")"
# as root, the owner and group of the file replaced stay (a daemon's file
# stays the daemon's); the set-id bits too, set again after the chown
if [ "$(id -u)" = 0 ]; then
	echo old >"$T/daemon.prom"
	chown 65534:65534 "$T/daemon.prom"
	chmod 2640 "$T/daemon.prom"
	run 0 --sysroot "$FIX" doctor --level quick --format prometheus -o "$T/daemon.prom"
	[ "$(stat -c %a:%u:%g "$T/daemon.prom")" = 2640:65534:65534 ] ||
		fail "doctor -o over a 65534:65534 2640 file, as root: $(modes "$T/daemon.prom")"
	grep -q '^rocmcheck_' "$T/daemon.prom" || fail "the prometheus file was not replaced"
	chown 65534:65534 "$T/private.tar.gz"
	bundle 0 -o "$T/private.tar.gz"
	[ "$(stat -c %a:%u:%g "$T/private.tar.gz")" = 600:65534:65534 ] ||
		fail "bundle over a 65534:65534 file, as root: $(modes "$T/private.tar.gz")"
else
	echo "not root: the owner of a replaced file is not checked" >&2
fi

# refused: a directory; nothing is left beside it
mkdir "$T/dir"
bundle 3 -o "$T/dir"
assert_err_has "refusing to write $T/dir: it is a directory"
[ -d "$T/dir" ] && [ -z "$(ls -A "$T/dir")" ] || fail "-o onto a directory changed it"
ls -A "$T" | grep -q '\.tmp-' && fail "a temporary file was left behind: $(ls -A "$T")"

# --upload needs a file it can read back
bundle 3 -o - --upload https://127.0.0.1:9/x/
assert_err_has "not a regular file"
[ -s "$OUT" ] && fail "--upload with -o - wrote a bundle it cannot send"

# stdout on a full device: the system's reason, in text and in JSON
for fmt in "" --json; do
	"$ROCMCHECK" --sysroot "$FIX" $fmt doctor --level quick >"$full" 2>"$ERR" </dev/null
	STATUS=$?
	[ "$STATUS" = 3 ] || fail "doctor $fmt >$full: exit $STATUS, expected 3"
	grep -q "No space left on device" "$ERR" || fail "doctor $fmt >$full: $(cat "$ERR")"
done
is_chr "$full"

finish
