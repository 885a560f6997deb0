/* dnn.fp32 and dnn.fp16: probe.conv's convolution through the vendor's DNN
 * library -- cuDNN (legacy API: cudnnConvolutionForward with the
 * heuristics' algorithm) or MIOpen (miopenConvolutionForward after
 * miopenFindConvolutionForwardAlgorithm) -- the path PyTorch's convolutions
 * take, on the same inputs, verified the same way and timed.
 *
 * fp32 runs in strict fp32 (cuDNN's CUDNN_FMA_MATH: no TF32), so the fp32
 * accumulation bound holds; fp16 runs with fp32 accumulation and the
 * libraries store an fp16 output, whose rounding the check adds.
 * Winograd and FFT algorithms are not dot products: their transforms round
 * intermediate values of a larger magnitude than the inputs (Lavin & Gray,
 * "Fast Algorithms for Convolutional Neural Networks", 2016, measure errors
 * one to two orders of magnitude above direct convolution in fp32), so the
 * bound is widened 64-fold for them; a wrong element stays far outside. */
#include "conv_dev.h"
#include "harness.h"
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DNN32_MIN_RATIO 0.10
#define DNN16_MIN_RATIO 0.02
#define TRANSFORM_FACTOR 64.0

/* cuDNN (cudnn_graph.h, cudnn_cnn.h, cudnn_ops.h of 9.x; the same in 8.x) */
enum {
	CUDNN_FLOAT = 0,
	CUDNN_HALF = 2,
	CUDNN_NCHW = 0,
	CUDNN_CROSS_CORRELATION = 1,
	CUDNN_TENSOR_OP_MATH = 1,
	CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
	CUDNN_FMA_MATH = 3,
	CUDNN_ALGO_FFT = 4,        /* 4, 5: FFT; 6, 7: Winograd */
};
struct cudnn_perf {            /* cudnnConvolutionFwdAlgoPerf_t */
	int algo;
	int status;
	float time;
	size_t memory;
	int determinism;
	int math_type;
	int reserved[3];
};
/* MIOpen (miopen.h) */
enum {
	MIOPEN_HALF = 0,
	MIOPEN_FLOAT = 1,
	MIOPEN_CONVOLUTION = 0,
	MIOPEN_ALGO_FFT = 2,
	MIOPEN_ALGO_WINOGRAD = 3,
};
struct miopen_perf {           /* miopenConvAlgoPerf_t */
	int fwd_algo;              /* a union of three algorithm enums */
	float time;
	size_t memory;
};

struct vdnn {
	bool rocm;
	void *lib;
	char path[256];
	void *handle, *xd, *wd, *yd, *cd;
	char version[24];
	/* cuDNN */
	int (*create)(void **);
	int (*destroy)(void *);
	const char *(*error_string)(int);
	size_t (*cu_version)(void);
	int (*cu_tensor_create)(void **);
	int (*cu_tensor_set)(void *, int, int, int, int, int, int);
	int (*cu_tensor_destroy)(void *);
	int (*cu_filter_create)(void **);
	int (*cu_filter_set)(void *, int, int, int, int, int, int);
	int (*cu_filter_destroy)(void *);
	int (*cu_conv_create)(void **);
	int (*cu_conv_set)(void *, int, int, int, int, int, int, int, int);
	int (*cu_conv_math)(void *, int);
	int (*cu_conv_destroy)(void *);
	int (*cu_algo)(void *, void *, void *, void *, void *, int, int *, struct cudnn_perf *);
	int (*cu_ws)(void *, void *, void *, void *, void *, int, size_t *);
	int (*cu_forward)(void *, const void *, void *, const void *, void *, const void *, void *, int, void *, size_t,
			  const void *, void *, void *);
	/* MIOpen */
	int (*mi_version)(size_t *, size_t *, size_t *);
	int (*mi_tensor_create)(void **);
	int (*mi_tensor_set)(void *, int, int, int, int, int);
	int (*mi_tensor_destroy)(void *);
	int (*mi_conv_create)(void **);
	int (*mi_conv_init)(void *, int, int, int, int, int, int, int);
	int (*mi_conv_destroy)(void *);
	int (*mi_ws)(void *, void *, void *, void *, void *, size_t *);
	int (*mi_find)(void *, void *, const void *, void *, const void *, void *, void *, void *, int, int *,
		       struct miopen_perf *, void *, size_t, bool);
	int (*mi_forward)(void *, const void *, void *, const void *, void *, const void *, void *, int, const void *,
			  void *, void *, void *, size_t);
};


