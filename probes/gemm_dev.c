/* The GEMM device kit that probe.gemm, probe.blas and probe.sustained
 * share: the same inputs (from job->seed) on the device, our kernel's launch
 * shape and launches, and the check of C on the host (Freivalds + sampled
 * elements, probe_harness.c). */
#include "gemm_dev.h"
#include "harness.h"
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Launch shape of kernels/gemm.hip's gemm_fp32 (GEMM32_* there). */
#define GEMM32_TILE 128
#define GEMM32_THREADS 256

static double in_a(const void *ctx, size_t i, size_t kk)
{
	const struct gemm_dev *g = ctx;
	return g->fp16 ? half_to_float(g->a16[i * g->k + kk]) : g->a32[i * g->k + kk];
}

static double in_b(const void *ctx, size_t kk, size_t j)
{
	const struct gemm_dev *g = ctx;
	return g->fp16 ? half_to_float(g->b16[kk * g->n + j]) : g->b32[kk * g->n + j];
}

int gemm_dev_setup(struct probe_ctx *pc, struct gemm_dev *g, bool fp16, struct probe_outcome *out)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	unsigned dim = probe_gemm_dim(pc->job);
	memset(g, 0, sizeof(*g));
	g->m = g->n = g->k = dim;
	g->fp16 = fp16;
	size_t na = (size_t)g->m * g->k, nb = (size_t)g->k * g->n, nc = (size_t)g->m * g->n;
	size_t esz = fp16 ? 2 : 4;
	out->m = g->m, out->n = g->n, out->k = g->k;

	/* inputs on a grid of 1/1024 (fp16) or 2^-20 (fp32) in [-1, 1]: exact
	 * in the input format, so the host sees the very values the device does */
	struct prng pr;
	prng_seed(&pr, pc->job->seed ? pc->job->seed : 0x726f636dULL);
	probe_fill_grid(&pr, fp16, na, &g->a16, &g->a32);
	probe_fill_grid(&pr, fp16, nb, &g->b16, &g->b32);
	g->c = xmalloc(nc * sizeof(float));
	if (ops->alloc(b, na * esz, &g->da) < 0 || ops->alloc(b, nb * esz, &g->db) < 0 ||
	    ops->alloc(b, nc * sizeof(float), &g->dc) < 0)
		return probe_backend_fail(pc, out, "device allocation");
	if (ops->copy_h2d(b, g->da, fp16 ? (void *)g->a16 : (void *)g->a32, na * esz) < 0 ||
	    ops->copy_h2d(b, g->db, fp16 ? (void *)g->b16 : (void *)g->b32, nb * esz) < 0)
		return probe_backend_fail(pc, out, "copy to the device");
	return probe_poison(pc, g->dc, nc * sizeof(float), "C", out);
}

/* gemm_fp16_info of the loaded module into info: 0, or -1 with out failed. */
static int gemm16_info(struct probe_ctx *pc, int info[4], struct probe_outcome *out)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	unsigned one[3] = { 1, 1, 1 };
	bk_ptr dinfo = 0;
	void *ifn;
	int ret = -1;
	if (ops->alloc(b, 4 * sizeof(int), &dinfo) < 0) {
		probe_backend_fail(pc, out, "device allocation");
		return -1;
	}
	void *iargs[] = { &dinfo };
	if (ops->get_function(b, pc->module, "gemm_fp16_info", &ifn) < 0 ||
	    ops->launch(b, ifn, one, one, 0, iargs) < 0 || ops->synchronize(b) < 0 ||
	    ops->copy_d2h(b, info, dinfo, 4 * sizeof(int)) < 0)
		probe_backend_fail(pc, out, "gemm_fp16_info");
	else
		ret = 0;
	ops->free(b, dinfo);
	return ret;
}

/* --variant WANT where this device's kernels have `have` instead (and the
 * SIMT tile beside it when `simt`): an error naming what they have.
 * Returns -1. */
