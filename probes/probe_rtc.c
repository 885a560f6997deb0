/* rtc: compile a tiny kernel with the runtime compiler (hiprtc / nvrtc) for
 * this exact device, load it, run it, and check every element: the JIT path
 * frameworks use (PyTorch's jiterator, Triton's loaders, MIOpen). */
#include "kernels_embedded.h"
#include "harness.h"
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct axpy {
	const float *x, *y0;
	float a;
};

/* y = a*x + y in fp32: one product and one sum, each rounded once (or one
 * fused rounding), so |error| <= 2u (|a x| + |y|) with u = 2^-24. */
static double axpy_expect(const void *ctx, size_t i, double *bound)
{
	const struct axpy *p = ctx;
	double ax = (double)p->a * p->x[i];
	*bound = 2.0 * 0x1p-24 * (fabs(ax) + fabs((double)p->y0[i])) + 1e-300;
	return ax + p->y0[i];
}

void probe_rtc(struct probe_ctx *pc, struct probe_outcome *out)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	const char *compiler = ops->rtc_name ? ops->rtc_name : "none";
	void *img = NULL, *mod = NULL, *fn = NULL;
	size_t len = 0;
	char *log = NULL;
	bk_ptr dx = 0, dy = 0;
	float *x = NULL, *y = NULL, *got = NULL;
	snprintf(out->variant, sizeof(out->variant), "%s", compiler);

	double t0 = monotonic_s();
	int rc = ops->rtc_compile(b, rc_kernels_rtc_source, "rtc_axpy", pc->props.arch, &img, &len, &log);
	double t_compile = monotonic_s() - t0;
	if (rc == -ENOSYS) {
		out->status = ST_SKIP;
		snprintf(out->summary, sizeof(out->summary), "no runtime compiler: %s", b->err_text);
		goto out;
	}
	if (rc < 0) {
		out->status = ST_FAIL;
		char *l = log ? str_trim(log) : NULL;
		snprintf(out->summary, sizeof(out->summary), "%s could not compile a kernel for %s: %s%s%.200s",
			 compiler, pc->props.arch, b->err_text, l && *l ? "; log: " : "", l ? l : "");
		snprintf(out->fix, sizeof(out->fix),
			 "Runtime compilation is what PyTorch, Triton and MIOpen use. Check that the runtime "
			 "compiler matches the runtime (ROCm: libhiprtc and libamd_comgr of the same release; "
			 "CUDA: libnvrtc of a release the driver supports).");
		goto out;
	}
	if (ops->module_load(b, img, len, &mod) < 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "the %s output for %s does not load: %s", compiler,
			 pc->props.arch, b->err_text);
		goto out;
	}
	if (ops->get_function(b, mod, "rtc_axpy", &fn) < 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "%s", b->err_text);
		goto out;
	}
	int n = 1 << 20;
	float a = 0.75f;
	x = xmalloc(sizeof(float) * (size_t)n);
	y = xmalloc(sizeof(float) * (size_t)n);
	got = xmalloc(sizeof(float) * (size_t)n);
	struct prng pr;
	prng_seed(&pr, pc->job->seed ^ 0xa59eULL);
	for (int i = 0; i < n; i++) {
		x[i] = (float)prng_grid(&pr, 1u << 20);
		y[i] = (float)prng_grid(&pr, 1u << 20);
	}
	if (ops->alloc(b, sizeof(float) * (size_t)n, &dx) < 0 || ops->alloc(b, sizeof(float) * (size_t)n, &dy) < 0 ||
	    ops->copy_h2d(b, dx, x, sizeof(float) * (size_t)n) < 0 ||
	    ops->copy_h2d(b, dy, y, sizeof(float) * (size_t)n) < 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "device memory: %s", b->err_text);
		goto out;
	}
	unsigned grid[3] = { (unsigned)(n + 255) / 256, 1, 1 }, block[3] = { 256, 1, 1 };
	void *args[] = { &dx, &dy, &a, &n };
	if (ops->launch(b, fn, grid, block, 0, args) < 0 || ops->synchronize(b) < 0 ||
	    ops->copy_d2h(b, got, dy, sizeof(float) * (size_t)n) < 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "running the compiled kernel: %s", b->err_text);
		goto out;
	}
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_output("rtc", got, (size_t)n);
#endif
	struct axpy ax = { x, y, a };
	struct verify_result v;
	verify_elementwise(got, (size_t)n, axpy_expect, &ax, &v);
	out->seconds = t_compile;
	char what[200];
	snprintf(what, sizeof(what), "rtc_axpy compiled by %s for %s in %.2f s (%zu bytes), %d elements", compiler,
		 pc->props.arch, t_compile, len, n);
	probe_judge(out, &v, 0, what);
out:
	if (dx)
		ops->free(b, dx);
	if (dy)
		ops->free(b, dy);
	if (mod)
		ops->module_unload(b, mod);
	free(img);
	free(log);
	free(x);
	free(y);
	free(got);
}
