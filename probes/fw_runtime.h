/* framework.torch.runtime and framework.tensorflow.runtime: the framework
 * asked in the user's own environment (fw_runtime.c). The run, the parse of
 * its answer and the judgement are apart, so that the judgement is a pure
 * function the tests can drive. */
#ifndef ROCMCHECK_FW_RUNTIME_H
#define ROCMCHECK_FW_RUNTIME_H

#include <stdbool.h>

#include "checks.h"
#include "util.h"

/* What differs between the frameworks: the script and the words. */
struct fw_kind {
	const char *module;        /* what `import` names: "torch" */
	const char *script;        /* embedded: probes/torch_runtime.py, probes/tf_runtime.py */
	const char *avail_call;    /* "torch.cuda.is_available()" */
	const char *unavailable;   /* "torch.cuda.is_available() is False" */
	const char *hip_key, *cuda_key, *device_key; /* evidence names of the build and device answers */
	const char *device;        /* the first GPU as the framework names it: "cuda:0" */
	const char *rocblas_dir;   /* the wheel's own rocBLAS library directory, relative */
	bool (*is)(const struct framework *fw);
	/* the reinstall fix for that environment (check_framework.c) */
	void (*fix)(struct check_result *res, const struct check_ctx *ctx, const struct framework *fw, bool amd);
};
extern const struct fw_kind fw_kind_torch, fw_kind_tensorflow;

/* The script's answer (the same JSON object from both scripts), parsed. */
struct fw_answer {
	char *stage;               /* the stage it reached or failed in */
	char *error;               /* "ImportError: libamdhip64.so: cannot open ...", NULL */
	char *version, *file, *hip, *cuda, *python;
	int available;             /* 1, 0, -1 not reached */
	int device_count;          /* -1 not reached */
	struct strvec names, archs;
	int matmul_ok;             /* 1, 0, -1 not run */
	double matmul_of_bound;    /* largest error / its bound; negative: none */
	int amp_applied, amp_skipped; /* 1, 0, -1 not run */
	char *amp_dtype;
	double scale[3];           /* the scaler's scale before, after the step, after the overflow; <0 unknown */
	double step_ms, fp32_ms, fp16_ms; /* negative: not measured */
};

/* The last line of `text` that is the script's JSON object -> *a. 0, or
 * -EINVAL when no line is (a->stage stays NULL). */
int fw_answer_parse(const char *text, struct fw_answer *a);
void fw_answer_release(struct fw_answer *a);

/* How the run itself went: rc 0 with `output`, or a negative errno from the
 * isolation (timed out, crashed, exited) with `why`. */
struct fw_run {
	const char *python;        /* the interpreter that was run */
	bool own_interpreter;      /* the environment's own (venv/conda), not a guess */
	int rc;
	const char *why;
	int timeout_s;
};

/* The verdict for one install: appends one result (and the runtime record
 * of stack.frameworks[]) to r. Reads facts and profiles only. */
void fw_runtime_judge(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		      const struct fw_kind *k, const struct framework *fw, const struct fw_run *run,
		      const struct fw_answer *a);

/* The interpreter for an install: the environment's own, else pythonX.Y
 * from the site directory's path (looked up on PATH), else python3.
 * *own says whether it is the environment's own. Returns a new string. */
char *fw_interpreter(const struct framework *fw, bool *own);

/* The checks themselves (live only, level standard and full). */
void check_framework_torch_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def);
void check_framework_tensorflow_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def);

#endif