static int vdnn_open(struct backend *b, struct vdnn *v, bool rocm)
{
	static const char *const miopen_names[] = { "libMIOpen.so.1", "libMIOpen.so", "/opt/rocm/lib/libMIOpen.so.1",
						    NULL };
	static const char *const cudnn_names[] = { "libcudnn.so.9", "libcudnn.so.8", "libcudnn.so",
						   "/usr/local/cuda/lib64/libcudnn.so.9",
						   "/usr/local/cuda/lib64/libcudnn.so.8", NULL };
	memset(v, 0, sizeof(*v));
	v->rocm = rocm;
	if (backend_dlopen(b, &v->lib, v->path, sizeof(v->path), rocm ? "ROCMCHECK_MIOPEN_LIB" : "ROCMCHECK_CUDNN_LIB",
			   rocm ? miopen_names : cudnn_names) < 0)
		return -ENOENT;
	void *l = v->lib;
	if (rocm) {
		if (BK_SYM(b, l, "miopenCreate", v->create) || BK_SYM(b, l, "miopenDestroy", v->destroy) ||
		    BK_SYM(b, l, "miopenGetErrorString", v->error_string) ||
		    BK_SYM(b, l, "miopenGetVersion", v->mi_version) ||
		    BK_SYM(b, l, "miopenCreateTensorDescriptor", v->mi_tensor_create) ||
		    BK_SYM(b, l, "miopenSet4dTensorDescriptor", v->mi_tensor_set) ||
		    BK_SYM(b, l, "miopenDestroyTensorDescriptor", v->mi_tensor_destroy) ||
		    BK_SYM(b, l, "miopenCreateConvolutionDescriptor", v->mi_conv_create) ||
		    BK_SYM(b, l, "miopenInitConvolutionDescriptor", v->mi_conv_init) ||
		    BK_SYM(b, l, "miopenDestroyConvolutionDescriptor", v->mi_conv_destroy) ||
		    BK_SYM(b, l, "miopenConvolutionForwardGetWorkSpaceSize", v->mi_ws) ||
		    BK_SYM(b, l, "miopenFindConvolutionForwardAlgorithm", v->mi_find) ||
		    BK_SYM(b, l, "miopenConvolutionForward", v->mi_forward))
			return -ENOSYS;
		size_t maj = 0, min = 0, pat = 0;
		if (v->mi_version(&maj, &min, &pat) == 0)
			snprintf(v->version, sizeof(v->version), "%zu.%zu.%zu", maj, min, pat);
		return 0;
	}
	if (BK_SYM(b, l, "cudnnCreate", v->create) || BK_SYM(b, l, "cudnnDestroy", v->destroy) ||
	    BK_SYM(b, l, "cudnnGetErrorString", v->error_string) || BK_SYM(b, l, "cudnnGetVersion", v->cu_version) ||
	    BK_SYM(b, l, "cudnnCreateTensorDescriptor", v->cu_tensor_create) ||
	    BK_SYM(b, l, "cudnnSetTensor4dDescriptor", v->cu_tensor_set) ||
	    BK_SYM(b, l, "cudnnDestroyTensorDescriptor", v->cu_tensor_destroy) ||
	    BK_SYM(b, l, "cudnnCreateFilterDescriptor", v->cu_filter_create) ||
	    BK_SYM(b, l, "cudnnSetFilter4dDescriptor", v->cu_filter_set) ||
	    BK_SYM(b, l, "cudnnDestroyFilterDescriptor", v->cu_filter_destroy) ||
	    BK_SYM(b, l, "cudnnCreateConvolutionDescriptor", v->cu_conv_create) ||
	    BK_SYM(b, l, "cudnnSetConvolution2dDescriptor", v->cu_conv_set) ||
	    BK_SYM(b, l, "cudnnSetConvolutionMathType", v->cu_conv_math) ||
	    BK_SYM(b, l, "cudnnDestroyConvolutionDescriptor", v->cu_conv_destroy) ||
	    BK_SYM(b, l, "cudnnGetConvolutionForwardAlgorithm_v7", v->cu_algo) ||
	    BK_SYM(b, l, "cudnnGetConvolutionForwardWorkspaceSize", v->cu_ws) ||
	    BK_SYM(b, l, "cudnnConvolutionForward", v->cu_forward))
		return -ENOSYS;
	size_t ver = v->cu_version();    /* 90100 = 9.1.0 from 9.0; 8907 = 8.9.7 before */
	if (ver >= 90000)
		snprintf(v->version, sizeof(v->version), "%zu.%zu.%zu", ver / 10000, ver / 100 % 100, ver % 100);
	else
		snprintf(v->version, sizeof(v->version), "%zu.%zu.%zu", ver / 1000, ver / 100 % 10, ver % 100);
	return 0;
}

