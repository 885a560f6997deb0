/* blas.fp32 and blas.fp16: the vendor's GEMM -- rocBLAS on AMD, cuBLAS on
 * NVIDIA, each through dlopen -- on exactly the inputs of probe.gemm,
 * verified the same way, with our kernel's figure beside it. This is the
 * library PyTorch's matmuls run on. rocBLAS aborts the process when its
 * Tensile library lacks the GPU's arch; probe_run.c turns that abort into
 * the failure users meet, confirming rocm.rocblas.
 *
 * Row-major C = A B is, to a column-major library, C^T = B^T A^T: the call
 * passes B first, m and n swapped, leading dimensions n, k, n. */
#include "gemm_dev.h"
#include "harness.h"
#include "probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLAS32_MIN_RATIO 0.25     /* a vendor GEMM reaches 50-90% of peak at 2048^3 */
#define BLAS16_MIN_RATIO 0.08

/* rocBLAS (rocblas.h, rocblas-types.h) */
enum {
	RB_OP_NONE = 111,
	RB_F16 = 150,
	RB_F32 = 151,
	RB_ALGO_STANDARD = 0,
	RB_NOT_IMPLEMENTED = 2,
};
/* cuBLAS (cublas_api.h, library_types.h) */
enum {
	CB_OP_N = 0,
	CB_R_16F = 2,
	CB_R_32F = 0,
	CB_COMPUTE_32F = 68,
	CB_GEMM_DEFAULT = -1,
	CB_NOT_SUPPORTED = 15,
};

struct vblas {
	bool rocm;
	void *lib;
	char path[256];
	void *handle;
	char version[32];
	int (*create)(void **);
	int (*destroy)(void *);
	/* rocBLAS */
	int (*rb_sgemm)(void *, int, int, int, int, int, const float *, const float *, int, const float *, int,
			const float *, float *, int);
	int (*rb_gemm_ex)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *, int,
			  int, const void *, const void *, int, int, void *, int, int, int, int, int32_t, uint32_t);
	const char *(*rb_status)(int);
	int (*rb_version)(char *, size_t);
	/* cuBLAS */
	int (*cb_sgemm)(void *, int, int, int, int, int, const float *, const float *, int, const float *, int,
			const float *, float *, int);
	int (*cb_gemm_ex)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *, int,
			  int, const void *, void *, int, int, int, int);
	const char *(*cb_status)(int);
	int (*cb_property)(int, int *);
};

static const char *rocblas_status_name(int s)
{
	static const char *const names[] = {
		"rocblas_status_success", "rocblas_status_invalid_handle", "rocblas_status_not_implemented",
		"rocblas_status_invalid_pointer", "rocblas_status_invalid_size", "rocblas_status_memory_error",
		"rocblas_status_internal_error", "rocblas_status_perf_degraded", "rocblas_status_size_query_mismatch",
		"rocblas_status_size_increased", "rocblas_status_size_unchanged", "rocblas_status_invalid_value",
		"rocblas_status_continue", "rocblas_status_check_numerics_fail", "rocblas_status_excluded_from_build",
		"rocblas_status_arch_mismatch",
	};
	return s >= 0 && (size_t)s < ARRAY_SIZE(names) ? names[s] : "rocblas_status_unknown";
}

static const char *cublas_status_name(int s)
{
	switch (s) {
	case 0: return "CUBLAS_STATUS_SUCCESS";
	case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
	case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
	case 7: return "CUBLAS_STATUS_INVALID_VALUE";
	case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
	case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
	case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
	case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
	case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
	case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
	}
	return "CUBLAS_STATUS_UNKNOWN";
}

/* "cublasCreate: CUBLAS_STATUS_NOT_INITIALIZED (1): the library was not initialized" */
static void vblas_error(const struct vblas *vb, const char *call, int st, char *buf, size_t size)
{
	const char *text = NULL;
	if (vb->rocm && vb->rb_status)
		text = vb->rb_status(st);
	else if (!vb->rocm && vb->cb_status)
		text = vb->cb_status(st);
	const char *name = vb->rocm ? rocblas_status_name(st) : cublas_status_name(st);
	if (text && *text && strcmp(text, name) != 0)
		snprintf(buf, size, "%s: %s (%d): %s", call, name, st, text);
	else
		snprintf(buf, size, "%s: %s (%d)", call, name, st);
}

