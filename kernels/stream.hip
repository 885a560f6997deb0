/* Memory bandwidth kernels, BabelStream-style (probes/probe_bandwidth.c):
 * copy c = a and triad a = b + s*c over arrays far larger than the last
 * level cache, 128-bit accesses, one vector of four per thread. The inputs
 * are a closed-form pattern on a 2^-16 grid in [0, 1) that the host
 * recomputes, and with s = 0.375 every triad result is exact in fp32 (see
 * probe_bandwidth.c), so the host compares every element for equality. */
#ifndef ROCMCHECK_PORTABLE_H
#include "portable.h"
#endif

#define STREAM_THREADS 256

/* The same as stream_pattern() in probes/probe_bandwidth.c. */
__device__ inline float stream_pattern(unsigned i, unsigned mul, unsigned add)
{
	return (float)((i * mul + add) >> 16) * (1.0f / 65536.0f);
}

/* a[i] = pattern A, b[i] = pattern B, c[i] = 0; n4 vectors of four. */
RC_KERNEL RC_BOUNDS(STREAM_THREADS) void stream_init(rc_float4 *a, rc_float4 *b, rc_float4 *c, long long n4)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v >= n4)
		return;
	unsigned i = (unsigned)(v * 4);
	rc_float4 x, y, z;
	x.x = stream_pattern(i, 2654435761u, 0u);
	x.y = stream_pattern(i + 1, 2654435761u, 0u);
	x.z = stream_pattern(i + 2, 2654435761u, 0u);
	x.w = stream_pattern(i + 3, 2654435761u, 0u);
	y.x = stream_pattern(i, 2246822519u, 12345u);
	y.y = stream_pattern(i + 1, 2246822519u, 12345u);
	y.z = stream_pattern(i + 2, 2246822519u, 12345u);
	y.w = stream_pattern(i + 3, 2246822519u, 12345u);
	z.x = z.y = z.z = z.w = 0.0f;
	a[v] = x;
	b[v] = y;
	c[v] = z;
}

RC_KERNEL RC_BOUNDS(STREAM_THREADS) void stream_copy(const rc_float4 *__restrict__ a, rc_float4 *__restrict__ c,
						     long long n4)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v < n4)
		c[v] = a[v];
}

RC_KERNEL RC_BOUNDS(STREAM_THREADS) void stream_triad(rc_float4 *__restrict__ a, const rc_float4 *__restrict__ b,
						      const rc_float4 *__restrict__ c, float s, long long n4)
{
	long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (v < n4) {
		rc_float4 x = b[v], y = c[v], r;
		r.x = x.x + s * y.x;
		r.y = x.y + s * y.y;
		r.z = x.z + s * y.z;
		r.w = x.w + s * y.w;
		a[v] = r;
	}
}