static int gemm16_unavailable(struct probe_ctx *pc, int want, int have, bool simt, struct probe_outcome *out)
{
	out->status = ST_ERROR;
	snprintf(out->summary, sizeof(out->summary),
		 "--variant %s: not available on %.60s (%s); its fp16 GEMM variants: %s%s%s", gemm16_variant_name(want),
		 pc->props.name[0] ? pc->props.name : pc->b->ops->name, pc->props.arch, gemm16_variant_name(have),
		 have == GEMM16_VARIANT_WGMMA ? ", mma" : "", simt && have != GEMM16_VARIANT_PLAIN ? ", simt" : "");
	snprintf(out->fix, sizeof(out->fix),
		 "`rocmcheck probe gemm.fp16 --variant %s` runs the one it has; without --variant the probe "
		 "runs the best this device has.", gemm16_variant_name(have));
	return -1;
}

/* The fp16 kernel and its launch shape: the variant compiled for this arch
 * (gemm_fp16, whose info kernel tells its shape), or with --variant simt the
 * SIMT tile beside it (gemm_fp16_simt, gemm_fp32's shape; the host
 * reference has none); --variant naming another than the module's is an
 * error. 0 or -1 with out failed. */
static int gemm16_pick(struct probe_ctx *pc, struct gemm_dev *g, const char **fn, struct probe_outcome *out)
{
	int info[4] = { -1, 0, 0, 0 };
	int want = gemm16_variant_find(pc->job->variant);
	void *simt_fn;
	if (gemm16_info(pc, info, out) < 0)
		return -1;
	bool simt = pc->b->ops->get_function(pc->b, pc->module, "gemm_fp16_simt", &simt_fn) == 0;
	*fn = "gemm_fp16";
	if (want == GEMM16_VARIANT_PLAIN && simt) {
		info[0] = GEMM16_VARIANT_PLAIN, info[1] = GEMM32_THREADS, info[2] = info[3] = GEMM32_TILE;
		*fn = "gemm_fp16_simt";
	} else if (want >= 0 && want != info[0]) {
		return gemm16_unavailable(pc, want, info[0], simt, out);
	}
	if (info[1] <= 0 || info[1] > 1024 || info[2] <= 0 || info[3] <= 0 || g->m % (unsigned)info[2] ||
	    g->n % (unsigned)info[3]) {
		out->status = ST_ERROR;
		snprintf(out->summary, sizeof(out->summary),
			 "gemm_fp16_info returned a bad launch shape (%d threads, tile %dx%d)", info[1], info[2],
			 info[3]);
		return -1;
	}
	snprintf(out->variant, sizeof(out->variant), "%s", gemm16_variant_name(info[0]));
	g->block[0] = (unsigned)info[1];
	g->grid[0] = g->n / (unsigned)info[3];
	g->grid[1] = g->m / (unsigned)info[2];
	return 0;
}

int gemm_dev_prepare(struct probe_ctx *pc, struct gemm_dev *g, struct probe_outcome *out)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	const char *fn = "gemm_fp32";
	if (probe_load_kernels(pc) < 0) {
		probe_kernels_fail(pc, out);
		return -1;
	}
	for (int i = 0; i < 3; i++)
		g->grid[i] = g->block[i] = 1;
	if (g->fp16) {
		if (gemm16_pick(pc, g, &fn, out) < 0)
			return -1;
	} else {
		snprintf(out->variant, sizeof(out->variant), "%s", backend_is_reference(ops) ? "cpu" : "tiled");
		g->block[0] = GEMM32_THREADS;
		g->grid[0] = g->n / GEMM32_TILE;
		g->grid[1] = g->m / GEMM32_TILE;
	}
	if (ops->get_function(b, pc->module, fn, &g->fn) < 0) {
		g->fn = NULL;
		return probe_backend_fail(pc, out, "kernel lookup");
	}
	g->dims[0] = (int)g->m;
	g->dims[1] = (int)g->n;
	g->dims[2] = (int)g->k;
	return 0;
}

