/* The report as Prometheus text exposition (format 0.0.4), for the
 * node_exporter textfile collector: HELP and TYPE before each family, label
 * values escaped, no timestamps on samples, numbers in base units. */
#include "out.h"
#include "checks.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* A label value: backslash, double quote and newline escaped; invalid UTF-8
 * and other control characters become '?'. */
void out_prom_label(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		uint32_t cp;
		size_t n = out_utf8_next(p, &cp);
		if (n == 0) {
			fputc('?', fp);
			p++;
			continue;
		}
		if (*p == '\\')
			fputs("\\\\", fp);
		else if (*p == '"')
			fputs("\\\"", fp);
		else if (*p == '\n')
			fputs("\\n", fp);
		else if (cp < 0x20 || cp == 0x7f)
			fputc('?', fp);
		else
			fwrite(p, 1, n, fp);
		p += n;
	}
}

static void family(FILE *fp, const char *name, const char *type, const char *help)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{k1="v1",k2="v2"} value; labels: NULL-terminated key, value pairs. */
static void sample(FILE *fp, const char *name, const char *const *labels, double v)
{
	fputs(name, fp);
	if (labels && labels[0]) {
		fputc('{', fp);
		for (size_t i = 0; labels[i]; i += 2) {
			fprintf(fp, "%s%s=\"", i ? "," : "", labels[i]);
			out_prom_label(fp, labels[i + 1]);
			fputc('"', fp);
		}
		fputc('}', fp);
	}
	if (isnan(v))
		fputs(" NaN\n", fp);
	else
		fprintf(fp, " %.17g\n", v);
}

/* -1 skip, 0 pass, 1 warn, 2 fail, 3 error (documented in rocmcheck(1)). */
static double status_value(enum status s)
{
	switch (s) {
	case ST_PASS: return 0;
	case ST_WARN: return 1;
	case ST_FAIL: return 2;
	case ST_ERROR: return 3;
	case ST_SKIP: break;
	}
	return -1;
}

static void gpu_label(char *buf, size_t n, int gpu)
{
	if (gpu < 0)
		buf[0] = '\0';
	else
		snprintf(buf, n, "%d", gpu);
}

static void prom_checks(FILE *fp, const struct report *r)
{
	family(fp, "rocmcheck_check_status", "gauge",
	       "Result of each check: 0 pass, 1 warn, 2 fail, 3 error, -1 skip (gpu is empty for a machine-wide check).");
	for (size_t i = 0; i < r->nresults; i++) {
		const struct check_result *c = &r->results[i];
		/* one series per check and GPU (framework.torch judges every
		 * install with gpu null): the worst of its results */
		bool seen = false;
		double v = status_value(c->status);
		for (size_t j = 0; j < r->nresults; j++) {
			const struct check_result *o = &r->results[j];
			if (o->def != c->def || o->gpu != c->gpu)
				continue;
			if (j < i)
				seen = true;
			if (status_value(o->status) > v)
				v = status_value(o->status);
		}
		if (seen)
			continue;
		char gpu[16];
		gpu_label(gpu, sizeof(gpu), c->gpu);
		const char *labels[] = { "check", c->def ? c->def->id : "unknown", "category",
					 c->def ? c->def->category : "unknown", "gpu", gpu, NULL };
		sample(fp, "rocmcheck_check_status", labels, v);
	}
}

/* One family over the probes: every probe when `all`, else those that
 * have the figure (value >= 0). */
static void prom_probe_family(FILE *fp, const struct report *r, const char *name, const char *help,
			      double (*value)(const struct probe_result *), bool all)
{
	bool any = false;
	for (size_t i = 0; i < r->nprobes; i++) {
		const struct probe_result *p = &r->probes[i];
		double v = value(p);
		if (!all && !(v >= 0))
			continue;
		bool seen = false; /* one series per probe, GPU and backend: the first */
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(r->probes[j].id, p->id) && r->probes[j].gpu == p->gpu &&
			       !strcmp(r->probes[j].backend ? r->probes[j].backend : "", p->backend ? p->backend : "");
		if (seen)
			continue;
		if (!any)
			family(fp, name, "gauge", help);
		any = true;
		char gpu[16];
		gpu_label(gpu, sizeof(gpu), p->gpu);
		const char *labels[] = { "probe", p->id, "gpu", gpu, "backend", p->backend ? p->backend : "", NULL };
		sample(fp, name, labels, v);
	}
}

