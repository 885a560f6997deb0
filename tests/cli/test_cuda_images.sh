#!/bin/bash
# The NVIDIA kernel images the build embeds (kernels/kernels.cmake), taken
# apart with the CUDA 12 build tree's cuobjdump and nvdisasm: each cubin is
# for the SM it claims and loads on CUDA 12 drivers (ELF ABI <= 7, CUDA API
# version < 13.0), the PTX is ISA <= 8.x, and the fp16 GEMM uses the tensor
# cores from sm_75 on: HMMA (the conv too), and HGMMA (wgmma) in the sm_90a
# cubin's GEMM. Skips
# (77) without images or without the tools.
set -u
: "${BUILD_DIR:?}"
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
failures=0
PY=/usr/bin/python3
images=${CUDA_IMAGES:-}
bin=${CUDA12_DIR:-$BUILD_DIR/cuda12}/nvidia/cu13/bin
if [ -z "$images" ]; then
	echo "built without NVRTC 12: no CUDA images (ci/setup installs it)"
	exit 77
fi
if [ ! -x "$bin/cuobjdump" ] || [ ! -x "$bin/nvdisasm" ]; then
	echo "no cuobjdump/nvdisasm in $bin (ci/setup installs them): images not inspected"
	exit 77
fi
export PATH=$bin:$PATH   # cuobjdump -sass runs the nvdisasm beside it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "ABI SM E_VERSION API..." of a cubin: its ELF header and every
# EIATTR_CUDA_API_VERSION (0x37) in its .nv.info sections, for the images
# cuobjdump 13 will not read (CUDA 12.0's sm_90)
elf_facts() {
	"$PY" - "$1" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:4] == b"\x7fELF" and d[4] == 2, "not a 64-bit ELF"
abi, flags, ever = d[8], struct.unpack_from("<I", d, 0x30)[0], struct.unpack_from("<I", d, 0x14)[0]
shoff = struct.unpack_from("<Q", d, 0x28)[0]
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
strtab = secs[shstrndx][4]
def name(o):
    return d[strtab + o:d.index(b"\0", strtab + o)].decode()
apis = set()
for s in secs:
    if not name(s[0]).startswith(".nv.info"):
        continue
    p, end = s[4], s[4] + s[5]
    while p + 4 <= end:
        fmt, attr, v = struct.unpack_from("<BBH", d, p)
        if fmt == 4:                     # EIFMT_SVAL: v bytes follow
            if attr == 0x37 and v == 4:
                apis.add(struct.unpack_from("<I", d, p + 4)[0])
            p += 4 + v
        else:
            p += 4
# ABI 7 keeps the SM in bits 16..23 of e_flags
print(abi, (flags >> 16) & 0xFF if abi <= 7 else -1, ever, *sorted(apis))
PYEOF
}

