/* The probe engine: small GPU kernels whose every result is checked against
 * an independent host reference, each run in a forked child under a
 * watchdog, plus the runtime checks rocm.runtime and cuda.driver.
 *
 * Layers, each using only those before it (ci/file-graph checks it):
 * backend.h (the runtimes; backend_registry.c names them) -> probe_harness.c
 * (inputs, verification, judgement, isolation) and probe_policy.c (sizes,
 * iterations, duration of a job) -> gemm_dev.c (the GEMM kit gemm, blas and
 * sustained share) -> probe_gemm.c, probe_conv.c, probe_amp.c,
 * probe_bandwidth.c, probe_rtc.c, probe_sustained.c (our kernels) and
 * probe_blas.c, probe_dnn.c (the vendor libraries beside them) ->
 * probe_defs.c (the registry) -> probe_run.c (which GPU, which backend, one
 * child for a set of probes, results into the report) -> cmd_probe.c and
 * doctor. */
#ifndef ROCMCHECK_PROBE_H
#define ROCMCHECK_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "checks.h"
#include "report.h"

/* ---- fp16 and deterministic inputs ---- */
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);   /* round to nearest even */

struct prng {
	uint64_t s;
};
void prng_seed(struct prng *p, uint64_t seed);
uint64_t prng_next(struct prng *p);             /* splitmix64 */
/* Uniform on a grid of `steps` values in [-1, 1] (exact in fp16 for steps <= 2048). */
double prng_grid(struct prng *p, unsigned steps);
/* n probe inputs on the grid that is exact in their format: fp16 values in
 * steps of 1/1024 into a new *h16, or fp32 values in steps of 2^-20 into a new
 * *f32 (the other pointer is left alone). The caller frees. */
void probe_fill_grid(struct prng *p, bool fp16, size_t n, uint16_t **h16, float **f32);

/* ---- verification, reusable by every probe ---- */

/* A product C = A * B to check, where A is m x k and B is k x n, read through
 * accessors that return the exact input values (as the device saw them) in
 * double. Convolutions check through the same interface with im2col-style
 * accessors. */
struct matmul_check {
	unsigned m, n, k;
	double (*a)(const void *ctx, size_t row, size_t col);
	double (*b)(const void *ctx, size_t row, size_t col);
	const void *ctx;
	const float *c;            /* result, row-major, m x n */
	double unit_roundoff;      /* of the accumulation: 2^-24 for fp32 */
	bool truncating;           /* a matrix unit may round toward zero as it accumulates */
	double out_unit;           /* rounding of a result stored narrower: 2^-11 for fp16, 0 none */
	unsigned vectors;          /* Freivalds vectors (default 4) */
	unsigned samples;          /* sampled elements compared exactly: at least this many (64),
				    * more where about 2^23 multiply-adds allow (probe_harness.c) */
	uint64_t seed;
};

struct verify_result {
	bool ok;                   /* no wrong, NaN or Inf element */
	long wrong;                /* rows failing Freivalds + sampled elements out of tolerance */
	long nan_count, inf_count;   /* poison not counted */
	long unwritten;            /* elements still holding PROBE_POISON_WORD */
	double max_rel_error;      /* over sampled elements: |c - exact| / sum |a||b| */
	double max_row_ratio;      /* over Freivalds rows: |Cr - ABr| / its tolerance */
	char detail[256];          /* the first problem, "" when ok */
	char method[32];           /* "freivalds+sampled", "exact" */
};

/* 0, or -EINVAL for a malformed request. */
int verify_matmul(const struct matmul_check *mc, struct verify_result *out);

/* Elementwise results: `expect` returns the exact value of element i and
 * sets *bound to its allowed absolute error. */
int verify_elementwise(const float *got, size_t n,
		       double (*expect)(const void *ctx, size_t i, double *bound), const void *ctx,
		       struct verify_result *out);

/* ---- what a probe child sends back over the pipe (plain data) ---- */
struct probe_outcome {
	int status;                /* enum status */
	char summary[512];
	char fix[512];             /* "" none */
	char variant[32];
	char verification[32];
	char device[128];
	char arch[32];
	unsigned m, n, k;
	double seconds, tflops, expected_tflops, ratio, max_rel_error, gbs, expected_gbs;
	long nan_count;
	struct probe_metric metrics[PROBE_METRICS_MAX];  /* report.h */
	unsigned nmetrics;
	char confirms[32];         /* a check whose failure this result confirms ("rocm.rocblas"), "" none */
	char blocking_var[64];     /* set by the runner from the job: named in a slow result's fix */
};
void probe_outcome_init(struct probe_outcome *o);
/* Append a named figure (ignored beyond PROBE_METRICS_MAX or when not finite). */
void probe_metric_set(struct probe_outcome *o, const char *name, double value);
/* Append a figure that is not known (JSON null): a temperature where the
 * device has no sensor, never 0. */
