#!/bin/bash
# The AMD code objects embedded in the binary, read with LLVM's tools: the
# matrix instructions are there on the targets that have them (v_wmma_* on
# gfx11 and gfx12, v_mfma_* on CDNA), not on the others; there, gemm_fp16
# feeds them with 64- or 128-bit LDS loads, never one half at a time; every
# kernel's explicit arguments (AMDGPU metadata) are what the probes pass,
# and no kernel spills to scratch memory (a spilled probe would time the
# scratch path, not the GPU's arithmetic). Skips (77)
# without llvm-objdump, llvm-readelf or clang-offload-bundler, or when the
# binary embeds no AMD code objects.
. "$(dirname "$0")/lib.sh"

# the newest of each tool: LLVM 15's cannot disassemble gfx942 or gfx12
tool() {
	local v
	for v in 21 20 19 18 17 16 15; do
		command -v "$1-$v" && return 0
	done
	command -v "$1"
}
OBJDUMP=$(tool llvm-objdump)
READELF=$(tool llvm-readelf)
BUNDLER=$(tool clang-offload-bundler)
if [ -z "$OBJDUMP" ] || [ -z "$READELF" ] || [ -z "$BUNDLER" ]; then
	echo "skip: needs llvm-objdump, llvm-readelf and clang-offload-bundler"
	exit 77
fi

# Every kernel and the arguments the probes pass it, in bytes (a device
# pointer is 8, int and float 4, long long 8): probe_gemm.c, probe_conv.c,
# probe_amp.c, probe_bandwidth.c.
cat >"$T/kernargs" <<'EOF'
gemm_fp32 8 8 8 4 4 4
gemm_fp16 8 8 8 4 4 4
gemm_fp16_info 8
gemm_fp16_simt 8 8 8 4 4 4
conv_fp32 8 8 8 4 4 4 4 4
conv_fp16 8 8 8 4 4 4 4 4
conv_fp16_info 8
amp_cast_f16 8 8 4
amp_transpose_f16 8 8 4 4
amp_transpose_f32 8 8 4 4
amp_relu_f16 8 8 4
amp_relu_f32 8 8 4
amp_loss_grad_f16 8 8 8 4 8 4
amp_loss_grad_f32 8 8 8 4 8 4
amp_mask_f16 8 8 8 4
amp_mask_f32 8 8 8 4
amp_unscale_check 8 8 4 8 8 4
amp_sgd 8 8 4 4 8
amp_update_scale 8 8 8 8 4 4
stream_init 8 8 8 8
stream_copy 8 8 8
stream_triad 8 8 8 4 8
EOF

# Cut the embedded clang offload bundle out of the binary: the one place
# "__CLANG_OFFLOAD_BUNDLE__" starts a well-formed bundle with hip entries
# (the bundle parser's own string constant does not).
"$PYTHON" - "$ROCMCHECK" "$T/embedded.hipfb" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
magic = b"__CLANG_OFFLOAD_BUNDLE__"
at = data.find(magic)
while at >= 0:
    try:
        n, = struct.unpack_from("<Q", data, at + 24)
        pos, end, hip = at + 32, 0, 0
        if not 0 < n < 256:
            raise ValueError
        for _ in range(n):
            off, size, idlen = struct.unpack_from("<QQQ", data, pos)
            ident = data[pos + 24:pos + 24 + idlen]
            pos += 24 + idlen
            hip += ident.startswith(b"hipv4-amdgcn")
            end = max(end, off + size)
        if hip and at + end <= len(data):
            open(sys.argv[2], "wb").write(data[at:at + end])
            sys.exit(0)
    except (struct.error, ValueError):
        pass
    at = data.find(magic, at + 1)
sys.exit(3)
PY
case $? in
0) ;;
3)
	echo "skip: this rocmcheck embeds no AMD code objects"
	exit 77
	;;
*) fail "could not read the binary" ;;
esac

ntests=$((ntests + 1))
"$BUNDLER" --list --type=o --input="$T/embedded.hipfb" >"$T/ids" 2>"$ERR" || fail "$BUNDLER --list: $(cat "$ERR")"
archs=$(sed -n 's/^hipv4-amdgcn-amd-amdhsa--\(gfx[0-9a-f]*\).*/\1/p' "$T/ids" | sort)
[ -n "$archs" ] || fail "the embedded bundle lists no gfx target"
# what `version` says is embedded
run 0 version
for a in $archs; do
	assert_out_has "$a"
done

