/* amp: mixed-precision training steps of a small MLP the way PyTorch's
 * autocast and GradScaler do them, on the device, checked against the same
 * algorithm on the host.
 *
 * The model: out = relu(X W1) W2 with the loss 1/(2B) sum (out - Y)^2,
 * trained by SGD. Each step (amp_step below, kernels in kernels/amp.hip and
 * the GEMMs of kernels/gemm.hip):
 *   - fp16 copies of the fp32 master weights;
 *   - forward and backward GEMMs with fp16 inputs and fp32 accumulation,
 *     each output rounded to fp16 as an autocast matmul's is;
 *   - the loss gradient multiplied by the loss scale S before it enters the
 *     fp16 backward pass;
 *   - a device-side non-finite check over every gradient element while
 *     unscaling them to fp32 (torch._amp_foreach_non_finite_check_and_unscale_);
 *   - the SGD update skipped on the device when the check found an overflow;
 *   - the scaler's update: halve S on an overflow, double it after
 *     AMP_INTERVAL clean steps (torch._amp_update_scale_).
 * Step AMP_INJECT sees a target of 1e5 for one output: its scaled gradient
 * overflows fp16 for real, in the device's own conversion, and the step
 * must be detected, skipped and S halved. The host runs the identical
 * algorithm (the same fp16 roundings at the same points, fp32 sums taken
 * in double); the device's per-step record {overflow found, S after} must
 * equal the host's exactly, and the final weights agree within the bound
 * derived at amp_host_step().
 *
 * The same step is then timed in fp16 and in fp32 (plain fp32 GEMMs, no
 * scaling) at a size where the GEMMs dominate: the fp16 speed-up people
 * compare between cards, here with our own kernels (tensor cores on NVIDIA,
 * WMMA on RDNA3, MFMA on CDNA; RDNA2 and older have no matrix unit). */
#include "harness.h"
#include "probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AMP_STEPS 8
#define AMP_INJECT 2              /* 0-based: the third step */
#define AMP_INTERVAL 3            /* clean steps before S doubles (PyTorch: 2000) */
#define AMP_S0 1024.0f            /* initial loss scale (PyTorch: 65536, for deep nets) */
#define AMP_LR 0.25f
#define AMP_BAD_TARGET 1.0e5f
#define AMP_TIMED_STEPS 3

#define GEMM32_TILE 128           /* kernels/gemm.hip */
#define GEMM32_THREADS 256
#define EW_THREADS 256            /* kernels/amp.hip AMP_THREADS */

struct amp_dims {
	unsigned b, d, h, o;       /* batch, inputs, hidden, outputs */
};

static double amp_step_flops(const struct amp_dims *m)
{
	/* forward X W1, H W2; backward H^T dO, dO W2^T, X^T dZ */
	return 2.0 * ((double)m->b * m->d * m->h * 2 + (double)m->b * m->h * m->o * 3);
}

/* ---- inputs ---- */

struct amp_data {
	struct amp_dims m;
	float *x, *y, *ybad;       /* fp32, on the fp16 grid */
	float *w1, *w2;            /* initial master weights */
};

static void amp_data_make(struct amp_data *a, const struct amp_dims *m, uint64_t seed)
{
	a->m = *m;
	size_t nx = (size_t)m->b * m->d, ny = (size_t)m->b * m->o;
	size_t n1 = (size_t)m->d * m->h, n2 = (size_t)m->h * m->o;
	a->x = xmalloc(nx * sizeof(float));
	a->y = xmalloc(ny * sizeof(float));
	a->ybad = xmalloc(ny * sizeof(float));
	a->w1 = xmalloc(n1 * sizeof(float));
	a->w2 = xmalloc(n2 * sizeof(float));
	struct prng pr;
	prng_seed(&pr, (seed ? seed : 0x726f636dULL) ^ 0xa3bULL);
	/* values exact in fp16; weights scaled by 1/8 keep activations near 1 */
	for (size_t i = 0; i < nx; i++)
		a->x[i] = (float)prng_grid(&pr, 1024);
	for (size_t i = 0; i < ny; i++)
		a->y[i] = a->ybad[i] = (float)prng_grid(&pr, 1024);
	a->ybad[0] = AMP_BAD_TARGET;
	for (size_t i = 0; i < n1; i++)
		a->w1[i] = (float)prng_grid(&pr, 1024) * 0.125f;
	for (size_t i = 0; i < n2; i++)
		a->w2[i] = (float)prng_grid(&pr, 1024) * 0.125f;
}

static void amp_data_free(struct amp_data *a)
{
	free(a->x);
	free(a->y);
	free(a->ybad);
	free(a->w1);
	free(a->w2);
}

/* ---- the host reference ---- */

static float r16(float v)
{
	return half_to_float(float_to_half(v));
}

