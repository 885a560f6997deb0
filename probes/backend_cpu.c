/* The cpu backend: the operations of backend.h in plain C, so the whole
 * probe harness (inputs, launch, timing, verification, watchdog) runs on a
 * machine without a GPU. Its "kernels" are C functions registered by name
 * that take the same argument layout as the GPU kernels in kernels/. */
#include "backend.h"
#include "gemm_dev.h"
#include "harness.h"
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*cpu_kernel_fn)(const unsigned grid[3], const unsigned block[3], void **args);

static const void *argp(void **args, int i)
{
	return args[i];
}

static void *arg_ptr(void **args, int i)
{
	bk_ptr p;
	memcpy(&p, argp(args, i), sizeof(p));
	return (void *)(uintptr_t)p;
}

static int arg_int(void **args, int i)
{
	int v;
	memcpy(&v, argp(args, i), sizeof(v));
	return v;
}

static long long arg_ll(void **args, int i)
{
	long long v;
	memcpy(&v, argp(args, i), sizeof(v));
	return v;
}

static float arg_float(void **args, int i)
{
	float v;
	memcpy(&v, argp(args, i), sizeof(v));
	return v;
}

/* fp16 array -> new float array (NULL when out of memory) */
static float *halves_to_floats(const uint16_t *h, size_t n)
{
	float *f = malloc(sizeof(float) * (n ? n : 1));
	if (f)
		for (size_t i = 0; i < n; i++)
			f[i] = half_to_float(h[i]);
	return f;
}

/* gemm_fp32(const float *A, const float *B, float *C, int M, int N, int K):
 * row-major C = A * B, accumulated in float like the GPU kernel. */
static void cpu_gemm_fp32(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	const float *A = arg_ptr(args, 0), *B = arg_ptr(args, 1);
	float *C = arg_ptr(args, 2);
	int M = arg_int(args, 3), N = arg_int(args, 4), K = arg_int(args, 5);
	for (int i = 0; i < M; i++) {
		float *c = C + (size_t)i * N;
		for (int j = 0; j < N; j++)
			c[j] = 0.0f;
		for (int k = 0; k < K; k++) {
			float a = A[(size_t)i * K + k];
			const float *b = B + (size_t)k * N;
			for (int j = 0; j < N; j++)
				c[j] += a * b[j];
		}
	}
}

/* gemm_fp16(const half *A, const half *B, float *C, int M, int N, int K):
 * fp16 inputs, fp32 accumulation. */
static void cpu_gemm_fp16(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	const uint16_t *A = arg_ptr(args, 0), *B = arg_ptr(args, 1);
	float *C = arg_ptr(args, 2);
	int M = arg_int(args, 3), N = arg_int(args, 4), K = arg_int(args, 5);
	float *brow = malloc(sizeof(float) * (size_t)N);
	if (!brow)
		return;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++)
			C[(size_t)i * N + j] = 0.0f;
	for (int k = 0; k < K; k++) {
		for (int j = 0; j < N; j++)
			brow[j] = half_to_float(B[(size_t)k * N + j]);
		for (int i = 0; i < M; i++) {
			float a = half_to_float(A[(size_t)i * K + k]);
			float *c = C + (size_t)i * N;
			for (int j = 0; j < N; j++)
				c[j] += a * brow[j];
		}
	}
	free(brow);
}

/* gemm_fp16_info(int *info): variant, threads per block, tile rows, tile columns. */
static void cpu_gemm_fp16_info(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	int *info = arg_ptr(args, 0);
	info[0] = GEMM16_VARIANT_CPU;
	info[1] = 1;
	info[2] = 1;
	info[3] = 1;
}

/* rtc_axpy(const float *x, float *y, float a, int n): y = a*x + y, the same
 * as the runtime-compiled kernel of kernels/rtc_axpy.hip. */
static void cpu_rtc_axpy(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	const float *x = arg_ptr(args, 0);
	float *y = arg_ptr(args, 1);
	float a;
	memcpy(&a, argp(args, 2), sizeof(a));
	int n = arg_int(args, 3);
	for (int i = 0; i < n; i++)
		y[i] = a * x[i] + y[i];
}

