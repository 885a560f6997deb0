#!/bin/bash
# libarchive, libcurl and libcrypto are loaded on first use (src/dl_libs.c),
# seen through the dynamic loader's own log (LD_DEBUG=files):
#   - doctor (quick, text and JSON, on a fixture and live), devices, checks,
#     checks --explain, plan, version and profiles load none of them, and the
#     binary does not link them (its DT_NEEDED list);
#   - bundle loads libarchive and libcrypto, --replay loads libarchive, and
#     neither loads libcurl;
#   - libdrm is not linked either and a sysroot run never loads it;
#   - with a build configured -DROCMCHECK_TEST_HOOKS=ON, a library that
#     cannot be loaded (ROCMCHECK_DL_ARCHIVE/_CURL/_CRYPTO) makes --replay,
#     bundle and --upload fail with one line naming it and exit 3, with no
#     file left behind, and doctor does not notice; a live doctor without
#     libdrm (ROCMCHECK_DL_DRM) reads sysfs alone and says nothing of it.
. "$(dirname "$0")/lib.sh"

fixture=$TESTS_DIR/fixtures/amd-rx7900xtx-ubuntu2204-healthy
lazy='lib(curl|curl-gnutls|archive|crypto)\.so'

# loaded ARGS...: run rocmcheck under LD_DEBUG=files; $OUT, $ERR as run(),
# and the names of the shared objects it loaded in $T/loaded, one a line.
loaded() {
	ntests=$((ntests + 1))
	LD_DEBUG=files LD_DEBUG_OUTPUT=$T/ld "$ROCMCHECK" "$@" >"$OUT" 2>"$ERR" </dev/null
	STATUS=$?
	cat "$T"/ld.* 2>/dev/null | sed -n 's/.*file=\([^ ]*\) .*/\1/p' | sort -u >"$T/loaded"
	rm -f "$T"/ld.*
	if [ "$STATUS" -ge 128 ]; then
		fail "rocmcheck $*: died from signal $((STATUS - 128))"
		last
	fi
}

# The mechanism works: what rocmcheck links shows up (else nothing below could fail).
loaded --sysroot "$fixture" doctor --level quick
grep -q '^libjansson\.so' "$T/loaded" || fail "LD_DEBUG=files shows no libjansson: $(tr '\n' ' ' <"$T/loaded")"

# None of the three for the commands that do not need them.
for args in "doctor --level quick" "doctor --level quick --json" "devices" "devices --json" "checks" \
	"checks --explain net.repos" "plan" "version" "profiles list" "profiles validate"; do
	# shellcheck disable=SC2086
	loaded --sysroot "$fixture" $args
	[ "$STATUS" -le 3 ] || { fail "$args: exit status $STATUS"; last; }
	if grep -Eq "^$lazy" "$T/loaded"; then
		fail "$args loads $(grep -E "^$lazy" "$T/loaded" | tr '\n' ' ')"
	fi
done
loaded doctor --level quick
[ "$STATUS" -le 3 ] || { fail "live doctor: exit status $STATUS"; last; }
grep -Eq "^$lazy" "$T/loaded" && fail "live doctor --level quick loads $(grep -E "^$lazy" "$T/loaded" | tr '\n' ' ')"

