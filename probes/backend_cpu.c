/* The cpu backend: the operations of backend.h in plain C, so the whole
 * probe harness (inputs, launch, timing, verification, watchdog) runs on a
 * machine without a GPU. Its "kernels" are C functions registered by name
 * that take the same argument layout as the GPU kernels in kernels/. */
#include "backend.h"
#include "probe.h"

#include <errno.h>
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

struct cpu_kernel {
	const char *name;
	cpu_kernel_fn fn;
};

static const struct cpu_kernel cpu_kernels[] = {
	{ "gemm_fp32", cpu_gemm_fp32 },
	{ "gemm_fp16", cpu_gemm_fp16 },
	{ "gemm_fp16_info", cpu_gemm_fp16_info },
	{ "rtc_axpy", cpu_rtc_axpy },
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
	p->units = 1;
	p->warp_size = 1;
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

static int cpu_launch(struct backend *b, void *fn, const unsigned grid[3], const unsigned block[3],
		      unsigned shared_bytes, void **args)
{
	(void)b, (void)shared_bytes;
	const struct cpu_kernel *k = fn;
	k->fn(grid, block, args);
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
	clock_gettime(CLOCK_MONOTONIC, ev);
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