/* dlopen the vendor BLAS for the backend: 0, -ENOENT (not installed; the
 * dlerror texts in b->err_text) or -ENOSYS (a symbol missing). */
static int vblas_open(struct backend *b, struct vblas *vb, bool rocm)
{
	static const char *const rocblas_names[] = {
		"librocblas.so.5", "librocblas.so.4", "librocblas.so.3", "librocblas.so.0", "librocblas.so",
		"/opt/rocm/lib/librocblas.so.5", "/opt/rocm/lib/librocblas.so.4", "/opt/rocm/lib/librocblas.so.3",
		"/opt/rocm/lib/librocblas.so", NULL
	};
	static const char *const cublas_names[] = {
		"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so",
		"/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12",
		"/usr/local/cuda/lib64/libcublas.so.11", NULL
	};
	memset(vb, 0, sizeof(*vb));
	vb->rocm = rocm;
	if (backend_dlopen(b, &vb->lib, vb->path, sizeof(vb->path), rocm ? "ROCMCHECK_ROCBLAS_LIB" : "ROCMCHECK_CUBLAS_LIB",
			   rocm ? rocblas_names : cublas_names) < 0)
		return -ENOENT;
	void *l = vb->lib;
	if (rocm) {
		if (BK_SYM(b, l, "rocblas_create_handle", vb->create) || BK_SYM(b, l, "rocblas_destroy_handle", vb->destroy) ||
		    BK_SYM(b, l, "rocblas_sgemm", vb->rb_sgemm) || BK_SYM(b, l, "rocblas_gemm_ex", vb->rb_gemm_ex))
			return -ENOSYS;
		BK_SYM_OPT(l, "rocblas_status_to_string", vb->rb_status);
		if (BK_SYM_OPT(l, "rocblas_get_version_string", vb->rb_version) == 0) {
			char v[64] = "";
			if (vb->rb_version(v, sizeof(v)) == 0) {
				v[sizeof(v) - 1] = '\0';
				char *dash = strchr(v, '-');      /* "4.2.0-e5ac3b13" */
				if (dash)
					*dash = '\0';
				snprintf(vb->version, sizeof(vb->version), "%.24s", v);
			}
		}
		return 0;
	}
	if (BK_SYM(b, l, "cublasCreate_v2", vb->create) || BK_SYM(b, l, "cublasDestroy_v2", vb->destroy) ||
	    BK_SYM(b, l, "cublasSgemm_v2", vb->cb_sgemm) || BK_SYM(b, l, "cublasGemmEx", vb->cb_gemm_ex))
		return -ENOSYS;
	BK_SYM_OPT(l, "cublasGetStatusString", vb->cb_status);
	if (BK_SYM_OPT(l, "cublasGetProperty", vb->cb_property) == 0) {
		int maj = -1, min = -1, pat = -1;
		if (vb->cb_property(0, &maj) == 0 && vb->cb_property(1, &min) == 0 && vb->cb_property(2, &pat) == 0)
			snprintf(vb->version, sizeof(vb->version), "%d.%d.%d", maj, min, pat);
	}
	return 0;
}

static void vblas_close(struct vblas *vb)
{
	if (vb->handle && vb->destroy)
		vb->destroy(vb->handle);
	/* no dlclose: both libraries keep threads and atexit handlers; the
	 * probe child exits right after */
	vb->handle = NULL;
}

