/* GEMM probe kernels, one source for HIP and CUDA. Row-major C = A * B with
 * A m x k, B k x n. The host (probes/probe_gemm.c) only launches shapes that
 * are multiples of the tiles: m, n multiples of 128, k a multiple of 32.
 *
 *   gemm_fp32       tiled SGEMM: 128x128 block tile, 8-deep k slices in
 *                   shared memory, 8x8 register block per thread, 256 threads.
 *   gemm_fp16       fp16 inputs, fp32 accumulation, on the matrix units where
 *                   the target has them (portable.h picks), else SIMT.
 *   gemm_fp16_info  writes {variant, threads per block, tile rows, tile cols}
 *                   for the variant compiled for this target. */
#ifndef ROCMCHECK_PORTABLE_H
#include "portable.h"
#endif

#define RC_VARIANT_PLAIN 0
#define RC_VARIANT_WMMA 1
#define RC_VARIANT_MFMA 2
#define RC_VARIANT_MMA 3

/* ---- SIMT tile, shared by gemm_fp32 and the plain fp16 fallback ---- */
#define ST_BM 128
#define ST_BN 128
#define ST_BK 8
#define ST_THREADS 256

__device__ inline float rc_load(const float *p) { return *p; }
__device__ inline float rc_load(const rc_half *p) { return rc_to_float(*p); }

/* 256 threads as 16 x 16; thread (ty, tx) owns rows ty + 16*i and columns
 * tx + 16*j of the tile (i, j < 8), so neighbouring threads read
 * neighbouring shared-memory words and write neighbouring C elements. */