/* ---- kernels/conv.hip ---- */

/* 3x3, stride 1, padding 1, NCHW in and out, KCRS weights, float sums */
static void conv_direct(const float *x, const float *w, float *y, int N, int C, int H, int W, int K)
{
	const size_t HW = (size_t)H * W;
	for (int n = 0; n < N; n++)
		for (int k = 0; k < K; k++) {
			float *out = y + ((size_t)n * K + k) * HW;
			for (size_t i = 0; i < HW; i++)
				out[i] = 0.0f;
			for (int c = 0; c < C; c++) {
				const float *in = x + ((size_t)n * C + c) * HW;
				for (int r = 0; r < 3; r++)
					for (int s = 0; s < 3; s++) {
						float wv = w[(((size_t)k * C + c) * 3 + r) * 3 + s];
						for (int oh = 0; oh < H; oh++) {
							int ih = oh + r - 1;
							if (ih < 0 || ih >= H)
								continue;
							for (int ow = 0; ow < W; ow++) {
								int iw = ow + s - 1;
								if (iw >= 0 && iw < W)
									out[(size_t)oh * W + ow] += wv * in[(size_t)ih * W + iw];
							}
						}
					}
			}
		}
}

/* conv_fp32(const float *x, const float *w, float *y, int N, int C, int H, int W, int K) */
static void cpu_conv_fp32(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	conv_direct(arg_ptr(args, 0), arg_ptr(args, 1), arg_ptr(args, 2), arg_int(args, 3), arg_int(args, 4),
		    arg_int(args, 5), arg_int(args, 6), arg_int(args, 7));
}

/* conv_fp16: the same with fp16 x and w, float sums */
static void cpu_conv_fp16(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	int N = arg_int(args, 3), C = arg_int(args, 4), H = arg_int(args, 5), W = arg_int(args, 6),
	    K = arg_int(args, 7);
	float *x = halves_to_floats(arg_ptr(args, 0), (size_t)N * C * H * W);
	float *w = halves_to_floats(arg_ptr(args, 1), (size_t)K * C * 9);
	if (x && w)
		conv_direct(x, w, arg_ptr(args, 2), N, C, H, W, K);
	free(x);
	free(w);
}

/* conv_fp16_info(int *info): variant, threads, tile rows, tile columns, slice */
static void cpu_conv_fp16_info(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	int *info = arg_ptr(args, 0);
	info[0] = GEMM16_VARIANT_CPU;
	info[1] = info[2] = info[3] = info[4] = 1;
}

/* ---- kernels/stream.hip ---- */

static float stream_pattern_cpu(uint32_t i, uint32_t mul, uint32_t add)
{
	return (float)((uint32_t)(i * mul + add) >> 16) * (1.0f / 65536.0f);
}

/* stream_init(a, b, c, long long n4) */
static void cpu_stream_init(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	float *a = arg_ptr(args, 0), *b = arg_ptr(args, 1), *c = arg_ptr(args, 2);
	size_t n = (size_t)arg_ll(args, 3) * 4;
	for (size_t i = 0; i < n; i++) {
		a[i] = stream_pattern_cpu((uint32_t)i, 2654435761u, 0u);
		b[i] = stream_pattern_cpu((uint32_t)i, 2246822519u, 12345u);
		c[i] = 0.0f;
	}
}

/* stream_copy(const a, c, long long n4) */
static void cpu_stream_copy(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	memcpy(arg_ptr(args, 1), arg_ptr(args, 0), (size_t)arg_ll(args, 2) * 4 * sizeof(float));
}

/* stream_triad(a, const b, const c, float s, long long n4): a = b + s*c */
static void cpu_stream_triad(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	float *a = arg_ptr(args, 0);
	const float *b = arg_ptr(args, 1), *c = arg_ptr(args, 2);
	float s = arg_float(args, 3);
	size_t n = (size_t)arg_ll(args, 4) * 4;
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] + s * c[i];
}

