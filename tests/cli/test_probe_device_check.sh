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
	shellcheck "$SOURCE_DIR/ci/device-deps" || fail "shellcheck device-deps"
fi
"$SOURCE_DIR/ci/device-check" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad option must exit 2"
# no build to run: exit 2, and still a table that says why
out=$("$SOURCE_DIR/ci/device-check" --build "$tmp/none" 2>/dev/null); rc=$?
[ $rc -eq 2 ] || fail "--build of a missing folder exited $rc"
grep -q "^| build *| none: --build $tmp/none: no such directory *| a build to run *| fail" <<<"$out" \
	|| fail "no-build table: $out"
# a carried build (this one) on a machine without a GPU: the probe rows say
# why there is no report, the table comes, the check fails
if [ -n "${BUILD_DIR:-}" ] && [ -x "$BUILD_DIR/cublas_bench" ]; then
	out=$("$SOURCE_DIR/ci/device-check" --build "$BUILD_DIR" 2>/dev/null); rc=$?
	[ $rc -eq 1 ] || fail "--build without a GPU exited $rc: $out"
	grep -q "^| build *| carried: $BUILD_DIR (rocmcheck " <<<"$out" || fail "carried row: $out"
	# `probe --gpu 0` where there is no GPU 0 is a usage error: no report
	grep -q "^| probe (small) *| no report: rocmcheck: --gpu: there is no GPU 0 " <<<"$out" || fail "probe rows: $out"
	grep -q "^| kernels (hip) *| gfx900" <<<"$out" || fail "AMD kernel row: $out"
	if "$BUILD_DIR/rocmcheck" version | grep -q "cuda: NVRTC"; then
		grep -q "^| kernels (cuda) *| NVRTC 12.*needs driver >= " <<<"$out" || fail "CUDA kernel row: $out"
	fi
fi

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

# sample results: every probe verified, cuBLAS figures, a doctor report
w=$tmp/work
mkdir -p "$w"
probe() { # id status tflops [extra JSON members]
	printf '{"id":"%s","gpu":0,"backend":"cuda","status":"%s","summary":"s","tflops":%s,"variant":"mma","max_rel_error":1e-6,"verification":"freivalds+sampled"%s}' "$1" "$2" "$3" "${4:-}"
}
amp_m=',"metrics":{"overflow_detected":1,"skipped_steps":1,"final_scale":1024,"fp16_speedup":2.5,"fp16_step_ms":1,"fp32_step_ms":2.5}'
bw_m() { # link_gts link_width
	printf ',"gbs":4200,"expected_gbs":4800,"ratio":0.875,"metrics":{"copy_gbs":4000,"triad_gbs":4200,"memcpy_gbs":4500,"h2d_gbs":50,"d2h_gbs":52,"link_gts":%s,"link_width":%s,"link_gbs":%s,"max_link_gts":32,"max_link_width":16}' "$1" "$2" "$3"
}
small() { # amp-status amp-metrics bandwidth-metrics
	printf '{"probes":[%s,%s,%s,%s,%s,%s,%s,%s,%s]}' "$(probe probe.rtc pass null)" "$(probe probe.gemm.fp32 pass 20)" \
		"$(probe probe.gemm.fp16 pass 150)" "$(probe probe.conv pass 8)" "$(probe probe.conv.fp16 pass 15)" \
		"$(probe probe.amp "$1" 0.5 "$2")" "$(probe probe.bandwidth pass null "$3")" \
		"$(probe probe.blas.fp32 skip null)" "$(probe probe.dnn.fp32 skip null)" >"$w/probe-small.json"
}
small pass "$amp_m" "$(bw_m 32 16 63.0)"
printf '{"probes":[%s,%s,%s,%s,%s,%s,%s]}' "$(probe probe.gemm.fp32 pass 30)" "$(probe probe.gemm.fp16 pass 120)" \
	"$(probe probe.blas.fp32 pass 50 ',"variant":"cublas 13.0.0","metrics":{"vendor_tflops":50,"own_tflops":30}')" \
	"$(probe probe.conv pass 10)" "$(probe probe.dnn.fp32 pass 30 ',"variant":"cudnn 9.1.0 algo 1"')" \
	"$(probe probe.conv.fp16 pass 20)" "$(probe probe.dnn.fp16 pass 100 ',"variant":"cudnn 9.1.0 algo 1"')" \
	| sed 's/"variant":"mma","max_rel_error":1e-6,"verification":"freivalds+sampled","variant"/"max_rel_error":1e-6,"verification":"freivalds+sampled","variant"/' \
	>"$w/probe-medium.json"
