/* `rocmcheck probe`'s run (probe_batch.c). */
#ifndef ROCMCHECK_PROBE_BATCH_H
#define ROCMCHECK_PROBE_BATCH_H

#include "probe.h"

struct check_filter;

struct probe_batch {
	const struct check_filter *sel;   /* probe IDs or prefixes; none: all but the timed ones */
	const struct backend_ops *only;   /* --backend, or NULL: each GPU's own runtime */
	const char *gpus;                 /* --gpu N[,N...], or NULL: every usable GPU */
	struct probe_job base;            /* size, iterations, duration */
	int timeout_s;
};

/* Whether the batch's selection runs d. */
bool probe_batch_selects(const struct check_filter *sel, const struct probe_def *d);

/* Runs the batch into r (report_init'ed, not finished). Returns true when a
 * probe ran on a GPU or, with the cpu backend, on the host; otherwise false
 * with why none did in `why`, every entry then being a fail "no GPU probe
 * ran: ...". */
bool probe_batch_run(const struct probe_batch *b, const struct facts *f, const struct profiles *db,
		     struct report *r, struct strbuf *why);

#endif