static void vdnn_close(struct vdnn *v)
{
	if (v->rocm) {
		if (v->xd)
			v->mi_tensor_destroy(v->xd);
		if (v->wd)
			v->mi_tensor_destroy(v->wd);
		if (v->yd)
			v->mi_tensor_destroy(v->yd);
		if (v->cd)
			v->mi_conv_destroy(v->cd);
	} else if (v->lib) {
		if (v->xd)
			v->cu_tensor_destroy(v->xd);
		if (v->yd)
			v->cu_tensor_destroy(v->yd);
		if (v->wd)
			v->cu_filter_destroy(v->wd);
		if (v->cd)
			v->cu_conv_destroy(v->cd);
	}
	if (v->handle)
		v->destroy(v->handle);
	v->handle = v->xd = v->wd = v->yd = v->cd = NULL;
}

static void vdnn_error(const struct vdnn *v, const char *call, int st, char *buf, size_t size)
{
	const char *text = v->error_string ? v->error_string(st) : NULL;
	snprintf(buf, size, "%s: %s (%d)", call, text && *text ? text : "error", st);
}

/* Descriptors and the algorithm; returns 0 or the library status with
 * `call` naming the call that failed. */
static int vdnn_prepare(struct vdnn *v, const struct conv_shape *s, bool fp16, bk_ptr x, bk_ptr w, bk_ptr y,
			struct backend *b, bk_ptr *ws, size_t *ws_size, int *algo, const char **call)
{
	int n = (int)s->n, c = (int)s->c, h = (int)s->h, wd = (int)s->w, k = (int)s->k, st;
	void *px = (void *)(uintptr_t)x, *pw = (void *)(uintptr_t)w, *py = (void *)(uintptr_t)y;
	*ws = 0;
	*ws_size = 0;
	if (v->rocm) {
		int dt = fp16 ? MIOPEN_HALF : MIOPEN_FLOAT;
		if ((st = v->mi_tensor_create(&v->xd)) || (st = v->mi_tensor_create(&v->wd)) ||
		    (st = v->mi_tensor_create(&v->yd)) || (st = v->mi_conv_create(&v->cd))) {
			*call = "miopenCreate*Descriptor";
			return st;
		}
		if ((st = v->mi_tensor_set(v->xd, dt, n, c, h, wd)) || (st = v->mi_tensor_set(v->wd, dt, k, c, 3, 3)) ||
		    (st = v->mi_tensor_set(v->yd, dt, n, k, h, wd)) ||
		    (st = v->mi_conv_init(v->cd, MIOPEN_CONVOLUTION, 1, 1, 1, 1, 1, 1))) {
			*call = "miopenSet4dTensorDescriptor";
			return st;
		}
		if ((st = v->mi_ws(v->handle, v->wd, v->xd, v->cd, v->yd, ws_size))) {
			*call = "miopenConvolutionForwardGetWorkSpaceSize";
			return st;
		}
		if (*ws_size && b->ops->alloc(b, *ws_size, ws) < 0) {
			*call = "hipMalloc (workspace)";
			return -1;
		}
		struct miopen_perf perf[4];
		int got = 0;
		memset(perf, 0, sizeof(perf));
		if ((st = v->mi_find(v->handle, v->xd, px, v->wd, pw, v->cd, v->yd, py, 4, &got, perf,
				     (void *)(uintptr_t)*ws, *ws_size, false))) {
			*call = "miopenFindConvolutionForwardAlgorithm";
			return st;
		}
		if (got < 1) {
			*call = "miopenFindConvolutionForwardAlgorithm (no algorithm)";
			return -1;
		}
		*algo = perf[0].fwd_algo;
		return 0;
	}
	int dt = fp16 ? CUDNN_HALF : CUDNN_FLOAT;
	if ((st = v->cu_tensor_create(&v->xd)) || (st = v->cu_tensor_create(&v->yd)) ||
	    (st = v->cu_filter_create(&v->wd)) || (st = v->cu_conv_create(&v->cd))) {
		*call = "cudnnCreate*Descriptor";
		return st;
	}
	if ((st = v->cu_tensor_set(v->xd, CUDNN_NCHW, dt, n, c, h, wd)) ||
	    (st = v->cu_tensor_set(v->yd, CUDNN_NCHW, dt, n, k, h, wd)) ||
	    (st = v->cu_filter_set(v->wd, dt, CUDNN_NCHW, k, c, 3, 3)) ||
	    (st = v->cu_conv_set(v->cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_FLOAT)) ||
	    (st = v->cu_conv_math(v->cd, fp16 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH))) {
		*call = "cudnnSet*Descriptor";
		return st;
	}
	struct cudnn_perf perf[8];
	int got = 0;
	memset(perf, 0, sizeof(perf));
	if ((st = v->cu_algo(v->handle, v->xd, v->wd, v->cd, v->yd, 8, &got, perf))) {
		*call = "cudnnGetConvolutionForwardAlgorithm_v7";
		return st;
	}
	int pick = -1;
	for (int i = 0; i < got && i < 8 && pick < 0; i++) {
		bool tf32 = perf[i].math_type == CUDNN_TENSOR_OP_MATH ||
			    perf[i].math_type == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
		if (perf[i].status == 0 && (fp16 || !tf32))
			pick = i;
	}
	if (pick < 0) {
		*call = "cudnnGetConvolutionForwardAlgorithm_v7 (no usable algorithm)";
		return -1;
	}
	*algo = perf[pick].algo;
	if ((st = v->cu_conv_math(v->cd, perf[pick].math_type))) {
		*call = "cudnnSetConvolutionMathType";
		return st;
	}
	if ((st = v->cu_ws(v->handle, v->xd, v->wd, v->cd, v->yd, *algo, ws_size))) {
		*call = "cudnnGetConvolutionForwardWorkspaceSize";
		return st;
	}
	if (*ws_size && b->ops->alloc(b, *ws_size, ws) < 0) {
		*call = "cuMemAlloc (workspace)";
		return -1;
	}
	return 0;
}

