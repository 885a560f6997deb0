/* probe.sustained (doctor --level full): our fp32 GEMM at the medium size,
 * back to back for probe_duration() seconds, each launch timed with events.
 * The first result (cold) and the last (after the whole run, hot) are both
 * verified on the host, so a card that goes wrong when hot fails; the
 * spread of the launch times and the last 10% against the first 10% show
 * thermal or power throttling, with the temperatures, power and clock the
 * driver's hwmon sensors read at the start, during and at the end
 * (facts_hwmon.c: a fresh read each time, not the facts of start-up). */
#include "gemm_dev.h"
#include "harness.h"
#include "probe.h"
#include "sustained.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "facts.h"
#include "sysroot.h"

/* Launches are queued in batches of about BATCH_S seconds, two batches in
 * flight (the next is queued before the last is read back), so the GPU
 * never waits on the host; sensors are read every SAMPLE_S seconds. */
#define BATCH_S 0.25
#define BATCH_MAX 256
#define SAMPLE_S 0.5

/* Limits (sustained_limits_for). A GPU that holds its clocks varies by a
 * few percent from launch to launch; 15% of spread, or the end of the run
 * under 85% of its start, is a GPU that clocks down under load. */
#define GPU_MAX_SPREAD 0.15
#define GPU_MIN_RATIO 0.85
#define CPU_MIN_RATIO 0.25

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return a < b ? -1 : a > b ? 1 : 0;
}

/* Median of v[0..n-1] (n > 0), sorting a copy. */
static double median_of(const double *v, size_t n)
{
	double *c = xmalloc(n * sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}

int sustained_stats_compute(const double *seconds, size_t n, double flops, struct sustained_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!seconds || flops <= 0)
		return -EINVAL;
	double *tf = xmalloc((n ? n : 1) * sizeof(*tf));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (seconds[i] > 0 && isfinite(seconds[i]))
			tf[k++] = flops / seconds[i] / 1e12;
	if (k == 0) {
		free(tf);
		return -EINVAL;
	}
	st->n = k;
	st->min = st->max = tf[0];
	for (size_t i = 1; i < k; i++) {
		st->min = min_d(st->min, tf[i]);
		st->max = max_d(st->max, tf[i]);
	}
	st->median = median_of(tf, k);
	st->spread = (st->max - st->min) / st->median;
	/* 10% of the launches at each end, at least 3 when there are 6 or
	 * more: medians, so one slow launch (a page fault, a preemption) is
	 * not read as a trend */
	size_t g = (k + 9) / 10;
	if (g < 3 && k >= 6)
		g = 3;
	if (g < 1)
		g = 1;
	st->group = g;
	st->first = median_of(tf, g);
	st->last = median_of(tf + k - g, g);
	st->throttle_ratio = st->last / st->first;
	free(tf);
	return 0;
}

void sustained_limits_for(const struct probe_job *job, struct sustained_limits *lim)
{
	if (backend_is_reference(job->ops)) {
		lim->max_spread = 0;
		lim->min_ratio = CPU_MIN_RATIO;
	} else {
		lim->max_spread = GPU_MAX_SPREAD;
		lim->min_ratio = GPU_MIN_RATIO;
	}
}

int sustained_assess(const struct sustained_stats *st, const struct sustained_limits *lim, char *why,
		     size_t why_size)
{
	struct strbuf sb = STRBUF_INIT;
	if (lim->max_spread > 0 && st->spread > lim->max_spread)
		strbuf_addf(&sb, "launch-to-launch spread %.0f%% (over %.0f%%)", st->spread * 100,
			    lim->max_spread * 100);
	if (st->throttle_ratio < lim->min_ratio)
		strbuf_addf(&sb, "%sthe last 10%% of launches ran at %.0f%% of the speed of the first 10%% (under %.0f%%)",
			    sb.len ? ", " : "", st->throttle_ratio * 100, lim->min_ratio * 100);
	snprintf(why, why_size, "%s", strbuf_cstr(&sb));
	int status = sb.len ? ST_WARN : ST_PASS;
	strbuf_release(&sb);
	return status;
}

/* ---- sensors ---- */

