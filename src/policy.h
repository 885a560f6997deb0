/* The operator's policy (man/rocmcheck-policy.5): an INI file, by default
 * /etc/rocmcheck/policy.ini on a live run, or `--policy FILE`, that tunes
 * how the health checks judge without touching the profiles: ignore or
 * promote an Xid or a kernel-log signature, fail it only above a count in
 * a time window, change a [health] threshold, mark a check observe-only,
 * ask for consecutive failing runs, or give the number of GPUs expected.
 * Every rule keeps the file and line it came from, for the report. */
#ifndef ROCMCHECK_POLICY_H
#define ROCMCHECK_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "profiles.h"
#include "util.h"

/* The default policy file, read on a live run when it exists. */
#define POLICY_DEFAULT_FILE "/etc/rocmcheck/policy.ini"
/* A policy is a page of rules: 256 KiB and 1024 rules are far beyond one. */
#define POLICY_MAX_FILE (256u * 1024u)
#define POLICY_MAX_RULES 1024

enum pol_action { POL_UNSET = 0, POL_IGNORE, POL_WARN, POL_FAIL };
const char *pol_action_name(enum pol_action a);   /* "ignore", "warn", "fail" */

/* [xid N] or [signature NAME]: what an event of the kernel log gets. */
struct pol_event {
	int kind;                  /* enum klog_kind (KLOG_XID for [xid N]) */
	int code;                  /* the Xid; -1 for a signature */
	enum pol_action action;    /* applied when the count condition holds */
	unsigned more_than;        /* 0: from the first occurrence; else more than this many ... */
	unsigned within_s;         /* ... within this many seconds (0: in the whole boot's log) */
	struct prof_where where;   /* the section header */
};

/* [check ID]: how a check's results count. */
struct pol_check {
	char id[64];
	bool observe;              /* reported, never failing the run (nor draining, nor the health label) */
	unsigned repeat;           /* consecutive failing runs before it fails (doctor --repeat); 0 unset */
	struct prof_where where;
};

/* A [health] threshold the policy set, for the report. */
struct pol_threshold {
	char key[32];
	char value[32];
	struct prof_where where;
};

/* Where a capture (a bundle) keeps the policy its run judged by. */
#define POLICY_CAPTURE_FILE "/.rocmcheck/policy.ini"

struct policy {
	char *file;                /* the file read (the rules' where.file points into it) */
	char *text;                /* its bytes, for a bundle */
	size_t len;
	struct pol_event *ev;
	size_t nev;
	struct pol_check *chk;
	size_t nchk;
	struct pol_threshold *thr;
	size_t nthr;
	struct prof_health health; /* the profiles' [health] with the policy's thresholds over it */
	unsigned expect_gpus;      /* [expect] gpus; 0 unset */
	struct prof_where expect_where;
};

/* Whether a check ID names a check ([check ID]); the caller's catalog.
 * For one that does not, *closest is set to the ID nearest to it
 * (borrowed; str_closest), or left NULL when none is near: the error then
 * says "did you mean `ID`?". */
typedef bool (*policy_check_known)(const char *id, const char **closest);

/* Read `path` over the profiles' health settings `base`. Problems go to
 * `errors` as "FILE:LINE: message"; any problem fails the load (-EINVAL;
 * -errno when the file cannot be read, -EFBIG over POLICY_MAX_FILE). */
int policy_load(const char *path, const struct prof_health *base, policy_check_known known, struct policy **out,
		struct strvec *errors);
/* The same from a buffer named `name` (tests, fuzzing). */
int policy_load_buffer(const char *name, const char *buf, size_t len, const struct prof_health *base,
		       policy_check_known known, struct policy **out, struct strvec *errors);
void policy_free(struct policy *p);

/* The rules for kernel-log events of `kind` (and Xid `code`), in file order. */
size_t policy_event_rules(const struct policy *p, int kind, int code, const struct pol_event **out, size_t max);
/* The [check ID] rule, or NULL. */
const struct pol_check *policy_check(const struct policy *p, const char *id);
/* Each rule as the report shows it: "[xid 13]" and "action = fail, more_than = 5, within = 600s". */
struct pol_line {
	int line;
	char section[96];
	char rule[160];
};
/* Every rule, in the order thresholds, events, checks, expect; caller frees. */
size_t policy_lines(const struct policy *p, struct pol_line **out);
/* Mark the results of observe-only checks (before report_finish), each
 * with the rule's file and line in its evidence. */
struct report;
void policy_mark_report(const struct policy *p, struct report *r);

#endif
