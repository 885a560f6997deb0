/* GEMM probe kernels, one source for HIP and CUDA. Row-major C = A * B with
 * A m x k, B k x n. The host (probes/probe_gemm.c) only launches shapes that
 * are multiples of the tiles: m, n multiples of 128, k a multiple of 32.
 *
 *   gemm_fp32       tiled SGEMM: 128x128 block tile, 8-deep k slices in
 *                   two shared-memory stages, 8x8 register block per thread,
 *                   256 threads.
 *   gemm_fp16       fp16 inputs, fp32 accumulation, on the matrix units where
 *                   the target has them (portable.h picks: WMMA, MFMA,
 *                   mma.sync, wgmma on sm_90a), else SIMT.
 *   gemm_fp16_info  writes {variant, threads per block, tile rows, tile cols}
 *                   for the variant compiled for this target.
 *   gemm_fp16_simt  the SIMT tile with fp16 loads, on every target.
 * tests/emu runs every variant on a host emulator against an exact answer. */
#ifndef ROCMCHECK_PORTABLE_H
#include "portable.h"
#endif

#define RC_VARIANT_PLAIN 0
#define RC_VARIANT_WMMA 1
#define RC_VARIANT_MFMA 2
#define RC_VARIANT_MMA 3
#define RC_VARIANT_WGMMA 5              /* 4 is the cpu backend's (probes/gemm_dev.h) */

/* ---- SIMT tile, shared by gemm_fp32 and the plain fp16 fallback ---- */
#define ST_BM 128
#define ST_BN 128
#define ST_BK 8
#define ST_THREADS 256

/* Four consecutive elements as floats, in one 128-bit (fp32) or 64-bit
 * (fp16) load: the callers' addresses are multiples of four elements. */
__device__ inline rc_float4 rc_load4(const float *p) { return *(const rc_float4 *)p; }
__device__ inline rc_float4 rc_load4(const rc_half *p)
{
	struct __attribute__((aligned(8))) h4 {
		rc_half v[4];
	} h = *(const h4 *)p;
	rc_float4 r = { rc_to_float(h.v[0]), rc_to_float(h.v[1]), rc_to_float(h.v[2]), rc_to_float(h.v[3]) };
	return r;
}

/* 256 threads as 16 x 16; thread (ty, tx) owns rows 4 ty + 64 h + r and
 * columns 4 tx + 64 g + c of the tile (h, g < 2; r, c < 4): its fragments
 * are four 128-bit shared loads per k (As[k][4 ty], As[k][64 + 4 ty] and
 * the same of Bs), the eight lanes of a quarter warp read 128 contiguous
 * bytes of Bs and broadcast As, and C is written 16 bytes at a time.
 * Two shared-memory stages: the next k slice's global loads are in flight
 * while this one is multiplied, and one barrier per slice suffices. Each
 * thread brings four k of one A row and four columns of one B row. */
