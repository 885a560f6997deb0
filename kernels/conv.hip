/* Convolution probe kernels (probes/probe_conv.c), one source for HIP and
 * CUDA: a 3x3 convolution, stride 1, padding 1, NCHW input x (N x C x H x W),
 * KCRS weights w (K x C x 3 x 3), NCHW output y (N x K x H x W) in fp32.
 *
 * Both are implicit GEMMs: y viewed as the K x (N*H*W) product of the
 * weights (K x 9C, row-major as stored) and the im2col matrix of x
 * (9C x N*H*W), whose elements are gathered on the fly, zero in the padding.
 *
 *   conv_fp32       SIMT: 64 output channels x 128 pixels per block, 8-deep
 *                   slices of 9C in shared memory, 4x8 outputs per thread.
 *   conv_fp16       fp16 inputs, fp32 accumulation; NVIDIA tensor cores
 *                   through nvcuda::wmma where portable.h enables them
 *                   (RC_GEMM16_MMA), else the SIMT kernel with fp16 loads.
 *   conv_fp16_info  {variant, threads, tile rows (K), tile columns (pixels),
 *                   slice depth (of 9C)} of the conv_fp16 compiled here.
 * The host launches grid (N*H*W / tile columns, K / tile rows) and only
 * shapes that are multiples of the tiles. */
#ifndef ROCMCHECK_PORTABLE_H
#include "portable.h"
#endif

#define CONV_VARIANT_PLAIN 0
#define CONV_VARIANT_MMA 3            /* as gemm.hip's RC_VARIANT_MMA */

#define CV_BM 64
#define CV_BN 128
#define CV_BK 8
#define CV_THREADS 256

__device__ inline float cv_load(const float *p) { return *p; }
__device__ inline float cv_load(const rc_half *p) { return rc_to_float(*p); }

/* Element (kk, p) of the im2col matrix: kk = c*9 + r*3 + s, p = n*H*W + oh*W + ow. */
template <typename T>
__device__ inline const T *cv_src(const T *x, int kk, int p, int C, int H, int W)
{
	const int c = kk / 9, rs = kk - c * 9, r = rs / 3, s = rs - r * 3;
	const int HW = H * W, n = p / HW, hw = p - n * HW, oh = hw / W, ow = hw - oh * W;
	const int ih = oh + r - 1, iw = ow + s - 1;
	if (ih < 0 || ih >= H || iw < 0 || iw >= W)
		return 0;
	return x + (((size_t)n * C + c) * H + ih) * W + iw;
}

/* y[n][k][hw] for GEMM row k and column p */
__device__ inline void cv_store(float *y, int k, int p, int K, int HW, float v)
{
	const int n = p / HW, hw = p - n * HW;
	y[((size_t)n * K + k) * HW + hw] = v;
}

/* 256 threads as 16 x 16: thread (ty, tx) owns rows ty + 16*i (i < 4) and
 * columns tx + 16*j (j < 8) of the 64 x 128 tile. */
