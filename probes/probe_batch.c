/* `rocmcheck probe`'s run: the named probes on every usable GPU the facts
 * list (or on the host with the cpu backend), into a report, and the rule
 * that a probe command which ran no probe anywhere fails. */
#include "probe_batch.h"

#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "harness.h"

/* The jobs: the host for the cpu backend, else one per selected usable GPU. */
static size_t batch_jobs(const struct probe_batch *b, const struct facts *f, const struct profiles *db,
			 struct probe_job *jobs, int *job_gpu)
{
	const struct backend_ops *only = b->only;
	size_t n = 0;
	if (backend_is_reference(only)) {
		jobs[0] = b->base;
		jobs[0].ops = only;
		jobs[0].seed = PROBE_DEFAULT_SEED;
		job_gpu[0] = -1;
		return 1;
	}
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		struct probe_job j;
		if (!g->visible || probe_job_for_gpu(f, db, g, &j) < 0 || (only && j.ops != only) ||
		    !probe_gpu_selected(b->gpus, g->index))
			continue;
		j.size = b->base.size;
		j.iterations = b->base.iterations;
		j.duration_s = b->base.duration_s;
		memcpy(j.variant, b->base.variant, sizeof(j.variant));
		job_gpu[n] = g->index;
		jobs[n++] = j;
	}
	return n;
}

bool probe_batch_selects(const struct check_filter *sel, const struct probe_def *d)
{
	return sel && sel->only.n ? check_selected(sel, d->id) : !probe_timed(d);
}

/* Nothing was verified: every entry fails, its reason kept. */
static void fail_unverified(struct report *r)
{
	for (size_t i = 0; i < r->nprobes; i++) {
		struct probe_result *p = &r->probes[i];
		char *text = xasprintf("no GPU probe ran: %s", p->summary ? p->summary : "skipped");
		free(p->summary);
		p->summary = text;
		p->status = ST_FAIL;
	}
}

bool probe_batch_run(const struct probe_batch *b, const struct facts *f, const struct profiles *db,
		     struct report *r, struct strbuf *why)
{
	struct probe_job *jobs = xcalloc(f->ngpus + 1, sizeof(*jobs));
	int *job_gpu = xcalloc(f->ngpus + 1, sizeof(int));
	size_t njobs = batch_jobs(b, f, db, jobs, job_gpu);
	size_t n = 0, ndefs = 0;
	while (probe_defs[ndefs].name)
		ndefs++;
	const struct probe_def **set = xcalloc(ndefs, sizeof(*set));
	struct probe_outcome *outs = xcalloc(ndefs, sizeof(*outs));
	for (const struct probe_def *d = probe_defs; d->name; d++)
		if (probe_batch_selects(b->sel, d))
			set[n++] = d;
	for (size_t i = 0; i < njobs; i++) {
		if (job_gpu[i] >= 0)
			tty_progress("%zu probe%s on GPU %d (%s)...", n, n == 1 ? "" : "s", job_gpu[i], jobs[i].ops->name);
		else
			tty_progress("%zu probe%s (%s)...", n, n == 1 ? "" : "s", jobs[i].ops->name);
		probe_run_set(set, n, &jobs[i], b->timeout_s, outs);
		for (size_t k = 0; k < n; k++)
			probe_outcome_to_report(&outs[k], r, set[k]->id, job_gpu[i], jobs[i].ops->name);
	}
	tty_progress("%s", "");
	bool ran = false;
	for (size_t i = 0; i < r->nprobes; i++)
		ran = ran || r->probes[i].status != ST_SKIP;
	if (!njobs) { /* say what did not run, and why */
		strbuf_addf(why, "no usable %s%sGPU found%s", b->only ? b->only->name : "", b->only ? " " : "",
			    b->only ? "" : " (`--backend cpu` runs the probes on the host)");
		for (size_t k = 0; k < n; k++)
			report_add_probe(r, set[k]->id, -1, b->only ? b->only->name : "none")->summary = xstrdup(why->buf);
	} else if (!ran) {
		strbuf_addstr(why, "every selected probe was skipped");
	}
	if (!ran)
		fail_unverified(r);
	free(set);
	free(outs);
	free(jobs);
	free(job_gpu);
	return ran;
}
