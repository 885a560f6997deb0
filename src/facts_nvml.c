/* NVIDIA GPU health through NVML (libnvidia-ml.so.1, dlopened: dl_libs.h):
 * ECC mode and counts, retired pages, remapped rows, clocks-event reasons,
 * power limits, persistence mode, temperature and its thresholds, and
 * utilization, per GPU NVML lists (research/health.md 2.4, 4.4, 4.5). Only on
 * the live machine, and only when the caller runs at level standard or full:
 * NVML initialises every GPU (seconds without persistence mode), which a
 * quick run must not pay. Each call that fails leaves its value unknown. */
#include "facts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dl_use.h"     /* last: library names become dl_libs.h pointers */

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
#define CALL(g, fn, ...) ok((g), #fn, fn(__VA_ARGS__))

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
		rc = nvmlDeviceGetCurrentClocksEventReasons(d, &r);
	}
	if (rc && nvmlDeviceGetCurrentClocksThrottleReasons) {
		fn = "nvmlDeviceGetCurrentClocksThrottleReasons";
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

static bool nvidia_present(const struct facts *f)
{
	return gpus_count_vendor(f, VENDOR_NVIDIA) > 0 || pci_count_vendor(f, 0x10de) > 0;
}

/* Read GPU `i` into the next slot of n; the reason when NVML cannot open it
 * goes to `skipped`. */
static void read_device(struct nvml_facts *n, unsigned i, struct strbuf *skipped)
{
	nvmlDevice_t d;
	nvmlPciInfo_t pci;
	memset(&pci, 0, sizeof(pci));
	nvmlReturn_t rc = nvmlDeviceGetHandleByIndex_v2(i, &d);
	const char *fn = "nvmlDeviceGetHandleByIndex_v2";
	if (!rc) {
		rc = nvmlDeviceGetPciInfo_v3(d, &pci);
		fn = "nvmlDeviceGetPciInfo_v3";
	}
	if (rc) {
		strbuf_addf(skipped, "%sdevice %u: %s: %s (%d)", skipped->len ? "; " : "", i, fn, error_text(rc), rc);
		return;
	}
	pci.busId[sizeof(pci.busId) - 1] = '\0';
	struct nvml_gpu *g = &n->gpus[n->ngpus];
	nvml_gpu_init(g);
	snprintf(g->bus_id, sizeof(g->bus_id), "%s", pci.busId);
	if (nvml_bus_id_normalise(pci.busId, g->addr, sizeof(g->addr)) < 0) {
		facts_printable(g->bus_id);
		strbuf_addf(skipped, "%sdevice %u: busId \"%s\" is no PCI address", skipped->len ? "; " : "", i,
			    g->bus_id);
		return;
	}
	read_ecc(g, d);
	read_pages(g, d);
	read_clocks(g, d);
	read_power(g, d);
	read_thermal(g, d);
	facts_printable(g->error);
	n->ngpus++;
}

void facts_read_nvml(struct facts *f)
{
	struct nvml_facts *n = &f->nvml;
	if (n->tried || !f->sr->live || !nvidia_present(f))
		return;
	n->tried = true;
	struct strbuf sb = STRBUF_INIT;
	n->load = dl_nvml_load(&sb);
	if (n->load < 0) {
		n->why = strbuf_detach(&sb);
		return;
	}
	nvmlReturn_t rc = nvmlInit_v2();
	if (rc) {
		n->load = -EIO;
		n->why = facts_printable(xasprintf("nvmlInit_v2: %s (%d)", error_text(rc), rc));
		goto out;
	}
	unsigned count = 0;
	rc = nvmlDeviceGetCount_v2(&count);
	if (rc) {
		n->load = -EIO;
		n->why = facts_printable(xasprintf("nvmlDeviceGetCount_v2: %s (%d)", error_text(rc), rc));
		nvmlShutdown();
		goto out;
	}
	if (count > FACTS_MAX_GPUS)
		count = FACTS_MAX_GPUS;
	n->gpus = xcalloc(count ? count : 1, sizeof(*n->gpus));
	for (unsigned i = 0; i < count; i++)
		read_device(n, i, &sb);
	/* the devices NVML could not open, for the checks' "not listed" */
	if (sb.len)
		n->why = facts_printable(strbuf_detach(&sb));
	nvmlShutdown();
out:
	strbuf_release(&sb);
}