# Not linked at all (ldd would pull them in at start), nor libdrm.
if command -v readelf >/dev/null 2>&1; then
	ntests=$((ntests + 1))
	needed=$(readelf -d "$ROCMCHECK" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	[ -n "$needed" ] || fail "readelf shows no NEEDED entries"
	echo "$needed" | grep -Eq "^$lazy" && fail "rocmcheck links $(echo "$needed" | grep -E "^$lazy" | tr '\n' ' ')"
	echo "$needed" | grep -q '^libdrm' && fail "rocmcheck links libdrm"
fi
loaded --sysroot "$fixture" doctor --level quick
grep -q '^libdrm' "$T/loaded" && fail "a sysroot run loads libdrm"

# bundle: libarchive and libcrypto, on demand; --replay: libarchive.
loaded --sysroot "$fixture" bundle --level quick -o "$T/b.tar.gz"
[ "$STATUS" = 0 ] || { fail "bundle: exit status $STATUS"; last; }
grep -q '^libarchive\.so' "$T/loaded" || fail "bundle did not load libarchive"
grep -q '^libcrypto\.so' "$T/loaded" || fail "bundle did not load libcrypto"
grep -Eq '^libcurl' "$T/loaded" && fail "bundle without --upload loads libcurl"

loaded --replay "$T/b.tar.gz" doctor --level quick --json
[ "$STATUS" = 0 ] || { fail "--replay: exit status $STATUS"; last; }
grep -q '^libarchive\.so' "$T/loaded" || fail "--replay did not load libarchive"
grep -Eq '^libcurl' "$T/loaded" && fail "--replay loads libcurl"
grep -q '"checks"' "$OUT" || { fail "--replay: no report"; last; }

if ! grep -q '^ROCMCHECK_TEST_HOOKS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
	echo "built without ROCMCHECK_TEST_HOOKS: missing libraries not checked" >&2
	finish
fi

# one_line_error WHAT NAME: $ERR is one line that names NAME and its package
one_line_error() {
	[ "$STATUS" = 3 ] || { fail "$1: exit status $STATUS, expected 3"; last; }
	[ "$(wc -l <"$ERR")" -ge 1 ] || fail "$1: nothing on stderr"
	grep -q "$2" "$ERR" || { fail "$1: the error does not name $2"; last; }
	grep -q 'cannot open shared object file' "$ERR" || { fail "$1: no dlerror() text"; last; }
	grep -q '; install ' "$ERR" || { fail "$1: no package to install"; last; }
}

# --replay without libarchive: one line, exit 3, no temporary directory left.
mkdir "$T/tmp"
ntests=$((ntests + 1))
TMPDIR=$T/tmp ROCMCHECK_DL_ARCHIVE=libnope-archive.so.13 "$ROCMCHECK" --replay "$T/b.tar.gz" doctor \
	>"$OUT" 2>"$ERR" </dev/null
STATUS=$?
one_line_error "--replay without libarchive" libnope-archive.so.13
[ "$(wc -l <"$ERR")" = 1 ] || { fail "--replay without libarchive: more than one line"; last; }
grep -q '^rocmcheck: --replay ' "$ERR" || { fail "--replay without libarchive: not a rocmcheck: line"; last; }
[ -z "$(ls -A "$T/tmp")" ] || fail "--replay without libarchive left $(ls -A "$T/tmp")"
[ -s "$OUT" ] && fail "--replay without libarchive printed a report"

# bundle without libcrypto: exit 3, no file, no temporary.
mkdir "$T/out"
ntests=$((ntests + 1))
ROCMCHECK_DL_CRYPTO=libnope-crypto.so.3 "$ROCMCHECK" --sysroot "$fixture" bundle -o "$T/out/b.tar.gz" \
	>"$OUT" 2>"$ERR" </dev/null
STATUS=$?
one_line_error "bundle without libcrypto" libnope-crypto.so.3
[ -z "$(ls -A "$T/out")" ] || fail "bundle without libcrypto left $(ls -A "$T/out")"
ntests=$((ntests + 1))
ROCMCHECK_DL_ARCHIVE=libnope-archive.so.13 "$ROCMCHECK" --sysroot "$fixture" bundle -o "$T/out/b.tar.gz" \
	>"$OUT" 2>"$ERR" </dev/null
STATUS=$?
one_line_error "bundle without libarchive" libnope-archive.so.13
[ -z "$(ls -A "$T/out")" ] || fail "bundle without libarchive left $(ls -A "$T/out")"

# --upload without libcurl: exit 3 before anything is written, and the error
# names the library.
ntests=$((ntests + 1))
ROCMCHECK_DL_CURL=libnope-curl.so.4 "$ROCMCHECK" --sysroot "$fixture" bundle -o "$T/out/u.tar.gz" \
	--upload https://127.0.0.1:9/ >"$OUT" 2>"$ERR" </dev/null
STATUS=$?
one_line_error "--upload without libcurl" libnope-curl.so.4
[ -e "$T/out/u.tar.gz" ] && fail "--upload without libcurl: a bundle was written that cannot be sent"

# doctor never asks: a missing library changes nothing.
ntests=$((ntests + 1))
"$ROCMCHECK" --sysroot "$fixture" doctor --level quick --json >"$T/a.json" 2>/dev/null
a=$?
ROCMCHECK_DL_ARCHIVE=x.so ROCMCHECK_DL_CURL=x.so ROCMCHECK_DL_CRYPTO=x.so \
	"$ROCMCHECK" --sysroot "$fixture" doctor --level quick --json >"$T/b.json" 2>"$ERR"
b=$?
[ "$a" = "$b" ] || fail "doctor: exit status $b without the libraries, $a with them"
# the reports differ only in their timestamps
strip() { grep -v '"\(generated_at\|duration_ms\|seconds\|started_at\)"' "$1"; }
[ "$(strip "$T/a.json")" = "$(strip "$T/b.json")" ] || fail "doctor's report changes without the libraries"

# a live doctor without libdrm: a report from sysfs, nothing said about libdrm
ntests=$((ntests + 1))
ROCMCHECK_DL_DRM=libnope-drm.so.2 "$ROCMCHECK" doctor --level quick --json >"$T/c.json" 2>"$ERR"
c=$?
[ "$c" -le 1 ] || fail "live doctor without libdrm: exit status $c"
grep -q '"checks"' "$T/c.json" || fail "live doctor without libdrm: no report"
grep -q 'libnope-drm' "$ERR" "$T/c.json" && fail "live doctor without libdrm mentions it"

finish
