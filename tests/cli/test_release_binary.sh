#!/bin/bash
# The portable binary of ci/release (BUILD_DIR/release/dist/rocmcheck):
#   - no GLIBC symbol version above 2.28 (objdump -T), and readelf
#     --dyn-syms agrees;
#   - DT_NEEDED holds glibc's libraries only (libc, libm, libdl, libpthread),
#     with no RPATH or RUNPATH and the standard x86_64 interpreter;
#   - it is the same program as the normal build: the same `version` (the
#     same embedded kernels and profiles), and for every fixture the same
#     quick doctor, in text and JSON.
# Skipped (77) when ci/release has not been run in this build tree.
. "$(dirname "$0")/lib.sh"

P=$BUILD_DIR/release/dist/rocmcheck
if [ ! -x "$P" ]; then
	echo "no portable binary at $P: run ci/release" >&2
	exit 77
fi
for tool in objdump readelf; do
	command -v "$tool" >/dev/null || { echo "no $tool (binutils)" >&2; exit 77; }
done

# highest_glibc: the highest GLIBC_x.y[.z] version in the lines on stdin
highest_glibc() {
	grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -t. -k1,1n -k2,2n -k3,3n | tail -n1
}
ntests=$((ntests + 1))
max=$(objdump -T "$P" | highest_glibc)
[ -n "$max" ] || fail "objdump -T shows no GLIBC symbol version"
# x.y <= 2.28
case $max in
	2.[0-9] | 2.[0-9].* | 2.1[0-9] | 2.1[0-9].* | 2.2[0-8] | 2.2[0-8].*) ;;
	*) fail "the portable binary needs GLIBC_$max: $(objdump -T "$P" | grep "GLIBC_$max" | head -n5)" ;;
esac
max_readelf=$(readelf --dyn-syms --wide "$P" | highest_glibc)
[ "$max_readelf" = "$max" ] || fail "readelf --dyn-syms says GLIBC_$max_readelf, objdump -T GLIBC_$max"
echo "highest GLIBC symbol version: $max"

ntests=$((ntests + 1))
needed=$(readelf -d "$P" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf shows no NEEDED entries"
for lib in $needed; do
	case $lib in
		libc.so.6 | libm.so.6 | libdl.so.2 | libpthread.so.0) ;;
		*) fail "the portable binary needs $lib" ;;
	esac
done
echo "DT_NEEDED: $(echo "$needed" | tr '\n' ' ')"
readelf -d "$P" | grep -Eq '\((RPATH|RUNPATH)\)' && fail "the portable binary has an RPATH or RUNPATH"
readelf -l "$P" | grep -q 'Requesting program interpreter: /lib64/ld-linux-x86-64.so.2' ||
	fail "interpreter: $(readelf -l "$P" | grep interpreter)"

# The same program: version, then every fixture in text and JSON.
ntests=$((ntests + 1))
"$ROCMCHECK" version >"$T/normal" 2>&1
"$P" version >"$T/portable" 2>&1 || fail "portable version: exit status $?"
cmp -s "$T/normal" "$T/portable" || fail "version differs: $(diff "$T/normal" "$T/portable" | head -n5)"
strip() { grep -v '"\(generated_at\|duration_ms\|seconds\|started_at\)"' "$1"; }
while read -r f; do
	for fmt in text json; do
		ntests=$((ntests + 1))
		"$ROCMCHECK" --sysroot "$f" --format "$fmt" doctor --level quick >"$T/normal" 2>&1
		a=$?
		"$P" --sysroot "$f" --format "$fmt" doctor --level quick >"$T/portable" 2>&1
		b=$?
		[ "$a" = "$b" ] || fail "$(basename "$f") $fmt: exit status $b, the normal build's $a"
		[ "$(strip "$T/normal")" = "$(strip "$T/portable")" ] ||
			fail "$(basename "$f") $fmt: $(diff <(strip "$T/normal") <(strip "$T/portable") | head -n5)"
	done
done < <(fixtures)

finish