template <typename T>
__device__ inline void simt_tile(const T *__restrict__ A, const T *__restrict__ B, float *__restrict__ C,
				 int M, int N, int K)
{
	/* rows of 132 floats: 16-byte aligned, and As's transposed stores
	 * (k 0-3 and 4-7 of 16 rows in a warp) fall in different banks */
	__shared__ __attribute__((aligned(16))) float As[2][ST_BK][ST_BM + 4];   /* transposed: As[k][row] */
	__shared__ __attribute__((aligned(16))) float Bs[2][ST_BK][ST_BN + 4];
	const int tid = (int)threadIdx.x;
	const int tx = tid % 16, ty = tid / 16;
	const int row0 = (int)blockIdx.y * ST_BM, col0 = (int)blockIdx.x * ST_BN;
	float acc[8][8];
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;
	(void)M;
	const int ar = tid >> 1, ak = (tid & 1) * 4;        /* A: 128 rows x 8 k, 4 per thread */
	const int bk = tid >> 5, bc = (tid & 31) * 4;       /* B: 8 k x 128 columns, 4 per thread */
	const T *a = A + (size_t)(row0 + ar) * K + ak;
	const T *b = B + (size_t)bk * N + col0 + bc;
	rc_float4 na = rc_load4(a), nb = rc_load4(b);
	int st = 0;
	for (int k0 = 0; k0 < K; k0 += ST_BK, st ^= 1) {
		/* this slice into stage st: its last readers passed the barrier
		 * at the end of the slice before last */
		As[st][ak][ar] = na.x;
		As[st][ak + 1][ar] = na.y;
		As[st][ak + 2][ar] = na.z;
		As[st][ak + 3][ar] = na.w;
		*(rc_float4 *)&Bs[st][bk][bc] = nb;
		__syncthreads();
		if (k0 + ST_BK < K) {
			na = rc_load4(a + k0 + ST_BK);
			nb = rc_load4(b + (size_t)(k0 + ST_BK) * N);
		}
#pragma unroll
		for (int kk = 0; kk < ST_BK; kk++) {
			const rc_float4 a0 = *(const rc_float4 *)&As[st][kk][4 * ty];
			const rc_float4 a1 = *(const rc_float4 *)&As[st][kk][64 + 4 * ty];
			const rc_float4 b0 = *(const rc_float4 *)&Bs[st][kk][4 * tx];
			const rc_float4 b1 = *(const rc_float4 *)&Bs[st][kk][64 + 4 * tx];
			const float av[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
			const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] += av[i] * bv[j];
		}
	}
	for (int i = 0; i < 8; i++)
		for (int g = 0; g < 2; g++) {
			rc_float4 v = { acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3] };
			*(rc_float4 *)&C[(size_t)(row0 + 4 * ty + (i % 4) + 64 * (i / 4)) * N + col0 + 4 * tx + 64 * g] = v;
		}
}

/* two blocks per SM on NVIDIA: ptxas would take 129 registers on sm_90,
 * one over what two blocks of 256 threads can have */
#if defined(__CUDACC__)
#define ST_BOUNDS __launch_bounds__(ST_THREADS, 2)
#else
#define ST_BOUNDS RC_BOUNDS(ST_THREADS)
#endif

RC_KERNEL ST_BOUNDS void gemm_fp32(const float *__restrict__ A, const float *__restrict__ B,
					       float *__restrict__ C, int M, int N, int K)
{
	simt_tile<float>(A, B, C, M, N, K);
}

/* ---- gemm_fp16 ---- */
#if defined(RC_GEMM16_WMMA) || defined(RC_GEMM16_MFMA)
/* AMD matrix units: one body for RDNA3/RDNA4 WMMA and CDNA MFMA.
 * 256 threads; block tile 128x128; 32-deep k slices in two shared-memory
 * stages, so the global loads of the next slice are in flight while the
 * matrix unit works on this one (one barrier per slice). A is staged as
 * As[row][k] and B transposed as Bs[col][k]: the k values a lane feeds the
 * matrix instruction are contiguous, and each operand is one or two 128-bit
 * (ds_load_b128) or one 64-bit LDS load. Rows are 32 halves (64 bytes,
 * no padding) whose four 16-byte chunks of 8 k are XOR-swizzled: chunk q
 * of row r sits at chunk q ^ G16_SWZ(r). Then, in the bank model of
 * ci/bank_table.py (32 banks of 4 bytes, 128 bytes per LDS cycle), the
 * operand loads of 8 consecutive rows hit 8 different 16-byte bank groups
 * and the A stores (8 rows, one chunk) too: conflict-free; B's transposed
 * 32-bit stores (8 columns 8 apart by 4 k pairs per 32 lanes) are 2-way.
 *
 * Operand layouts: lane l works on row l%16 of the A tile and column l%16 of
 * the B tile; it holds G16_KPL k values from G16_K0(l), and its result
 * element e is row G16_CROW(e, l), column l%16 of C.
 *  - gfx11, __builtin_amdgcn_wmma_f32_16x16x16_f16_w32 (AMD, "How to
 *    accelerate AI applications on RDNA 3 using WMMA"): wave32, all 16 k
 *    values (both half-waves the same); element e is row 2e + l/16.
 *  - gfx12, __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12 (AMD matrix
 *    instruction calculator, -a rdna4 -i v_wmma_f32_16x16x16_f16): wave32;
 *    operand element t of lane l is k = 8 (t/4) + 4 (l/16) + t%4 (lanes
 *    0-15 hold k 0-3 and 8-11, lanes 16-31 k 4-7 and 12-15); result element
 *    e is row 8 (l/16) + e. The kernel feeds 8 contiguous k from 8 (l/16)
 *    instead (one 128-bit load): A and B go through the same permutation
 *    of k, which the sum over k does not see. tests/emu models the
 *    calculator's order, and its korder build (A and B fed in different
 *    orders) must fail.
 *  - CDNA, v_mfma_f32_16x16x16f16 (AMD matrix instruction calculator):
 *    wave64, 4 k values from 4 (l/16); element e is row 4 (l/16) + e.
 * tests/emu runs this kernel on a host emulator of those layouts. */
