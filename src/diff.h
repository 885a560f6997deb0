/* `rocmcheck diff A B`: what differs between two reports (or bundles) in
 * facts and in verdicts, each verdict change with the fact differences of the
 * areas that can explain it, a health verdict's with the readings that
 * changed (diff.c). Rendering is out_diff.c's. */
#ifndef ROCMCHECK_DIFF_H
#define ROCMCHECK_DIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "sysroot.h"
#include "util.h"

/* The areas facts fall in; a verdict change is explained by the areas its
 * check reads (diff.c's table). */
enum diff_area {
	DA_KERNEL, DA_OS, DA_CONTAINER, DA_DRIVER, DA_ROCM, DA_CUDA, DA_FRAMEWORK, DA_GPU, DA_ENV, DA_USER,
	DA_DEVICES, DA_PACKAGES, DA_NAREAS
};
const char *diff_area_name(enum diff_area a);

/* One side: the report, and for a bundle its captured machine's host facts
 * (environment, user and groups, device nodes) and captured files; host
 * and files NULL for a report. */
struct diff_side {
	const json_t *report;
	const struct host_info *host;
	const struct dev_node *devs;
	size_t ndevs;
	const struct sysroot_mem *files;
	/* the paths the facts read from that capture, with each one's prefixes
	 * and those of where it resolves to (diff_read_set): only these of
	 * `files` are compared (a bundle may hold more) */
	const struct strmap *read;
};

struct diff_fact {
	enum diff_area area;
	char *what;                /* "kernel", "env HSA_OVERRIDE_GFX_VERSION", "/dev/kfd" */
	char *a, *b;               /* NULL: absent on that side */
	bool explains;             /* named under a verdict change */
	bool file;                 /* a captured file's (or how many more differ) */
};

/* An evidence entry of a result that differs between A and B, matched by
 * its path. */
struct diff_evidence {
	char *path;
	char *a, *b;               /* NULL: absent on that side */
};

struct diff_verdict {
	char *id;                  /* "perm.kfd", "probe.gemm.fp32" */
	int gpu;                   /* -1 machine-wide */
	char *a, *b;               /* statuses; NULL: absent */
	char *summary;             /* B's summary (A's when absent in B) */
	unsigned areas;            /* bit per diff_area that can explain it */
	/* Category "health" (B's, else A's): what it judges is a reading of the
	 * GPU that no fact holds, so its evidence that changed comes with it. */
	bool health;
	struct diff_evidence *evidence;
	size_t nevidence;
};

struct diff {
	struct diff_fact *facts;
	size_t nfacts;
	struct diff_verdict *verdicts;
	size_t nverdicts;
};

/* Each captured file of m that a diff compares (diff_files.c), readings
 * that change between runs left out: its area, its name ("file
 * /proc/cmdline", fn's to keep) and its value (the content when it is one
 * short line, else "N bytes, fnv1a HASH"; "link to TARGET"; borrowed). */
typedef void (*diff_file_fn)(enum diff_area area, char *what, const char *value, void *ctx);
void diff_files_each(const struct sysroot_mem *m, const struct strmap *ra, const struct strmap *rb,
		     diff_file_fn fn, void *ctx);
/* Into *read: every path facts_gather read from the capture sr (sysroot_recorded),
 * each of its prefixes and those of the path it resolves to, so that the links
 * a read went through are in it too. */
void diff_read_set(struct sysroot *sr, struct strmap *read);
/* At most this many file differences are listed (the kernel's and the
 * driver's first, by area, then by path), then one fact says how many more
 * there are. */
#define DIFF_MAX_FILE_FACTS 200

/* Compare a with b into *d (caller releases). Captured files are compared
 * when both sides have them. */
void diff_build(struct diff *d, const struct diff_side *a, const struct diff_side *b);
void diff_release(struct diff *d);
/* 0 when nothing differs, else 1. */
int diff_exit_status(const struct diff *d);

#endif
