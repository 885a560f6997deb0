#!/usr/bin/env python3
"""Shared-memory / LDS bank-conflict degrees of the probe kernels' staging
sites (kernels/gemm.hip, kernels/conv.hip), before and after issue 27's
conflict-free staging, from the kernels' own address formulas (restated
here, lane -> byte address).

Bank model, one for both vendors: 32 banks of 4 bytes. A wavefront's access
is served in phases of 128 requested bytes: 32 lanes of 4 bytes, 16 of 8,
8 of 16 (NVIDIA shared memory: CUDA C++ Programming Guide, "Shared Memory"
of compute capability 5.x and later; AMD LDS: the same 32 banks x 4 bytes,
128 bytes per clock, on CDNA (AMD CDNA3 ISA, "Local Data Share") and RDNA
(RDNA3 ISA, "LDS"), wave64 taken as two 32-lane halves). The degree of a
phase is the largest number of distinct 4-byte words any one bank serves
(lanes reading the same word are one broadcast); a site's degree is the
worst phase of any of its wavefronts and instructions. A coarse model
(the emulator's cost model, issue 27 item 1, is the precise one), enough
to see 16-way from 1-way.

Usage: ci/bank_table.py [--check]   prints the table; --check exits 1 when
an "after" site is above 2-way.
"""
import sys

PHASE = 128