/* C (m x n) = A (m x k) B (k x n), row-major, with optional strides for
 * transposed operands: a(i, kk) = A[i*ai + kk*ak], b(kk, j) = B[kk*bk + j*bj].
 * The sum in double, rounded once to float (the device sums in fp32 in its
 * own order: the difference is far below the fp16 rounding that follows).
 * `abssum`, when not NULL, receives sum |a||b| of each element. */
static void host_gemm(const float *A, size_t ai, size_t ak, const float *B, size_t bk, size_t bj, float *C,
		      double *abssum, unsigned m, unsigned n, unsigned k)
{
	double *acc = xcalloc(n, sizeof(double)), *abs_acc = xcalloc(n, sizeof(double));
	for (unsigned i = 0; i < m; i++) {
		memset(acc, 0, n * sizeof(double));
		memset(abs_acc, 0, n * sizeof(double));
		for (unsigned kk = 0; kk < k; kk++) {
			double a = A[i * ai + kk * ak];
			if (a == 0)
				continue;      /* 0 * inf must still give NaN: handled below */
			for (unsigned j = 0; j < n; j++) {
				double bv = B[kk * bk + j * bj];
				acc[j] += a * bv;
				abs_acc[j] += fabs(a * bv);
			}
		}
		for (unsigned j = 0; j < n; j++) {
			C[(size_t)i * n + j] = (float)acc[j];
			if (abssum)
				abssum[(size_t)i * n + j] = abs_acc[j];
		}
	}
	/* IEEE: 0 * inf is NaN; the skipped zero terms above must not hide it */
	for (unsigned kk = 0; kk < k; kk++)
		for (unsigned j = 0; j < n; j++)
			if (!isfinite(B[kk * bk + j * bj]))
				for (unsigned i = 0; i < m; i++)
					if (A[i * ai + kk * ak] == 0)
						C[(size_t)i * n + j] = NAN;
	free(acc);
	free(abs_acc);
}

struct amp_host {
	struct amp_dims m;
	float *w1, *w2;            /* master weights */
	double *bound1, *bound2;   /* allowed |device - host| per weight */
	float scale;
	int tracker;
	float hist[2 * AMP_STEPS];
	/* scratch */
	float *xh, *w1h, *w2h, *z1, *h1, *o, *dout, *dw2, *dh1, *dz1, *dw1;
	double *a1, *a2, *az1, *flip1;
};

static void amp_host_init(struct amp_host *h, const struct amp_data *a)
{
	const struct amp_dims *m = &a->m;
	memset(h, 0, sizeof(*h));
	h->m = *m;
	size_t n1 = (size_t)m->d * m->h, n2 = (size_t)m->h * m->o;
	h->w1 = xmalloc(n1 * sizeof(float));
	h->w2 = xmalloc(n2 * sizeof(float));
	memcpy(h->w1, a->w1, n1 * sizeof(float));
	memcpy(h->w2, a->w2, n2 * sizeof(float));
	h->bound1 = xcalloc(n1, sizeof(double));
	h->bound2 = xcalloc(n2, sizeof(double));
	h->scale = AMP_S0;
	h->xh = xmalloc((size_t)m->b * m->d * sizeof(float));
	for (size_t i = 0; i < (size_t)m->b * m->d; i++)
		h->xh[i] = r16(a->x[i]);
	h->w1h = xmalloc(n1 * sizeof(float));
	h->w2h = xmalloc(n2 * sizeof(float));
	h->z1 = xmalloc((size_t)m->b * m->h * sizeof(float));
	h->h1 = xmalloc((size_t)m->b * m->h * sizeof(float));
	h->o = xmalloc((size_t)m->b * m->o * sizeof(float));
	h->dout = xmalloc((size_t)m->b * m->o * sizeof(float));
	h->dw2 = xmalloc(n2 * sizeof(float));
	h->dh1 = xmalloc((size_t)m->b * m->h * sizeof(float));
	h->dz1 = xmalloc((size_t)m->b * m->h * sizeof(float));
	h->dw1 = xmalloc(n1 * sizeof(float));
	h->a1 = xmalloc(n1 * sizeof(double));
	h->a2 = xmalloc(n2 * sizeof(double));
	h->az1 = xmalloc((size_t)m->b * m->h * sizeof(double));
	h->flip1 = xmalloc(n1 * sizeof(double));
}

static void amp_host_free(struct amp_host *h)
{
	free(h->w1), free(h->w2), free(h->bound1), free(h->bound2), free(h->xh), free(h->w1h), free(h->w2h);
	free(h->z1), free(h->h1), free(h->o), free(h->dout), free(h->dw2), free(h->dh1), free(h->dz1);
	free(h->dw1), free(h->a1), free(h->a2), free(h->az1), free(h->flip1);
}

