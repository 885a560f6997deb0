/* NVIDIA GPU health through NVML (libnvidia-ml.so.1, dlopened: dl_libs.h):
 * ECC mode and counts, retired pages, remapped rows, clocks-event reasons,
 * power limits, persistence mode, temperature and its thresholds, and
 * utilization, per GPU NVML lists (research/health.md 2.4, 4.4, 4.5). Only on
 * the live machine, and only when the caller runs at level standard or full:
 * NVML initialises every GPU (seconds without persistence mode), which a
 * quick run must not pay. Each call that fails leaves its value unknown.
 *
 * A wedged GPU holds whoever calls into its driver in uninterruptible sleep
 * (nvidia-smi hangs the same way), so the whole read -- dlopen, init, each
 * GPU, shutdown -- runs in a child under the probes' watchdog (harness.h),
 * which streams one plain record per GPU as it completes. The parent never
 * maps the library. A shared page says where the child is (the GPU, the
 * call), so that a hang or a crash becomes a verdict about that GPU: the
 * GPUs read before it keep their values, the ones after it are "not read". */
#include "facts.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"    /* run_isolated_stream */
#include "dl_use.h"     /* last: library names become dl_libs.h pointers */

/* What the reader sends, one record at a time: plain bytes over a pipe. */
enum nvml_rec_kind { REC_START = 1, REC_SKIPPED, REC_GPU, REC_END };
struct nvml_rec {
	int kind;
	int rc;                    /* START: 0, or the loader's or NVML's failure (a negative errno) */
	unsigned index;            /* SKIPPED, GPU: NVML's device index; START: how many devices it lists */
	char text[512];            /* START with rc < 0: why; SKIPPED: the reason */
	struct nvml_gpu gpu;       /* GPU */
};

/* Where the reader is, in a page it shares with the parent: read after the
 * watchdog fired or the reader died, when nothing writes it any more. */
struct nvml_progress {
	pid_t pid;
	int index;                 /* the NVML device being read; -1 before the first and after the last */
	char addr[24];             /* its PCI address once NVML gave it, else "" */
	char call[48];             /* the NVML call in progress (or the last one made) */
};

static struct nvml_progress *progress;   /* in the reader only */

static void at(const char *call)
{
	snprintf(progress->call, sizeof(progress->call), "%s", call);
}

const char *nvml_outcome_name(int outcome)
{
	switch (outcome) {
	case NVML_GPU_READ: return "read";
	case NVML_GPU_UNRESPONSIVE: return "unresponsive";
	case NVML_GPU_ERROR: return "error";
	}
	return "unknown";
}

