#!/bin/bash
# ci/bank_table.py (issue 27): the bank-conflict degree of every staging
# store and operand load of the probe kernels, from their address formulas
# restated in the script, before and after the conflict-free staging. It
# fails when an "after" site is above 2-way, and when kernels/gemm.hip's
# swizzle or its staging thread map no longer reads as the script restates
# it (the table would then describe another kernel).
. "$(dirname "$0")/lib.sh"

ntests=$((ntests + 1))
"$PYTHON" "$SOURCE_DIR/ci/bank_table.py" --check >"$OUT" 2>"$ERR" || fail "bank_table --check: $(cat "$OUT" "$ERR")"
grep -q "B store (k-pair transpose) *16-way *2-way" "$OUT" || fail "the AMD B stores are not 16-way before, 2-way after: $(cat "$OUT")"
grep -q "wgmma *B store (k-pair transpose) *16-way *1-way" "$OUT" || fail "the Hopper B stores are not 16-way before, 1-way after"
while IFS= read -r line; do
	ntests=$((ntests + 1))
	grep -qF -- "$line" "$SOURCE_DIR/kernels/gemm.hip" || fail "gemm.hip lacks what ci/bank_table.py restates: $line"
done <<'TXT'
#define G16_SWZ(r) ((((r) >> 1) ^ ((r) >> 3)) & 3)
#define G16_ROWAT(r, k) ((r) * G16_LDK + ((((k) >> 3) ^ G16_SWZ(r)) << 3) + ((k) & 7))
#define G16_LDK G16_BK
#define G16_ROT(t) ((t) % 8)
__device__ inline int g16_arow(int t, int i) { return 8 * (t / 32 + 8 * i) + t % 8; }
__device__ inline int g16_aq(int t) { return (t % 32) / 8; }
__device__ inline int g16_bc(int t) { return t % 8 + 8 * ((t / 32) % 2); }
__device__ inline int g16_bp(int t) { return (t % 32) / 8 + 4 * (t / 64); }
#define G16_OFF(r, k) ((((k) / 8) * 16 + (r) / 8) * 128 + ((r) % 8) * 16 + ((k) % 8) * 2)
const rc_float4 b1 = *(const rc_float4 *)&Bs[st][kk][64 + 4 * tx];
TXT
finish