def degree(accesses):
    """accesses: list of (lane, byte address, width) of one wavefront,
    lanes in order; the worst bank degree over its phases, and the cycles
    (sum of the phases' degrees)"""
    worst = cycles = 0
    width = accesses[0][2]
    per = PHASE // width
    for p0 in range(0, len(accesses), per):
        banks = {}
        for _, addr, w in accesses[p0:p0 + per]:
            for d in range(addr // 4, (addr + w) // 4):
                banks.setdefault(d % 32, set()).add(d)
        worst = max(worst, max(len(v) for v in banks.values()))
        cycles += max(len(v) for v in banks.values())
    return worst, cycles


def site(threads, wave, fn):
    """fn(t) -> list of (address, width), one per instruction; the worst
    degree over every wavefront (of `wave` lanes, served 32 at a time) and
    instruction, and the block's cycles (shared-memory wavefronts) at it"""
    ninstr = len(fn(0))
    worst = total = 0
    for w0 in range(0, threads, wave):
        for i in range(ninstr):
            for h in range(w0, w0 + wave, 32):
                acc = [(t, *fn(t)[i]) for t in range(h, h + 32)]
                d, c = degree(acc)
                worst, total = max(worst, d), total + c
    return worst, total


# ---- AMD matrix units (gemm_fp16: WMMA gfx11/gfx12, MFMA CDNA) ----
AMD = {  # wave, waves along n, tiles TM x TN, k per lane, K0(l)
    "gfx11": dict(wave=32, wn=2, tm=2, tn=4, kpl=16, k0=lambda l: 0),
    "gfx12": dict(wave=32, wn=2, tm=2, tn=4, kpl=8, k0=lambda l: 8 * (l // 16)),
    "cdna": dict(wave=64, wn=2, tm=4, tn=4, kpl=4, k0=lambda l: 4 * (l // 16)),
}


def amd_before(v):
    ldk = 40
    A = lambda r, k: (r * ldk + k) * 2
    B = lambda n, k: (128 * ldk + n * ldk + k) * 2
    astore = lambda t: [(A((t + 256 * i) // 4, ((t + 256 * i) % 4) * 8), 16) for i in range(2)]
    bstore = lambda t: [(B(8 * (t % 16) + j, 2 * (t // 16)), 4) for j in range(8)]
    return A, B, astore, bstore


def swz(r):
    return ((r >> 1) ^ (r >> 3)) & 3


def amd_after(v):
    ldk = 32
    row = lambda r, k: r * ldk + (((k >> 3) ^ swz(r)) << 3) + (k & 7)
    A = lambda r, k: row(r, k) * 2
    B = lambda n, k: (128 * ldk + row(n, k)) * 2
    arow = lambda t, i: 8 * (t // 32 + 8 * i) + t % 8
    aq = lambda t: (t % 32) // 8
    bc = lambda t: t % 8 + 8 * ((t // 32) % 2)
    bp = lambda t: (t % 32) // 8 + 4 * (t // 64)
    astore = lambda t: [(A(arow(t, i), 8 * aq(t)), 16) for i in range(2)]
    bstore = lambda t: [(B(8 * bc(t) + j, 2 * bp(t)), 4) for j in range(8)]
    return A, B, astore, bstore


def amd_loads(v, A, B):
    c = AMD[v]
    wave, kpl = c["wave"], c["kpl"]
    width = 8 if kpl == 4 else 16

    def operand(at, base):
        def fn(t):
            lane, wv = t % wave, t // wave
            wr, wc = wv // c["wn"], wv % c["wn"]
            out = []
            n = c["tm"] if base == "a" else c["tn"]
            for kk in (0, 16):
                k = kk + c["k0"](lane)
                for i in range(n):
                    r = (wr * c["tm"] * 16 if base == "a" else wc * c["tn"] * 16) + lane % 16 + 16 * i
                    out.append((at(r, k), width))
                    if kpl == 16:
                        out.append((at(r, k + 8), width))
            return out
        return fn
    return operand(A, "a"), operand(B, "b")


# ---- Hopper wgmma (canonical K-major layout without swizzle) ----
def hop_off(r, k):
    return (((k // 8) * 16 + r // 8) * 128 + (r % 8) * 16 + (k % 8) * 2)


def hopper(after):
    B = lambda n, k: 128 * 32 * 2 + hop_off(n, k)
    if not after:
        astore = lambda t: [(hop_off((t + 256 * i) // 4, ((t + 256 * i) % 4) * 8), 16) for i in range(2)]
        bstore = lambda t: [(B(8 * (t % 16) + j, 2 * (t // 16)), 4) for j in range(8)]
        return astore, bstore
    arow = lambda t, i: 8 * (t // 32 + 8 * i) + t % 8
    aq = lambda t: (t % 32) // 8
    bc = lambda t: t % 8 + 8 * ((t // 32) % 2)
    bp = lambda t: (t % 32) // 8 + 4 * (t // 64)
    astore = lambda t: [(hop_off(arow(t, i), 8 * aq(t)), 16) for i in range(2)]
    bstore = lambda t: [(B(8 * bc(t) + (q + t % 8) % 8, 2 * bp(t)), 4) for q in range(8)]
    return astore, bstore


# ---- SGEMM (simt_tile, also the plain fp16 GEMM) ----
def sgemm(after):
    ld = 132
    As = lambda k, r: (k * ld + r) * 4
    Bs = lambda k, c: (8 * ld + k * ld + c) * 4
    ar, ak = lambda t: t >> 1, lambda t: (t & 1) * 4
    astore = lambda t: [(As(ak(t) + q, ar(t)), 4) for q in range(4)]
    bstore = lambda t: [(Bs(t >> 5, (t & 31) * 4), 16)]
    tx, ty = lambda t: t % 16, lambda t: t // 16
    if after:
        aload = lambda t: [(As(kk, 4 * ty(t) + 64 * h), 16) for kk in range(8) for h in range(2)]
        bload = lambda t: [(Bs(kk, 4 * tx(t) + 64 * h), 16) for kk in range(8) for h in range(2)]
    else:
        aload = lambda t: [(As(kk, ty(t) + 16 * i), 4) for kk in range(8) for i in range(8)]
        bload = lambda t: [(Bs(kk, tx(t) + 16 * i), 4) for kk in range(8) for i in range(8)]
    return astore, bstore, aload, bload


# ---- nvcuda::wmma GEMM and conv stages (unchanged) ----
def mma_stores():
    A = lambda t: [((((t + 256 * i) // 4) * 40 + ((t + 256 * i) % 4) * 8) * 2, 16) for i in range(2)]
    B = lambda t: [((((t + 256 * i) // 16) * 136 + ((t + 256 * i) % 16) * 8) * 2, 16) for i in range(2)]
    return A, B


def conv_sites():
    As = lambda t: [((((t + 256 * q) % 8) * 68 + (t + 256 * q) // 8) * 4, 4) for q in range(2)]
    Bs = lambda t: [((((t + 256 * q) // 128) * 132 + (t + 256 * q) % 128) * 4, 4) for q in range(4)]
    A16 = lambda t: [(((t // 4) * 40 + (t % 4) * 8) * 2, 16)]
    B16 = lambda t: [((((t + 256 * q) // 128) * 136 + (t + 256 * q) % 128) * 2, 2) for q in range(16)]
    return As, Bs, A16, B16


def rows():
    out = []
    for v in AMD:
        wave = AMD[v]["wave"]
        b = amd_before(v)
        a = amd_after(v)
        bl, al = amd_loads(v, b[0], b[1]), amd_loads(v, a[0], a[1])
        for name, fb, fa in (("A store", b[2], a[2]), ("B store (k-pair transpose)", b[3], a[3]),
                             ("A operand load", bl[0], al[0]), ("B operand load", bl[1], al[1])):
            out.append(("gemm_fp16", v, name, site(256, wave, fb), site(256, wave, fa)))
    hb, ha = hopper(False), hopper(True)
    out.append(("gemm_fp16", "wgmma", "A store", site(256, 32, hb[0]), site(256, 32, ha[0])))
    out.append(("gemm_fp16", "wgmma", "B store (k-pair transpose)", site(256, 32, hb[1]), site(256, 32, ha[1])))
    sb, sa = sgemm(False), sgemm(True)
    for name, fb, fa in zip(("As store (transposed)", "Bs store", "As fragment load", "Bs fragment load"), sb, sa):
        out.append(("gemm_fp32", "simt", name, site(256, 32, fb), site(256, 32, fa)))
    ma, mb = mma_stores()
    out.append(("gemm_fp16", "mma", "As store", site(256, 32, ma), site(256, 32, ma)))
    out.append(("gemm_fp16", "mma", "Bs store", site(256, 32, mb), site(256, 32, mb)))
    c = conv_sites()
    for name, f in zip(("As store (transposed)", "Bs store (gather)"), c[:2]):
        out.append(("conv_fp32", "simt", name, site(256, 32, f), site(256, 32, f)))
    for name, f in zip(("As store", "Bs store (gather, 16-bit)"), c[2:]):
        out.append(("conv_fp16", "mma", name, site(256, 32, f), site(256, 32, f)))
    return out


def main():
    bad = 0
    print("%-10s %-6s %-28s %7s %8s   cycles per block and slice" % ("kernel", "var", "site", "before", "after"))
    for k, v, s, before, after in rows():
        print("%-10s %-6s %-28s %6d-way %4d-way   %5d -> %d" % (k, v, s, before[0], after[0], before[1], after[1]))
        bad += after[0] > 2
    if "--check" in sys.argv[1:] and bad:
        print("%d site(s) above 2-way" % bad)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