static double probe_status(const struct probe_result *p) { return status_value(p->status); }
static double probe_flops(const struct probe_result *p) { return p->tflops > 0 ? p->tflops * 1e12 : -1; }
static double probe_bytes(const struct probe_result *p) { return p->gbs > 0 ? p->gbs * 1e9 : -1; }
static double probe_ratio(const struct probe_result *p) { return p->ratio >= 0 ? p->ratio : -1; }
static double probe_seconds(const struct probe_result *p) { return p->seconds > 0 ? p->seconds : -1; }

static void prom_probes(FILE *fp, const struct report *r)
{
	prom_probe_family(fp, r, "rocmcheck_probe_status",
			  "Result of each probe: 0 pass, 1 warn, 2 fail, 3 error, -1 skip.", probe_status, true);
	prom_probe_family(fp, r, "rocmcheck_probe_flops",
			  "Throughput a compute probe measured, in floating-point operations per second.", probe_flops, false);
	prom_probe_family(fp, r, "rocmcheck_probe_bytes_per_second",
			  "Bandwidth a memory probe measured, in bytes per second.", probe_bytes, false);
	prom_probe_family(fp, r, "rocmcheck_probe_ratio",
			  "Measured throughput as a fraction of what the GPU model should reach (the profile's peak).",
			  probe_ratio, false);
	prom_probe_family(fp, r, "rocmcheck_probe_duration_seconds", "Time of one timed iteration of the probe.",
			  probe_seconds, false);
}

static void prom_gpus(FILE *fp, const struct report *r)
{
	const struct facts *f = r->facts;
	if (!f || !f->ngpus)
		return;
	family(fp, "rocmcheck_gpu_info", "gauge", "Each GPU in the inventory (always 1).");
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu *g = &f->gpus[i];
		char idx[16];
		snprintf(idx, sizeof(idx), "%d", g->index);
		const char *labels[] = { "index", idx, "vendor", vendor_name(g->vendor) ? vendor_name(g->vendor) : "",
					 "arch", g->arch, "name", g->name ? g->name : "",
					 "pci", g->pci_addr ? g->pci_addr : "", NULL };
		sample(fp, "rocmcheck_gpu_info", labels, 1);
	}
}

static void prom_summary(FILE *fp, const struct report *r, double now)
{
	family(fp, "rocmcheck_checks", "gauge", "Number of checks and probes with each status.");
	for (enum status s = ST_SKIP; s <= ST_ERROR; s++) {
		const char *labels[] = { "status", status_name(s), NULL };
		sample(fp, "rocmcheck_checks", labels, (double)r->count[s]);
	}
	family(fp, "rocmcheck_exit_status", "gauge", "The exit status of the run: 0 nothing failed, 1 problems found.");
	sample(fp, "rocmcheck_exit_status", NULL, r->exit_status);
	family(fp, "rocmcheck_build_info", "gauge", "The rocmcheck version and profile database that made the report (always 1).");
	const char *labels[] = { "version", ROCMCHECK_VERSION, "profiles",
				 r->db && r->db->db_version ? r->db->db_version : "", "level", level_name(r->level),
				 NULL };
	sample(fp, "rocmcheck_build_info", labels, 1);
	family(fp, "rocmcheck_last_run_timestamp_seconds", "gauge", "When the report was made, in seconds since the epoch.");
	sample(fp, "rocmcheck_last_run_timestamp_seconds", NULL, now);
}

int out_prom_report(FILE *fp, const struct report *r, double now)
{
	prom_checks(fp, r);
	prom_probes(fp, r);
	prom_gpus(fp, r);
	prom_summary(fp, r, now);
	return ferror(fp) ? -EIO : 0;
}
