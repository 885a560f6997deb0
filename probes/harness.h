/* The probe harness (probe_harness.c): deterministic inputs, verification
 * against the host, the outcome a probe child sends back and its judgement,
 * poison, the timed-launch loop, and isolation in a forked child. */
#ifndef ROCMCHECK_HARNESS_H
#define ROCMCHECK_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "report.h"

struct probe_ctx;

/* ---- fp16 and deterministic inputs ---- */
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);   /* round to nearest even */
float fma_f32(float a, float b, float c);   /* fmaf, without libm */
/* fmin and fmax (a NaN argument yields the other), without libm. */
static inline double min_d(double a, double b)
{
	return (b < a || a != a) ? b : a;
}
static inline double max_d(double a, double b)
{
	return (b > a || a != a) ? b : a;
}

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
 * The child's stdin and stdout are /dev/null; the end of its stderr is kept
 * for the message when it dies. It leads a process group of its own: what
 * it forks is killed with it on a timeout, when it ends, and when a signal
 * ends rocmcheck meanwhile. Returns 0 when the child delivered `out`
 * completely; otherwise adds to `err` what happened ("timed out after 5 s",
 * "crashed with signal 11 (Segmentation fault)") and returns -ETIMEDOUT / -ECHILD / -EIO,
 * or -EDEADLK when the child outlived SIGKILL by 10 s (stuck in the driver:
 * the GPU is hung; it is left behind, never waited for without a bound). */
typedef void (*isolated_fn)(void *arg, void *out);
int run_isolated(isolated_fn fn, void *arg, void *out, size_t out_size, int timeout_s, struct strbuf *err);
/* The same for a child that sends up to `max` records of `size` bytes, each
 * with isolated_emit() as soon as it is ready: the watchdog restarts for
 * every record, and what arrived before a crash or hang is kept. *got is
 * the number of complete records. Returns 0 when the child exited normally
 * (whatever it sent), else as run_isolated. */
typedef void (*isolated_stream_fn)(void *arg, int fd);
void isolated_emit(int fd, const void *rec, size_t size);
int run_isolated_stream(isolated_stream_fn fn, void *arg, void *recs, size_t size, size_t max, int timeout_s,
			size_t *got, struct strbuf *err);

#endif