struct sensors {
	bool open, have;
	struct sysroot sr;
	const char *addr;
	char note[200];            /* why there are none */
	char label[16];            /* the temperature followed: "junction" */
	double t_start, t_end, t_max;
	double p_sum, cap, sclk_start, sclk_end;
	unsigned p_n;
};

static void sensors_start(struct sensors *s, const struct probe_job *job)
{
	memset(s, 0, sizeof(*s));
	s->t_start = s->t_end = s->t_max = s->cap = s->sclk_start = s->sclk_end = NAN;
	if (!job->pci_addr[0]) {
		snprintf(s->note, sizeof(s->note), "no PCI device to read sensors of (%s backend)", job->ops->name);
		return;
	}
	int r = sysroot_open(&s->sr, job->sysfs_root[0] ? job->sysfs_root : NULL);
	if (r < 0) {
		snprintf(s->note, sizeof(s->note), "cannot open %.120s: %s", job->sysfs_root[0] ? job->sysfs_root : "/",
			 strerror(-r));
		return;
	}
	s->open = true;
	s->addr = job->pci_addr;
	struct hwmon_reading h;
	if (hwmon_read(&s->sr, s->addr, &h, NULL) < 0) {
		snprintf(s->note, sizeof(s->note), "%s", h.note[0] ? h.note : "no hwmon sensors");
		return;
	}
	s->have = true;
	const char *label = "";
	s->t_start = s->t_max = hwmon_hot_temp(&h, &label);
	snprintf(s->label, sizeof(s->label), "%s", label);
	s->cap = h.power_cap_w;
	s->sclk_start = h.sclk_mhz;
	if (isnan(s->t_start) && isnan(h.power_w))
		snprintf(s->note, sizeof(s->note), "%s has no temperature or power sensor", h.dir);
}

/* A reading under load; `last` at the end of the run. */
static void sensors_sample(struct sensors *s, bool last)
{
	if (!s->have)
		return;
	struct hwmon_reading h;
	if (hwmon_read(&s->sr, s->addr, &h, NULL) < 0)
		return;
	const char *label = s->label;
	double t = s->label[0] && strcmp(s->label, "temp") ? hwmon_temp(&h, s->label) : hwmon_hot_temp(&h, &label);
	if (!isnan(t))
		s->t_max = isnan(s->t_max) ? t : max_d(s->t_max, t);
	if (!isnan(h.power_w)) {
		s->p_sum += h.power_w;
		s->p_n++;
	}
	if (!isnan(h.power_cap_w))
		s->cap = h.power_cap_w;
	if (last) {
		s->t_end = t;
		s->sclk_end = h.sclk_mhz;
	}
}

static double sensors_power(const struct sensors *s)
{
	return s->p_n ? s->p_sum / s->p_n : NAN;
}

static void sensors_release(struct sensors *s)
{
	if (s->open)
		sysroot_release(&s->sr);
	s->open = false;
}

/* "junction 52 -> 88 C (max 90), 298 W of a 300 W cap, sclk 2500 -> 1900 MHz",
 * or why there is nothing to say. */
static void sensors_describe(const struct sensors *s, char *buf, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	double p = sensors_power(s);
	if (!isnan(s->t_start) || !isnan(s->t_end))
		strbuf_addf(&sb, "%s %.0f -> %.0f C (max %.0f)", s->label[0] ? s->label : "temperature",
			    s->t_start, s->t_end, s->t_max);
	if (!isnan(p))
		strbuf_addf(&sb, "%s%.0f W", sb.len ? ", " : "", p);
	if (!isnan(s->cap))
		strbuf_addf(&sb, "%s%s%.0f W cap", sb.len ? " " : "", isnan(p) ? "power cap " : "of a ", s->cap);
	if (!isnan(s->sclk_start) && !isnan(s->sclk_end))
		strbuf_addf(&sb, "%ssclk %.0f -> %.0f MHz", sb.len ? ", " : "", s->sclk_start, s->sclk_end);
	if (!sb.len)
		strbuf_addf(&sb, "temperature and power unknown: %s", s->note[0] ? s->note : "no sensor read");
	snprintf(buf, size, "%s", strbuf_cstr(&sb));
	strbuf_release(&sb);
}

