/* The probe engine: small GPU kernels whose every result is checked against
 * an independent host reference, each run in a forked child under a
 * watchdog, plus the runtime checks rocm.runtime and cuda.driver.
 *
 * This header: a probe's job and context, the registry, job policy, the
 * runner, the kernels, doctor's glue. One header per other concern:
 * backend.h, harness.h, gemm_dev.h, conv_dev.h, sustained.h, pcie.h.
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

struct probe_outcome;
struct verify_result;

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
	/* probe --variant: the fp16 GEMM kernel to run, as gemm16_variant_name
	 * says it ("mma" on Hopper also loads the sm_90 image, not sm_90a),
	 * "" the best the device has */
	char variant[16];
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
	/* runs our fp16 GEMM kernel, which probe --variant chooses */
	PROBE_GEMM16 = 1u << 2,
};

struct probe_def {
	const char *name;          /* "gemm.fp32" (`probe NAME` matches it or its group) */
	const char *id;            /* "probe.gemm.fp32" */
	const char *group;         /* "gemm" */
	unsigned flags;            /* enum probe_flag bits */
	void (*run)(struct probe_ctx *pc, struct probe_outcome *out);
	const char *title;         /* for `checks`: "FP32 GEMM on the GPU" */
	const char *explain;       /* for `checks --explain`: what it runs, what it verifies */
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

/* Set the result of `check_id` for GPU `gpu` in the report to fail and
 * append `note` to its summary (a probe confirmed the check's diagnosis). */
void probe_confirm_check(struct report *r, const char *check_id, int gpu, const char *note);

/* Matrix sizes for a backend and size class. */
unsigned probe_gemm_dim(const struct probe_job *job);
int probe_iterations(const struct probe_job *job);
/* Untimed runs before the timed ones: 1 on the host reference, else 3. */
int probe_warmups(const struct probe_job *job);
/* probe.sustained's run: job->duration_s, or PROBE_SUSTAINED_DEFAULT_S when
 * unset, at most PROBE_SUSTAINED_MAX_S. */
#define PROBE_SUSTAINED_DEFAULT_S 10
#define PROBE_SUSTAINED_MAX_S 600
double probe_duration(const struct probe_job *job);

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
/* The same, never an arch-specific image when !specific_ok (probe --variant
 * mma on Hopper). */
const struct rc_kernel_image *cuda_image_pick_for(const struct rc_kernel_image *imgs, int major, int minor,
						  bool specific_ok);
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

/* The probes doctor runs at `level` on one GPU, into set[] (room for every
 * probe_defs row): none at quick, the short set at standard (plus rocBLAS
 * when `blas`: rocm.rocblas doubts it), every probe at full (the timed
 * probe.sustained included). Returns how many. */
size_t doctor_probe_select(enum level level, bool blas, const struct check_filter *flt,
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
