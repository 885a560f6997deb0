/* framework.torch.runtime: PyTorch asked in the user's own environment
 * (fw_runtime.c). The run, the parse of its answer and the judgement are
 * apart, so that the judgement is a pure function the tests can drive. */
#ifndef ROCMCHECK_FW_RUNTIME_H
#define ROCMCHECK_FW_RUNTIME_H

#include <stdbool.h>

#include "checks.h"
#include "util.h"

/* The script's answer (probes/torch_runtime.py), parsed. */
struct torch_answer {
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
int torch_answer_parse(const char *text, struct torch_answer *a);
void torch_answer_release(struct torch_answer *a);

/* How the run itself went: rc 0 with `output`, or a negative errno from the
 * isolation (timed out, crashed, exited) with `why`. */
struct torch_run {
	const char *python;        /* the interpreter that was run */
	bool own_interpreter;      /* the environment's own (venv/conda), not a guess */
	int rc;
	const char *why;
	int timeout_s;
};

/* The verdict for one PyTorch install: appends one result (and the runtime
 * record of stack.frameworks[]) to r. Reads facts and profiles only. */
void torch_runtime_judge(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
			 const struct framework *fw, const struct torch_run *run, const struct torch_answer *a);

/* The interpreter for an install: the environment's own, else pythonX.Y
 * from the site directory's path (looked up on PATH), else python3.
 * *own says whether it is the environment's own. Returns a new string. */
char *torch_interpreter(const struct framework *fw, bool *own);

/* The check itself (live only, level standard and full). */
void check_framework_torch_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def);

#endif