void probe_metric_null(struct probe_outcome *o, const char *name);
/* probe_metric_set for a finite value, probe_metric_null otherwise. */
void probe_metric_or_null(struct probe_outcome *o, const char *name, double value);
/* The figure named `name`, or `dflt`. */
double probe_metric_get(const struct probe_outcome *o, const char *name, double dflt);

/* Judge a measured, verified result: wrong/NaN -> fail whatever the speed;
 * correct but ratio (tflops / expected) under min_ratio -> warn with the
 * likely causes; else pass. Fills status, summary, fix, ratio. */
void probe_judge(struct probe_outcome *o, const struct verify_result *v, double min_ratio,
		 const char *what);

struct probe_ctx;
/* Poison: every output a probe verifies is filled with this word first (a
 * NaN whose bits are unlikely to be computed), so a kernel or copy that
 * writes nothing cannot pass on what an earlier producer left there; the
 * verifiers count elements that still hold it as never written. */
#define PROBE_POISON_WORD 0xffbadbadu
bool probe_is_poison(float v);
void probe_poison_host(void *p, size_t bytes);
/* Fill `bytes` of device memory at p with the poison. 0, or -1 with `out`
 * failed ("poisoning WHAT failed: ..."). */
int probe_poison(struct probe_ctx *pc, bk_ptr p, size_t bytes, const char *what, struct probe_outcome *out);
/* ---- timing: the one launch loop every timed probe uses ---- */
/* One unit of timed work, enqueued (asynchronous on a GPU): 0, or nonzero
 * to stop (the work keeps its own reason). */
typedef int (*probe_work_fn)(struct probe_ctx *pc, void *arg);
struct probe_timing {
	double seconds;            /* per run; -1 when not measured */
	int work_rc;               /* the work's nonzero return that stopped the loop, else 0 */
	const char *stage;         /* else the runtime step that failed: "timing events",
				    * "kernel execution"; NULL when nothing failed */
};
/* `warm` runs, a synchronize, then `reps` runs between two events. 0, or -1
 * with t->work_rc or t->stage saying what stopped it (the runtime's words
 * in pc->b->err_text). */
int probe_time(struct probe_ctx *pc, probe_work_fn fn, void *arg, int warm, int reps, struct probe_timing *t);

/* A runtime call failed: fail "WHAT failed: <the backend's error>". Returns -1. */
int probe_backend_fail(struct probe_ctx *pc, struct probe_outcome *o, const char *what);

/* The outcome of dlopen'ing a vendor library (rocBLAS, cuBLAS, MIOpen,
 * cuDNN) for `probe`: rc -ENOENT is skip ("not installed"), another negative
 * rc is error ("not usable"), both with `why`; returns true when rc is 0 and
 * the probe goes on. */
bool probe_library_opened(struct probe_outcome *o, const char *probe, const char *lib, const char *path, int rc,
			  const char *why);

/* ---- isolation: run fn in a forked child under a watchdog ----
 * The child's stdout goes to /dev/null; the end of its stderr is kept for
 * the message when it dies. Returns 0 when the child delivered `out`
 * completely; otherwise fills `why` ("timed out after 5 s", "crashed with
 * signal 11 (Segmentation fault)") and returns -ETIMEDOUT / -ECHILD / -EIO,
 * or -EDEADLK when the child outlived SIGKILL by 10 s (stuck in the driver:
 * the GPU is hung; it is left behind, never waited for without a bound). */
typedef void (*isolated_fn)(void *arg, void *out);
int run_isolated(isolated_fn fn, void *arg, void *out, size_t out_size, int timeout_s,
		 char *why, size_t why_size);
/* The same for a child that sends up to `max` records of `size` bytes, each
 * with isolated_emit() as soon as it is ready: the watchdog restarts for
 * every record, and what arrived before a crash or hang is kept. *got is
 * the number of complete records. Returns 0 when the child exited normally
 * (whatever it sent), else as run_isolated. */
typedef void (*isolated_stream_fn)(void *arg, int fd);
void isolated_emit(int fd, const void *rec, size_t size);
int run_isolated_stream(isolated_stream_fn fn, void *arg, void *recs, size_t size, size_t max, int timeout_s,
			size_t *got, char *why, size_t why_size);