int gemm_dev_launch(struct probe_ctx *pc, struct gemm_dev *g, struct probe_outcome *out)
{
	void *args[] = { &g->da, &g->db, &g->dc, &g->dims[0], &g->dims[1], &g->dims[2] };
	if (!g->fn) {
		out->status = ST_ERROR;
		snprintf(out->summary, sizeof(out->summary), "internal error: launch before the kernel was loaded");
		return -1;
	}
	if (pc->b->ops->launch(pc->b, g->fn, g->grid, g->block, 0, args) < 0)
		return probe_backend_fail(pc, out, "kernel launch");
	return 0;
}

struct gemm_work {
	struct gemm_dev *g;
	struct probe_outcome *out;
};

static int gemm_work(struct probe_ctx *pc, void *arg)
{
	struct gemm_work *w = arg;
	return gemm_dev_launch(pc, w->g, w->out) < 0 ? -1 : 0;
}

int gemm_dev_run_own(struct probe_ctx *pc, struct gemm_dev *g, int iters, double *seconds,
		     struct probe_outcome *out)
{
	*seconds = -1;
	if (gemm_dev_prepare(pc, g, out) < 0)
		return -1;
	/* whatever C holds (probe.blas: the vendor's checked result) must not
	 * pass for ours */
	if (probe_poison(pc, g->dc, (size_t)g->m * g->n * sizeof(float), "C", out) < 0)
		return -1;
	struct gemm_work w = { g, out };
	struct probe_timing t;
	if (probe_time(pc, gemm_work, &w, probe_warmups(pc->job), iters, &t) < 0) {
		if (t.stage)
			probe_backend_fail(pc, out, t.stage);
		return -1;
	}
	*seconds = t.seconds;
	return 0;
}

int gemm_dev_fetch(struct probe_ctx *pc, struct gemm_dev *g, struct probe_outcome *out)
{
	size_t nc = (size_t)g->m * g->n;
	if (pc->b->ops->copy_d2h(pc->b, g->c, g->dc, nc * sizeof(float)) < 0)
		return probe_backend_fail(pc, out, "copy from the device");
	return 0;
}

void gemm_dev_check(struct probe_ctx *pc, struct gemm_dev *g, struct verify_result *v)
{
	struct matmul_check mc = {
		.m = g->m, .n = g->n, .k = g->k, .a = in_a, .b = in_b, .ctx = g, .c = g->c,
		.unit_roundoff = 0x1p-24, .truncating = g->fp16, .vectors = 4, .samples = 64,
		.seed = pc->job->seed,
	};
	verify_matmul(&mc, v);
}

int gemm_dev_verify(struct probe_ctx *pc, struct gemm_dev *g, const char *probe, struct verify_result *v,
		    struct probe_outcome *out)
{
	if (gemm_dev_fetch(pc, g, out) < 0)
		return -1;
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_output(probe, g->c, (size_t)g->m * g->n);
#else
	(void)probe;
#endif
	gemm_dev_check(pc, g, v);
	return 0;
}

void gemm_dev_release(struct probe_ctx *pc, struct gemm_dev *g)
{
	const struct backend_ops *ops = pc->b->ops;
	if (g->da)
		ops->free(pc->b, g->da);
	if (g->db)
		ops->free(pc->b, g->db);
	if (g->dc)
		ops->free(pc->b, g->dc);
	free(g->c);
	free(g->a32);
	free(g->b32);
	free(g->a16);
	free(g->b16);
	memset(g, 0, sizeof(*g));
}

/* indexed by enum gemm16_variant */
const char *const gemm16_variant_words[] = { "simt", "wmma", "mfma", "mma", "cpu", "wgmma", NULL };

const char *gemm16_variant_name(int v)
{
	return v >= 0 && v < (int)ARRAY_SIZE(gemm16_variant_words) - 1 ? gemm16_variant_words[v] : "unknown";
}

int gemm16_variant_find(const char *name)
{
	for (int v = 0; name && *name && gemm16_variant_words[v]; v++)
		if (!strcmp(name, gemm16_variant_words[v]))
			return v;
	return -1;
}