template <typename T>
__device__ inline void conv_simt(const T *__restrict__ x, const T *__restrict__ w, float *__restrict__ y, int C,
				 int H, int W, int K)
{
	__shared__ float As[CV_BK][CV_BM + 4];   /* transposed: As[kk][row] */
	__shared__ float Bs[CV_BK][CV_BN + 4];
	const int tid = (int)threadIdx.x, tx = tid % 16, ty = tid / 16;
	const int row0 = (int)blockIdx.y * CV_BM, col0 = (int)blockIdx.x * CV_BN;
	const int KR = C * 9, HW = H * W;
	float acc[4][8];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;
	for (int k0 = 0; k0 < KR; k0 += CV_BK) {
		for (int q = 0; q < 2; q++) {            /* 64 x 8 weights */
			const int idx = tid + CV_THREADS * q, r = idx / CV_BK, kc = idx % CV_BK;
			As[kc][r] = cv_load(w + (size_t)(row0 + r) * KR + k0 + kc);
		}
		for (int q = 0; q < 4; q++) {            /* 8 x 128 gathered inputs */
			const int idx = tid + CV_THREADS * q, kk = idx / CV_BN, pc = idx % CV_BN;
			const T *src = cv_src(x, k0 + kk, col0 + pc, C, H, W);
			Bs[kk][pc] = src ? cv_load(src) : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < CV_BK; kk++) {
			float av[4], bv[8];
#pragma unroll
			for (int i = 0; i < 4; i++)
				av[i] = As[kk][ty + 16 * i];
#pragma unroll
			for (int j = 0; j < 8; j++)
				bv[j] = Bs[kk][tx + 16 * j];
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] += av[i] * bv[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 8; j++)
			cv_store(y, row0 + ty + 16 * i, col0 + tx + 16 * j, K, HW, acc[i][j]);
}

RC_KERNEL RC_BOUNDS(CV_THREADS) void conv_fp32(const float *__restrict__ x, const float *__restrict__ w,
					       float *__restrict__ y, int N, int C, int H, int W, int K)
{
	(void)N;
	conv_simt<float>(x, w, y, C, H, W, K);
}

#if defined(RC_GEMM16_MMA)
/* NVIDIA tensor cores. 256 threads = 8 warps over a 64 x 128 tile: warp w
 * owns rows 32*(w/4) .. +32 and columns 32*(w%4) .. +32 as 2x2 fragments of
 * 16x16x16. Slices of 32 along 9C: the weights (contiguous along 9C) move
 * as 16-byte vectors, the gathered inputs one by one. Shared rows are padded
 * by 8 halves, keeping the 32-byte alignment wmma needs. Each fragment goes
 * through a per-warp scratch tile to the scattered NCHW output. */
#define CV16_VARIANT CONV_VARIANT_MMA
#define CV16_BM 64
#define CV16_BN 128
#define CV16_BK 32
#define CV16_THREADS 256
#define CVA_LD (CV16_BK + 8)
#define CVB_LD (CV16_BN + 8)

RC_KERNEL RC_BOUNDS(CV16_THREADS) void conv_fp16(const rc_half *__restrict__ x, const rc_half *__restrict__ w,
						 float *__restrict__ y, int N, int C, int H, int W, int K)
{
	using namespace nvcuda;
	__shared__ __align__(32) rc_half As[CV16_BM * CVA_LD];
	__shared__ __align__(32) rc_half Bs[CV16_BK * CVB_LD];
	__shared__ __align__(32) float Cs[CV16_THREADS / 32][16 * 16];
	(void)N;
	const int tid = (int)threadIdx.x, warp = tid / 32, lane = tid % 32;
	const int wr = warp / 4, wc = warp % 4;
	const int row0 = (int)blockIdx.y * CV16_BM, col0 = (int)blockIdx.x * CV16_BN;
	const int KR = C * 9, HW = H * W;
	const rc_half zero = rc_to_half(0.0f);
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
	for (int i = 0; i < 2; i++)
#pragma unroll
		for (int j = 0; j < 2; j++)
			wmma::fill_fragment(acc[i][j], 0.0f);
	for (int k0 = 0; k0 < KR; k0 += CV16_BK) {
		{
			const int r = tid / 4, kq = (tid % 4) * 8;   /* 64 rows x 4 vectors of 8 */
			*(uint4 *)&As[r * CVA_LD + kq] = *(const uint4 *)&w[(size_t)(row0 + r) * KR + k0 + kq];
		}
		for (int q = 0; q < (CV16_BK * CV16_BN) / CV16_THREADS; q++) {
			const int idx = tid + CV16_THREADS * q, kk = idx / CV16_BN, pc = idx % CV16_BN;
			const rc_half *src = cv_src(x, k0 + kk, col0 + pc, C, H, W);
			Bs[kk * CVB_LD + pc] = src ? *src : zero;
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < CV16_BK; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af[2];
			wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> bf[2];
#pragma unroll
			for (int i = 0; i < 2; i++)
				wmma::load_matrix_sync(af[i], &As[(wr * 32 + i * 16) * CVA_LD + kk], CVA_LD);
#pragma unroll
			for (int j = 0; j < 2; j++)
				wmma::load_matrix_sync(bf[j], &Bs[kk * CVB_LD + wc * 32 + j * 16], CVB_LD);
#pragma unroll
			for (int i = 0; i < 2; i++)
#pragma unroll
				for (int j = 0; j < 2; j++)
					wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < 2; i++)
#pragma unroll
		for (int j = 0; j < 2; j++) {
			wmma::store_matrix_sync(Cs[warp], acc[i][j], 16, wmma::mem_row_major);
			__syncwarp();
			for (int t = 0; t < 8; t++) {
				const int e = lane + 32 * t, r = e / 16, c = e % 16;
				cv_store(y, row0 + wr * 32 + i * 16 + r, col0 + wc * 32 + j * 16 + c, K, HW, Cs[warp][e]);
			}
			__syncwarp();
		}
}

#else
#define CV16_VARIANT CONV_VARIANT_PLAIN
#define CV16_BM CV_BM
#define CV16_BN CV_BN
#define CV16_BK CV_BK
#define CV16_THREADS CV_THREADS

RC_KERNEL RC_BOUNDS(CV16_THREADS) void conv_fp16(const rc_half *__restrict__ x, const rc_half *__restrict__ w,
						 float *__restrict__ y, int N, int C, int H, int W, int K)
{
	(void)N;
	conv_simt<rc_half>(x, w, y, C, H, W, K);
}
#endif

RC_KERNEL void conv_fp16_info(int *info)
{
	if (threadIdx.x == 0 && blockIdx.x == 0) {
		info[0] = CV16_VARIANT;
		info[1] = CV16_THREADS;
		info[2] = CV16_BM;
		info[3] = CV16_BN;
		info[4] = CV16_BK;
	}
}