template <typename T>
__device__ inline void simt_tile(const T *__restrict__ A, const T *__restrict__ B, float *__restrict__ C,
				 int M, int N, int K)
{
	__shared__ float As[ST_BK][ST_BM + 4];   /* transposed: As[k][row] */
	__shared__ float Bs[ST_BK][ST_BN + 4];
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
	for (int k0 = 0; k0 < K; k0 += ST_BK) {
		const T *a = A + (size_t)(row0 + ar) * K + k0 + ak;
		const T *b = B + (size_t)(k0 + bk) * N + col0 + bc;
		for (int i = 0; i < 4; i++) {
			As[ak + i][ar] = rc_load(a + i);
			Bs[bk][bc + i] = rc_load(b + i);
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < ST_BK; kk++) {
			float av[8], bv[8];
#pragma unroll
			for (int i = 0; i < 8; i++) {
				av[i] = As[kk][ty + 16 * i];
				bv[i] = Bs[kk][tx + 16 * i];
			}
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] += av[i] * bv[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			C[(size_t)(row0 + ty + 16 * i) * N + col0 + tx + 16 * j] = acc[i][j];
}

RC_KERNEL RC_BOUNDS(ST_THREADS) void gemm_fp32(const float *__restrict__ A, const float *__restrict__ B,
					       float *__restrict__ C, int M, int N, int K)
{
	simt_tile<float>(A, B, C, M, N, K);
}

/* ---- gemm_fp16 ---- */
#if defined(RC_GEMM16_WMMA)
/* RDNA3 and RDNA4, wave32. 128 threads = 4 waves; block tile 64x64, each
 * wave 32x32 as 2x2 WMMA tiles of 16x16x16. Lane l = 16h + i (h = l/16,
 * i = l%16) works on row i of the A tile and column i of the B tile, and
 * its result element e is column i of C.
 *  - gfx11, __builtin_amdgcn_wmma_f32_16x16x16_f16_w32 (AMD, "How to
 *    accelerate AI applications on RDNA 3 using WMMA"): A and B operands
 *    hold all 16 k values (both half-waves the same); element e is row
 *    2e + h of C.
 *  - gfx12, __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12 (RDNA4 ISA,
 *    "dense matrix layouts"): A and B operands hold 8 k values, k = 8h + t;
 *    element e is row 8h + e of C. */
#define G16_VARIANT RC_VARIANT_WMMA
#define G16_THREADS 128
#define G16_BM 64
#define G16_BN 64
#if defined(RC_GEMM16_WMMA_GFX12)
#define G16_KPL 8                      /* k values per lane in an operand */
#define G16_K0(h) (8 * (h))            /* first of them */
#define G16_CROW(e, h) (8 * (h) + (e))
#define G16_WMMA __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12
#else
#define G16_KPL 16
#define G16_K0(h) 0
#define G16_CROW(e, h) (2 * (e) + (h))
#define G16_WMMA __builtin_amdgcn_wmma_f32_16x16x16_f16_w32
#endif
typedef _Float16 rc_hk __attribute__((ext_vector_type(G16_KPL)));
typedef float rc_f8 __attribute__((ext_vector_type(8)));

RC_KERNEL RC_BOUNDS(G16_THREADS) void gemm_fp16(const rc_half *__restrict__ A, const rc_half *__restrict__ B,
						float *__restrict__ C, int M, int N, int K)
{
	__shared__ rc_half As[64][16 + 2];
	__shared__ rc_half Bs[16][64 + 2];
	(void)M;
	const int tid = (int)threadIdx.x, lane = tid % 32, wave = tid / 32;
	const int wr = wave / 2, wc = wave % 2;
	const int h = lane / 16, k0l = G16_K0(h);
	const int row0 = (int)blockIdx.y * G16_BM, col0 = (int)blockIdx.x * G16_BN;
	rc_f8 acc[2][2];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			for (int e = 0; e < 8; e++)
				acc[i][j][e] = 0.0f;
	const int ar = tid / 2, ak = (tid % 2) * 8;   /* A: 64 x 16, 8 per thread */
	const int bk = tid / 8, bc = (tid % 8) * 8;   /* B: 16 x 64, 8 per thread */
	for (int k0 = 0; k0 < K; k0 += 16) {
		for (int i = 0; i < 8; i++) {
			As[ar][ak + i] = A[(size_t)(row0 + ar) * K + k0 + ak + i];
			Bs[bk][bc + i] = B[(size_t)(k0 + bk) * N + col0 + bc + i];
		}
		__syncthreads();
		rc_hk af[2], bf[2];
		for (int s = 0; s < 2; s++)
			for (int t = 0; t < G16_KPL; t++) {
				af[s][t] = As[wr * 32 + s * 16 + lane % 16][k0l + t];
				bf[s][t] = Bs[k0l + t][wc * 32 + s * 16 + lane % 16];
			}
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 2; j++)
				acc[i][j] = G16_WMMA(af[i], bf[j], acc[i][j]);
		__syncthreads();
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			for (int e = 0; e < 8; e++) {
				int r = row0 + wr * 32 + i * 16 + G16_CROW(e, h);
				int c = col0 + wc * 32 + j * 16 + lane % 16;
				C[(size_t)r * N + c] = acc[i][j][e];
			}
}

#elif defined(RC_GEMM16_MFMA)
/* CDNA, wave64. 256 threads = 4 waves; block tile 64x64, each wave 32x32 as
 * 2x2 tiles of v_mfma_f32_16x16x16f16. Operand layout (AMD matrix
 * instruction calculator): lane l holds A[l%16][4*(l/16) + t] and
 * B[4*(l/16) + t][l%16] for t < 4; result t of lane l is
 * C[4*(l/16) + t][l%16]. */
#define G16_VARIANT RC_VARIANT_MFMA
#define G16_THREADS 256
#define G16_BM 64
#define G16_BN 64
typedef _Float16 rc_h4 __attribute__((ext_vector_type(4)));
typedef float rc_f4 __attribute__((ext_vector_type(4)));

RC_KERNEL RC_BOUNDS(G16_THREADS) void gemm_fp16(const rc_half *__restrict__ A, const rc_half *__restrict__ B,
						float *__restrict__ C, int M, int N, int K)
{
	__shared__ rc_half As[64][16 + 4];
	__shared__ rc_half Bs[16][64 + 4];
	(void)M;
	const int tid = (int)threadIdx.x, lane = tid % 64, wave = tid / 64;
	const int wr = wave / 2, wc = wave % 2;
	const int row0 = (int)blockIdx.y * G16_BM, col0 = (int)blockIdx.x * G16_BN;
	rc_f4 acc[2][2];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			for (int e = 0; e < 4; e++)
				acc[i][j][e] = 0.0f;
	const int ar = tid / 4, ak = (tid % 4) * 4;   /* A: 64 x 16, 4 per thread */
	const int bk = tid / 16, bc = (tid % 16) * 4; /* B: 16 x 64, 4 per thread */
	for (int k0 = 0; k0 < K; k0 += 16) {
		for (int i = 0; i < 4; i++) {
			As[ar][ak + i] = A[(size_t)(row0 + ar) * K + k0 + ak + i];
			Bs[bk][bc + i] = B[(size_t)(k0 + bk) * N + col0 + bc + i];
		}
		__syncthreads();
		rc_h4 af[2], bf[2];
		for (int s = 0; s < 2; s++)
			for (int t = 0; t < 4; t++) {
				af[s][t] = As[wr * 32 + s * 16 + lane % 16][4 * (lane / 16) + t];
				bf[s][t] = Bs[4 * (lane / 16) + t][wc * 32 + s * 16 + lane % 16];
			}
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 2; j++)
				acc[i][j] = __builtin_amdgcn_mfma_f32_16x16x16f16(af[i], bf[j], acc[i][j], 0, 0, 0);
		__syncthreads();
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			for (int t = 0; t < 4; t++) {
				int r = row0 + wr * 32 + i * 16 + 4 * (lane / 16) + t;
				int c = col0 + wc * 32 + j * 16 + lane % 16;
				C[(size_t)r * N + c] = acc[i][j][t];
			}
}

#elif defined(RC_GEMM16_MMA)
/* NVIDIA tensor cores through nvcuda::wmma (sm_70+). 256 threads = 8 warps;
 * block tile 128x128 with 32-deep k slices in shared memory; warp w owns
 * rows 32*(w/2) .. +32 and columns 64*(w%2) .. +64 as 2x4 fragments of
 * 16x16x16. Rows of the shared tiles are padded by 8 halves (16 bytes) to
 * spread banks while keeping the 32-byte alignment wmma loads need. */
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
	__shared__ __align__(32) rc_half As[G16_BM * AS_LD];
	__shared__ __align__(32) rc_half Bs[G16_BK * BS_LD];
	(void)M;
	const int tid = (int)threadIdx.x, warp = tid / 32;
	const int wr = warp / 2, wc = warp % 2;
	const int row0 = (int)blockIdx.y * G16_BM, col0 = (int)blockIdx.x * G16_BN;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++)
			wmma::fill_fragment(acc[i][j], 0.0f);
	for (int k0 = 0; k0 < K; k0 += G16_BK) {
		/* 128x32 of A and 32x128 of B: 512 chunks of 8 halves each */
		for (int c = tid; c < 512; c += G16_THREADS) {
			int ar = c / 4, ak = (c % 4) * 8;
			*(uint4 *)&As[ar * AS_LD + ak] = *(const uint4 *)&A[(size_t)(row0 + ar) * K + k0 + ak];
			int bk = c / 16, bc = (c % 16) * 8;
			*(uint4 *)&Bs[bk * BS_LD + bc] = *(const uint4 *)&B[(size_t)(k0 + bk) * N + col0 + bc];
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < G16_BK; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af[2];
			wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> bf[4];
			for (int i = 0; i < 2; i++)
				wmma::load_matrix_sync(af[i], &As[(wr * 32 + i * 16) * AS_LD + kk], AS_LD);
			for (int j = 0; j < 4; j++)
				wmma::load_matrix_sync(bf[j], &Bs[kk * BS_LD + wc * 64 + j * 16], BS_LD);
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 4; j++)
					wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
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

RC_KERNEL void gemm_fp16_info(int *info)
{
	if (threadIdx.x == 0 && blockIdx.x == 0) {
		info[0] = G16_VARIANT;
		info[1] = G16_THREADS;
		info[2] = G16_BM;
		info[3] = G16_BN;
	}
}