/* ---- the run ---- */

/* Fill a fixed text field of the outcome; long texts are cut. */
static void set_text(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_text(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, size, fmt, ap);
	va_end(ap);
}

struct run {
	struct probe_ctx *pc;
	struct gemm_dev *g;
	struct probe_outcome *out;
	void *ev[2][BATCH_MAX + 1];
	double *sec;               /* seconds of each timed launch */
	size_t n, cap;
};

static int run_fail(struct run *r, const char *what)
{
	return probe_backend_fail(r->pc, r->out, what);
}

/* Queue up to `count` launches into event pool p: an event before the
 * first and after each. A backend whose launches run as they are queued
 * (cpu) stops at `deadline`. Returns how many, or -1. */
static int enqueue(struct run *r, int p, unsigned count, double deadline)
{
	const struct backend_ops *ops = r->pc->b->ops;
	unsigned i;
	if (ops->event_record(r->pc->b, r->ev[p][0]) < 0)
		return run_fail(r, "timing events");
	for (i = 0; i < count; i++) {
		if (i > 0 && monotonic_s() >= deadline)
			break;
		if (gemm_dev_launch(r->pc, r->g, r->out) < 0)
			return -1;
		if (ops->event_record(r->pc->b, r->ev[p][i + 1]) < 0)
			return run_fail(r, "timing events");
	}
	return (int)i;
}

/* Read back the times of a queued batch (waits for its end). */
static int collect(struct run *r, int p, unsigned count)
{
	const struct backend_ops *ops = r->pc->b->ops;
	for (unsigned i = 0; i < count; i++) {
		float ms = 0;
		if (ops->event_elapsed(r->pc->b, r->ev[p][i], r->ev[p][i + 1], &ms) < 0)
			return run_fail(r, "kernel execution");
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 1024;
			r->sec = xrealloc(r->sec, r->cap * sizeof(*r->sec));
		}
		r->sec[r->n++] = (double)ms / 1e3;
	}
	return 0;
}

/* Launches for the next batch: about BATCH_S seconds, no more than the
 * time left, at least one. */
static unsigned batch_size(double per_launch, double left)
{
	if (!(per_launch > 0))
		return 1;
	double want = min_d(BATCH_S, left) / per_launch;
	if (want < 1)
		return 1;
	return want > BATCH_MAX ? BATCH_MAX : (unsigned)ceil(want);
}

/* The timed loop: launches back to back for `duration` seconds. */
static int run_loop(struct run *r, double duration, double per_launch, struct sensors *s)
{
	const struct backend_ops *ops = r->pc->b->ops;
	double t0 = monotonic_s(), next_sample = t0 + SAMPLE_S;
	int pend = -1;
	unsigned pend_n = 0, count = batch_size(per_launch, duration);
#ifdef ROCMCHECK_TEST_HOOKS
	const bool throttle = backend_is_reference(ops) && probe_test_fault_is("throttle");
#endif
	for (;;) {
		bool more = monotonic_s() - t0 < duration;
#ifdef ROCMCHECK_TEST_HOOKS
		if (throttle && monotonic_s() - t0 >= duration / 2)
			backend_cpu_test_throttle(true);
#endif
		int cur = pend < 0 ? 0 : pend ^ 1;
		int queued = 0;
		if (more && (queued = enqueue(r, cur, count, t0 + duration)) < 0)
			return -1;
		if (pend >= 0) {
			size_t before = r->n;
			if (collect(r, pend, pend_n) < 0)
				return -1;
			double sum = 0;
			for (size_t i = before; i < r->n; i++)
				sum += r->sec[i];
			if (r->n > before && sum > 0)
				per_launch = sum / (double)(r->n - before);
		}
		if (!more)
			break;
		pend = cur;
		pend_n = (unsigned)queued;
		double t = monotonic_s();
		if (t >= next_sample) {
			sensors_sample(s, false);
			next_sample = t + SAMPLE_S;
		}
		count = batch_size(per_launch, duration - (t - t0));
	}
#ifdef ROCMCHECK_TEST_HOOKS
	if (throttle)
		backend_cpu_test_throttle(false);
#endif
	if (ops->synchronize(r->pc->b) < 0)
		return run_fail(r, "kernel execution");
	return 0;
}

