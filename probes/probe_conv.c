/* conv.fp32 and conv.fp16: the 3x3 convolution of a ResNet-50 stage-2
 * layer (C = K = 64 channels, 56x56, stride 1, padding 1; batch 8 at
 * `small`) with our kernels (kernels/conv.hip), timed with events and
 * checked against the exact convolution in double precision.
 *
 * Verification: a convolution is the product of the weights (K x 9C) and
 * the im2col matrix of the input (9C x N*H*W), so verify_matmul checks it
 * through accessors that gather the im2col elements, with the tolerances of
 * a reduction of length 9C (576) accumulated in fp32 (probe_harness.c
 * derives them; fp16 inputs are exact in fp32 products). The fp16 kernel
 * runs on tensor cores on NVIDIA, whose accumulation may truncate. Every
 * output row takes Freivalds' test, and sampled outputs are compared one by
 * one. An output stored in fp16 (cuDNN and MIOpen write fp16 for fp16
 * inputs) adds its own rounding, half an ulp of 2^-10 (conv_rounding). */
#include "gemm_dev.h"
#include "conv_dev.h"
#include "harness.h"
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* conv_fp32's fixed tile (kernels/conv.hip CV_*) */
#define CONV32_BM 64
#define CONV32_BN 128
#define CONV32_BK 8
#define CONV32_THREADS 256

/* Fractions of the profile's peak under which a correct result warns: the
 * fp32 kernel is a plain SIMT implicit GEMM; the fp16 one uses tensor cores
 * only on NVIDIA, so against the matrix-unit peaks of RDNA3 and CDNA it
 * reaches a few per cent. These flag a GPU running many times too slow. */
#define CONV32_MIN_RATIO 0.08
#define CONV16_MIN_RATIO 0.01

void probe_conv_shape(const struct probe_job *job, struct conv_shape *s)
{
	static const unsigned batch[] = { 8, 16, 32 };
	unsigned i = job->size <= PROBE_LARGE ? (unsigned)job->size : 0;
	s->c = s->k = 64;
	if (backend_is_reference(job->ops)) {
		/* a reference run, not a benchmark: one image at 28x28 */
		s->n = 1 + i;
		s->h = s->w = 28;
	} else {
		s->n = batch[i];
		s->h = s->w = 56;
	}
}

double conv_flops(const struct conv_shape *s)
{
	return 2.0 * s->n * s->k * (double)s->h * s->w * s->c * 9;
}

void conv_data_make(struct conv_data *d, const struct conv_shape *s, bool fp16, uint64_t seed)
{
	memset(d, 0, sizeof(*d));
	d->s = *s;
	d->fp16 = fp16;
	size_t nx = (size_t)s->n * s->c * s->h * s->w, nw = (size_t)s->k * s->c * 9;
	size_t ny = (size_t)s->n * s->k * s->h * s->w;
	struct prng pr;
	prng_seed(&pr, (seed ? seed : 0x726f636dULL) ^ 0xc0ffULL);
	/* inputs exact in their format: a grid of 1/1024 (fp16) or 2^-20 */
	probe_fill_grid(&pr, fp16, nx, &d->x16, &d->x32);
	probe_fill_grid(&pr, fp16, nw, &d->w16, &d->w32);
	d->y = xmalloc(ny * sizeof(float));
	d->ymat = xmalloc(ny * sizeof(float));
}

void conv_data_release(struct conv_data *d)
{
	free(d->x32);
	free(d->w32);
	free(d->x16);
	free(d->w16);
	free(d->y);
	free(d->ymat);
	memset(d, 0, sizeof(*d));
}

/* A (K x 9C): the weights as stored */
static double conv_a(const void *ctx, size_t k, size_t kk)
{
	const struct conv_data *d = ctx;
	size_t i = k * d->s.c * 9 + kk;
	return d->fp16 ? half_to_float(d->w16[i]) : d->w32[i];
}

