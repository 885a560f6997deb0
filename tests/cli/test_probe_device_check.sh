#!/bin/bash
# The parts of ci/device-check that run without a GPU: the script lints, the
# cuBLAS helper builds without CUDA headers and reports an unusable driver,
# and the table is built right from sample results.
set -u
: "${SOURCE_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
PY=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bash -n "$SOURCE_DIR/ci/device-check" || fail "device-check does not parse"
if command -v shellcheck >/dev/null; then
	shellcheck "$SOURCE_DIR/ci/device-check" || fail "shellcheck device-check"
fi
"$SOURCE_DIR/ci/device-check" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad option must exit 2"

cc -std=c11 -Wall -Wextra -Werror -O2 -o "$tmp/cublas_bench" "$SOURCE_DIR/ci/cublas_bench.c" -ldl \
	|| fail "cublas_bench does not build"
stub=/usr/local/cuda/lib64/stubs/libcuda.so
if [ -r "$stub" ]; then
	out=$(ROCMCHECK_CUDA_LIB=$stub "$tmp/cublas_bench" 256 2>&1); rc=$?
	[ $rc -eq 2 ] || fail "cublas_bench on the stub exited $rc: $out"
	grep -q 'cuInit(0): CUDA error 34' <<<"$out" || fail "cublas_bench: $out"
fi
out=$(ROCMCHECK_CUDA_LIB=/nonexistent/libcuda.so.1 "$tmp/cublas_bench" 2>&1); rc=$?
[ $rc -eq 2 ] || fail "cublas_bench without a driver exited $rc"

# sample results: two verified GEMMs, rtc, cuBLAS figures, a doctor report
w=$tmp/work
mkdir -p "$w"
probe() { # id status tflops
	printf '{"id":"%s","gpu":0,"backend":"cuda","status":"%s","summary":"s","tflops":%s,"variant":"mma","max_rel_error":1e-6,"verification":"freivalds+sampled"}' "$1" "$2" "$3"
}
printf '{"probes":[%s,%s,%s]}' "$(probe probe.rtc pass null)" "$(probe probe.gemm.fp32 pass 20)" \
	"$(probe probe.gemm.fp16 pass 150)" >"$w/probe-small.json"
printf '{"probes":[%s,%s]}' "$(probe probe.gemm.fp32 pass 30)" "$(probe probe.gemm.fp16 pass 120)" \
	>"$w/probe-medium.json"
printf 'sgemm_tflops 50.0\nhgemm_tflops 600.0\n' >"$w/cublas.txt"
echo '{"gpus":[{"vendor":"nvidia"}],"summary":{"status":"pass"}}' >"$w/doctor.json"
out=$($PY "$SOURCE_DIR/ci/device_check_table.py" "$w" 0 100 160 200 203.5); rc=$?
[ $rc -eq 0 ] || fail "table exited $rc: $out"
grep -q 'probe.gemm.fp32 4096^3 vs cuBLAS SGEMM *| 30.0 vs 50.0 TFLOP/s = 60% *| >= 50% *| met' <<<"$out" \
	|| fail "fp32 row: $out"
grep -q 'probe.gemm.fp16 4096^3 vs cuBLAS fp16 GEMM (fp32 acc) *| 120.0 vs 600.0 TFLOP/s = 20% *| >= 30% *| missed' \
	<<<"$out" || fail "fp16 row: $out"
grep -q 'doctor --level standard wall time *| 3.50 s for 1 GPU(s) (3.50 s/GPU), status pass *| < 5 s per GPU *| met' \
	<<<"$out" || fail "doctor row: $out"
grep -q 'build from a clean tree *| 60 s' <<<"$out" || fail "build row: $out"

# a wrong result makes the check fail; missing cuBLAS shows as n/a
printf '{"probes":[%s]}' "$(probe probe.gemm.fp32 fail 20)" >"$w/probe-small.json"
rm "$w/cublas.txt"
echo "cublas_bench: cannot load libcublas.so.13" >"$w/cublas.err"
out=$($PY "$SOURCE_DIR/ci/device_check_table.py" "$w" 0 100 160 200 203.5); rc=$?
[ $rc -eq 1 ] || fail "a failed probe must exit 1: $out"
grep -q 'n/a: cublas_bench: cannot load libcublas.so.13' <<<"$out" || fail "n/a row: $out"
exit 0