/* One step of the algorithm in the header comment, the device's roundings
 * reproduced. The bound: the device's fp32 sums differ from the double sums
 * here by at most k 2^-24 of their absolute sums, so an fp16 rounding lands
 * one ulp (2^-11 relative) apart now and then, and a master weight whose
 * fp16 copy did so moves a pre-activation by 2^-11 of one term. Each
 * applied step may therefore differ by a few 2^-11 of sum|a||b|/S per
 * gradient element; we allow lr * 2^-6 * sum|a||b|/S (a margin of 32) plus
 * one fp32 rounding of the update. One more case: a pre-activation within
 * 2^-10 of its absolute sum of 0 may take the other side of the ReLU on
 * the device, which moves the whole term x * dh of that sample in every
 * element of dW1's column: for those, the term itself is allowed. A missing
 * or extra step moves most weights by lr * |g|, well beyond; the exact
 * per-step record catches any mistake of the scaler's logic itself. */
static void amp_host_step(struct amp_host *h, const struct amp_data *a, int step, bool inject)
{
	const struct amp_dims *m = &h->m;
	const size_t n1 = (size_t)m->d * m->h, n2 = (size_t)m->h * m->o;
	const size_t nbh = (size_t)m->b * m->h, nbo = (size_t)m->b * m->o;
	for (size_t i = 0; i < n1; i++)
		h->w1h[i] = r16(h->w1[i]);
	for (size_t i = 0; i < n2; i++)
		h->w2h[i] = r16(h->w2[i]);
	host_gemm(h->xh, m->d, 1, h->w1h, m->h, 1, h->z1, h->az1, m->b, m->h, m->d);
	for (size_t i = 0; i < nbh; i++)
		h->h1[i] = r16(h->z1[i] > 0.0f ? h->z1[i] : 0.0f);
	host_gemm(h->h1, m->h, 1, h->w2h, m->o, 1, h->o, NULL, m->b, m->o, m->h);
	const float *y = inject ? a->ybad : a->y;
	const float inv_b = 1.0f / (float)m->b;
	for (size_t i = 0; i < nbo; i++) {
		float t = (h->o[i] - y[i]) * h->scale;
		h->dout[i] = r16(t * inv_b);
	}
	/* dW2 = H1^T dO (h x o), dH1 = dO W2^T (b x h), dW1 = X^T dZ1 (d x h) */
	host_gemm(h->h1, 1, m->h, h->dout, m->o, 1, h->dw2, h->a2, m->h, m->o, m->b);
	host_gemm(h->dout, m->o, 1, h->w2h, 1, m->o, h->dh1, NULL, m->b, m->h, m->o);
	for (size_t i = 0; i < nbh; i++)
		h->dz1[i] = r16(h->h1[i] > 0.0f ? h->dh1[i] : 0.0f);
	host_gemm(h->xh, 1, m->d, h->dz1, m->h, 1, h->dw1, h->a1, m->d, m->h, m->b);
	memset(h->flip1, 0, n1 * sizeof(double));
	for (size_t bi = 0; bi < m->b; bi++)
		for (size_t j = 0; j < m->h; j++) {
			size_t e = bi * m->h + j;
			if (!(fabs((double)h->z1[e]) <= (h->az1[e] * 0x1p-10)) || !isfinite(h->dh1[e]))
				continue;
			for (size_t i = 0; i < m->d; i++)
				h->flip1[i * m->h + j] += fabs((double)h->xh[bi * m->d + i] * h->dh1[e]);
		}
	const float inv_s = 1.0f / h->scale;
	bool found = false;
	for (size_t i = 0; i < n1; i++) {
		h->dw1[i] = r16(h->dw1[i]) * inv_s;
		found = found || !isfinite(h->dw1[i]);
	}
	for (size_t i = 0; i < n2; i++) {
		h->dw2[i] = r16(h->dw2[i]) * inv_s;
		found = found || !isfinite(h->dw2[i]);
	}
	if (!found) {
		const double per = AMP_LR * 0x1p-6 / h->scale;
		for (size_t i = 0; i < n1; i++) {
			h->w1[i] = fma_f32(-AMP_LR, h->dw1[i], h->w1[i]);
			h->bound1[i] += per * h->a1[i] + AMP_LR * h->flip1[i] / h->scale + fabs(h->w1[i]) * 0x1p-23;
		}
		for (size_t i = 0; i < n2; i++) {
			h->w2[i] = fma_f32(-AMP_LR, h->dw2[i], h->w2[i]);
			h->bound2[i] += per * h->a2[i] + fabs(h->w2[i]) * 0x1p-23;
		}
		if (++h->tracker >= AMP_INTERVAL) {
			h->scale *= 2.0f;
			h->tracker = 0;
		}
	} else {
		h->scale *= 0.5f;
		h->tracker = 0;
	}
	h->hist[2 * step] = found ? 1.0f : 0.0f;
	h->hist[2 * step + 1] = h->scale;
}