checked=0
for a in $archs; do
	id=$(grep -m1 "^hipv4-amdgcn-amd-amdhsa--$a\b" "$T/ids")
	co=$T/$a.co
	ntests=$((ntests + 1))
	if ! "$BUNDLER" --unbundle --type=o --input="$T/embedded.hipfb" --targets="$id" --output="$co" 2>"$ERR"; then
		fail "$a: cannot unbundle: $(cat "$ERR")"
		continue
	fi
	if ! "$OBJDUMP" -d --mcpu="$a" "$co" >"$T/$a.s" 2>"$ERR" || grep -q "not a recognized processor" "$ERR"; then
		echo "note: $OBJDUMP cannot disassemble $a; its instructions are not checked"
	else
		checked=$((checked + 1))
		wmma=$(grep -c 'v_wmma_' "$T/$a.s")
		mfma=$(grep -c 'v_mfma_' "$T/$a.s")
		case $a in
		gfx11* | gfx12*) want=wmma ;;
		gfx908 | gfx90a | gfx94* | gfx950) want=mfma ;;
		*) want=none ;;
		esac
		got=none
		[ "$wmma" -gt 0 ] && got=wmma
		[ "$mfma" -gt 0 ] && got=mfma
		[ "$wmma" -gt 0 ] && [ "$mfma" -gt 0 ] && got=both
		echo "$a: $wmma v_wmma_*, $mfma v_mfma_* (expected: $want)"
		[ "$got" = "$want" ] || fail "$a: matrix instructions: $got, expected $want"
		if [ "$want" != none ]; then
			# gemm_fp16's own instructions: its label to the next blank line
			awk '/<gemm_fp16>:/ { f = 1; next } /^$/ { if (f) exit } f' "$T/$a.s" >"$T/$a.g16.s"
			vec=$(grep -cE 'ds_(read|load)2?(st64)?_b(64|128)' "$T/$a.g16.s")
			half=$(grep -cE 'ds_(read|load)_(u16|i16|b16)' "$T/$a.g16.s")
			echo "$a: gemm_fp16: $vec 64/128-bit LDS loads, $half 16-bit ones"
			[ "$vec" -gt 0 ] && [ "$half" -eq 0 ] ||
				fail "$a: gemm_fp16 loads its matrix operands from LDS one half at a time"
		fi
	fi
	ntests=$((ntests + 1))
	if ! "$READELF" --notes "$co" >"$T/$a.notes" 2>"$ERR"; then
		fail "$a: $READELF --notes: $(cat "$ERR")"
		continue
	fi
	# each kernel's explicit arguments (hidden_* are the runtime's) against the table
	"$PYTHON" - "$T/$a.notes" "$T/kernargs" "$a" <<'PY' || fail "$a: kernel arguments differ from what the probes pass, or a kernel spills"
import re, sys
want = {}
for line in open(sys.argv[2]):
    f = line.split()
    want[f[0]] = [int(x) for x in f[1:]]
# the YAML of amdhsa.kernels, by indentation: "  - ." opens a kernel,
# "      - ." one of its arguments, "    ." is a kernel's own key
kernels, cur, arg = [], None, None
for line in open(sys.argv[1]):
    m = re.match(r"^( *)(- )?\.(\w+):\s*(.*)$", line.rstrip())
    if not m:
        if not line.startswith(" "):
            cur = arg = None          # the next top-level key
        continue
    ind = len(m.group(1)) + (2 if m.group(2) else 0)
    key, val = m.group(3), m.group(4)
    if m.group(1) == "  " and m.group(2):
        cur, arg = {"name": None, "args": []}, None
        kernels.append(cur)
    elif m.group(1) == "      " and m.group(2) and cur is not None:
        arg = {}
        cur["args"].append(arg)
    if cur is None:
        continue
    if ind == 8 and arg is not None:
        arg[key] = val
    elif ind == 4:
        arg = None
        if key != "args":
            cur[key] = val
bad = 0
seen = set()
for k in kernels:
    name = k["name"]
    seen.add(name)
    got = [int(a["size"]) for a in k["args"] if not a.get("value_kind", "").startswith("hidden_")]
    for key in ("vgpr_spill_count", "sgpr_spill_count", "private_segment_fixed_size"):
        if int(k.get(key, "0")) != 0:
            print(f"{sys.argv[3]}: {name}: {key} {k[key]} (spills to scratch)", file=sys.stderr)
            bad = 1
    if name not in want:
        print(f"{sys.argv[3]}: kernel {name} is not in the test's table", file=sys.stderr)
        bad = 1
    elif got != want[name]:
        print(f"{sys.argv[3]}: {name}: arguments {got}, the probes pass {want[name]}", file=sys.stderr)
        bad = 1
for name in want:
    if name not in seen:
        print(f"{sys.argv[3]}: no metadata for {name}", file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
done
[ "$checked" -gt 0 ] || fail "$OBJDUMP disassembled none of the embedded targets"
finish