#define G16_THREADS 256
#define G16_BM 128
#define G16_BN 128
#define G16_BK 32
#define G16_LDK G16_BK                 /* halves per staged row */
#define G16_SWZ(r) ((((r) >> 1) ^ ((r) >> 3)) & 3)
#define G16_ROWAT(r, k) ((r) * G16_LDK + ((((k) >> 3) ^ G16_SWZ(r)) << 3) + ((k) & 7))
/* byte offsets in a stage of A's (row r, k) and of B's (column n, k) */
#define G16_A_AT(r, k) (G16_ROWAT(r, k) * 2)
#define G16_B_AT(n, k) ((G16_BM * G16_LDK + G16_ROWAT(n, k)) * 2)
#define G16_ROT(t) 0                   /* B's stores need no rotation (g16_stage) */
#define G16_STAGE ((G16_BM + G16_BN) * G16_LDK * 2)
#if defined(RC_GEMM16_WMMA)
#define G16_VARIANT RC_VARIANT_WMMA
#define G16_WAVE 32
#define G16_WAVES_N 2                  /* 8 waves as 4 x 2, each 32 x 64 */
#define G16_TM 2
#define G16_TN 4
typedef float rc_acc __attribute__((ext_vector_type(8)));
#define G16_NACC 8
#if defined(RC_GEMM16_WMMA_GFX12)
#define G16_KPL 8
#define G16_K0(l) (8 * ((l) / 16))
#define G16_CROW(e, l) (8 * ((l) / 16) + (e))
#define G16_MMA(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c)
#else
#define G16_KPL 16
#define G16_K0(l) 0
#define G16_CROW(e, l) (2 * (e) + (l) / 16)
#define G16_MMA(a, b, c) __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c)
#endif
#else
#define G16_VARIANT RC_VARIANT_MFMA
#define G16_WAVE 64
#define G16_WAVES_N 2                  /* 4 waves as 2 x 2, each 64 x 64 */
#define G16_TM 4
#define G16_TN 4
typedef float rc_acc __attribute__((ext_vector_type(4)));
#define G16_NACC 4
#define G16_KPL 4
#define G16_K0(l) (4 * ((l) / 16))
#define G16_CROW(e, l) (4 * ((l) / 16) + (e))
#define G16_MMA(a, b, c) __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0)
#endif
typedef _Float16 rc_hk __attribute__((ext_vector_type(G16_KPL)));
typedef _Float16 rc_h8 __attribute__((ext_vector_type(8)));
typedef _Float16 rc_h4 __attribute__((ext_vector_type(4)));

/* One lane's operand: G16_KPL halves of a staged row, k0 .. at p and, for
 * 16, k0 + 8 .. at p8 (another chunk after the swizzle). */
#define G16_K8 (G16_KPL == 16 ? 8 : 0)
__device__ inline rc_hk g16_operand(const unsigned char *p, const unsigned char *p8)
{
#if G16_KPL == 16
	rc_h8 lo = *(const rc_h8 *)p, hi = *(const rc_h8 *)p8;
	return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
#elif G16_KPL == 8
	(void)p8;
	return *(const rc_h8 *)p;
#else
	(void)p8;
	return *(const rc_h4 *)p;
#endif
}

#elif defined(RC_GEMM16_WGMMA)
/* Hopper (sm_90a) through wgmma.mma_async, which reads both operands from
 * shared memory while the warps go on. 256 threads = 2 warpgroups; block
 * tile 128x128; 32-deep k slices in two shared-memory stages (the next
 * slice's global loads and stores overlap this slice's wgmma); warpgroup g
 * computes rows 64g .. +64 by all 128 columns, one m64n128k16 per 16 k.
 *
 * A and B^T are staged K-major in the canonical layout without swizzle:
 * 8x8 core matrices of 128 contiguous bytes (8 rows of 8 k), those of one
 * 8-k column of the tile next to each other (SBO 128 bytes), the next 8 k
 * R/8 core matrices on (LBO R * 16 bytes for R rows). A chunk of 8 k of
 * one row is one 16-byte store; B is transposed in pairs of k as on AMD,
 * each lane storing its eight columns in a rotated order (G16_ROT): in
 * this layout column n of a k pair is bank 4 (n%8) + (k/2)%4, so lanes
 * storing the same n%8 at once would be 8- to 16-way. */
