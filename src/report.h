/* The report: what every renderer (out_text.c, out_json.c) is fed.
 * Checks and probes append results; the summary is derived at the end.
 * Strings in results are owned by the report. */
#ifndef ROCMCHECK_REPORT_H
#define ROCMCHECK_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "facts.h"
#include "profiles.h"
#include "util.h"

enum status { ST_SKIP = 0, ST_PASS, ST_WARN, ST_FAIL, ST_ERROR }; /* ordered by severity */
const char *status_name(enum status s);           /* "pass", ... */
enum status status_worst(enum status a, enum status b);

/* What doctor runs (--level). Standard is the default, and zero: a check_ctx
 * that does not say runs at standard. */
enum level { LEVEL_STANDARD = 0, LEVEL_QUICK, LEVEL_FULL };
/* Their names, indexed by enum level, NULL-terminated (the --level words). */
extern const char *const level_words[];
const char *level_name(enum level l);

struct evidence {
	char *path;                /* file, device or variable ("env:HSA_OVERRIDE_GFX_VERSION") */
	char *value;
};

/* A profile fix applied to a result, with the values it was filled with:
 * what `plan` builds its steps from (one source of truth with the doctor). */
struct fix_ref {
	char *id;                  /* profile fix id ("groups") */
	struct strvec vars;        /* name, value, name, value, ... as rendered */
};

struct fix {
	char *text;                /* NULL when the result has no fix */
	struct strvec commands;
	char *manual;              /* why no command can do it (set where commands is empty) */
	bool reboot, relogin;
	struct fix_ref *refs;      /* the profile fixes behind text and commands, in order */
	size_t nrefs;
};

struct check_def;              /* checks.h */
struct policy;                 /* policy.h */
struct profiles_origin;        /* profiles_update.h */

/* What the repeat gate (state.h) made of a failing result: the runs in a row
 * it has failed and the runs it needs to fail; needed 0: no gate applied. */
struct repeat_mark {
	int failing_runs, needed;
};

struct check_result {
	const struct check_def *def;
	enum status status;
	char *summary;
	struct evidence *evidence;
	size_t nevidence;
	struct fix fix;
	int gpu;                   /* GPU index, -1 for null */
	bool observe;              /* the policy marks its check observe-only: reported, never failing the run */
	struct repeat_mark repeat;
};

/* A further figure of a probe beside the fixed fields ("copy_gbs",
 * "vendor_tflops"), stored inline so the report frees nothing extra. */
#define PROBE_METRICS_MAX 12
struct probe_metric {
	char name[24];
	double value;
};

struct probe_result {
	char *id;                  /* "probe.gemm.fp32" */
	int gpu;
	char *backend;             /* "hip", "cuda", "cpu" */
	enum status status;
	char *summary;
	unsigned m, n, k;          /* shape; 0 when not a GEMM-like probe */
	double seconds, tflops, expected_tflops, ratio, max_rel_error;
	double gbs, expected_gbs;  /* bandwidth probes; negative when absent */
	char *verification;        /* "freivalds+sampled" */
	long nan_count;            /* -1 absent */
	char *variant;             /* "wmma", "plain", ... */
	struct fix fix;
	struct probe_metric metrics[PROBE_METRICS_MAX]; /* in the order the probe set them */
	unsigned nmetrics;
	struct repeat_mark repeat;
};

/* What framework.torch.runtime learnt from one PyTorch install, for its
 * entry in stack.frameworks[] (matched by path). Owned by the report. */
struct framework_runtime {
	char *path;                /* the framework's package directory */
	char *python;              /* the interpreter that ran it */
	enum status status;        /* the check's verdict for it */
	char *stage;               /* where it stopped: "import" ... "done"; NULL: no answer */
	char *error;               /* the first line of the failure, NULL */
	int available;             /* torch.cuda.is_available(): 1, 0, -1 not reached */
	int device_count;          /* -1 not reached */
	struct strvec devices;     /* "AMD Radeon RX 7900 XTX (gfx1100)" */
	int matmul_ok, amp_ok;     /* 1, 0, -1 not run */
	double step_ms, fp32_ms, fp16_ms; /* negative: not measured */
};

struct report {
	const char *source_kind;   /* "live", "sysroot", "replay" */
	const char *source_path;
	enum level level;          /* what ran; level_name() spells it */
	const struct facts *facts; /* borrowed */
	const struct profiles *db; /* borrowed */
	struct check_result *results;
	size_t nresults;
	struct probe_result *probes;
	size_t nprobes;
	struct framework_runtime *fw_runtime;
	size_t nfw_runtime;
	/* derived by report_finish() */
	enum status status;
	size_t count[5];           /* indexed by enum status (observe-only results not among them) */
	size_t observed;           /* observe-only results that did not pass (policy.ini) */
	int exit_status;
	bool fail_on_warn;
	/* set by the command that ran the checks, for the verdict line */
	bool filtered;             /* --only/--skip left checks out: no verdict on readiness */
	size_t checks_run;         /* catalog checks selected (each one result or more) */
	size_t checks_total;       /* checks in the catalog */
	char *hint;                /* "run `rocmcheck plan` for a fix script"; NULL: none */
	const struct policy *policy; /* the operator's policy the checks judged by; NULL none (borrowed) */
	const struct profiles_origin *db_origin; /* which database db is (profiles_update.h); NULL unknown (borrowed) */
};

void report_init(struct report *r, const struct facts *f, const struct profiles *db);
void report_release(struct report *r);
/* Keep a copy of fr for the JSON report. */
void report_add_framework_runtime(struct report *r, const struct framework_runtime *fr);
const struct framework_runtime *report_framework_runtime(const struct report *r, const char *path);

/* Append a result and return it for filling. `gpu` is -1 for none. */
struct check_result *report_add(struct report *r, const struct check_def *def,
				enum status st, int gpu, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void result_evidence(struct check_result *res, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Fill the result's fix from profile fix `fix_id` with placeholders `vars`
 * (NULL-terminated name/value pairs; "{user}" etc.). Missing fix or a bad
 * template gives a fix whose text says so (never silently no fix). */
void result_fix_profile(struct check_result *res, const struct profiles *db,
			const char *fix_id, const char *const *vars);
/* A fix written by the check itself (text only or plus commands). */
/* Why the fix has no command: a physical action, a firmware setting, the
 * container's run flags, nothing to change now. Every warn and fail carries
 * commands or this. */
void result_fix_manual(struct check_result *res, const char *why);
void result_fix_text(struct check_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void result_fix_command(struct check_result *res, const char *cmd);

struct probe_result *report_add_probe(struct report *r, const char *id, int gpu, const char *backend);

/* Compute status, counts and exit status (0 or 1). */
void report_finish(struct report *r);

#endif