/* ---- kernels/amp.hip ---- */

static void cpu_amp_cast_f16(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	const float *in = arg_ptr(args, 0);
	uint16_t *out = arg_ptr(args, 1);
	int n = arg_int(args, 2);
	for (int i = 0; i < n; i++)
		out[i] = float_to_half(in[i]);
}

static void cpu_amp_transpose(void **args, size_t esz)
{
	const char *in = arg_ptr(args, 0);
	char *out = arg_ptr(args, 1);
	int rows = arg_int(args, 2), cols = arg_int(args, 3);
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++)
			memcpy(out + ((size_t)c * rows + r) * esz, in + ((size_t)r * cols + c) * esz, esz);
}

static void cpu_amp_transpose_f16(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	cpu_amp_transpose(args, 2);
}

static void cpu_amp_transpose_f32(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	cpu_amp_transpose(args, 4);
}

/* store v as fp16 (half != 0) or fp32 at element i */
static void amp_store(void *p, int i, float v, bool half)
{
	if (half)
		((uint16_t *)p)[i] = float_to_half(v);
	else
		((float *)p)[i] = v;
}

static float amp_load(const void *p, int i, bool half)
{
	return half ? half_to_float(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

static void cpu_amp_relu(void **args, bool half)
{
	const float *z = arg_ptr(args, 0);
	void *h = arg_ptr(args, 1);
	int n = arg_int(args, 2);
	for (int i = 0; i < n; i++)
		amp_store(h, i, z[i] > 0.0f ? z[i] : 0.0f, half);
}

static void cpu_amp_relu_f16(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	cpu_amp_relu(args, true);
}

static void cpu_amp_relu_f32(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	cpu_amp_relu(args, false);
}

static void cpu_amp_loss_grad(void **args, bool half)
{
	const float *o = arg_ptr(args, 0), *y = arg_ptr(args, 1);
	void *d = arg_ptr(args, 2);
	int n = arg_int(args, 3);
	const float *scale = arg_ptr(args, 4);
	float inv_batch = arg_float(args, 5);
	for (int i = 0; i < n; i++) {
		float t = (o[i] - y[i]) * scale[0];
		amp_store(d, i, t * inv_batch, half);
	}
}

static void cpu_amp_loss_grad_f16(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	cpu_amp_loss_grad(args, true);
}

static void cpu_amp_loss_grad_f32(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	cpu_amp_loss_grad(args, false);
}

static void cpu_amp_mask(void **args, bool half)
{
	const float *dh = arg_ptr(args, 0);
	const void *h = arg_ptr(args, 1);
	void *dz = arg_ptr(args, 2);
	int n = arg_int(args, 3);
	for (int i = 0; i < n; i++)
		amp_store(dz, i, amp_load(h, i, half) > 0.0f ? dh[i] : 0.0f, half);
}

static void cpu_amp_mask_f16(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	cpu_amp_mask(args, true);
}

static void cpu_amp_mask_f32(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	cpu_amp_mask(args, false);
}

/* amp_unscale_check(g_in, g_out, n, scale, found_inf, round16) */
static void cpu_amp_unscale_check(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	const float *g_in = arg_ptr(args, 0);
	float *g_out = arg_ptr(args, 1);
	int n = arg_int(args, 2);
	const float *scale = arg_ptr(args, 3);
	float *found_inf = arg_ptr(args, 4);
	int round16 = arg_int(args, 5);
	bool detect = true;
#ifdef ROCMCHECK_TEST_HOOKS
	detect = !probe_test_fault_is("amp_nodetect");   /* a device whose check misses overflows */
#endif
	for (int i = 0; i < n; i++) {
		float v = g_in[i];
		if (round16)
			v = half_to_float(float_to_half(v));
		v = v * (1.0f / scale[0]);
		if (!isfinite(v) && detect)
			found_inf[0] = 1.0f;
		g_out[i] = v;
	}
}

/* amp_sgd(w, g, n, lr, found_inf) */
static void cpu_amp_sgd(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	float *w = arg_ptr(args, 0);
	const float *g = arg_ptr(args, 1);
	int n = arg_int(args, 2);
	float lr = arg_float(args, 3);
	const float *found_inf = arg_ptr(args, 4);
	if (found_inf[0] != 0.0f)
		return;
	for (int i = 0; i < n; i++)
		w[i] = fma_f32(-lr, g[i], w[i]);
}

/* amp_update_scale(scale, tracker, found_inf, hist, step, interval) */
static void cpu_amp_update_scale(const unsigned grid[3], const unsigned block[3], void **args)
{
	(void)grid, (void)block;
	float *scale = arg_ptr(args, 0);
	int *tracker = arg_ptr(args, 1);
	float *found_inf = arg_ptr(args, 2);
	float *hist = arg_ptr(args, 3);
	int step = arg_int(args, 4), interval = arg_int(args, 5);
	float f = found_inf[0];
	if (f != 0.0f) {
		scale[0] *= 0.5f;
		tracker[0] = 0;
	} else if (++tracker[0] >= interval) {
		scale[0] *= 2.0f;
		tracker[0] = 0;
	}
	hist[2 * step] = f;
	hist[2 * step + 1] = scale[0];
	found_inf[0] = 0.0f;
}

struct cpu_kernel {
	const char *name;
	cpu_kernel_fn fn;
};

static const struct cpu_kernel cpu_kernels[] = {
	{ "gemm_fp32", cpu_gemm_fp32 },
	{ "gemm_fp16", cpu_gemm_fp16 },
	{ "gemm_fp16_info", cpu_gemm_fp16_info },
	{ "rtc_axpy", cpu_rtc_axpy },
	{ "conv_fp32", cpu_conv_fp32 },
	{ "conv_fp16", cpu_conv_fp16 },
	{ "conv_fp16_info", cpu_conv_fp16_info },
	{ "stream_init", cpu_stream_init },
	{ "stream_copy", cpu_stream_copy },
	{ "stream_triad", cpu_stream_triad },
	{ "amp_cast_f16", cpu_amp_cast_f16 },
	{ "amp_transpose_f16", cpu_amp_transpose_f16 },
	{ "amp_transpose_f32", cpu_amp_transpose_f32 },
	{ "amp_relu_f16", cpu_amp_relu_f16 },
	{ "amp_relu_f32", cpu_amp_relu_f32 },
	{ "amp_loss_grad_f16", cpu_amp_loss_grad_f16 },
	{ "amp_loss_grad_f32", cpu_amp_loss_grad_f32 },
	{ "amp_mask_f16", cpu_amp_mask_f16 },
	{ "amp_mask_f32", cpu_amp_mask_f32 },
	{ "amp_unscale_check", cpu_amp_unscale_check },
	{ "amp_sgd", cpu_amp_sgd },
	{ "amp_update_scale", cpu_amp_update_scale },
};

/* What module_load accepts: the cpu "image" is this table's tag. */
const char cpu_kernel_image[] = "rocmcheck-cpu-kernels";

static int cpu_load(struct backend *b)
{
	snprintf(b->lib_path, sizeof(b->lib_path), "(built in)");
	return 0;
}

static int cpu_init(struct backend *b)
{
	(void)b;
	return 0;
}

static int cpu_versions(struct backend *b, int *runtime, int *driver)
{
	(void)b;
	*runtime = *driver = -1;
	return 0;
}

static int cpu_device_count(struct backend *b, int *n)
{
	(void)b;
	*n = 1;
	return 0;
}

static int cpu_device_props(struct backend *b, int dev, struct backend_props *p)
{
	if (dev != 0)
		return backend_fail(b, -ENODEV, "cpu backend has one device, not %d", dev);
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "host CPU");
	snprintf(p->arch, sizeof(p->arch), "cpu");
	return 0;
}

static int cpu_set_device(struct backend *b, int dev)
{
	return dev == 0 ? 0 : backend_fail(b, -ENODEV, "cpu backend has one device, not %d", dev);
}

static int cpu_alloc(struct backend *b, size_t bytes, bk_ptr *out)
{
	void *p = calloc(1, bytes ? bytes : 1);
	if (!p)
		return backend_fail(b, -ENOMEM, "out of host memory (%zu bytes)", bytes);
	*out = (bk_ptr)(uintptr_t)p;
	return 0;
}

static int cpu_free(struct backend *b, bk_ptr p)
{
	(void)b;
	free((void *)(uintptr_t)p);
	return 0;
}

/* ROCMCHECK_TEST_FAULT=nowrite: kernels that return without writing their
 * output (and device copies that move nothing); nowrite_late: kernels that
 * write on their first launch only; nocopy: device copies that move nothing. Launch-shape queries and stream_init
 * work, so each probe gets as far as its results. */
#ifdef ROCMCHECK_TEST_HOOKS
static bool test_fault_is(const char *f)
{
	return probe_test_fault_is(f);
}

static bool writes_nothing(const struct cpu_kernel *k)
{
	static unsigned long launches[ARRAY_SIZE(cpu_kernels)];
	size_t i = (size_t)(k - cpu_kernels);
	bool first = i < ARRAY_SIZE(cpu_kernels) && launches[i]++ == 0;
	if (str_endswith(k->name, "_info") || !strcmp(k->name, "stream_init"))
		return false;
	return test_fault_is("nowrite") || (test_fault_is("nowrite_late") && !first);
}
#else
static bool test_fault_is(const char *f)
{
	(void)f;
	return false;
}

static bool writes_nothing(const struct cpu_kernel *k)
{
	(void)k;
	return false;
}
#endif

static int cpu_copy_h2d(struct backend *b, bk_ptr dst, const void *src, size_t bytes)
{
	(void)b;
	memcpy((void *)(uintptr_t)dst, src, bytes);
	return 0;
}

static int cpu_copy_d2h(struct backend *b, void *dst, bk_ptr src, size_t bytes)
{
	(void)b;
	memcpy(dst, (const void *)(uintptr_t)src, bytes);
	return 0;
}

static int cpu_copy_d2d(struct backend *b, bk_ptr dst, bk_ptr src, size_t bytes)
{
	(void)b;
	if (test_fault_is("nowrite") || test_fault_is("nocopy"))
		return 0;              /* a copy engine that moves nothing */
	memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
	return 0;
}

static int cpu_host_alloc(struct backend *b, size_t bytes, void **out)
{
	*out = malloc(bytes ? bytes : 1);
	return *out ? 0 : backend_fail(b, -ENOMEM, "out of host memory (%zu bytes)", bytes);
}

static int cpu_host_free(struct backend *b, void *p)
{
	(void)b;
	free(p);
	return 0;
}

static int cpu_module_load(struct backend *b, const void *image, size_t len, void **mod)
{
	if (!image || len != sizeof(cpu_kernel_image) || memcmp(image, cpu_kernel_image, len) != 0)
		return backend_fail(b, -EINVAL, "not a cpu kernel table");
	*mod = (void *)cpu_kernels;
	return 0;
}

static int cpu_module_unload(struct backend *b, void *mod)
{
	(void)b, (void)mod;
	return 0;
}

static int cpu_get_function(struct backend *b, void *mod, const char *name, void **fn)
{
	(void)mod;
	for (size_t i = 0; i < ARRAY_SIZE(cpu_kernels); i++) {
		if (!strcmp(cpu_kernels[i].name, name)) {
			*fn = (void *)&cpu_kernels[i];
			return 0;
		}
	}
	return backend_fail(b, -ENOENT, "no cpu kernel named %s", name);
}

#ifdef ROCMCHECK_TEST_HOOKS
/* Seconds the throttle fault has added to the event clock. */
static double throttle_extra;

/* ROCMCHECK_TEST_FAULT=throttle: a device that clocks down once it has run
 * for a while, as a GPU at its thermal or power limit does. Turned on half
 * way through a sustained run (probe_sustained.c); from then on every
 * launch takes 10 s more on the event clock. The time is added to the
 * clock, not slept: a real slowdown of a few times drowns in the noise of a
 * loaded test machine (seen: 25% to 46% where 12% was meant), and a switch
 * at a fixed time after the first launch can fall before the timed loop
 * when the warm-up is slow (seen under ASan). */
static bool throttling;

void backend_cpu_test_throttle(bool on)
{
	throttling = on;
}
#endif

static int cpu_launch(struct backend *b, void *fn, const unsigned grid[3], const unsigned block[3],
		      unsigned shared_bytes, void **args)
{
	(void)b, (void)shared_bytes;
	const struct cpu_kernel *k = fn;
	if (writes_nothing(k))
		return 0;
	k->fn(grid, block, args);
#ifdef ROCMCHECK_TEST_HOOKS
	if (throttling)
		throttle_extra += 10.0;
#endif
	return 0;
}

static int cpu_event_create(struct backend *b, void **ev)
{
	struct timespec *ts = calloc(1, sizeof(*ts));
	if (!ts)
		return backend_fail(b, -ENOMEM, "out of memory");
	*ev = ts;
	return 0;
}

static int cpu_event_record(struct backend *b, void *ev)
{
	(void)b;
	struct timespec *ts = ev;
	clock_gettime(CLOCK_MONOTONIC, ts);
#ifdef ROCMCHECK_TEST_HOOKS
	if (throttle_extra > 0) {
		double whole = floor(throttle_extra);
		ts->tv_sec += (time_t)whole;
		ts->tv_nsec += (long)((throttle_extra - whole) * 1e9);
		if (ts->tv_nsec >= 1000000000L) {
			ts->tv_sec++;
			ts->tv_nsec -= 1000000000L;
		}
	}
#endif
	return 0;
}

static int cpu_event_elapsed(struct backend *b, void *start, void *end, float *ms)
{
	(void)b;
	const struct timespec *s = start, *e = end;
	*ms = (float)((double)(e->tv_sec - s->tv_sec) * 1e3 + (double)(e->tv_nsec - s->tv_nsec) / 1e6);
	return 0;
}

static int cpu_event_destroy(struct backend *b, void *ev)
{
	(void)b;
	free(ev);
	return 0;
}

static int cpu_synchronize(struct backend *b)
{
	(void)b;
	return 0;
}

static int cpu_rtc_compile(struct backend *b, const char *source, const char *name, const char *arch,
			   void **image, size_t *len, char **log)
{
	(void)source, (void)name, (void)arch, (void)image, (void)len;
	*log = NULL;
	return backend_fail(b, -ENOSYS, "the cpu backend has no runtime compiler");
}

static void cpu_unload(struct backend *b)
{
	(void)b;
}

const struct backend_ops backend_cpu_ops = {
	.name = "cpu",
	.traits = BK_HOST_REFERENCE,
	.vendor = BK_VENDOR_NONE,
	.image = BK_IMAGE_HOST_TABLE,
	.runtime_checks = "",
	.load = cpu_load,
	.init = cpu_init,
	.versions = cpu_versions,
	.device_count = cpu_device_count,
	.device_props = cpu_device_props,
	.set_device = cpu_set_device,
	.alloc = cpu_alloc,
	.free = cpu_free,
	.copy_h2d = cpu_copy_h2d,
	.copy_d2h = cpu_copy_d2h,
	.copy_d2d = cpu_copy_d2d,
	.host_alloc = cpu_host_alloc,
	.host_free = cpu_host_free,
	.module_load = cpu_module_load,
	.module_unload = cpu_module_unload,
	.get_function = cpu_get_function,
	.launch = cpu_launch,
	.event_create = cpu_event_create,
	.event_record = cpu_event_record,
	.event_elapsed = cpu_event_elapsed,
	.event_destroy = cpu_event_destroy,
	.synchronize = cpu_synchronize,
	.rtc_compile = cpu_rtc_compile,
	.unload = cpu_unload,
};