#define G16_VARIANT RC_VARIANT_WGMMA
#define G16_THREADS 256
#define G16_BM 128
#define G16_BN 128
#define G16_BK 32
#define G16_SBO 128
#define G16_LBO (128 * 16)
/* byte offset of (row r, k) in a staged 128-row tile */
#define G16_OFF(r, k) ((((k) / 8) * 16 + (r) / 8) * 128 + ((r) % 8) * 16 + ((k) % 8) * 2)
#define G16_A_AT(r, k) G16_OFF(r, k)
#define G16_B_AT(n, k) (G16_BM * G16_BK * 2 + G16_OFF(n, k))
/* B's 32-bit stores: column 8c + j of k pair p is bank 4 j + p%4 whatever
 * c, so lane t stores its eight columns from j = t%8 on (g16_stage) */
#define G16_ROT(t) ((t) % 8)
#define G16_STAGE ((G16_BM + G16_BN) * G16_BK * 2)

/* A shared-memory matrix descriptor (PTX ISA, "matrix descriptor format"):
 * start address, leading dimension byte offset (from one core matrix to
 * the next along k) and stride dimension byte offset (to the next along m
 * or n), each >> 4, at bits 0, 16 and 32; base offset 0; swizzle 0 (none). */
__device__ inline unsigned long long g16_desc(const void *smem)
{
	unsigned a = (unsigned)__cvta_generic_to_shared(smem);
	return (unsigned long long)((a & 0x3FFFF) >> 4) | (unsigned long long)(G16_LBO >> 4) << 16 |
	       (unsigned long long)(G16_SBO >> 4) << 32;
}
#endif

#if defined(RC_GEMM16_WMMA) || defined(RC_GEMM16_MFMA) || defined(RC_GEMM16_WGMMA)
/* Staging shared by the AMD matrix-unit and the Hopper GEMMs, which differ
 * only in where an element sits in a stage (G16_A_AT, G16_B_AT).
 *
 * A slice in flight, for lane l of 32-thread group w = t/32: two 8-half
 * chunks of A, k 8 (l/8) of rows 8 (w + 8i) + l%8 (i < 2), and, of B,
 * columns 8 c .. +8, c = l%8 + 8 (w%2), in the two k rows 2p and 2p + 1,
 * p = l/8 + 4 (w/2). Every global load is 16 bytes; four lanes read a
 * 64-byte A row, eight a 128-byte run of a B row. In a stage, the eight
 * lanes of an A store (16 bytes) are eight rows of one chunk, and the 32
 * lanes of a B store (32 bits) eight columns 8 apart by four k pairs;
 * G16_ROT turns each lane's order of its eight columns where the layout
 * would put those in one bank (Hopper): ci/bank_table.py has the degrees. */
/* 8 halves, two to a word; on AMD a vector (a struct copied from global
 * memory ends up in scratch) */
#if defined(RC_HIP)
typedef unsigned g16_chunk __attribute__((ext_vector_type(4)));
#else
typedef uint4 g16_chunk;
#endif
/* word i (a constant once unrolled) */
__device__ inline unsigned g16_word(const g16_chunk &c, int i)
{
	return i == 0 ? c.x : i == 1 ? c.y : i == 2 ? c.z : c.w;
}
struct g16_slice {
	g16_chunk a[2], b[2];
};

/* the row and k chunk of A, the 8-column group and k pair of B, of thread t */
__device__ inline int g16_arow(int t, int i) { return 8 * (t / 32 + 8 * i) + t % 8; }
__device__ inline int g16_aq(int t) { return (t % 32) / 8; }
__device__ inline int g16_bc(int t) { return t % 8 + 8 * ((t / 32) % 2); }
__device__ inline int g16_bp(int t) { return (t % 32) / 8 + 4 * (t / 64); }