/* ---- the device ---- */

struct amp_dev {
	struct probe_ctx *pc;
	struct amp_dims m;
	bool mixed;
	void *gemm, *cast, *tr, *relu, *loss, *mask, *unscale, *sgd, *update;
	unsigned g_threads, g_bm, g_bn;
	bk_ptr w1, w2, xc, xct, w1c, w2c, w2ct, h1, h1t, dout, dz1;     /* xc.. in the compute format */
	bk_ptr z1, o, dw2, dh1, dw1, g1, g2, y, ybad, scale, tracker, found, hist;
	bk_ptr allocs[32];
	int nalloc;
	char err[400];
};

static bk_ptr dev_alloc(struct amp_dev *d, size_t bytes)
{
	bk_ptr p = 0;
	if (d->err[0] || d->nalloc >= (int)ARRAY_SIZE(d->allocs))
		return 0;
	if (d->pc->b->ops->alloc(d->pc->b, bytes, &p) < 0) {
		snprintf(d->err, sizeof(d->err), "device allocation: %.360s", d->pc->b->err_text);
		return 0;
	}
	d->allocs[d->nalloc++] = p;
	return p;
}

static void dev_free(struct amp_dev *d)
{
	for (int i = 0; i < d->nalloc; i++)
		d->pc->b->ops->free(d->pc->b, d->allocs[i]);
	d->nalloc = 0;
}

static int dev_fail(struct amp_dev *d, const char *what)
{
	if (!d->err[0])
		snprintf(d->err, sizeof(d->err), "%s: %.360s", what, d->pc->b->err_text);
	return -1;
}

static int ew(struct amp_dev *d, void *fn, size_t n, void **args)
{
	unsigned grid[3] = { (unsigned)((n + EW_THREADS - 1) / EW_THREADS), 1, 1 }, block[3] = { EW_THREADS, 1, 1 };
	return d->pc->b->ops->launch(d->pc->b, fn, grid, block, 0, args) < 0 ? dev_fail(d, "kernel launch") : 0;
}

static int gemm(struct amp_dev *d, bk_ptr A, bk_ptr B, bk_ptr C, unsigned m, unsigned n, unsigned k)
{
	unsigned grid[3] = { n / d->g_bn, m / d->g_bm, 1 }, block[3] = { d->g_threads, 1, 1 };
	int M = (int)m, N = (int)n, K = (int)k;
	void *args[] = { &A, &B, &C, &M, &N, &K };
	return d->pc->b->ops->launch(d->pc->b, d->gemm, grid, block, 0, args) < 0 ? dev_fail(d, "GEMM launch") : 0;
}

static int transpose(struct amp_dev *d, bk_ptr in, bk_ptr out, unsigned rows, unsigned cols)
{
	unsigned grid[3] = { cols / 32, rows / 32, 1 }, block[3] = { 32, 8, 1 };
	int R = (int)rows, C = (int)cols;
	void *args[] = { &in, &out, &R, &C };
	return d->pc->b->ops->launch(d->pc->b, d->tr, grid, block, 0, args) < 0 ? dev_fail(d, "transpose launch") : 0;
}