static int vblas_gemm(struct vblas *vb, struct gemm_dev *g)
{
	const float one = 1.0f, zero = 0.0f;
	int m = (int)g->m, n = (int)g->n, k = (int)g->k;
	void *A = (void *)(uintptr_t)g->da, *B = (void *)(uintptr_t)g->db, *C = (void *)(uintptr_t)g->dc;
	if (vb->rocm) {
		if (!g->fp16)
			return vb->rb_sgemm(vb->handle, RB_OP_NONE, RB_OP_NONE, n, m, k, &one, B, n, A, k, &zero, C, n);
		return vb->rb_gemm_ex(vb->handle, RB_OP_NONE, RB_OP_NONE, n, m, k, &one, B, RB_F16, n, A, RB_F16, k, &zero,
				      C, RB_F32, n, C, RB_F32, n, RB_F32, RB_ALGO_STANDARD, 0, 0);
	}
	if (!g->fp16)
		return vb->cb_sgemm(vb->handle, CB_OP_N, CB_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n);
	return vb->cb_gemm_ex(vb->handle, CB_OP_N, CB_OP_N, n, m, k, &one, B, CB_R_16F, n, A, CB_R_16F, k, &zero, C,
			      CB_R_32F, n, CB_COMPUTE_32F, CB_GEMM_DEFAULT);
}

/* hipBLASLt, which rocBLAS hands some GEMMs to on MI300 from ROCm 6: said
 * when installed (not run on its own: its API needs a matmul plan per shape) */
static bool hipblaslt_present(void)
{
	static const char *const names[] = { "libhipblaslt.so.1", "libhipblaslt.so.0", "/opt/rocm/lib/libhipblaslt.so",
					     NULL };
	for (size_t i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
		if (!h)
			h = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
		if (h)
			return true;
	}
	return false;
}

struct blas_work {
	struct vblas *vb;
	struct gemm_dev *g;
};

/* the library's status, 0 success */
static int blas_work(struct probe_ctx *pc, void *arg)
{
	(void)pc;
	const struct blas_work *w = arg;
	return vblas_gemm(w->vb, w->g);
}

