/* framework.torch.runtime and framework.tensorflow.runtime: the framework
 * asked in the user's own environment (fw_runtime.c). The run, the parse of
 * its answer and the judgement are apart, so that the judgement is a pure
 * function the tests can drive. */
#ifndef ROCMCHECK_FW_RUNTIME_H
#define ROCMCHECK_FW_RUNTIME_H

#include <stdbool.h>

#include "checks.h"
#include "sysroot.h"
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

/* ---- as root ----
 * Run as root, the interpreter executes whatever it, its environment and
 * the site directory hold: whoever else may change one of them, or swap a
 * directory above one, would run their code as root. Such an install is not
 * run (the result says whose it is and how to run the check as them). The
 * facts come from the sysroot; the judgement is a pure function of them. */

/* One directory, link or file that a path of the run passes through, from
 * "/" down. A missing one (err -ENOENT) is kept with `o` describing the
 * directory it would be created in. */
struct fw_path_fact {
	char *path;
	struct sysroot_owner o;
	int err;                   /* negative errno: missing (-ENOENT) or not looked at */
};
struct fw_trust {
	struct fw_path_fact *v;
	size_t n;
};
#define FW_TRUST_INIT { NULL, 0 }

/* Append to t, once each, what the resolution of `python` (an absolute
 * path), the environment's pyvenv.cfg (beside it and one level up), fw's
 * site directory, its package directory and __init__.py pass through. */
void fw_trust_gather(struct sysroot *sr, const char *python, const struct framework *fw, struct fw_trust *t);
void fw_trust_release(struct fw_trust *t);

/* Who besides root may change it. */
enum fw_writer {
	FW_WRITER_NONE,            /* root alone */
	FW_WRITER_OWNER,           /* its owner, not root */
	FW_WRITER_GROUP,           /* the members of its group */
	FW_WRITER_OTHERS,          /* every user */
	FW_WRITER_UNKNOWN,         /* it could not be looked at */
};
/* A root-owned sticky directory counts as root's alone: others may add
 * entries to it but not replace root's (a missing entry in it is theirs). */
enum fw_writer fw_path_writer(const struct fw_path_fact *e);

/* The first fact of t that someone besides root may change, when effective
 * uid `euid` must not run what t describes: NULL when euid is not 0 (a user
 * runs their own code) or root alone may change all of it. *w says who.
 * Borrowed from t. */
const struct fw_path_fact *fw_trust_refusal(const struct fw_trust *t, long euid, enum fw_writer *w);

/* The skip result (and runtime record) for an install not run because of
 * e, with the command that runs the check as the user it belongs to. */
void fw_runtime_refuse(const struct check_ctx *ctx, struct report *r, const struct check_def *def,
		       const struct fw_kind *k, const struct framework *fw, const struct fw_run *run,
		       const struct fw_path_fact *e, enum fw_writer w);

/* The checks themselves (live only, level standard and full). */
void check_framework_torch_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def);
void check_framework_tensorflow_runtime(const struct check_ctx *ctx, struct report *r, const struct check_def *def);

#endif