static int dev_setup(struct amp_dev *d, struct probe_ctx *pc, const struct amp_data *a, bool mixed)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	const struct amp_dims *m = &a->m;
	memset(d, 0, sizeof(*d));
	d->pc = pc;
	d->m = *m;
	d->mixed = mixed;
	struct {
		void **fn;
		const char *name;
	} fns[] = {
		{ &d->gemm, mixed ? "gemm_fp16" : "gemm_fp32" },
		{ &d->cast, "amp_cast_f16" },
		{ &d->tr, mixed ? "amp_transpose_f16" : "amp_transpose_f32" },
		{ &d->relu, mixed ? "amp_relu_f16" : "amp_relu_f32" },
		{ &d->loss, mixed ? "amp_loss_grad_f16" : "amp_loss_grad_f32" },
		{ &d->mask, mixed ? "amp_mask_f16" : "amp_mask_f32" },
		{ &d->unscale, "amp_unscale_check" },
		{ &d->sgd, "amp_sgd" },
		{ &d->update, "amp_update_scale" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++)
		if (ops->get_function(b, pc->module, fns[i].name, fns[i].fn) < 0)
			return dev_fail(d, "kernel lookup");
	d->g_threads = GEMM32_THREADS;
	d->g_bm = d->g_bn = GEMM32_TILE;
	if (mixed) {
		int info[4] = { -1, 0, 0, 0 };
		void *ifn;
		bk_ptr di = dev_alloc(d, sizeof(info));
		unsigned one[3] = { 1, 1, 1 };
		void *iargs[] = { &di };
		if (!di || ops->get_function(b, pc->module, "gemm_fp16_info", &ifn) < 0 ||
		    ops->launch(b, ifn, one, one, 0, iargs) < 0 || ops->synchronize(b) < 0 ||
		    ops->copy_d2h(b, info, di, sizeof(info)) < 0)
			return dev_fail(d, "gemm_fp16_info");
		if (info[1] <= 0 || info[1] > 1024 || info[2] <= 0 || info[3] <= 0) {
			snprintf(d->err, sizeof(d->err), "gemm_fp16_info returned a bad launch shape");
			return -1;
		}
		d->g_threads = (unsigned)info[1];
		d->g_bm = (unsigned)info[2];
		d->g_bn = (unsigned)info[3];
	}
	if (backend_is_reference(ops))
		d->g_bm = d->g_bn = 1;
	/* every GEMM's m and n below is one of b, d, h, o */
	const unsigned dims[] = { m->b, m->d, m->h, m->o };
	for (size_t i = 0; i < ARRAY_SIZE(dims); i++)
		if (dims[i] % d->g_bm || dims[i] % d->g_bn || dims[i] % 32) {
			snprintf(d->err, sizeof(d->err), "the GEMM tiles (%ux%u) do not fit the MLP's sizes", d->g_bm,
				 d->g_bn);
			return -1;
		}
	const size_t act = mixed ? 2 : 4;
	const size_t nx = (size_t)m->b * m->d, n1 = (size_t)m->d * m->h, n2 = (size_t)m->h * m->o;
	const size_t nbh = (size_t)m->b * m->h, nbo = (size_t)m->b * m->o;
	d->w1 = dev_alloc(d, n1 * 4);
	d->w2 = dev_alloc(d, n2 * 4);
	d->xc = dev_alloc(d, nx * act);
	d->xct = dev_alloc(d, nx * act);
	d->w1c = mixed ? dev_alloc(d, n1 * 2) : d->w1;
	d->w2c = mixed ? dev_alloc(d, n2 * 2) : d->w2;
	d->w2ct = dev_alloc(d, n2 * act);
	d->h1 = dev_alloc(d, nbh * act);
	d->h1t = dev_alloc(d, nbh * act);
	d->dout = dev_alloc(d, nbo * act);
	d->dz1 = dev_alloc(d, nbh * act);
	d->z1 = dev_alloc(d, nbh * 4);
	d->o = dev_alloc(d, nbo * 4);
	d->dw2 = dev_alloc(d, n2 * 4);
	d->dh1 = dev_alloc(d, nbh * 4);
	d->dw1 = dev_alloc(d, n1 * 4);
	d->g1 = dev_alloc(d, n1 * 4);
	d->g2 = dev_alloc(d, n2 * 4);
	d->y = dev_alloc(d, nbo * 4);
	d->ybad = dev_alloc(d, nbo * 4);
	d->scale = dev_alloc(d, 4);
	d->tracker = dev_alloc(d, 4);
	d->found = dev_alloc(d, 4);
	d->hist = dev_alloc(d, 2 * AMP_STEPS * 4);
	if (d->err[0])
		return -1;
	/* the scaler's record is compared exactly: nothing may be left there */
	float poison[2 * AMP_STEPS];
	probe_poison_host(poison, sizeof(poison));
	if (d->pc->b->ops->copy_h2d(d->pc->b, d->hist, poison, sizeof(poison)) < 0)
		return dev_fail(d, "poisoning the loss-scale record");
	/* X and X^T in the compute format, prepared on the host once */
	void *xc = xmalloc(nx * act), *xct = xmalloc(nx * act);
	for (size_t bi = 0; bi < m->b; bi++)
		for (size_t i = 0; i < m->d; i++) {
			float v = a->x[bi * m->d + i];
			if (mixed) {
				((uint16_t *)xc)[bi * m->d + i] = float_to_half(v);
				((uint16_t *)xct)[i * m->b + bi] = float_to_half(v);
			} else {
				((float *)xc)[bi * m->d + i] = v;
				((float *)xct)[i * m->b + bi] = v;
			}
		}
	float s0 = mixed ? AMP_S0 : 1.0f, zero = 0;
	int t0 = 0;
	int rc = ops->copy_h2d(b, d->xc, xc, nx * act) < 0 || ops->copy_h2d(b, d->xct, xct, nx * act) < 0 ||
		 ops->copy_h2d(b, d->w1, a->w1, n1 * 4) < 0 || ops->copy_h2d(b, d->w2, a->w2, n2 * 4) < 0 ||
		 ops->copy_h2d(b, d->y, a->y, nbo * 4) < 0 || ops->copy_h2d(b, d->ybad, a->ybad, nbo * 4) < 0 ||
		 ops->copy_h2d(b, d->scale, &s0, 4) < 0 || ops->copy_h2d(b, d->tracker, &t0, 4) < 0 ||
		 ops->copy_h2d(b, d->found, &zero, 4) < 0;
	free(xc);
	free(xct);
	return rc ? dev_fail(d, "copy to the device") : 0;
}