/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1])); json.load(open(sys.argv[2]))' \
	"$w/probe-small.json" "$w/probe-medium.json" || fail "sample JSON does not parse"
printf 'sgemm_tflops 50.0\nhgemm_tflops 600.0\n' >"$w/cublas.txt"
echo '{"gpus":[{"vendor":"nvidia"}],"summary":{"status":"pass"}}' >"$w/doctor.json"
out=$($PY "$SOURCE_DIR/ci/device_check_table.py" "$w" 0 100 160 200 203.5); rc=$?
[ $rc -eq 0 ] || fail "table exited $rc: $out"
grep -q 'probe.gemm.fp32 4096^3 vs cuBLAS SGEMM *| 30.0 vs 50.0 TFLOP/s = 60% *| >= 60% *| met' <<<"$out" \
	|| fail "fp32 row: $out"
grep -q 'probe.gemm.fp16 4096^3 vs cuBLAS fp16 GEMM (fp32 acc) *| 120.0 vs 600.0 TFLOP/s = 20% *| >= 40% *| missed' \
	<<<"$out" || fail "fp16 row: $out"
grep -q 'probe.blas.fp32 4096^3 in rocmcheck *| cublas 13.0.0 50.0, ours 30.0 TFLOP/s = 60%, verified' <<<"$out" \
	|| fail "blas row: $out"
grep -q 'probe.conv vs cuDNN (N=16, 64->64, 56x56, 3x3) *| 10.0 vs 30.0 TFLOP/s (cudnn 9.1.0 algo 1) = 33% *| >= 25% *| met' \
	<<<"$out" || fail "conv fp32 row: $out"
grep -q 'probe.conv.fp16 vs cuDNN .* 20.0 vs 100.0 TFLOP/s (cudnn 9.1.0 algo 1) = 20% *| >= 25% *| missed' <<<"$out" \
	|| fail "conv fp16 row: $out"
grep -q 'probe.amp fp16 speed-up, overflow handled *| fp16 step 2.50x fp32 (1 vs 2.5 ms); injected overflow detected, 1 step(s) skipped, final scale 1024 *| overflow detected and skipped *| met' \
	<<<"$out" || fail "amp row: $out"
grep -q 'probe.bandwidth copy vs device memcpy *| 4000 vs 4500 GB/s = 89%; triad 4200 GB/s (88% of the profile.s 4800) *| >= 90% *| missed' \
	<<<"$out" || fail "copy row: $out"
grep -q 'probe.bandwidth host transfers vs PCIe *| H2D 50.0, D2H 52.0 GB/s over Gen5 x16 (max Gen5 x16), 63.0 GB/s per direction = 83% *| link at its maximum *| met' \
	<<<"$out" || fail "pcie row: $out"
grep -q 'probe.blas.fp32 (small) *| s *| verified *| skip' <<<"$out" || fail "a vendor skip is listed: $out"
grep -q 'doctor --level standard wall time *| 3.50 s for 1 GPU(s) (3.50 s/GPU), status pass *| < 5 s per GPU *| met' \
	<<<"$out" || fail "doctor row: $out"
grep -q 'build from a clean tree *| 60 s' <<<"$out" || fail "build row: $out"
grep -q 'probe.gemm.fp16 --variant wgmma 4096^3 *| no report: *| verified *| n/a' <<<"$out" || fail "no variant row: $out"

# every fp16 GEMM variant beside cuBLAS, with the emulator's bank conflicts:
# one the GPU lacks is n/a, a wrong one fails the check
variant() { # variant status tflops summary
	printf '{"probes":[{"id":"probe.gemm.fp16","gpu":0,"status":"%s","summary":"%s","tflops":%s,"variant":"%s"},%s]}' \
		"$2" "$4" "$3" "$1" "$(probe probe.blas.fp16 pass 600 ',"metrics":{"vendor_tflops":600,"own_tflops":1}')" \
		>"$w/variant-$1.json"
}
variant wgmma pass 420 s
variant mma error null "--variant mma: not available on H100 (sm_90); its fp16 GEMM variants: wgmma, simt"
variant simt pass 60 s
printf '%s\n' 'banks: gemm_fp16 wgmma 230 16-way (store, 4 B/lane, 64 accesses)' \
	'banks: gemm_fp16 wgmma 225 2-way (store, 16 B/lane, 64 accesses)' \
	'banks: gemm_fp16 cuda 390 2-way (load, 16 B/lane, 9 accesses)' \
	'banks: gemm_fp16_simt plain 77 1-way (load, 4 B/lane, 8 accesses)' >"$w/banks.txt"