static int vdnn_forward(struct vdnn *v, bk_ptr x, bk_ptr w, bk_ptr y, int algo, bk_ptr ws, size_t ws_size)
{
	const float one = 1.0f, zero = 0.0f;
	void *px = (void *)(uintptr_t)x, *pw = (void *)(uintptr_t)w, *py = (void *)(uintptr_t)y;
	void *pws = (void *)(uintptr_t)ws;
	if (v->rocm)
		return v->mi_forward(v->handle, &one, v->xd, px, v->wd, pw, v->cd, algo, &zero, v->yd, py, pws, ws_size);
	return v->cu_forward(v->handle, &one, v->xd, px, v->wd, pw, v->cd, algo, pws, ws_size, &zero, v->yd, py);
}

static bool transform_algo(bool rocm, int algo)
{
	return rocm ? algo == MIOPEN_ALGO_FFT || algo == MIOPEN_ALGO_WINOGRAD : algo >= CUDNN_ALGO_FFT;
}

struct dnn_work {
	struct vdnn *v;
	bk_ptr x, w, y;
	int algo;
	bk_ptr ws;
	size_t ws_size;
};

/* the library's status, 0 success */
static int dnn_work(struct probe_ctx *pc, void *arg)
{
	(void)pc;
	const struct dnn_work *d = arg;
	return vdnn_forward(d->v, d->x, d->w, d->y, d->algo, d->ws, d->ws_size);
}