/* One training step on the device (see the header comment). */
static int amp_step(struct amp_dev *d, int step, bool inject)
{
	const struct amp_dims *m = &d->m;
	int n1 = (int)(m->d * m->h), n2 = (int)(m->h * m->o), nbh = (int)(m->b * m->h), nbo = (int)(m->b * m->o);
	float inv_b = 1.0f / (float)m->b, lr = AMP_LR;
	int round16 = d->mixed ? 1 : 0, interval = AMP_INTERVAL;
	bk_ptr y = inject ? d->ybad : d->y;
	if (d->mixed) {
		void *c1[] = { &d->w1, &d->w1c, &n1 }, *c2[] = { &d->w2, &d->w2c, &n2 };
		if (ew(d, d->cast, (size_t)n1, c1) || ew(d, d->cast, (size_t)n2, c2))
			return -1;
	}
	void *relu[] = { &d->z1, &d->h1, &nbh };
	void *loss[] = { &d->o, &y, &d->dout, &nbo, &d->scale, &inv_b };
	void *mask[] = { &d->dh1, &d->h1, &d->dz1, &nbh };
	void *u1[] = { &d->dw1, &d->g1, &n1, &d->scale, &d->found, &round16 };
	void *u2[] = { &d->dw2, &d->g2, &n2, &d->scale, &d->found, &round16 };
	void *s1[] = { &d->w1, &d->g1, &n1, &lr, &d->found };
	void *s2[] = { &d->w2, &d->g2, &n2, &lr, &d->found };
	void *up[] = { &d->scale, &d->tracker, &d->found, &d->hist, &step, &interval };
	unsigned one[3] = { 1, 1, 1 };
	if (gemm(d, d->xc, d->w1c, d->z1, m->b, m->h, m->d) || ew(d, d->relu, (size_t)nbh, relu) ||
	    gemm(d, d->h1, d->w2c, d->o, m->b, m->o, m->h) || ew(d, d->loss, (size_t)nbo, loss) ||
	    transpose(d, d->h1, d->h1t, m->b, m->h) || gemm(d, d->h1t, d->dout, d->dw2, m->h, m->o, m->b) ||
	    transpose(d, d->w2c, d->w2ct, m->h, m->o) || gemm(d, d->dout, d->w2ct, d->dh1, m->b, m->h, m->o) ||
	    ew(d, d->mask, (size_t)nbh, mask) || gemm(d, d->xct, d->dz1, d->dw1, m->d, m->h, m->b) ||
	    ew(d, d->unscale, (size_t)n1, u1) || ew(d, d->unscale, (size_t)n2, u2) ||
	    ew(d, d->sgd, (size_t)n1, s1) || ew(d, d->sgd, (size_t)n2, s2))
		return -1;
	if (d->mixed && d->pc->b->ops->launch(d->pc->b, d->update, one, one, 0, up) < 0)
		return dev_fail(d, "amp_update_scale launch");
	return 0;
}

/* Steps 0, 1, 2, ... (modulo AMP_STEPS) for probe_time. */
struct amp_work {
	struct amp_dev *d;
	int step;
};

static int amp_work(struct probe_ctx *pc, void *arg)
{
	(void)pc;
	struct amp_work *w = arg;
	return amp_step(w->d, w->step++ % AMP_STEPS, false) < 0 ? -1 : 0;
}

/* `steps` steps after one untimed, seconds per step; the weights must stay finite */
static int amp_time(struct probe_ctx *pc, const struct amp_data *a, bool mixed, int steps, double *sec, char *err,
		    size_t err_size)
{
	const struct backend_ops *ops = pc->b->ops;
	struct amp_dev d;
	int rc = -1;
	*sec = -1;
	if (dev_setup(&d, pc, a, mixed) < 0)
		goto out;
	struct amp_work aw = { &d, 0 };
	struct probe_timing t;
	if (probe_time(pc, amp_work, &aw, 1, steps, &t) < 0) {
		if (t.stage)
			dev_fail(&d, t.stage);
		goto out;
	}
	size_t n1 = (size_t)a->m.d * a->m.h;
	float *w = xmalloc(n1 * sizeof(float));
	if (ops->copy_d2h(pc->b, w, d.w1, n1 * sizeof(float)) < 0) {
		free(w);
		dev_fail(&d, "copy from the device");
		goto out;
	}
	size_t bad = 0;
	for (size_t i = 0; i < n1; i++)
		bad += !isfinite(w[i]);
	free(w);
	if (bad) {
		snprintf(d.err, sizeof(d.err), "the %s timing run left %zu non-finite master weights", mixed ? "fp16" : "fp32",
			 bad);
		goto out;
	}
	*sec = t.seconds;
	rc = 0;
out:
	if (rc < 0)
		snprintf(err, err_size, "%s", d.err[0] ? d.err : "unknown error");
	dev_free(&d);
	return rc;
}