/* ---- probes ---- */
enum probe_size { PROBE_SMALL = 0, PROBE_MEDIUM, PROBE_LARGE };
int probe_size_parse(const char *s, enum probe_size *out);   /* 0 or -EINVAL */

struct probe_job {
	const struct backend_ops *ops;
	int device;                /* runtime ordinal; -1: find by pci_addr */
	char pci_addr[32];         /* "0000:03:00.0" or "" */
	char arch[32];             /* arch from the facts (effective gfx), "" unknown */
	enum probe_size size;
	int iterations;            /* 0: default for the backend */
	double fp32_peak, fp16_peak;  /* TFLOP/s from the profile, 0 unknown */
	double mem_gbs;            /* memory bandwidth from the profile, 0 unknown */
	/* the PCIe link from the facts (sysfs current_link_* / max_link_*):
	 * GT/s and lanes, 0 unknown */
	double link_gts, max_link_gts;
	unsigned link_width, max_link_width;
	uint64_t seed;
	/* probe.sustained: seconds of back-to-back load (0: the default,
	 * probe_duration()); the root that sustained's hwmon sensors and
	 * bandwidth's PCIe link are re-read under, through the sysroot layer
	 * ("" the live machine; tests point it at a tree) */
	double duration_s;
	char sysfs_root[256];
	/* a launch-serialising variable the environment sets true
	 * (facts: env.blocking_vars), "" none */
	char blocking_var[64];
};

/* What a running probe sees (inside the child). */
struct probe_ctx {
	const struct probe_job *job;
	struct backend *b;
	int device;
	struct backend_props props;
	void *module;              /* the kernels, loaded for this device; NULL when none */
	char module_error[512];    /* why there is no module */
	char module_fix[512];      /* what to do about it, "" when the caller knows best */
};

enum probe_flag {
	PROBE_SHORT = 1u << 0,     /* in doctor --level standard's short set */
	/* runs for probe_duration(job) seconds (probe.sustained): the watchdog
	 * allows that much more, doctor runs it at --level full only, and
	 * `probe` without names leaves it out */
	PROBE_TIMED = 1u << 1,
};

struct probe_def {
	const char *name;          /* "gemm.fp32" (`probe NAME` matches it or its group) */
	const char *id;            /* "probe.gemm.fp32" */
	const char *group;         /* "gemm" */
	unsigned flags;            /* enum probe_flag bits */
	void (*run)(struct probe_ctx *pc, struct probe_outcome *out);
};
extern const struct probe_def probe_defs[];   /* terminated by {0} */
const struct probe_def *probe_find(const char *name);
/* The PROBE_TIMED flag of d (false for NULL). */
bool probe_timed(const struct probe_def *d);

void probe_gemm_fp32(struct probe_ctx *pc, struct probe_outcome *out);
void probe_gemm_fp16(struct probe_ctx *pc, struct probe_outcome *out);
void probe_rtc(struct probe_ctx *pc, struct probe_outcome *out);
void probe_conv_fp32(struct probe_ctx *pc, struct probe_outcome *out);
void probe_conv_fp16(struct probe_ctx *pc, struct probe_outcome *out);
void probe_amp(struct probe_ctx *pc, struct probe_outcome *out);
void probe_bandwidth(struct probe_ctx *pc, struct probe_outcome *out);
void probe_blas_fp32(struct probe_ctx *pc, struct probe_outcome *out);
void probe_blas_fp16(struct probe_ctx *pc, struct probe_outcome *out);
void probe_dnn_fp32(struct probe_ctx *pc, struct probe_outcome *out);
void probe_dnn_fp16(struct probe_ctx *pc, struct probe_outcome *out);
void probe_sustained(struct probe_ctx *pc, struct probe_outcome *out);

/* ---- probe.sustained's figures (probe_sustained.c) ---- */
#define PROBE_SUSTAINED_DEFAULT_S 10
#define PROBE_SUSTAINED_MAX_S 600
/* job->duration_s, or PROBE_SUSTAINED_DEFAULT_S when unset. */
double probe_duration(const struct probe_job *job);
struct sustained_stats {
	size_t n;                  /* launches timed */
	double median, min, max;   /* TFLOP/s over the launches */
	double spread;             /* (max - min) / median */
	size_t group;              /* launches in each of the first and last groups */
	double first, last;        /* median TFLOP/s of the first and the last 10% */
	double throttle_ratio;     /* last / first */
};
/* From the seconds of each launch of `flops` work, in launch order. 0, or
 * -EINVAL when there is no positive time. */