int nvml_bus_id_normalise(const char *bus_id, char *out, size_t n)
{
	unsigned domain, bus, dev, fn;
	if (!pci_addr_parse(bus_id, &domain, &bus, &dev, &fn))
		return -EINVAL;
	int len = snprintf(out, n, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
	return len < 0 || (size_t)len >= n ? -EINVAL : 0;
}

void nvml_gpu_init(struct nvml_gpu *g)
{
	memset(g, 0, sizeof(*g));
	g->ecc_current = g->ecc_pending = -1;
	g->ecc_vol_corr = g->ecc_vol_unc = g->ecc_agg_corr = g->ecc_agg_unc = -1;
	g->retired_sbe = g->retired_dbe = -1;
	g->retired_pending = -1;
	g->rows_corr = g->rows_unc = -1;
	g->rows_pending = g->rows_failure = -1;
	g->clock_reasons = -1;
	g->power_limit_mw = g->power_default_mw = g->power_enforced_mw = -1;
	g->persistence = -1;
	g->temp_c = g->temp_slowdown_c = g->temp_shutdown_c = -1;
	g->util_gpu = -1;
}

const struct nvml_gpu *nvml_gpu_of(const struct facts *f, const char *addr)
{
	for (size_t i = 0; addr && i < f->nvml.ngpus; i++)
		if (!strcmp(f->nvml.gpus[i].addr, addr))
			return &f->nvml.gpus[i];
	return NULL;
}

static const char *error_text(nvmlReturn_t rc)
{
	const char *s = nvmlErrorString(rc);
	return s && *s ? s : "unknown error";
}

/* Whether call `fn` gave its value. Not supported (a GeForce has no ECC)
 * and a driver without the function are plain "unknown"; the first other
 * failure (no permission, GPU lost, ...) is kept for the evidence. */
static bool ok(struct nvml_gpu *g, const char *fn, nvmlReturn_t rc)
{
	if (rc == 0)
		return true;
	if (rc != NVML_ERROR_NOT_SUPPORTED && rc != NVML_ERROR_FUNCTION_NOT_FOUND && !g->error[0])
		snprintf(g->error, sizeof(g->error), "%s: %s (%d)", fn, error_text(rc), rc);
	return false;
}
#define CALL(g, fn, ...) (at(#fn), ok((g), #fn, fn(__VA_ARGS__)))

static long long count_of(unsigned long long v)
{
	return v > (unsigned long long)LLONG_MAX ? LLONG_MAX : (long long)v;
}

static void read_ecc(struct nvml_gpu *g, nvmlDevice_t d)
{
	int cur, pend;
	if (CALL(g, nvmlDeviceGetEccMode, d, &cur, &pend)) {
		g->ecc_current = cur != 0;
		g->ecc_pending = pend != 0;
	}
	static const struct {
		int type, counter;
		size_t off;
	} totals[] = {
		{ NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, offsetof(struct nvml_gpu, ecc_vol_corr) },
		{ NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, offsetof(struct nvml_gpu, ecc_vol_unc) },
		{ NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, offsetof(struct nvml_gpu, ecc_agg_corr) },
		{ NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, offsetof(struct nvml_gpu, ecc_agg_unc) },
	};
	for (size_t i = 0; i < ARRAY_SIZE(totals); i++) {
		unsigned long long v;
		if (CALL(g, nvmlDeviceGetTotalEccErrors, d, totals[i].type, totals[i].counter, &v))
			*(long long *)((char *)g + totals[i].off) = count_of(v);
	}
}

/* Pages retired for `cause`: a count-only query (no address buffer), which
 * NVML answers with INSUFFICIENT_SIZE when there are any. */
static long long retired(struct nvml_gpu *g, nvmlDevice_t d, int cause)
{
	unsigned count = 0;
	at("nvmlDeviceGetRetiredPages");
	nvmlReturn_t rc = nvmlDeviceGetRetiredPages(d, cause, &count, NULL);
	if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
		rc = 0;
	return ok(g, "nvmlDeviceGetRetiredPages", rc) ? (long long)count : -1;
}

static void read_pages(struct nvml_gpu *g, nvmlDevice_t d)
{
	g->retired_sbe = retired(g, d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS);
	g->retired_dbe = retired(g, d, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
	int pending;
	if (CALL(g, nvmlDeviceGetRetiredPagesPendingStatus, d, &pending))
		g->retired_pending = pending != 0;
	unsigned corr, unc, rpend, fail;
	if (nvmlDeviceGetRemappedRows && CALL(g, nvmlDeviceGetRemappedRows, d, &corr, &unc, &rpend, &fail)) {
		g->rows_corr = corr;
		g->rows_unc = unc;
		g->rows_pending = rpend != 0;
		g->rows_failure = fail != 0;
	}
}

/* The clocks-event reasons, under their R535 name, else the older one. */
static void read_clocks(struct nvml_gpu *g, nvmlDevice_t d)
{
	unsigned long long r = 0;
	nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
	const char *fn = "";
	if (nvmlDeviceGetCurrentClocksEventReasons) {
		fn = "nvmlDeviceGetCurrentClocksEventReasons";
		at(fn);
		rc = nvmlDeviceGetCurrentClocksEventReasons(d, &r);
	}
	if (rc && nvmlDeviceGetCurrentClocksThrottleReasons) {
		fn = "nvmlDeviceGetCurrentClocksThrottleReasons";
		at(fn);
		rc = nvmlDeviceGetCurrentClocksThrottleReasons(d, &r);
	}
	if (ok(g, fn, rc)) {
		g->clock_reasons = count_of(r);
		snprintf(g->clock_reasons_fn, sizeof(g->clock_reasons_fn), "%s", fn);
	}
}

static void read_power(struct nvml_gpu *g, nvmlDevice_t d)
{
	unsigned mw;
	if (CALL(g, nvmlDeviceGetPowerManagementLimit, d, &mw))
		g->power_limit_mw = mw;
	if (CALL(g, nvmlDeviceGetPowerManagementDefaultLimit, d, &mw))
		g->power_default_mw = mw;
	if (CALL(g, nvmlDeviceGetEnforcedPowerLimit, d, &mw))
		g->power_enforced_mw = mw;
	int mode;
	if (CALL(g, nvmlDeviceGetPersistenceMode, d, &mode))
		g->persistence = mode != 0;
}

static int celsius(unsigned v)
{
	return v > 1000 ? -1 : (int)v;   /* no sensor reads above 1000 °C: garbage */
}

static void read_thermal(struct nvml_gpu *g, nvmlDevice_t d)
{
	unsigned t;
	if (CALL(g, nvmlDeviceGetTemperature, d, NVML_TEMPERATURE_GPU, &t))
		g->temp_c = celsius(t);
	if (CALL(g, nvmlDeviceGetTemperatureThreshold, d, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &t))
		g->temp_slowdown_c = celsius(t);
	if (CALL(g, nvmlDeviceGetTemperatureThreshold, d, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &t))
		g->temp_shutdown_c = celsius(t);
	nvmlUtilization_t u;
	if (CALL(g, nvmlDeviceGetUtilizationRates, d, &u))
		g->util_gpu = u.gpu > 100 ? -1 : (int)u.gpu;
}

/* ---- the reader: the isolated child ---- */

static void emit_text(int fd, int kind, int rc, unsigned index, const char *text)
{
	struct nvml_rec rec;
	memset(&rec, 0, sizeof(rec));
	rec.kind = kind;
	rec.rc = rc;
	rec.index = index;
	snprintf(rec.text, sizeof(rec.text), "%s", text);
	facts_printable(rec.text);
	isolated_emit(fd, &rec, sizeof(rec));
}

/* NVML's device `i` to the parent: a GPU record, or a SKIPPED one with the
 * reason NVML cannot open it. */
static void read_device(int fd, unsigned i)
{
	progress->index = (int)i;
	progress->addr[0] = '\0';
	nvmlDevice_t d;
	nvmlPciInfo_t pci;
	memset(&pci, 0, sizeof(pci));
	const char *fn = "nvmlDeviceGetHandleByIndex_v2";
	at(fn);
	nvmlReturn_t rc = nvmlDeviceGetHandleByIndex_v2(i, &d);
	if (!rc) {
		fn = "nvmlDeviceGetPciInfo_v3";
		at(fn);
		rc = nvmlDeviceGetPciInfo_v3(d, &pci);
	}
	char why[256];
	if (rc) {
		snprintf(why, sizeof(why), "device %u: %s: %s (%d)", i, fn, error_text(rc), rc);
		emit_text(fd, REC_SKIPPED, 0, i, why);
		return;
	}
	pci.busId[sizeof(pci.busId) - 1] = '\0';
	struct nvml_rec rec;
	memset(&rec, 0, sizeof(rec));
	struct nvml_gpu *g = &rec.gpu;
	nvml_gpu_init(g);
	snprintf(g->bus_id, sizeof(g->bus_id), "%s", pci.busId);
	if (nvml_bus_id_normalise(pci.busId, g->addr, sizeof(g->addr)) < 0) {
		facts_printable(g->bus_id);
		snprintf(why, sizeof(why), "device %u: busId \"%s\" is no PCI address", i, g->bus_id);
		emit_text(fd, REC_SKIPPED, 0, i, why);
		return;
	}
	snprintf(progress->addr, sizeof(progress->addr), "%s", g->addr);
	read_ecc(g, d);
	read_pages(g, d);
	read_clocks(g, d);
	read_power(g, d);
	read_thermal(g, d);
	facts_printable(g->error);
	rec.kind = REC_GPU;
	rec.index = i;
	isolated_emit(fd, &rec, sizeof(rec));
}

/* START (the device count, or why NVML cannot be read), then each device,
 * then END once nvmlShutdown returned. */
static void reader(void *arg, int fd)
{
	progress = arg;
	progress->pid = getpid();
	struct strbuf sb = STRBUF_INIT;
	at("dlopen");
	int load = dl_nvml_load(&sb);
	if (load < 0) {
		emit_text(fd, REC_START, load, 0, strbuf_cstr(&sb));
		return;
	}
	char why[160];
	at("nvmlInit_v2");
	nvmlReturn_t rc = nvmlInit_v2();
	if (rc) {
		snprintf(why, sizeof(why), "nvmlInit_v2: %s (%d)", error_text(rc), rc);
		emit_text(fd, REC_START, -EIO, 0, why);
		return;
	}
	unsigned count = 0;
	at("nvmlDeviceGetCount_v2");
	rc = nvmlDeviceGetCount_v2(&count);
	if (rc) {
		snprintf(why, sizeof(why), "nvmlDeviceGetCount_v2: %s (%d)", error_text(rc), rc);
		emit_text(fd, REC_START, -EIO, 0, why);
		at("nvmlShutdown");
		nvmlShutdown();
		return;
	}
	if (count > FACTS_MAX_GPUS)
		count = FACTS_MAX_GPUS;
	emit_text(fd, REC_START, 0, count, "");
	for (unsigned i = 0; i < count; i++)
		read_device(fd, i);
	progress->index = -1;
	progress->addr[0] = '\0';
	at("nvmlShutdown");
	nvmlShutdown();
	emit_text(fd, REC_END, 0, 0, "");
}

/* ---- the parent: records and what the reader's end means per GPU ---- */

static bool nvidia_present(const struct facts *f)
{
	return gpus_count_vendor(f, VENDOR_NVIDIA) > 0 || pci_count_vendor(f, 0x10de) > 0;
}

static bool nvml_live(const struct facts *f)
{
#ifdef ROCMCHECK_TEST_HOOKS
	/* a whole-program test reads the fake NVML for a fixture's GPUs */
	const char *t = getenv("ROCMCHECK_TEST_NVML_SYSROOT");
	if (t && !strcmp(t, "1"))
		return true;
#endif
	return f->sr->live;
}

static int nvml_timeout_s(void)
{
#ifdef ROCMCHECK_TEST_HOOKS
	const char *t = getenv("ROCMCHECK_TEST_NVML_TIMEOUT_S");
	if (t && atoi(t) > 0)
		return atoi(t);
#endif
	return NVML_TIMEOUT_S;
}

/* Every NVIDIA GPU's PCI address, as the health checks see them: the
 * inventory's, then GPU-class PCI devices without an index. */
static size_t nvidia_addrs(const struct facts *f, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < f->ngpus && n < max; i++)
		if (f->gpus[i].vendor == VENDOR_NVIDIA && f->gpus[i].pci_addr)
			out[n++] = f->gpus[i].pci_addr;
	for (size_t i = 0; i < f->npci && n < max; i++) {
		const struct pci_dev *p = &f->pci[i];
		if (p->vendor != 0x10de || !pci_is_gpu_class(p->class_code))
			continue;
		bool seen = false;
		for (size_t j = 0; j < n && !seen; j++)
			seen = !strcmp(out[j], p->addr);
		if (!seen)
			out[n++] = p->addr;
	}
	return n;
}

/* Append the reader's GPU record: the child is ours, but its bytes are still
 * checked (strings ended, an address that matches nothing twice). */
static void take_gpu(struct nvml_facts *n, const struct nvml_rec *rec)
{
	struct nvml_gpu g = rec->gpu;
	g.addr[sizeof(g.addr) - 1] = g.bus_id[sizeof(g.bus_id) - 1] = '\0';
	g.clock_reasons_fn[sizeof(g.clock_reasons_fn) - 1] = g.error[sizeof(g.error) - 1] = '\0';
	g.outcome = NVML_GPU_READ;
	g.outcome_why[0] = '\0';
	for (size_t i = 0; i < n->ngpus; i++)
		if (!strcmp(n->gpus[i].addr, g.addr))
			return;
	if (g.addr[0])
		n->gpus[n->ngpus++] = g;
}

/* The records in order: START first, then devices, END last. Returns
 * whether START arrived; *ended whether END did. */
static bool take_records(struct nvml_facts *n, struct nvml_rec *recs, size_t got, bool *ended)
{
	struct strbuf skipped = STRBUF_INIT;
	bool started = false;
	*ended = false;
	for (size_t i = 0; i < got; i++) {
		struct nvml_rec *rec = &recs[i];
		rec->text[sizeof(rec->text) - 1] = '\0';
		if (rec->kind == REC_START && i == 0) {
			started = true;
			n->load = rec->rc;
			if (rec->rc < 0)
				n->why = xstrdup(rec->text);
		} else if (rec->kind == REC_SKIPPED && started) {
			strbuf_addf(&skipped, "%s%s", skipped.len ? "; " : "", rec->text);
		} else if (rec->kind == REC_GPU && started) {
			take_gpu(n, rec);
		} else if (rec->kind == REC_END && started) {
			*ended = true;
		}
	}
	/* the devices NVML could not open, for the checks' "not listed" */
	if (skipped.len && !n->why)
		n->why = facts_printable(strbuf_detach(&skipped));
	strbuf_release(&skipped);
	return started;
}

/* src into the n bytes at dst, cut where it does not fit. */
static void set_text(char *dst, size_t n, const char *src)
{
	size_t len = strlen(src);
	if (len >= n)
		len = n - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static struct nvml_gpu *add_unreached(struct nvml_facts *n, const char *addr, int outcome, const char *why)
{
	struct nvml_gpu *g = &n->gpus[n->ngpus++];
	nvml_gpu_init(g);
	snprintf(g->addr, sizeof(g->addr), "%s", addr);
	g->outcome = outcome;
	set_text(g->outcome_why, sizeof(g->outcome_why), why);
	facts_printable(g->outcome_why);
	return g;
}

/* Every NVIDIA GPU without readings gets `outcome` and `why`. */
static void mark_unreached(const struct facts *f, struct nvml_facts *n, int outcome, const char *why)
{
	const char *addrs[2 * FACTS_MAX_GPUS];
	size_t na = nvidia_addrs(f, addrs, ARRAY_SIZE(addrs));
	for (size_t i = 0; i < na; i++) {
		bool have = false;
		for (size_t j = 0; j < n->ngpus && !have; j++)
			have = !strcmp(n->gpus[j].addr, addrs[i]);
		if (!have)
			add_unreached(n, addrs[i], outcome, why);
	}
}

/* How the reader ended, in words for a GPU: "nvmlDeviceGetTemperature did
 * not return within 60 s", "nvmlInit_v2: the NVML reader crashed with
 * signal 11 (Segmentation fault)". */
static void ending_words(int rc, const struct nvml_progress *p, int timeout_s, const char *err, char *out,
			 size_t size)
{
	const char *call = p->call[0] ? p->call : "the NVML reader";
	if (rc == -ETIMEDOUT)
		snprintf(out, size, "%s did not return within %d s", call, timeout_s);
	else if (rc == -EDEADLK)
		snprintf(out, size, "%s did not return within %d s; the reader (pid %ld) outlived SIGKILL: stuck in "
			 "the driver (D state), left behind", call, timeout_s, (long)p->pid);
	else
		snprintf(out, size, "%s: the NVML reader %s", call, err);
}

/* The reader hung or died (rc < 0), or exited before END: a verdict for
 * the GPU it was reading (all of them before the first), "not read" for
 * the ones after. After the last GPU (in nvmlShutdown), the readings stand
 * and say so. */
static void take_ending(const struct facts *f, struct nvml_facts *n, bool started, int rc,
			const struct nvml_progress *p, const char *err, int timeout_s)
{
	bool hung = rc == -ETIMEDOUT || rc == -EDEADLK;
	int outcome = hung ? NVML_GPU_UNRESPONSIVE : NVML_GPU_ERROR;
	char words[256];
	struct strbuf why = STRBUF_INIT;
	ending_words(rc, p, timeout_s, err, words, sizeof(words));
	if (!started) {
		n->load = hung ? -ETIMEDOUT : -EIO;
		free(n->why);
		n->why = facts_printable(xstrdup(words));
		mark_unreached(f, n, outcome, words);
	} else if (p->index >= 0 && p->addr[0]) {
		add_unreached(n, p->addr, outcome, words);
		strbuf_addf(&why, "not read: NVML %s on %s (its device %d) before reaching this GPU",
			    hung ? "hung" : "failed", p->addr, p->index);
		mark_unreached(f, n, NVML_GPU_ERROR, strbuf_cstr(&why));
	} else if (p->index >= 0) {
		/* in the handle or PCI query: which GPU, NVML had not said */
		strbuf_addf(&why, "%s (NVML device %d, whose PCI address it had not given)", words, p->index);
		mark_unreached(f, n, outcome, strbuf_cstr(&why));
	} else {
		for (size_t i = 0; i < n->ngpus; i++)
			if (!n->gpus[i].error[0])
				set_text(n->gpus[i].error, sizeof(n->gpus[i].error), words);
	}
	strbuf_release(&why);
}

void facts_read_nvml(struct facts *f)
{
	struct nvml_facts *n = &f->nvml;
	if (n->tried || !nvml_live(f) || !nvidia_present(f))
		return;
	n->tried = true;
	struct nvml_progress *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		n->load = -errno;
		n->why = xasprintf("cannot start the NVML reader: mmap: %s", strerror(errno));
		return;
	}
	memset(p, 0, sizeof(*p));
	p->index = -1;
	const size_t max = FACTS_MAX_GPUS + 2;
	struct nvml_rec *recs = xcalloc(max, sizeof(*recs));
	struct strbuf err = STRBUF_INIT;
	size_t got = 0;
	int timeout_s = nvml_timeout_s();
	int rc = run_isolated_stream(reader, p, recs, sizeof(*recs), max, timeout_s, &got, &err);
	/* room for every device record and every NVIDIA GPU it did not reach */
	const char *addrs[2 * FACTS_MAX_GPUS];
	n->gpus = xcalloc(got + nvidia_addrs(f, addrs, ARRAY_SIZE(addrs)) + 1, sizeof(*n->gpus));
	bool ended = false, started = take_records(n, recs, got, &ended);
	if (p->pid == 0) {
		n->load = -EIO;
		n->why = facts_printable(xasprintf("cannot start the NVML reader: %s", strbuf_cstr(&err)));
	} else if (!ended && (rc < 0 || (started && n->load == 0))) {
		take_ending(f, n, started, rc < 0 ? rc : -EIO, p, rc < 0 ? strbuf_cstr(&err) : "exited", timeout_s);
	} else if (!started) {
		n->load = -EIO;
		n->why = facts_printable(xasprintf("the NVML reader %s", strbuf_cstr(&err)));
	}
	strbuf_release(&err);
	free(recs);
	munmap(p, sizeof(*p));
}
