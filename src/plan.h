/* The planner: from facts + profiles + options (+ the doctor's results) to
 * an ordered list of idempotent steps, and the renderers that print a plan
 * as a POSIX shell script or as JSON (out_plan.c).
 *
 * Where the commands come from: every command of a plan is a profile fix
 * template (profiles/fixes.ini) or an install route (profiles/routes.ini,
 * rendered by route.c, the renderer the checks' fixes use too), filled with
 * the same values the checks use. For this machine (or a
 * sysroot) the planner reads the doctor's results: each result records the
 * profile fixes behind it and the values they were filled with (struct
 * fix_ref in report.h), and the planner builds the step, with its guard,
 * from the fix id and those values. For a described
 * machine (--os and --gpu) it renders the same templates itself. So doctor
 * and plan cannot drift apart; tests/cli/test_plan.sh checks it on every
 * fixture.
 *
 * A plan owns all its strings; plan_release() frees them. */
#ifndef ROCMCHECK_PLAN_H
#define ROCMCHECK_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "facts.h"
#include "profiles.h"
#include "report.h"
#include "util.h"

struct plan_step {
	char *id;                  /* "rocm_install", "groups", "env_clean_bashrc", ... unique */
	char *title;               /* one line: "Install ROCm 6.2 (amdgpu-install)" */
	char *comment;             /* why, in words (the profile fix text), or NULL */
	struct strvec why;         /* the check IDs it fixes ("perm.kfd") */
	struct strvec commands;    /* shell lines, run in order */
	char *guard;               /* shell condition that succeeds when the step is already
				    * done (then the commands are skipped); NULL: always run */
	struct strvec manual;      /* for the user, not run: current-shell unsets, diagnostics */
	char *requires;            /* shell condition under which the commands can run (an active
				    * Python environment with pip), or NULL; when it fails they are
				    * printed for the user instead. Such a step comes last; its
				    * commands failing stops the script, as any step's do. */
	char *requires_text;       /* that condition in words */
	bool needs_root;           /* some command uses sudo (the script: as_root) */
	bool reboot, relogin;      /* takes effect after a reboot / a new login */
	bool advisory;             /* it only warns (kernel series): --check does not count it pending */
	int rank;                  /* order within its class (internal) */
};

/* Something the plan cannot do by itself: advice from a check whose fix has
 * no command to run, or a caveat of the chosen route. */
struct plan_note {
	struct strvec why;         /* check IDs, may be empty (caveats) */
	char *text;
	struct strvec commands;    /* commands quoted for the user, not run */
};

struct plan {
	bool described;            /* --os/--gpu: not this machine */
	enum vendor vendor;        /* target GPU vendor, VENDOR_NONE when no GPU */
	char *os_key, *os_name;    /* "ubuntu-22.04", "Ubuntu 22.04 LTS"; NULL when unknown */
	char *gpu_name, *arch;     /* "AMD Radeon RX 7900 XTX", "gfx1100" / "sm_89" */
	char *rocm;                /* target ROCm release "6.2", or NULL */
	char *cuda;                /* CUDA release of the chosen wheel "12.4", or NULL */
	char *torch_index;         /* wheel index, NULL when no torch step */
	char *db_version;          /* profile database version */
	char *os_guard;            /* a described machine: shell test "this machine runs that OS"
				    * (the script stops at once where it fails), else NULL */
	struct plan_step *steps;
	size_t nsteps;
	struct plan_note *notes;
	size_t nnotes;
};

void plan_init(struct plan *p);
void plan_release(struct plan *p);

/* The machine to plan for when it is not this one. */
struct plan_machine {
	const struct prof_os *os;
	enum vendor vendor;
	const char *arch;                  /* "gfx1100", "sm_89" */
	const struct prof_gpu_model *model;/* NULL when given as an arch */
};

struct plan_opts {
	const char *rocm;          /* --rocm X.Y, or NULL */
	int torch;                 /* --torch 1, --no-torch 0, default -1 */
};

/* --os and --gpu, resolved in cmd_plan.c where they are parsed. */
/* Resolve --os ID-VERSION ("ubuntu-22.04", "rhel-9", "fedora-40"). NULL when
 * the profile has no such OS. */
const struct prof_os *plan_find_os(const struct profiles *db, const char *spec);
/* Resolve --gpu: "gfx1100", "sm_89", or a model name matched case-insensitively
 * on word boundaries ("RX 7900 XTX", "rtx 4090"). Returns 0 and fills m
 * (vendor, arch, model), -ENOENT when nothing matches, -EEXIST when a name
 * matches several models (names listed in `msg`). */
int plan_find_gpu(const struct profiles *db, const char *spec, struct plan_machine *m, struct strbuf *msg);

/* Build the plan for a described machine (m != NULL; f and r unused) or for
 * the machine in f with the doctor's results r (m == NULL). Returns 0; -EINVAL
 * for a bad option value (--rocm names no release); -ENOENT when no plan can
 * work (no GPU, GPU unsupported by every release, OS with no route). On
 * error `msg` says why and names the nearest supported alternative. */
int plan_build(const struct profiles *db, const struct facts *f, const struct report *r,
	       const struct plan_machine *m, const struct plan_opts *o, struct plan *out,
	       struct strbuf *msg);

/* The value of `name` in such a pair list, or NULL. */
const char *plan_var(const struct strvec *vars, const char *name);

/* What --check finds for a step. */
enum step_state {
	STEP_PENDING,    /* its guard fails, and the script would run it here */
	STEP_DONE,       /* its guard holds, or it has no command to run */
	STEP_WARN,       /* an advisory step whose guard fails: it only warns */
	STEP_CANNOT_RUN, /* the script cannot run it here: another OS than the plan's, or
			  * its `requires` fails (no Python environment): not pending */
};

/* Run the plan's OS test and every step's guard (and, for a step not done,
 * its `requires`) on this machine (/bin/sh -c, no input, output discarded)
 * and set state[i] for step i. *other_os: the plan describes another OS
 * than this machine's (every step cannot run here; no guard runs). Runs
 * nothing else. Returns the number of pending steps, or a negative errno
 * when a test could not be run at all (`err` says why). */
int plan_check(const struct plan *p, enum step_state *state, bool *other_os, struct strbuf *err);
/* Why step s cannot run here, in words (appended to why). */
void plan_cannot_run_why(const struct plan *p, const struct plan_step *s, bool other_os, struct strbuf *why);

/* Renderers (out_plan.c). Return 0, or -EIO when writing failed. */
int out_plan_sh(FILE *fp, const struct plan *p);
int out_plan_json(FILE *fp, const struct plan *p);
/* What plan_check found: one line per step, or JSON (rocmcheck.plan-check/1). */
int out_plan_check_text(FILE *fp, const struct plan *p, const enum step_state *state, bool other_os);
int out_plan_check_json(FILE *fp, const struct plan *p, const enum step_state *state, bool other_os);

#endif
