#!/bin/bash
# rocmcheck under valgrind's memcheck: no invalid read or write, no use of
# uninitialised memory, no definite or indirect leak, in
#   - doctor --level quick on every fixture (text and --json in turn), and
#     both on the live machine and on the hostile tree (make_hostile.sh);
#   - devices, checks, checks --explain perm.kfd, version, profiles validate
#     and a usage error.
# Any valgrind error fails the test (valgrind exits 99 for it).
#
# Skips (exit 77) without valgrind, and for a sanitizer build (ASan and
# valgrind cannot run together): ROCMCHECK_SANITIZE:BOOL=ON in
# $BUILD_DIR/CMakeCache.txt, or libasan/__asan_init in the binary.
# Runs two at a time (xargs -P2): about 20 s on 2 cores.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tests_dir=${TESTS_DIR:-$(dirname "$here")}
source_dir=${SOURCE_DIR:-$(dirname "$tests_dir")}
build_dir=${BUILD_DIR:-$source_dir/build}
rocmcheck=${ROCMCHECK:-$build_dir/rocmcheck}
jobs=${ROCMCHECK_VALGRIND_JOBS:-2}

if [ ! -x "$rocmcheck" ]; then
	echo "SKIP: no rocmcheck binary at $rocmcheck (set ROCMCHECK)" >&2
	exit 77
fi
case $rocmcheck in /*) ;; *) rocmcheck=$PWD/$rocmcheck ;; esac
if ! command -v valgrind >/dev/null 2>&1; then
	echo "SKIP: valgrind is not installed (apt-get install -y valgrind)" >&2
	exit 77
fi
if [ -f "$build_dir/CMakeCache.txt" ] && grep -q '^ROCMCHECK_SANITIZE:BOOL=ON$' "$build_dir/CMakeCache.txt"; then
	echo "SKIP: $build_dir is a sanitizer build (ROCMCHECK_SANITIZE=ON): valgrind cannot run it" >&2
	exit 77
fi
if ldd "$rocmcheck" 2>/dev/null | grep -q 'lib[at]san' ||
	nm "$rocmcheck" 2>/dev/null | grep -q '__asan_init\|__tsan_init'; then
	echo "SKIP: $rocmcheck is built with a sanitizer: valgrind cannot run it" >&2
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rocmcheck-valgrind.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir "$work/cases" "$work/cwd"

# The environment a user would have, with no colour and no GPU variables.
unset HSA_OVERRIDE_GFX_VERSION HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES CUDA_VISIBLE_DEVICES \
	GPU_DEVICE_ORDINAL PYTORCH_ROCM_ARCH HIP_LAUNCH_BLOCKING CUDA_LAUNCH_BLOCKING
export NO_COLOR=1 LC_ALL=C.UTF-8

ncases=0
# add NAME ARGS...: one rocmcheck run under valgrind.
add() {
	local name=$1 f
	shift
	ncases=$((ncases + 1))
	f=$work/cases/$(printf '%03d' $ncases)
	{
		printf '%s\n' "$name"
		printf '%s\0' "$@"
	} >"$f"
}

# Each fixture once, text and JSON in turn: the facts and checks, where
# valgrind's uninitialised-value reports come from, run in both; each output
# writer runs on half the fixtures here and on every fixture under ASan
# (cli.test_fixtures in ci/test's sanitizer build). Half the runs of both
# modes on every fixture, which took 136 s of a CI run.
i=0
for d in "$source_dir"/tests/fixtures/*/; do
	d=${d%/}
	n=$(basename "$d")
	if [ $((i % 2)) = 0 ]; then
		add "$n (text)" --sysroot "$d" doctor --level quick
	else
		add "$n (json)" --sysroot "$d" doctor --level quick --json
	fi
	i=$((i + 1))
done
add "live (text)" doctor --level quick
add "live (json)" doctor --level quick --json
if bash "$here/make_hostile.sh" "$work/hostile" 2>"$work/hostile.err"; then
	add "hostile (json)" --sysroot "$work/hostile" doctor --level quick --json
	add "hostile (text, verbose)" --sysroot "$work/hostile" -v doctor --level quick
else
	echo "note: make_hostile.sh failed, the hostile tree is not run: $(head -c 500 "$work/hostile.err")" >&2
fi
add "devices" devices
add "devices --json" devices --json
add "checks" checks
add "checks --explain perm.kfd" checks --explain perm.kfd
add "version" version
add "profiles validate" profiles validate
add "usage error" doctor --no-such-option

# One case: valgrind's status (99: it found errors) and its report.
cat >"$work/one.sh" <<'EOF'
#!/bin/bash
case=$1 rocmcheck=$2
{ read -r name; mapfile -d '' args; } <"$case"
cd "${case%/cases/*}/cwd" || exit 1
timeout -k 5 300 valgrind --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect -q --log-file="$case.vg" \
	"$rocmcheck" "${args[@]}" >"$case.out" 2>"$case.err"
echo $? >"$case.rc"
EOF

start=$SECONDS
find "$work/cases" -maxdepth 1 -type f -name '[0-9][0-9][0-9]' -print0 | sort -z |
	xargs -0 -P "$jobs" -I{} bash "$work/one.sh" {} "$rocmcheck"
elapsed=$((SECONDS - start))

failures=0
for f in "$work"/cases/[0-9][0-9][0-9]; do
	name=$(head -n 1 "$f")
	rc=$(cat "$f.rc" 2>/dev/null || echo missing)
	if [ "$rc" = missing ]; then
		echo "FAIL: $name: did not run" >&2
		failures=$((failures + 1))
	elif [ "$rc" = 99 ] || [ -s "$f.vg" ]; then
		echo "FAIL: $name: valgrind reports errors (exit status $rc):" >&2
		head -n 60 "$f.vg" >&2
		failures=$((failures + 1))
	elif [ "$rc" -ge 124 ]; then
		echo "FAIL: $name: exit status $rc (timeout or signal); stderr: $(head -c 1000 "$f.err")" >&2
		failures=$((failures + 1))
	elif [ "$rc" -gt 3 ]; then
		echo "FAIL: $name: exit status $rc; stderr: $(head -c 1000 "$f.err")" >&2
		failures=$((failures + 1))
	fi
done
if [ $failures -ne 0 ]; then
	echo "$failures of $ncases runs failed under valgrind (${elapsed} s)" >&2
	exit 1
fi
echo "valgrind: $ncases runs clean (${elapsed} s)"
