/* From the facts to probe jobs: which GPUs, which backend, what to expect;
 * and the short set that `doctor --level standard` runs. */
#include "harness.h"
#include "pcie.h"
#include "probe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int probe_job_for_gpu(const struct facts *f, const struct profiles *db, const struct gpu *g,
		      struct probe_job *job)
{
	memset(job, 0, sizeof(*job));
	if (g->vendor == VENDOR_AMD)
		job->ops = &backend_hip_ops;
	else if (g->vendor == VENDOR_NVIDIA)
		job->ops = &backend_cuda_ops;
	else
		return -ENODEV;
	/* runtimes number the GPUs they can see: KFD node order for HIP, PCI
	 * order here for CUDA (matched by PCI address first in the child) */
	int ord = 0;
	for (size_t i = 0; i < f->ngpus && &f->gpus[i] != g; i++)
		if (f->gpus[i].vendor == g->vendor && f->gpus[i].visible)
			ord++;
	job->device = ord;
	if (g->pci_addr)
		snprintf(job->pci_addr, sizeof(job->pci_addr), "%s", g->pci_addr);
	if (g->vendor == VENDOR_AMD) {
		bool ov = false;
		const char *a = gpu_effective_arch(f, g, &ov);
		snprintf(job->arch, sizeof(job->arch), "%s", a ? a : g->arch);
	} else {
		snprintf(job->arch, sizeof(job->arch), "%s", g->arch);
	}
	/* the board's own peak; none when several boards share its id and
	 * neither its revision nor its compute units tell which */
	bool ambiguous = false;
	const struct prof_gpu_model *m = profiles_model_for_gpu(db, g, &ambiguous);
	if (!m && !ambiguous && db && g->arch[0])
		m = profiles_find_model_by_arch(db, g->arch);
	if (m) {
		job->fp32_peak = m->fp32_tflops;
		job->fp16_peak = m->fp16_tflops;
		job->mem_gbs = m->bandwidth_gbs;
	}
	for (size_t i = 0; g->pci_addr && i < f->npci; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (!p->addr || strcasecmp(p->addr, g->pci_addr) != 0)
			continue;
		job->link_gts = pcie_speed_gts(p->link_speed);
		job->link_width = pcie_width(p->link_width);
		job->max_link_gts = pcie_speed_gts(p->max_link_speed);
		job->max_link_width = pcie_width(p->max_link_width);
	}
	if (f->env.blocking_vars.n) /* "HIP_LAUNCH_BLOCKING=1": the name */
		snprintf(job->blocking_var, sizeof(job->blocking_var), "%.*s",
			 (int)strcspn(f->env.blocking_vars.v[0], "="), f->env.blocking_vars.v[0]);
	job->size = PROBE_SMALL;
	job->seed = PROBE_DEFAULT_SEED;
	return 0;
}

bool probe_gpu_selected(const char *gpus, int index)
{
	if (!gpus || !*gpus)
		return true;
	struct strvec sv = STRVEC_INIT;
	strvec_split(&sv, gpus, ", ");
	bool hit = false;
	for (size_t i = 0; i < sv.n && !hit; i++) {
		uint64_t v;
		if (parse_u64(sv.v[i], 10, &v) == 0 && v == (uint64_t)index)
			hit = true;
	}
	strvec_release(&sv);
	return hit;
}

void probe_confirm_check(struct report *r, const char *check_id, int gpu, const char *note)
{
	for (size_t i = 0; i < r->nresults; i++) {
		struct check_result *c = &r->results[i];
		if (!c->def || !c->def->id || strcmp(c->def->id, check_id) != 0 || c->gpu != gpu)
			continue;
		char *s = xasprintf("%s; confirmed by %s", c->summary ? c->summary : "", note);
		free(c->summary);
		c->summary = s;
		c->status = ST_FAIL;
		if (!c->fix.text)
			result_fix_text(c, "A probe hit the failure this check predicts; see the probe's fix.");
	}
}

/* The status of check `id` for GPU `gpu`, or -1 when it did not run. */
static int check_status(const struct report *r, const char *id, int gpu)
{
	for (size_t i = 0; i < r->nresults; i++) {
		const struct check_result *c = &r->results[i];
		if (c->def && c->def->id && !strcmp(c->def->id, id) && c->gpu == gpu)
			return (int)c->status;
	}
	return -1;
}

size_t doctor_probe_select(enum level level, bool blas, const struct check_filter *flt,
			   const struct probe_def **set)
{
	size_t n = 0;
	if (level == LEVEL_QUICK)
		return 0;
	bool full = level == LEVEL_FULL;
	for (const struct probe_def *d = probe_defs; d->name; d++)
		if ((((d->flags & PROBE_SHORT) && !probe_timed(d)) || full || (blas && !strcmp(d->group, "blas"))) &&
		    (!flt || check_selected(flt, d->id)))
			set[n++] = d;
	return n;
}

void doctor_run_probes(const struct check_ctx *ctx, struct report *r, const struct check_filter *flt,
		       const char *gpus, int timeout_s)
{
	if (!ctx->live || !ctx->facts || ctx->level == LEVEL_QUICK)
		return;
	const struct facts *f = ctx->facts;
	bool full = ctx->level == LEVEL_FULL;
	size_t ndefs = 0;
	for (const struct probe_def *d = probe_defs; d->name; d++)
		ndefs++;
	const struct probe_def **set = xcalloc(ndefs + 1, sizeof(*set));
	struct probe_outcome *outs = xcalloc(ndefs + 1, sizeof(*outs));
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		struct probe_job job;
		if (!g->visible || !probe_gpu_selected(gpus, g->index) || probe_job_for_gpu(f, ctx->db, g, &job) < 0)
			continue;
		if (full)
			job.size = PROBE_MEDIUM;
		/* the short set; rocBLAS too where rocm.rocblas doubts it, to
		 * confirm or clear the doubt with the error users would hit;
		 * everything at --level full, probe.sustained included */
		int rb = check_status(r, "rocm.rocblas", g->index);
		bool blas = g->vendor == VENDOR_AMD && (rb == ST_WARN || rb == ST_FAIL);
		size_t n = doctor_probe_select(ctx->level, blas, flt, set);
		tty_progress("probes on GPU %d (%s)...", g->index, job.ops->name);
		probe_run_set(set, n, &job, timeout_s > 0 ? timeout_s : 60, outs);
		for (size_t k = 0; k < n; k++) {
			probe_outcome_to_report(&outs[k], r, set[k]->id, g->index, job.ops->name);
			if (outs[k].confirms[0]) {
				char note[600];
				snprintf(note, sizeof(note), "%s: %s", set[k]->id, outs[k].summary);
				probe_confirm_check(r, outs[k].confirms, g->index, note);
			}
		}
	}
	free(set);
	free(outs);
	tty_progress("%s", "");
}
