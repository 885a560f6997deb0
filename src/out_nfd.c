/* The report as a Node Feature Discovery feature file (features.d): an
 * `# +expiry-time=` line, then `rocmcheck.io/<name>=<value>` lines that NFD
 * turns into node labels. Every name and value is made valid under the
 * Kubernetes label syntax: at most 63 characters of [A-Za-z0-9._-], starting
 * and ending with a letter or digit (a value may be empty). */
#include "out.h"
#include "checks.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NFD_PREFIX "rocmcheck.io/"
#define LABEL_MAX 63
/* How long NFD keeps the labels when no newer file replaces them: a node
 * whose health check stopped running loses its "healthy" label. */
#define NFD_EXPIRY_S (2 * 3600)

/* s as a label name or value: other characters become '-', at most 63,
 * trimmed to a letter or digit at both ends. */
static void label_clean(char *out, const char *s)
{
	size_t n = 0;
	for (const char *p = s ? s : ""; *p && n < LABEL_MAX; p++) {
		unsigned char c = (unsigned char)*p;
		out[n++] = isalnum(c) || c == '.' || c == '_' || c == '-' ? (char)c : '-';
	}
	out[n] = '\0';
	while (n > 0 && !isalnum((unsigned char)out[n - 1]))
		out[--n] = '\0';
	size_t lead = strspn(out, "._-");
	memmove(out, out + lead, n - lead + 1);
}

static void nfd_line(FILE *fp, const char *name, const char *value)
{
	char n[LABEL_MAX + 1], v[LABEL_MAX + 1];
	label_clean(n, name);
	label_clean(v, value);
	if (n[0])
		fprintf(fp, NFD_PREFIX "%s=%s\n", n, v);
}

static void nfd_gpus(FILE *fp, const struct facts *f)
{
	char count[16];
	snprintf(count, sizeof(count), "%zu", f ? f->ngpus : 0);
	nfd_line(fp, "gpu.count", count);
	if (!f || !f->ngpus)
		return;
	bool amd = false, nvidia = false;
	for (size_t i = 0; i < f->ngpus; i++) {
		amd |= f->gpus[i].vendor == VENDOR_AMD;
		nvidia |= f->gpus[i].vendor == VENDOR_NVIDIA;
	}
	nfd_line(fp, "gpu.vendor", amd && nvidia ? "mixed" : amd ? "amd" : nvidia ? "nvidia" : "other");
	/* the first GPU's arch and model for selectors; every arch as its own
	 * flag, so a pod can ask for any node with a gfx1100 */
	nfd_line(fp, "gpu.arch", f->gpus[0].arch);
	nfd_line(fp, "gpu.model", f->gpus[0].name);
	for (size_t i = 0; i < f->ngpus; i++) {
		char name[64];
		snprintf(name, sizeof(name), "gpu.arch.%s", f->gpus[i].arch);
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= !strcmp(f->gpus[j].arch, f->gpus[i].arch);
		if (!seen && f->gpus[i].arch[0])
			nfd_line(fp, name, "true");
	}
}

static void nfd_stack(FILE *fp, const struct facts *f)
{
	if (!f)
		return;
	const struct rocm_install *ri = rocm_active(f);
	if (ri) {
		char *rel = rocm_install_release(ri);
		nfd_line(fp, "rocm.version", rel);
		free(rel);
	}
	const struct cuda_toolkit *ct = cuda_active(f);
	if (ct)
		nfd_line(fp, "cuda.toolkit", ct->version);
	if (f->drv.amdgpu_version)
		nfd_line(fp, "driver.amdgpu", f->drv.amdgpu_version);
	if (f->drv.nvidia_version)
		nfd_line(fp, "driver.nvidia", f->drv.nvidia_version);
}

/* health: the worst of the health checks over every GPU, so one selector
 * (rocmcheck.io/health!=fail) keeps pods off a node with a sick GPU;
 * "skip" when none could judge, no label when none ran. */
static void nfd_health(FILE *fp, const struct report *r)
{
	bool any = false;
	enum status worst = ST_SKIP;
	for (size_t i = 0; i < r->nresults; i++) {
		const struct check_result *c = &r->results[i];
		if (!c->def || strcmp(c->def->category, "health"))
			continue;
		/* an observe-only result is reported by its own label, not here */
		worst = status_worst(worst, c->observe && c->status != ST_SKIP ? ST_PASS : c->status);
		any = true;
	}
	if (any)
		nfd_line(fp, "health", status_name(worst));
}

/* The label of a result that did not pass or skip, "" for one that did. */
static void check_label(char *name, size_t n, const struct check_result *c)
{
	if (c->status == ST_PASS || c->status == ST_SKIP || !c->def)
		name[0] = '\0';
	else if (c->gpu >= 0)
		snprintf(name, n, "check.%s.gpu%d", c->def->id, c->gpu);
	else
		snprintf(name, n, "check.%s", c->def->id);
}

/* Each check that did not pass or skip, by its ID (and GPU): what a
 * selector or an alert can key on. Results that share a label (a check's
 * results without a GPU index) give one, with the worst status. */
static void nfd_checks(FILE *fp, const struct report *r)
{
	for (size_t i = 0; i < r->nresults; i++) {
		char name[LABEL_MAX + 1], other[LABEL_MAX + 1];
		check_label(name, sizeof(name), &r->results[i]);
		if (!name[0])
			continue;
		bool seen = false;
		enum status worst = r->results[i].status;
		for (size_t j = 0; j < r->nresults; j++) {
			check_label(other, sizeof(other), &r->results[j]);
			if (strcmp(name, other))
				continue;
			seen |= j < i;
			worst = status_worst(worst, r->results[j].status);
		}
		if (!seen)
			nfd_line(fp, name, status_name(worst));
	}
}

int out_nfd_report(FILE *fp, const struct report *r, time_t now)
{
	time_t until = now + NFD_EXPIRY_S;
	struct tm tm;
	char stamp[32] = "1970-01-01T00:00:00Z";
	if (gmtime_r(&until, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(fp, "# rocmcheck %s, level %s\n# +expiry-time=%s\n", ROCMCHECK_VERSION, level_name(r->level),
		stamp);
	nfd_line(fp, "healthy", r->exit_status == 0 ? "true" : "false");
	nfd_line(fp, "status", status_name(r->status));
	nfd_line(fp, "level", level_name(r->level));
	nfd_line(fp, "version", ROCMCHECK_VERSION);
	nfd_gpus(fp, r->facts);
	nfd_stack(fp, r->facts);
	nfd_health(fp, r);
	nfd_checks(fp, r);
	for (size_t i = 0; i < r->nprobes; i++) {
		const struct probe_result *p = &r->probes[i];
		if (p->status == ST_PASS || p->status == ST_SKIP)
			continue;
		char name[LABEL_MAX + 1];
		snprintf(name, sizeof(name), "%s.gpu%d", p->id, p->gpu);
		nfd_line(fp, name, status_name(p->status));
	}
	return ferror(fp) ? -EIO : 0;
}