ncubin=0
nptx=0
IFS=, read -r -a pairs <<<"$images"
for pair in "${pairs[@]}"; do
	target=${pair%%=*}
	path=${pair#*=}
	[ -s "$path" ] || { fail "$target: no image at $path"; continue; }
	case $target in
	sm_*)
		ncubin=$((ncubin + 1))
		sm=${target#sm_}
		sm=${sm%a}
		read -r abi elf_sm ever apis_line <<<"$(elf_facts "$path")" || { fail "$target: unreadable ELF"; continue; }
		read -r -a apis <<<"$apis_line"
		[ "$abi" -le 7 ] || fail "$target: ELF ABI $abi (CUDA 13 writes 8; drivers before R580 refuse it)"
		[ "$elf_sm" = "$sm" ] || fail "$target: the ELF header says sm_$elf_sm"
		if [ "$ever" -lt 120 ] || [ "$ever" -ge 130 ]; then
			fail "$target: toolkit version $ever in the ELF header, not 12.x"
		fi
		[ "${#apis[@]}" -gt 0 ] || fail "$target: no EIATTR_CUDA_API_VERSION"
		for a in "${apis[@]}"; do
			[ "$a" -lt $((0x82)) ] || fail "$target: CUDA API version $(printf %#x "$a") (13.0 is 0x82)"
		done
		# cuobjdump's reading of the same, where it reads the image
		cuobjdump -elf "$path" >"$tmp/elf" 2>&1
		if grep -q "^64bit elf" "$tmp/elf"; then
			grep -q "^64bit elf: type=2, abi=$abi, sm=$sm," "$tmp/elf" ||
				fail "$target: cuobjdump says $(grep -m1 '64bit elf' "$tmp/elf")"
			grep -A2 EIATTR_CUDA_API_VERSION "$tmp/elf" | grep -o 'Value:.*0x[0-9a-f]*' | grep -o '0x[0-9a-f]*' |
				sort -u >"$tmp/api"
			[ "$(cat "$tmp/api")" = "$(printf '%#x\n' "${apis[@]}")" ] ||
				fail "$target: cuobjdump's API versions $(tr '\n' ' ' <"$tmp/api") differ from the ELF's"
		else
			echo "note: $target: this cuobjdump does not read it ($(head -n1 "$tmp/elf")); checked from the ELF" | tr -s '\n' ' '; echo
		fi
		# SASS: nvdisasm 13 refuses sm_70 ("deprecated"); HMMA is asked of sm_75+
		[ "$sm" -ge 75 ] || continue
		nvdisasm "$path" >"$tmp/sass" 2>"$tmp/err" || { fail "$target: nvdisasm: $(head -n1 "$tmp/err")"; continue; }
		grep -q "EF_CUDA_SM$sm\b" "$tmp/sass" || fail "$target: nvdisasm's header flags: $(grep -m1 headerflags "$tmp/sass")"
		awk '/\.section[ \t]+\.text\./ { on = ($2 ~ /^\.text\.gemm_fp16,/) } on' "$tmp/sass" >"$tmp/gemm"
		[ -s "$tmp/gemm" ] || { fail "$target: no gemm_fp16 in the SASS"; continue; }
		# Hopper's "a" cubin: the warpgroup form (HGMMA), the others HMMA
		mma=HMMA
		[ "$target" = sm_90a ] && mma=HGMMA
		n=$(grep -c "\b$mma\." "$tmp/gemm")
		[ "$n" -gt 0 ] || fail "$target: gemm_fp16 has no $mma (tensor cores unused)"
		awk '/\.section[ \t]+\.text\./ { on = ($2 ~ /^\.text\.conv_fp16,/) } on' "$tmp/sass" >"$tmp/conv"
		nc=$(grep -c '\bHMMA\.' "$tmp/conv")
		[ "$nc" -gt 0 ] || fail "$target: conv_fp16 has no HMMA (tensor cores unused)"
		echo "$target: ABI $abi, toolkit $ever, API $(printf '%#x ' "${apis[@]}")| gemm_fp16: $n $mma, conv_fp16: $nc HMMA"
		;;
	compute_*)
		nptx=$((nptx + 1))
		isa=$(grep -a -m1 -o '^\.version [0-9]*\.[0-9]*' "$path" | cut -d' ' -f2)
		[ -n "$isa" ] || { fail "$target: no .version in the PTX"; continue; }
		[ "${isa%%.*}" -le 8 ] || fail "$target: PTX ISA $isa (CUDA 13's 9.x needs driver >= 580)"
		grep -aq "^\.target ${target#compute_}\b\|^\.target sm_${target#compute_}\b" "$path" ||
			fail "$target: PTX .target is $(grep -a -m1 '^\.target' "$path")"
		[ "$(tail -c1 "$path" | od -An -tu1 | tr -d ' ')" = 0 ] || fail "$target: PTX not NUL-terminated"
		grep -aq 'wmma\.mma\|mma\.sync' "$path" || fail "$target: the PTX has no wmma/mma (tensor cores unused)"
		echo "$target: PTX ISA $isa"
		;;
	*) fail "$pair: neither sm_NN nor compute_NN" ;;
	esac
done
[ "$ncubin" -gt 0 ] || fail "no cubin in CUDA_IMAGES"
[ "$nptx" -eq 1 ] || fail "$nptx PTX images, expected 1"
if [ "$failures" -gt 0 ]; then
	echo "$failures failure(s)" >&2
	exit 1
fi
echo "ok: $ncubin cubins, $nptx PTX"