out=$($PY "$SOURCE_DIR/ci/device_check_table.py" "$w" 0 100 160 200 203.5); rc=$?
[ $rc -eq 0 ] || fail "table with variants exited $rc: $out"
grep -q 'probe.gemm.fp16 --variant wgmma 4096^3 *| 420.0 TFLOP/s (wgmma) = 70% of cuBLAS 600.0; model: worst 16-way (line 230) over 2 sites *| verified *| pass' \
	<<<"$out" || fail "wgmma row: $out"
grep -q 'probe.gemm.fp16 --variant mma 4096^3 *| n/a: --variant mma: not available on H100' <<<"$out" || fail "mma row: $out"
grep -q 'probe.gemm.fp16 --variant simt 4096^3 *| 60.0 TFLOP/s (simt) = 10% of cuBLAS 600.0; model: worst 1-way (line 77) over 1 sites' \
	<<<"$out" || fail "simt row: $out"
variant simt fail 60 "12 elements wrong"
out=$($PY "$SOURCE_DIR/ci/device_check_table.py" "$w" 0 100 160 200 203.5); rc=$?
[ $rc -eq 1 ] || fail "a wrong variant must fail the check: $out"
grep -q 'probe.gemm.fp16 --variant simt 4096^3 *| 12 elements wrong; model: worst 1-way .* *| fail' <<<"$out" || fail "simt fail row: $out"
rm "$w"/variant-*.json "$w/banks.txt"

# a link below its maximum and an overflow the device missed: missed, and
# the failed AMP probe fails the check
small fail "${amp_m/\"overflow_detected\":1/\"overflow_detected\":0}" "$(bw_m 8 4 3.94)"
out=$($PY "$SOURCE_DIR/ci/device_check_table.py" "$w" 0 100 160 200 203.5); rc=$?
[ $rc -eq 1 ] || fail "a failed amp probe must exit 1: $out"
grep -q 'injected overflow NOT detected.*| overflow detected and skipped *| missed' <<<"$out" || fail "amp missed: $out"
grep -q 'over Gen3 x4 (max Gen5 x16), 3.9 GB/s per direction = 1320% *| link at its maximum *| missed' <<<"$out" \
	|| fail "pcie missed: $out"

# a wrong result makes the check fail; missing cuBLAS shows as n/a
printf '{"probes":[%s]}' "$(probe probe.gemm.fp32 fail 20)" >"$w/probe-small.json"
rm "$w/cublas.txt"
echo "cublas_bench: cannot load libcublas.so.13" >"$w/cublas.err"
out=$($PY "$SOURCE_DIR/ci/device_check_table.py" "$w" 0 100 160 200 203.5); rc=$?
[ $rc -eq 1 ] || fail "a failed probe must exit 1: $out"
grep -q 'n/a: cublas_bench: cannot load libcublas.so.13' <<<"$out" || fail "n/a row: $out"
grep -q 'probe.bandwidth copy vs device memcpy *| n/a' <<<"$out" || fail "no bandwidth result: $out"
# ci/device-deps env: unpacks carried packages and points pkg-config at them
if command -v dpkg-deb >/dev/null; then
	# a tiny package made here stands in for the carried ones
	mkdir -p "$tmp/deps/debs" "$tmp/pkg/DEBIAN" "$tmp/pkg/usr/lib/x86_64-linux-gnu/pkgconfig"
	printf 'Package: rc-test\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' \
		>"$tmp/pkg/DEBIAN/control"
	printf 'prefix=/usr\nName: rctest\nDescription: t\nVersion: 1\nCflags: -I/usr/include/rctest\n' \
		>"$tmp/pkg/usr/lib/x86_64-linux-gnu/pkgconfig/rctest.pc"
	dpkg-deb -b "$tmp/pkg" "$tmp/deps/debs/rc-test.deb" >/dev/null 2>&1 || fail "dpkg-deb -b"
	env_out=$(sh "$SOURCE_DIR/ci/device-deps" env "$tmp/deps/debs") || fail "device-deps env failed"
	grep -q "PKG_CONFIG_SYSROOT_DIR=\"$tmp/deps/root\"" <<<"$env_out" || fail "device-deps env: no sysroot: $env_out"
	[ -f "$tmp/deps/root/usr/lib/x86_64-linux-gnu/pkgconfig/rctest.pc" ] || fail "device-deps env did not unpack"
	sh "$SOURCE_DIR/ci/device-deps" env "$tmp/nope" >/dev/null 2>&1 && fail "device-deps env without packages succeeded"
fi
exit 0