static void set_metrics(struct probe_outcome *out, const struct sustained_stats *st, const struct sensors *s)
{
	probe_metric_set(out, "tflops_min", st->min);
	probe_metric_set(out, "tflops_max", st->max);
	probe_metric_set(out, "spread", st->spread);
	probe_metric_set(out, "throttle_ratio", st->throttle_ratio);
	probe_metric_set(out, "launches", (double)st->n);
	probe_metric_or_null(out, "temp_start_c", s->t_start);
	probe_metric_or_null(out, "temp_end_c", s->t_end);
	probe_metric_or_null(out, "temp_max_c", s->t_max);
	probe_metric_or_null(out, "power_avg_w", sensors_power(s));
	probe_metric_or_null(out, "power_cap_w", s->cap);
	probe_metric_or_null(out, "sclk_mhz_start", s->sclk_start);
	probe_metric_or_null(out, "sclk_mhz_end", s->sclk_end);
}

static const char wrong_fix[] =
	"The GPU returned wrong numbers. Look for driver errors in `sudo dmesg` (amdgpu faults, NVIDIA Xid), "
	"return clocks, voltages and the power limit to defaults (no overclock or undervolt), update the "
	"driver and run `rocmcheck probe sustained` again; if it persists the GPU is likely faulty.";

static const char hot_fix[] =
	"Correct when cold, wrong after running hot: check the cooling (fans spinning, airflow, dust, "
	"thermal paste or pads), return clocks, voltages and the power limit to defaults (no overclock or "
	"undervolt) and look for driver errors in `sudo dmesg`; if it persists the GPU is likely faulty.";

static const char throttle_fix[] =
	"Likely thermal or power throttling. Check the cooling (fans, airflow, dust, room temperature), the "
	"power cap (`rocm-smi --showpower --showmaxpower`, `nvidia-smi -q -d POWER`; the cap may be set "
	"below the board's default) and that clocks are not held low (`rocm-smi --showclocks` and the power "
	"profile; `nvidia-smi -q -d PERFORMANCE` names the throttle reason) while `rocmcheck probe "
	"sustained` runs.";

/* The verdict once both results are in: the last result's check, then the
 * launch figures against the limits; the sensors in the words. */
static void sustained_verdict(struct probe_ctx *pc, const struct run *r, struct sensors *sp,
			      const struct verify_result *vlast, double flops, const char *what)
{
	const struct probe_job *job = pc->job;
	struct probe_outcome *out = r->out;
	const struct gemm_dev *g = r->g;
	struct sustained_stats st;
	if (sustained_stats_compute(r->sec, r->n, flops, &st) < 0) {
		out->status = ST_ERROR;
		snprintf(out->summary, sizeof(out->summary), "%s: no launch was timed (%zu launches)", what, r->n);
		return;
	}
	out->m = g->m, out->n = g->n, out->k = g->k;
	out->tflops = st.median;
	out->seconds = flops / (st.median * 1e12);
	if (job->fp32_peak > 0 && !backend_is_reference(pc->b->ops))
		out->expected_tflops = job->fp32_peak;
	set_metrics(out, &st, sp);
	char sens[256];
	sensors_describe(sp, sens, sizeof(sens));

	if (!vlast->ok) {
		char w[240];
		set_text(w, sizeof(w), "%s: right at the start, then after %zu launches", what, st.n);
		probe_judge(out, vlast, 0, w);
		size_t used = strlen(out->summary);
		set_text(out->summary + used, sizeof(out->summary) - used, "; %s", sens);
		snprintf(out->fix, sizeof(out->fix), "%s", hot_fix);
		return;
	}
	/* both results right: the figures decide */
	probe_judge(out, vlast, 0, what);
	struct sustained_limits lim;
	sustained_limits_for(job, &lim);
	char why[300];
	out->status = sustained_assess(&st, &lim, why, sizeof(why));
	if (out->status == ST_WARN) {
		set_text(out->summary, sizeof(out->summary),
			 "%s: correct, but not steady: %s, likely thermal or power throttling (%s)", what, why, sens);
		snprintf(out->fix, sizeof(out->fix), "%s", throttle_fix);
	} else {
		set_text(out->summary, sizeof(out->summary),
			 "%s: correct at the start and the end, %.3g TFLOP/s median (%.3g to %.3g, spread %.0f%%), "
			 "last 10%% at %.0f%% of the first; %s",
			 what, st.median, st.min, st.max, st.spread * 100, st.throttle_ratio * 100, sens);
		out->fix[0] = '\0';
	}
}