/* The library's handle: 0, or -1 with out an error. */
static int dnn_start(struct vdnn *v, struct probe_outcome *out, const char *probe, const char *lib)
{
	char err[400];
	int st = v->create(&v->handle);
	if (st == 0)
		return 0;
	v->handle = NULL;
	vdnn_error(v, v->rocm ? "miopenCreate" : "cudnnCreate", st, err, sizeof(err));
	out->status = ST_ERROR;
	snprintf(out->summary, sizeof(out->summary), "%s: %s %s (%.100s) does not start: %.340s", probe, lib,
		 v->version, v->path, err);
	snprintf(out->fix, sizeof(out->fix), "%s could not initialise on this GPU; %s", lib,
		 v->rocm ? "run `rocmcheck doctor --only rocm.runtime`."
			 : "cuDNN starts the CUDA runtime: `rocmcheck doctor --only cuda.driver,cuda.toolkit`.");
	return -1;
}

/* The output into d->y: fp32, or fp16 widened. 0, or -1 with out failed. */
static int dnn_fetch(struct probe_ctx *pc, struct conv_data *d, bk_ptr dy, struct probe_outcome *out,
		     const char *probe)
{
	struct backend *b = pc->b;
	const size_t ny = (size_t)d->s.n * d->s.k * d->s.h * d->s.w;
	int st = 0;
	if (d->fp16) {
		uint16_t *y16 = xmalloc(ny * 2);
		if (b->ops->copy_d2h(b, y16, dy, ny * 2) == 0)
			for (size_t i = 0; i < ny; i++)
				d->y[i] = half_to_float(y16[i]);
		else
			st = -1;
		free(y16);
	} else if (b->ops->copy_d2h(b, d->y, dy, ny * 4) < 0) {
		st = -1;
	}
	if (st != 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "%s: copy from the device: %.400s", probe, b->err_text);
		return -1;
	}
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_output(probe, d->y, ny);
#endif
	return 0;
}

/* Check the output (a transform algorithm's rounding allowed for) and judge. */
static void dnn_judge(struct probe_ctx *pc, struct conv_data *d, const struct vdnn *v, int algo,
		      struct probe_outcome *out, const char *probe, const char *lib)
{
	struct verify_result vr;
	bool transform = transform_algo(v->rocm, algo);
	struct conv_rounding rd = {
		.unit = 0x1p-24 * (transform ? TRANSFORM_FACTOR : 1),
		.truncating = d->fp16,
		.out_unit = d->fp16 ? 0x1p-11 : 0,
	};
	conv_verify(d, &rd, pc->job->seed, &vr);
	char what[200];
	snprintf(what, sizeof(what), "%s 3x3 N=%u C=K=%u %ux%u through %s %s (algorithm %d%s) on %.40s", probe,
		 d->s.n, d->s.c, d->s.h, d->s.w, lib, v->version, algo, transform ? ", a transform" : "",
		 pc->props.name[0] ? pc->props.name : pc->b->ops->name);
	probe_judge(out, &vr, d->fp16 ? DNN16_MIN_RATIO : DNN32_MIN_RATIO, what);
}

