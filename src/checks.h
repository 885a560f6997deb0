/* The check table.
 *
 * How to add a check:
 *  1. add its rule to spec/checks.md's family table (IDs are a contract);
 *  2. write `static void check_<family>_<name>(const struct check_ctx *, struct report *,
 *     const struct check_def *)` in src/check_<family>.c: a pure function of
 *     ctx->facts and ctx->db that appends one result (or one per GPU) with
 *     report_add(); every warn/fail gets a fix from the profile
 *     (result_fix_profile) filled in for this machine;
 *  3. add a row to that family's table (check_<family>_defs) with id, category,
 *     title, flags and explanation;
 *  4. add a unit test in tests/unit/test_check_<family>.c and mention the ID
 *     in man/rocmcheck.1 (a test checks that every ID is there).
 */
#ifndef ROCMCHECK_CHECKS_H
#define ROCMCHECK_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "facts.h"
#include "profiles.h"
#include "report.h"

enum check_flags {
	CHECK_LIVE_ONLY = 1 << 0,  /* needs the live machine (skip in a sysroot) */
	CHECK_RUNTIME = 1 << 1,    /* loads a GPU runtime: not at --level quick */
	CHECK_PER_GPU = 1 << 2,    /* one result per GPU */
};

struct policy;
struct check_ctx {
	const struct facts *facts;
	const struct profiles *db;
	bool live;
	enum level level;          /* --level; zero is standard */
	bool online;               /* doctor --online: checks may use the network (net.repos) */
	const struct policy *policy; /* the operator's policy.ini; NULL none */
	int timeout_s;             /* doctor --timeout: the probes' and framework runs' watchdog; 0 not given */
};

struct check_def;
typedef void (*check_fn)(const struct check_ctx *ctx, struct report *r, const struct check_def *def);

struct check_def {
	const char *id;            /* "perm.kfd" */
	const char *category;      /* "permissions" */
	const char *title;         /* "Access to /dev/kfd" */
	check_fn run;
	unsigned flags;
	const char *explain;       /* for `checks --explain`: what it reads, why, how to fix, the error texts users see */
};

/* Per-family tables, defined in check_<family>.c, each terminated by {0}. */
extern const struct check_def check_system_defs[];
extern const struct check_def check_driver_defs[];
extern const struct check_def check_device_defs[];
extern const struct check_def check_perm_defs[];
extern const struct check_def check_rocm_defs[];
extern const struct check_def check_cuda_defs[];
extern const struct check_def check_framework_defs[];
extern const struct check_def check_env_defs[];
extern const struct check_def check_health_defs[];

/* Every check in catalog order; NULL-terminated array of pointers (checks.c). */
const struct check_def *const *checks_all(size_t *n);
const struct check_def *checks_find(const char *id);

/* Selection by ID or prefix ("rocm." or "rocm"), comma-separated lists. */
struct check_filter {
	struct strvec only, skip;
};
bool check_selected(const struct check_filter *flt, const char *id);
/* One --only/--skip item against an ID: the ID itself, or a prefix of it
 * that ends at a dot ("rocm" and "rocm." match "rocm.install"); "" matches
 * nothing. The rule for check and probe IDs alike. */
bool check_id_matches(const char *item, const char *id);

/* Run every selected check in order. Checks flagged CHECK_RUNTIME are only
 * run when `runtime` is true (level standard/full); otherwise they are
 * reported as skip with the reason. */
void checks_run(const struct check_ctx *ctx, const struct check_filter *flt, bool runtime,
		struct report *r);

/* The effective gfx arch for a GPU: the HSA override's arch when one applies
 * to it (per-node form first), else its own. Borrowed. */
const char *gpu_effective_arch(const struct facts *f, const struct gpu *g, bool *overridden);

#endif