struct amp_expect {
	const float *w;
	const double *bound;
};

static double amp_expect_w(const void *ctx, size_t i, double *bound)
{
	const struct amp_expect *e = ctx;
	*bound = e->bound[i];
	return e->w[i];
}

static void amp_dims_for(const struct probe_job *job, bool timing, struct amp_dims *m)
{
	if (backend_is_reference(job->ops)) {
		*m = (struct amp_dims){ 32, 32, 64, 32 };
		return;
	}
	if (!timing) {
		*m = (struct amp_dims){ 128, 128, 256, 128 };
		return;
	}
	static const unsigned scale[] = { 1, 2, 2 };
	unsigned s = scale[job->size <= PROBE_LARGE ? job->size : 0];
	*m = (struct amp_dims){ 1024 * s, 1024 * s, 4096, 1024 };
}

/* The device's per-step record {overflow found, scale after} against the
 * host's, exactly, with the figures as metrics: 0, or -1 with out failed. */
static int amp_record_check(struct probe_outcome *out, const float *hist, const struct amp_host *hp)
{
	const struct amp_host *h = hp;
	int bad_step = -1;
	for (int s = 0; s < AMP_STEPS && bad_step < 0; s++)
		if (hist[2 * s] != h->hist[2 * s] || hist[2 * s + 1] != h->hist[2 * s + 1])
			bad_step = s;
	int skipped = 0;
	for (int s = 0; s < AMP_STEPS; s++)
		skipped += hist[2 * s] != 0.0f;
	probe_metric_set(out, "overflow_detected", hist[2 * AMP_INJECT] != 0.0f ? 1 : 0);
	probe_metric_set(out, "skipped_steps", skipped);
	probe_metric_set(out, "final_scale", hist[2 * AMP_STEPS - 1]);
	if (bad_step < 0)
		return 0;
	out->status = ST_FAIL;
	bool missed = bad_step == AMP_INJECT && hist[2 * bad_step] == 0.0f;
	snprintf(out->summary, sizeof(out->summary),
		 "amp: %s at step %d: the device recorded overflow=%s, loss scale %g where the same "
		 "algorithm on the host gives overflow=%s, scale %g",
		 missed ? "the injected fp16 overflow was not detected on the device"
			: "the loss scaler went wrong",
		 bad_step + 1, hist[2 * bad_step] != 0.0f ? "yes" : "no", (double)hist[2 * bad_step + 1],
		 h->hist[2 * bad_step] != 0.0f ? "yes" : "no", (double)h->hist[2 * bad_step + 1]);
	snprintf(out->fix, sizeof(out->fix),
		 "Mixed-precision training on this GPU would apply steps with infinite gradients or lose "
		 "its loss scale. Look for driver errors in `sudo dmesg`, return clocks to defaults, update "
		 "the driver and run `rocmcheck probe amp` again; if it persists report it with "
		 "`rocmcheck bundle`.");
	snprintf(out->verification, sizeof(out->verification), "exact");
	return -1;
}

/* The device's final weights against the host's, within their bounds. */
static void amp_weights_check(const float *wdev, const struct amp_host *h, size_t n1, size_t n2,
			      struct verify_result *v)
{
	float *wh = xmalloc((n1 + n2) * sizeof(float));
	double *bd = xmalloc((n1 + n2) * sizeof(double));
	memcpy(wh, h->w1, n1 * sizeof(float));
	memcpy(wh + n1, h->w2, n2 * sizeof(float));
	memcpy(bd, h->bound1, n1 * sizeof(double));
	memcpy(bd + n1, h->bound2, n2 * sizeof(double));
	struct amp_expect ex = { wh, bd };
	verify_elementwise(wdev, n1 + n2, amp_expect_w, &ex, v);
	snprintf(v->method, sizeof(v->method), "host replay");
	free(wh);
	free(bd);
}

/* The fp16 step against the fp32 one on a size where the GEMMs dominate:
 * the figures into out; 0, or -1 with out failed. */