static void dnn_run(struct probe_ctx *pc, struct probe_outcome *out, bool fp16)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	const char *probe = fp16 ? "dnn.fp16" : "dnn.fp32";
	const bool rocm = ops->vendor == BK_VENDOR_AMD;
	const char *lib = rocm ? "MIOpen" : "cuDNN";
	struct vdnn v;
	struct conv_shape s;
	struct conv_data d;
	bk_ptr dx = 0, dw = 0, dy = 0, ws = 0;
	char err[400];
	memset(&v, 0, sizeof(v));
	memset(&d, 0, sizeof(d));

	if (ops->vendor == BK_VENDOR_NONE) {
		out->status = ST_SKIP;
		snprintf(out->summary, sizeof(out->summary), "%s: no vendor DNN library for the %s backend", probe,
			 ops->name);
		return;
	}
	int rc = vdnn_open(b, &v, rocm);
	if (!probe_library_opened(out, probe, lib, v.path, rc, b->err_text))
		return;
	int st;
	if (dnn_start(&v, out, probe, lib) < 0)
		goto out;

	probe_conv_shape(pc->job, &s);
	conv_data_make(&d, &s, fp16, pc->job->seed);
	const size_t nx = (size_t)s.n * s.c * s.h * s.w, nw = (size_t)s.k * s.c * 9, ny = (size_t)s.n * s.k * s.h * s.w;
	const size_t esz = fp16 ? 2 : 4;
	out->m = s.k;
	out->n = s.n * s.h * s.w;
	out->k = s.c * 9;
	if (ops->alloc(b, nx * esz, &dx) < 0 || ops->alloc(b, nw * esz, &dw) < 0 || ops->alloc(b, ny * esz, &dy) < 0 ||
	    ops->copy_h2d(b, dx, fp16 ? (void *)d.x16 : (void *)d.x32, nx * esz) < 0 ||
	    ops->copy_h2d(b, dw, fp16 ? (void *)d.w16 : (void *)d.w32, nw * esz) < 0) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "%s: device memory: %.400s", probe, b->err_text);
		goto out;
	}
	if (probe_poison(pc, dy, ny * esz, "y", out) < 0)
		goto out;
	int algo = -1;
	size_t ws_size = 0;
	const char *call = "";
	st = vdnn_prepare(&v, &s, fp16, dx, dw, dy, b, &ws, &ws_size, &algo, &call);
	if (st != 0) {
		if (st > 0)
			vdnn_error(&v, call, st, err, sizeof(err));
		else
			snprintf(err, sizeof(err), "%.80s: %.300s", call, b->err_text);
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "%s: %s %s cannot set up the convolution: %.420s", probe,
			 lib, v.version, err);
		snprintf(out->fix, sizeof(out->fix), "%s fails on this GPU as PyTorch's convolutions would; %s", lib,
			 rocm ? "`rocmcheck doctor --only rocm.runtime,device.arch` shows whether the arch is supported."
			      : "check that this cuDNN matches the CUDA release and driver (`rocmcheck doctor`).");
		goto out;
	}
	snprintf(out->variant, sizeof(out->variant), "%s %.12s algo %d", rocm ? "miopen" : "cudnn", v.version, algo);

	int iters = probe_iterations(pc->job);
	struct dnn_work dw_ = { &v, dx, dw, dy, algo, ws, ws_size };
	struct probe_timing t;
	probe_time(pc, dnn_work, &dw_, probe_warmups(pc->job), iters, &t);
	st = t.work_rc;
	if (st != 0) {
		vdnn_error(&v, rocm ? "miopenConvolutionForward" : "cudnnConvolutionForward", st, err, sizeof(err));
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "%s: %s %.460s", probe, lib, err);
		snprintf(out->fix, sizeof(out->fix), "%s's convolution fails on this GPU as PyTorch's would; look for "
			 "driver errors in `sudo dmesg` and run `rocmcheck doctor`.", lib);
		goto out;
	}
	if (t.stage) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "%s: %s's convolution: %s: %.400s", probe, lib, t.stage,
			 b->err_text);
		goto out;
	}
	if (dnn_fetch(pc, &d, dy, out, probe) < 0)
		goto out;
	out->seconds = t.seconds;
	if (out->seconds > 0)
		out->tflops = conv_flops(&s) / out->seconds / 1e12;
	double peak = fp16 ? pc->job->fp16_peak : pc->job->fp32_peak;
	if (peak > 0)
		out->expected_tflops = peak;
	dnn_judge(pc, &d, &v, algo, out, probe, lib);
out:
	vdnn_close(&v);
	if (ws)
		ops->free(b, ws);
	if (dx)
		ops->free(b, dx);
	if (dw)
		ops->free(b, dw);
	if (dy)
		ops->free(b, dy);
	conv_data_release(&d);
}

void probe_dnn_fp32(struct probe_ctx *pc, struct probe_outcome *out)
{
	dnn_run(pc, out, false);
}

void probe_dnn_fp16(struct probe_ctx *pc, struct probe_outcome *out)
{
	dnn_run(pc, out, true);
}