void probe_sustained(struct probe_ctx *pc, struct probe_outcome *out)
{
	/* the medium GEMM (large when asked for) */
	const struct probe_job *orig = pc->job;
	struct probe_job job = *orig;
	if (job.size < PROBE_MEDIUM)
		job.size = PROBE_MEDIUM;
	pc->job = &job;
	const struct backend_ops *ops = pc->b->ops;
	const double duration = probe_duration(&job);
	struct gemm_dev g;
	struct run r;
	struct sensors s;
	struct verify_result vfirst, vlast;
	memset(&r, 0, sizeof(r));
	r.pc = pc;
	r.g = &g;
	r.out = out;
	sensors_start(&s, &job);
	if (gemm_dev_setup(pc, &g, false, out) < 0 || gemm_dev_prepare(pc, &g, out) < 0)
		goto out;
	const double flops = 2.0 * g.m * g.n * (double)g.k;
	char what[200];
	snprintf(what, sizeof(what), "probe.sustained %ux%ux%u for %.3g s on %.60s (%s)", g.m, g.n, g.k, duration,
		 pc->props.name[0] ? pc->props.name : ops->name, pc->props.arch);

	/* the first result, from a cold GPU */
	if (gemm_dev_launch(pc, &g, out) < 0 || ops->synchronize(pc->b) < 0 || gemm_dev_fetch(pc, &g, out) < 0) {
		if (out->status != ST_FAIL)
			run_fail(&r, "kernel execution");
		goto out;
	}
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_output("sustained", g.c, (size_t)g.m * g.n);
#endif
	gemm_dev_check(pc, &g, &vfirst);
	/* the last check must see what the loop computed, not this result */
	if (vfirst.ok && probe_poison(pc, g.dc, (size_t)g.m * g.n * sizeof(float), "C", out) < 0)
		goto out;
	if (!vfirst.ok) {
		char w[240];
		set_text(w, sizeof(w), "%s: the first result", what);
		probe_judge(out, &vfirst, 0, w);
		snprintf(out->fix, sizeof(out->fix), "%s", wrong_fix);
		goto out;
	}

	for (int p = 0; p < 2; p++) {
		for (int i = 0; i <= BATCH_MAX; i++) {
			if (ops->event_create(pc->b, &r.ev[p][i]) < 0) {
				r.ev[p][i] = NULL;
				run_fail(&r, "timing events");
				goto out;
			}
		}
	}
	/* warm-up, timed for the first batch's size */
	unsigned warm = backend_is_reference(ops) ? 1 : 3;
	if (enqueue(&r, 0, warm, INFINITY) < 0 || collect(&r, 0, warm) < 0)
		goto out;
	double per_launch = 0;
	for (size_t i = 0; i < r.n; i++)
		per_launch += r.sec[i] / (double)r.n;
	r.n = 0;
	if (run_loop(&r, duration, per_launch, &s) < 0)
		goto out;
	sensors_sample(&s, true);

	/* the last result, from the GPU at its hottest */
	if (gemm_dev_fetch(pc, &g, out) < 0)
		goto out;
#ifdef ROCMCHECK_TEST_HOOKS
	probe_test_fault_output("sustained", g.c, (size_t)g.m * g.n);
	probe_test_fault_last("sustained", g.c, (size_t)g.m * g.n);
#endif
	gemm_dev_check(pc, &g, &vlast);

	sustained_verdict(pc, &r, &s, &vlast, flops, what);
out:
	for (int p = 0; p < 2; p++)
		for (int i = 0; i <= BATCH_MAX; i++)
			if (r.ev[p][i])
				ops->event_destroy(pc->b, r.ev[p][i]);
	free(r.sec);
	sensors_release(&s);
	gemm_dev_release(pc, &g);
	pc->job = orig;
}
