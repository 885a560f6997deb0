#!/bin/bash
# The portable binary of ci/release runs where the normal build cannot:
#   - in an older Debian userland (BUILD_DIR/oldroot, made by ci/test-deps:
#     Debian 10 with glibc 2.28 when archive.debian.org serves it, else
#     Debian 11 with glibc 2.31), chrooted: `version`, a quick doctor of a
#     fixture and `--replay` of a bundle give what the normal build gives
#     on this machine; `bundle` there loads that userland's
#     libcrypto.so.1.1 and its bundle replays here; `--upload` there loads
#     libcurl-gnutls.so.4 (the upload itself fails: nothing listens);
#   - in a chroot holding only that userland's glibc (the files of its libc6
#     package) and the binary: `version` and the quick doctor work, and
#     `--replay` and `bundle` fail with one line naming libarchive, exit 3.
# Skipped (77) when not root (chroot), without ci/release's binary or
# without the userland.
. "$(dirname "$0")/lib.sh"

P=$BUILD_DIR/release/dist/rocmcheck
OLD=$BUILD_DIR/oldroot
if [ ! -x "$P" ]; then
	echo "no portable binary at $P: run ci/release" >&2
	exit 77
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "not root: chroot needs it" >&2
	exit 77
fi
if [ ! -s "$OLD/.rocmcheck-oldroot" ]; then
	echo "no older userland in $OLD: run ci/test-deps (as root)" >&2
	exit 77
fi
echo "userland: $(cat "$OLD/.rocmcheck-oldroot"), Debian $(cat "$OLD/etc/debian_version"), $(basename "$(ls "$OLD"/lib/x86_64-linux-gnu/libc-*.so)")"

fixture=$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy # one whose doctor exits 0
W=$(mktemp -d "$OLD/tmp/rocmcheck-test.XXXXXX")
M=$T/min
trap 'rm -rf "$T" "$W"' EXIT
w=/tmp/$(basename "$W") # $W inside the chroot
cp "$P" "$W/rocmcheck"
cp -a "$fixture" "$W/fixture"
"$ROCMCHECK" --sysroot "$fixture" bundle --level quick -o "$T/b.tar.gz" >/dev/null 2>"$ERR" ||
	{ fail "normal build: bundle"; last; finish; }
cp "$T/b.tar.gz" "$W/b.tar.gz"

# in_root ROOT EXPECTED_STATUS ARGS...: chroot ROOT and run its /tmp copy
# of the portable binary; stdout in $OUT, stderr in $ERR.
in_root() {
	local root=$1 want=$2
	shift 2
	ntests=$((ntests + 1))
	chroot "$root" "$w/rocmcheck" "$@" >"$OUT" 2>"$ERR" </dev/null
	STATUS=$?
	if [ "$STATUS" != "$want" ]; then
		fail "chroot $(basename "$root") rocmcheck $*: exit status $STATUS, expected $want"
		last
	fi
}
strip() { grep -v '"\(generated_at\|duration_ms\|seconds\|started_at\|path\)"' "$1"; }
# same_as_here WHAT ARGS...: $OUT equals the normal build's output for ARGS here
same_as_here() {
	local what=$1
	shift
	"$ROCMCHECK" "$@" >"$T/here" 2>/dev/null
	[ "$(strip "$T/here")" = "$(strip "$OUT")" ] || fail "$what: $(diff <(strip "$T/here") <(strip "$OUT") | head -n6)"
}

# The older userland. The normal build cannot start there.
chroot "$OLD" /bin/true || { fail "chroot $OLD does not work"; finish; }
cp "$ROCMCHECK" "$W/normal"
if chroot "$OLD" "$w/normal" version >/dev/null 2>"$ERR"; then
	echo "note: the normal build runs in $OLD too"
else
	echo "the normal build there: $(head -n1 "$ERR")"
fi
in_root "$OLD" 0 version
"$P" version >"$T/here"
cmp -s "$T/here" "$OUT" || fail "version differs in $OLD"
in_root "$OLD" "$("$ROCMCHECK" --sysroot "$fixture" doctor --level quick >/dev/null 2>&1; echo $?)" \
	--sysroot "$w/fixture" doctor --level quick --json
validate_json "$OUT" || fail "doctor in $OLD: not a valid report"
same_as_here "doctor in $OLD" --sysroot "$fixture" doctor --level quick --json
in_root "$OLD" "$("$ROCMCHECK" --replay "$T/b.tar.gz" doctor --level quick >/dev/null 2>&1; echo $?)" \
	--replay "$w/b.tar.gz" doctor --level quick --json
validate_json "$OUT" || fail "--replay in $OLD: not a valid report"
same_as_here "--replay in $OLD" --replay "$T/b.tar.gz" doctor --level quick --json