__device__ inline void g16_fetch(g16_slice &s, const rc_half *__restrict__ A, const rc_half *__restrict__ B, int N,
				 int K, int row0, int col0, int k0, int tid)
{
#pragma unroll
	for (int i = 0; i < 2; i++) {
		s.a[i] = *(const g16_chunk *)&A[(size_t)(row0 + g16_arow(tid, i)) * K + k0 + 8 * g16_aq(tid)];
		s.b[i] = *(const g16_chunk *)&B[(size_t)(k0 + 2 * g16_bp(tid) + i) * N + col0 + 8 * g16_bc(tid)];
	}
}

/* halves 2j and 2j+1 of x and y are word j of the result: columns' k pairs */
__device__ inline unsigned g16_pair(unsigned x, unsigned y, int hi)
{
	return hi ? (x >> 16) | (y & 0xFFFF0000u) : (x & 0xFFFFu) | (y << 16);
}

/* into a stage: A's chunks as they came, B transposed as pairs of k (one
 * 32-bit store each) */
__device__ inline void g16_stage(const g16_slice &s, unsigned char *stage, int tid)
{
	/* unrolled, so that every word index is a constant: an indexed
	 * register array would go to scratch (or LDS) memory on AMD */
#pragma unroll
	for (int i = 0; i < 2; i++)
		*(g16_chunk *)(stage + G16_A_AT(g16_arow(tid, i), 8 * g16_aq(tid))) = s.a[i];
	unsigned w[8];
#pragma unroll
	for (int j = 0; j < 8; j++)
		w[j] = g16_pair(g16_word(s.b[0], j / 2), g16_word(s.b[1], j / 2), j % 2);
	const int c = g16_bc(tid), p = g16_bp(tid), rot = G16_ROT(tid);
	/* w rotated left by rot in three steps of selects, 24 in all (an
	 * indexed register array would go to memory); none when rot is 0 */
#pragma unroll
	for (int b = 4; b > 0; b /= 2) {
		unsigned r[8];
#pragma unroll
		for (int x = 0; x < 8; x++)
			r[x] = (rot & b) ? w[(x + b) % 8] : w[x];
#pragma unroll
		for (int x = 0; x < 8; x++)
			w[x] = r[x];
	}
#pragma unroll
	for (int q = 0; q < 8; q++)
		*(unsigned *)(stage + G16_B_AT(8 * c + (q + rot) % 8, 2 * p)) = w[q];
}
#endif

#if defined(RC_GEMM16_WMMA) || defined(RC_GEMM16_MFMA)
RC_KERNEL RC_BOUNDS(G16_THREADS) void gemm_fp16(const rc_half *__restrict__ A, const rc_half *__restrict__ B,
						float *__restrict__ C, int M, int N, int K)
{
	__shared__ __attribute__((aligned(16))) unsigned char smem[2][G16_STAGE];
	(void)M;
	const int tid = (int)threadIdx.x, lane = tid % G16_WAVE, wave = tid / G16_WAVE;
	const int wr = wave / G16_WAVES_N, wc = wave % G16_WAVES_N;
	const int arow = wr * G16_TM * 16 + lane % 16, bcol = wc * G16_TN * 16 + lane % 16;
	const int row0 = (int)blockIdx.y * G16_BM, col0 = (int)blockIdx.x * G16_BN;
	rc_acc acc[G16_TM][G16_TN];
	for (int i = 0; i < G16_TM; i++)
		for (int j = 0; j < G16_TN; j++)
			for (int e = 0; e < G16_NACC; e++)
				acc[i][j][e] = 0.0f;
	g16_slice next;
	g16_fetch(next, A, B, N, K, row0, col0, 0, tid);
	g16_stage(next, smem[0], tid);
	__syncthreads();
	int st = 0;
	for (int k0 = 0; k0 < K; k0 += G16_BK, st ^= 1) {
		const bool more = k0 + G16_BK < K;
		if (more)
			g16_fetch(next, A, B, N, K, row0, col0, k0 + G16_BK, tid);
		for (int kk = 0; kk < G16_BK; kk += 16) {
			rc_hk af[G16_TM], bf[G16_TN];
			const int k = kk + G16_K0(lane);
			for (int i = 0; i < G16_TM; i++)
				af[i] = g16_operand(smem[st] + G16_A_AT(arow + 16 * i, k),
						    smem[st] + G16_A_AT(arow + 16 * i, k + G16_K8));
			for (int j = 0; j < G16_TN; j++)
				bf[j] = g16_operand(smem[st] + G16_B_AT(bcol + 16 * j, k),
						    smem[st] + G16_B_AT(bcol + 16 * j, k + G16_K8));
			for (int i = 0; i < G16_TM; i++)
				for (int j = 0; j < G16_TN; j++)
					acc[i][j] = G16_MMA(af[i], bf[j], acc[i][j]);
		}
		/* the other stage was last read before the previous barrier */
		if (more)
			g16_stage(next, smem[st ^ 1], tid);
		__syncthreads();
	}
	for (int i = 0; i < G16_TM; i++)
		for (int j = 0; j < G16_TN; j++)
			for (int e = 0; e < G16_NACC; e++) {
				int r = row0 + wr * G16_TM * 16 + i * 16 + G16_CROW(e, lane);
				int c = col0 + wc * G16_TN * 16 + j * 16 + lane % 16;
				C[(size_t)r * N + c] = acc[i][j][e];
			}
}