/* B (9C x N*H*W): im2col of x, zero in the padding */
static double conv_b(const void *ctx, size_t kk, size_t p)
{
	const struct conv_data *d = ctx;
	const size_t H = d->s.h, W = d->s.w, HW = H * W;
	size_t c = kk / 9, rs = kk % 9, n = p / HW, hw = p % HW;
	long ih = (long)(hw / W) + (long)(rs / 3) - 1, iw = (long)(hw % W) + (long)(rs % 3) - 1;
	if (ih < 0 || ih >= (long)H || iw < 0 || iw >= (long)W)
		return 0;
	size_t i = ((n * d->s.c + c) * H + (size_t)ih) * W + (size_t)iw;
	return d->fp16 ? half_to_float(d->x16[i]) : d->x32[i];
}

int conv_verify(struct conv_data *d, const struct conv_rounding *rd, uint64_t seed, struct verify_result *v)
{
	const size_t HW = (size_t)d->s.h * d->s.w, P = d->s.n * HW, K = d->s.k;
	/* NCHW -> the K x (N*H*W) matrix */
	for (size_t n = 0; n < d->s.n; n++)
		for (size_t k = 0; k < K; k++)
			memcpy(d->ymat + k * P + n * HW, d->y + (n * K + k) * HW, HW * sizeof(float));
	unsigned kr = d->s.c * 9;
	struct matmul_check mc = {
		.m = (unsigned)K, .n = (unsigned)P, .k = kr, .a = conv_a, .b = conv_b, .ctx = d, .c = d->ymat,
		.unit_roundoff = rd->unit, .truncating = rd->truncating, .out_unit = rd->out_unit,
		.vectors = 4, .samples = 64, .seed = seed,
	};
	return verify_matmul(&mc, v);
}

struct conv_launch {
	void *fn;
	unsigned grid[3], block[3];
	void **args;
};

static int conv_work(struct probe_ctx *pc, void *arg)
{
	const struct conv_launch *cl = arg;
	return pc->b->ops->launch(pc->b, cl->fn, cl->grid, cl->block, 0, cl->args) < 0 ? -1 : 0;
}