int sustained_stats_compute(const double *seconds, size_t n, double flops, struct sustained_stats *st);
/* Warn above max_spread (not judged when <= 0) or below min_ratio. */
struct sustained_limits {
	double max_spread, min_ratio;
};
/* A GPU: 15% spread, 85% last-to-first. The cpu backend (a shared host,
 * not a device: other processes take its cores) only a slowdown to a
 * quarter. */
void sustained_limits_for(const struct probe_job *job, struct sustained_limits *lim);
/* ST_PASS, or ST_WARN with what broke the limits in `why`. */
int sustained_assess(const struct sustained_stats *st, const struct sustained_limits *lim, char *why,
		     size_t why_size);
/* ---- pieces the probes share ---- */

/* The convolution of probe.conv and probe.dnn: x (N x C x H x W), w
 * (K x C x 3 x 3), stride 1, padding 1, y (N x K x H x W) in fp32. */
struct conv_shape {
	unsigned n, c, h, w, k;
};
void probe_conv_shape(const struct probe_job *job, struct conv_shape *s);
struct conv_data {
	struct conv_shape s;
	bool fp16;
	float *x32, *w32;
	uint16_t *x16, *w16;
	float *y;                  /* host copy of the output, NCHW */
	float *ymat;               /* the output as the K x (N*H*W) matrix verify_matmul reads */
};
void conv_data_make(struct conv_data *d, const struct conv_shape *s, bool fp16, uint64_t seed);
void conv_data_release(struct conv_data *d);
/* How a convolution's result was computed, for its check: the unit roundoff
 * of the accumulation (2^-24 fp32, 2^-11 fp16; times a factor for Winograd
 * and FFT, which are not dot products: probe_dnn.c), whether a matrix unit
 * may truncate, and the rounding of an output stored in fp16 (2^-11, else 0). */
struct conv_rounding {
	double unit;
	bool truncating;
	double out_unit;
};
/* Check d->y against the double-precision convolution (verify_matmul). */
int conv_verify(struct conv_data *d, const struct conv_rounding *rd, uint64_t seed, struct verify_result *v);
double conv_flops(const struct conv_shape *s);

/* PCIe: "16.0 GT/s PCIe" or "8 GT/s" -> GT/s (0 unknown); "16" -> lanes (0
 * unknown); the payload bandwidth of a link per direction in GB/s after
 * line encoding (8b/10b up to 5 GT/s, 128b/130b from 8 GT/s, FLIT at 64). */
double pcie_speed_gts(const char *s);
unsigned pcie_width(const char *s);
double pcie_link_gbs(double gts, unsigned width);
unsigned pcie_gen(double gts);

/* Set the result of `check_id` for GPU `gpu` in the report to fail and
 * append `note` to its summary (a probe confirmed the check's diagnosis). */
void probe_confirm_check(struct report *r, const char *check_id, int gpu, const char *note);

/* Matrix sizes for a backend and size class. */
unsigned probe_gemm_dim(const struct probe_job *job);
int probe_iterations(const struct probe_job *job);
/* Untimed runs before the timed ones: 1 on the host reference, else 3. */
int probe_warmups(const struct probe_job *job);

/* Run one probe in an isolated child and return its outcome (never fails:
 * a crash or hang becomes a fail outcome). */
void probe_run_job(const struct probe_def *def, const struct probe_job *job, int timeout_s,
		   struct probe_outcome *out);
/* Run several probes on one GPU in one child, which sets up the runtime
 * once: outs[i] for defs[i]. A probe that fails, crashes or hangs ends the
 * child; the rest run in a fresh one. When the runtime itself crashes or
 * hangs before the first probe, every probe gets that failure. The watchdog
 * (timeout_s) is per probe. */
void probe_run_set(const struct probe_def *const *defs, size_t n, const struct probe_job *job, int timeout_s,
		   struct probe_outcome *outs);
/* Copy an outcome into a report entry. */
void probe_outcome_to_report(const struct probe_outcome *o, struct report *r, const char *id,
			     int gpu, const char *backend);

/* ---- kernels embedded at build time (kernels/kernels.cmake) ---- */
extern const char cpu_kernel_image[];
/* The image for this backend and device; for cuda, the embedded cubin or PTX
 * cuda_image_pick chooses; for hip, the bundle entry for the arch, else
 * hiprtc compilation of the embedded source in an isolated child (cached
 * under $XDG_CACHE_HOME/rocmcheck/). Fills pc->module, or pc->module_error
 * and (when it knows the fix) pc->module_fix. */
