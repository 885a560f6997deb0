/* The elementwise kernels of the mixed-precision training step
 * (probes/probe_amp.c); its GEMMs are gemm_fp16 / gemm_fp32 of gemm.hip.
 * Each _f16 / _f32 pair is the same operation storing fp16 (the autocast
 * path) or fp32 (the fp32 step it is compared with). Every kernel takes n
 * elements, one per thread, except the transposes (32 x 8 threads over
 * 32 x 32 tiles; rows and columns multiples of 32) and amp_update_scale
 * (one thread). */
#ifndef ROCMCHECK_PORTABLE_H
#include "portable.h"
#endif

#define AMP_THREADS 256

__device__ inline float amp_ld(const float *p) { return *p; }
__device__ inline float amp_ld(const rc_half *p) { return rc_to_float(*p); }
__device__ inline void amp_st(float *p, float v) { *p = v; }
__device__ inline void amp_st(rc_half *p, float v) { *p = rc_to_half(v); }

__device__ inline int amp_index(void) { return (int)(blockIdx.x * blockDim.x + threadIdx.x); }

/* master weights (fp32) -> their fp16 copies for the forward pass */
RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_cast_f16(const float *in, rc_half *out, int n)
{
	int i = amp_index();
	if (i < n)
		out[i] = rc_to_half(in[i]);
}

template <typename T>
__device__ inline void amp_transpose(const T *in, T *out, int rows, int cols)
{
	__shared__ T tile[32][33];
	const int c0 = (int)blockIdx.x * 32, r0 = (int)blockIdx.y * 32;
	const int tx = (int)threadIdx.x, ty = (int)threadIdx.y;
	for (int k = 0; k < 32; k += 8)
		tile[ty + k][tx] = in[(size_t)(r0 + ty + k) * cols + c0 + tx];
	__syncthreads();
	for (int k = 0; k < 32; k += 8)
		out[(size_t)(c0 + ty + k) * rows + r0 + tx] = tile[tx][ty + k];
}

/* out (cols x rows) = in (rows x cols) transposed; grid (cols/32, rows/32), block (32, 8) */
RC_KERNEL void amp_transpose_f16(const rc_half *in, rc_half *out, int rows, int cols)
{
	amp_transpose<rc_half>(in, out, rows, cols);
}

RC_KERNEL void amp_transpose_f32(const float *in, float *out, int rows, int cols)
{
	amp_transpose<float>(in, out, rows, cols);
}

/* h = relu(z) */
RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_relu_f16(const float *z, rc_half *h, int n)
{
	int i = amp_index();
	if (i < n)
		amp_st(h + i, z[i] > 0.0f ? z[i] : 0.0f);
}

RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_relu_f32(const float *z, float *h, int n)
{
	int i = amp_index();
	if (i < n)
		amp_st(h + i, z[i] > 0.0f ? z[i] : 0.0f);
}

/* gradient of the loss 1/(2B) sum (o - y)^2, scaled: d = ((o - y) * S) * (1/B),
 * with the loss scale S read from the device (the scaler's state) */
RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_loss_grad_f16(const float *o, const float *y, rc_half *d, int n,
							const float *scale, float inv_batch)
{
	int i = amp_index();
	if (i < n) {
		float t = (o[i] - y[i]) * scale[0];
		amp_st(d + i, t * inv_batch);
	}
}

RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_loss_grad_f32(const float *o, const float *y, float *d, int n,
							const float *scale, float inv_batch)
{
	int i = amp_index();
	if (i < n) {
		float t = (o[i] - y[i]) * scale[0];
		amp_st(d + i, t * inv_batch);
	}
}

/* backward through the ReLU: dz = h > 0 ? dh : 0 */
RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_mask_f16(const float *dh, const rc_half *h, rc_half *dz, int n)
{
	int i = amp_index();
	if (i < n)
		amp_st(dz + i, amp_ld(h + i) > 0.0f ? dh[i] : 0.0f);
}

RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_mask_f32(const float *dh, const float *h, float *dz, int n)
{
	int i = amp_index();
	if (i < n)
		amp_st(dz + i, amp_ld(h + i) > 0.0f ? dh[i] : 0.0f);
}

/* GradScaler's unscale with the non-finite check, over every gradient
 * element: g = g_in (rounded to fp16 first when round16: the dtype of an
 * autocast matmul's output) * (1/S); any NaN or infinity sets found_inf. */
RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_unscale_check(const float *g_in, float *g_out, int n, const float *scale,
							float *found_inf, int round16)
{
	int i = amp_index();
	if (i < n) {
		float v = g_in[i];
		if (round16)
			v = rc_to_float(rc_to_half(v));
		v = v * (1.0f / scale[0]);
		if (!rc_isfinite(v))
			found_inf[0] = 1.0f;
		g_out[i] = v;
	}
}

/* SGD on the fp32 master weights, skipped on the device when found_inf is set */
RC_KERNEL RC_BOUNDS(AMP_THREADS) void amp_sgd(float *w, const float *g, int n, float lr, const float *found_inf)
{
	int i = amp_index();
	if (i < n && found_inf[0] == 0.0f)
		w[i] = rc_fma(-lr, g[i], w[i]);
}

/* The scaler's update (PyTorch's defaults: growth 2, backoff 0.5): on an
 * overflow halve S and restart the count, else count the clean step and
 * double S after `interval` of them. Records {found_inf, S after} for the
 * step in hist and clears found_inf for the next step. One thread. */
RC_KERNEL void amp_update_scale(float *scale, int *tracker, float *found_inf, float *hist, int step, int interval)
{
	if (threadIdx.x != 0 || blockIdx.x != 0)
		return;
	float f = found_inf[0];
	if (f != 0.0f) {
		scale[0] = scale[0] * 0.5f;
		tracker[0] = 0;
	} else {
		int t = tracker[0] + 1;
		if (t >= interval) {
			scale[0] = scale[0] * 2.0f;
			t = 0;
		}
		tracker[0] = t;
	}
	hist[2 * step] = f;
	hist[2 * step + 1] = scale[0];
	found_inf[0] = 0.0f;
}
