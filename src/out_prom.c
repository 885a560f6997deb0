/* The report as Prometheus text exposition (format 0.0.4), for the
 * node_exporter textfile collector: HELP and TYPE before each family, label
 * values escaped, no timestamps on samples, numbers in base units. */
#include "out.h"
#include "checks.h"
#include "policy.h"

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
	/* the operator's observe-only checks (policy.ini): an alert on
	 * rocmcheck_check_status can leave them out with
	 * `unless on(check) rocmcheck_check_observe_only == 1` */
	bool any = false;
	for (size_t i = 0; r->policy && i < r->policy->nchk; i++) {
		if (!r->policy->chk[i].observe)
			continue;
		if (!any)
			family(fp, "rocmcheck_check_observe_only", "gauge",
			       "1 for a check the operator's policy marks observe-only: reported, never failing the run.");
		any = true;
		const char *labels[] = { "check", r->policy->chk[i].id, NULL };
		sample(fp, "rocmcheck_check_observe_only", labels, 1);
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

/* ---- what each GPU's sensors and health files read: one row per family ---- */

/* The family being written and the labels of the GPU at hand. */
struct gpu_series {
	FILE *fp;
	const struct gpu_family *fam;
	bool any;                   /* HELP and TYPE written */
	const char *gpu, *pci, *model;
	/* NVML's readings of an NVIDIA GPU (level standard, live), NULL when
	 * NVML was not read: the nvidia driver has no hwmon or RAS files */
	const struct nvml_gpu *nv;
};

struct gpu_family {
	const char *name, *type, *help;
	void (*emit)(struct gpu_series *s, const struct pci_dev *p);
};

/* One sample with the GPU's labels and `extra` (NULL-terminated pairs,
 * may be NULL); an unknown value (NAN) writes nothing. */
static void gpu_sample(struct gpu_series *s, const char *const *extra, double v)
{
	if (isnan(v))
		return;
	if (!s->any)
		family(s->fp, s->fam->name, s->fam->type, s->fam->help);
	s->any = true;
	const char *labels[12] = { "gpu", s->gpu, "pci", s->pci, "model", s->model };
	for (size_t i = 0; extra && i < 4 && extra[i]; i += 2) {
		labels[6 + i] = extra[i];
		labels[7 + i] = extra[i + 1];
	}
	sample(s->fp, s->fam->name, labels, v);
}

/* hwmon temperatures by their label ("junction"), an unlabelled one by its
 * file ("temp2"); a label the driver repeats gives one series, the first. */
static void emit_temps(struct gpu_series *s, const struct pci_dev *p, const double *v)
{
	const struct hwmon_reading *h = &p->hwmon;
	for (int i = 0; h->present && i < HWMON_TEMPS; i++) {
		bool seen = false;
		for (int j = 0; j < i && h->temp_label[i][0]; j++)
			seen |= !strcmp(h->temp_label[j], h->temp_label[i]);
		if (seen)
			continue;
		char name[20];
		snprintf(name, sizeof(name), "temp%d", i + 1);
		const char *extra[] = { "sensor", h->temp_label[i][0] ? h->temp_label[i] : name, NULL };
		gpu_sample(s, extra, v[i]);
	}
}

/* NVML's one sensor ("gpu"); -1 is unknown */
static void emit_nv_temp(struct gpu_series *s, int v)
{
	const char *extra[] = { "sensor", "gpu", NULL };
	gpu_sample(s, extra, v >= 0 ? (double)v : NAN);
}

static void emit_temp(struct gpu_series *s, const struct pci_dev *p)
{
	if (s->nv)
		emit_nv_temp(s, s->nv->temp_c);
	else
		emit_temps(s, p, p->hwmon.temp_c);
}

/* NVML: the slowdown threshold, where the GPU starts to throttle hard */
static void emit_temp_crit(struct gpu_series *s, const struct pci_dev *p)
{
	if (s->nv)
		emit_nv_temp(s, s->nv->temp_slowdown_c);
	else
		emit_temps(s, p, p->hwmon.temp_crit_c);
}

static double hwmon_value(const struct pci_dev *p, double v)
{
	return p->hwmon.present ? v : NAN;
}

static double nv_watts(long long mw)
{
	return mw >= 0 ? (double)mw / 1000.0 : NAN;
}

/* NVML's readings hold no power draw: nothing for an NVIDIA GPU */
static void emit_power(struct gpu_series *s, const struct pci_dev *p)
{
	gpu_sample(s, NULL, s->nv ? NAN : hwmon_value(p, p->hwmon.power_w));
}
/* NVML: the enforced limit (the lower of the set one and any other), else the set one */
static void emit_power_cap(struct gpu_series *s, const struct pci_dev *p)
{
	if (s->nv)
		gpu_sample(s, NULL, nv_watts(s->nv->power_enforced_mw >= 0 ? s->nv->power_enforced_mw
									 : s->nv->power_limit_mw));
	else
		gpu_sample(s, NULL, hwmon_value(p, p->hwmon.power_cap_w));
}
static void emit_power_cap_default(struct gpu_series *s, const struct pci_dev *p)
{
	gpu_sample(s, NULL, s->nv ? nv_watts(s->nv->power_default_mw) : hwmon_value(p, p->hwmon.power_cap_default_w));
}

/* current: the narrowest (slowest) link trained on the path from the GPU to
 * its root port, since an on-card switch makes the GPU's own link read full
 * while the slot link is degraded (research/health.md 3.4); max: what the
 * GPU itself supports. 0 is unknown. */
static void emit_link(struct gpu_series *s, const struct pci_health *h, bool speed)
{
	double cur = NAN;
	for (size_t i = 0; i < h->nhops; i++) {
		double v = speed ? h->hops[i].speed : h->hops[i].width;
		if (v > 0 && !(v >= cur))
			cur = v;
	}
	double max = h->nhops ? (speed ? h->hops[0].max_speed : h->hops[0].max_width) : 0;
	const char *c[] = { "kind", "current", NULL }, *m[] = { "kind", "max", NULL };
	gpu_sample(s, c, cur);
	gpu_sample(s, m, max > 0 ? max : NAN);
}

static void emit_link_width(struct gpu_series *s, const struct pci_dev *p) { emit_link(s, &p->health, false); }
static void emit_link_speed(struct gpu_series *s, const struct pci_dev *p) { emit_link(s, &p->health, true); }

static double nv_count(long long v)
{
	return v >= 0 ? (double)v : NAN;
}

/* NVML: the volatile totals (since the driver loaded, as amdgpu's counts
 * are) as block "total" */
static void emit_ecc(struct gpu_series *s, const struct pci_dev *p)
{
	if (s->nv) {
		const char *ue[] = { "block", "total", "type", "uncorrectable", NULL };
		const char *ce[] = { "block", "total", "type", "correctable", NULL };
		gpu_sample(s, ue, nv_count(s->nv->ecc_vol_unc));
		gpu_sample(s, ce, nv_count(s->nv->ecc_vol_corr));
		return;
	}
	for (size_t i = 0; i < p->health.nras; i++) {
		const struct ras_count *rc = &p->health.ras[i];
		const char *ue[] = { "block", rc->block, "type", "uncorrectable", NULL };
		const char *ce[] = { "block", rc->block, "type", "correctable", NULL };
		gpu_sample(s, ue, rc->ue >= 0 ? (double)rc->ue : NAN);
		gpu_sample(s, ce, rc->ce >= 0 ? (double)rc->ce : NAN);
	}
}

/* gpu_vram_bad_pages: R (retired), P (pending) and F (failed) lines. */
static void emit_bad_pages(struct gpu_series *s, const struct pci_dev *p)
{
	const struct pci_health *h = &p->health;
	if (s->nv) {   /* retired for either cause; NVML says whether one is pending, not how many */
		const struct nvml_gpu *g = s->nv;
		const char *r[] = { "state", "retired", NULL }, *pe[] = { "state", "pending", NULL };
		bool known = g->retired_sbe >= 0 || g->retired_dbe >= 0;
		gpu_sample(s, r, known ? (double)((g->retired_sbe > 0 ? g->retired_sbe : 0) +
						  (g->retired_dbe > 0 ? g->retired_dbe : 0)) : NAN);
		gpu_sample(s, pe, g->retired_pending >= 0 ? (double)g->retired_pending : NAN);
		return;
	}
	if (h->bad_pages < 0)
		return;
	const char *r[] = { "state", "retired", NULL }, *pe[] = { "state", "pending", NULL },
		   *f[] = { "state", "failed", NULL };
	gpu_sample(s, r, (double)h->bad_pages - h->bad_pending - h->bad_failed);
	gpu_sample(s, pe, h->bad_pending);
	gpu_sample(s, f, h->bad_failed);
}

static void emit_remapped_rows(struct gpu_series *s, const struct pci_dev *p)
{
	(void)p;
	if (!s->nv)
		return;
	const char *c[] = { "type", "correctable", NULL }, *u[] = { "type", "uncorrectable", NULL };
	gpu_sample(s, c, nv_count(s->nv->rows_corr));
	gpu_sample(s, u, nv_count(s->nv->rows_unc));
}

static const struct gpu_family gpu_families[] = {
	{ "rocmcheck_gpu_temperature_celsius", "gauge",
	  "GPU temperature from hwmon, by sensor (edge, junction, mem); NVIDIA from NVML (sensor gpu).", emit_temp },
	{ "rocmcheck_gpu_temperature_critical_celsius", "gauge",
	  "The temperature at which the GPU throttles hard (hwmon tempN_crit; NVML's slowdown threshold), by sensor.",
	  emit_temp_crit },
	{ "rocmcheck_gpu_power_watts", "gauge", "GPU power draw from hwmon (power1_average, else power1_input).",
	  emit_power },
	{ "rocmcheck_gpu_power_cap_watts", "gauge", "The GPU's power cap (hwmon power1_cap; NVML's enforced limit).",
	  emit_power_cap },
	{ "rocmcheck_gpu_power_cap_default_watts", "gauge",
	  "The GPU's default power cap (hwmon power1_cap_default; NVML's default limit).", emit_power_cap_default },
	{ "rocmcheck_gpu_pcie_link_width", "gauge",
	  "Lanes of the GPU's PCIe path: the narrowest link trained up to the root port (current) "
	  "and the GPU's own maximum (max).",
	  emit_link_width },
	{ "rocmcheck_gpu_pcie_link_speed_gts", "gauge",
	  "Speed of the GPU's PCIe path in GT/s: the slowest link trained up to the root port "
	  "(current, lower when idle) and the GPU's own maximum (max).",
	  emit_link_speed },
	{ "rocmcheck_gpu_ecc_errors_total", "counter",
	  "ECC errors the driver counted since it loaded (ras/<block>_err_count; NVML's volatile totals, block total), "
	  "by block and type.", emit_ecc },
	{ "rocmcheck_gpu_retired_pages", "gauge",
	  "VRAM pages in ras/gpu_vram_bad_pages: retired, pending retirement, or failed to retire (NVML: retired for "
	  "either cause; pending is 1 while a retirement waits for a reset).", emit_bad_pages },
	{ "rocmcheck_gpu_remapped_rows", "gauge",
	  "NVIDIA memory rows remapped (NVML, Ampere and newer), for correctable and uncorrectable errors.",
	  emit_remapped_rows },
};

/* The GPUs the health checks judge: those of the inventory and any AMD or
 * NVIDIA PCI device without an index (it fell off the bus, its init failed). */
static const struct gpu *gpu_at(const struct facts *f, const struct pci_dev *p, bool *judged)
{
	for (size_t i = 0; i < f->ngpus; i++)
		if (f->gpus[i].pci_addr && !strcmp(f->gpus[i].pci_addr, p->addr)) {
			*judged = true;
			return &f->gpus[i];
		}
	*judged = p->vendor == 0x1002 || p->vendor == 0x10de;
	return NULL;
}

static void prom_gpu_health(FILE *fp, const struct report *r)
{
	const struct facts *f = r->facts;
	for (size_t k = 0; f && k < ARRAY_SIZE(gpu_families); k++) {
		struct gpu_series s = { .fp = fp, .fam = &gpu_families[k] };
		for (size_t i = 0; i < f->npci; i++) {
			const struct pci_dev *p = &f->pci[i];
			bool judged;
			const struct gpu *g = gpu_at(f, p, &judged);
			if (!judged)
				continue;
			char idx[16], id[16];
			gpu_label(idx, sizeof(idx), g ? g->index : -1);
			snprintf(id, sizeof(id), "%04x:%04x", p->vendor, p->device);
			s.gpu = idx;
			s.pci = p->addr;
			s.model = g && g->name ? g->name : p->board_name ? p->board_name : id;
			s.nv = p->vendor == 0x10de ? nvml_gpu_of(f, p->addr) : NULL;
			s.fam->emit(&s, p);
		}
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
	prom_gpu_health(fp, r);
	prom_summary(fp, r, now);
	return ferror(fp) ? -EIO : 0;
}