int probe_load_kernels(struct probe_ctx *pc);
/* A probe's outcome when probe_load_kernels failed: fail, with its reason
 * and the fix for it (pc->module_fix; a newer ROCm when hiprtc crashed). */
void probe_kernels_fail(struct probe_ctx *pc, struct probe_outcome *out);
/* In the parent, before the probe children fork: for a hip job whose arch
 * the bundle lacks, compile with hiprtc once, in an isolated child (hiprtc
 * can abort the process), and keep the code object or the reason there is
 * none for probe_load_kernels in the children. 0, or a negative errno
 * (-ENOENT: compilation failed, the children report why). */
int probe_kernels_prepare(const struct backend_ops *ops, const char *arch);
/* Drop what probe_kernels_prepare kept (tests). */
void probe_kernels_forget(void);
/* The CUDA image for a GPU of compute capability major.minor from a
 * NULL-target-terminated table: the cubin of the same major with the highest
 * minor not above the GPU's (an arch-specific "sm_90a" only for exactly 9.0,
 * and preferred there), else the newest PTX not above the GPU, else NULL.
 * Borrowed from `imgs`. */
struct rc_kernel_image;
const struct rc_kernel_image *cuda_image_pick(const struct rc_kernel_image *imgs, int major, int minor);
/* "cuda: NVRTC 12.0.76: sm_70,...", "hip:gfx900,...", "rtc:source"; NULL-terminated. */
const char *const *probe_embedded_targets(void);

/* ---- runtime checks (spec/checks.md rocm.runtime, cuda.driver) ---- */
void check_rocm_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def);
void check_cuda_driver(const struct check_ctx *ctx, struct report *r, const struct check_def *def);

/* CUDA driver API error names for the codes a user meets, for when the
 * library itself cannot say (the stub leaves cuGetErrorName's string NULL). */
const char *cuda_error_fallback_name(int code);

/* A job for facts GPU `g`: the backend of its vendor, its runtime ordinal
 * among the visible GPUs of that vendor, PCI address, effective arch and the
 * profile's peak figures. -ENODEV for a GPU no backend drives. */
/* The seed of the probes' inputs unless a test asks for another. */
#define PROBE_DEFAULT_SEED 0x726f636d63686bULL
/* Whether GPU `index` is in a --gpu list ("0,2"); NULL or "" selects all. */
bool probe_gpu_selected(const char *gpus, int index);
int probe_job_for_gpu(const struct facts *f, const struct profiles *db, const struct gpu *g,
		      struct probe_job *job);

/* Progress line on stderr when it is a terminal ("" clears it). */
void probe_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The probes doctor runs at `level` on one GPU, into set[] (room for every
 * probe_defs row): none at quick, the short set at standard (plus rocBLAS
 * when `blas`: rocm.rocblas doubts it), every probe at full (the timed
 * probe.sustained included). Returns how many. */
size_t doctor_probe_select(const char *level, bool blas, const struct check_filter *flt,
			   const struct probe_def **set);

/* doctor --level standard/full: the short set on every usable GPU. `gpus`
 * is the --gpu list ("0,2") or NULL for all. */
void doctor_run_probes(const struct check_ctx *ctx, struct report *r, const struct check_filter *flt,
		       const char *gpus, int timeout_s);

#ifdef ROCMCHECK_TEST_HOOKS
/* Test-only faults from ROCMCHECK_TEST_FAULT=crash|hang|wrong|nan|wrong_last|throttle (and the
 * cpu backend's nowrite|nowrite_late|nocopy, backend_cpu.c), limited
 * to one probe with ROCMCHECK_TEST_FAULT_PROBE=gemm.fp32; amp_nodetect makes
 * the cpu backend's non-finite check miss every overflow. */
void probe_test_fault_start(const char *probe);
void probe_test_fault_output(const char *probe, float *c, size_t n);
/* wrong_last: corrupt the last result of a sustained run (the first is
 * right: a card that goes wrong when hot); throttle: in the second half of
 * a sustained run, every cpu-backend launch takes 10 s more on the event
 * clock (probe_sustained.c turns it on, backend_cpu.c adds the time). */
void probe_test_fault_last(const char *probe, float *c, size_t n);
bool probe_test_fault_is(const char *fault);
void backend_cpu_test_throttle(bool on);
#endif

#endif