# bundle there: the older sonames. mapped: the libraries LD_DEBUG=files saw
# mapped (not only tried) into $W/ld.*, which it removes.
mapped() {
	cat "$W"/ld.* 2>/dev/null | sed -n 's/.*file=\([^ ]*\) .*generating link map.*/\1/p' | sort -u | tr '\n' ' '
	rm -f "$W"/ld.*
}
ntests=$((ntests + 1))
chroot "$OLD" env LD_DEBUG=files LD_DEBUG_OUTPUT="$w/ld" "$w/rocmcheck" --sysroot "$w/fixture" bundle \
	--level quick -o "$w/there.tar.gz" >"$OUT" 2>"$ERR" </dev/null
STATUS=$?
[ "$STATUS" = 0 ] || { fail "bundle in $OLD: exit status $STATUS"; last; }
loaded=$(mapped)
echo "bundle in $OLD loaded: $loaded"
case " $loaded " in *" libarchive.so.13 "*) ;; *) fail "bundle in $OLD did not load libarchive.so.13" ;; esac
case " $loaded " in *" libcrypto.so.1.1 "*) ;; *) fail "bundle in $OLD did not load libcrypto.so.1.1" ;; esac
run 0 --replay "$W/there.tar.gz" doctor --level quick --json
# --upload: libcurl loads (libcurl-gnutls.so.4 there); nothing listens on port 9
ntests=$((ntests + 1))
chroot "$OLD" env LD_DEBUG=files LD_DEBUG_OUTPUT="$w/ld" "$w/rocmcheck" --sysroot "$w/fixture" bundle \
	--level quick -o "$w/up.tar.gz" --upload https://127.0.0.1:9/ >"$OUT" 2>"$ERR" </dev/null
STATUS=$?
loaded=$(mapped)
echo "--upload in $OLD loaded: $loaded"
case " $loaded " in *" libcurl-gnutls.so.4 "*) ;; *) fail "--upload in $OLD did not load libcurl-gnutls.so.4" ;; esac
grep -q 'cannot load libcurl' "$ERR" && { fail "--upload in $OLD: libcurl did not load"; last; }
[ "$STATUS" = 3 ] || { fail "--upload to a closed port in $OLD: exit status $STATUS"; last; }

# Only glibc: the files of the older userland's libc6 package.
list=$(ls "$OLD"/var/lib/dpkg/info/libc6:amd64.list "$OLD"/var/lib/dpkg/info/libc6.list 2>/dev/null | head -n1)
[ -n "$list" ] || { fail "no libc6 file list in $OLD"; finish; }
mkdir -p "$M$w"
# a merged /usr (Debian 11) has /lib -> usr/lib: the same links here, and the
# list without them
for l in bin sbin lib lib32 lib64 libx32; do
	if [ -L "$OLD/$l" ]; then
		cp -P "$OLD/$l" "$M/$l"
		mkdir -p "$M/usr/$l"
	fi
done
(cd "$OLD" && sed 's|^/||; /^\.$/d; /^$/d' "$list" | while read -r f; do [ -L "$f" ] && [ "${f#*/}" = "$f" ] || echo "$f"; done |
	tar --no-recursion -cf - -T -) | (cd "$M" && tar -xf -) || fail "copying glibc's files"
cp "$P" "$M$w/rocmcheck"
cp -a "$fixture" "$M$w/fixture"
cp "$T/b.tar.gz" "$M$w/b.tar.gz"
echo "glibc-only root: $(find "$M" -type f | wc -l) files, $(du -sh "$M" | cut -f1)"
[ -e "$M/bin/sh" ] && fail "the glibc-only root has a shell"
in_root "$M" 0 version
"$P" version >"$T/here"
cmp -s "$T/here" "$OUT" || fail "version differs with glibc alone"
in_root "$M" "$("$ROCMCHECK" --sysroot "$fixture" doctor --level quick >/dev/null 2>&1; echo $?)" \
	--sysroot "$w/fixture" doctor --level quick --json
same_as_here "doctor with glibc alone" --sysroot "$fixture" doctor --level quick --json
in_root "$M" 3 --replay "$w/b.tar.gz" doctor --level quick
if [ "$(wc -l <"$ERR")" != 1 ] || ! grep -q 'cannot load libarchive.*install libarchive13' "$ERR"; then
	fail "--replay with glibc alone: not one line naming libarchive"
	last
fi
[ -s "$OUT" ] && fail "--replay with glibc alone printed a report"
in_root "$M" 3 --sysroot "$w/fixture" bundle --level quick -o "$w/x.tar.gz"
grep -q 'cannot load lib' "$ERR" || { fail "bundle with glibc alone: no library named"; last; }
[ -e "$M$w/x.tar.gz" ] && fail "bundle with glibc alone left a file"

finish