static void blas_run(struct probe_ctx *pc, struct probe_outcome *out, bool fp16)
{
	struct backend *b = pc->b;
	const struct backend_ops *ops = b->ops;
	const char *probe = fp16 ? "blas.fp16" : "blas.fp32";
	const bool rocm = ops->vendor == BK_VENDOR_AMD;
	const char *lib = rocm ? "rocBLAS" : "cuBLAS";
	struct vblas vb;
	struct gemm_dev g;
	char err[400];
	memset(&g, 0, sizeof(g));
	memset(&vb, 0, sizeof(vb));

	if (ops->vendor == BK_VENDOR_NONE) {
		out->status = ST_SKIP;
		snprintf(out->summary, sizeof(out->summary), "%s: no vendor BLAS for the %s backend", probe, ops->name);
		return;
	}
	int rc = vblas_open(b, &vb, rocm);
	if (rc != -ENOENT)
		snprintf(out->variant, sizeof(out->variant), "%s%s%.20s", rocm ? "rocblas" : "cublas",
			 vb.version[0] ? " " : "", vb.version);
	if (!probe_library_opened(out, probe, lib, vb.path, rc, b->err_text))
		return;
	int st = vb.create(&vb.handle);
	if (st != 0) {
		vb.handle = NULL;
		vblas_error(&vb, rocm ? "rocblas_create_handle" : "cublasCreate", st, err, sizeof(err));
		out->status = ST_ERROR;
		snprintf(out->summary, sizeof(out->summary), "%s: %s (%.100s) does not start: %.360s", probe, lib, vb.path,
			 err);
		snprintf(out->fix, sizeof(out->fix),
			 "%s could not initialise on this GPU. %s",
			 lib, rocm ? "Run `rocmcheck doctor --only rocm.runtime,rocm.rocblas`."
				   : "cuBLAS starts the CUDA runtime: `rocmcheck doctor --only cuda.driver,cuda.toolkit` "
				     "shows whether the driver supports this CUDA release.");
		goto out;
	}
	if (gemm_dev_setup(pc, &g, fp16, out) < 0)
		goto out;

	/* the vendor's GEMM: warm-up, timed runs, then the check */
	int iters = probe_iterations(pc->job);
	struct blas_work bw = { &vb, &g };
	struct probe_timing t;
	probe_time(pc, blas_work, &bw, probe_warmups(pc->job), iters, &t);
	st = t.work_rc;
	if (st != 0) {
		bool unsupported = rocm ? st == RB_NOT_IMPLEMENTED : st == CB_NOT_SUPPORTED;
		vblas_error(&vb, rocm ? (fp16 ? "rocblas_gemm_ex" : "rocblas_sgemm") : (fp16 ? "cublasGemmEx" : "cublasSgemm"),
			    st, err, sizeof(err));
		out->status = unsupported ? ST_SKIP : ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "%s: %s %.460s", probe, lib, err);
		if (!unsupported)
			snprintf(out->fix, sizeof(out->fix),
				 "%s's GEMM fails on this GPU as PyTorch's matmuls would.%s", lib,
				 rocm ? " A rocBLAS without kernels for the arch fails here: `rocmcheck doctor --only "
					"rocm.rocblas,device.arch`."
				      : " Check the driver and toolkit: `rocmcheck doctor --only cuda.driver,cuda.toolkit`.");
		goto out;
	}
	if (t.stage) {
		out->status = ST_FAIL;
		snprintf(out->summary, sizeof(out->summary), "%s: %s's GEMM: %s: %.400s", probe, lib, t.stage,
			 b->err_text);
		goto out;
	}
	struct verify_result v;
	if (gemm_dev_verify(pc, &g, probe, &v, out) < 0)
		goto out;
	out->seconds = t.seconds;
	double flops = 2.0 * g.m * g.n * (double)g.k;
	if (out->seconds > 0) {
		out->tflops = flops / out->seconds / 1e12;
		probe_metric_set(out, "vendor_tflops", out->tflops);
	}
	double peak = fp16 ? pc->job->fp16_peak : pc->job->fp32_peak;
	if (peak > 0)
		out->expected_tflops = peak;

	/* ours on the same inputs, checked too, for the figure beside it */
	struct probe_outcome own;
	probe_outcome_init(&own);
	double own_s = -1;
	struct verify_result ov;
	char own_note[160] = "";
	if (gemm_dev_run_own(pc, &g, iters, &own_s, &own) == 0 && gemm_dev_verify(pc, &g, "blas.own", &ov, &own) == 0) {
		if (!ov.ok)
			snprintf(own_note, sizeof(own_note), "; our %s kernel was wrong on the same inputs (%.80s)",
				 own.variant, ov.detail);
		else if (own_s > 0 && out->seconds > 0) {
			probe_metric_set(out, "own_tflops", flops / own_s / 1e12);
			probe_metric_set(out, "own_vs_vendor", out->seconds / own_s);
			snprintf(own_note, sizeof(own_note), "; our %s kernel: %.3g TFLOP/s, %.0f%% of %s", own.variant,
				 flops / own_s / 1e12, 100 * out->seconds / own_s, lib);
		}
	} else {
		snprintf(own_note, sizeof(own_note), "; our kernel did not run: %.100s", own.summary);
	}
	char what[200];
	snprintf(what, sizeof(what), "%s %ux%ux%u through %s %s (%.60s) on %.40s", probe, g.m, g.n, g.k, lib, vb.version,
		 vb.path, pc->props.name[0] ? pc->props.name : ops->name);
	probe_judge(out, &v, fp16 ? BLAS16_MIN_RATIO : BLAS32_MIN_RATIO, what);
	if (out->status != ST_FAIL) {
		size_t used = strlen(out->summary);
		snprintf(out->summary + used, sizeof(out->summary) - used, "%s%s", own_note,
			 rocm && hipblaslt_present() ? "; hipBLASLt is installed (not run on its own)" : "");
	}
out:
	vblas_close(&vb);
	gemm_dev_release(pc, &g);
}

void probe_blas_fp32(struct probe_ctx *pc, struct probe_outcome *out)
{
	blas_run(pc, out, false);
}

void probe_blas_fp16(struct probe_ctx *pc, struct probe_outcome *out)
{
	blas_run(pc, out, true);
}