#elif defined(RC_GEMM16_WGMMA)
RC_KERNEL RC_BOUNDS(G16_THREADS) void gemm_fp16(const rc_half *__restrict__ A, const rc_half *__restrict__ B,
						float *__restrict__ C, int M, int N, int K)
{
	__shared__ __align__(128) unsigned char smem[2][G16_STAGE];
	(void)M;
	const int tid = (int)threadIdx.x, g = tid / 128, t = tid % 128;
	const int row0 = (int)blockIdx.y * G16_BM, col0 = (int)blockIdx.x * G16_BN;
	float d[64];
	for (int i = 0; i < 64; i++)
		d[i] = 0.0f;
	g16_slice next;
	g16_fetch(next, A, B, N, K, row0, col0, 0, tid);
	g16_stage(next, smem[0], tid);
	rc_fence_proxy_async();
	__syncthreads();
	int st = 0;
	for (int k0 = 0; k0 < K; k0 += G16_BK, st ^= 1) {
		const bool more = k0 + G16_BK < K;
		if (more)
			g16_fetch(next, A, B, N, K, row0, col0, k0 + G16_BK, tid);
		rc_wgmma_fence();
		for (int kk = 0; kk < G16_BK; kk += 16)
			rc_wgmma_m64n128k16_f16(d, g16_desc(smem[st] + G16_A_AT(64 * g, kk)),
						g16_desc(smem[st] + G16_B_AT(0, kk)));
		rc_wgmma_commit();
		/* the other stage's last readers were waited for before the
		 * previous barrier */
		if (more) {
			g16_stage(next, smem[st ^ 1], tid);
			rc_fence_proxy_async();
		}
		rc_wgmma_wait0();
		__syncthreads();
	}
	const int w = t / 32, l = t % 32;
	for (int i = 0; i < 64; i++) {
		int r = row0 + 64 * g + 16 * w + l / 4 + 8 * ((i / 2) % 2);
		int c = col0 + 8 * (i / 4) + 2 * (l % 4) + i % 2;
		C[(size_t)r * N + c] = d[i];
	}
}

#elif defined(RC_GEMM16_MMA)
/* NVIDIA tensor cores through nvcuda::wmma (sm_70+). 256 threads = 8 warps;
 * block tile 128x128 with 32-deep k slices in two shared-memory stages (the
 * next slice's global loads are in flight while the tensor cores work on
 * this one; one barrier per slice); warp w owns rows 32*(w/2) .. +32 and
 * columns 64*(w%2) .. +64 as 2x4 fragments of 16x16x16. Rows of the shared
 * tiles are padded by 8 halves (16 bytes) to spread banks while keeping the
 * 32-byte alignment wmma loads need. */
#define G16_VARIANT RC_VARIANT_MMA
#define G16_THREADS 256
#define G16_BM 128
#define G16_BN 128
#define G16_BK 32
#define AS_LD (G16_BK + 8)
#define BS_LD (G16_BN + 8)