static int amp_speedup(struct probe_ctx *pc, struct probe_outcome *out, struct amp_dims *tm, double *t16,
		       double *t32)
{
	char err[400];
	amp_dims_for(pc->job, true, tm);
	struct amp_data ta;
	amp_data_make(&ta, tm, pc->job->seed ^ 1);
	int steps = backend_is_reference(pc->b->ops) ? 1 : AMP_TIMED_STEPS;
	int rc = amp_time(pc, &ta, true, steps, t16, err, sizeof(err));
	if (rc == 0)
		rc = amp_time(pc, &ta, false, steps, t32, err, sizeof(err));
	amp_data_free(&ta);
	if (rc < 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "amp: timing run: %.480s", err);
		return -1;
	}
	out->seconds = *t16;
	if (*t16 > 0)
		out->tflops = amp_step_flops(tm) / *t16 / 1e12;
	if (*t16 > 0 && *t32 > 0) {
		probe_metric_set(out, "fp16_speedup", *t32 / *t16);
		probe_metric_set(out, "fp16_step_ms", *t16 * 1e3);
		probe_metric_set(out, "fp32_step_ms", *t32 * 1e3);
	}
	return 0;
}

void probe_amp(struct probe_ctx *pc, struct probe_outcome *out)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	const bool cpu = backend_is_reference(ops);
	struct amp_dims m;
	struct amp_data a;
	struct amp_host h;
	struct amp_dev d;
	float *wdev = NULL;
	bool have_host = false, have_dev = false, have_data = false;

	if (probe_load_kernels(pc) < 0) {
		probe_kernels_fail(pc, out);
		return;
	}
	amp_dims_for(pc->job, false, &m);
	amp_data_make(&a, &m, pc->job->seed);
	have_data = true;
	out->m = m.b;
	out->n = m.o;
	out->k = m.h;

	/* the verified run */
	if (dev_setup(&d, pc, &a, true) < 0) {
		have_dev = true;
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "amp: %s", d.err);
		goto out;
	}
	have_dev = true;
	snprintf(out->variant, sizeof(out->variant), "%s", cpu ? "cpu" : "fp16");
	for (int s = 0; s < AMP_STEPS; s++) {
		if (amp_step(&d, s, s == AMP_INJECT) < 0) {
			out->status = ST_FAIL;
			snprintf(out->summary, sizeof(out->summary), "amp: step %d: %s", s + 1, d.err);
			goto out;
		}
	}
	const size_t n1 = (size_t)m.d * m.h, n2 = (size_t)m.h * m.o;
	float hist[2 * AMP_STEPS];
	wdev = xmalloc((n1 + n2) * sizeof(float));
	if (ops->synchronize(b) < 0 || ops->copy_d2h(b, wdev, d.w1, n1 * 4) < 0 ||
	    ops->copy_d2h(b, wdev + n1, d.w2, n2 * 4) < 0 || ops->copy_d2h(b, hist, d.hist, sizeof(hist)) < 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "amp: running the steps: %.440s", b->err_text);
		goto out;
	}
	dev_free(&d);
	have_dev = false;
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_output("amp", wdev, n1 + n2);
#endif

	amp_host_init(&h, &a);
	have_host = true;
	for (int s = 0; s < AMP_STEPS; s++)
		amp_host_step(&h, &a, s, s == AMP_INJECT);
	if (h.hist[2 * AMP_INJECT] == 0.0f) {
		out->status = ST_ERROR;
		snprintf(out->summary, sizeof(out->summary),
			 "amp: the injected overflow did not overflow on the host; the probe is miscalibrated");
		goto out;
	}

	/* the scaler's record: exact */
	if (amp_record_check(out, hist, &h) < 0)
		goto out;
	struct verify_result v;
	amp_weights_check(wdev, &h, n1, n2, &v);

	/* the speed-up, on a size where the GEMMs dominate */
	struct amp_dims tm;
	double t16 = -1, t32 = -1;
	if (amp_speedup(pc, out, &tm, &t16, &t32) < 0)
		goto out;
	char what[200];
	snprintf(what, sizeof(what), "amp: %d mixed-precision steps of a %u-%u-%u MLP (batch %u) on %.60s", AMP_STEPS,
		 m.d, m.h, m.o, m.b, pc->props.name[0] ? pc->props.name : ops->name);
	probe_judge(out, &v, 0, what);
	if (out->status == ST_PASS) {
		size_t used = strlen(out->summary);
		snprintf(out->summary + used, sizeof(out->summary) - used,
			 "; the fp16 overflow injected at step %d was detected on the device, the step skipped and "
			 "the loss scale halved (%g -> %g, back to %g after %d clean steps); fp16 step %.2fx the "
			 "speed of fp32 (%.3g vs %.3g ms, %ux%ux%ux%u)",
			 AMP_INJECT + 1, (double)AMP_S0, (double)hist[2 * AMP_INJECT + 1], (double)hist[2 * AMP_STEPS - 1],
			 AMP_INTERVAL, t16 > 0 && t32 > 0 ? t32 / t16 : 0.0, t16 * 1e3, t32 * 1e3, tm.b, tm.d, tm.h, tm.o);
	}
out:
	if (have_dev)
		dev_free(&d);
	if (have_host)
		amp_host_free(&h);
	if (have_data)
		amp_data_free(&a);
	free(wdev);
}