static void conv_run(struct probe_ctx *pc, struct probe_outcome *out, bool fp16)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	const bool cpu = backend_is_reference(ops);
	const char *probe = fp16 ? "conv.fp16" : "conv.fp32";
	struct conv_shape s;
	struct conv_data d;
	bk_ptr dx = 0, dw = 0, dy = 0, dinfo = 0;
	void *fn = NULL;

	probe_conv_shape(pc->job, &s);
	conv_data_make(&d, &s, fp16, pc->job->seed);
	const size_t nx = (size_t)s.n * s.c * s.h * s.w, nw = (size_t)s.k * s.c * 9;
	const size_t ny = (size_t)s.n * s.k * s.h * s.w, P = (size_t)s.n * s.h * s.w, KR = (size_t)s.c * 9;
	const size_t esz = fp16 ? 2 : 4;
	/* the GEMM view: M = K output channels, N = pixels, K = 9C */
	out->m = s.k;
	out->n = (unsigned)P;
	out->k = (unsigned)KR;

	if (probe_load_kernels(pc) < 0) {
		probe_kernels_fail(pc, out);
		goto out;
	}
	if (ops->alloc(b, nx * esz, &dx) < 0 || ops->alloc(b, nw * esz, &dw) < 0 ||
	    ops->alloc(b, ny * sizeof(float), &dy) < 0) {
		probe_backend_fail(pc, out, "device allocation");
		goto out;
	}
	if (ops->copy_h2d(b, dx, fp16 ? (void *)d.x16 : (void *)d.x32, nx * esz) < 0 ||
	    ops->copy_h2d(b, dw, fp16 ? (void *)d.w16 : (void *)d.w32, nw * esz) < 0) {
		probe_backend_fail(pc, out, "copy to the device");
		goto out;
	}
	if (probe_poison(pc, dy, ny * sizeof(float), "y", out) < 0)
		goto out;

	unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
	int threads = CONV32_THREADS, bm = CONV32_BM, bn = CONV32_BN, bk = CONV32_BK;
	snprintf(out->variant, sizeof(out->variant), "%s", cpu ? "cpu" : "tiled");
	if (fp16) {
		int info[5] = { -1, 0, 0, 0, 0 };
		void *ifn;
		void *iargs[] = { &dinfo };
		if (ops->alloc(b, sizeof(info), &dinfo) < 0 || ops->get_function(b, pc->module, "conv_fp16_info", &ifn) < 0 ||
		    ops->launch(b, ifn, grid, block, 0, iargs) < 0 || ops->synchronize(b) < 0 ||
		    ops->copy_d2h(b, info, dinfo, sizeof(info)) < 0) {
			probe_backend_fail(pc, out, "conv_fp16_info");
			goto out;
		}
		snprintf(out->variant, sizeof(out->variant), "%s", gemm16_variant_name(info[0]));
		threads = info[1], bm = info[2], bn = info[3], bk = info[4];
	}
	if (!cpu) {
		if (threads <= 0 || threads > 1024 || bm <= 0 || bn <= 0 || bk <= 0 || s.k % (unsigned)bm ||
		    P % (size_t)bn || KR % (size_t)bk || KR % 8) {
			out->status = ST_ERROR;
			snprintf(out->summary, sizeof(out->summary),
				 "%s: the kernel's tiles (%d threads, %dx%dx%d) do not fit the shape K=%u, N*H*W=%zu, 9C=%zu",
				 probe, threads, bm, bn, bk, s.k, P, KR);
			goto out;
		}
		block[0] = (unsigned)threads;
		grid[0] = (unsigned)(P / (size_t)bn);
		grid[1] = s.k / (unsigned)bm;
	}
	if (ops->get_function(b, pc->module, fp16 ? "conv_fp16" : "conv_fp32", &fn) < 0) {
		probe_backend_fail(pc, out, "kernel lookup");
		goto out;
	}
	int N = (int)s.n, C = (int)s.c, H = (int)s.h, W = (int)s.w, K = (int)s.k;
	void *args[] = { &dx, &dw, &dy, &N, &C, &H, &W, &K };
	int iters = probe_iterations(pc->job);
	struct conv_launch cl = { fn, { grid[0], grid[1], grid[2] }, { block[0], block[1], block[2] }, args };
	struct probe_timing t;
	if (probe_time(pc, conv_work, &cl, probe_warmups(pc->job), iters, &t) < 0) {
		probe_backend_fail(pc, out, t.stage ? t.stage : "kernel launch");
		goto out;
	}
	if (ops->copy_d2h(b, d.y, dy, ny * sizeof(float)) < 0) {
		probe_backend_fail(pc, out, "copy from the device");
		goto out;
	}
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_output(probe, d.y, ny);
#endif
	out->seconds = t.seconds;
	if (out->seconds > 0)
		out->tflops = conv_flops(&s) / out->seconds / 1e12;
	double peak = fp16 ? pc->job->fp16_peak : pc->job->fp32_peak;
	if (peak > 0 && !cpu)
		out->expected_tflops = peak;
	struct verify_result v;
	struct conv_rounding rd = { .unit = 0x1p-24, .truncating = fp16 };
	conv_verify(&d, &rd, pc->job->seed, &v);
	char what[200];
	bool same = !strcmp(pc->props.arch, out->variant); /* the host: "(cpu)", not "(cpu, cpu)" */
	snprintf(what, sizeof(what), "%s 3x3 N=%u C=K=%u %ux%u on %.60s (%s%s%s)", probe, s.n, s.c, s.h, s.w,
		 pc->props.name[0] ? pc->props.name : ops->name, pc->props.arch, same ? "" : ", ",
		 same ? "" : out->variant);
	probe_judge(out, &v, fp16 ? CONV16_MIN_RATIO : CONV32_MIN_RATIO, what);
out:
	if (dx)
		ops->free(b, dx);
	if (dw)
		ops->free(b, dw);
	if (dy)
		ops->free(b, dy);
	if (dinfo)
		ops->free(b, dinfo);
	conv_data_release(&d);
}

void probe_conv_fp32(struct probe_ctx *pc, struct probe_outcome *out)
{
	conv_run(pc, out, false);
}

void probe_conv_fp16(struct probe_ctx *pc, struct probe_outcome *out)
{
	conv_run(pc, out, true);
}