RC_KERNEL RC_BOUNDS(G16_THREADS) void gemm_fp16(const rc_half *__restrict__ A, const rc_half *__restrict__ B,
						float *__restrict__ C, int M, int N, int K)
{
	using namespace nvcuda;
	__shared__ __align__(32) rc_half As[2][G16_BM * AS_LD];
	__shared__ __align__(32) rc_half Bs[2][G16_BK * BS_LD];
	(void)M;
	const int tid = (int)threadIdx.x, warp = tid / 32;
	const int wr = warp / 2, wc = warp % 2;
	const int row0 = (int)blockIdx.y * G16_BM, col0 = (int)blockIdx.x * G16_BN;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++)
			wmma::fill_fragment(acc[i][j], 0.0f);
	/* 128x32 of A and 32x128 of B: 512 chunks of 8 halves each, two of
	 * each per thread: chunk c = tid + 256 i */
	uint4 na[2], nb[2];
	for (int i = 0; i < 2; i++) {
		int c = tid + i * G16_THREADS;
		na[i] = *(const uint4 *)&A[(size_t)(row0 + c / 4) * K + (c % 4) * 8];
		nb[i] = *(const uint4 *)&B[(size_t)(c / 16) * N + col0 + (c % 16) * 8];
	}
	for (int i = 0; i < 2; i++) {
		int c = tid + i * G16_THREADS;
		*(uint4 *)&As[0][(c / 4) * AS_LD + (c % 4) * 8] = na[i];
		*(uint4 *)&Bs[0][(c / 16) * BS_LD + (c % 16) * 8] = nb[i];
	}
	__syncthreads();
	int st = 0;
	for (int k0 = 0; k0 < K; k0 += G16_BK, st ^= 1) {
		const bool more = k0 + G16_BK < K;
		if (more)
			for (int i = 0; i < 2; i++) {
				int c = tid + i * G16_THREADS;
				na[i] = *(const uint4 *)&A[(size_t)(row0 + c / 4) * K + k0 + G16_BK + (c % 4) * 8];
				nb[i] = *(const uint4 *)&B[(size_t)(k0 + G16_BK + c / 16) * N + col0 + (c % 16) * 8];
			}
#pragma unroll
		for (int kk = 0; kk < G16_BK; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af[2];
			wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> bf[4];
			for (int i = 0; i < 2; i++)
				wmma::load_matrix_sync(af[i], &As[st][(wr * 32 + i * 16) * AS_LD + kk], AS_LD);
			for (int j = 0; j < 4; j++)
				wmma::load_matrix_sync(bf[j], &Bs[st][kk * BS_LD + wc * 64 + j * 16], BS_LD);
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 4; j++)
					wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
		}
		/* the other stage was last read before the previous barrier */
		if (more)
			for (int i = 0; i < 2; i++) {
				int c = tid + i * G16_THREADS;
				*(uint4 *)&As[st ^ 1][(c / 4) * AS_LD + (c % 4) * 8] = na[i];
				*(uint4 *)&Bs[st ^ 1][(c / 16) * BS_LD + (c % 16) * 8] = nb[i];
			}
		__syncthreads();
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++)
			wmma::store_matrix_sync(&C[(size_t)(row0 + wr * 32 + i * 16) * N + col0 + wc * 64 + j * 16],
						acc[i][j], N, wmma::mem_row_major);
}

#else
/* No matrix unit for this target: the SIMT tile with fp16 loads. */
#define G16_VARIANT RC_VARIANT_PLAIN
#define G16_THREADS ST_THREADS
#define G16_BM ST_BM
#define G16_BN ST_BN

RC_KERNEL RC_BOUNDS(G16_THREADS) void gemm_fp16(const rc_half *__restrict__ A, const rc_half *__restrict__ B,
						float *__restrict__ C, int M, int N, int K)
{
	simt_tile<rc_half>(A, B, C, M, N, K);
}
#endif

/* The SIMT tile with fp16 loads on every target, beside the matrix-unit
 * variant, so that the two can be timed side by side (probe --variant simt);
 * launched as gemm_fp32 is. */
RC_KERNEL ST_BOUNDS void gemm_fp16_simt(const rc_half *__restrict__ A, const rc_half *__restrict__ B,
						    float *__restrict__ C, int M, int N, int K)
{
	simt_tile<rc_half>(A, B, C, M, N, K);
}

RC_KERNEL void gemm_fp16_info(int *info)
{
	if (threadIdx.x == 0 && blockIdx.x == 0) {
		info[0] = G16_VARIANT;
		info[1] = G16_THREADS;
		info[2] = G16_BM;
		info[3] = G16_BN;
	}
}
